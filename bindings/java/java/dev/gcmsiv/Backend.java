package dev.gcmsiv;

/** The code a key runs on. AUTO picks the fastest this CPU supports. */
public enum Backend {
    AUTO,
    /** Constant-time portable code; always available. */
    PORTABLE,
    /** x86-64 AES-NI and PCLMULQDQ. */
    AESNI_CLMUL,
    /** x86-64 VAES, VPCLMULQDQ and AVX2 besides. */
    AESNI_VAES,
    /** AArch64 AES and PMULL (the ARMv8 Cryptographic Extension). */
    ARMV8_AES_PMULL;

    /**
     * The native library's list of backends by name, in its numbering (from 1, as this enum's
     * constants after AUTO): the one list, read from the library rather than spelled out here.
     */
    public static java.util.List<String> names() {
        return java.util.List.of(Native.backendNames().split(","));
    }

    /** The backend's name as the native library gives it ("portable", ...), or "auto". */
    public String nativeName() {
        return this == AUTO ? "auto" : names().get(ordinal() - 1);
    }

    /** Whether this CPU runs the backend. */
    public boolean isAvailable() {
        if (this == AUTO || this == PORTABLE) {
            return true;
        }
        try {
            new AesGcmSiv(new byte[16], this).close();
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
