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
# The header also compiles as C++.
printf '#include "gcmsiv.h"\nint main() { return gcmsiv_abytes() == 16 ? 0 : 1; }\n' > "$out/cxx.cpp"
"${CXX:-c++}" -std=c++11 -Wall -Werror -Icrates/gcmsiv-c/include "$out/cxx.cpp" \
    target/release/libgcmsiv_c.a -lpthread -ldl -lm -o "$out/cxx" && "$out/cxx"
