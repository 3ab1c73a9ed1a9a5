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
# The pure-Go files compile for the platforms that never get the C library
# (linux/arm64 gets it with cgo: scripts/test-packages-arm64.sh runs that build).
GOOS=darwin GOARCH=arm64 go build ./...
GOOS=linux GOARCH=riscv64 go build ./...
GOOS=linux GOARCH=arm64 CGO_ENABLED=0 go build ./...
# The interop entry point of the cross-language test (target/go-interop), and
# a smoke test of it.
go build -o ../../target/go-interop ./internal/interop
cd ../..
out=target/go-interop-smoke
mkdir -p "$out"
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
head -c 300000 /dev/urandom > "$out/plain"
target/go-interop encrypt $key 1024 aes256 "$out/plain" "$out/file"
target/go-interop decrypt $key "$out/file" "$out/back"
cmp "$out/plain" "$out/back"
target/go-interop range $key "$out/file" 299000 5000 "$out/range"
cmp <(tail -c +299001 "$out/plain") "$out/range"
head -c 5000 "$out/file" > "$out/cut"
if target/go-interop decrypt $key "$out/cut" "$out/back" 2> "$out/err"; then
    echo "go interop: a truncated file decrypted" >&2; exit 1
fi
grep -q '^format: ' "$out/err" && test "$(wc -l < "$out/err")" = 1
