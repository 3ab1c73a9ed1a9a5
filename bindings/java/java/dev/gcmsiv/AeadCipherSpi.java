package dev.gcmsiv;

import java.security.AlgorithmParameters;
import java.security.InvalidAlgorithmParameterException;
import java.security.InvalidKeyException;
import java.security.Key;
import java.security.KeyFactory;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.InvalidParameterSpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.AEADBadTagException;
import javax.crypto.BadPaddingException;
import javax.crypto.Cipher;
import javax.crypto.CipherSpi;
import javax.crypto.IllegalBlockSizeException;
import javax.crypto.NoSuchPaddingException;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@link CipherSpi} behind {@link GcmsivProvider}'s ciphers: {@link GcmSiv} and {@link Gcm}.
 * One message at a time, buffered until {@code doFinal} (see {@link GcmsivProvider}); after
 * {@code doFinal} the cipher is ready for the next message under the same key and nonce
 * (AES-GCM encryption: only after a new {@code init} with a new IV, as SunJCE requires).
 */
public abstract class AeadCipherSpi extends CipherSpi {
    /** {@code AES/GCM-SIV/NoPadding}. */
    public static final class GcmSiv extends AeadCipherSpi {
        public GcmSiv() {
            super(true);
        }
    }

    /** {@code AES/GCM/NoPadding}. */
    public static final class Gcm extends AeadCipherSpi {
        public Gcm() {
            super(false);
        }
    }

    private static final int NONCE_LENGTH = 12;

    private final boolean siv;
    /** The key's bytes (to reuse the native key when init is called again with the same). */
    private byte[] keyBytes;
    private Aead aead;
    private byte[] nonce;
    private int tagLength = 16;
    private boolean encrypting;
    /** AES-GCM: the key and IV of the last encryption, which may not be used together again. */
    private byte[] lastKey, lastIv;
    /** AES-GCM encryption after doFinal: a new IV is needed first. */
    private boolean needsNewIv;
    private final Buffer aad = new Buffer();
    private final Buffer data = new Buffer();

    AeadCipherSpi(boolean siv) {
        this.siv = siv;
    }

    /** A growable byte buffer that is wiped when reset (it may hold plaintext). */
    private static final class Buffer {
        byte[] bytes = new byte[0];
        int length;

        void append(byte[] src, int offset, int len) {
            Objects.checkFromIndexSize(offset, len, src.length);
            System.arraycopy(src, offset, room(len), length, len);
            length += len;
        }

        /** The remaining bytes of {@code src}, which it consumes. */
        void append(java.nio.ByteBuffer src) {
            int len = src.remaining();
            src.get(room(len), length, len);
            length += len;
        }

        /** The array, grown (the old one wiped) to hold {@code len} more bytes. */
        private byte[] room(int len) {
            int need = Math.addExact(length, len);
            if (need > bytes.length) {
                byte[] grown = Arrays.copyOf(bytes, Math.max(need, Math.min(Integer.MAX_VALUE - 8, 2 * bytes.length)));
                Arrays.fill(bytes, (byte) 0);
                bytes = grown;
            }
            return bytes;
        }

        void reset() {
            Arrays.fill(bytes, 0, length, (byte) 0);
            length = 0;
        }
    }

    @Override
    protected void engineSetMode(String mode) throws NoSuchAlgorithmException {
        if (!mode.equalsIgnoreCase(siv ? "GCM-SIV" : "GCM")) {
            throw new NoSuchAlgorithmException("gcmsiv: unsupported mode " + mode);
        }
    }

    @Override
    protected void engineSetPadding(String padding) throws NoSuchPaddingException {
        if (!padding.equalsIgnoreCase("NoPadding")) {
            throw new NoSuchPaddingException("gcmsiv: unsupported padding " + padding);
        }
    }

    @Override
    protected int engineGetBlockSize() {
        return 16;
    }

    @Override
    protected int engineGetOutputSize(int inputLen) {
        long total = (long) data.length + Math.max(0, inputLen);
        long out = encrypting ? total + tagLength : Math.max(0, total - tagLength);
        return (int) Math.min(Integer.MAX_VALUE, out);
    }

    @Override
    protected byte[] engineGetIV() {
        return nonce == null ? null : nonce.clone();
    }

    @Override
    protected AlgorithmParameters engineGetParameters() {
        if (nonce == null) {
            return null;
        }
        try {
            AlgorithmParameters params = AlgorithmParameters.getInstance("GCM");
            params.init(new GCMParameterSpec(8 * tagLength, nonce));
            return params;
        } catch (NoSuchAlgorithmException | InvalidParameterSpecException e) {
            throw new IllegalStateException("gcmsiv: the JDK's GCM parameters are missing", e);
        }
    }

    @Override
    protected int engineGetKeySize(Key key) throws InvalidKeyException {
        byte[] k = rawKey(key);
        Arrays.fill(k, (byte) 0);
        return 8 * k.length;
    }

    @Override
    protected void engineInit(int opmode, Key key, SecureRandom random) throws InvalidKeyException {
        try {
            engineInit(opmode, key, (AlgorithmParameterSpec) null, random);
        } catch (InvalidAlgorithmParameterException e) {
            throw new InvalidKeyException(e.getMessage(), e);
        }
    }

    @Override
    protected void engineInit(int opmode, Key key, AlgorithmParameters params, SecureRandom random)
            throws InvalidKeyException, InvalidAlgorithmParameterException {
        AlgorithmParameterSpec spec = null;
        if (params != null) {
            try {
                spec = params.getParameterSpec(GCMParameterSpec.class);
            } catch (InvalidParameterSpecException e) {
                throw new InvalidAlgorithmParameterException("gcmsiv: GCM parameters expected", e);
            }
        }
        engineInit(opmode, key, spec, random);
    }

    @Override
    protected void engineInit(int opmode, Key key, AlgorithmParameterSpec params, SecureRandom random)
            throws InvalidKeyException, InvalidAlgorithmParameterException {
        boolean encrypt = switch (opmode) {
            case Cipher.ENCRYPT_MODE, Cipher.WRAP_MODE -> true;
            case Cipher.DECRYPT_MODE, Cipher.UNWRAP_MODE -> false;
            default -> throw new InvalidAlgorithmParameterException("gcmsiv: unknown mode " + opmode);
        };
        byte[] k = rawKey(key);
        try {
            init(encrypt, k, params, random);
        } finally {
            Arrays.fill(k, (byte) 0);
        }
    }

    /** {@link #engineInit} with the key's bytes, which the caller wipes. */
    private void init(boolean encrypt, byte[] k, AlgorithmParameterSpec params, SecureRandom random)
            throws InvalidKeyException, InvalidAlgorithmParameterException {
        byte[] iv;
        int tag;
        if (params == null) {
            if (!encrypt) {
                throw new InvalidAlgorithmParameterException("gcmsiv: decryption needs the nonce (GCMParameterSpec)");
            }
            iv = new byte[NONCE_LENGTH];
            (random != null ? random : new SecureRandom()).nextBytes(iv);
            tag = 16;
        } else if (params instanceof GCMParameterSpec gcm) {
            iv = gcm.getIV();
            if (gcm.getTLen() % 8 != 0 || gcm.getTLen() < (siv ? 128 : 96) || gcm.getTLen() > 128) {
                throw new InvalidAlgorithmParameterException(
                        "gcmsiv: unsupported tag length " + gcm.getTLen() + (siv ? " (AES-GCM-SIV: 128)" : " (96 to 128)"));
            }
            tag = gcm.getTLen() / 8;
        } else if (params instanceof IvParameterSpec ivSpec) {
            iv = ivSpec.getIV();
            tag = 16;
        } else {
            throw new InvalidAlgorithmParameterException("gcmsiv: GCMParameterSpec expected");
        }
        if (siv ? iv.length != NONCE_LENGTH : iv.length == 0) {
            throw new InvalidAlgorithmParameterException(
                    "gcmsiv: " + (siv ? "AES-GCM-SIV nonces are 12 bytes" : "an IV of at least one byte is needed"));
        }
        if (!siv && encrypt && lastKey != null && MessageDigest.isEqual(lastKey, k) && Arrays.equals(lastIv, iv)) {
            throw new InvalidAlgorithmParameterException("gcmsiv: cannot reuse an IV under one key for AES-GCM encryption");
        }
        if (aead == null || tag != tagLength || !MessageDigest.isEqual(k, keyBytes)) {
            Aead fresh;
            try {
                fresh = siv ? new AesGcmSiv(k) : new AesGcm(k, tag, Backend.AUTO);
            } catch (IllegalArgumentException e) {
                throw new InvalidKeyException(e.getMessage(), e);
            }
            if (aead != null) {
                aead.close();
                Arrays.fill(keyBytes, (byte) 0);
            }
            aead = fresh;
            keyBytes = k.clone();
        }
        if (!siv && encrypt) {
            if (lastKey != null) {
                Arrays.fill(lastKey, (byte) 0);
            }
            lastKey = k.clone();
            lastIv = iv.clone();
        }
        nonce = iv.clone();
        tagLength = tag;
        encrypting = encrypt;
        needsNewIv = false;
        aad.reset();
        data.reset();
    }

    private static byte[] rawKey(Key key) throws InvalidKeyException {
        if (key == null || !"RAW".equalsIgnoreCase(key.getFormat()) || !"AES".equalsIgnoreCase(key.getAlgorithm())) {
            throw new InvalidKeyException("gcmsiv: a raw AES key is needed");
        }
        byte[] k = key.getEncoded();
        if (k == null || (k.length != 16 && k.length != 32)) {
            int n = k == null ? 0 : k.length;
            if (k != null) {
                Arrays.fill(k, (byte) 0);
            }
            throw new InvalidKeyException("gcmsiv: AES keys of 16 or 32 bytes, not " + n);
        }
        return k;
    }

    private void ready() {
        if (aead == null) {
            throw new IllegalStateException("gcmsiv: the cipher is not initialized");
        }
        if (needsNewIv) {
            throw new IllegalStateException("gcmsiv: AES-GCM encryption needs a new IV (init) for each message");
        }
    }

    /** {@link #ready}, and no message bytes yet: associated data comes first. */
    private void readyForAad() {
        ready();
        if (data.length > 0) {
            throw new IllegalStateException("gcmsiv: associated data must come before the message");
        }
    }

    @Override
    protected void engineUpdateAAD(byte[] src, int offset, int len) {
        readyForAad();
        aad.append(src, offset, len);
    }

    @Override
    protected void engineUpdateAAD(java.nio.ByteBuffer src) {
        readyForAad();
        aad.append(src);
    }

    @Override
    protected int engineUpdate(java.nio.ByteBuffer input, java.nio.ByteBuffer output) {
        ready();
        data.append(input);
        return 0; // buffered until doFinal, whatever room the output has
    }

    @Override
    protected byte[] engineUpdate(byte[] input, int inputOffset, int inputLen) {
        ready();
        if (input != null) {
            data.append(input, inputOffset, inputLen);
        }
        return new byte[0];
    }

    @Override
    protected int engineUpdate(byte[] input, int inputOffset, int inputLen, byte[] output, int outputOffset) {
        engineUpdate(input, inputOffset, inputLen);
        return 0;
    }

    @Override
    protected byte[] engineDoFinal(byte[] input, int inputOffset, int inputLen)
            throws IllegalBlockSizeException, BadPaddingException {
        ready();
        byte[] output = new byte[engineGetOutputSize(input == null ? 0 : inputLen)];
        try {
            int n = engineDoFinal(input, inputOffset, inputLen, output, 0);
            return n == output.length ? output : Arrays.copyOf(output, n);
        } catch (ShortBufferException e) {
            throw new IllegalStateException("gcmsiv: internal error: output size", e);
        }
    }

    @Override
    protected int engineDoFinal(byte[] input, int inputOffset, int inputLen, byte[] output, int outputOffset)
            throws ShortBufferException, IllegalBlockSizeException, BadPaddingException {
        ready();
        if (input == null) {
            input = new byte[0];
            inputOffset = 0;
            inputLen = 0;
        }
        Objects.checkFromIndexSize(inputOffset, inputLen, input.length);
        if (!encrypting && (long) data.length + inputLen < tagLength) {
            reset();
            throw new AEADBadTagException("gcmsiv: input shorter than the tag");
        }
        int need = engineGetOutputSize(inputLen);
        if (output == null || outputOffset < 0 || output.length - outputOffset < need) {
            throw new ShortBufferException("gcmsiv: the output needs " + need + " bytes");
        }
        byte[] in = input;
        int offset = inputOffset, length = inputLen;
        if (data.length > 0) { // earlier update calls: the whole message from the buffer
            data.append(input, inputOffset, inputLen);
            in = data.bytes;
            offset = 0;
            length = data.length;
        }
        try {
            return encrypting
                    ? aead.encrypt(nonce, aad.bytes, aad.length, in, offset, length, output, outputOffset)
                    : aead.decrypt(nonce, aad.bytes, aad.length, in, offset, length, output, outputOffset);
        } finally {
            reset();
            needsNewIv = encrypting && !siv;
        }
    }

    /**
     * A whole message from one ByteBuffer into another: direct buffers through their memory (a
     * seal in place; an open through native memory, as always), heap ones through their arrays
     * (after earlier {@code update} calls, through the buffered path).
     */
    @Override
    protected int engineDoFinal(java.nio.ByteBuffer input, java.nio.ByteBuffer output)
            throws ShortBufferException, IllegalBlockSizeException, BadPaddingException {
        ready();
        if (data.length > 0) {
            return super.engineDoFinal(input, output);
        }
        int need = engineGetOutputSize(input.remaining());
        if (output.remaining() < need) {
            throw new ShortBufferException("gcmsiv: the output needs " + need + " bytes");
        }
        try {
            return aead.crypt(encrypting, nonce, aad.bytes, aad.length, input, output);
        } finally {
            reset();
            needsNewIv = encrypting && !siv;
        }
    }

    /** Ready for the next message: buffers wiped. */
    private void reset() {
        aad.reset();
        data.reset();
    }

    @Override
    protected byte[] engineWrap(Key key) throws IllegalBlockSizeException, InvalidKeyException {
        byte[] encoded = key == null ? null : key.getEncoded();
        if (encoded == null) {
            throw new InvalidKeyException("gcmsiv: the key has no encoding to wrap");
        }
        try {
            return engineDoFinal(encoded, 0, encoded.length);
        } catch (BadPaddingException e) {
            throw new IllegalStateException("gcmsiv: not in wrap mode", e);
        } finally {
            Arrays.fill(encoded, (byte) 0);
        }
    }

    @Override
    protected Key engineUnwrap(byte[] wrappedKey, String wrappedKeyAlgorithm, int wrappedKeyType)
            throws InvalidKeyException, NoSuchAlgorithmException {
        byte[] encoded;
        try {
            encoded = engineDoFinal(wrappedKey, 0, wrappedKey.length);
        } catch (IllegalBlockSizeException | BadPaddingException e) {
            throw new InvalidKeyException("gcmsiv: the wrapped key is not authentic", e);
        }
        try {
            return switch (wrappedKeyType) {
                case Cipher.SECRET_KEY -> new SecretKeySpec(encoded, wrappedKeyAlgorithm);
                case Cipher.PUBLIC_KEY -> KeyFactory.getInstance(wrappedKeyAlgorithm)
                        .generatePublic(new X509EncodedKeySpec(encoded));
                case Cipher.PRIVATE_KEY -> KeyFactory.getInstance(wrappedKeyAlgorithm)
                        .generatePrivate(new PKCS8EncodedKeySpec(encoded));
                default -> throw new InvalidKeyException("gcmsiv: unknown key type " + wrappedKeyType);
            };
        } catch (InvalidKeySpecException e) {
            throw new InvalidKeyException("gcmsiv: the unwrapped key's encoding", e);
        } finally {
            Arrays.fill(encoded, (byte) 0);
        }
    }
}
