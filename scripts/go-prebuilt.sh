#!/usr/bin/env bash
# The Go module's prebuilt C libraries: what lets `go get` + `go build` work on
# linux/amd64 and linux/arm64 with cgo and no Rust toolchain.
#
#   scripts/go-prebuilt.sh           # rebuild bindings/go/prebuilt/ (commit the result)
#   scripts/go-prebuilt.sh --check   # fail if it is not current (CI runs this)
#
# bindings/go/prebuilt/ holds the C ABI's static library for each platform,
# in a folder named as Go names it (linux_amd64, linux_arm64; cgo.go picks one
# by GOARCH), each one object (only what the C entry points reach, no debug
# sections, a deterministic archive: about 3 MB, under 1 MB compressed in git),
# a copy of their header, and INPUTS: a SHA-256 over everything the library is built from (the sources
# and manifests of crates/gcmsiv, crates/gcmsiv-glue, crates/gcmsiv-stream (the
# file format's calls) and crates/gcmsiv-c, the
# header, the workspace's release profile, the resolved versions of every
# crate it links on either platform, and this script), with the toolchain that
# built each library and its SHA-256.
#
# linux_arm64's library is cross-compiled with Debian's Rust (rustc-web and
# cargo-web in /usr/bin, with libstd-rust-web-dev:arm64) and the cross binutils
# of gcc-aarch64-linux-gnu, as scripts/test-cross.sh builds; .ci/run installs
# them. scripts/test-packages-arm64.sh runs it on AArch64 under emulation.
#
# Why a hash of the inputs and not the library's bytes: the bytes depend on
# the Rust toolchain, and CI installs whichever stable Rust is current, so a
# byte comparison would fail on every compiler release without any source
# change. The input hash is deterministic on any machine and any toolchain, and
# fails exactly when a source the library is built from changed without a
# rebuild. (With the toolchain named in INPUTS, a rebuild is byte-for-byte the
# same: paths are remapped and the archive is deterministic; `--check-bytes`
# proves it where the toolchains match.)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

out=bindings/go/prebuilt
# Each platform: Go's GOOS_GOARCH, Rust's target, and the prefix of the binutils for it.
platforms=("linux_amd64 x86_64-unknown-linux-gnu" "linux_arm64 aarch64-unknown-linux-gnu aarch64-linux-gnu-")

# The hash of the inputs, on stdout.
inputs_hash() {
    {
        # Sources and manifests, in a fixed order, each with its path.
        git ls-files -z -- crates/gcmsiv/Cargo.toml crates/gcmsiv/build.rs crates/gcmsiv/src crates/gcmsiv-glue/Cargo.toml \
            crates/gcmsiv-glue/src crates/gcmsiv-stream/Cargo.toml crates/gcmsiv-stream/src \
            crates/gcmsiv-c/Cargo.toml crates/gcmsiv-c/src crates/gcmsiv-c/include \
            crates/gcmsiv-c/build.rs scripts/go-prebuilt.sh | sort -z | while IFS= read -r -d '' f; do
            printf '%s\n' "$f"
            sha256sum < "$f"
        done
        # The release profile of the workspace (the rest of its manifest does not reach the library).
        sed -n '/^\[profile\.release\]/,/^\[/p' Cargo.toml
        # Every crate linked in on each platform, at the version Cargo.lock resolves.
        local p
        for p in "${platforms[@]}"; do
            read -r _ target _ <<< "$p"
            echo "$target"
            cargo tree --locked --offline -q -p gcmsiv-c -e normal,build --prefix none --no-dedupe \
                --target "$target" | sed 's/ (.*//' | sort -u
        done
    } | sha256sum | cut -d' ' -f1
}

# The toolchain that builds for a target: rustup's (or whatever is first on the
# PATH) for the host's, Debian's cross toolchain for AArch64.
cargo_for() {
    case "$1" in
    x86_64-*) cargo "${@:2}" --target "$1" ;;
    aarch64-*)
        RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
            /usr/bin/cargo "${@:2}" --target "$1" ;;
    esac
}
rustc_for() {
    case "$1" in
    x86_64-*) rustc --version ;;
    aarch64-*) /usr/bin/rustc --version ;;
    esac
}

# build TARGET BINUTILS_PREFIX OUT_DIR
build() {
    local target=$1 bin=$2
    # Paths remapped so the library holds no machine's paths and is the same wherever it is built.
    local cargo_home="${CARGO_HOME:-$HOME/.cargo}"
    RUSTFLAGS="--remap-path-prefix=$root=gcmsiv --remap-path-prefix=$cargo_home=cargo" \
        CARGO_TARGET_DIR=target/go-prebuilt \
        cargo_for "$target" build -q --release --locked -p gcmsiv-c
    shift 2
    mkdir -p "$1"
    # Rust's static library is every object of the crates and of std, with
    # debug sections and LLVM bitcode (about 27 MB). Go's linker needs none of
    # that: the archive is cut down to one relocatable object, linked from the
    # objects with the sections no C entry point reaches dropped, and with
    # every symbol but the C ABI's made local (so it cannot clash with another
    # Rust library in the same program), then stripped of debug sections, in a
    # deterministic archive (no dates, owners or modes).
    local work
    work=$(mktemp -d)
    "${bin}strip" --strip-debug --enable-deterministic-archives -R .llvmbc -R .llvmcmd \
        -o "$work/full.a" "target/go-prebuilt/$target/release/libgcmsiv_c.a"
    mkdir "$work/objects"
    (cd "$work/objects" && "${bin}ar" x ../full.a)
    local api=()
    mapfile -t api < <(grep -o '\bgcmsiv_[a-z0-9_]*(' crates/gcmsiv-c/include/gcmsiv.h | tr -d '(' | sort -u)
    local -a roots=() keep=()
    for s in "${api[@]}"; do roots+=(-u "$s"); keep+=(-G "$s"); done
    (cd "$work/objects" && find . -name '*.o' -print0 | sort -z | xargs -0 "${bin}ld" -r --gc-sections "${roots[@]}" -o ../gcmsiv_c.o)
    "${bin}objcopy" "${keep[@]}" --strip-debug "$work/gcmsiv_c.o"
    # Every function of the header must still be defined and global.
    local defined
    defined=$(readelf -sW "$work/gcmsiv_c.o" | awk '$5 == "GLOBAL" && $7 != "UND" {print $8}' | sort)
    for s in "${api[@]}"; do
        grep -qx "$s" <<< "$defined" || { echo "go-prebuilt: $s is not defined in the library" >&2; exit 1; }
    done
    rm -f "$1/libgcmsiv_c.a"
    (cd "$work" && "${bin}ar" rcD libgcmsiv_c.a gcmsiv_c.o)
    cp "$work/libgcmsiv_c.a" "$1/libgcmsiv_c.a"
    rm -rf "$work"
}

case "${1:-}" in
--check)
    want=$(sed -n 's/^inputs-sha256: //p' "$out/INPUTS")
    got=$(inputs_hash)
    cmp -s crates/gcmsiv-c/include/gcmsiv.h "$out/gcmsiv.h" || {
        echo "bindings/go/prebuilt/gcmsiv.h differs from crates/gcmsiv-c/include/gcmsiv.h: run scripts/go-prebuilt.sh and commit" >&2
        exit 1
    }
    [ "$want" = "$got" ] || {
        echo "bindings/go/prebuilt/ is stale: its library was built from other sources (inputs $want, now $got)." >&2
        echo "Run scripts/go-prebuilt.sh and commit bindings/go/prebuilt/." >&2
        exit 1
    }
    echo "go prebuilt library: current (inputs $got)"
    ;;
--check-bytes)
    # Rebuilds into a scratch folder and compares bytes; meaningful only with the toolchain INPUTS names.
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    checked=0
    for p in "${platforms[@]}"; do
        read -r goos_arch target bin <<< "$p"
        recorded=$(sed -n "s/^$goos_arch rustc: //p" "$out/INPUTS")
        if [ "$recorded" != "$(rustc_for "$target")" ]; then
            echo "$goos_arch: this toolchain ($(rustc_for "$target")) is not the one that built the library ($recorded): bytes would differ" >&2
            continue
        fi
        build "$target" "$bin" "$scratch/$goos_arch"
        cmp "$scratch/$goos_arch/libgcmsiv_c.a" "$out/$goos_arch/libgcmsiv_c.a"
        echo "go prebuilt library, $goos_arch: rebuilt byte for byte"
        checked=$((checked + 1))
    done
    [ "$checked" -gt 0 ] || exit 2
    ;;
"")
    for p in "${platforms[@]}"; do
        read -r goos_arch target bin <<< "$p"
        build "$target" "$bin" "$out/$goos_arch"
    done
    cp crates/gcmsiv-c/include/gcmsiv.h "$out/gcmsiv.h"
    {
        echo "# Written by scripts/go-prebuilt.sh; checked by its --check."
        echo "inputs-sha256: $(inputs_hash)"
        for p in "${platforms[@]}"; do
            read -r goos_arch target _ <<< "$p"
            echo "$goos_arch rustc: $(rustc_for "$target")"
            echo "$goos_arch library-sha256: $(sha256sum < "$out/$goos_arch/libgcmsiv_c.a" | cut -d' ' -f1)"
        done
    } > "$out/INPUTS"
    for p in "${platforms[@]}"; do
        read -r goos_arch _ <<< "$p"
        echo "wrote $out/$goos_arch/libgcmsiv_c.a ($(du -h "$out/$goos_arch/libgcmsiv_c.a" | cut -f1))"
    done
    ;;
*)
    echo "usage: scripts/go-prebuilt.sh [--check | --check-bytes]" >&2
    exit 2
    ;;
esac
