#!/usr/bin/env bash
# The benchmark (crates/bench), with one option of its own: `--max-width 256`
# (or 128) builds the library with the test-only width cap, in a target folder
# of its own, so that a CPU with AVX-512 runs the 256-bit path exactly as a CPU
# without it (AMD Zen 3, Intel Alder Lake) does. Every other argument goes to
# the benchmark: scripts/bench.sh --max-width 256 --only single --keys 128,256
set -euo pipefail
cd "$(dirname "$0")/.."

width=""
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --max-width) width="${2:?--max-width takes 128, 256 or 512}"; args+=("$1" "$2"); shift 2 ;;
        --max-width=*) width="${1#*=}"; args+=("$1"); shift ;;
        *) args+=("$1"); shift ;;
    esac
done

case "$width" in
    "" | 512) exec cargo run --release --quiet -p gcmsiv-bench -- "${args[@]}" ;;
    128 | 256)
        GCMSIV_MAX_WIDTH="$width" CARGO_TARGET_DIR="target/width-$width" \
            exec cargo run --release --quiet -p gcmsiv-bench -- "${args[@]}" ;;
    *) echo "bench.sh: --max-width takes 128, 256 or 512, not '$width'" >&2; exit 2 ;;
esac
