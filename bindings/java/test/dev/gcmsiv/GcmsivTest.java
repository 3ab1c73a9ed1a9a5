package dev.gcmsiv;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
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
        for (Backend b : new Backend[] {Backend.PORTABLE, Backend.AESNI_CLMUL, Backend.AESNI_VAES}) {
            if (b.isAvailable()) {
                out.add(b);
            }
        }
        check(out.contains(Backend.PORTABLE), "portable is always available");
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

    static void misuse() throws Exception {
        throwsA(IllegalArgumentException.class, "24-byte key", () -> new AesGcmSiv(new byte[24]));
        throwsA(IllegalArgumentException.class, "11-byte tag", () -> new AesGcm(new byte[16], 11, Backend.AUTO));
        throwsA(NullPointerException.class, "null key", () -> new AesGcmSiv(null));
        AesGcmSiv aead = new AesGcmSiv(new byte[32]);
        throwsA(IllegalArgumentException.class, "11-byte nonce", () -> aead.encrypt(new byte[11], new byte[3], null));
        throwsA(IllegalArgumentException.class, "short ciphertext", () -> aead.decrypt(new byte[12], new byte[15], null));
        throwsA(AEADBadTagException.class, "garbage", () -> aead.decrypt(new byte[12], new byte[40], null));
        byte[] sealed = aead.encrypt(new byte[12], "hello".getBytes(), null);
        check(new String(aead.decrypt(new byte[12], sealed, new byte[0])).equals("hello"), "null aad = empty");
        check(aead.tagLength() == 16, "tag length");
        check(List.of("portable", "aesni-clmul", "aesni-vaes").contains(aead.backend()), "backend " + aead.backend());
        throwsA(NullPointerException.class, "null nonce", () -> aead.encrypt(null, new byte[1], null));
        aead.close();
        aead.close();
        throwsA(IllegalStateException.class, "encrypt after close", () -> aead.encrypt(new byte[12], new byte[1], null));
        throwsA(IllegalStateException.class, "decrypt after close", () -> aead.decrypt(new byte[12], sealed, null));
        throwsA(IllegalStateException.class, "backend after close", aead::backend);
        throwsA(IllegalStateException.class, "tag length after close", aead::tagLength);
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
        misuse();
        concurrent();
        System.out.println("Java binding: " + checks + " checks on " + backends().size() + " backends: ok");
    }
}
