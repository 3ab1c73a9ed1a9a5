package dev.gcmsiv;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Streaming throughput through the Java binding, beside the Rust library's
 * (crates/gcmsiv-stream/examples/memory_throughput.rs, the same shape): MIB MiB (default 256) of
 * plaintext in memory through GcmsivOutputStream (written in 1 MiB pieces) and GcmsivInputStream
 * (read in 1 MiB pieces), 64 KiB chunks, AES-256-GCM-SIV; best of 3. Then one 64 KiB read at an
 * aligned offset through GcmsivChannel, with the bytes it read.
 *
 * <pre>java -Dgcmsiv.library=... -cp classes dev.gcmsiv.StreamBench [MIB]</pre>
 */
public final class StreamBench {
    private StreamBench() {}

    public static void main(String[] args) throws Exception {
        int mib = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        byte[] plaintext = new byte[mib << 20];
        Arrays.fill(plaintext, (byte) 0x5a);
        byte[] key = new byte[32];
        Arrays.fill(key, (byte) 7);
        double[] best = {Double.MAX_VALUE, Double.MAX_VALUE};
        byte[] file = null;
        try (FileSecret secret = FileSecret.ofKey(key)) {
            for (int round = 0; round < 3; round++) {
                long start = System.nanoTime();
                ByteArrayOutputStream sink = new ByteArrayOutputStream(plaintext.length + (plaintext.length >> 10) + 4096);
                try (OutputStream out = new GcmsivOutputStream(sink, secret)) {
                    for (int at = 0; at < plaintext.length; at += 1 << 20) {
                        out.write(plaintext, at, Math.min(1 << 20, plaintext.length - at));
                    }
                }
                best[0] = Math.min(best[0], (System.nanoTime() - start) / 1e9);
                file = sink.toByteArray();
                start = System.nanoTime();
                long total = 0;
                try (InputStream in = new GcmsivInputStream(new ByteArrayInputStream(file), secret)) {
                    byte[] buf = new byte[1 << 20];
                    int n;
                    while ((n = in.read(buf)) != -1) {
                        total += n;
                    }
                }
                best[1] = Math.min(best[1], (System.nanoTime() - start) / 1e9);
                if (total != plaintext.length) {
                    throw new AssertionError("round trip");
                }
            }
            double mb = plaintext.length / 1e6;
            System.out.printf("java GcmsivOutputStream: %.0f MB/s, GcmsivInputStream: %.0f MB/s (%d MiB in memory, best of 3)%n",
                    mb / best[0], mb / best[1], mib);
            long[] read = new long[1];
            try (GcmsivChannel ch = GcmsivChannel.open(StreamTest.memory(file, read), secret)) {
                long opened = read[0];
                // One 64 KiB-aligned read at each of 9 offsets: the fastest, and the bytes read each.
                long chunks = ch.size() / 65536;
                double fastest = Double.MAX_VALUE;
                long before = read[0];
                ByteBuffer buf = ByteBuffer.allocate(65536);
                for (int k = 1; k <= 9; k++) {
                    long at = chunks * k / 10 * 65536;
                    long start = System.nanoTime();
                    ch.position(at).read(buf.clear());
                    fastest = Math.min(fastest, (System.nanoTime() - start) / 1e3);
                }
                System.out.printf("java GcmsivChannel: a 64 KiB-aligned read: %.0f us (fastest of 9), %d bytes read each"
                        + " (opening read %d)%n", fastest, (read[0] - before) / 9, opened);
            }
        }
    }
}
