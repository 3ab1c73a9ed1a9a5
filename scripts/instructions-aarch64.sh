#!/usr/bin/env bash
# Instructions per byte of our AArch64 backend beside RustCrypto's aes-gcm-siv
# and aes-gcm (which have ARMv8 code of their own), counted under qemu's
# user-mode emulation: a benchmark where no timer means anything. Each figure
# is (instructions of N operations - instructions of none) / N, from qemu's
# execution log in single-step mode (one line per instruction executed), for
# the workload in crates/count.
#
#   scripts/instructions-aarch64.sh                 # the default table
#   SIZES="16 1024" AAD=13 scripts/instructions-aarch64.sh
#
# Needs what scripts/test-cross.sh needs (Debian's Rust with the arm64
# standard library, the cross linker, qemu-user-static). Emulation runs every
# instruction one at a time here: the full table takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."

export RUSTC=/usr/bin/rustc RUSTDOC=/usr/bin/rustdoc CARGO_TARGET_DIR="$PWD/target/cross"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
/usr/bin/cargo build -q --release -p gcmsiv-count --target aarch64-unknown-linux-gnu --locked
exe="$CARGO_TARGET_DIR/aarch64-unknown-linux-gnu/release/gcmsiv-count"

sizes=${SIZES:-16 256 1024 4096 16384 65536 1048576}
aad=${AAD:-0}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkfifo "$work/log"

# Instructions of one run: qemu logs each one it executes to the pipe, which
# grep counts as they come (a 1 MiB workload logs hundreds of megabytes).
run() {
    grep -c '^Trace' <"$work/log" >"$work/count" &
    qemu-aarch64-static -singlestep -d exec,nochain -D "$work/log" "$exe" "$@" >/dev/null
    wait
    cat "$work/count"
}

per_op() { # lib alg op bits size
    local n=$(( $5 >= 65536 ? 2 : ($5 >= 4096 ? 4 : 16) ))
    local base total
    base=$(run "$1" "$2" "$3" "$4" "$5" "$aad" 0 "$n")
    total=$(run "$1" "$2" "$3" "$4" "$5" "$aad" "$n" "$n")
    echo $(( (total - base) / n ))
}

printf '%-26s %9s %12s %12s %9s %9s %7s\n' "operation (AAD $aad B)" bytes ours rustcrypto "ours/B" "rc/B" ratio
for spec in "siv seal 128" "siv open 128" "siv seal 256" "siv open 256" "gcm seal 128" "gcm open 128"; do
    set -- $spec
    for size in $sizes; do
        ours=$(per_op ours "$1" "$2" "$3" "$size")
        rc=$(per_op rustcrypto "$1" "$2" "$3" "$size")
        awk -v what="AES-$3-$( [ "$1" = siv ] && echo GCM-SIV || echo GCM) $2" -v size="$size" -v ours="$ours" \
            -v rc="$rc" 'BEGIN { printf "%-26s %9d %12d %12d %9.2f %9.2f %7.2f\n", what, size, ours, rc, ours / size, rc / size, rc / ours }'
    done
done
