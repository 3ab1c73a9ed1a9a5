package dev.gcmsiv;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;

/**
 * The cross-language test's entry point for Java (the contract every binding implements; keys
 * are 64 lowercase hex digits):
 *
 * <pre>
 * java -cp JAR:CLASSES dev.gcmsiv.Interop encrypt KEYHEX CHUNK_SIZE aes128|aes256 IN OUT
 * java -cp JAR:CLASSES dev.gcmsiv.Interop decrypt KEYHEX IN OUT
 * java -cp JAR:CLASSES dev.gcmsiv.Interop range KEYHEX IN OFFSET LENGTH OUT
 * </pre>
 *
 * encrypt writes through GcmsivOutputStream in pieces of 1, 1000 and 65537 bytes in rotation;
 * decrypt writes exactly what GcmsivInputStream released; range reads through GcmsivChannel. A
 * failure exits 1 with one line on stderr: {@code authentication: ...} or {@code format: ...}.
 */
public final class Interop {
    private static final int[] PIECES = {1, 1000, 65537};

    private Interop() {}

    public static void main(String[] args) throws IOException {
        try {
            run(args);
        } catch (GcmsivAuthenticationException e) {
            System.err.println("authentication: " + e.getMessage());
            System.exit(1);
        } catch (GcmsivFormatException e) {
            System.err.println("format: " + e.getMessage());
            System.exit(1);
        }
    }

    /** The secret argument: a key as 64 hex digits, or recipients=PATH or identities=PATH. */
    private static FileSecret key(String hex) {
        try {
            if (hex.startsWith("recipients=")) {
                return FileSecret.ofRecipients(java.nio.file.Files.readAllLines(Path.of(hex.substring(11))));
            }
            if (hex.startsWith("identities=")) {
                return FileSecret.ofIdentityFile(Path.of(hex.substring(11)));
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        if (!hex.matches("[0-9a-f]{64}")) {
            usage();
        }
        return FileSecret.ofKey(HexFormat.of().parseHex(hex));
    }

    private static void usage() {
        System.err.println("usage: Interop encrypt KEYHEX CHUNK_SIZE aes128|aes256 IN OUT\n"
                + "       Interop decrypt KEYHEX IN OUT\n"
                + "       Interop range KEYHEX IN OFFSET LENGTH OUT");
        System.exit(2);
    }

    private static void run(String[] a) throws IOException {
        String command = a.length > 0 ? a[0] : "";
        if (command.equals("encrypt") && a.length == 6) {
            FileOptions.Algorithm algorithm = switch (a[3]) {
                case "aes128" -> FileOptions.Algorithm.AES_128_GCM_SIV;
                case "aes256" -> FileOptions.Algorithm.AES_256_GCM_SIV;
                default -> throw new IllegalArgumentException("algorithm " + a[3]);
            };
            FileOptions options = FileOptions.defaults().withChunkSize(Integer.parseInt(a[2])).withAlgorithm(algorithm);
            byte[] plaintext = Files.readAllBytes(Path.of(a[4]));
            try (FileSecret secret = key(a[1]);
                    OutputStream out = new GcmsivOutputStream(Files.newOutputStream(Path.of(a[5])), secret, options)) {
                int at = 0;
                for (int k = 0; at < plaintext.length; k++) {
                    int n = Math.min(PIECES[k % PIECES.length], plaintext.length - at);
                    if (n == 1) {
                        out.write(plaintext[at]);
                    } else {
                        out.write(plaintext, at, n);
                    }
                    at += n;
                }
            }
        } else if (command.equals("decrypt") && a.length == 4) {
            try (FileSecret secret = key(a[1]);
                    InputStream in = new GcmsivInputStream(Files.newInputStream(Path.of(a[2])), secret);
                    OutputStream out = Files.newOutputStream(Path.of(a[3]))) {
                byte[] buf = new byte[65536];
                int n;
                while ((n = in.read(buf)) != -1) {
                    out.write(buf, 0, n);
                }
            }
        } else if (command.equals("range") && a.length == 6) {
            long offset = Long.parseLong(a[3]);
            int length = Integer.parseInt(a[4]);
            try (FileSecret secret = key(a[1]); GcmsivChannel ch = GcmsivChannel.open(Path.of(a[2]), secret)) {
                ch.position(offset);
                ByteBuffer buf = ByteBuffer.allocate(length);
                while (buf.hasRemaining() && ch.read(buf) > 0) {
                    // the channel returns at most 8 MiB a read
                }
                Files.write(Path.of(a[5]), java.util.Arrays.copyOf(buf.array(), buf.position()));
            }
        } else {
            usage();
        }
    }
}
