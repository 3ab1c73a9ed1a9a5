//! Hazardous materials: the building blocks of AES-GCM-SIV for users who build
//! their own constructions on them.
//!
//! Nothing here is an AEAD. POLYVAL is a universal hash, not a MAC: it is secure
//! only with a fresh, secret key per message, and its output must be encrypted.
//! Record keys are secrets as valuable as the messages they protect.

use crate::Error;
use crate::backend::{Backend, FromProof, Polyval as _, hw, soft};
use crate::dispatch::{Dispatch, dispatch};
use crate::limits::NONCE_LEN;
use core::fmt;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// POLYVAL (RFC 8452 section 3): POLYVAL(H, X_1, ..., X_s) = S_s, where S_0 = 0
/// and S_j = dot(S_(j-1) + X_j, H) in GF(2^128) modulo
/// x^128 + x^127 + x^126 + x^121 + 1, with dot(a, b) = a * b * x^-128.
///
/// Byte order: a 16-byte block is a little-endian polynomial, bit `i` of byte `j`
/// being the coefficient of x^(8j + i).
///
/// ```
/// use gcmsiv::hazmat::Polyval;
/// let h = [0x25, 0x62, 0x93, 0x47, 0x58, 0x92, 0x42, 0x76, 0x1d, 0x31, 0xf8, 0x26, 0xba, 0x4b, 0x75, 0x7b];
/// let mut p = Polyval::new(&h);
/// p.update_padded(&[0x4f, 0x4f, 0x95, 0x66, 0x8c, 0x83, 0xdf, 0xb6, 0x40, 0x17, 0x62, 0xbb, 0x2d, 0x01, 0xa2, 0x62]);
/// p.update_padded(&[0xd1, 0xa2, 0x4d, 0xdd, 0x27, 0x21, 0xd0, 0x06, 0xbb, 0xe4, 0x5f, 0x20, 0xd3, 0xc9, 0xf3, 0x62]);
/// // RFC 8452 Appendix A.
/// assert_eq!(p.finalize()[..4], [0xf7, 0xa3, 0xb4, 0x7b]);
/// ```
#[derive(Clone)]
pub struct Polyval {
    inner: Dispatch<soft::Polyval, hw::Polyval>,
}

impl Polyval {
    /// POLYVAL keyed with `h`, on the fastest backend this CPU supports.
    pub fn new(h: &[u8; 16]) -> Self {
        Self::with_backend(h, Backend::select()).expect("internal error: selected backend unavailable")
    }

    /// POLYVAL on a chosen backend.
    pub fn with_backend(h: &[u8; 16], backend: Backend) -> Result<Self, Error> {
        let inner =
            Dispatch::build(backend, || soft::Polyval::new(h), |proof| hw::Polyval::from_proof(proof, h))?;
        Ok(Polyval { inner })
    }

    /// Absorbs `data` as blocks, zero-padding its final partial block (as
    /// AES-GCM-SIV pads the associated data and the plaintext). Each call pads
    /// on its own: to hash one long string in pieces, pass whole blocks until the end.
    pub fn update_padded(&mut self, data: &[u8]) {
        dispatch!(mut self, p => p.update_padded(data))
    }

    /// The current value S_j.
    pub fn finalize(&self) -> [u8; 16] {
        dispatch!(self, p => p.finalize())
    }
}

impl fmt::Debug for Polyval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Polyval").finish_non_exhaustive()
    }
}

/// The per-nonce keys of RFC 8452 section 4: `message_authentication_key` (the
/// POLYVAL key) and `message_encryption_key` (`N` bytes, the AES key size).
/// Zeroized on drop; `Debug` prints neither.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub struct RecordKeys<const N: usize> {
    authentication_key: [u8; 16],
    encryption_key: [u8; N],
}

impl<const N: usize> RecordKeys<N> {
    pub(crate) fn from_parts(authentication_key: &[u8; 16], encryption_key: &[u8]) -> Self {
        RecordKeys {
            authentication_key: *authentication_key,
            encryption_key: encryption_key.try_into().expect("internal error: record key length"),
        }
    }

    /// message_authentication_key: the POLYVAL key for this nonce.
    pub fn authentication_key(&self) -> &[u8; 16] {
        &self.authentication_key
    }

    /// message_encryption_key: the AES key for this nonce's tag and CTR.
    pub fn encryption_key(&self) -> &[u8; N] {
        &self.encryption_key
    }
}

impl<const N: usize> fmt::Debug for RecordKeys<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordKeys").finish_non_exhaustive()
    }
}

/// Per-nonce record-key derivation (RFC 8452 section 4), on the cipher's backend.
///
/// ```
/// use gcmsiv::{hazmat::DeriveRecordKeys, Aes128GcmSiv};
/// let mut key = [0u8; 16];
/// key[0] = 1;
/// let mut nonce = [0u8; 12];
/// nonce[0] = 3;
/// let keys = Aes128GcmSiv::new(&key).derive_record_keys(&nonce);
/// // RFC 8452 Appendix C.1, first vector.
/// assert_eq!(keys.authentication_key()[..4], [0xd9, 0xb3, 0x60, 0x27]);
/// ```
pub trait DeriveRecordKeys: private::Sealed {
    /// [`RecordKeys`] of the cipher's key size.
    type RecordKeys;
    /// Encrypts LE32(i) || nonce under the key-generating key and keeps the first
    /// half of each block.
    fn derive_record_keys(&self, nonce: &[u8; NONCE_LEN]) -> Self::RecordKeys;
}

/// Only the crate's typed AES-GCM-SIV keys implement [`DeriveRecordKeys`]
/// (`aes_gcm_siv.rs`, beside their implementation of it).
pub(crate) mod private {
    pub trait Sealed {}
}
