package dev.gcmsiv;

import java.util.Objects;

/**
 * How a {@link GcmsivOutputStream} lays out a new file: the algorithm, the chunk size and, for a
 * passphrase, the Argon2id cost. Immutable; each {@code with} returns a new value. The format's
 * limits are checked when a stream is made ({@code IllegalArgumentException}).
 */
public final class FileOptions {
    /** The AEAD of a file's chunks. */
    public enum Algorithm {
        /** AEAD_AES_128_GCM_SIV. */
        AES_128_GCM_SIV(128),
        /** AEAD_AES_256_GCM_SIV: the default. */
        AES_256_GCM_SIV(256);

        final int bits;

        Algorithm(int bits) {
            this.bits = bits;
        }
    }

    /** AES-256-GCM-SIV, 64 KiB chunks, Argon2id at RFC 9106's second recommendation (64 MiB, 3, 4). */
    public static final FileOptions DEFAULT = new FileOptions(Algorithm.AES_256_GCM_SIV, 65536, 65536, 3, 4);

    final Algorithm algorithm;
    final int chunkSize;
    final int memoryKib;
    final int iterations;
    final int lanes;

    private FileOptions(Algorithm algorithm, int chunkSize, int memoryKib, int iterations, int lanes) {
        this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        this.chunkSize = chunkSize;
        this.memoryKib = memoryKib;
        this.iterations = iterations;
        this.lanes = lanes;
    }

    /** The default options. */
    public static FileOptions defaults() {
        return DEFAULT;
    }

    /** The chunks' AEAD. */
    public FileOptions withAlgorithm(Algorithm algorithm) {
        return new FileOptions(algorithm, chunkSize, memoryKib, iterations, lanes);
    }

    /** Plaintext bytes per chunk: a power of two from 1 KiB to 1 MiB. */
    public FileOptions withChunkSize(int bytes) {
        return new FileOptions(algorithm, bytes, memoryKib, iterations, lanes);
    }

    /** The Argon2id cost recorded for a passphrase (at most 1 GiB, 16 passes, 16 lanes). */
    public FileOptions withArgon2(int memoryKib, int iterations, int lanes) {
        return new FileOptions(algorithm, chunkSize, memoryKib, iterations, lanes);
    }

    /** Plaintext bytes per chunk. */
    public int chunkSize() {
        return chunkSize;
    }

    /** The chunks' AEAD. */
    public Algorithm algorithm() {
        return algorithm;
    }

    @Override
    public String toString() {
        return "FileOptions(" + algorithm + ", chunk " + chunkSize + ", Argon2id " + memoryKib + " KiB, "
                + iterations + " passes, " + lanes + " lanes)";
    }
}
