#!/bin/sh
# Times gcmsiv against age (X25519 recipient) and cat on a 1 GiB file, as reported in
# docs/PERFORMANCE.md ("CLI (gcmsiv encrypt/decrypt)", and "Recipients" for ten
# recipients of each kind). Needs hyperfine and age (Debian: apt-get install hyperfine
# age; age 1.3 or later for its -pq keys) and 8 GiB free in DIR.
#   crates/gcmsiv-cli/perf.sh [DIR]     DIR: where the files go (default: a new folder in .)
# Every file it makes is deleted at the end. RUNS (default 5) sets runs per command.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
runs=${RUNS:-5}
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
target=$(cargo metadata --format-version 1 --no-deps --manifest-path "$here/Cargo.toml" |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
gcmsiv="$target/release/gcmsiv"

work=$(mktemp -d "${1:-.}/gcmsiv-perf.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
head -c 1G /dev/urandom >big.bin
age-keygen -o age.key 2>/dev/null
recipient=$(sed -n 's/^# public key: //p' age.key)
"$gcmsiv" keygen -o g.key
"$gcmsiv" encrypt -q -k g.key -o big.gcmsiv big.bin
age -r "$recipient" -o big.age big.bin
sync

# To a file on the same disk; every run starts with no output and no dirty pages.
# gcmsiv fsyncs its output before the rename; age and cat do not, so each also runs
# with a sync after it.
fresh='sh -c "rm -f out; sync"'
hyperfine -N --warmup 1 --runs "$runs" --prepare "$fresh" --export-markdown encrypt-file.md \
    -n 'gcmsiv encrypt -o out (fsync)' "$gcmsiv encrypt -q -k g.key -o out big.bin" \
    -n 'age -r -o out' "age -r $recipient -o out big.bin" \
    -n 'age -r -o out && sync' "sh -c 'age -r $recipient -o out big.bin && sync'" \
    -n 'gcmsiv encrypt > out (no fsync)' "sh -c '$gcmsiv encrypt -q -k g.key big.bin > out'"
hyperfine -N --warmup 1 --runs "$runs" --prepare "$fresh" --export-markdown decrypt-file.md \
    -n 'gcmsiv decrypt -o out (fsync)' "$gcmsiv decrypt -q -k g.key -o out big.gcmsiv" \
    -n 'age -d -o out' "age -d -i age.key -o out big.age" \
    -n 'age -d -o out && sync' "sh -c 'age -d -i age.key -o out big.age && sync'" \
    -n 'gcmsiv decrypt > out (no fsync)' "sh -c '$gcmsiv decrypt -q -k g.key big.gcmsiv > out'" \
    -n 'cat > out' "sh -c 'cat big.bin > out'" \
    -n 'cat > out && sync' "sh -c 'cat big.bin > out && sync'"
# Processing speed alone: output to /dev/null.
hyperfine -N --warmup 1 --runs "$((runs * 2))" --output=null --export-markdown null.md \
    -n 'gcmsiv encrypt > /dev/null' "$gcmsiv encrypt -q -k g.key big.bin" \
    -n 'age -r > /dev/null' "age -r $recipient big.bin" \
    -n 'gcmsiv decrypt > /dev/null' "$gcmsiv decrypt -q -k g.key big.gcmsiv" \
    -n 'age -d > /dev/null' "age -d -i age.key big.age" \
    -n 'cat > /dev/null' "cat big.bin"

# Recipients (format version 2): ten of each kind, beside age 1.3 (needs age-keygen -pq,
# from age 1.3 or later: go install filippo.io/age/cmd/...@v1.3.2).
for i in 1 2 3 4 5 6 7 8 9 10; do
    "$gcmsiv" identity -o "gx$i.id" >>gx.txt
    "$gcmsiv" identity --post-quantum -o "gq$i.id" >>gq.txt
    age-keygen -o "ax$i.key" 2>/dev/null && sed -n 's/^# public key: //p' "ax$i.key" >>ax.txt
    age-keygen -pq -o "aq$i.key" 2>/dev/null && sed -n 's/^# public key: //p' "aq$i.key" >>aq.txt
done
: >empty
hyperfine -N --warmup 3 --runs "$((runs * 6))" --output=null --export-markdown recipients-fixed.md \
    -n 'gcmsiv encrypt -k (empty)' "$gcmsiv encrypt -q -k g.key empty" \
    -n 'gcmsiv encrypt -R 10 X25519 (empty)' "$gcmsiv encrypt -q -R gx.txt empty" \
    -n 'gcmsiv encrypt -R 10 hybrid (empty)' "$gcmsiv encrypt -q -R gq.txt empty" \
    -n 'age -R 10 X25519 (empty)' "age -R ax.txt empty" \
    -n 'age -R 10 PQ (empty)' "age -R aq.txt empty"
hyperfine -N --warmup 1 --runs "$runs" --output=null --export-markdown recipients-encrypt.md \
    -n 'gcmsiv -k' "$gcmsiv encrypt -q -k g.key big.bin" \
    -n 'gcmsiv -R 10 X25519' "$gcmsiv encrypt -q -R gx.txt big.bin" \
    -n 'gcmsiv -R 10 hybrid' "$gcmsiv encrypt -q -R gq.txt big.bin" \
    -n 'age -R 10 X25519' "age -R ax.txt big.bin" \
    -n 'age -R 10 PQ' "age -R aq.txt big.bin"
"$gcmsiv" encrypt -q -R gx.txt -o big.gx big.bin
"$gcmsiv" encrypt -q -R gq.txt -o big.gq big.bin
age -R ax.txt -o big.ax big.bin
age -R aq.txt -o big.aq big.bin
hyperfine -N --warmup 1 --runs "$runs" --output=null --export-markdown recipients-decrypt.md \
    -n 'gcmsiv -k' "$gcmsiv decrypt -q -k g.key big.gcmsiv" \
    -n 'gcmsiv -i (10th of 10 X25519)' "$gcmsiv decrypt -q -i gx10.id big.gx" \
    -n 'gcmsiv -i (10th of 10 hybrid)' "$gcmsiv decrypt -q -i gq10.id big.gq" \
    -n 'age -d -i (10th of 10 X25519)' "age -d -i ax10.key big.ax" \
    -n 'age -d -i (10th of 10 PQ)' "age -d -i aq10.key big.aq"
cat encrypt-file.md decrypt-file.md null.md recipients-fixed.md recipients-encrypt.md recipients-decrypt.md
