package dev.gcmsiv;

import java.io.IOException;
import javax.crypto.AEADBadTagException;

/**
 * A gcmsiv file that does not authenticate: a wrong key or passphrase, or a chunk that was
 * altered. The stream APIs must throw {@code IOException}s, so this wraps the binding's
 * authentication failure, the {@link AEADBadTagException} that {@link #getCause()} returns. No
 * plaintext of a chunk that failed is ever returned.
 */
public class GcmsivAuthenticationException extends IOException {
    private static final long serialVersionUID = 1L;

    /** Wraps an authentication failure. */
    public GcmsivAuthenticationException(AEADBadTagException cause) {
        super(cause.getMessage(), cause);
    }

    @Override
    public synchronized AEADBadTagException getCause() {
        return (AEADBadTagException) super.getCause();
    }
}
