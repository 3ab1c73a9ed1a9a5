package dev.gcmsiv;

/** The native library's entry points (src/lib.rs); not public API. */
final class Native {
    static {
        String path = System.getProperty("gcmsiv.library");
        if (path != null) {
            System.load(path);
        } else {
            System.loadLibrary("gcmsiv_java");
        }
    }

    private Native() {}

    static final int AES_GCM_SIV = 1;
    static final int AES_GCM = 2;

    static native long newKey(int algorithm, byte[] key, int tagLength, int backend);

    static native void freeKey(long handle);

    static native String backend(long handle);

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

    /** Checks the lengths of count items (nonce, aad and body lengths per item) as calls would. */
    static native void checkMany(long handle, int[] layout, int count);

    /** Seals the items packed in arena (layout: nonce, aad and body lengths per item) in place. */
    static native void sealMany(long handle, byte[] arena, int[] layout, int count);

    /** Opens the items packed in arena in place; ok[i] = 1 where item i was authentic. */
    static native void openMany(long handle, byte[] arena, int[] layout, int count, byte[] ok);
}
