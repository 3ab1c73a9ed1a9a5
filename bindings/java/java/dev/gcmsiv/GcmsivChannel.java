package dev.gcmsiv;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.AEADBadTagException;

/**
 * Random access to the plaintext of a gcmsiv file (docs/FORMAT.md), as a read-only {@link
 * SeekableByteChannel}. Every chunk but the final one holds the same number of plaintext bytes,
 * so a read at any position reads and authenticates only the chunks it covers (the last ones
 * opened are kept for the next read). Opening checks the header with the secret and
 * authenticates the final chunk, which fixes the plaintext {@linkplain #size() size}: a file cut
 * short or with bytes appended fails there.
 *
 * <p>A position past the end is allowed and reads there return {@code -1}, as on a file; a
 * negative one is an {@code IllegalArgumentException}. {@link #write} and {@link #truncate} throw
 * {@link NonWritableChannelException}. Failures are {@link GcmsivAuthenticationException} (wrong
 * secret, altered chunk) and {@link GcmsivFormatException} (anything else wrong with the file);
 * a read that fails returns no byte.
 *
 * <pre>{@code
 * try (FileSecret secret = FileSecret.ofKey(key);
 *      GcmsivChannel ch = GcmsivChannel.open(path, secret)) {
 *     ByteBuffer buf = ByteBuffer.allocate(65536);
 *     ch.position(1L << 30).read(buf);
 * }
 * }</pre>
 */
public final class GcmsivChannel implements SeekableByteChannel {
    private static final byte[] EMPTY = new byte[0];
    /** Plaintext bytes one read returns at most (a read may return fewer than asked). */
    private static final int READ_MAX = 8 << 20;

    private final SeekableByteChannel source;
    private final NativeHandle handle;
    private long size;
    private long position;
    private boolean open = true;
    /** The plaintext of the chunks opened last, and where it starts. */
    private byte[] kept = EMPTY;
    private long keptAt;

    private GcmsivChannel(SeekableByteChannel source, long h) {
        this.source = source;
        this.handle = new NativeHandle(this, h, NativeStream::accessFree);
    }

    /** Opens the file at {@code path} (closed with the channel). */
    public static GcmsivChannel open(Path path, FileSecret secret) throws IOException {
        FileChannel file = FileChannel.open(path, StandardOpenOption.READ);
        try {
            return open(file, secret);
        } catch (IOException | RuntimeException e) {
            file.close();
            throw e;
        }
    }

    /**
     * Opens the file {@code source} holds (from its start); closing the channel closes the source.
     * Reads move the source's position.
     */
    public static GcmsivChannel open(SeekableByteChannel source, FileSecret secret) throws IOException {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(secret, "secret");
        long fileSize = source.size();
        // The header's length from its first bytes: 86 for a file to a key or passphrase,
        // longer to recipients.
        byte[] head = readAt(source, 0, (int) Math.min(fileSize, 7));
        while (head.length >= 7 && head.length < fileSize) {
            int needed;
            try {
                needed = NativeStream.headerNeeded(head);
            } catch (GcmsivFormatException e) {
                break; // reported by accessNew below, as for any bad header
            }
            if (needed <= head.length) {
                break;
            }
            byte[] more = readAt(source, head.length, (int) Math.min(fileSize, needed) - head.length);
            byte[] longer = Arrays.copyOf(head, head.length + more.length);
            System.arraycopy(more, 0, longer, head.length, more.length);
            head = longer;
        }
        GcmsivChannel channel;
        try {
            channel = new GcmsivChannel(source, NativeStream.accessNew(head, fileSize, secret.kind, secret.bytes()));
        } catch (AEADBadTagException e) {
            throw new GcmsivAuthenticationException(e);
        }
        try {
            long[] last = NativeStream.accessFinalChunk(channel.handle.value());
            byte[] stored = readAt(source, last[0], Math.toIntExact(last[1]));
            channel.size = NativeStream.accessVerifyFinal(channel.handle.value(), stored, stored.length);
            return channel;
        } catch (AEADBadTagException e) {
            channel.handle.close();
            throw new GcmsivAuthenticationException(e);
        } catch (IOException | RuntimeException e) {
            channel.handle.close();
            throw e;
        }
    }

    /** Exactly {@code length} bytes at {@code at} of the source. */
    private static byte[] readAt(SeekableByteChannel source, long at, int length) throws IOException {
        byte[] out = new byte[length];
        ByteBuffer buf = ByteBuffer.wrap(out);
        if (!(source instanceof FileChannel)) {
            source.position(at);
        }
        while (buf.hasRemaining()) {
            int n = source instanceof FileChannel f ? f.read(buf, at + buf.position()) : source.read(buf);
            if (n < 0) {
                throw new GcmsivFormatException("file is truncated (it shrank while being read)");
            }
        }
        return out;
    }

    private void ensureOpen() throws ClosedChannelException {
        if (!open) {
            throw new ClosedChannelException();
        }
    }

    /**
     * Reads plaintext at the position into {@code dst}, as much as fits (at most 8 MiB a call),
     * and advances the position; {@code -1} at or past the end.
     */
    @Override
    public synchronized int read(ByteBuffer dst) throws IOException {
        ensureOpen();
        if (dst.isReadOnly()) {
            throw new java.nio.ReadOnlyBufferException();
        }
        if (!dst.hasRemaining()) {
            return 0;
        }
        if (position >= size) {
            return -1;
        }
        int n = (int) Math.min(Math.min(dst.remaining(), READ_MAX), size - position);
        if (position < keptAt || position + n > keptAt + kept.length) {
            load(position, n);
        }
        dst.put(kept, (int) (position - keptAt), n);
        position += n;
        return n;
    }

    /** Reads and opens the chunks that hold plaintext {@code [at, at + n)}. */
    private void load(long at, int n) throws IOException {
        long h = handle.value();
        long[] span = NativeStream.accessSpan(h, at, n);
        byte[] stored = readAt(source, span[1], Math.toIntExact(span[2]));
        byte[] plain;
        try {
            plain = NativeStream.accessOpen(h, span[0], stored, stored.length);
        } catch (AEADBadTagException e) {
            throw new GcmsivAuthenticationException(e);
        }
        Arrays.fill(kept, (byte) 0);
        kept = plain;
        keptAt = at - span[3];
    }

    /** Always throws {@link NonWritableChannelException}: the channel is read-only. */
    @Override
    public int write(ByteBuffer src) {
        throw new NonWritableChannelException();
    }

    @Override
    public synchronized long position() throws IOException {
        ensureOpen();
        return position;
    }

    /** Moves the position; past the end is allowed (reads there return -1). */
    @Override
    public synchronized GcmsivChannel position(long newPosition) throws IOException {
        if (newPosition < 0) {
            throw new IllegalArgumentException("gcmsiv: negative position " + newPosition);
        }
        ensureOpen();
        position = newPosition;
        return this;
    }

    /** The plaintext size (authenticated: the final chunk fixes it). */
    @Override
    public synchronized long size() throws IOException {
        ensureOpen();
        return size;
    }

    /** Always throws {@link NonWritableChannelException}: the channel is read-only. */
    @Override
    public SeekableByteChannel truncate(long newSize) {
        throw new NonWritableChannelException();
    }

    @Override
    public synchronized boolean isOpen() {
        return open;
    }

    /** Frees the keys, wipes the plaintext kept, and closes the source. */
    @Override
    public synchronized void close() throws IOException {
        if (!open) {
            return;
        }
        open = false;
        handle.close();
        Arrays.fill(kept, (byte) 0);
        kept = EMPTY;
        source.close();
    }
}
