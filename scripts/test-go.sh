#!/usr/bin/env bash
# The Go binding: builds the C ABI's static library it links, then vet, the
# tests (every vector file, crypto/cipher cross-checks, batches, misuse) under
# the race detector.
set -euo pipefail
cd "$(dirname "$0")/.."

export GCMSIV_VECTORS="${GCMSIV_VECTORS:-$PWD/vectors}"
cargo build -q --release -p gcmsiv-c
cd bindings/go
unformatted=$(gofmt -l . 2>&1)
test -z "$unformatted" || { echo "$unformatted"; echo "gofmt: the files above are not formatted (or do not parse)" >&2; exit 1; }
go vet ./...
go test -race -count=1 ./...
