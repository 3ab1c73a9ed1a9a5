package dev.gcmsiv;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.security.Key;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.spec.AlgorithmParameterSpec;
import java.security.Provider;
import java.security.Security;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import javax.crypto.Cipher;
import javax.crypto.CipherSpi;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * The JCA provider as a drop-in for the JDK's own TLS: with {@link GcmsivProvider}'s AES-GCM first
 * in the provider list, JSSE's TLS 1.3 and 1.2 AES-GCM records run through it, and a 200 KB echo
 * over a loopback connection comes back intact. The provider is installed through a counting
 * wrapper (same class, calls counted), since a {@code Cipher} that picks its provider at {@code
 * init} would quietly move on to SunJCE if ours refused one: the records must show up in the
 * count. The keystore (a self-signed EC certificate) comes from keytool in scripts/test-java.sh.
 */
public final class TlsTest {
    static final AtomicLong FINALS = new AtomicLong();

    /** {@link AeadCipherSpi.Gcm}, each {@code doFinal} counted. */
    public static final class Counting extends CipherSpi {
        private final AeadCipherSpi.Gcm inner = new AeadCipherSpi.Gcm();

        @Override
        protected void engineSetMode(String mode) throws java.security.NoSuchAlgorithmException {
            inner.engineSetMode(mode);
        }

        @Override
        protected void engineSetPadding(String padding) throws javax.crypto.NoSuchPaddingException {
            inner.engineSetPadding(padding);
        }

        @Override
        protected int engineGetBlockSize() {
            return inner.engineGetBlockSize();
        }

        @Override
        protected int engineGetOutputSize(int inputLen) {
            return inner.engineGetOutputSize(inputLen);
        }

        @Override
        protected byte[] engineGetIV() {
            return inner.engineGetIV();
        }

        @Override
        protected java.security.AlgorithmParameters engineGetParameters() {
            return inner.engineGetParameters();
        }

        @Override
        protected void engineInit(int opmode, Key key, SecureRandom random) throws java.security.InvalidKeyException {
            inner.engineInit(opmode, key, random);
        }

        @Override
        protected void engineInit(int opmode, Key key, AlgorithmParameterSpec params, SecureRandom random)
                throws java.security.InvalidKeyException, java.security.InvalidAlgorithmParameterException {
            inner.engineInit(opmode, key, params, random);
        }

        @Override
        protected void engineInit(int opmode, Key key, java.security.AlgorithmParameters params, SecureRandom random)
                throws java.security.InvalidKeyException, java.security.InvalidAlgorithmParameterException {
            inner.engineInit(opmode, key, params, random);
        }

        @Override
        protected void engineUpdateAAD(byte[] src, int offset, int len) {
            inner.engineUpdateAAD(src, offset, len);
        }

        @Override
        protected void engineUpdateAAD(ByteBuffer src) {
            inner.engineUpdateAAD(src);
        }

        @Override
        protected byte[] engineUpdate(byte[] input, int inputOffset, int inputLen) {
            return inner.engineUpdate(input, inputOffset, inputLen);
        }

        @Override
        protected int engineUpdate(byte[] input, int inputOffset, int inputLen, byte[] output, int outputOffset) {
            return inner.engineUpdate(input, inputOffset, inputLen, output, outputOffset);
        }

        @Override
        protected int engineUpdate(ByteBuffer input, ByteBuffer output) {
            return inner.engineUpdate(input, output);
        }

        @Override
        protected byte[] engineDoFinal(byte[] input, int inputOffset, int inputLen)
                throws javax.crypto.IllegalBlockSizeException, javax.crypto.BadPaddingException {
            FINALS.incrementAndGet();
            return inner.engineDoFinal(input, inputOffset, inputLen);
        }

        @Override
        protected int engineDoFinal(byte[] input, int inputOffset, int inputLen, byte[] output, int outputOffset)
                throws javax.crypto.ShortBufferException, javax.crypto.IllegalBlockSizeException,
                        javax.crypto.BadPaddingException {
            FINALS.incrementAndGet();
            return inner.engineDoFinal(input, inputOffset, inputLen, output, outputOffset);
        }

        @Override
        protected int engineDoFinal(ByteBuffer input, ByteBuffer output)
                throws javax.crypto.ShortBufferException, javax.crypto.IllegalBlockSizeException,
                        javax.crypto.BadPaddingException {
            FINALS.incrementAndGet();
            return inner.engineDoFinal(input, output);
        }
    }

    private static final class CountingProvider extends Provider {
        private static final long serialVersionUID = 1L;

        CountingProvider() {
            super("TlsTestCounting", "1", "GcmsivProvider's AES/GCM, counted");
            putService(new Service(this, "Cipher", "AES/GCM/NoPadding", Counting.class.getName(), null, null));
        }
    }

    /** Echoes 200 KB over TLS with `suite` (protocol from its name); true if it came back whole. */
    static boolean echo(SSLContext ctx, String suite) throws Exception {
        String protocol = suite.startsWith("TLS_AES") ? "TLSv1.3" : "TLSv1.2";
        byte[] message = new byte[200_000];
        new Random(7).nextBytes(message);
        try (SSLServerSocket server = (SSLServerSocket) ctx.getServerSocketFactory().createServerSocket(0)) {
            server.setEnabledProtocols(new String[] {protocol});
            server.setEnabledCipherSuites(new String[] {suite});
            Thread echo = new Thread(() -> {
                try (SSLSocket s = (SSLSocket) server.accept()) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    byte[] buf = new byte[70_000];
                    for (int n, total = 0; total < message.length && (n = in.read(buf)) > 0; total += n) {
                        out.write(buf, 0, n);
                    }
                    out.flush();
                } catch (IOException e) {
                    // The control's failed handshake ends here.
                }
            });
            echo.setDaemon(true);
            echo.start();
            try (SSLSocket c = (SSLSocket) ctx.getSocketFactory().createSocket("localhost", server.getLocalPort())) {
                c.setEnabledProtocols(new String[] {protocol});
                c.setEnabledCipherSuites(new String[] {suite});
                c.setSoTimeout(20_000);
                OutputStream out = c.getOutputStream();
                Thread writer = new Thread(() -> {
                    try {
                        out.write(message);
                        out.flush();
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                writer.setDaemon(true);
                writer.start();
                byte[] back = c.getInputStream().readNBytes(message.length);
                writer.join();
                return Arrays.equals(back, message) && c.getSession().getProtocol().equals(protocol);
            } catch (IOException | UncheckedIOException e) {
                return false;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = new FileInputStream(args[0])) {
            ks.load(in, "changeit".toCharArray());
        }
        KeyManagerFactory kmf = KeyManagerFactory.getInstance("SunX509");
        kmf.init(ks, "changeit".toCharArray());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance("PKIX");
        tmf.init(ks);
        String[] suites = {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
            "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"};

        Provider counting = new CountingProvider();
        Security.insertProviderAt(counting, 1);
        if (Cipher.getInstance("AES/GCM/NoPadding").getProvider() != counting) {
            throw new AssertionError("the provider is not first");
        }
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        for (String suite : suites) {
            long before = FINALS.get();
            if (!echo(ctx, suite)) {
                throw new AssertionError("TLS through the provider: " + suite);
            }
            // 200 KB each way in records of at most 16 KiB: at least 13 records each way, each
            // sealed by one end and opened by the other, all through the provider.
            long records = FINALS.get() - before;
            if (records < 4 * 13) {
                throw new AssertionError(suite + ": only " + records + " records went through the provider");
            }
        }
        System.out.println("Java binding: JSSE's TLS 1.3 and 1.2 AES-GCM records through GcmsivProvider's cipher ("
                + suites.length + " suites, 200 KB echoed each, " + FINALS.get() + " records): ok");
    }
}
