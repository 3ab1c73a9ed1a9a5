#!/usr/bin/env bash
# Every package, proven from outside the repository: builds each artifact into
# one folder (target/dist), then, in fresh projects in a temporary folder,
# installs each the way its ecosystem does and runs a round trip, a forgery
# check, and one RFC 8452 vector (read from vectors/rfc8452.json) through it:
#
#   cargo    the crates as `cargo package` makes them (gcmsiv, gcmsiv-stream,
#            gcmsiv-keyset and gcmsiv-cli, each verified by building),
#            a project that depends on the packaged core; `cargo install --path
#            crates/gcmsiv-cli` and the installed gcmsiv tool
#   C        `make -C crates/gcmsiv-c install PREFIX=...`, a program built with
#            `cc $(pkg-config --cflags --libs gcmsiv)`, and statically
#   Go       the module (its committed files, copied out) in a new module, built
#            with cgo and no Rust toolchain on the PATH, and with CGO_ENABLED=0
#   Python   the wheel from `maturin build --release --zig --compatibility
#            manylinux2014` (glibc 2.17, checked by `auditwheel show` and its
#            symbols) in a fresh venv with no Rust toolchain; the sdist's contents
#   Node.js  the `npm pack` tarball in a new project: require() and import; and
#            the clear error where no prebuilt fits and no cargo exists
#   Java     `mvn install` of bindings/java, and a new Maven project whose JUnit
#            test runs Cipher.getInstance("AES/GCM-SIV/NoPadding")
#
# Also: scripts/version.py (one version everywhere) and the artifacts' names.
#
# And every package for linux-arm64 (scripts/test-packages-arm64.sh): the
# AArch64 libraries are cross-compiled before the packing, so that the npm
# tarball and the JAR carry them beside the x86-64 ones, with the aarch64
# wheel; at the end each package is installed and run in a Debian arm64 root
# under emulation. GCMSIV_ARM64_PACKAGES=0 leaves that out (and says so).
# It reuses the release builds scripts/test.sh's earlier steps made (the C
# library, the Node.js and Java addons, the CLI, the Python crate's build
# folder); run alone, it builds them first.
#
# GCMSIV_PACKAGES_SDIST=1 also builds a wheel from the Python sdist in a clean
# folder (a full compile of the core: about 3 minutes on one core), which
# scripts/test.sh leaves out for CI's time.
set -euo pipefail
# (In pipelines below, grep reads all its input, never -q: under pipefail a
# writer cut off by an early exit would fail the step.)
cd "$(dirname "$0")/.."
root=$PWD
dist="$root/target/dist"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export CARGO_BUILD_JOBS="${CARGO_BUILD_JOBS:-1}"
arm64="${GCMSIV_ARM64_PACKAGES:-1}"
arm64_release="$root/target/arm64-packages/aarch64-unknown-linux-gnu/release"

step() { printf '\n== packages: %s\n' "$*"; }
t0=$SECONDS
took() { printf '   (%ss)\n' "$((SECONDS - t0))"; t0=$SECONDS; }

step "one version everywhere"
python3 scripts/version.py
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
rm -rf "$dist" && mkdir -p "$dist"

# A PATH with no Rust toolchain on it, for the installs that must not need one:
# a directory of stand-ins for cargo, rustc, rustdoc and rustup, first on the
# PATH, each failing loudly. Dropping the directories that hold cargo instead
# would drop /usr/bin wherever the distribution's cargo lives there (Debian's
# rustc-web and cargo-web, which the cross-architecture builds use), and with
# it cmp, cc and python3.
mkdir -p "$work/no-rust-bin"
for tool in cargo rustc rustdoc rustup; do
    printf '#!/bin/sh\necho "%s: hidden by scripts/test-packages.sh (this install must not need Rust)" >&2\nexit 127\n' \
        "$tool" > "$work/no-rust-bin/$tool"
    chmod +x "$work/no-rust-bin/$tool"
done
norust="$work/no-rust-bin:$PATH"
PATH="$norust" cargo --version > /dev/null 2>&1 && { echo "cannot hide cargo from the PATH" >&2; exit 1; }
# (The same for the variables a build would take a toolchain from.)
unset CARGO RUSTC RUSTDOC RUSTC_WRAPPER

# The vector every package runs: the first of RFC 8452's AES-256 ones with
# both associated data and plaintext.
eval "$(python3 - "${GCMSIV_VECTORS:-vectors}/rfc8452.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
v = next(v for v in doc["vectors"] if v["key_bits"] == 256 and v["aad"] and v["plaintext"])
for name, field in [("ID", "id"), ("KEY", "key"), ("NONCE", "nonce"), ("AAD", "aad"), ("PT", "plaintext"), ("CT", "ciphertext")]:
    print(f"export GCMSIV_VEC_{name}={v[field]}")
PY
)"
echo "vector: RFC 8452 $GCMSIV_VEC_ID (AES-256-GCM-SIV, ${#GCMSIV_VEC_PT} hex digits of plaintext)"

# maturin, with the zig that links the wheels for an old glibc (pinned: it
# decides the wheels' bytes), and auditwheel; in a venv kept under target/, since
# the wheels' builds depend on the path of the zig they link with, and a new one
# on every run would rebuild both wheels from scratch.
tools="$root/target/packages-tools"
[ -x "$tools/bin/pip" ] || python3 -m venv "$tools"
"$tools/bin/pip" install -q --disable-pip-version-check maturin auditwheel ziglang==0.17.1

if [ "$arm64" = 1 ]; then
    step "linux-arm64: the AArch64 libraries and wheel, cross-compiled (scripts/test-packages-arm64.sh build)"
    GCMSIV_PY_TOOLS="$tools" scripts/test-packages-arm64.sh build "$dist"
    took
fi

# ---------------------------------------------------------------------------
step "cargo: cargo package of gcmsiv, gcmsiv-stream, gcmsiv-keyset and gcmsiv-cli (each verified by a build)"
cargo package -q --locked -p gcmsiv -p gcmsiv-stream -p gcmsiv-keyset -p gcmsiv-cli
for crate in gcmsiv gcmsiv-stream gcmsiv-keyset gcmsiv-cli; do
    cp "target/package/$crate-$version.crate" "$dist/"
    size=$(stat -c %s "$dist/$crate-$version.crate")
    [ "$size" -lt 400000 ] || { echo "$crate-$version.crate is $size bytes: what got in?" >&2; exit 1; }
    tar tzf "$dist/$crate-$version.crate" | grep -x "$crate-$version/LICENSE-APACHE" > /dev/null ||
        { echo "$crate-$version.crate has no licence file" >&2; exit 1; }
done
mkdir -p "$work/crates" "$work/rust-app/src"
tar xzf "$dist/gcmsiv-$version.crate" -C "$work/crates"
cat > "$work/rust-app/Cargo.toml" <<EOF
[package]
name = "app"
version = "0.0.0"
edition = "2024"

[dependencies]
gcmsiv = { path = "$work/crates/gcmsiv-$version" }
hex = "0.4"
EOF
cat > "$work/rust-app/src/main.rs" <<'EOF'
use gcmsiv::Aes256GcmSiv;

fn env(name: &str) -> Vec<u8> {
    hex::decode(std::env::var(name).expect("the vector's fields")).expect("hex")
}

fn main() {
    let (key, nonce, aad, pt, ct) =
        (env("GCMSIV_VEC_KEY"), env("GCMSIV_VEC_NONCE"), env("GCMSIV_VEC_AAD"), env("GCMSIV_VEC_PT"), env("GCMSIV_VEC_CT"));
    let cipher = Aes256GcmSiv::new(key.as_slice().try_into().unwrap());
    let nonce: [u8; 12] = nonce.try_into().unwrap();
    assert_eq!(cipher.encrypt(&nonce, &aad, &pt).unwrap(), ct, "RFC 8452 vector");
    assert_eq!(cipher.decrypt(&nonce, &aad, &ct).unwrap(), pt);
    let sealed = cipher.encrypt(&nonce, b"hdr", b"round trip").unwrap();
    assert_eq!(cipher.decrypt(&nonce, b"hdr", &sealed).unwrap(), b"round trip");
    let mut forged = sealed.clone();
    forged[0] ^= 1;
    assert_eq!(cipher.decrypt(&nonce, b"hdr", &forged), Err(gcmsiv::Error::Authentication));
    println!("ok: cargo package gcmsiv, {}", cipher.backend());
}
EOF
# Its own target folder under the repository's: kept between local runs.
(cd "$work/rust-app" && CARGO_TARGET_DIR="$root/target/packages-rust" cargo run -q)
took

step "cargo: cargo install --path crates/gcmsiv-cli"
# The repository's target folder: the release build test.sh made is reused.
CARGO_TARGET_DIR="$root/target" cargo install -q --locked --path crates/gcmsiv-cli --root "$work/cargo-root"
(
    cd "$work" && export PATH="$work/cargo-root/bin:$norust"
    gcmsiv keygen -o file.key
    printf 'installed by cargo install\n' > plain.txt
    gcmsiv encrypt -k file.key -o plain.gcmsiv plain.txt
    gcmsiv decrypt -k file.key -o back.txt plain.gcmsiv
    cmp plain.txt back.txt
    printf 'x' | dd of=plain.gcmsiv bs=1 seek=60 conv=notrunc status=none
    if gcmsiv decrypt -k file.key -o forged.txt plain.gcmsiv 2> /dev/null; then echo "a forgery decrypted" >&2; exit 1; fi
    [ ! -e forged.txt ]
    echo "ok: cargo install, $(gcmsiv --version)"
)
took

# ---------------------------------------------------------------------------
step "C: make install PREFIX=..., pkg-config"
make -s -C crates/gcmsiv-c install PREFIX="$work/c-prefix" NO_BUILD=1 > /dev/null
cat > "$work/app.c" <<'EOF'
#include <gcmsiv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t unhex(const char *name, uint8_t *out, size_t cap) {
    const char *s = getenv(name);
    size_t n = s ? strlen(s) / 2 : 0;
    if (!s || n > cap) exit(2);
    for (size_t i = 0; i < n; i++) sscanf(s + 2 * i, "%2hhx", &out[i]);
    return n;
}

int main(void) {
    uint8_t key[32], nonce[12], aad[256], pt[256], ct[300], out[300], back[300];
    size_t key_len = unhex("GCMSIV_VEC_KEY", key, sizeof key), nonce_len = unhex("GCMSIV_VEC_NONCE", nonce, sizeof nonce);
    size_t aad_len = unhex("GCMSIV_VEC_AAD", aad, sizeof aad), pt_len = unhex("GCMSIV_VEC_PT", pt, sizeof pt);
    size_t ct_len = unhex("GCMSIV_VEC_CT", ct, sizeof ct), out_len, back_len;
    gcmsiv_key *k;
    if (gcmsiv_key_new(&k, GCMSIV_AES_256_GCM_SIV, key, key_len) != GCMSIV_OK) return 1;
    if (gcmsiv_encrypt(out, sizeof out, &out_len, pt, pt_len, aad, aad_len, nonce, nonce_len, k) != GCMSIV_OK) return 1;
    if (out_len != ct_len || memcmp(out, ct, ct_len) != 0) { fprintf(stderr, "RFC 8452 vector\n"); return 1; }
    if (gcmsiv_decrypt(back, sizeof back, &back_len, ct, ct_len, aad, aad_len, nonce, nonce_len, k) != GCMSIV_OK) return 1;
    if (back_len != pt_len || memcmp(back, pt, pt_len) != 0) return 1;
    ct[0] ^= 1;
    if (gcmsiv_decrypt(back, sizeof back, &back_len, ct, ct_len, aad, aad_len, nonce, nonce_len, k) != GCMSIV_ERR_AUTHENTICATION) {
        fprintf(stderr, "a forgery opened\n");
        return 1;
    }
    printf("ok: C %s, %s\n", gcmsiv_version(), gcmsiv_key_backend(k));
    gcmsiv_key_free(k);
    return 0;
}
EOF
(
    cd "$work" && export PKG_CONFIG_PATH="$work/c-prefix/lib/pkgconfig"
    [ "$(pkg-config --modversion gcmsiv)" = "$version" ]
    # shellcheck disable=SC2046
    cc -std=c11 -Wall -Werror app.c $(pkg-config --cflags --libs gcmsiv) -o app-shared
    LD_LIBRARY_PATH="$work/c-prefix/lib" ./app-shared
    # shellcheck disable=SC2046
    cc -std=c11 -Wall -Werror app.c $(pkg-config --cflags gcmsiv) "$work/c-prefix/lib/libgcmsiv_c.a" \
        $(pkg-config --static --libs-only-l gcmsiv | sed 's/-lgcmsiv_c//') -o app-static
    ./app-static > /dev/null
    ldd app-static | grep gcmsiv > /dev/null && { echo "the static build links the shared library" >&2; exit 1; }
    true
)
took

# ---------------------------------------------------------------------------
step "Go: the module outside the repository, cgo with no Rust toolchain, and pure Go"
scripts/go-prebuilt.sh --check
mkdir -p "$work/gomod" "$work/go-app"
git ls-files -z bindings/go | (cd "$root/bindings/go" && sed -z 's|^bindings/go/||' | xargs -0 cp --parents -t "$work/gomod")
cat > "$work/go-app/main.go" <<'EOF'
package main

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"

	gcmsiv "github.com/gcmsiv/gcmsiv/bindings/go"
)

func env(name string) []byte {
	b, err := hex.DecodeString(os.Getenv(name))
	if err != nil {
		panic(err)
	}
	return b
}

func main() {
	key, nonce, aad, pt, ct := env("GCMSIV_VEC_KEY"), env("GCMSIV_VEC_NONCE"), env("GCMSIV_VEC_AAD"), env("GCMSIV_VEC_PT"), env("GCMSIV_VEC_CT")
	a, err := gcmsiv.NewAESGCMSIV(key)
	if err != nil {
		panic(err)
	}
	defer a.Close()
	if got := a.Seal(nil, nonce, pt, aad); !bytes.Equal(got, ct) {
		panic("RFC 8452 vector")
	}
	if got, err := a.Open(nil, nonce, ct, aad); err != nil || !bytes.Equal(got, pt) {
		panic("RFC 8452 vector, opening")
	}
	sealed := a.Seal(nil, nonce, []byte("round trip"), nil)
	sealed[0] ^= 1
	if _, err := a.Open(nil, nonce, sealed, nil); err != gcmsiv.ErrOpen {
		panic("a forgery opened")
	}
	fmt.Printf("ok: Go module %s, %s\n", gcmsiv.Version, a.BackendDescription())
}
EOF
(
    cd "$work/go-app" && export PATH="$norust" GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOPATH="$work/gopath"
    go mod init example.com/app > /dev/null 2>&1
    go mod edit -require="github.com/gcmsiv/gcmsiv/bindings/go@v$version" \
        -replace="github.com/gcmsiv/gcmsiv/bindings/go=$work/gomod"
    CGO_ENABLED=1 go build -o app-cgo . && ./app-cgo | tee out-cgo
    grep -qv purego out-cgo || { echo "the cgo build did not link the C library" >&2; exit 1; }
    CGO_ENABLED=0 go build -o app-purego . && ./app-purego | tee out-purego
    grep -q purego out-purego
)
took

# ---------------------------------------------------------------------------
step "Python: maturin build --release --zig (glibc 2.17), auditwheel show, the wheel in a fresh venv without Rust"
# zig links against glibc 2.17's symbols (manylinux2014, as pyca/cryptography's
# wheels), where the system's linker would take this machine's (2.34 and later).
(cd bindings/python && PATH="$tools/bin:$PATH" "$tools/bin/maturin" build --release --zig \
    --compatibility manylinux2014 --out "$dist" > "$work/maturin.log" 2>&1 &&
    "$tools/bin/maturin" sdist --out "$dist" >> "$work/maturin.log" 2>&1) || { cat "$work/maturin.log" >&2; exit 1; }
wheel=$(ls "$dist"/gcmsiv-"$version"-cp311-abi3-manylinux*_x86_64.whl)
"$tools/bin/auditwheel" show "$wheel" > "$work/auditwheel.txt"
tr -s ' \n' ' ' < "$work/auditwheel.txt" | grep -o 'consistent with the following platform tag: "[^"]*"' | tee "$work/verdict.txt"
grep '"manylinux_2_17_x86_64"' "$work/verdict.txt" > /dev/null || { echo "the wheel is not manylinux_2_17_x86_64" >&2; exit 1; }
# Its newest versioned glibc symbol, read from the library itself.
mkdir "$work/wheel" && python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$wheel" "$work/wheel"
floor=$(find "$work/wheel" -name '*.so' -exec readelf -W --dyn-syms {} + | grep -o '@GLIBC_[0-9.]*' | sed 's/@GLIBC_//' | sort -Vu | tail -1)
echo "$(basename "$wheel"): newest glibc symbol GLIBC_$floor"
[ "$(printf '%s\n2.17\n' "$floor" | sort -V | tail -1)" = 2.17 ] ||
    { echo "the wheel needs glibc $floor" >&2; exit 1; }
sdist="$dist/gcmsiv-$version.tar.gz"
for f in pyproject.toml Cargo.toml bindings/python/Cargo.toml bindings/python/Cargo.lock crates/gcmsiv/Cargo.toml \
    crates/gcmsiv/src/lib.rs crates/gcmsiv-glue/src/lib.rs LICENSE-MIT LICENSE-APACHE; do
    tar tzf "$sdist" | grep -x "gcmsiv-$version/$f" > /dev/null || { echo "the sdist lacks $f" >&2; exit 1; }
done
python3 -m venv "$work/py"
PATH="$norust" "$work/py/bin/pip" install -q --disable-pip-version-check --no-index "$wheel"
cat > "$work/app.py" <<'EOF'
import os

import gcmsiv

v = {k: bytes.fromhex(os.environ["GCMSIV_VEC_" + k]) for k in ("KEY", "NONCE", "AAD", "PT", "CT")}
aead = gcmsiv.AESGCMSIV(v["KEY"])
assert aead.encrypt(v["NONCE"], v["PT"], v["AAD"]) == v["CT"], "RFC 8452 vector"
assert aead.decrypt(v["NONCE"], v["CT"], v["AAD"]) == v["PT"]
sealed = bytearray(aead.encrypt(v["NONCE"], b"round trip", None))
sealed[0] ^= 1
try:
    aead.decrypt(v["NONCE"], bytes(sealed), None)
    raise SystemExit("a forgery opened")
except gcmsiv.InvalidTag:
    pass
assert "site-packages" in gcmsiv.__file__, gcmsiv.__file__
print(f"ok: Python wheel {gcmsiv.__version__ if hasattr(gcmsiv, '__version__') else ''}".rstrip(), "from", os.path.basename(os.path.dirname(os.path.dirname(gcmsiv.__file__))))
EOF
(cd "$work" && PATH="$norust" "$work/py/bin/python" app.py)
if [ "${GCMSIV_PACKAGES_SDIST:-0}" = 1 ]; then
    step "Python: a wheel built from the sdist in a clean folder"
    mkdir "$work/sdist" && cp "$sdist" "$work/sdist/"
    (cd "$work/sdist" && "$tools/bin/pip" wheel -q --no-deps -w out "gcmsiv-$version.tar.gz")
    python3 -m venv "$work/py-sdist"
    "$work/py-sdist/bin/pip" install -q --no-index "$work"/sdist/out/gcmsiv-*.whl
    (cd "$work" && "$work/py-sdist/bin/python" app.py)
fi
took

# ---------------------------------------------------------------------------
step "Node.js: npm pack, npm install of the tarball, require() and import"
if [ "$arm64" = 1 ]; then
    GCMSIV_NODE_ARM64_ADDON="$arm64_release/libgcmsiv_node.so" scripts/node-package.sh "$dist" > /dev/null
else
    scripts/node-package.sh "$dist" > /dev/null
fi
tarball="$dist/gcmsiv-$version.tgz"
tar tzf "$tarball" | grep -x package/gcmsiv.linux-x64-gnu.node > /dev/null
[ "$arm64" != 1 ] || tar tzf "$tarball" | grep -x package/gcmsiv.linux-arm64-gnu.node > /dev/null
mkdir -p "$work/node-app"
cat > "$work/node-app/check.js" <<'EOF'
'use strict';
const assert = require('node:assert');
const { AesGcmSiv, GcmsivError } = require('gcmsiv');
const v = Object.fromEntries(['KEY', 'NONCE', 'AAD', 'PT', 'CT'].map((k) => [k, Buffer.from(process.env[`GCMSIV_VEC_${k}`], 'hex')]));
const aead = new AesGcmSiv(v.KEY);
assert.deepStrictEqual(aead.encrypt(v.NONCE, v.PT, v.AAD), v.CT, 'RFC 8452 vector');
assert.deepStrictEqual(aead.decrypt(v.NONCE, v.CT, v.AAD), v.PT);
const sealed = aead.encrypt(v.NONCE, Buffer.from('round trip'));
sealed[0] ^= 1;
assert.throws(() => aead.decrypt(v.NONCE, sealed), (e) => e instanceof GcmsivError && e.code === 'ERR_GCMSIV_AUTHENTICATION');
console.log(`ok: npm package (require), ${aead.backendDescription}`);
EOF
cat > "$work/node-app/check.mjs" <<'EOF'
import assert from 'node:assert';
import { AesGcmSiv } from 'gcmsiv';
import gcmsiv from 'gcmsiv';
const hex = (k) => Buffer.from(process.env[`GCMSIV_VEC_${k}`], 'hex');
const aead = new AesGcmSiv(hex('KEY'));
assert.deepStrictEqual(aead.encrypt(hex('NONCE'), hex('PT'), hex('AAD')), hex('CT'), 'RFC 8452 vector');
assert.strictEqual(gcmsiv.AesGcmSiv, AesGcmSiv);
console.log(`ok: npm package (import), ${aead.backend}`);
EOF
(
    cd "$work/node-app" && export PATH="$norust" npm_config_cache="$work/npm-cache"
    npm init -y > /dev/null
    npm install --silent --no-audit --no-fund "$tarball"
    [ ! -e node_modules/gcmsiv/gcmsiv.node ] || { echo "npm install built from source where the prebuilt fits" >&2; exit 1; }
    node check.js
    node check.mjs
    # Where no prebuilt fits and there is no cargo: install.js fails, and says what to do.
    cp -r node_modules/gcmsiv "$work/no-prebuilt"
    rm "$work/no-prebuilt/gcmsiv.linux-x64-gnu.node"
    if (cd "$work/no-prebuilt" && node install.js > "$work/node-error.txt" 2>&1); then
        echo "install.js succeeded with neither a prebuilt nor cargo" >&2
        exit 1
    fi
    grep -q 'no prebuilt addon for linux-x64-gnu' "$work/node-error.txt" && grep -q 'rustup.rs' "$work/node-error.txt"
    if node -e "require('$work/no-prebuilt')" 2> "$work/node-error.txt"; then exit 1; fi
    grep -q 'gcmsiv: no native addon for linux-x64-gnu' "$work/node-error.txt"
    echo "ok: npm package without a prebuilt or cargo: a clear error at install and at require"
)
took

# ---------------------------------------------------------------------------
step "Java: mvn install, and a Maven project whose test runs the JCA provider"
aarch64_jni=()
[ "$arm64" != 1 ] || aarch64_jni=("-Dgcmsiv.native.dir.aarch64=$arm64_release")
# Maven copies resources over what an earlier build left: no library of another run stays in the JAR.
rm -rf bindings/java/target/classes/dev/gcmsiv/native
mvn -B -q -Dstyle.color=never -f bindings/java/pom.xml install -Dgcmsiv.cargo.skip=true "${aarch64_jni[@]}" \
    > "$work/mvn.log" 2>&1 || { cat "$work/mvn.log" >&2; exit 1; }
cp "bindings/java/target/gcmsiv-$version.jar" "bindings/java/target/gcmsiv-$version-sources.jar" \
    "bindings/java/target/gcmsiv-$version-javadoc.jar" "$dist/"
jar tf "$dist/gcmsiv-$version.jar" | grep -x 'dev/gcmsiv/native/linux-x86_64/libgcmsiv_java.so' > /dev/null
[ "$arm64" != 1 ] || jar tf "$dist/gcmsiv-$version.jar" | grep -x 'dev/gcmsiv/native/linux-aarch64/libgcmsiv_java.so' > /dev/null
mkdir -p "$work/java-app/src/test/java/app"
cat > "$work/java-app/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>app</groupId>
  <artifactId>app</artifactId>
  <version>0.0.0</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>dev.gcmsiv</groupId>
      <artifactId>gcmsiv</artifactId>
      <version>$version</version>
    </dependency>
    <dependency>
      <groupId>org.junit.jupiter</groupId>
      <artifactId>junit-jupiter</artifactId>
      <version>5.14.4</version>
      <scope>test</scope>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-compiler-plugin</artifactId>
        <version>3.13.0</version>
      </plugin>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-surefire-plugin</artifactId>
        <version>3.5.4</version>
      </plugin>
    </plugins>
  </build>
</project>
EOF
cat > "$work/java-app/src/test/java/app/ProviderTest.java" <<'EOF'
package app;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.security.Security;
import java.util.HexFormat;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

class ProviderTest {
    static byte[] env(String name) {
        return HexFormat.of().parseHex(System.getenv("GCMSIV_VEC_" + name));
    }

    @Test
    void rfc8452VectorThroughTheJca() throws Exception {
        Security.addProvider(new dev.gcmsiv.GcmsivProvider());
        SecretKeySpec key = new SecretKeySpec(env("KEY"), "AES");
        GCMParameterSpec spec = new GCMParameterSpec(128, env("NONCE"));
        Cipher c = Cipher.getInstance("AES/GCM-SIV/NoPadding");
        assertEquals("Gcmsiv", c.getProvider().getName());
        c.init(Cipher.ENCRYPT_MODE, key, spec);
        c.updateAAD(env("AAD"));
        byte[] sealed = c.doFinal(env("PT"));
        assertArrayEquals(env("CT"), sealed, "RFC 8452 vector");
        c.init(Cipher.DECRYPT_MODE, key, spec);
        c.updateAAD(env("AAD"));
        assertArrayEquals(env("PT"), c.doFinal(sealed));
        sealed[0] ^= 1;
        c.init(Cipher.DECRYPT_MODE, key, spec);
        c.updateAAD(env("AAD"));
        assertThrows(AEADBadTagException.class, () -> c.doFinal(sealed));
        System.out.println("ok: Maven artifact, JCA provider " + c.getProvider().getName());
    }
}
EOF
(cd "$work/java-app" && mvn -B -q -Dstyle.color=never test > "$work/mvn.log" 2>&1) || { cat "$work/mvn.log" >&2; exit 1; }
grep -E '^ok:' "$work/mvn.log" || true
grep 'Tests run: 1, Failures: 0, Errors: 0, Skipped: 0' "$work"/java-app/target/surefire-reports/app.ProviderTest.txt
took

if [ "$arm64" = 1 ]; then
    step "linux-arm64: every package installed and run in an AArch64 root (scripts/test-packages-arm64.sh test)"
    scripts/test-packages-arm64.sh test "$dist" "$work"
    took
else
    echo "SKIPPED: the linux-arm64 packages (GCMSIV_ARM64_PACKAGES=0)" >&2
fi

step "artifacts"
(cd "$dist" && ls -l | sed 1d | awk '{printf "   %9d  %s\n", $5, $9}')
echo "All packages installed and ran outside the repository."
