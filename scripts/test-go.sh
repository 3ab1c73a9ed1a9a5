#!/usr/bin/env bash
# The Go binding: checks that the module's prebuilt C library is current
# (scripts/go-prebuilt.sh --check), then vet, and the tests (every vector
# file, crypto/cipher cross-checks, batches, misuse) twice: on the C library
# under the race detector, and as the pure-Go build (CGO_ENABLED=0) that other
# platforms get.
set -euo pipefail
cd "$(dirname "$0")/.."

export GCMSIV_VECTORS="${GCMSIV_VECTORS:-$PWD/vectors}"
scripts/go-prebuilt.sh --check
cd bindings/go
unformatted=$(gofmt -l . 2>&1)
test -z "$unformatted" || { echo "$unformatted"; echo "gofmt: the files above are not formatted (or do not parse)" >&2; exit 1; }
go vet ./...
CGO_ENABLED=0 go vet ./...
go test -race -count=1 ./...
CGO_ENABLED=0 go test -count=1 ./...
# The pure-Go files compile for the platforms that never get the C library.
GOOS=darwin GOARCH=arm64 go build ./...
GOOS=linux GOARCH=arm64 go build ./...
