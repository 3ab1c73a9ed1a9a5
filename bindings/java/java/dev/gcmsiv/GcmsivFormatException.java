package dev.gcmsiv;

import java.io.IOException;

/**
 * A gcmsiv file that is not whole or not one at all (docs/FORMAT.md): not a gcmsiv file, an
 * unsupported version, a corrupted header, truncated, a chunk out of place or of a bad length,
 * trailing data, or a secret of the other kind than the file was written with. Thrown by {@link
 * GcmsivInputStream} and {@link GcmsivChannel}; an authentication failure is a {@link
 * GcmsivAuthenticationException} instead.
 */
public class GcmsivFormatException extends IOException {
    private static final long serialVersionUID = 1L;

    /** An exception with this message. */
    public GcmsivFormatException(String message) {
        super(message);
    }
}
