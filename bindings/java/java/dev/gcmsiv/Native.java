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

    static native byte[] seal(long handle, byte[] nonce, byte[] plaintext, byte[] aad);

    static native byte[] open(long handle, byte[] nonce, byte[] sealed, byte[] aad);
}
