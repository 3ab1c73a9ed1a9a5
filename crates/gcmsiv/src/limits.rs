//! Each algorithm's length limits, and the one check of a call's lengths
//! against them, made before any work.
//!
//! Every way in (the typed ciphers, [`Cipher`](crate::Cipher), batches, and
//! through `Cipher`'s checks the C ABI and the bindings) runs this check, so
//! one misuse gets one error whichever way it arrives.

use crate::Error;

/// Nonce length in bytes (RFC 8452 section 4: N_MIN = N_MAX = 12).
pub const NONCE_LEN: usize = 12;
/// Tag length in bytes (RFC 8452 section 4).
pub const TAG_LEN: usize = 16;
/// Longest plaintext, in bytes: P_MAX = 2^36 (RFC 8452 section 6).
pub const P_MAX: u64 = 1 << 36;
/// Longest associated data, in bytes: A_MAX = 2^36 (RFC 8452 section 6).
pub const A_MAX: u64 = 1 << 36;
/// Longest ciphertext including the tag, in bytes: C_MAX = 2^36 + 16 (RFC 8452 section 6).
pub const C_MAX: u64 = (1 << 36) + 16;

/// Longest plaintext, in bytes: 2^39 - 256 bits (SP 800-38D section 5.2.1.1).
pub const GCM_P_MAX: u64 = (1 << 36) - 32;
/// Longest associated data, in bytes: 2^64 - 1 bits, rounded down to whole bytes.
pub const GCM_A_MAX: u64 = (1 << 61) - 1;
/// Shortest IV, in bytes (the spec's minimum is 1 bit; this API takes bytes).
pub const GCM_IV_MIN: usize = 1;
/// Longest IV, in bytes: 2^64 - 1 bits, rounded down to whole bytes.
pub const GCM_IV_MAX: u64 = (1 << 61) - 1;

pub mod usage;

/// log2 of the most messages one key may seal under random 96-bit nonces,
/// each message's plaintext and associated data together at most `len` bytes,
/// for an attacker's advantage of at most 2^-32, rounded down to a power of
/// two: [`usage::messages_per_key_log2`] with [`usage::NonceUse::Random`],
/// whose documentation states the bound and every assumption. 2^62 for up to
/// 64 KiB (the key derivation's term, 3N/2^96, decides), 2^53 for up to 16
/// MiB, 2^37 for up to 4 GiB.
///
/// RFC 8452 section 9's own table (2^64 messages of 2^13 blocks, 2^48 of
/// 2^21, 2^32 of 2^29) counts one term of the bound, the derived keys'
/// N * B_max^2 / 2^129, with B_max = 2^m: its first row leaves out the key
/// derivation's term, which alone allows only 2^64 / 3 messages.
pub const fn random_nonce_messages_log2(len: u64) -> u32 {
    usage::messages_per_key_log2(len, usage::NonceUse::Random)
}

/// log2 of the most messages one key may seal under a single nonce (the
/// deterministic use: equal inputs give equal ciphertexts), each message's
/// plaintext and associated data together at most `len` bytes, for an
/// advantage of at most 2^-32, rounded down to a power of two:
/// [`usage::messages_per_key_log2`] with [`usage::NonceUse::Single`]. 2^46 for
/// up to 16 bytes, 2^38 for up to 16 KiB.
pub const fn single_nonce_messages_log2(len: u64) -> u32 {
    usage::messages_per_key_log2(len, usage::NonceUse::Single)
}

/// One algorithm's limits, in bytes. AES-128 and AES-256 share them.
///
/// The fields are open to the crate so that an algorithm defined elsewhere
/// (the research module's variants) keeps its limits beside its definition
/// and checks them with the same [`Limits::check_seal`] and
/// [`Limits::check_open`].
pub(crate) struct Limits {
    pub(crate) nonce_min: usize,
    pub(crate) nonce_max: u64,
    pub(crate) aad_max: u64,
    pub(crate) plaintext_max: u64,
    /// Without the tag: the length the open calls hold in their buffer.
    pub(crate) ciphertext_max: u64,
}

/// AES-GCM-SIV (RFC 8452 section 6).
pub(crate) const GCM_SIV: Limits = Limits {
    nonce_min: NONCE_LEN,
    nonce_max: NONCE_LEN as u64,
    aad_max: A_MAX,
    plaintext_max: P_MAX,
    ciphertext_max: C_MAX - TAG_LEN as u64,
};

/// AES-GCM (SP 800-38D section 5.2.1.1). Its tag may be truncated, so the
/// ciphertext's limit is the plaintext's: CTR keeps the length.
pub(crate) const GCM: Limits = Limits {
    nonce_min: GCM_IV_MIN,
    nonce_max: GCM_IV_MAX,
    aad_max: GCM_A_MAX,
    plaintext_max: GCM_P_MAX,
    ciphertext_max: GCM_P_MAX,
};

impl Limits {
    /// The checks before sealing a plaintext of `plaintext_len` bytes.
    #[inline]
    pub(crate) fn check_seal(
        &self,
        nonce_len: usize,
        aad_len: usize,
        plaintext_len: usize,
    ) -> Result<(), Error> {
        self.check(nonce_len, aad_len, plaintext_len, self.plaintext_max, Error::PlaintextTooLong)
    }

    /// The checks before opening a ciphertext of `ciphertext_len` bytes, its
    /// tag not counted.
    #[inline]
    pub(crate) fn check_open(
        &self,
        nonce_len: usize,
        aad_len: usize,
        ciphertext_len: usize,
    ) -> Result<(), Error> {
        self.check(nonce_len, aad_len, ciphertext_len, self.ciphertext_max, Error::CiphertextTooLong)
    }

    /// The checks run in the order every call takes its arguments (nonce,
    /// associated data, text), so that a call wrong in several ways reports
    /// the same first fault through every API; and the text, the one length
    /// whose limit and error depend on the direction, comes last.
    #[inline(always)]
    fn check(
        &self,
        nonce_len: usize,
        aad_len: usize,
        text_len: usize,
        text_max: u64,
        too_long: Error,
    ) -> Result<(), Error> {
        self.check_nonce(nonce_len)?;
        if aad_len as u64 > self.aad_max {
            return Err(Error::AadTooLong);
        }
        if text_len as u64 > text_max {
            return Err(too_long);
        }
        Ok(())
    }

    /// A nonce of the wrong length is reported with the nearest length
    /// allowed (as [`Error::InvalidNonceLength`] documents): AES-GCM-SIV's
    /// 12 either way; for AES-GCM, 1 for an empty IV and [`GCM_IV_MAX`] for
    /// one longer than that (no slice can be, but `Cipher`'s checks take
    /// bare lengths). Never 12 for AES-GCM: that is the length to prefer,
    /// not a limit, and reporting it would say the IV must have it.
    #[inline(always)]
    pub(crate) fn check_nonce(&self, nonce_len: usize) -> Result<(), Error> {
        if nonce_len < self.nonce_min {
            return Err(Error::InvalidNonceLength { expected: self.nonce_min, actual: nonce_len });
        }
        if nonce_len as u64 > self.nonce_max {
            // Saturates where usize is narrower than the limit (32-bit
            // targets), though there no length can exceed it.
            let expected = usize::try_from(self.nonce_max).unwrap_or(usize::MAX);
            return Err(Error::InvalidNonceLength { expected, actual: nonce_len });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nonce(expected: usize, actual: usize) -> Result<(), Error> {
        Err(Error::InvalidNonceLength { expected, actual })
    }

    // The limits are 2^36 and more, beyond a 32-bit usize: these two tests
    // reach them on 64-bit targets only, and
    // `no_length_reaches_the_limits_on_32_bit_targets` stands for them there.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn gcm_siv_section6_limits() {
        for len in [0, 11, 13, 16] {
            assert_eq!(GCM_SIV.check_seal(len, 0, 0), nonce(12, len));
            assert_eq!(GCM_SIV.check_open(len, 0, 0), nonce(12, len));
        }
        let (p, a, body) = (P_MAX as usize, A_MAX as usize, (C_MAX - 16) as usize);
        assert_eq!(GCM_SIV.check_seal(12, a, p), Ok(()));
        assert_eq!(GCM_SIV.check_seal(12, 0, p + 1), Err(Error::PlaintextTooLong));
        assert_eq!(GCM_SIV.check_seal(12, a + 1, 0), Err(Error::AadTooLong));
        assert_eq!(GCM_SIV.check_open(12, a, body), Ok(()));
        assert_eq!(GCM_SIV.check_open(12, 0, body + 1), Err(Error::CiphertextTooLong));
        assert_eq!(GCM_SIV.check_open(12, a + 1, 0), Err(Error::AadTooLong));
    }

    #[cfg(target_pointer_width = "64")]
    #[test]
    fn gcm_sp800_38d_limits() {
        assert_eq!(GCM.check_seal(0, 0, 0), nonce(1, 0));
        assert_eq!(GCM.check_open(0, 0, 0), nonce(1, 0));
        assert_eq!(GCM.check_seal(1, 0, 0), Ok(()));
        let iv_max = GCM_IV_MAX as usize;
        assert_eq!(GCM.check_seal(iv_max, 0, 0), Ok(()));
        assert_eq!(GCM.check_seal(iv_max + 1, 0, 0), nonce(iv_max, iv_max + 1));
        let (p, a) = (GCM_P_MAX as usize, GCM_A_MAX as usize);
        assert_eq!(GCM.check_seal(12, a, p), Ok(()));
        assert_eq!(GCM.check_seal(12, 0, p + 1), Err(Error::PlaintextTooLong));
        assert_eq!(GCM.check_seal(12, a + 1, 0), Err(Error::AadTooLong));
        assert_eq!(GCM.check_open(12, a, p), Ok(()));
        assert_eq!(GCM.check_open(12, 0, p + 1), Err(Error::CiphertextTooLong));
    }

    /// Nonce, then associated data, then the text, in both directions.
    #[test]
    fn one_order() {
        for limits in [&GCM_SIV, &GCM] {
            let huge = usize::MAX;
            assert!(matches!(limits.check_seal(0, huge, huge), Err(Error::InvalidNonceLength { .. })));
            assert!(matches!(limits.check_open(0, huge, huge), Err(Error::InvalidNonceLength { .. })));
            #[cfg(target_pointer_width = "64")]
            {
                assert_eq!(limits.check_seal(12, huge, huge), Err(Error::AadTooLong));
                assert_eq!(limits.check_open(12, huge, huge), Err(Error::AadTooLong));
            }
        }
    }

    /// Where usize is narrower than the limits, every length passes them.
    #[cfg(not(target_pointer_width = "64"))]
    #[test]
    fn no_length_reaches_the_limits_on_32_bit_targets() {
        let huge = usize::MAX;
        assert!(huge as u64 <= P_MAX.min(A_MAX).min(GCM_P_MAX));
        for limits in [&GCM_SIV, &GCM] {
            assert_eq!(limits.check_seal(12, huge, huge), Ok(()));
            assert_eq!(limits.check_open(12, huge, huge), Ok(()));
        }
        assert_eq!(GCM.check_seal(huge, 0, 0), Ok(()));
        assert_eq!(GCM_SIV.check_seal(13, 0, 0), nonce(12, 13));
    }
}

#[cfg(test)]
mod usage_figures {
    use super::*;

    /// The figures are constants where a caller needs them as such.
    const RANDOM_64K: u32 = random_nonce_messages_log2(1 << 16);
    const SINGLE_16: u32 = single_nonce_messages_log2(16);

    #[test]
    fn the_figures_the_documents_state() {
        assert_eq!((RANDOM_64K, SINGLE_16), (62, 46));
        // Random nonces: 2^62 up to 64 KiB, 2^53 up to 16 MiB, 2^37 up to 4 GiB.
        for (len, n) in [(16, 62), (1 << 16, 62), (1 << 24, 53), (1 << 32, 37)] {
            assert_eq!(random_nonce_messages_log2(len), n, "{len}");
        }
        for (len, q) in [(16, 46), (1 << 14, 38)] {
            assert_eq!(single_nonce_messages_log2(len), q, "{len}");
        }
    }
}
