package dev.gcmsiv;

/**
 * AES-GCM (NIST SP 800-38D) with a 16- or 32-byte key. Never repeat a nonce under a key: one
 * repeat leaks the XOR of two messages and lets an attacker forge. Nonces of any length from 1
 * byte (use 12); tags of 12 to 16 bytes. With random 12-byte nonces, at most 2^32 messages per
 * key.
 */
public final class AesGcm extends Aead {
    /** 16-byte tags, the fastest backend. */
    public AesGcm(byte[] key) {
        this(key, 16, Backend.AUTO);
    }

    /** A tag length of 12 to 16 bytes and a backend. */
    public AesGcm(byte[] key, int tagLength, Backend backend) {
        super(Native.AES_GCM, key, tagLength, backend);
    }
}
