#!/usr/bin/env bash
# Runs Miri (nightly; the component is added when missing) on the tests that can run
# under it in reasonable time: the portable backend's and the modes' unit tests, the
# core's misuse and API tests, and the C ABI's batch aliasing test. Miri interprets:
# every AES block of the bitsliced portable backend costs milliseconds there, so
# tests that loop over many lengths, vector files (which Miri could read only with
# isolation off) or the hardware backends (CPUID, intrinsics, asm, which Miri cannot
# run: under it only the portable backend exists) stay out. The all-cores path runs with
# a threshold of 64 bytes, on this machine's target and on 32-bit ARM. SECURITY.md
# ("Miri") lists what runs and how long it takes.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo +nightly miri --version >/dev/null 2>&1; then
    rustup +nightly component add miri rust-src
fi
export MIRIFLAGS="${MIRIFLAGS:-}"

step() { printf '\n== %s\n' "$*"; }
timed() {
    local start=$SECONDS
    "$@"
    printf 'miri: %s s\n' "$((SECONDS - start))"
}

step "miri: the core's unit tests on the portable backend (bitsliced AES, POLYVAL, the modes, limits)"
# Skipped: the two unit tests that read the vector files (Miri's isolation), and the
# CTR test over 48 starts and lengths, which derives the record keys for every block
# and did not finish in 15 minutes under Miri (SECURITY.md, "Miri").
timed cargo +nightly miri test -q -p gcmsiv --no-default-features --features std,force-portable --lib -- \
    backend::soft siv:: gcm:: limits:: \
    --skip rfc8452_intermediate_values_from_the_mode_steps --skip gcm_spec_intermediate_values \
    --skip ctr32le_wraps_modulo_2_32_and_keeps_the_upper_96_bits

step "miri: misuse and API tests of the core"
timed cargo +nightly miri test -q -p gcmsiv --no-default-features --features std,force-portable \
    --test misuse --test api

step "miri: the C ABI's batch calls and the items array (aliasing)"
timed cargo +nightly miri test -q -p gcmsiv-c --no-default-features --features gcmsiv/force-portable \
    --test batch_aliasing

step "miri: the all-cores path (rayon's threads, the lifetime erasure in pieces.rs), 64-byte threshold, this machine's target and 32-bit ARM"
# rayon's crossbeam-epoch breaks Stacked Borrows' rules but not Tree Borrows' (crossbeam's
# own Miri runs use Tree Borrows), and its per-thread data outlives the tests, as rayon's
# pool threads do: this step checks under Tree Borrows and ignores leaks.
parallel_flags="$MIRIFLAGS -Zmiri-tree-borrows -Zmiri-permissive-provenance -Zmiri-ignore-leaks"
for target in "" armv7-unknown-linux-gnueabihf; do
    timed env MIRIFLAGS="$parallel_flags" cargo +nightly miri test -q -p gcmsiv ${target:+--target "$target"} \
        --no-default-features --features std,parallel,force-portable --lib -- pieces::
    timed env MIRIFLAGS="$parallel_flags" cargo +nightly miri test -q -p gcmsiv ${target:+--target "$target"} \
        --no-default-features --features std,parallel,force-portable --test parallel -- \
        --exact messages_around_a_small_threshold
done
