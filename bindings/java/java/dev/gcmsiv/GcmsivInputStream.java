package dev.gcmsiv;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.AEADBadTagException;

/**
 * Decrypts a gcmsiv file (docs/FORMAT.md) read from the underlying stream, releasing each chunk's
 * plaintext only after that chunk authenticated. The end of the plaintext ({@code -1}) comes only
 * if the file ended just after its final chunk.
 *
 * <p>A wrong key or passphrase, or an altered chunk, throws {@link GcmsivAuthenticationException}
 * (its cause the binding's {@link AEADBadTagException}); any other fault of the file (not a
 * gcmsiv file, truncated, chunks out of order, trailing data, ...) {@link GcmsivFormatException}.
 * Bytes read before are authenticated plaintext of the chunks before the fault; the failure is
 * thrown again by every later read.
 *
 * <pre>{@code
 * try (FileSecret secret = FileSecret.ofKeyFile(keyPath);
 *      InputStream in = new GcmsivInputStream(Files.newInputStream(path), secret)) {
 *     byte[] plaintext = in.readAllBytes();
 * }
 * }</pre>
 */
public final class GcmsivInputStream extends FilterInputStream {
    private static final byte[] EMPTY = new byte[0];
    private static final int READ = 64 * 1024;

    private final NativeHandle handle;
    private final byte[] stored = new byte[READ];
    private byte[] plain = EMPTY;
    private int at;
    private boolean ended;
    private boolean closed;

    /** Reads the file {@code in} holds with {@code secret} (checked once the header is read). */
    public GcmsivInputStream(InputStream in, FileSecret secret) {
        super(Objects.requireNonNull(in, "in"));
        Objects.requireNonNull(secret, "secret");
        this.handle = new NativeHandle(this, NativeStream.openNew(secret.kind, secret.bytes()), NativeStream::openFree);
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new IOException("gcmsiv: the stream is closed");
        }
    }

    /** Makes plaintext available; false at its end. */
    private boolean fill() throws IOException {
        while (at == plain.length) {
            if (ended) {
                return false;
            }
            int n = in.read(stored, 0, stored.length);
            try {
                if (n < 0) {
                    NativeStream.openFinish(handle.value());
                    ended = true;
                    return false;
                }
                byte[] next = NativeStream.openPush(handle.value(), stored, 0, n);
                Arrays.fill(plain, (byte) 0);
                plain = next;
                at = 0;
            } catch (AEADBadTagException e) {
                throw new GcmsivAuthenticationException(e);
            }
        }
        return true;
    }

    @Override
    public synchronized int read() throws IOException {
        ensureOpen();
        return fill() ? plain[at++] & 0xff : -1;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) throws IOException {
        Objects.checkFromIndexSize(off, len, b.length);
        ensureOpen();
        if (len == 0) {
            return 0;
        }
        if (!fill()) {
            return -1;
        }
        int n = Math.min(len, plain.length - at);
        System.arraycopy(plain, at, b, off, n);
        at += n;
        return n;
    }

    /** Skips plaintext by decrypting it (each chunk skipped is still authenticated). */
    @Override
    public synchronized long skip(long n) throws IOException {
        ensureOpen();
        long skipped = 0;
        while (skipped < n && fill()) {
            int step = (int) Math.min(n - skipped, plain.length - at);
            at += step;
            skipped += step;
        }
        return skipped;
    }

    /** The plaintext bytes authenticated and not yet read. */
    @Override
    public synchronized int available() throws IOException {
        ensureOpen();
        return plain.length - at;
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    @Override
    public void mark(int readlimit) {}

    @Override
    public void reset() throws IOException {
        throw new IOException("gcmsiv: mark and reset are not supported");
    }

    /** Wipes the plaintext kept, frees the keys and closes the underlying stream. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        handle.close();
        Arrays.fill(plain, (byte) 0);
        plain = EMPTY;
        in.close();
    }
}
