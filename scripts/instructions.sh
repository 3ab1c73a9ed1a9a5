#!/usr/bin/env bash
# Instruction counts of fixed workloads under valgrind's callgrind: a figure
# that does not move with machine load, for comparing changes.
#
#   scripts/instructions.sh            # the default workloads
#
# Each line: workload, total instructions, instructions per message.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q --release -p gcmsiv-bench --example workload --example batch_workload
out=$(mktemp)
trap 'rm -f "$out"' EXIT
count() {
    valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >/dev/null 2>&1
    sed -n 's/^summary: //p' "$out"
}
printf '%-58s %14s %12s\n' workload instructions per-message
for size in 16 1024 16384; do
    n=$((2000000 / (size + 64)))
    total=$(count target/release/examples/workload "$size" "$n")
    # workload seals and opens each message with AES-128 and AES-256: 4 operations.
    printf '%-58s %14s %12s\n' "seal+open, AES-128 and -256, $size B x $n" "$total" "$((total / (4 * n)))"
done
for size in 16 1024 16384; do
    n=$((2000000 / (size + 64)))
    total=$(count target/release/examples/workload "$size" "$n" gcm)
    printf '%-58s %14s %12s\n' "GCM seal+open, AES-128 and -256, $size B x $n" "$total" "$((total / (4 * n)))"
done
for size in 16 64; do
    total=$(count target/release/examples/batch_workload "$size" 500)
    printf '%-58s %14s %12s\n' "batch seal, AES-128, 64 x $size B x 500 calls" "$total" "$((total / (64 * 500)))"
done
