//! The one error type.
//!
//! Misuse (a wrong key or nonce length, an input over the spec's limits, a buffer
//! too small) is reported before any work, with a description, and alike by
//! every API: lengths are checked in the order the calls take them (nonce,
//! associated data, then the plaintext or ciphertext). Authentication
//! failure is a single opaque variant: rich reasons on that path help attackers
//! and tempt callers into special cases.

use core::fmt;

/// What went wrong; see each variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The key is not the length the algorithm needs.
    InvalidKeyLength {
        /// Bytes the algorithm needs (16 or 32).
        expected: usize,
        /// Bytes given.
        actual: usize,
    },
    /// The nonce is not a length the algorithm takes: 12 bytes for AES-GCM-SIV;
    /// for AES-GCM, whose IV may be 1 to 2^61 - 1 bytes, `expected` is the
    /// nearest length allowed: 1 for an empty IV, 2^61 - 1
    /// ([`GCM_IV_MAX`](crate::GCM_IV_MAX)) for a longer one.
    InvalidNonceLength {
        /// Bytes the algorithm needs (the nearest allowed, where it takes a range).
        expected: usize,
        /// Bytes given.
        actual: usize,
    },
    /// A tag length the algorithm does not allow, or a received tag of another
    /// length than the key was made for.
    InvalidTagLength {
        /// Bytes expected.
        expected: usize,
        /// Bytes given.
        actual: usize,
    },
    /// The plaintext is longer than the algorithm allows for one message.
    PlaintextTooLong,
    /// The associated data is longer than the algorithm allows.
    AadTooLong,
    /// The ciphertext is longer than any valid ciphertext.
    CiphertextTooLong,
    /// The input is shorter than a tag, so it cannot be a ciphertext.
    CiphertextTooShort,
    /// The caller's output buffer is too small.
    BufferTooSmall {
        /// Bytes the output needs.
        needed: usize,
        /// Bytes the buffer has.
        actual: usize,
    },
    /// The requested backend is not supported by this CPU or build.
    BackendUnavailable,
    /// The operating system's random number generator failed (random-nonce
    /// calls only).
    RandomSource,
    /// The ciphertext, tag, nonce, associated data or key is wrong. Nothing more
    /// is said, and no plaintext is released.
    Authentication,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::InvalidKeyLength { expected, actual } => {
                write!(f, "invalid key length: expected {expected} bytes, got {actual}")
            }
            Error::InvalidNonceLength { expected, actual } => {
                write!(f, "invalid nonce length: expected {expected} bytes, got {actual}")
            }
            Error::InvalidTagLength { expected, actual } => {
                write!(f, "invalid tag length: expected {expected} bytes, got {actual}")
            }
            Error::PlaintextTooLong => f.write_str("plaintext too long for one message"),
            Error::AadTooLong => f.write_str("associated data too long"),
            Error::CiphertextTooLong => f.write_str("ciphertext too long"),
            Error::CiphertextTooShort => f.write_str("ciphertext shorter than the authentication tag"),
            Error::RandomSource => f.write_str("the operating system's random number generator failed"),
            Error::BufferTooSmall { needed, actual } => {
                write!(f, "output buffer too small: need {needed} bytes, have {actual}")
            }
            Error::BackendUnavailable => f.write_str("backend not supported on this CPU"),
            Error::Authentication => f.write_str("authentication failed"),
        }
    }
}

impl core::error::Error for Error {}
