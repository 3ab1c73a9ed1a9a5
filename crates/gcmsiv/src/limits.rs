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

/// Usage bounds per key (RFC 8452 section 9, from Gueron and Lindell, "Better
/// Bounds for Block Cipher Modes of Operation via Nonce-Based Key
/// Derivation", Theorems 6.2 and 6.4): the attacker's advantage stays at most
/// 2^-32 when, with N distinct nonces, at most B_max blocks under one nonce,
/// Q_i messages under nonce i and every message at most 2^m blocks,
///
/// ```text
/// 3N/2^96 + N * B_max^2 / 2^129 + sum_i Q_i^2 / 2^(126 - m) <= 2^-32
/// ```
///
/// A message's blocks are what POLYVAL reads (RFC 8452 section 4): its
/// associated data and its plaintext, each padded to 16 bytes, and the length
/// block. For `len` bytes of the two together that is at most
/// `ceil(len / 16) + 2` blocks; m is the least with that many at most 2^m.
const fn blocks_log2(len: u64) -> u32 {
    let blocks = len.div_ceil(16) + 2;
    u64::BITS - (blocks - 1).leading_zeros()
}

/// The least k with `x <= 2^k` (`x` at least 1).
const fn ceil_log2(x: u128) -> u32 {
    u128::BITS - (x - 1).leading_zeros()
}

/// log2 of the most messages one key may seal under random 96-bit nonces,
/// each message's plaintext and associated data together at most `len` bytes,
/// rounded down to a power of two. The one place the random-nonce figure
/// comes from: 2^62 for up to 64 KiB, 2^48 for up to 16 MiB, 2^32 for up to
/// 4 GiB.
///
/// Derivation (see above). Every message has a nonce of its own but for
/// chance repeats, and Theorem 6.4 allows up to 8 messages under one random
/// nonce (a ninth is out of reach long before these counts: RFC 8452 section 9
/// puts even 256 repeats at about 2^102 messages), so B_max = 2^(m+3) and
/// the advantage is at most N (3/2^96 + 2^(2(m+3))/2^129). Times 2^123 on
/// both sides, N (3 * 2^27 + 2^(2m)) <= 2^91, so
/// N = 2^(91 - ceil(log2(3 * 2^27 + 2^(2m)))). For short messages the
/// key-derivation term 3N/2^96 decides: N <= 2^64 / 3, so 2^62 whatever the
/// length up to 64 KiB. RFC 8452 section 9's own table (2^64 messages of
/// 128 KiB, 2^48 of 32 MiB, 2^32 of 8 GiB) counts only the middle term, and
/// only the plaintext's blocks. With the other terms and blocks counted, each
/// of its rows holds for messages of half that size, the first for 2^62
/// messages rather than 2^64.
pub const fn random_nonce_messages_log2(len: u64) -> u32 {
    let m = blocks_log2(len);
    91 - ceil_log2(3 * (1 << 27) + (1u128 << (2 * m)))
}

/// log2 of the most messages one key may seal under a single nonce (the
/// deterministic use: equal inputs give equal ciphertexts), each message's
/// plaintext and associated data together at most `len` bytes, rounded down
/// to a power of two: 2^45 for up to 16 bytes, 2^37 for up to 16 KiB.
///
/// Derivation (see above): N = 1, Q messages, B_max = Q * 2^m, so the
/// advantage is at most 3/2^96 + Q^2 (2^(2m-129) + 2^(m-126)); the first
/// term is negligible. Times 2^129, Q^2 (2^(2m) + 2^(m+3)) <= 2^97, so
/// 2 log2(Q) <= 97 - ceil(log2(2^(2m) + 2^(m+3))).
pub const fn single_nonce_messages_log2(len: u64) -> u32 {
    let m = blocks_log2(len);
    (97 - ceil_log2((1u128 << (2 * m)) + (1u128 << (m + 3)))) / 2
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
mod usage_bounds {
    use super::*;

    /// The bound at `n` messages of `len` bytes, times 2^123 (random
    /// nonces) or 2^129 (one nonce), computed directly against its limit.
    fn random_within(n: u32, len: u64) -> bool {
        let m = blocks_log2(len);
        (3u128 << (27 + n)) + (1u128 << (2 * m + n)) <= 1u128 << 91
    }

    fn single_within(q: u32, len: u64) -> bool {
        let m = blocks_log2(len);
        (1u128 << (2 * m + 2 * q)) + (1u128 << (m + 3 + 2 * q)) <= 1u128 << 97
    }

    #[test]
    fn each_figure_is_the_largest_power_of_two_within_the_bound() {
        for len in [0, 1, 16, 17, 64, 256, 1 << 10, 1 << 14, 1 << 16, 1 << 17, 1 << 24, 1 << 32, P_MAX] {
            let n = random_nonce_messages_log2(len);
            assert!(random_within(n, len) && !random_within(n + 1, len), "{len}");
            let q = single_nonce_messages_log2(len);
            assert!(single_within(q, len) && !single_within(q + 1, len), "{len}");
        }
    }

    #[test]
    fn the_figures_the_documents_state() {
        // Random nonces: 2^62 up to 64 KiB, 2^48 up to 16 MiB, 2^32 up to 4 GiB.
        for (len, n) in [(16, 62), (1 << 16, 62), (1 << 17, 61), (1 << 24, 48), (1 << 25, 46), (1 << 32, 32)]
        {
            assert_eq!(random_nonce_messages_log2(len), n, "{len}");
        }
        // One nonce (docs/ARROW.md's deterministic column): the 16-byte row
        // counts three blocks (two padded pieces and the length block).
        for (len, q) in [(16, 45), (64, 45), (256, 43), (1 << 10, 41), (1 << 14, 37)] {
            assert_eq!(single_nonce_messages_log2(len), q, "{len}");
        }
    }
}
