package dev.gcmsiv;

import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Sealing speed against the JDK's AES/GCM/NoPadding per message size, interleaved rounds,
 * medians of ns per message (after warm-up; encryptMany: 64 messages a call, per message). Run as scripts/test-java.sh builds it, with the
 * class dev.gcmsiv.Bench.
 */
public final class Bench {
    /** Messages per encryptMany call. */
    private static final int BATCH = 64;

    private interface Seal {
        byte[] run(byte[] pt) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        byte[] key = new byte[16], nonce = new byte[12];
        AesGcmSiv siv = new AesGcmSiv(key);
        AesGcm gcm = new AesGcm(key);
        Cipher jdk = Cipher.getInstance("AES/GCM/NoPadding");
        SecretKeySpec spec = new SecretKeySpec(key, "AES");
        String[] names = {
            "gcmsiv AES-GCM-SIV", "gcmsiv AES-GCM-SIV encryptMany", "gcmsiv AES-GCM", "JDK AES-GCM",
            "gcmsiv AES-GCM through JCA"
        };
        Cipher viaJca = Cipher.getInstance("AES/GCM/NoPadding", new GcmsivProvider());
        byte[] jcaNonce = new byte[12];
        byte[][] nonces = new byte[BATCH][12];
        byte[][] batch = new byte[BATCH][];
        Seal[] impls = {
            pt -> siv.encrypt(nonce, pt, null),
            pt -> {
                // BATCH messages per call, counted as BATCH calls (see the loop below).
                Arrays.fill(batch, pt);
                return siv.encryptMany(nonces, batch, null)[0];
            },
            pt -> gcm.encrypt(nonce, pt, null),
            pt -> {
                // A fresh nonce per message, as the JDK requires for GCM encryption.
                nonce[0]++;
                jdk.init(Cipher.ENCRYPT_MODE, spec, new GCMParameterSpec(128, nonce));
                return jdk.doFinal(pt);
            },
            pt -> {
                jcaNonce[0]++;
                viaJca.init(Cipher.ENCRYPT_MODE, spec, new GCMParameterSpec(128, jcaNonce));
                return viaJca.doFinal(pt);
            },
        };
        System.out.println("| bytes | " + String.join(" ns | ", names) + " ns | gcmsiv AES-GCM vs JDK | through JCA vs JDK |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (int size : new int[] {16, 64, 1024, 16384, 1 << 20}) {
            byte[] pt = new byte[size];
            int iters = Math.max(1, 4_000_000 / (size + 500));
            // Warm-up: each contender for about 0.3 s, so that the JIT has compiled every path
            // (a batch call runs 64 times fewer than a single one in the same time).
            for (Seal impl : impls) {
                for (long end = System.nanoTime() + 300_000_000L; System.nanoTime() < end; ) {
                    impl.run(pt);
                }
            }
            double[][] samples = new double[impls.length][21];
            for (int round = -10; round < 21; round++) {
                for (int k = 0; k < impls.length; k++) {
                    int per = k == 1 ? BATCH : 1;
                    int calls = Math.max(1, iters / per);
                    long t = System.nanoTime();
                    for (int i = 0; i < calls; i++) {
                        impls[k].run(pt);
                    }
                    if (round >= 0) {
                        samples[k][round] = (System.nanoTime() - t) / (double) (calls * per);
                    }
                }
            }
            double[] med = new double[impls.length];
            StringBuilder row = new StringBuilder("| " + size);
            for (int k = 0; k < impls.length; k++) {
                java.util.Arrays.sort(samples[k]);
                med[k] = samples[k][10];
                row.append(String.format(" | %.0f", med[k]));
            }
            System.out.println(row + String.format(" | %.2fx | %.2fx |", med[3] / med[2], med[3] / med[4]));
        }
        siv.close();
        gcm.close();
    }
}
