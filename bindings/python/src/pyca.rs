//! The two algorithms behind one small trait, with pyca/cryptography's rules for keys
//! and nonces, so the Python calls are written once. Batches use the core's batch path
//! where it has one (AES-GCM-SIV) and a loop otherwise (AES-GCM).

use crate::InvalidTag;
use gcmsiv::{Aes128Gcm, Aes128GcmSiv, Aes256Gcm, Aes256GcmSiv, BatchItem, Error};
use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;

/// Tag length of every ciphertext this package makes or opens: 16 bytes, as pyca's.
pub(crate) const TAG_LEN: usize = 16;

/// The longest nonce any class accepts (AESGCM: pyca allows 8 to 128 bytes).
pub(crate) const NONCE_MAX: usize = 128;

/// An AEAD keyed for one of this package's classes.
pub(crate) trait Aead: Send + Sync + Sized {
    /// pyca's message for a key of a length the class does not take.
    const KEY_ERROR: &'static str;

    /// A cipher for `key`, 16 or 32 bytes.
    fn from_key(key: &[u8]) -> Result<Self, Error>;

    /// pyca's nonce-length rule, checked before any work.
    fn check_nonce(len: usize) -> PyResult<()>;

    /// Encrypts `buffer` in place; returns the tag.
    fn seal(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<[u8; TAG_LEN], Error>;

    /// Decrypts `buffer` in place if `tag` authenticates it; otherwise leaves the ciphertext in it.
    fn open(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<(), Error>;

    /// Seals every job of a batch, one after the other unless the core has a batch path.
    fn seal_all(&self, jobs: &mut [SealJob<'_>]) -> Result<(), Error> {
        for job in jobs {
            job.tag.copy_from_slice(&self.seal(job.nonce, job.aad, job.body)?);
        }
        Ok(())
    }

    /// Opens every job of a batch: `authentic[i]` for job `i`, whose body holds its ciphertext
    /// if false.
    fn open_all(&self, jobs: &mut [OpenJob<'_>], authentic: &mut Vec<bool>) -> Result<(), Error> {
        for job in jobs {
            authentic.push(authenticated(self.open(job.nonce, job.aad, job.body, &job.tag))?);
        }
        Ok(())
    }
}

/// One message of a batch to seal: the body in place, the tag into `tag`.
pub(crate) struct SealJob<'a> {
    pub(crate) nonce: &'a [u8],
    pub(crate) aad: &'a [u8],
    pub(crate) body: &'a mut [u8],
    pub(crate) tag: &'a mut [u8],
}

/// One message of a batch to open in place.
pub(crate) struct OpenJob<'a> {
    pub(crate) nonce: &'a [u8],
    pub(crate) aad: &'a [u8],
    pub(crate) body: &'a mut [u8],
    pub(crate) tag: [u8; TAG_LEN],
}

/// Whether an opening was authentic; misuse errors pass through.
fn authenticated(result: Result<(), Error>) -> Result<bool, Error> {
    match result {
        Ok(()) => Ok(true),
        Err(Error::Authentication) => Ok(false),
        Err(other) => Err(other),
    }
}

/// AES-GCM-SIV (RFC 8452) with a 128- or 256-bit key.
#[allow(clippy::large_enum_variant, reason = "one per Python key object, itself on the heap")]
pub(crate) enum Siv {
    Aes128(Aes128GcmSiv),
    Aes256(Aes256GcmSiv),
}

impl Aead for Siv {
    const KEY_ERROR: &'static str = "AES-GCM-SIV key must be 128 or 256 bits.";

    fn from_key(key: &[u8]) -> Result<Self, Error> {
        Ok(match key.len() {
            16 => Siv::Aes128(Aes128GcmSiv::new_from_slice(key)?),
            _ => Siv::Aes256(Aes256GcmSiv::new_from_slice(key)?),
        })
    }

    fn check_nonce(len: usize) -> PyResult<()> {
        if len == gcmsiv::NONCE_LEN {
            Ok(())
        } else {
            Err(PyValueError::new_err("Nonce must be 12 bytes long"))
        }
    }

    fn seal(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<[u8; TAG_LEN], Error> {
        let nonce = gcmsiv::nonce_from_slice(nonce)?;
        match self {
            Siv::Aes128(c) => c.encrypt_in_place_detached(nonce, aad, buffer),
            Siv::Aes256(c) => c.encrypt_in_place_detached(nonce, aad, buffer),
        }
    }

    fn open(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<(), Error> {
        let nonce = gcmsiv::nonce_from_slice(nonce)?;
        match self {
            Siv::Aes128(c) => c.decrypt_in_place_detached(nonce, aad, buffer, tag),
            Siv::Aes256(c) => c.decrypt_in_place_detached(nonce, aad, buffer, tag),
        }
    }

    /// The core's batch path: several short messages' set-up interleaved.
    fn seal_all(&self, jobs: &mut [SealJob<'_>]) -> Result<(), Error> {
        let mut items = jobs
            .iter_mut()
            .map(|job| Ok(BatchItem::new(gcmsiv::nonce_from_slice(job.nonce)?, job.aad, &mut *job.body)))
            .collect::<Result<Vec<_>, Error>>()?;
        match self {
            Siv::Aes128(c) => c.encrypt_batch(&mut items)?,
            Siv::Aes256(c) => c.encrypt_batch(&mut items)?,
        }
        let tags: Vec<[u8; TAG_LEN]> = items.iter().map(|item| item.tag).collect();
        drop(items);
        for (job, tag) in jobs.iter_mut().zip(tags) {
            job.tag.copy_from_slice(&tag);
        }
        Ok(())
    }

    fn open_all(&self, jobs: &mut [OpenJob<'_>], authentic: &mut Vec<bool>) -> Result<(), Error> {
        let mut items = jobs
            .iter_mut()
            .map(|job| {
                Ok(BatchItem::with_tag(
                    gcmsiv::nonce_from_slice(job.nonce)?,
                    job.aad,
                    &mut *job.body,
                    job.tag,
                ))
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let mut results = vec![Ok(()); items.len()];
        match self {
            Siv::Aes128(c) => c.decrypt_batch(&mut items, &mut results)?,
            Siv::Aes256(c) => c.decrypt_batch(&mut items, &mut results)?,
        }
        for result in results {
            authentic.push(authenticated(result)?);
        }
        Ok(())
    }
}

/// AES-GCM (NIST SP 800-38D) with a 128- or 256-bit key and 16-byte tags.
#[allow(clippy::large_enum_variant, reason = "one per Python key object, itself on the heap")]
pub(crate) enum Gcm {
    Aes128(Aes128Gcm),
    Aes256(Aes256Gcm),
}

impl Aead for Gcm {
    const KEY_ERROR: &'static str = "AESGCM key must be 128 or 256 bits.";

    fn from_key(key: &[u8]) -> Result<Self, Error> {
        Ok(match key.len() {
            16 => Gcm::Aes128(Aes128Gcm::new_from_slice(key)?),
            _ => Gcm::Aes256(Aes256Gcm::new_from_slice(key)?),
        })
    }

    fn check_nonce(len: usize) -> PyResult<()> {
        if (8..=NONCE_MAX).contains(&len) {
            Ok(())
        } else {
            Err(PyValueError::new_err("Nonce must be between 8 and 128 bytes"))
        }
    }

    fn seal(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<[u8; TAG_LEN], Error> {
        let tag = match self {
            Gcm::Aes128(c) => c.encrypt_in_place_detached(nonce, aad, buffer)?,
            Gcm::Aes256(c) => c.encrypt_in_place_detached(nonce, aad, buffer)?,
        };
        Ok(tag.as_bytes().try_into().expect("internal error: GCM key made with a short tag"))
    }

    fn open(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8], tag: &[u8; TAG_LEN]) -> Result<(), Error> {
        match self {
            Gcm::Aes128(c) => c.decrypt_in_place_detached(nonce, aad, buffer, tag),
            Gcm::Aes256(c) => c.decrypt_in_place_detached(nonce, aad, buffer, tag),
        }
    }
}

/// The Python exception for a core error. Every authentication failure is the one opaque
/// `InvalidTag`; inputs over the algorithm's limits are `OverflowError`, as in pyca.
pub(crate) fn to_py_err(error: Error) -> PyErr {
    match error {
        Error::Authentication | Error::CiphertextTooShort => InvalidTag::new_err(()),
        Error::PlaintextTooLong | Error::AadTooLong | Error::CiphertextTooLong => {
            PyOverflowError::new_err(format!("Data or associated data too long: {error}"))
        }
        other => PyValueError::new_err(other.to_string()),
    }
}
