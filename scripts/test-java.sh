#!/usr/bin/env bash
# The Java binding: builds the JNI library, lints it (clippy, warnings
# denied), compiles the Java classes and their test with warnings as errors,
# and runs the test on every vector file (the lines flatten.py writes).
set -euo pipefail
cd "$(dirname "$0")/.."

vectors="${GCMSIV_VECTORS:-vectors}"
cargo clippy -q -p gcmsiv-java -- -D warnings
cargo build -q --release -p gcmsiv-java
out=target/java-test
rm -rf "$out" && mkdir -p "$out/classes"
javac -Xlint:all -Werror --release 17 -d "$out/classes" \
    bindings/java/java/dev/gcmsiv/*.java bindings/java/test/dev/gcmsiv/*.java
python3 crates/gcmsiv-c/tests/c/flatten.py "$vectors" > "$out/vectors.txt"
# -Xcheck:jni checks every JNI call; it warns rather than fails, so any warning fails here.
java -Xcheck:jni -Dgcmsiv.library="$PWD/target/release/libgcmsiv_java.so" -cp "$out/classes" \
    dev.gcmsiv.GcmsivTest "$out/vectors.txt" 2>&1 | tee "$out/log.txt"
if grep -q -i "warning\|fatal error" "$out/log.txt"; then
    echo "the JVM's JNI checks warned (above)" >&2
    exit 1
fi

# Encrypted streams and files: every vector of vectors/format through both
# readers, round trips, damage, the channel's contract, random nonces (about 3 s).
java -Xcheck:jni -Dgcmsiv.library="$PWD/target/release/libgcmsiv_java.so" -cp "$out/classes" \
    dev.gcmsiv.StreamTest "$vectors/format" 2>&1 | tee "$out/stream-log.txt"
if grep -q -i "warning\|fatal error" "$out/stream-log.txt"; then
    echo "the JVM's JNI checks warned (above)" >&2
    exit 1
fi

# The JCA provider under the JDK's TLS (JSSE), with a throwaway self-signed key.
rm -f "$out/tls.p12"
keytool -genkeypair -alias localhost -keyalg EC -groupname secp256r1 -dname CN=localhost -validity 2 \
    -storetype PKCS12 -keystore "$out/tls.p12" -storepass changeit -keypass changeit > /dev/null 2>&1
java -Dgcmsiv.library="$PWD/target/release/libgcmsiv_java.so" -cp "$out/classes" \
    dev.gcmsiv.TlsTest "$out/tls.p12"

# The one-JAR build, and the JAR alone on a class path.
bash scripts/java-jar.sh target/java-jar
