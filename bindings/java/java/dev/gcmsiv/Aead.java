package dev.gcmsiv;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import javax.crypto.AEADBadTagException;

/**
 * A key of one AEAD algorithm, safe for use from many threads at once. {@link #close()} frees
 * it (zeroizing the key material) at once; otherwise a {@link Cleaner} does after it becomes
 * unreachable.
 */
public abstract sealed class Aead implements AutoCloseable permits AesGcmSiv, AesGcm {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final byte[] EMPTY = new byte[0];

    /**
     * The native handle, in a box the cleaner can free without reaching this object. Calls hold
     * its read lock; freeing (by close or by the cleaner) takes the write lock, so it waits for
     * calls in flight.
     */
    private static final class Handle implements Runnable {
        final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        long value;

        Handle(long value) {
            this.value = value;
        }

        @Override
        public void run() {
            lock.writeLock().lock();
            try {
                if (value != 0) {
                    Native.freeKey(value);
                    value = 0;
                }
            } finally {
                lock.writeLock().unlock();
            }
        }
    }

    private final Handle handle;
    private final Cleaner.Cleanable cleanable;
    private final int tagLength;

    Aead(int algorithm, byte[] key, int tagLength, Backend backend) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(backend, "backend");
        this.handle = new Handle(Native.newKey(algorithm, key, tagLength, backend.ordinal()));
        this.cleanable = CLEANER.register(this, handle);
        this.tagLength = Native.tagLength(handle.value);
    }

    private long live() {
        long h = handle.value;
        if (h == 0) {
            throw new IllegalStateException("gcmsiv: the key was closed");
        }
        return h;
    }

    /** The backend the key runs on: one of {@link Backend#names()} ("portable", "aesni-clmul", ...). */
    public String backend() {
        handle.lock.readLock().lock();
        try {
            return Native.backend(live());
        } finally {
            handle.lock.readLock().unlock();
            Reference.reachabilityFence(this);
        }
    }

    /**
     * The widest vector registers the key's backend uses on this CPU: 64 (portable), 128
     * (aesni-clmul), 256 or 512 (aesni-vaes: 512 where the CPU has AVX-512 at full clock).
     */
    public int backendBits() {
        handle.lock.readLock().lock();
        try {
            return Native.backendBits(live());
        } finally {
            handle.lock.readLock().unlock();
            Reference.reachabilityFence(this);
        }
    }

    /** The backend with its width, as {@code "aesni-vaes (512-bit)"}. */
    public String backendDescription() {
        return backend() + " (" + backendBits() + "-bit)";
    }

    /** Bytes the tag adds to each message. */
    public int tagLength() {
        handle.lock.readLock().lock();
        try {
            return Native.tagLength(live());
        } finally {
            handle.lock.readLock().unlock();
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Encrypts and authenticates {@code plaintext} and {@code aad} (may be null: empty), returning
     * ciphertext || tag in a new array. Wrong lengths and inputs over the limits throw
     * IllegalArgumentException before any work.
     */
    public byte[] encrypt(byte[] nonce, byte[] plaintext, byte[] aad) {
        Objects.requireNonNull(plaintext, "plaintext");
        byte[] out = new byte[Math.addExact(plaintext.length, tagLength)];
        encrypt(nonce, plaintext, 0, plaintext.length, aad, out, 0);
        return out;
    }

    /**
     * Encrypts {@code in[inOffset, inOffset + length)} and writes ciphertext || tag ({@code length
     * + tagLength()} bytes) at {@code out[outOffset..]}, returning that count. {@code out} may be
     * {@code in}, the ranges overlapping in any way (in place: {@code outOffset == inOffset}, with
     * room for the tag).
     *
     * @throws IndexOutOfBoundsException if a range does not fit its array
     */
    public int encrypt(byte[] nonce, byte[] in, int inOffset, int length, byte[] aad, byte[] out, int outOffset) {
        return encrypt(nonce, aad, aad == null ? 0 : aad.length, in, inOffset, length, out, outOffset);
    }

    /** {@link #encrypt(byte[], byte[], int, int, byte[], byte[], int)} with aad[0, aadLength). */
    int encrypt(byte[] nonce, byte[] aad, int aadLength, byte[] in, int inOffset, int length, byte[] out, int outOffset) {
        Objects.requireNonNull(nonce, "nonce");
        Objects.checkFromIndexSize(0, aadLength, aad == null ? 0 : aad.length);
        Objects.checkFromIndexSize(inOffset, length, in.length);
        int written = Math.addExact(length, tagLength);
        Objects.checkFromIndexSize(outOffset, written, out.length);
        handle.lock.readLock().lock();
        try {
            Native.seal(live(), nonce, nonce.length, aad, aadLength, in, inOffset, length, out, outOffset);
        } finally {
            handle.lock.readLock().unlock();
            Reference.reachabilityFence(this);
        }
        return written;
    }

    /**
     * Returns the plaintext of ciphertext || tag in a new array.
     *
     * @throws AEADBadTagException if it is not authentic (wrong key, nonce, data or tag, or shorter
     *     than a tag); no plaintext is released
     */
    public byte[] decrypt(byte[] nonce, byte[] sealed, byte[] aad) throws AEADBadTagException {
        Objects.requireNonNull(sealed, "sealed");
        byte[] out = new byte[Math.max(0, sealed.length - tagLength)];
        decrypt(nonce, sealed, 0, sealed.length, aad, out, 0);
        return out;
    }

    /**
     * Opens ciphertext || tag ({@code length} bytes at {@code in[inOffset..]}) and writes the
     * plaintext ({@code length - tagLength()} bytes) at {@code out[outOffset..]}, returning that
     * count. {@code out} may be {@code in}, the ranges overlapping in any way.
     *
     * @throws AEADBadTagException if it is not authentic (or shorter than a tag); the output range
     *     then holds zeroes, or the ciphertext again where it is the ciphertext's own range. The
     *     decryption runs in native memory: no other thread sees plaintext before the tag is
     *     checked.
     * @throws IndexOutOfBoundsException if a range does not fit its array
     */
    public int decrypt(byte[] nonce, byte[] in, int inOffset, int length, byte[] aad, byte[] out, int outOffset)
            throws AEADBadTagException {
        return decrypt(nonce, aad, aad == null ? 0 : aad.length, in, inOffset, length, out, outOffset);
    }

    /** {@link #decrypt(byte[], byte[], int, int, byte[], byte[], int)} with aad[0, aadLength). */
    int decrypt(byte[] nonce, byte[] aad, int aadLength, byte[] in, int inOffset, int length, byte[] out, int outOffset)
            throws AEADBadTagException {
        Objects.requireNonNull(nonce, "nonce");
        Objects.checkFromIndexSize(0, aadLength, aad == null ? 0 : aad.length);
        Objects.checkFromIndexSize(inOffset, length, in.length);
        int written = Math.max(0, length - tagLength); // a shorter input is refused natively
        Objects.checkFromIndexSize(outOffset, written, out.length);
        handle.lock.readLock().lock();
        try {
            Native.open(live(), nonce, nonce.length, aad, aadLength, in, inOffset, length, out, outOffset);
        } finally {
            handle.lock.readLock().unlock();
            Reference.reachabilityFence(this);
        }
        return written;
    }

    /**
     * Encrypts the plaintext's remaining bytes and writes ciphertext || tag at the output's
     * position, advancing both buffers' positions (the input's to its limit); returns the bytes
     * written. Direct buffers are sealed in place in their memory, without a copy; the two may
     * share memory, in any overlap, but may not be the same object (use {@code duplicate()}, as
     * for {@code Cipher.doFinal}). On any exception neither position moves.
     *
     * @throws java.nio.BufferOverflowException if the output has fewer than {@code
     *     plaintext.remaining() + tagLength()} bytes remaining
     * @throws java.nio.ReadOnlyBufferException if the output is read-only
     */
    public int encrypt(byte[] nonce, ByteBuffer plaintext, byte[] aad, ByteBuffer out) {
        try {
            return crypt(true, nonce, aad, aad == null ? 0 : aad.length, plaintext, out);
        } catch (AEADBadTagException e) {
            throw new IllegalStateException("gcmsiv: internal error: a seal failed to authenticate", e);
        }
    }

    /**
     * Decrypts ciphertext || tag, the input's remaining bytes, writing the plaintext at the
     * output's position, as {@link #encrypt(byte[], ByteBuffer, byte[], ByteBuffer)}. The
     * decryption runs in native memory and only an authentic plaintext is written.
     *
     * @throws AEADBadTagException if it is not authentic (or shorter than a tag); neither position
     *     moves, and the output's range holds zeroes (or, sharing the input's memory at the same
     *     place, the ciphertext; overlapping it elsewhere, the zeroes overwrite part of it)
     */
    public int decrypt(byte[] nonce, ByteBuffer sealed, byte[] aad, ByteBuffer out) throws AEADBadTagException {
        return crypt(false, nonce, aad, aad == null ? 0 : aad.length, sealed, out);
    }

    /** The ByteBuffer calls, with aad[0, aadLength): direct, heap or a mix. */
    int crypt(boolean seal, byte[] nonce, byte[] aad, int aadLength, ByteBuffer in, ByteBuffer out)
            throws AEADBadTagException {
        Objects.requireNonNull(nonce, "nonce");
        Objects.checkFromIndexSize(0, aadLength, aad == null ? 0 : aad.length);
        if (in == out) {
            throw new IllegalArgumentException("gcmsiv: the input and output are one buffer object (use duplicate())");
        }
        if (out.isReadOnly()) {
            throw new java.nio.ReadOnlyBufferException();
        }
        int length = in.remaining();
        int written = seal ? Math.addExact(length, tagLength) : Math.max(0, length - tagLength);
        if (out.remaining() < written) {
            throw new java.nio.BufferOverflowException();
        }
        if (in.isDirect() && out.isDirect()) {
            handle.lock.readLock().lock();
            try {
                long h = live();
                if (seal) {
                    Native.sealDirect(h, nonce, nonce.length, aad, aadLength, in, in.position(), length, out, out.position());
                } else {
                    Native.openDirect(h, nonce, nonce.length, aad, aadLength, in, in.position(), length, out, out.position());
                }
            } finally {
                handle.lock.readLock().unlock();
                Reference.reachabilityFence(this);
                Reference.reachabilityFence(in);
                Reference.reachabilityFence(out);
            }
        } else if (in.hasArray() && out.hasArray()) {
            byte[] src = in.array(), dst = out.array();
            int from = in.arrayOffset() + in.position(), to = out.arrayOffset() + out.position();
            if (seal) {
                encrypt(nonce, aad, aadLength, src, from, length, dst, to);
            } else {
                decrypt(nonce, aad, aadLength, src, from, length, dst, to);
            }
        } else { // a mix, or a read-only heap input: through arrays of our own
            byte[] src = new byte[length], dst = new byte[written];
            in.duplicate().get(src);
            try {
                if (seal) {
                    encrypt(nonce, aad, aadLength, src, 0, length, dst, 0);
                } else {
                    try {
                        decrypt(nonce, aad, aadLength, src, 0, length, dst, 0);
                    } catch (AEADBadTagException e) {
                        out.duplicate().put(dst); // zeroes, as the other paths leave
                        throw e;
                    }
                }
                out.duplicate().put(dst);
            } finally {
                Arrays.fill(src, (byte) 0);
                Arrays.fill(dst, (byte) 0);
            }
        }
        in.position(in.limit());
        out.position(out.position() + written);
        return written;
    }

    /** The nonce in front of every message the random-nonce calls seal: 12 bytes. */
    public static final int RANDOM_NONCE_LENGTH = 12;

    /**
     * Encrypts under a fresh random nonce from the operating system and returns nonce ||
     * ciphertext || tag (28 bytes more than the plaintext with 16-byte tags), so that the caller
     * never handles a nonce. With AES-GCM-SIV this is safe far past AES-GCM's 2^32 messages per key
     * (RFC 8452 section 9; see the README). {@code aad} may be null (empty).
     */
    public byte[] encryptRandomNonce(byte[] plaintext, byte[] aad) {
        Objects.requireNonNull(plaintext, "plaintext");
        byte[] nonce = new byte[RANDOM_NONCE_LENGTH];
        NativeStream.randomBytes(nonce);
        byte[] out = new byte[Math.addExact(RANDOM_NONCE_LENGTH + plaintext.length, tagLength)];
        System.arraycopy(nonce, 0, out, 0, RANDOM_NONCE_LENGTH);
        encrypt(nonce, aad, aad == null ? 0 : aad.length, plaintext, 0, plaintext.length, out, RANDOM_NONCE_LENGTH);
        return out;
    }

    /**
     * Decrypts what {@link #encryptRandomNonce} returned.
     *
     * @throws AEADBadTagException if it is not authentic, or shorter than a nonce and a tag; no
     *     plaintext is released
     */
    public byte[] decryptRandomNonce(byte[] sealed, byte[] aad) throws AEADBadTagException {
        Objects.requireNonNull(sealed, "sealed");
        if (sealed.length < RANDOM_NONCE_LENGTH + tagLength) {
            throw new AEADBadTagException("authentication failed");
        }
        byte[] nonce = Arrays.copyOf(sealed, RANDOM_NONCE_LENGTH);
        byte[] out = new byte[sealed.length - RANDOM_NONCE_LENGTH - tagLength];
        decrypt(nonce, aad, aad == null ? 0 : aad.length, sealed, RANDOM_NONCE_LENGTH,
                sealed.length - RANDOM_NONCE_LENGTH, out, 0);
        return out;
    }

    /**
     * {@link #encryptRandomNonce} for many messages in one call ({@code aads} and its entries may
     * be null): the nonces come from one request to the operating system, and AES-GCM-SIV keys run
     * the batch path of {@link #encryptMany}.
     */
    public byte[][] encryptRandomNonceMany(byte[][] plaintexts, byte[][] aads) {
        int n = plaintexts.length;
        byte[] drawn = new byte[Math.multiplyExact(n, RANDOM_NONCE_LENGTH)];
        NativeStream.randomBytes(drawn);
        byte[][] nonces = new byte[n][];
        for (int i = 0; i < n; i++) {
            nonces[i] = Arrays.copyOfRange(drawn, i * RANDOM_NONCE_LENGTH, (i + 1) * RANDOM_NONCE_LENGTH);
        }
        byte[][] sealed = encryptMany(nonces, plaintexts, aads);
        for (int i = 0; i < n; i++) {
            byte[] out = new byte[RANDOM_NONCE_LENGTH + sealed[i].length];
            System.arraycopy(nonces[i], 0, out, 0, RANDOM_NONCE_LENGTH);
            System.arraycopy(sealed[i], 0, out, RANDOM_NONCE_LENGTH, sealed[i].length);
            sealed[i] = out;
        }
        return sealed;
    }

    /**
     * {@link #decryptRandomNonce} for many messages: each entry the plaintext, or null where that
     * message was not authentic (one shorter than a nonce and a tag included).
     */
    public byte[][] decryptRandomNonceMany(byte[][] sealed, byte[][] aads) {
        int n = sealed.length;
        if (aads != null && aads.length != n) {
            throw new IllegalArgumentException("gcmsiv: sealed messages and aads differ in count");
        }
        byte[][] nonces = new byte[n][];
        byte[][] bodies = new byte[n][];
        for (int i = 0; i < n; i++) {
            byte[] s = Objects.requireNonNull(sealed[i], "sealed");
            // Too short: an empty body, which decryptMany reports as not authentic (shorter
            // than a tag) without any work.
            boolean whole = s.length >= RANDOM_NONCE_LENGTH + tagLength;
            nonces[i] = whole ? Arrays.copyOf(s, RANDOM_NONCE_LENGTH) : new byte[RANDOM_NONCE_LENGTH];
            bodies[i] = whole ? Arrays.copyOfRange(s, RANDOM_NONCE_LENGTH, s.length) : EMPTY;
        }
        return decryptMany(nonces, bodies, aads);
    }

    /** Bytes of items packed into one native call of a batch (a larger item goes alone). */
    private static final int ARENA_MAX = 64 * 1024;

    /**
     * Encrypts many messages in one call, each with its own nonce and associated data ({@code
     * aads} may be null, as may its entries: empty), returning ciphertext || tag for each. For
     * AES-GCM-SIV this is the core's batch path, which runs the per-message set-up of several
     * messages side by side: short messages cost about half as much as one call each. Misuse in
     * any item throws before any item is sealed.
     */
    public byte[][] encryptMany(byte[][] nonces, byte[][] plaintexts, byte[][] aads) {
        return many(nonces, plaintexts, aads, true, null);
    }

    /**
     * Decrypts many messages in one call: each entry is the plaintext of ciphertext || tag, or null
     * where that message was not authentic, including one shorter than a tag (the others are not
     * affected). Misuse in any item (a wrong nonce length) throws before any work.
     */
    public byte[][] decryptMany(byte[][] nonces, byte[][] sealed, byte[][] aads) {
        boolean[] ok = new boolean[sealed.length];
        byte[][] out = many(nonces, sealed, aads, false, ok);
        for (int i = 0; i < out.length; i++) {
            if (!ok[i]) {
                out[i] = null;
            }
        }
        return out;
    }

    /**
     * Packs the items into arenas of up to {@link #ARENA_MAX} bytes (nonce, aad, body, tag each),
     * runs each arena in one native call, and copies the results out. Every item is checked
     * before the first call, so misuse throws with nothing done. Opening, an item shorter than a
     * tag is not authentic: it stays null and goes to no call.
     */
    private byte[][] many(byte[][] nonces, byte[][] texts, byte[][] aads, boolean seal, boolean[] ok) {
        // The caller's outer arrays copied once: entries replaced meanwhile change nothing here.
        nonces = nonces.clone();
        texts = texts.clone();
        aads = aads == null ? new byte[texts.length][] : aads.clone();
        int n = texts.length;
        if (nonces.length != n || aads.length != n) {
            throw new IllegalArgumentException("gcmsiv: nonces, texts and aads differ in count");
        }
        int[] items = new int[n]; // the items that go to the native calls
        int count = 0;
        for (int i = 0; i < n; i++) {
            Objects.requireNonNull(nonces[i], "nonce");
            Objects.requireNonNull(texts[i], "text");
            if (aads[i] == null) {
                aads[i] = EMPTY;
            }
            if (seal || texts[i].length >= tagLength) {
                items[count++] = i;
            }
        }
        // Per item: nonce, aad and body lengths; and its bytes in an arena.
        int[] layout = new int[3 * count];
        long[] sizes = new long[count];
        long total = 0;
        for (int k = 0; k < count; k++) {
            int i = items[k];
            layout[3 * k] = nonces[i].length;
            layout[3 * k + 1] = aads[i].length;
            layout[3 * k + 2] = texts[i].length - (seal ? 0 : tagLength);
            sizes[k] = (long) nonces[i].length + aads[i].length + layout[3 * k + 2] + tagLength;
            if (sizes[k] > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("gcmsiv: item " + i + " is too long");
            }
            total += sizes[k];
        }
        byte[][] out = new byte[n][];
        handle.lock.readLock().lock();
        try {
            long h = live();
            if (total > ARENA_MAX && count > 1) {
                // Several arenas: every item's lengths checked (natively, as a call checks
                // them) before the first runs; one arena's call checks its own items first.
                Native.checkMany(h, layout, count, seal);
            }
            for (int start = 0; start < count; ) {
                int end = start;
                long bytes = 0;
                while (end < count && (end == start || bytes + sizes[end] <= ARENA_MAX)) {
                    bytes += sizes[end++];
                }
                run(h, items, layout, texts, nonces, aads, seal, ok, out, start, end, (int) bytes);
                start = end;
            }
        } finally {
            handle.lock.readLock().unlock();
            Reference.reachabilityFence(this);
        }
        return out;
    }

    /**
     * Items {@code items[start, end)} packed into one arena of {@code bytes} bytes, and one native
     * call; the arena, which holds plaintext, is wiped after.
     */
    private void run(
            long h, int[] items, int[] lengths, byte[][] texts, byte[][] nonces, byte[][] aads, boolean seal,
            boolean[] ok, byte[][] out, int start, int end, int bytes) {
        int count = end - start;
        byte[] arena = new byte[bytes];
        try {
            int[] layout = Arrays.copyOfRange(lengths, 3 * start, 3 * end);
            int[] body = new int[count];
            int at = 0;
            for (int k = start; k < end; k++) {
                int i = items[k];
                System.arraycopy(nonces[i], 0, arena, at, nonces[i].length);
                at += nonces[i].length;
                System.arraycopy(aads[i], 0, arena, at, aads[i].length);
                at += aads[i].length;
                body[k - start] = at;
                System.arraycopy(texts[i], 0, arena, at, texts[i].length);
                at += lengths[3 * k + 2] + tagLength;
            }
            if (seal) {
                Native.sealMany(h, arena, layout, count);
                for (int k = start; k < end; k++) {
                    int b = body[k - start];
                    out[items[k]] = Arrays.copyOfRange(arena, b, b + lengths[3 * k + 2] + tagLength);
                }
            } else {
                byte[] flags = new byte[count];
                Native.openMany(h, arena, layout, count, flags);
                for (int k = start; k < end; k++) {
                    int b = body[k - start], i = items[k];
                    ok[i] = flags[k - start] == 1;
                    out[i] = ok[i] ? Arrays.copyOfRange(arena, b, b + lengths[3 * k + 2]) : null;
                }
            }
        } finally {
            Arrays.fill(arena, (byte) 0);
        }
    }

    /**
     * Frees the key now (zeroized), after any calls in flight; later calls throw
     * IllegalStateException.
     */
    @Override
    public void close() {
        cleanable.clean();
    }
}
