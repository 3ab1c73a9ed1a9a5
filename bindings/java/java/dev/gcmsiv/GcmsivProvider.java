package dev.gcmsiv;

import java.security.Provider;
import java.util.List;
import java.util.Map;

/**
 * A JCA provider for gcmsiv's ciphers, so that code written against {@code javax.crypto.Cipher}
 * can use them:
 *
 * <ul>
 *   <li>{@code AES/GCM-SIV/NoPadding} (alias {@code AES-GCM-SIV}): RFC 8452 with 16- or 32-byte
 *       AES keys, 12-byte nonces and 128-bit tags;
 *   <li>{@code AES/GCM/NoPadding}: AES-GCM with 16- or 32-byte keys, IVs of any length from one
 *       byte and tags of 96 to 128 bits, behaving as the JDK's own (it refuses to encrypt twice
 *       under one key and IV, as SunJCE does).
 * </ul>
 *
 * <pre>{@code
 * Cipher c = Cipher.getInstance("AES/GCM-SIV/NoPadding", new GcmsivProvider());
 * c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
 * c.updateAAD(aad);
 * byte[] sealed = c.doFinal(plaintext);
 * }</pre>
 *
 * <p>Both modes buffer the message until {@code doFinal}: AES-GCM-SIV cannot start its output
 * before it has read the whole message, and decryption releases no plaintext before the tag is
 * checked. {@code update} therefore returns no output. Key wrapping ({@code WRAP_MODE}, {@code
 * UNWRAP_MODE}) is supported; AES-GCM-SIV is well suited to it, since a wrapped key needs no fresh
 * nonce to stay secret.
 */
public final class GcmsivProvider extends Provider {
    private static final long serialVersionUID = 1L;

    /** The provider's name, for {@code Cipher.getInstance(transformation, "Gcmsiv")}. */
    public static final String NAME = "Gcmsiv";

    public GcmsivProvider() {
        super(NAME, "0.1", "gcmsiv: AES-GCM-SIV (RFC 8452) and AES-GCM in native code");
        Map<String, String> attributes = Map.of("SupportedKeyFormats", "RAW", "SupportedKeyClasses", "javax.crypto.SecretKey");
        putService(new Service(this, "Cipher", "AES/GCM-SIV/NoPadding", AeadCipherSpi.GcmSiv.class.getName(),
                List.of("AES-GCM-SIV"), attributes));
        putService(new Service(this, "Cipher", "AES/GCM/NoPadding", AeadCipherSpi.Gcm.class.getName(),
                List.of(), attributes));
    }
}
