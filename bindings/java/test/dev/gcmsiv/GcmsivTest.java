package dev.gcmsiv;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The Java binding's tests, self-contained (no test framework to fetch): every AEAD vector of
 * the shared folder (as lines from crates/gcmsiv-c/tests/c/flatten.py, the file named by the
 * first argument) on every backend, AES-GCM against the JDK's own (SunJCE, an independent
 * implementation), misuse, close, and concurrent use. Exits 1 on the first failure.
 */
public final class GcmsivTest {
    private static int checks;

    private static void check(boolean ok, String what) {
        checks++;
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    private interface Body {
        void run() throws Exception;
    }

    private static void throwsA(Class<? extends Throwable> type, String what, Body body) {
        try {
            body.run();
        } catch (Throwable t) {
            check(type.isInstance(t), what + ": threw " + t);
            return;
        }
        check(false, what + ": no exception");
    }

    private static byte[] hex(String s) {
        return s.equals("-") ? new byte[0] : HexFormat.of().parseHex(s);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static List<Backend> backends() {
        List<Backend> out = new ArrayList<>();
        for (Backend b : Backend.values()) {
            if (b != Backend.AUTO && b.isAvailable()) {
                out.add(b);
            }
        }
        check(out.contains(Backend.PORTABLE), "portable is always available");
        // The enum names the native library's backends, in its order.
        check(Backend.names().size() == Backend.values().length - 1, "one constant per native backend: " + Backend.names());
        for (Backend b : Backend.values()) {
            check(b.nativeName().equals(b.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')), "name of " + b);
        }
        return out;
    }

    static void vectors(Path file) throws Exception {
        List<String> lines = Files.readAllLines(file);
        check(lines.size() > 700, "vector lines: " + lines.size());
        int shortTags = 0;
        for (Backend backend : backends()) {
            for (String line : lines) {
                String[] f = line.split(" ");
                int alg = Integer.parseInt(f[0]);
                int tagLength = Integer.parseInt(f[1]);
                boolean valid = f[2].equals("1");
                byte[] key = hex(f[3]), nonce = hex(f[4]), aad = hex(f[5]), pt = hex(f[6]);
                byte[] sealed = concat(hex(f[7]), hex(f[8]));
                boolean siv = alg <= 2;
                if (!siv && tagLength < 12) {
                    // 4- and 8-byte tags: only the Rust and C APIs' hazardous constructors.
                    throwsA(IllegalArgumentException.class, line, () -> new AesGcm(key, tagLength, backend));
                    shortTags++;
                    continue;
                }
                try (Aead aead = siv ? new AesGcmSiv(key, backend) : new AesGcm(key, tagLength, backend)) {
                    if (valid) {
                        check(Arrays.equals(aead.encrypt(nonce, pt, aad), sealed), "encrypt " + line);
                        check(Arrays.equals(aead.decrypt(nonce, sealed, aad), pt), "decrypt " + line);
                        byte[][] many = aead.encryptMany(new byte[][] {nonce, nonce}, new byte[][] {pt, pt}, new byte[][] {aad, null});
                        check(Arrays.equals(many[0], sealed), "encryptMany " + line);
                        byte[] tampered = sealed.clone();
                        tampered[0] ^= 1;
                        byte[][] opened = aead.decryptMany(new byte[][] {nonce, nonce}, new byte[][] {tampered, sealed}, new byte[][] {aad, aad});
                        check(opened[0] == null && Arrays.equals(opened[1], pt), "decryptMany " + line);
                        sealed[sealed.length / 2] ^= 0x08;
                    }
                    throwsA(AEADBadTagException.class, "forgery " + line, () -> aead.decrypt(nonce, sealed, aad));
                }
            }
        }
        check(shortTags > 0, "short-tag vectors seen");
    }

    static void againstJdk() throws Exception {
        Random rng = new Random(8452);
        int[] lengths = {0, 1, 15, 16, 17, 63, 64, 127, 128, 129, 255, 256, 511, 512, 1024, 4096, 8191, 8192, 8193, 8208, 70000};
        for (Backend backend : backends()) {
            for (int keyLength : new int[] {16, 32}) {
                for (int n : lengths) {
                    byte[] key = new byte[keyLength], nonce = new byte[12], pt = new byte[n], aad = new byte[n % 37];
                    rng.nextBytes(key);
                    rng.nextBytes(nonce);
                    rng.nextBytes(pt);
                    rng.nextBytes(aad);
                    Cipher jdk = Cipher.getInstance("AES/GCM/NoPadding");
                    jdk.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(key, "AES"), new GCMParameterSpec(128, nonce));
                    jdk.updateAAD(aad);
                    byte[] want = jdk.doFinal(pt);
                    try (AesGcm ours = new AesGcm(key, 16, backend)) {
                        check(Arrays.equals(ours.encrypt(nonce, pt, aad), want), backend + " " + keyLength + " " + n);
                        check(Arrays.equals(ours.decrypt(nonce, want, aad), pt), "decrypt the JDK's");
                    }
                }
            }
        }
    }

    /** The offset calls: into other arrays, in place, overlapping, and what a failure leaves. */
    static void offsets() throws Exception {
        Random rng = new Random(1);
        int[] lengths = {0, 1, 16, 100, 2031, 2032, 2033, 2047, 2048, 2049, 5000, 70000};
        for (Backend backend : backends()) {
            for (int keyLength : new int[] {16, 32}) {
                byte[] key = new byte[keyLength];
                rng.nextBytes(key);
                try (AesGcmSiv siv = new AesGcmSiv(key, backend); AesGcm gcm = new AesGcm(key, 13, backend)) {
                    for (Aead aead : new Aead[] {siv, gcm}) {
                        int t = aead.tagLength();
                        for (int n : lengths) {
                            byte[] nonce = new byte[12], pt = new byte[n], aad = new byte[n % 7];
                            rng.nextBytes(nonce);
                            rng.nextBytes(pt);
                            rng.nextBytes(aad);
                            byte[] sealed = aead.encrypt(nonce, pt, aad);
                            String at = backend + " " + keyLength + " " + t + " " + n;
                            // Into another array, at offsets.
                            byte[] out = new byte[n + t + 9];
                            check(aead.encrypt(nonce, pt, 0, n, aad, out, 4) == n + t, "count " + at);
                            check(Arrays.equals(Arrays.copyOfRange(out, 4, 4 + n + t), sealed), "offset " + at);
                            check(out[3] == 0 && out[4 + n + t] == 0, "bytes around " + at);
                            // In place and shifted either way, in one array.
                            for (int shift : new int[] {0, 3, -3}) {
                                byte[] buf = new byte[n + t + 8];
                                System.arraycopy(pt, 0, buf, 4, n);
                                aead.encrypt(nonce, buf, 4, n, aad, buf, 4 + shift);
                                check(Arrays.equals(Arrays.copyOfRange(buf, 4 + shift, 4 + shift + n + t), sealed), "shift " + shift + " " + at);
                                byte[] back = new byte[n + t + 8];
                                System.arraycopy(sealed, 0, back, 4, n + t);
                                check(aead.decrypt(nonce, back, 4, n + t, aad, back, 4 + shift) == n, "open count " + at);
                                check(Arrays.equals(Arrays.copyOfRange(back, 4 + shift, 4 + shift + n), pt), "open shift " + shift + " " + at);
                            }
                            // A failure: a separate output is zeroed, in place the ciphertext stays.
                            byte[] bad = sealed.clone();
                            bad[bad.length - 1] ^= 1;
                            byte[] dst = new byte[n + 2];
                            Arrays.fill(dst, (byte) 0x55);
                            throwsA(AEADBadTagException.class, "forgery " + at, () -> aead.decrypt(nonce, bad, 0, bad.length, aad, dst, 1));
                            boolean zeroed = dst[0] == 0x55 && dst[n + 1] == 0x55;
                            for (int i = 1; i <= n; i++) {
                                zeroed &= dst[i] == 0;
                            }
                            check(zeroed, "failed output zeroed " + at);
                            for (int shift : new int[] {3, -3}) { // overlapping, not in place: zeroes
                                byte[] buf = new byte[n + t + 8];
                                System.arraycopy(bad, 0, buf, 4, n + t);
                                throwsA(AEADBadTagException.class, "forgery shifted " + at, () -> aead.decrypt(nonce, buf, 4, n + t, aad, buf, 4 + shift));
                                check(Arrays.equals(Arrays.copyOfRange(buf, 4 + shift, 4 + shift + n), new byte[n]), "failed shifted output zeroed " + at);
                            }
                            byteBuffers(aead, nonce, pt, aad, sealed, at);
                            byte[] inPlace = bad.clone();
                            throwsA(AEADBadTagException.class, "forgery in place " + at, () -> aead.decrypt(nonce, inPlace, 0, inPlace.length, aad, inPlace, 0));
                            check(Arrays.equals(inPlace, bad), "failed in place keeps the ciphertext " + at);
                        }
                        byte[] nonce = new byte[12];
                        throwsA(IndexOutOfBoundsException.class, "input range", () -> aead.encrypt(nonce, new byte[4], 1, 4, null, new byte[40], 0));
                        throwsA(IndexOutOfBoundsException.class, "output range", () -> aead.encrypt(nonce, new byte[4], 0, 4, null, new byte[4 + t - 1], 0));
                        throwsA(IndexOutOfBoundsException.class, "negative offset", () -> aead.encrypt(nonce, new byte[4], -1, 4, null, new byte[40], 0));
                        throwsA(IndexOutOfBoundsException.class, "open output range", () -> aead.decrypt(nonce, new byte[40], 0, 40, null, new byte[40 - t - 1], 0));
                    }
                }
            }
        }
    }

    private static java.nio.ByteBuffer buffer(boolean direct, int capacity) {
        return direct ? java.nio.ByteBuffer.allocateDirect(capacity) : java.nio.ByteBuffer.allocate(capacity);
    }

    private static byte[] bytes(java.nio.ByteBuffer b, int from, int length) {
        byte[] out = new byte[length];
        b.duplicate().position(from).get(out);
        return out;
    }

    /** The ByteBuffer calls: direct, heap and mixed, read-only inputs, shared memory, failures. */
    static void byteBuffers(Aead aead, byte[] nonce, byte[] pt, byte[] aad, byte[] sealed, String at) throws Exception {
        int n = pt.length, t = aead.tagLength();
        for (boolean inDirect : new boolean[] {false, true}) {
            for (boolean outDirect : new boolean[] {false, true}) {
                String how = at + " in " + (inDirect ? "direct" : "heap") + " out " + (outDirect ? "direct" : "heap");
                java.nio.ByteBuffer in = buffer(inDirect, n + 3).position(3);
                in.duplicate().put(pt);
                java.nio.ByteBuffer readOnly = in.asReadOnlyBuffer();
                java.nio.ByteBuffer out = buffer(outDirect, n + t + 5).position(5);
                check(aead.encrypt(nonce, readOnly, aad, out) == n + t, "bb count " + how);
                check(readOnly.remaining() == 0 && out.position() == 5 + n + t, "bb positions " + how);
                check(Arrays.equals(bytes(out, 5, n + t), sealed), "bb seal " + how);
                java.nio.ByteBuffer back = buffer(inDirect, n + 2);
                check(aead.decrypt(nonce, out.flip().position(5), aad, back) == n, "bb open count " + how);
                check(Arrays.equals(bytes(back, 0, n), pt), "bb open " + how);
                // A forgery: nothing moves, no plaintext written.
                java.nio.ByteBuffer bad = buffer(inDirect, n + t);
                bad.duplicate().put(sealed);
                bad.put(n + t - 1, (byte) (bad.get(n + t - 1) ^ 1));
                java.nio.ByteBuffer dst = buffer(outDirect, n);
                byte[] marks = new byte[n];
                Arrays.fill(marks, (byte) 0x55);
                dst.duplicate().put(marks);
                throwsA(AEADBadTagException.class, "bb forgery " + how, () -> aead.decrypt(nonce, bad, aad, dst));
                check(bad.position() == 0 && dst.position() == 0 && Arrays.equals(bytes(dst, 0, n), new byte[n]), "bb forgery zeroes " + how);
            }
            // One buffer, in place and shifted.
            for (int shift : new int[] {0, 3, -3}) {
                java.nio.ByteBuffer one = buffer(inDirect, n + t + 8);
                one.duplicate().position(4).put(pt);
                java.nio.ByteBuffer in = one.duplicate().position(4).limit(4 + n);
                java.nio.ByteBuffer out = one.duplicate().position(4 + shift);
                aead.encrypt(nonce, in, aad, out);
                check(Arrays.equals(bytes(one, 4 + shift, n + t), sealed), "bb shared seal " + shift + " " + at);
                java.nio.ByteBuffer back = one.duplicate().position(4 + shift).limit(4 + shift + n + t);
                aead.decrypt(nonce, back, aad, one.duplicate().position(4));
                check(Arrays.equals(bytes(one, 4, n), pt), "bb shared open " + shift + " " + at);
            }
        }
        java.nio.ByteBuffer same = java.nio.ByteBuffer.allocateDirect(n + t);
        throwsA(IllegalArgumentException.class, "bb one object", () -> aead.encrypt(nonce, same, aad, same));
        check(same.position() == 0, "bb one object: nothing moved");
        throwsA(java.nio.BufferOverflowException.class, "bb short output", () -> aead.encrypt(nonce, java.nio.ByteBuffer.wrap(pt), aad, java.nio.ByteBuffer.allocateDirect(n + t - 1)));
        throwsA(java.nio.ReadOnlyBufferException.class, "bb read-only output", () -> aead.encrypt(nonce, java.nio.ByteBuffer.wrap(pt), aad, java.nio.ByteBuffer.allocate(n + t).asReadOnlyBuffer()));
    }

    /** Batches against one call each: sizes across several arenas, failures, misuse. */
    static void batches() throws Exception {
        Random rng = new Random(2);
        for (Backend backend : backends()) {
            byte[] key = new byte[32];
            rng.nextBytes(key);
            try (AesGcmSiv siv = new AesGcmSiv(key, backend); AesGcm gcm = new AesGcm(key, 16, backend);
                    AesGcm gcm13 = new AesGcm(key, 13, backend)) {
                for (Aead aead : new Aead[] {siv, gcm, gcm13}) {
                    int n = 300;
                    byte[][] nonces = new byte[n][], pts = new byte[n][], aads = new byte[n][];
                    for (int i = 0; i < n; i++) {
                        nonces[i] = new byte[aead != siv && i % 5 == 0 ? 1 + i % 20 : 12];
                        rng.nextBytes(nonces[i]);
                        pts[i] = new byte[i % 50 == 7 ? 70000 + i : rng.nextInt(300)];
                        rng.nextBytes(pts[i]);
                        aads[i] = i % 3 == 0 ? null : new byte[i % 40];
                    }
                    byte[][] sealed = aead.encryptMany(nonces, pts, aads);
                    Set<Integer> bad = new HashSet<>(List.of(0, 7, 64, 65, 299));
                    for (int i = 0; i < n; i++) {
                        check(Arrays.equals(sealed[i], aead.encrypt(nonces[i], pts[i], aads[i])), "batch item " + i);
                        if (bad.contains(i)) {
                            sealed[i][i % sealed[i].length] ^= 4;
                        }
                    }
                    byte[][] opened = aead.decryptMany(nonces, sealed, aads);
                    for (int i = 0; i < n; i++) {
                        check(bad.contains(i) ? opened[i] == null : Arrays.equals(opened[i], pts[i]), "opened item " + i);
                    }
                    check(aead.encryptMany(new byte[0][], new byte[0][], null).length == 0, "empty batch");
                    byte[][] wrong = nonces.clone();
                    wrong[n - 1] = new byte[aead == siv ? 11 : 0];
                    throwsA(IllegalArgumentException.class, "a bad nonce in a batch", () -> aead.encryptMany(wrong, pts, aads));
                    byte[][] cut = sealed.clone();
                    cut[n - 1] = new byte[aead.tagLength() - 1];
                    cut[3] = new byte[0];
                    byte[][] someShort = aead.decryptMany(nonces, cut, aads);
                    check(someShort[n - 1] == null && someShort[3] == null && Arrays.equals(someShort[4], pts[4]), "a short ciphertext in a batch is not authentic, alone");
                    throwsA(IllegalArgumentException.class, "counts", () -> aead.encryptMany(nonces, pts, new byte[1][]));
                    throwsA(NullPointerException.class, "a null item", () -> aead.encryptMany(new byte[][] {null}, new byte[1][], null));
                    throwsA(IllegalArgumentException.class, "a nonce too short for the batch", () -> aead.decryptMany(wrong, sealed, aads));
                }
            }
        }
    }

    private static final GcmsivProvider PROVIDER = new GcmsivProvider();

    /** Runs the message through a JCA cipher in pieces: AAD in two, the text in three. */
    private static byte[] jca(Cipher c, byte[] aad, byte[] text) throws Exception {
        int a = aad.length / 2, t = text.length / 3;
        c.updateAAD(aad, 0, a);
        c.updateAAD(aad, a, aad.length - a);
        byte[] first = c.update(text, 0, t);
        check(first == null || first.length == 0, "update gives no output");
        c.update(text, t, t);
        return c.doFinal(text, 2 * t, text.length - 2 * t);
    }

    /** The JCA provider: every AES-GCM-SIV and AES-GCM vector it takes, SunJCE's AES/GCM, the rules. */
    static void provider(Path file) throws Exception {
        int seen = 0;
        for (String line : Files.readAllLines(file)) {
            String[] f = line.split(" ");
            int tagLength = Integer.parseInt(f[1]);
            boolean siv = Integer.parseInt(f[0]) <= 2, valid = f[2].equals("1");
            byte[] key = hex(f[3]), nonce = hex(f[4]), aad = hex(f[5]), pt = hex(f[6]);
            byte[] sealed = concat(hex(f[7]), hex(f[8]));
            if (tagLength < 12 || nonce.length == 0 || (siv && nonce.length != 12)) {
                continue;
            }
            Cipher c = Cipher.getInstance(siv ? "AES/GCM-SIV/NoPadding" : "AES/GCM/NoPadding", PROVIDER);
            SecretKeySpec k = new SecretKeySpec(key, "AES");
            GCMParameterSpec spec = new GCMParameterSpec(8 * tagLength, nonce);
            if (key.length == 24) {
                throwsA(java.security.InvalidKeyException.class, "AES-192 " + line, () -> c.init(Cipher.ENCRYPT_MODE, k, spec));
                continue;
            }
            seen++;
            if (valid) {
                c.init(Cipher.ENCRYPT_MODE, k, spec);
                check(Arrays.equals(jca(c, aad, pt), sealed), "JCA encrypt " + line);
                c.init(Cipher.DECRYPT_MODE, k, spec);
                check(Arrays.equals(jca(c, aad, sealed), pt), "JCA decrypt " + line);
                sealed[0] ^= 1;
            }
            c.init(Cipher.DECRYPT_MODE, k, spec);
            throwsA(AEADBadTagException.class, "JCA forgery " + line, () -> jca(c, aad, sealed));
        }
        check(seen > 300, "vectors through the provider: " + seen);

        // AES/GCM against SunJCE, whole and in pieces, into arrays at offsets and into ByteBuffers.
        Random rng = new Random(3);
        for (int n : new int[] {0, 1, 16, 17, 100, 2048, 2049, 70000}) {
            for (int keyLength : new int[] {16, 32}) {
                byte[] key = new byte[keyLength], iv = new byte[n % 3 == 0 ? 12 : 1 + n % 40], pt = new byte[n], aad = new byte[n % 29];
                rng.nextBytes(key);
                rng.nextBytes(iv);
                rng.nextBytes(pt);
                rng.nextBytes(aad);
                SecretKeySpec k = new SecretKeySpec(key, "AES");
                GCMParameterSpec spec = new GCMParameterSpec(n % 2 == 0 ? 128 : 104, iv);
                Cipher jdk = Cipher.getInstance("AES/GCM/NoPadding", "SunJCE");
                jdk.init(Cipher.ENCRYPT_MODE, k, spec);
                jdk.updateAAD(aad);
                byte[] want = jdk.doFinal(pt);
                Cipher ours = Cipher.getInstance("AES/GCM/NoPadding", PROVIDER);
                ours.init(Cipher.ENCRYPT_MODE, k, spec);
                check(ours.getOutputSize(n) == want.length, "output size " + n);
                check(Arrays.equals(jca(ours, aad, pt), want), "GCM against SunJCE " + n);
                throwsA(IllegalStateException.class, "GCM encryption needs a new IV", () -> ours.doFinal(pt));
                throwsA(java.security.InvalidAlgorithmParameterException.class, "GCM IV reuse", () -> ours.init(Cipher.ENCRYPT_MODE, k, spec));
                ours.init(Cipher.DECRYPT_MODE, k, spec);
                byte[] out = new byte[n + 7];
                ours.updateAAD(aad);
                check(ours.doFinal(want, 0, want.length, out, 5) == n, "doFinal count");
                check(Arrays.equals(Arrays.copyOfRange(out, 5, 5 + n), pt), "doFinal at an offset " + n);
                for (boolean direct : new boolean[] {false, true}) {
                    java.nio.ByteBuffer in = direct ? java.nio.ByteBuffer.allocateDirect(want.length) : java.nio.ByteBuffer.allocate(want.length);
                    in.put(want).flip();
                    java.nio.ByteBuffer dst = direct ? java.nio.ByteBuffer.allocateDirect(n) : java.nio.ByteBuffer.allocate(n);
                    ours.updateAAD(java.nio.ByteBuffer.wrap(aad));
                    check(ours.doFinal(in, dst) == n, "ByteBuffer count");
                    byte[] got = new byte[n];
                    dst.flip().get(got);
                    check(Arrays.equals(got, pt), "ByteBuffer decrypt " + direct + " " + n);
                }
                // AES-GCM-SIV: the same message and nonce, the same output, any number of times.
                Cipher sivC = Cipher.getInstance("AES-GCM-SIV", PROVIDER);
                GCMParameterSpec sivSpec = new GCMParameterSpec(128, Arrays.copyOf(iv, 12));
                sivC.init(Cipher.ENCRYPT_MODE, k, sivSpec);
                sivC.updateAAD(aad);
                byte[] once = sivC.doFinal(pt);
                sivC.updateAAD(aad);
                check(Arrays.equals(sivC.doFinal(pt), once), "GCM-SIV again under one nonce");
                try (AesGcmSiv direct = new AesGcmSiv(key)) {
                    check(Arrays.equals(direct.encrypt(Arrays.copyOf(iv, 12), pt, aad), once), "provider = Aead");
                }
                // A short output buffer: the message stays, and a retry works.
                sivC.init(Cipher.DECRYPT_MODE, k, sivSpec);
                sivC.updateAAD(aad);
                sivC.update(once, 0, once.length / 2);
                if (n > 0) {
                    throwsA(javax.crypto.ShortBufferException.class, "short output", () -> sivC.doFinal(once, once.length / 2, once.length - once.length / 2, new byte[n - 1], 0));
                }
                byte[] whole = new byte[n];
                check(sivC.doFinal(once, once.length / 2, once.length - once.length / 2, whole, 0) == n && Arrays.equals(whole, pt), "retry after a short buffer");
            }
        }

        // The rules.
        Cipher c = Cipher.getInstance("AES/GCM-SIV/NoPadding", PROVIDER);
        SecretKeySpec k = new SecretKeySpec(new byte[32], "AES");
        throwsA(java.security.InvalidKeyException.class, "24-byte key", () -> c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(new byte[24], "AES")));
        throwsA(java.security.InvalidKeyException.class, "not an AES key", () -> c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(new byte[16], "HmacSHA256")));
        throwsA(java.security.InvalidAlgorithmParameterException.class, "96-bit tag", () -> c.init(Cipher.ENCRYPT_MODE, k, new GCMParameterSpec(96, new byte[12])));
        throwsA(java.security.InvalidAlgorithmParameterException.class, "8-byte nonce", () -> c.init(Cipher.ENCRYPT_MODE, k, new GCMParameterSpec(128, new byte[8])));
        throwsA(java.security.InvalidKeyException.class, "decryption without a nonce", () -> c.init(Cipher.DECRYPT_MODE, k));
        throwsA(IllegalStateException.class, "not initialized", () -> Cipher.getInstance("AES-GCM-SIV", PROVIDER).doFinal(new byte[1]));
        c.init(Cipher.ENCRYPT_MODE, k); // a random nonce
        check(c.getIV().length == 12, "random nonce");
        byte[] sealed = c.doFinal("random nonce".getBytes());
        c.init(Cipher.DECRYPT_MODE, k, c.getParameters());
        check(new String(c.doFinal(sealed)).equals("random nonce"), "parameters round trip");
        c.init(Cipher.ENCRYPT_MODE, k, new IvParameterSpec(new byte[12]));
        c.update("all in ".getBytes());
        c.update("update".getBytes());
        byte[] viaUpdates = c.doFinal(); // no input at the end
        try (AesGcmSiv same = new AesGcmSiv(new byte[32])) {
            check(Arrays.equals(viaUpdates, same.encrypt(new byte[12], "all in update".getBytes(), null)), "doFinal() after updates");
        }
        c.init(Cipher.ENCRYPT_MODE, k, new IvParameterSpec(new byte[12]));
        c.update(new byte[3]);
        throwsA(IllegalStateException.class, "AAD after data", () -> c.updateAAD(new byte[1]));
        c.init(Cipher.DECRYPT_MODE, k, new GCMParameterSpec(128, new byte[12]));
        throwsA(AEADBadTagException.class, "shorter than a tag", () -> c.doFinal(new byte[15]));
        // Key wrapping: a secret key and a private key.
        java.security.KeyPair pair = java.security.KeyPairGenerator.getInstance("EC").generateKeyPair();
        SecretKeySpec secret = new SecretKeySpec(new SecureRandom().generateSeed(32), "HmacSHA256");
        GCMParameterSpec wrapSpec = new GCMParameterSpec(128, new byte[12]);
        c.init(Cipher.WRAP_MODE, k, wrapSpec);
        byte[] wrappedSecret = c.wrap(secret), wrappedPrivate = c.wrap(pair.getPrivate());
        c.init(Cipher.UNWRAP_MODE, k, wrapSpec);
        check(c.unwrap(wrappedSecret, "HmacSHA256", Cipher.SECRET_KEY).equals(secret), "unwrap a secret key");
        check(c.unwrap(wrappedPrivate, "EC", Cipher.PRIVATE_KEY).equals(pair.getPrivate()), "unwrap a private key");
        wrappedSecret[3] ^= 1;
        throwsA(java.security.InvalidKeyException.class, "unwrap a forgery", () -> c.unwrap(wrappedSecret, "HmacSHA256", Cipher.SECRET_KEY));
        java.security.KeyPair rsa = java.security.KeyPairGenerator.getInstance("RSA").generateKeyPair();
        c.init(Cipher.WRAP_MODE, k, wrapSpec);
        byte[] wrappedPublic = c.wrap(rsa.getPublic());
        c.init(Cipher.UNWRAP_MODE, k, wrapSpec);
        check(c.unwrap(wrappedPublic, "RSA", Cipher.PUBLIC_KEY).equals(rsa.getPublic()), "unwrap a public key");
        Cipher gcmWrap = Cipher.getInstance("AES/GCM/NoPadding", PROVIDER);
        gcmWrap.init(Cipher.WRAP_MODE, k, wrapSpec);
        gcmWrap.wrap(secret);
        throwsA(IllegalStateException.class, "AES-GCM wraps once per IV", () -> gcmWrap.wrap(secret));
        Cipher gcmInit = Cipher.getInstance("AES/GCM/NoPadding", PROVIDER);
        gcmInit.init(Cipher.ENCRYPT_MODE, k, wrapSpec);
        throwsA(java.security.InvalidAlgorithmParameterException.class, "AES-GCM IV reuse at init", () -> gcmInit.init(Cipher.ENCRYPT_MODE, k, wrapSpec));
        gcmInit.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(new byte[16], "AES"), wrapSpec); // another key: allowed
        // ByteBuffers: update buffers whatever the room, doFinal writes all; SunJCE's result.
        for (boolean direct : new boolean[] {false, true}) {
            byte[] pt = new byte[100];
            new Random(4).nextBytes(pt);
            Cipher jdk = Cipher.getInstance("AES/GCM/NoPadding", "SunJCE");
            jdk.init(Cipher.ENCRYPT_MODE, k, new GCMParameterSpec(128, new byte[] {1, 2, 3}));
            byte[] want = jdk.doFinal(pt);
            Cipher ours = Cipher.getInstance("AES/GCM/NoPadding", PROVIDER);
            ours.init(Cipher.ENCRYPT_MODE, k, new GCMParameterSpec(128, new byte[] {1, 2, 3}));
            java.nio.ByteBuffer src = direct ? java.nio.ByteBuffer.allocateDirect(100) : java.nio.ByteBuffer.allocate(100);
            src.put(pt).flip();
            java.nio.ByteBuffer none = java.nio.ByteBuffer.allocate(0);
            check(ours.update(src.slice(0, 40), none) == 0, "update into no room");
            java.nio.ByteBuffer dst = direct ? java.nio.ByteBuffer.allocateDirect(116) : java.nio.ByteBuffer.allocate(116);
            check(ours.doFinal(src.slice(40, 60), dst) == 116, "doFinal into a ByteBuffer");
            byte[] got = new byte[116];
            dst.flip().get(got);
            check(Arrays.equals(got, want), "encrypt into a ByteBuffer " + direct);
            ours.init(Cipher.DECRYPT_MODE, k, new GCMParameterSpec(128, new byte[] {1, 2, 3}));
            check(ours.update(java.nio.ByteBuffer.wrap(want, 0, 50), none) == 0, "decrypt update into no room");
        }
        // doFinal(ByteBuffer, ByteBuffer) without update: slices at offsets in their arrays.
        for (boolean direct : new boolean[] {false, true}) {
            byte[] pt = new byte[3000];
            new Random(5).nextBytes(pt);
            GCMParameterSpec spec = new GCMParameterSpec(128, new byte[12]);
            Cipher ours = Cipher.getInstance("AES/GCM-SIV/NoPadding", PROVIDER);
            ours.init(Cipher.ENCRYPT_MODE, k, spec);
            java.nio.ByteBuffer src = buffer(direct, pt.length + 9).position(9).slice();
            src.duplicate().put(pt);
            java.nio.ByteBuffer dst = buffer(direct, pt.length + 16 + 7).position(7).slice();
            ours.updateAAD(new byte[] {1, 2});
            check(ours.doFinal(src, dst) == pt.length + 16, "JCA ByteBuffer seal count");
            try (AesGcmSiv direct2 = new AesGcmSiv(new byte[32])) {
                check(Arrays.equals(bytes(dst, 0, pt.length + 16), direct2.encrypt(new byte[12], pt, new byte[] {1, 2})), "JCA ByteBuffer seal at offsets " + direct);
            }
            ours.init(Cipher.DECRYPT_MODE, k, spec);
            ours.updateAAD(new byte[] {1, 2});
            java.nio.ByteBuffer back = buffer(direct, pt.length + 5).position(5).slice();
            check(ours.doFinal(dst.flip(), back) == pt.length, "JCA ByteBuffer open count");
            check(Arrays.equals(bytes(back, 0, pt.length), pt), "JCA ByteBuffer open at offsets " + direct);
        }
        // Installed: found by name alone.
        java.security.Security.addProvider(PROVIDER);
        try {
            check(Cipher.getInstance("AES/GCM-SIV/NoPadding").getProvider() == PROVIDER, "installed provider");
        } finally {
            java.security.Security.removeProvider(GcmsivProvider.NAME);
        }
    }

    /**
     * No unauthenticated plaintext is ever visible to Java: another thread watches the output array
     * while forged messages long enough for the native side's large-message path are opened into
     * it.
     */
    static void noPlaintextSeen() throws Exception {
        int n = 4 << 20;
        byte[] pt = new byte[n];
        Arrays.fill(pt, (byte) 0x5A);
        for (Aead aead : new Aead[] {new AesGcmSiv(new byte[16]), new AesGcm(new byte[16])}) {
            try (aead) {
                // Sealed under other associated data: the keystream (from the tag, for
                // AES-GCM-SIV) is the right one, so the unauthenticated plaintext is the real one.
                byte[] forged = aead.encrypt(new byte[12], pt, new byte[] {1});
                byte[] out = new byte[n];
                java.nio.ByteBuffer directOut = java.nio.ByteBuffer.allocateDirect(n);
                java.nio.ByteBuffer directIn = java.nio.ByteBuffer.allocateDirect(forged.length);
                directIn.duplicate().put(forged);
                java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
                java.util.concurrent.atomic.AtomicLong seen = new java.util.concurrent.atomic.AtomicLong(), looks = new java.util.concurrent.atomic.AtomicLong();
                Thread spy = new Thread(() -> {
                    long s = 0, l = 0;
                    while (!done.get()) {
                        for (int i = 0; i < n; i += 4099, l++) {
                            if (out[i] == 0x5A || directOut.get(i) == 0x5A) {
                                s++;
                            }
                        }
                    }
                    seen.set(s);
                    looks.set(l);
                });
                spy.setDaemon(true);
                spy.start();
                try {
                    for (int round = 0; round < 8; round++) {
                        throwsA(AEADBadTagException.class, "forged " + round, () -> aead.decrypt(new byte[12], forged, 0, forged.length, null, out, 0));
                        throwsA(AEADBadTagException.class, "forged direct " + round, () -> aead.decrypt(new byte[12], directIn.duplicate(), null, directOut.duplicate()));
                    }
                } finally {
                    done.set(true);
                    spy.join();
                }
                check(looks.get() > 0 && seen.get() == 0, aead.getClass().getSimpleName() + ": plaintext seen " + seen.get() + " times in " + looks.get() + " looks");
            }
        }
    }

    static void misuse() throws Exception {
        throwsA(IllegalArgumentException.class, "24-byte key", () -> new AesGcmSiv(new byte[24]));
        throwsA(IllegalArgumentException.class, "11-byte tag", () -> new AesGcm(new byte[16], 11, Backend.AUTO));
        throwsA(NullPointerException.class, "null key", () -> new AesGcmSiv(null));
        AesGcmSiv aead = new AesGcmSiv(new byte[32]);
        throwsA(IllegalArgumentException.class, "11-byte nonce", () -> aead.encrypt(new byte[11], new byte[3], null));
        throwsA(AEADBadTagException.class, "short ciphertext", () -> aead.decrypt(new byte[12], new byte[15], null));
        throwsA(AEADBadTagException.class, "short ciphertext at an offset", () -> aead.decrypt(new byte[12], new byte[20], 2, 15, null, new byte[20], 0));
        throwsA(AEADBadTagException.class, "garbage", () -> aead.decrypt(new byte[12], new byte[40], null));
        byte[] sealed = aead.encrypt(new byte[12], "hello".getBytes(), null);
        check(new String(aead.decrypt(new byte[12], sealed, new byte[0])).equals("hello"), "null aad = empty");
        check(aead.tagLength() == 16, "tag length");
        check(List.of("portable", "aesni-clmul", "aesni-vaes", "armv8-aes-pmull").contains(aead.backend()), "backend " + aead.backend());
        for (Backend b : Backend.values()) {
            if (b == Backend.AUTO || !b.isAvailable()) {
                continue;
            }
            try (AesGcmSiv keyed = new AesGcmSiv(new byte[32], b)) {
                int bits = keyed.backendBits();
                List<Integer> widths = switch (keyed.backend()) {
                    case "portable" -> List.of(64);
                    case "aesni-clmul", "armv8-aes-pmull" -> List.of(128);
                    default -> List.of(256, 512);
                };
                check(widths.contains(bits), keyed.backend() + ": " + bits + "-bit");
                check(keyed.backendDescription().equals(keyed.backend() + " (" + bits + "-bit)"), keyed.backendDescription());
            }
        }
        throwsA(NullPointerException.class, "null nonce", () -> aead.encrypt(null, new byte[1], null));
        aead.close();
        aead.close();
        throwsA(IllegalStateException.class, "encrypt after close", () -> aead.encrypt(new byte[12], new byte[1], null));
        throwsA(IllegalStateException.class, "decrypt after close", () -> aead.decrypt(new byte[12], sealed, null));
        throwsA(IllegalStateException.class, "encryptMany after close", () -> aead.encryptMany(new byte[][] {new byte[12]}, new byte[][] {new byte[1]}, null));
        throwsA(IllegalStateException.class, "decryptMany after close", () -> aead.decryptMany(new byte[][] {new byte[12]}, new byte[][] {sealed}, null));
        throwsA(IllegalStateException.class, "backend after close", aead::backend);
        throwsA(IllegalStateException.class, "tag length after close", aead::tagLength);
        throwsA(IllegalStateException.class, "backend bits after close", aead::backendBits);
        throwsA(IllegalArgumentException.class, "negative tag length", () -> new AesGcm(new byte[16], -1, Backend.AUTO));
        try (AesGcm gcm = new AesGcm(new byte[16], 12, Backend.AUTO)) {
            byte[] s = gcm.encrypt(new byte[7], "seven".getBytes(), null);
            check(s.length == 5 + 12, "12-byte tags");
            check(new String(gcm.decrypt(new byte[7], s, null)).equals("seven"), "7-byte IV");
            throwsA(IllegalArgumentException.class, "empty IV", () -> gcm.encrypt(new byte[0], new byte[1], null));
        }
    }

    static void concurrent() throws Exception {
        AesGcmSiv aead = new AesGcmSiv(new SecureRandom().generateSeed(32));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            final byte id = (byte) t;
            done.add(pool.submit(() -> {
                byte[] nonce = new byte[12];
                nonce[0] = id;
                for (int i = 0; i < 300; i++) {
                    byte[] pt = new byte[i];
                    Arrays.fill(pt, id);
                    try {
                        if (!Arrays.equals(aead.decrypt(nonce, aead.encrypt(nonce, pt, null), null), pt)) {
                            throw new AssertionError("round trip under concurrency");
                        }
                    } catch (IllegalStateException closed) {
                        return null; // closed meanwhile: the one allowed failure
                    }
                }
                return null;
            }));
        }
        Thread.sleep(5);
        aead.close();
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
    }

    public static void main(String[] args) throws Exception {
        vectors(Path.of(args[0]));
        againstJdk();
        offsets();
        batches();
        provider(Path.of(args[0]));
        noPlaintextSeen();
        misuse();
        concurrent();
        System.out.println("Java binding: " + checks + " checks on " + backends().size() + " backends: ok");
    }
}
