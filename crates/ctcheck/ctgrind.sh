#!/usr/bin/env bash
# ctgrind in one command: build ctcheck with debug line tables, run
# `ctcheck ctgrind` under Valgrind's Memcheck with this folder's suppressions,
# and check that the only suppressed reports are the tag-check branch in
# gcmsiv::verify::release (or release_group, a batch group's), once per
# decryption (GCM-SIV, GCM, GMAC verification, each opened batch item). Exit status 0 means constant-time evidence passed.
#
#   crates/ctcheck/ctgrind.sh                   # the check; must exit 0
#   crates/ctcheck/ctgrind.sh --self-test-leak  # deliberate leak; must exit 1
#
# Builds into its own target directory (target/ctgrind unless CTGRIND_TARGET_DIR
# is set), so the normal release build is left as it is.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"
target_dir=${CTGRIND_TARGET_DIR:-target/ctgrind}

cargo build -p ctcheck --release --target-dir "$target_dir" \
    --config 'profile.release.debug="line-tables-only"'

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
valgrind --tool=memcheck --error-exitcode=1 -s \
    --suppressions="$here/ctgrind.supp" \
    "$target_dir/release/ctcheck" ctgrind "$@" >"$log" 2>&1 || status=$?
cat "$log"

if [ "${1:-}" = "--self-test-leak" ]; then
    echo "ctgrind.sh: self-test exit status $status (1 expected: the leak was detected)"
    exit "$status"
fi
if [ "$status" -ne 0 ]; then
    echo "ctgrind.sh: FAIL: Valgrind/ctgrind exit status $status"
    exit "$status"
fi

expected=$(sed -n 's/^ctgrind: decryptions: \([0-9][0-9]*\);.*/\1/p' "$log")
suppressed=$(awk '$2 == "used_suppression:" && $4 ~ /^gcmsiv-tag-check-result/ { n += $3 } END { print n + 0 }' "$log")
if [ -z "$expected" ] || [ "$suppressed" -ne "$expected" ]; then
    echo "ctgrind.sh: FAIL: $suppressed suppressed tag-check reports for ${expected:-?} decryptions;" \
        "verify::release branches on secrets more than once per call (or the harness did not run)"
    exit 1
fi
echo "ctgrind.sh: PASS: 0 unsuppressed errors; $suppressed suppressed = one tag-check branch per decryption"
