#!/usr/bin/env bash
# The Node.js package: builds the N-API addon, lints it (clippy, warnings
# denied), and runs its tests (every vector file on every backend, node:crypto
# cross-checks, the API's contract) with Node's own test runner.
set -euo pipefail
cd "$(dirname "$0")/.."

export GCMSIV_VECTORS="${GCMSIV_VECTORS:-$PWD/vectors}"
cargo clippy -q -p gcmsiv-node -- -D warnings
cargo build -q --release -p gcmsiv-node
cp target/release/libgcmsiv_node.so bindings/node/gcmsiv.node
cd bindings/node
node --test test/
