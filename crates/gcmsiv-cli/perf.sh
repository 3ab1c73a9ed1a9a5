#!/bin/sh
# Times gcmsiv against age (X25519 recipient) and cat on a 1 GiB file, as reported in
# docs/PERFORMANCE.md ("CLI (gcmsiv encrypt/decrypt)"). Needs hyperfine and age
# (Debian: apt-get install hyperfine age) and 4 GiB free in DIR.
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
cat encrypt-file.md decrypt-file.md null.md
