package dev.gcmsiv;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import javax.security.auth.Destroyable;

/**
 * The secret a gcmsiv file is encrypted to: a 32-byte key (what a key file holds) or a
 * passphrase (stretched with Argon2id at the cost the file's header records). Holds a copy of
 * the secret, which {@link #close()} (or {@link #destroy()}) wipes.
 */
public final class FileSecret implements AutoCloseable, Destroyable {
    final int kind;
    private final byte[] bytes;
    private volatile boolean destroyed;

    private FileSecret(int kind, byte[] bytes) {
        this.kind = kind;
        this.bytes = bytes;
    }

    /** A 32-byte key (copied). */
    public static FileSecret ofKey(byte[] key) {
        Objects.requireNonNull(key, "key");
        if (key.length != 32) {
            throw new IllegalArgumentException("gcmsiv: a file key is 32 bytes, got " + key.length);
        }
        return new FileSecret(NativeStream.KEY, key.clone());
    }

    /** The key of a key file ({@code gcmsiv-key-v1:} and 64 hex digits), as the tool writes them. */
    public static FileSecret ofKeyFile(Path path) throws IOException {
        byte[] text = Files.readAllBytes(path);
        try {
            return new FileSecret(NativeStream.KEY, NativeStream.parseKeyFile(text));
        } finally {
            Arrays.fill(text, (byte) 0);
        }
    }

    /** A passphrase (its UTF-8 bytes; the array given is not kept). */
    public static FileSecret ofPassphrase(char[] passphrase) {
        ByteBuffer encoded = StandardCharsets.UTF_8.encode(CharBuffer.wrap(passphrase));
        byte[] utf8 = new byte[encoded.remaining()];
        encoded.get(utf8);
        if (encoded.hasArray()) {
            Arrays.fill(encoded.array(), (byte) 0);
        }
        return ofPassphraseBytes(utf8);
    }

    /** A passphrase given as a String (prefer {@link #ofPassphrase(char[])}, which can be wiped). */
    public static FileSecret ofPassphrase(String passphrase) {
        return ofPassphraseBytes(passphrase.getBytes(StandardCharsets.UTF_8));
    }

    private static FileSecret ofPassphraseBytes(byte[] utf8) {
        if (utf8.length == 0) {
            throw new IllegalArgumentException("gcmsiv: the passphrase is empty");
        }
        return new FileSecret(NativeStream.PASSPHRASE, utf8);
    }

    /** The secret's bytes for a native call; the caller must not keep them. */
    byte[] bytes() {
        if (destroyed) {
            throw new IllegalStateException("gcmsiv: the secret was destroyed");
        }
        return bytes;
    }

    /** Wipes the copy of the secret. */
    @Override
    public void destroy() {
        destroyed = true;
        Arrays.fill(bytes, (byte) 0);
    }

    @Override
    public boolean isDestroyed() {
        return destroyed;
    }

    /** Same as {@link #destroy()}. */
    @Override
    public void close() {
        destroy();
    }

    @Override
    public String toString() {
        return kind == NativeStream.KEY ? "FileSecret(key)" : "FileSecret(passphrase)";
    }
}
