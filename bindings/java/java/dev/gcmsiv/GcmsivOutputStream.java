package dev.gcmsiv;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Objects;

/**
 * Encrypts what is written to it into a gcmsiv file (docs/FORMAT.md) written to the underlying
 * stream: the header, then the chunks, sealed a batch (about 2 MiB) at a time, and the final chunk
 * when the stream is {@linkplain #close() closed}. A file whose stream is never closed lacks its
 * final chunk, and every reader reports it truncated. Files it writes read back with {@link
 * GcmsivInputStream}, {@link GcmsivChannel}, the {@code gcmsiv} tool and every other binding.
 *
 * <pre>{@code
 * try (FileSecret secret = FileSecret.ofKey(key);
 *      OutputStream out = new GcmsivOutputStream(Files.newOutputStream(path), secret)) {
 *     out.write(data);
 * }
 * }</pre>
 *
 * Not for use by several threads at once (calls are serialized, but the order of their bytes is
 * the callers' affair).
 */
public final class GcmsivOutputStream extends FilterOutputStream {
    /** Small writes are gathered up to this many bytes before they cross to native code. */
    private static final int GATHER = 8192;

    private final NativeHandle handle;
    private final byte[] pending = new byte[GATHER];
    private int count;
    private boolean closed;

    /** A new file with the {@linkplain FileOptions#DEFAULT default options}. */
    public GcmsivOutputStream(OutputStream out, FileSecret secret) {
        this(out, secret, FileOptions.DEFAULT);
    }

    /**
     * A new file laid out as {@code options} say. Derives the file's keys now (for a passphrase,
     * Argon2id at the options' cost: this takes a while).
     *
     * @throws IllegalArgumentException if the options are outside the format's limits
     */
    public GcmsivOutputStream(OutputStream out, FileSecret secret, FileOptions options) {
        super(Objects.requireNonNull(out, "out"));
        Objects.requireNonNull(secret, "secret");
        Objects.requireNonNull(options, "options");
        long h = NativeStream.sealNew(secret.kind, secret.bytes(), options.chunkSize, options.algorithm.bits,
                options.memoryKib, options.iterations, options.lanes);
        this.handle = new NativeHandle(this, h, NativeStream::sealFree);
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("gcmsiv: the stream is closed");
        }
    }

    @Override
    public synchronized void write(int b) throws IOException {
        ensureOpen();
        pending[count++] = (byte) b;
        if (count == GATHER) {
            drain();
        }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        ensureOpen();
        if (len < GATHER - count) {
            System.arraycopy(b, off, pending, count, len);
            count += len;
            return;
        }
        drain();
        push(b, off, len);
    }

    private void drain() throws IOException {
        if (count > 0) {
            push(pending, 0, count);
            Arrays.fill(pending, 0, count, (byte) 0);
            count = 0;
        }
    }

    private void push(byte[] b, int off, int len) throws IOException {
        byte[] file = NativeStream.sealPush(handle.value(), b, off, len);
        if (file.length > 0) {
            out.write(file);
        }
    }

    /**
     * Hands the bytes written so far to the encryptor and flushes the underlying stream. The
     * format seals whole chunks, so plaintext of an unfinished batch stays buffered until it fills
     * or the stream is closed.
     */
    @Override
    public synchronized void flush() throws IOException {
        ensureOpen();
        drain();
        out.flush();
    }

    /** Seals the rest and the final chunk, writes them, and closes the underlying stream. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try (OutputStream o = out) {
            drain();
            o.write(NativeStream.sealFinish(handle.value()));
            o.flush();
        } finally {
            handle.close();
            Arrays.fill(pending, (byte) 0);
        }
    }
}
