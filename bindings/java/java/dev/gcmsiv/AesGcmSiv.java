package dev.gcmsiv;

/**
 * AES-GCM-SIV (RFC 8452) with a 16- or 32-byte key: 12-byte nonces, 16-byte tags. A repeated
 * nonce reveals only whether two messages (with their associated data) were identical. Limits
 * (RFC 8452 section 9): at most 2^36 bytes per message; with random nonces, 2^53 messages of up
 * to 16 MiB under one key.
 */
public final class AesGcmSiv extends Aead {
    /** A key on the fastest backend this CPU supports. */
    public AesGcmSiv(byte[] key) {
        this(key, Backend.AUTO);
    }

    /** A key on a chosen backend (IllegalArgumentException if this CPU lacks it). */
    public AesGcmSiv(byte[] key, Backend backend) {
        super(Native.AES_GCM_SIV, key, 16, backend);
    }
}
