package dev.gcmsiv;

import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
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

    Aead(int algorithm, byte[] key, int tagLength, Backend backend) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(backend, "backend");
        this.handle = new Handle(Native.newKey(algorithm, key, tagLength, backend.ordinal()));
        this.cleanable = CLEANER.register(this, handle);
    }

    private long live() {
        long h = handle.value;
        if (h == 0) {
            throw new IllegalStateException("gcmsiv: the key was closed");
        }
        return h;
    }

    /** The backend the key runs on: "portable", "aesni-clmul" or "aesni-vaes". */
    public String backend() {
        handle.lock.readLock().lock();
        try {
            return Native.backend(live());
        } finally {
            handle.lock.readLock().unlock();
            Reference.reachabilityFence(this);
        }
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
        Objects.requireNonNull(nonce, "nonce");
        Objects.requireNonNull(plaintext, "plaintext");
        handle.lock.readLock().lock();
        try {
            return Native.seal(live(), nonce, plaintext, aad == null ? EMPTY : aad);
        } finally {
            handle.lock.readLock().unlock();
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Returns the plaintext of ciphertext || tag in a new array.
     *
     * @throws AEADBadTagException if it is not authentic (wrong key, nonce, data or tag); no
     *     plaintext is released
     */
    public byte[] decrypt(byte[] nonce, byte[] sealed, byte[] aad) throws AEADBadTagException {
        Objects.requireNonNull(nonce, "nonce");
        Objects.requireNonNull(sealed, "sealed");
        handle.lock.readLock().lock();
        try {
            return Native.open(live(), nonce, sealed, aad == null ? EMPTY : aad);
        } finally {
            handle.lock.readLock().unlock();
            Reference.reachabilityFence(this);
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
