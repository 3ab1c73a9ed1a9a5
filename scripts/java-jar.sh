#!/usr/bin/env bash
# Builds the Java binding as one JAR: the classes, the native library for
# this platform inside it (loaded from there unless the gcmsiv.library
# property names another; java.library.path is the fallback), the JCA
# provider registered for ServiceLoader, and the sources beside it. Then checks that the JAR alone,
# on a class path with nothing else, seals and opens through the provider.
#
#   scripts/java-jar.sh [OUT_DIR]     # default target/java-jar
set -euo pipefail
cd "$(dirname "$0")/.."

out="${1:-target/java-jar}"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
cargo build -q --release -p gcmsiv-java
rm -rf "$out" && mkdir -p "$out/classes" "$out/check"
javac -Xlint:all -Werror --release 17 -d "$out/classes" bindings/java/java/dev/gcmsiv/*.java
platform=$(java -cp "$out/classes" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *os.arch = //p')
[ "$platform" = amd64 ] && platform=x86_64
mkdir -p "$out/classes/dev/gcmsiv/native/linux-$platform" "$out/classes/META-INF/services"
cp target/release/libgcmsiv_java.so "$out/classes/dev/gcmsiv/native/linux-$platform/"
echo dev.gcmsiv.GcmsivProvider > "$out/classes/META-INF/services/java.security.Provider"
jar --create --file "$out/gcmsiv-$version.jar" -C "$out/classes" .
(cd bindings/java/java && jar --create --file "../../../$out/gcmsiv-$version-sources.jar" dev)

# The JAR alone: no library path, no property.
cat > "$out/check/Check.java" <<'JAVA'
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import java.util.ServiceLoader;

public class Check {
    public static void main(String[] args) throws Exception {
        java.security.Provider p = ServiceLoader.load(java.security.Provider.class).stream()
                .map(ServiceLoader.Provider::get).filter(x -> x.getName().equals("Gcmsiv")).findFirst().orElseThrow();
        Cipher c = Cipher.getInstance("AES/GCM-SIV/NoPadding", p);
        SecretKeySpec k = new SecretKeySpec(new byte[16], "AES");
        c.init(Cipher.ENCRYPT_MODE, k, new GCMParameterSpec(128, new byte[12]));
        byte[] sealed = c.doFinal("from the jar".getBytes());
        c.init(Cipher.DECRYPT_MODE, k, new GCMParameterSpec(128, new byte[12]));
        if (!new String(c.doFinal(sealed)).equals("from the jar")) throw new AssertionError("round trip");
        System.out.println("jar: " + new dev.gcmsiv.AesGcmSiv(new byte[16]).backend() + ", provider found by ServiceLoader, round trip ok");
    }
}
JAVA
cat > "$out/check/Installed.java" <<'JAVA'
import javax.crypto.Cipher;

public class Installed {
    public static void main(String[] args) throws Exception {
        String name = Cipher.getInstance("AES/GCM-SIV/NoPadding").getProvider().getName();
        if (!name.equals("Gcmsiv")) throw new AssertionError(name);
        System.out.println("jar: installed by a java.security entry alone");
    }
}
JAVA
javac -d "$out/check" -cp "$out/gcmsiv-$version.jar" "$out/check/Check.java" "$out/check/Installed.java"
java -cp "$out/gcmsiv-$version.jar:$out/check" Check
# Unpacked under a permissive umask, the library is still private to this user
# (strace, where present, shows the file and directory modes).
if command -v strace > /dev/null; then
    (umask 000 && strace -f -e trace=openat,mkdir -o "$out/check/trace" \
        java -cp "$out/gcmsiv-$version.jar:$out/check" Check > /dev/null)
    grep -E 'gcmsiv[^"]*(libgcmsiv_java\.so|")' "$out/check/trace" | grep -E 'O_CREAT|mkdir' > "$out/check/created"
    if grep -vqE '0700|0600' "$out/check/created"; then
        cat "$out/check/created" >&2
        echo "the unpacked library is not private to this user" >&2
        exit 1
    fi
    echo "jar: unpacked privately under umask 000 ($(wc -l < "$out/check/created") creations checked)"
fi
# The next free entry after the JDK's own (they must be numbered without gaps).
java_home=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.home = //p')
n=$(grep -c '^security\.provider\.[0-9]*=' "$java_home/conf/security/java.security")
echo "security.provider.$((n + 1))=Gcmsiv" > "$out/check/java.security"
java -Djava.security.properties="$out/check/java.security" -cp "$out/gcmsiv-$version.jar:$out/check" Installed
echo "built $out/gcmsiv-$version.jar"
