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
 * The secret a gcmsiv file is encrypted to: a 32-byte key (what a key file holds), a
 * passphrase (stretched with Argon2id at the cost the file's header records), or, for files to
 * public keys (format version 2), recipients to write to and identities to read with. Holds a
 * copy of the secret, which {@link #close()} (or {@link #destroy()}) wipes.
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

    /**
     * Recipients to write files to: recipient strings ({@code gcmsiv1...} for X25519,
     * {@code gcmsivpq1...} for ML-KEM-768 + X25519), 1 to 256. Such a secret cannot read files.
     * Both kinds in one file are refused when the file is made (it would be only as safe as
     * X25519 against a quantum computer); {@link #ofRecipients(List, boolean)} allows it.
     *
     * @throws IllegalArgumentException for a string that is not a recipient (naming its line)
     */
    public static FileSecret ofRecipients(java.util.List<String> recipients) {
        return ofRecipients(recipients, false);
    }

    /** {@link #ofRecipients(java.util.List)}, with X25519 and hybrid recipients mixed knowingly if {@code allowMixed}. */
    public static FileSecret ofRecipients(java.util.List<String> recipients, boolean allowMixed) {
        Objects.requireNonNull(recipients, "recipients");
        byte[] text = String.join("\n", recipients).getBytes(StandardCharsets.UTF_8);
        return checked(new FileSecret(allowMixed ? NativeStream.MIXED_RECIPIENTS : NativeStream.RECIPIENTS, text));
    }

    /**
     * Identities to read files encrypted to their recipients: an identity file's text
     * ({@code GCMSIV-SECRET-KEY-...} lines, {@code #} comments). A writer given identities writes
     * to their recipients. A file none of them opens fails with {@link GcmsivAuthenticationException}
     * ("no identity matched").
     *
     * @throws IllegalArgumentException for text that is not identities (naming the line, never quoting it)
     */
    public static FileSecret ofIdentities(String identityFileText) {
        Objects.requireNonNull(identityFileText, "identityFileText");
        return checked(new FileSecret(NativeStream.IDENTITIES, identityFileText.getBytes(StandardCharsets.UTF_8)));
    }

    /** The identities of an identity file (as {@code gcmsiv keygen -r} writes them). */
    public static FileSecret ofIdentityFile(Path path) throws IOException {
        byte[] text = Files.readAllBytes(path);
        return checked(new FileSecret(NativeStream.IDENTITIES, text));
    }

    /** A new identity: its string (keep it secret) and its recipient (give it to those who write to you). */
    public record NewIdentity(String identity, String recipient) {
        @Override
        public String toString() {
            return "NewIdentity[recipient=" + recipient + "]";
        }
    }

    /** A new identity, X25519 ({@code hybrid} false) or ML-KEM-768 + X25519 ({@code hybrid} true). */
    public static NewIdentity generateIdentity(boolean hybrid) {
        String both = NativeStream.generateIdentity(hybrid ? 2 : 1);
        int cut = both.indexOf('\n');
        return new NewIdentity(both.substring(0, cut), both.substring(cut + 1));
    }

    /** The recipient string of one identity string. */
    public static String identityRecipient(String identity) {
        return NativeStream.identityRecipient(identity.getBytes(StandardCharsets.UTF_8));
    }

    /** The secret if the native library accepts it (a reader made with it and dropped). */
    private static FileSecret checked(FileSecret secret) {
        try {
            NativeStream.openFree(NativeStream.openNew(secret.kind, secret.bytes));
        } catch (RuntimeException e) {
            secret.destroy();
            throw e;
        }
        return secret;
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
