#!/usr/bin/env bash
# The main job, for a newcomer: what AES-GCM-SIV's nonce-misuse resistance
# means (the library example), then the gcmsiv tool encrypting and decrypting
# a sample file with a fresh key.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== The library: nonce-misuse resistance"
cargo run --release --quiet -p gcmsiv --example nonce_misuse
echo
echo "== The tool: a round trip on a sample file with a fresh key"
crates/gcmsiv-cli/demo.sh
