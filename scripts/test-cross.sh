#!/usr/bin/env bash
# The crate on other architectures, under user-mode emulation: AArch64 (its
# own backend and the portable one), 32-bit ARM and 64-bit POWER (portable),
# and a no_std build for bare-metal AArch64. Run by scripts/test.sh; alone:
#
#   scripts/test-cross.sh            every target
#   scripts/test-cross.sh aarch64    one of: aarch64 armv7 ppc64le none
#
# Needs Debian's Rust (rustc-web, cargo-web: /usr/bin/cargo and /usr/bin/rustc)
# with the targets' standard libraries (libstd-rust-web-dev:arm64, :armhf,
# :ppc64el), the cross C toolchains (gcc-aarch64-linux-gnu,
# gcc-arm-linux-gnueabihf, gcc-powerpc64le-linux-gnu and their libc6-dev-*-cross)
# and qemu-user-static; .ci/run installs them. The bare-metal build uses
# rustup's toolchain with its aarch64-unknown-none standard library.
#
# Emulation is slow and says nothing about speed: the tests run with
# GCMSIV_EMULATED=1 (long loops and property tests scale their case counts
# down) and PROPTEST_CASES=32. Speed on these targets is counted in
# instructions (docs/PERFORMANCE.md), never timed here.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== cross [%dm%02ds] %s\n' "$((SECONDS / 60))" "$((SECONDS % 60))" "$*"; }

# Debian's toolchain, whatever rustup puts first on the PATH; the host's
# own build scripts and proc macros are built by it too.
DEB_CARGO=/usr/bin/cargo
export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc
[ -x "$DEB_CARGO" ] && [ -x "$RUSTC" ] || {
    echo "test-cross.sh: needs Debian's rustc-web and cargo-web in /usr/bin (.ci/run installs them)" >&2
    exit 1
}
export CARGO_TARGET_DIR="$PWD/target/cross"
export GCMSIV_EMULATED=1 PROPTEST_CASES=32
unset RUSTFLAGS GCMSIV_MAX_WIDTH

# Test binaries run under qemu. Its -L prefix is NOT used: the targets'
# multiarch libc6 (which the libstd packages bring) lives in /lib/<triple>,
# and with -L pointing at the cross prefix, qemu runs that prefix's loader
# (glibc 2.36-8 on Debian 12), which takes libc.so.6 from the multiarch
# directory (2.36-9+deb12u14): the loader and libc share private structures
# and must come from one build, and mixed, the first thread a process starts
# dies with SIGSEGV on armv7 and hangs on aarch64. In the library the first
# thread is rayon's pool, started by the all-cores path, so it looked like that
# path's bug (issue 48). Programs the tests
# spawn themselves (the CLI's tests run the gcmsiv binary) need the kernel to
# know qemu: binfmt_misc, registered here when it is not.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER=qemu-aarch64-static
export CARGO_TARGET_ARMV7_UNKNOWN_LINUX_GNUEABIHF_LINKER=arm-linux-gnueabihf-gcc
export CARGO_TARGET_ARMV7_UNKNOWN_LINUX_GNUEABIHF_RUNNER=qemu-arm-static
export CARGO_TARGET_POWERPC64LE_UNKNOWN_LINUX_GNU_LINKER=powerpc64le-linux-gnu-gcc
export CARGO_TARGET_POWERPC64LE_UNKNOWN_LINUX_GNU_RUNNER=qemu-ppc64le-static

register_binfmt() {
    local fmt=/proc/sys/fs/binfmt_misc
    [ -e "$fmt/register" ] || mount -t binfmt_misc binfmt_misc "$fmt" 2>/dev/null || true
    for arch in aarch64 arm ppc64le; do
        [ -e "$fmt/qemu-$arch" ] && continue
        [ -w "$fmt/register" ] && cat "/usr/lib/binfmt.d/qemu-$arch.conf" > "$fmt/register" 2>/dev/null || true
    done
}
register_binfmt

cargo_for() { local target=$1; shift; "$DEB_CARGO" "$@" --target "$target" --locked; }

aarch64() {
    local t=aarch64-unknown-linux-gnu
    step "aarch64: the core's whole suite, every backend the (emulated) CPU has"
    cargo_for $t test -p gcmsiv --features research,aead
    step "aarch64: forced portable (what the default key picks, on the portable backend)"
    cargo_for $t test -p gcmsiv --features force-portable --test vectors --test api --test parallel --test misuse
    step "aarch64: no secrets left on the stack (optimized build, as on x86-64)"
    cargo_for $t test --release -p gcmsiv --test residue
    step "aarch64: no_std"
    cargo_for $t build -p gcmsiv --no-default-features
    if [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
        step "aarch64: the file format's library and the CLI (which runs the aarch64 gcmsiv binary)"
        cargo_for $t test -p gcmsiv-stream -p gcmsiv-cli
    else
        echo "SKIPPED: the stream and CLI tests on aarch64 need binfmt_misc for qemu (not available here)" >&2
    fi
}

armv7() {
    local t=armv7-unknown-linux-gnueabihf
    step "armv7 (32-bit): the core's whole suite on the portable backend"
    cargo_for $t test -p gcmsiv --features research,aead
}

ppc64le() {
    local t=powerpc64le-unknown-linux-gnu
    step "ppc64le: the core's vectors, differential, batch and all-cores tests on the portable backend"
    cargo_for $t test -p gcmsiv --test vectors --test gcm_vectors --test differential --test batch --test parallel --test api --lib
}

none() {
    step "aarch64-unknown-none: no_std (rustup's toolchain)"
    if rustup target list --installed 2>/dev/null | grep -qx aarch64-unknown-none ||
        rustup target add aarch64-unknown-none >/dev/null 2>&1; then
        env -u RUSTC -u RUSTDOC CARGO_TARGET_DIR="$CARGO_TARGET_DIR" \
            cargo build -p gcmsiv --no-default-features --target aarch64-unknown-none --locked
    else
        echo "SKIPPED: rustup cannot install aarch64-unknown-none's standard library here" >&2
    fi
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(aarch64 armv7 ppc64le none)
for target in "${targets[@]}"; do
    case "$target" in
        aarch64 | armv7 | ppc64le | none) "$target" ;;
        *) echo "test-cross.sh: unknown target '$target' (aarch64 armv7 ppc64le none)" >&2; exit 2 ;;
    esac
done
step "done"
