package dev.gcmsiv;

import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;

/**
 * A native stream handle (src/stream.rs), freed once: by {@link #close()}, or by a {@link
 * Cleaner} after its owner becomes unreachable. The owner calls into the handle only under its
 * own lock, and closes it under the same lock.
 */
final class NativeHandle implements Runnable {
    private static final Cleaner CLEANER = Cleaner.create();

    private final LongConsumer free;
    private final Cleaner.Cleanable cleanable;
    private long value;

    NativeHandle(Object owner, long value, LongConsumer free) {
        this.value = value;
        this.free = free;
        this.cleanable = CLEANER.register(owner, this);
    }

    /** The handle; 0 once freed (native calls then throw IllegalStateException). */
    synchronized long value() {
        return value;
    }

    @Override
    public synchronized void run() {
        if (value != 0) {
            free.accept(value);
            value = 0;
        }
    }

    /** Frees the handle now (its keys and buffers are wiped). */
    void close() {
        cleanable.clean();
    }
}
