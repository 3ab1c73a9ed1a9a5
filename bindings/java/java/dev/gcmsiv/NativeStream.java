package dev.gcmsiv;

import javax.crypto.AEADBadTagException;

/**
 * The native entry points of the stream classes (src/stream.rs); not public API. Handles come
 * from a {@code *New} call and are freed once by the matching {@code *Free}; callers serialize
 * the calls on one handle and free it under the same lock.
 */
final class NativeStream {
    static {
        try {
            // The library is loaded by Native's initializer.
            Class.forName(Native.class.getName(), true, NativeStream.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private NativeStream() {}

    static final int KEY = 1;
    static final int PASSPHRASE = 2;
    static final int RECIPIENTS = 3;
    static final int MIXED_RECIPIENTS = 4;
    static final int IDENTITIES = 5;

    static native int headerLength();

    static native int headerNeeded(byte[] prefix) throws GcmsivFormatException;

    static native String generateIdentity(int kind);

    static native String identityRecipient(byte[] identity);

    static native byte[] parseKeyFile(byte[] text);

    static native void randomBytes(byte[] out);

    static native long sealNew(
            int kind, byte[] secret, int chunkSize, int algorithm, int memoryKib, int iterations, int lanes);

    static native byte[] sealPush(long handle, byte[] in, int offset, int length);

    static native byte[] sealFinish(long handle);

    static native void sealFree(long handle);

    static native long openNew(int kind, byte[] secret);

    static native byte[] openPush(long handle, byte[] in, int offset, int length)
            throws AEADBadTagException, GcmsivFormatException;

    static native void openFinish(long handle) throws AEADBadTagException, GcmsivFormatException;

    static native void openFree(long handle);

    static native long accessNew(byte[] header, long fileLength, int kind, byte[] secret)
            throws AEADBadTagException, GcmsivFormatException;

    static native long[] accessFinalChunk(long handle);

    static native long accessVerifyFinal(long handle, byte[] stored, int length)
            throws AEADBadTagException, GcmsivFormatException;

    static native long[] accessSpan(long handle, long offset, long length);

    static native byte[] accessOpen(long handle, long firstChunk, byte[] stored, int length)
            throws AEADBadTagException, GcmsivFormatException;

    static native void accessFree(long handle);
}
