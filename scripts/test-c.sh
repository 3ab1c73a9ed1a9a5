#!/usr/bin/env bash
# The C ABI from C: builds the static and shared libraries, compiles the C test
# against the header with warnings as errors, and runs it on every vector file
# (through both libraries).
set -euo pipefail
cd "$(dirname "$0")/.."

vectors="${GCMSIV_VECTORS:-vectors}"
cargo build -q --release -p gcmsiv-c
out=target/c-test
mkdir -p "$out"
cc=${CC:-cc}
flags=(-std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -Icrates/gcmsiv-c/include)
"$cc" "${flags[@]}" crates/gcmsiv-c/tests/c/vectors.c target/release/libgcmsiv_c.a \
    -lpthread -ldl -lm -o "$out/vectors-static"
# The shared library's SONAME (build.rs) is versioned, as an install names it.
soname=$(readelf -d target/release/libgcmsiv_c.so | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
ln -sf libgcmsiv_c.so "target/release/$soname"
"$cc" "${flags[@]}" crates/gcmsiv-c/tests/c/vectors.c -Ltarget/release -lgcmsiv_c \
    -Wl,-rpath,"$PWD/target/release" -o "$out/vectors-shared"
python3 crates/gcmsiv-c/tests/c/flatten.py "$vectors" > "$out/vectors.txt"
"$out/vectors-static" < "$out/vectors.txt"
"$out/vectors-shared" < "$out/vectors.txt"
# The README's example.
"$cc" "${flags[@]}" crates/gcmsiv-c/tests/c/example.c target/release/libgcmsiv_c.a \
    -lpthread -ldl -lm -o "$out/example"
"$out/example" | grep -q "^attack at dawn (30 bytes sealed, on "
# Files, streams and nonce-managed calls (every format vector, round trips,
# tampering, misuse), through both libraries (the tampering sweep once).
for kind in static shared; do
    if [ "$kind" = static ]; then link=(target/release/libgcmsiv_c.a -lpthread -ldl -lm)
    else link=(-Ltarget/release -lgcmsiv_c -Wl,-rpath,"$PWD/target/release"); fi
    "$cc" "${flags[@]}" crates/gcmsiv-c/tests/c/stream.c "${link[@]}" -o "$out/stream-$kind"
    "$out/stream-$kind" "$vectors/format" $([ "$kind" = shared ] && echo quick)
done
# The interop entry point of the cross-language test, and a smoke test of it.
"$cc" "${flags[@]}" crates/gcmsiv-c/tests/c/interop.c target/release/libgcmsiv_c.a \
    -lpthread -ldl -lm -o "$out/interop"
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
head -c 300000 /dev/urandom > "$out/interop.txt"
"$out/interop" encrypt $key 1024 aes128 "$out/interop.txt" "$out/interop.gcmsiv"
"$out/interop" decrypt $key "$out/interop.gcmsiv" "$out/interop.back"
cmp "$out/interop.txt" "$out/interop.back"
"$out/interop" range $key "$out/interop.gcmsiv" 12345 70000 "$out/interop.range"
cmp <(tail -c +12346 "$out/interop.txt" | head -c 70000) "$out/interop.range"
printf 'x' | dd of="$out/interop.gcmsiv" bs=1 seek=5000 conv=notrunc status=none
if "$out/interop" decrypt $key "$out/interop.gcmsiv" "$out/interop.back" 2> "$out/interop.err"; then
    echo "interop: a forged file decrypted" >&2; exit 1
fi
grep -q '^authentication: ' "$out/interop.err"
# The header also compiles as C++.
printf '#include "gcmsiv.h"\nint main() { return gcmsiv_abytes() == 16 ? 0 : 1; }\n' > "$out/cxx.cpp"
"${CXX:-c++}" -std=c++11 -Wall -Werror -Icrates/gcmsiv-c/include "$out/cxx.cpp" \
    target/release/libgcmsiv_c.a -lpthread -ldl -lm -o "$out/cxx" && "$out/cxx"
