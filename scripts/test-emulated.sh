#!/usr/bin/env bash
# Runs the core's tests of the all-cores path (with its vector files and the
# unit tests of the thread protocol and the limits, which depend on the word
# size) on other architectures under qemu's user-mode
# emulation: 32-bit ARM and 64-bit ARM, or the targets given as arguments
# (armv7-unknown-linux-gnueabihf, aarch64-unknown-linux-gnu). Only the portable
# backend exists there. Needs, per target, a Rust with the target's standard
# library (`rustup target add`, or Debian's libstd-rust-dev:armhf / :arm64: set
# RUSTC and CARGO to the one that has it), the cross C compiler and C library
# (Debian: gcc-arm-linux-gnueabihf, gcc-aarch64-linux-gnu) and qemu-user-static.
#
# GCMSIV_EMULATED=1 tells the tests that they run emulated: those that loop take
# fewer cases, so that each finishes within a minute under qemu.
#
# The runner points the dynamic loader at the cross C library's own libc. With
# `qemu -L <cross C library>` alone, qemu runs the cross loader, and the loader
# takes libc.so.6 from the host's /etc/ld.so.cache: on a machine that also has the
# distribution's libc6:armhf (Debian's Rust standard library for the target brings
# it), that is another build of glibc. The loader and libc share private
# structures (`_rtld_global`) and must come from one build: mixed (a 2.36-8 cross
# loader with a 2.36-9+deb12u14 libc), `pthread_create` walks a list head at the
# wrong offset and the first thread a process starts dies with SIGSEGV on armv7
# (and hangs on aarch64). Any program does; in the library the first thread is
# rayon's pool, started by the all-cores path, so it looked like that path's bug
# (issue 48). LD_LIBRARY_PATH comes before the loader's cache.
set -euo pipefail
cd "$(dirname "$0")/.."

cargo=${CARGO:-cargo}
rustc=${RUSTC:-rustc}
export GCMSIV_EMULATED=1
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(armv7-unknown-linux-gnueabihf aarch64-unknown-linux-gnu)

step() { printf '\n== [%dm%02ds] %s\n' "$((SECONDS / 60))" "$((SECONDS % 60))" "$*"; }

for target in "${targets[@]}"; do
    case "$target" in
        armv7-unknown-linux-gnueabihf) gnu=arm-linux-gnueabihf qemu=arm ;;
        aarch64-unknown-linux-gnu) gnu=aarch64-linux-gnu qemu=aarch64 ;;
        *) echo "test-emulated.sh: no runner known for $target" >&2; exit 2 ;;
    esac
    step "$target: under qemu-$qemu"
    if ! ls "$("$rustc" --print target-libdir --target "$target")"/libstd-* >/dev/null 2>&1; then
        echo "$rustc has no standard library for $target (rustup target add $target, or set RUSTC)" >&2
        exit 1
    fi
    cc="$gnu-gcc"
    qemu_bin=$(command -v "qemu-$qemu-static" || command -v "qemu-$qemu") || {
        echo "no qemu-$qemu-static or qemu-$qemu (qemu-user-static)" >&2
        exit 1
    }
    libdir=$(dirname "$(realpath "$("$cc" -print-file-name=libc.so.6)")")
    runner=("$qemu_bin" -L "$(dirname "$libdir")" -E "LD_LIBRARY_PATH=$libdir")

    # A thread started under this runner, first: a runner that cannot start
    # one fails every test binary (libtest starts a thread per test) with a
    # signal and no message.
    probe=target/emulated/$target
    mkdir -p "$probe"
    printf '%s\n' '#include <pthread.h>' \
        'static void *run(void *arg) { return arg; }' \
        'int main(void) { pthread_t t; void *r = 0; return pthread_create(&t, 0, run, &t) || pthread_join(t, &r) || r != &t; }' \
        >"$probe/thread.c"
    "$cc" -O1 -pthread "$probe/thread.c" -o "$probe/thread"
    if ! timeout 60 "${runner[@]}" "$probe/thread"; then
        echo "$target: a thread does not start under '${runner[*]}'; are the loader and libc one build?" >&2
        exit 1
    fi

    triple=$(echo "$target" | tr 'a-z-' 'A-Z_')
    export "CARGO_TARGET_${triple}_LINKER=$cc" "CARGO_TARGET_${triple}_RUNNER=${runner[*]}"
    "$cargo" test -p gcmsiv --target "$target" --test parallel --test vectors
    "$cargo" test -p gcmsiv --target "$target" --lib -- pieces:: parallel:: limits::
done
