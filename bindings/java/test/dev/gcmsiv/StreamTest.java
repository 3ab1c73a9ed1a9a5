package dev.gcmsiv;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.crypto.AEADBadTagException;

/**
 * Encrypted streams and files: every vector of vectors/format/manifest.txt through
 * GcmsivInputStream and GcmsivChannel (released bytes compared), round trips at every chunk
 * boundary written in odd pieces, every kind of damage, the channel's contract, and the
 * nonce-managed AEADs.
 *
 * <pre>java -Dgcmsiv.library=... -cp classes dev.gcmsiv.StreamTest vectors/format</pre>
 */
public final class StreamTest {
    private static final byte[] KEY = new byte[32];
    private static final Random RANDOM = new Random(33);
    private static final int[] PIECES = {1, 1000, 7, 65537, 13, 4096};
    private static int checks;

    static {
        Arrays.fill(KEY, (byte) 0x5a);
    }

    private static void check(boolean ok, String what) {
        checks++;
        if (!ok) {
            throw new AssertionError(what);
        }
    }

    private static byte[] random(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    static byte[] encrypt(byte[] plaintext, FileSecret secret, FileOptions options, int[] pieces) throws IOException {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        try (OutputStream out = new GcmsivOutputStream(file, secret, options)) {
            int at = 0;
            for (int k = 0; at < plaintext.length; k++) {
                int n = Math.min(pieces[k % pieces.length], plaintext.length - at);
                if (n == 1) {
                    out.write(plaintext[at]);
                } else {
                    out.write(plaintext, at, n);
                }
                at += n;
            }
        }
        return file.toByteArray();
    }

    /** What a streaming read releases, and how it ended (null: whole). */
    record Outcome(byte[] released, IOException error) {}

    /** An InputStream that returns at most {@code piece} bytes a read, as a socket might. */
    static final class Trickle extends ByteArrayInputStream {
        private final int piece;

        Trickle(byte[] data, int piece) {
            super(data);
            this.piece = piece;
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) {
            return super.read(b, off, Math.min(len, piece));
        }
    }

    static Outcome decrypt(byte[] file, FileSecret secret, int piece, int readSize) {
        ByteArrayOutputStream released = new ByteArrayOutputStream();
        try (InputStream in = new GcmsivInputStream(new Trickle(file, piece), secret)) {
            byte[] buf = new byte[readSize];
            int n;
            while ((n = in.read(buf)) != -1) {
                released.write(buf, 0, n);
            }
            check(in.read() == -1, "still at the end");
            return new Outcome(released.toByteArray(), null);
        } catch (IOException e) {
            return new Outcome(released.toByteArray(), e);
        }
    }

    static SeekableByteChannel memory(byte[] file, long[] bytesRead) {
        return new SeekableByteChannel() {
            long position;
            boolean open = true;

            @Override
            public int read(ByteBuffer dst) {
                if (position >= file.length) {
                    return -1;
                }
                int n = (int) Math.min(dst.remaining(), file.length - position);
                dst.put(file, (int) position, n);
                position += n;
                bytesRead[0] += n;
                return n;
            }

            @Override
            public int write(ByteBuffer src) {
                throw new NonWritableChannelException();
            }

            @Override
            public long position() {
                return position;
            }

            @Override
            public SeekableByteChannel position(long p) {
                position = p;
                return this;
            }

            @Override
            public long size() {
                return file.length;
            }

            @Override
            public SeekableByteChannel truncate(long size) {
                throw new NonWritableChannelException();
            }

            @Override
            public boolean isOpen() {
                return open;
            }

            @Override
            public void close() {
                open = false;
            }
        };
    }

    static byte[] readRange(GcmsivChannel ch, long at, int n) throws IOException {
        ch.position(at);
        ByteBuffer buf = ByteBuffer.allocate(n);
        while (buf.hasRemaining() && ch.read(buf) > 0) {
            // more
        }
        return Arrays.copyOf(buf.array(), buf.position());
    }

    static byte[] slice(byte[] b, long from, long n) {
        int start = (int) Math.min(from, b.length);
        return Arrays.copyOfRange(b, start, (int) Math.min(b.length, start + n));
    }

    static boolean authentication(String message) {
        return message.matches(".*(wrong (key|passphrase)|failed authentication|no identity matched|MAC does not verify).*");
    }

    static void manifest(Path dir, String manifestName) throws IOException {
        String text = Files.readString(dir.resolve(manifestName));
        List<Map<String, String>> vectors = new ArrayList<>();
        for (String block : text.split("\n\\s*\n")) {
            Map<String, String> v = new LinkedHashMap<>();
            for (String line : block.split("\n")) {
                int eq = line.indexOf(" = ");
                if (!line.startsWith("#") && eq > 0) {
                    v.put(line.substring(0, eq), line.substring(eq + 3));
                }
            }
            // ASCII armor is the tool's and the Rust library's: this package reads the binary format.
            if (v.containsKey("file") && !v.get("file").endsWith(".asc")) {
                vectors.add(v);
            }
        }
        check(vectors.size() >= 13, manifestName + " was read");
        for (Map<String, String> v : vectors) {
            String name = v.get("file") + " (" + v.getOrDefault("key", "passphrase") + ")";
            byte[] file = Files.readAllBytes(dir.resolve(v.get("file")));
            try (FileSecret secret = v.containsKey("identity") ? identities(dir, v.get("identity"))
                    : v.containsKey("key") ? FileSecret.ofKeyFile(dir.resolve(v.get("key")))
                    : FileSecret.ofPassphrase(v.get("passphrase").toCharArray())) {
                byte[] want = v.containsKey("plaintext") ? Files.readAllBytes(dir.resolve(v.get("plaintext"))) : null;
                for (int[] p : new int[][] {{1 << 20, 1 << 16}, {1, 1}, {7, 1000}, {1000, 3}}) {
                    Outcome o = decrypt(file, secret, p[0], p[1]);
                    if (want != null) {
                        check(o.error == null, name + ": " + o.error);
                        check(Arrays.equals(o.released, want), name + ": plaintext");
                    } else {
                        check(o.error != null && o.error.getMessage().contains(v.get("error")), name + ": " + o.error);
                        Class<?> kind = authentication(v.get("error"))
                                ? GcmsivAuthenticationException.class : GcmsivFormatException.class;
                        check(kind.isInstance(o.error), name + ": " + o.error.getClass());
                        if (o.error instanceof GcmsivAuthenticationException a) {
                            check(a.getCause() instanceof AEADBadTagException, "the cause");
                        }
                        check(Arrays.equals(o.released, released(dir, v.get("released"))), name + ": released");
                    }
                }
                byte[] got = null;
                IOException error = null;
                try (GcmsivChannel ch = GcmsivChannel.open(memory(file, new long[1]), secret)) {
                    got = readRange(ch, 0, (int) ch.size() + 10);
                    if (want != null) {
                        check(ch.size() == want.length, name + ": size");
                        for (long[] r : new long[][] {{0, 1}, {1, 1023}, {1000, 100}, {1023, 2},
                                {Math.max(0, want.length - 1), 5}, {want.length, 1}}) {
                            check(Arrays.equals(readRange(ch, r[0], (int) r[1]), slice(want, r[0], r[1])), name + " at " + r[0]);
                        }
                    }
                } catch (IOException e) {
                    error = e;
                }
                if (want != null) {
                    check(error == null, name + ": " + error);
                    check(Arrays.equals(got, want), name + ": random access");
                } else {
                    check(got == null, name + ": random access released bytes");
                    check(error instanceof GcmsivAuthenticationException || error instanceof GcmsivFormatException,
                            name + ": " + error);
                    if (authentication(v.get("error"))) {
                        check(error instanceof GcmsivAuthenticationException, name + ": " + error);
                    }
                }
            }
        }
    }

    /** The identity files a vector names, comma-separated, as one secret. */
    static FileSecret identities(Path dir, String names) throws IOException {
        StringBuilder text = new StringBuilder();
        for (String name : names.split(",")) {
            text.append(Files.readString(dir.resolve(name.trim()))).append('\n');
        }
        return FileSecret.ofIdentities(text.toString());
    }

    /** Files to recipients: identities of both kinds, mixed kinds only when asked, random access. */
    static void recipients() throws IOException {
        FileSecret.NewIdentity alice = FileSecret.generateIdentity(false);
        FileSecret.NewIdentity bob = FileSecret.generateIdentity(true);
        FileSecret.NewIdentity carol = FileSecret.generateIdentity(false);
        check(alice.recipient().startsWith("gcmsiv1") && bob.recipient().startsWith("gcmsivpq1"), "recipient strings");
        check(FileSecret.identityRecipient(bob.identity()).equals(bob.recipient()), "identityRecipient");
        check(!alice.toString().contains(alice.identity()), "toString keeps the identity out");
        byte[] plaintext = new byte[150_000];
        new java.util.Random(5).nextBytes(plaintext);
        FileOptions options = FileOptions.defaults().withChunkSize(4096);
        byte[] file;
        try (FileSecret to = FileSecret.ofRecipients(List.of(alice.recipient()))) {
            file = encrypt(plaintext, to, options, new int[] {1000, 65537});
        }
        try (FileSecret a = FileSecret.ofIdentities(alice.identity())) {
            Outcome o = decrypt(file, a, 5000, 777);
            check(o.error == null && Arrays.equals(o.released, plaintext), "alice reads hers: " + o.error);
            try (GcmsivChannel ch = GcmsivChannel.open(memory(file, new long[1]), a)) {
                check(ch.size() == plaintext.length, "random access over the longer header");
                check(Arrays.equals(readRange(ch, 70_000, 9000), slice(plaintext, 70_000, 9000)), "a range");
            }
        }
        try (FileSecret c = FileSecret.ofIdentities(carol.identity())) {
            Outcome o = decrypt(file, c, 5000, 777);
            check(o.error instanceof GcmsivAuthenticationException && o.released.length == 0
                    && o.error.getMessage().contains("no identity matched"), "carol reads nothing: " + o.error);
        }
        try (FileSecret k = FileSecret.ofKey(new byte[32])) {
            Outcome o = decrypt(file, k, 5000, 777);
            check(o.error instanceof GcmsivFormatException && o.released.length == 0, "a key for a file to recipients");
        }
        List<String> team = List.of(alice.recipient(), bob.recipient());
        try (FileSecret refused = FileSecret.ofRecipients(team)) {
            expect(IllegalArgumentException.class, () -> encrypt(plaintext, refused, options, new int[] {1000}));
        }
        byte[] mixed;
        try (FileSecret both = FileSecret.ofRecipients(team, true)) {
            mixed = encrypt(plaintext, both, options, new int[] {1000});
        }
        try (FileSecret b = FileSecret.ofIdentities("# bob\n" + bob.identity() + "\n")) {
            Outcome o = decrypt(mixed, b, 5000, 777);
            check(o.error == null && Arrays.equals(o.released, plaintext), "bob reads the mixed file");
        }
        expect(IllegalArgumentException.class, () -> FileSecret.ofRecipients(List.of("gcmsiv1qqqq")));
        expect(IllegalArgumentException.class, () -> FileSecret.ofIdentities(alice.recipient()));
    }

    static byte[] released(Path dir, String spec) throws IOException {
        if (spec.equals("nothing")) {
            return new byte[0];
        }
        int open = spec.indexOf("[..");
        byte[] whole = Files.readAllBytes(dir.resolve(spec.substring(0, open)));
        return Arrays.copyOf(whole, Integer.parseInt(spec.substring(open + 3, spec.length() - 1)));
    }

    static void roundTrips() throws IOException {
        int c = 1024;
        try (FileSecret secret = FileSecret.ofKey(KEY)) {
            for (int size : new int[] {0, 1, c - 1, c, c + 1, 2 * c, 2 * c + 1, 37 * c + 501, 3 * 1024 * 1024 + 17}) {
                byte[] plaintext = random(size);
                for (FileOptions.Algorithm algorithm : FileOptions.Algorithm.values()) {
                    FileOptions options = FileOptions.defaults().withChunkSize(c).withAlgorithm(algorithm);
                    byte[] file = encrypt(plaintext, secret, options, PIECES);
                    Outcome o = decrypt(file, secret, 5000, 333);
                    check(o.error == null && Arrays.equals(o.released, plaintext), "round trip " + size + " " + algorithm);
                    try (GcmsivChannel ch = GcmsivChannel.open(memory(file, new long[1]), secret)) {
                        check(ch.size() == size, "size");
                        check(Arrays.equals(readRange(ch, 0, size), plaintext), "whole");
                        for (int i = 0; i < 20; i++) {
                            long at = RANDOM.nextInt(size + 2);
                            int n = RANDOM.nextInt(3 * c);
                            check(Arrays.equals(readRange(ch, at, n), slice(plaintext, at, n)), "read " + at + " " + n);
                        }
                        // Channels.newInputStream-style reads in small buffers, sequentially.
                        ch.position(0);
                        ByteArrayOutputStream all = new ByteArrayOutputStream();
                        ByteBuffer small = ByteBuffer.allocate(777);
                        while (ch.read(small.clear()) > 0) {
                            all.write(small.array(), 0, small.position());
                        }
                        check(Arrays.equals(all.toByteArray(), plaintext), "sequential small reads");
                    }
                }
            }
        }
        byte[] plaintext = random(5000);
        FileOptions cheap = FileOptions.defaults().withChunkSize(2048).withArgon2(64, 1, 1);
        byte[] file;
        try (FileSecret p = FileSecret.ofPassphrase("hunter2 but longer".toCharArray())) {
            file = encrypt(plaintext, p, cheap, new int[] {999});
            check(Arrays.equals(decrypt(file, p, 100, 100).released, plaintext), "passphrase");
            try (GcmsivChannel ch = GcmsivChannel.open(memory(file, new long[1]), p)) {
                check(Arrays.equals(readRange(ch, 4000, 2000), slice(plaintext, 4000, 2000)), "passphrase range");
            }
        }
        try (FileSecret wrong = FileSecret.ofPassphrase("hunter3 but longer")) {
            Outcome o = decrypt(file, wrong, 100, 100);
            check(o.error instanceof GcmsivAuthenticationException && o.released.length == 0, "wrong passphrase");
        }
        try (FileSecret k = FileSecret.ofKey(KEY)) {
            Outcome o = decrypt(file, k, 100, 100);
            check(o.error instanceof GcmsivFormatException && o.error.getMessage().contains("passphrase"), "key for a passphrase file");
        }
    }

    /** A damaged file fails in both readers, having released only whole chunks before the damage. */
    static IOException damaged(byte[] file, byte[] plaintext, int c, FileSecret secret, String what) throws IOException {
        Outcome o = decrypt(file, secret, 77, 1000);
        check(o.error instanceof GcmsivAuthenticationException || o.error instanceof GcmsivFormatException, what + ": " + o.error);
        check(o.released.length % c == 0 && Arrays.equals(o.released, Arrays.copyOf(plaintext, o.released.length)),
                what + ": released " + o.released.length);
        GcmsivChannel ch;
        try {
            ch = GcmsivChannel.open(memory(file, new long[1]), secret);
        } catch (GcmsivAuthenticationException | GcmsivFormatException e) {
            return o.error;
        }
        try (ch) {
            boolean failed = false;
            try {
                readRange(ch, 0, plaintext.length);
            } catch (GcmsivAuthenticationException | GcmsivFormatException e) {
                failed = true;
            }
            check(failed, what + ": random access over the damage");
            for (int at = 0; at < plaintext.length; at += c) {
                try {
                    check(Arrays.equals(readRange(ch, at, c), slice(plaintext, at, c)), what + " at " + at);
                } catch (GcmsivAuthenticationException | GcmsivFormatException e) {
                    // this chunk is the damaged one
                }
            }
        }
        return o.error;
    }

    static void damage() throws IOException {
        int c = 1024;
        int stored = c + 20;
        byte[] plaintext = random(4 * c + 100);
        try (FileSecret secret = FileSecret.ofKey(KEY)) {
            FileOptions options = FileOptions.defaults().withChunkSize(c);
            byte[] file = encrypt(plaintext, secret, options, new int[] {plaintext.length});
            for (int cut = 0; cut < file.length; cut += cut < 100 ? 1 : 97) {
                IOException e = damaged(Arrays.copyOf(file, cut), plaintext, c, secret, "cut at " + cut);
                check(e instanceof GcmsivFormatException, "cut at " + cut + ": " + e);
            }
            for (int at = 0; at < file.length; at += at < 100 ? 1 : 61) {
                for (int bit : new int[] {0x01, 0x80}) {
                    byte[] flipped = file.clone();
                    flipped[at] ^= (byte) bit;
                    damaged(flipped, plaintext, c, secret, "bit " + bit + " of byte " + at);
                }
            }
            byte[] swapped = file.clone();
            System.arraycopy(file, 86 + 2 * stored, swapped, 86 + stored, stored);
            System.arraycopy(file, 86 + stored, swapped, 86 + 2 * stored, stored);
            check(damaged(swapped, plaintext, c, secret, "swapped") instanceof GcmsivAuthenticationException, "swapped");
            for (byte[] extra : new byte[][] {{0}, "garbage\n".getBytes(StandardCharsets.UTF_8),
                    Arrays.copyOfRange(file, 86, 86 + stored)}) {
                byte[] longer = Arrays.copyOf(file, file.length + extra.length);
                System.arraycopy(extra, 0, longer, file.length, extra.length);
                Outcome o = decrypt(longer, secret, 1 << 20, 1 << 16);
                check(o.error instanceof GcmsivFormatException, "trailing: " + o.error);
                check(Arrays.equals(o.released, Arrays.copyOf(plaintext, o.released.length)), "trailing released");
                boolean refused = false;
                try (GcmsivChannel ch = GcmsivChannel.open(memory(longer, new long[1]), secret)) {
                    ch.size();
                } catch (GcmsivFormatException e) {
                    refused = true;
                }
                check(refused, "trailing data refused by the channel");
            }
            byte[] other = encrypt(plaintext, secret, options, new int[] {5000});
            byte[] spliced = file.clone();
            System.arraycopy(other, 0, spliced, 0, 86);
            check(damaged(spliced, plaintext, c, secret, "spliced") instanceof GcmsivAuthenticationException, "spliced");
        }
    }

    static void channelContract(Path tmp) throws IOException {
        int c = 4096;
        byte[] plaintext = random(64 * c);
        try (FileSecret secret = FileSecret.ofKey(KEY)) {
            byte[] file = encrypt(plaintext, secret, FileOptions.defaults().withChunkSize(c), new int[] {65536});
            long[] read = new long[1];
            {
                GcmsivChannel ch = GcmsivChannel.open(memory(file, read), secret);
                long opened = read[0];
                check(opened <= 86 + c + 20, "opening read " + opened);
                check(Arrays.equals(readRange(ch, 10 * c + 5, 100), slice(plaintext, 10 * c + 5, 100)), "range");
                check(read[0] - opened == c + 20, "one chunk read: " + (read[0] - opened));
                check(Arrays.equals(readRange(ch, 10 * c + 200, 100), slice(plaintext, 10 * c + 200, 100)), "kept");
                check(read[0] - opened == c + 20, "the kept chunk served the next read");
                check(Arrays.equals(readRange(ch, 20 * c - 1, 2), slice(plaintext, 20 * c - 1, 2)), "two chunks");
                check(read[0] - opened == 3 * (c + 20), "a range over two chunks reads two");
                ch.position(plaintext.length + 100);
                check(ch.read(ByteBuffer.allocate(10)) == -1, "past the end reads nothing");
                check(ch.position() == plaintext.length + 100, "position kept");
                ch.position(plaintext.length);
                check(ch.read(ByteBuffer.allocate(10)) == -1, "at the end");
                check(ch.read(ByteBuffer.allocate(0)) == 0, "empty buffer");
                expect(IllegalArgumentException.class, () -> ch.position(-1));
                expect(NonWritableChannelException.class, () -> ch.write(ByteBuffer.allocate(1)));
                expect(NonWritableChannelException.class, () -> ch.truncate(0));
                ch.close();
                check(!ch.isOpen(), "closed");
                expect(ClosedChannelException.class, () -> ch.read(ByteBuffer.allocate(1)));
                expect(ClosedChannelException.class, ch::size);
                expect(ClosedChannelException.class, () -> ch.position(0));
            }
            try (FileSecret wrong = FileSecret.ofKey(new byte[32])) {
                expect(GcmsivAuthenticationException.class, () -> GcmsivChannel.open(memory(file, new long[1]), wrong));
            }
            expect(GcmsivFormatException.class, () -> GcmsivChannel.open(memory(new byte[0], new long[1]), secret));
            // Files on disk, through FileChannel's positional reads.
            Path enc = tmp.resolve("file.gcmsiv");
            try (OutputStream out = new GcmsivOutputStream(Files.newOutputStream(enc), secret)) {
                out.write(plaintext);
            }
            try (GcmsivChannel ch = GcmsivChannel.open(enc, secret);
                    InputStream in = new GcmsivInputStream(Files.newInputStream(enc), secret)) {
                check(Arrays.equals(readRange(ch, 100000, 70000), slice(plaintext, 100000, 70000)), "file range");
                check(in.skip(100000) == 100000, "skip");
                check(Arrays.equals(in.readNBytes(70000), slice(plaintext, 100000, 70000)), "stream after skip");
                check(!in.markSupported(), "no mark");
            }
            // Closed streams and bad options.
            GcmsivOutputStream out = new GcmsivOutputStream(new ByteArrayOutputStream(), secret);
            out.close();
            out.close();
            expect(IOException.class, () -> out.write(1));
            GcmsivInputStream in = new GcmsivInputStream(new ByteArrayInputStream(file), secret);
            in.close();
            expect(IOException.class, in::read);
            expect(IllegalArgumentException.class, () -> new GcmsivOutputStream(OutputStream.nullOutputStream(), secret,
                    FileOptions.defaults().withChunkSize(1000)));
            expect(IllegalArgumentException.class, () -> new GcmsivOutputStream(OutputStream.nullOutputStream(), secret,
                    FileOptions.defaults().withChunkSize(2 << 20)));
            expect(IllegalArgumentException.class, () -> FileSecret.ofKey(new byte[16]));
            expect(IllegalArgumentException.class, () -> FileSecret.ofPassphrase(""));
            Path bad = tmp.resolve("bad.key");
            Files.writeString(bad, "not a key file\n");
            expect(IllegalArgumentException.class, () -> FileSecret.ofKeyFile(bad));
            FileSecret gone = FileSecret.ofKey(KEY);
            gone.destroy();
            expect(IllegalStateException.class, () -> new GcmsivInputStream(new ByteArrayInputStream(file), gone));
        }
    }

    static void randomNonce() throws AEADBadTagException {
        SecureRandom sr = new SecureRandom();
        for (int keyLength : new int[] {16, 32}) {
            byte[] key = new byte[keyLength];
            sr.nextBytes(key);
            for (Aead aead : new Aead[] {new AesGcmSiv(key), new AesGcm(key)}) {
                try (aead) {
                    byte[] aad = "header".getBytes(StandardCharsets.UTF_8);
                    for (int size : new int[] {0, 1, 16, 100, 5000}) {
                        byte[] pt = random(size);
                        byte[] a = aead.encryptRandomNonce(pt, aad);
                        byte[] b = aead.encryptRandomNonce(pt, aad);
                        check(a.length == size + 28, "overhead");
                        check(!Arrays.equals(a, 0, 12, b, 0, 12), "fresh nonces");
                        check(Arrays.equals(aead.decryptRandomNonce(a, aad), pt), "round trip");
                        check(Arrays.equals(aead.decrypt(Arrays.copyOf(a, 12), Arrays.copyOfRange(a, 12, a.length), aad), pt),
                                "nonce || sealed");
                        expect(AEADBadTagException.class, () -> aead.decryptRandomNonce(a, new byte[1]));
                        for (int at : new int[] {0, 11, 12, a.length - 1}) {
                            byte[] bad = a.clone();
                            bad[at] ^= 4;
                            expect(AEADBadTagException.class, () -> aead.decryptRandomNonce(bad, aad));
                        }
                    }
                    check(Arrays.equals(aead.decryptRandomNonce(aead.encryptRandomNonce(new byte[] {1}, null), null),
                            new byte[] {1}), "null aad");
                    for (int n : new int[] {0, 1, 12, 27}) {
                        expect(AEADBadTagException.class, () -> aead.decryptRandomNonce(new byte[n], null));
                    }
                    byte[][] pts = {random(0), random(5), random(300), random(70000)};
                    byte[][] aads = {null, {1}, {2}, {3}};
                    byte[][] sealed = aead.encryptRandomNonceMany(pts, aads);
                    byte[] forged = sealed[1].clone();
                    forged[forged.length - 1] ^= 1;
                    byte[][] opened = aead.decryptRandomNonceMany(
                            new byte[][] {sealed[0], sealed[1], sealed[2], sealed[3], forged, new byte[27]},
                            new byte[][] {null, {1}, {2}, {3}, {1}, null});
                    for (int i = 0; i < pts.length; i++) {
                        check(Arrays.equals(opened[i], pts[i]), "batch " + i);
                    }
                    check(opened[4] == null && opened[5] == null, "forged and short items are null");
                }
            }
        }
    }

    interface Body {
        void run() throws Exception;
    }

    static void expect(Class<? extends Throwable> kind, Body body) {
        try {
            body.run();
        } catch (Throwable t) {
            check(kind.isInstance(t), "expected " + kind.getSimpleName() + ", got " + t);
            return;
        }
        throw new AssertionError("expected " + kind.getSimpleName());
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args.length > 0 ? args[0] : "vectors/format");
        manifest(dir, "manifest.txt");
        manifest(dir, "recipients.txt");
        recipients();
        roundTrips();
        damage();
        Path tmp = Files.createTempDirectory("gcmsiv-java");
        try {
            channelContract(tmp);
        } finally {
            try (var files = Files.list(tmp)) {
                for (Path p : (Iterable<Path>) files::iterator) {
                    Files.delete(p);
                }
            }
            Files.delete(tmp);
        }
        randomNonce();
        System.out.println("streams: " + checks + " checks passed (format vectors, round trips, damage, channel, random nonces)");
    }
}
