package dev.gcmsiv;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/** The native library's entry points (src/lib.rs); not public API. */
final class Native {
    /** Where a JAR built by scripts/java-jar.sh carries the library for this platform. */
    static String resource() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux") ? "linux" : "other";
        String arch = System.getProperty("os.arch", "");
        arch = arch.equals("amd64") ? "x86_64" : arch;
        return "/dev/gcmsiv/native/" + os + "-" + arch + "/libgcmsiv_java.so";
    }

    /**
     * Loads the library: the file named by the system property {@code gcmsiv.library}; else the one
     * in this JAR for this platform (copied into a temporary directory only this user can enter,
     * loaded, and deleted); else, or if that one does not load, {@code gcmsiv_java} from {@code
     * java.library.path}.
     */
    static {
        String path = System.getProperty("gcmsiv.library");
        if (path != null) {
            System.load(path);
        } else {
            UnsatisfiedLinkError bundled = null;
            try {
                if (loadFromJar()) {
                    bundled = null;
                } else {
                    System.loadLibrary("gcmsiv_java");
                }
            } catch (UnsatisfiedLinkError e) {
                bundled = e;
            }
            if (bundled != null) {
                try {
                    System.loadLibrary("gcmsiv_java");
                } catch (UnsatisfiedLinkError e) {
                    e.addSuppressed(bundled);
                    throw e;
                }
            }
        }
    }

    /** Loads the JAR's library for this platform; false if the JAR has none. */
    private static boolean loadFromJar() {
        try (InputStream in = Native.class.getResourceAsStream(resource())) {
            if (in == null) {
                return false;
            }
            // A directory of our own (mode 700), and the file created new inside it (600): no
            // other user can replace the library between the copy and the load.
            Path dir = Files.createTempDirectory("gcmsiv",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path file = dir.resolve("libgcmsiv_java.so");
            try {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.WRITE)) {
                    in.transferTo(out);
                }
                System.load(file.toAbsolutePath().toString());
            } finally {
                Files.deleteIfExists(file); // the loaded library stays mapped
                Files.deleteIfExists(dir);
            }
            return true;
        } catch (IOException e) {
            throw new UnsatisfiedLinkError("gcmsiv: cannot unpack the native library: " + e);
        }
    }

    private Native() {}

    static final int AES_GCM_SIV = 1;
    static final int AES_GCM = 2;

    static native long newKey(int algorithm, byte[] key, int tagLength, int backend);

    static native void freeKey(long handle);

    static native String backend(long handle);

    static native int backendBits(long handle);

    /** The native library's backends by name, comma-separated, numbered from 1. */
    static native String backendNames();

    static native int tagLength(long handle);

    /** Writes ciphertext || tag of in[inOffset, +length) at out[outOffset..]; aad may be null. */
    static native void seal(
            long handle, byte[] nonce, int nonceLength, byte[] aad, int aadLength,
            byte[] in, int inOffset, int length, byte[] out, int outOffset);

    /** Writes the plaintext of ciphertext || tag (length bytes) at out[outOffset..]. */
    static native void open(
            long handle, byte[] nonce, int nonceLength, byte[] aad, int aadLength,
            byte[] in, int inOffset, int length, byte[] out, int outOffset)
            throws javax.crypto.AEADBadTagException;

    /** seal on direct ByteBuffers: in[inPosition, +length) to out[outPosition..]. */
    static native void sealDirect(
            long handle, byte[] nonce, int nonceLength, byte[] aad, int aadLength,
            java.nio.ByteBuffer in, int inPosition, int length, java.nio.ByteBuffer out, int outPosition);

    /** open on direct ByteBuffers. */
    static native void openDirect(
            long handle, byte[] nonce, int nonceLength, byte[] aad, int aadLength,
            java.nio.ByteBuffer in, int inPosition, int length, java.nio.ByteBuffer out, int outPosition)
            throws javax.crypto.AEADBadTagException;

    /**
     * Checks the lengths of count items (nonce, aad and body lengths per item) as calls would: as
     * sealMany's if seal, else as openMany's.
     */
    static native void checkMany(long handle, int[] layout, int count, boolean seal);

    /** Seals the items packed in arena (layout: nonce, aad and body lengths per item) in place. */
    static native void sealMany(long handle, byte[] arena, int[] layout, int count);

    /** Opens the items packed in arena in place; ok[i] = 1 where item i was authentic. */
    static native void openMany(long handle, byte[] arena, int[] layout, int count, byte[] ok);
}
