#!/usr/bin/env bash
# Runs Miri (nightly; the component is added when missing) on the tests that can run
# under it in reasonable time: the portable backend's and the modes' unit tests, the
# core's misuse and API tests, and the C ABI's batch aliasing test. Miri interprets:
# every AES block of the bitsliced portable backend costs milliseconds there, so
# tests that loop over many lengths, vector files (which Miri could read only with
# isolation off) or the hardware backends (CPUID, intrinsics, asm, which Miri cannot
# run: under it only the portable backend exists) stay out. SECURITY.md ("Miri") lists
# what runs and how long it takes.
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
timed cargo +nightly miri test -q -p gcmsiv --no-default-features --features std,force-portable --lib -- \
    backend::soft siv:: gcm:: limits::

step "miri: misuse and API tests of the core"
timed cargo +nightly miri test -q -p gcmsiv --no-default-features --features std,force-portable \
    --test misuse --test api

step "miri: the C ABI's batch calls and the items array (aliasing)"
timed cargo +nightly miri test -q -p gcmsiv-c --no-default-features --features gcmsiv/force-portable \
    --test batch_aliasing
