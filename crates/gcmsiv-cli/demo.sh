#!/bin/sh
# The gcmsiv CLI's main job, end to end: make a fresh key, encrypt the sample,
# decrypt it, check the round trip, and show that tampering is caught.
# Run from anywhere: crates/gcmsiv-cli/demo.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
gcmsiv() { cargo run --release --quiet --manifest-path "$here/Cargo.toml" -- "$@"; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sample="$here/examples/sample.txt"

gcmsiv info
gcmsiv keygen -o "$work/demo.key"
gcmsiv encrypt -k "$work/demo.key" -o "$work/sample.txt.gcmsiv" "$sample"
gcmsiv decrypt -k "$work/demo.key" -o "$work/sample.txt" "$work/sample.txt.gcmsiv"
cmp "$sample" "$work/sample.txt"
echo "round trip OK: $(wc -c <"$sample") bytes -> $(wc -c <"$work/sample.txt.gcmsiv") bytes encrypted -> identical copy"

# Flip one bit of the ciphertext: decryption must refuse, with exit status 1.
f="$work/sample.txt.gcmsiv"
byte=$(od -An -tu1 -j100 -N1 "$f" | tr -d ' ')
printf '%b' "\\0$(printf '%03o' $((byte ^ 1)))" | dd of="$f" bs=1 seek=100 conv=notrunc status=none
echo "decrypting a copy with one bit flipped:"
if gcmsiv decrypt -k "$work/demo.key" "$f" >/dev/null; then
    echo "the tampered copy was accepted" >&2
    exit 1
else
    echo "rejected with exit status $?, as it should be"
fi
