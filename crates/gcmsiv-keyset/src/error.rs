//! The one error type of keysets.
//!
//! A malformed keyset gets a description that names the key id where there is
//! one, never key material. A ciphertext that no key opens is
//! [`Error::Authentication`] and nothing more, except where its prefix names a
//! key that the keyset cannot use (disabled, destroyed, absent): the prefix is
//! public, and saying so is what makes a rotation mistake quick to find.

use core::fmt;

use crate::key::{KeyStatus, OutputPrefix};

/// A failure of the key-encryption AEAD (a cloud KMS's, say), kept as its source.
pub type KeyEncryptionError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What went wrong; see each variant.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The bytes are not a keyset in the format asked for (bad protobuf, bad JSON,
    /// bad Base64, an unknown enum name); the reason.
    Malformed(String),
    /// A key of a type other than `AesGcmSivKey` and `AesGcmKey`.
    UnsupportedKeyType {
        /// The key's id.
        key_id: u32,
        /// The key's type URL.
        type_url: String,
    },
    /// A key whose material is not a valid key of its type (its length, its version).
    InvalidKey {
        /// The key's id.
        key_id: u32,
        /// What is wrong, without the material.
        reason: String,
    },
    /// A keyset with no key that is not destroyed.
    Empty,
    /// Two keys with the same id.
    DuplicateKeyId(u32),
    /// The primary key id names no key of the keyset.
    NoPrimary(u32),
    /// The primary key is disabled or destroyed.
    PrimaryNotEnabled {
        /// The primary key's id.
        key_id: u32,
        /// Its status.
        status: KeyStatus,
    },
    /// No key has this id.
    UnknownKeyId(u32),
    /// A rotation step that the key's state does not allow (the reason).
    Refused {
        /// The key's id.
        key_id: u32,
        /// Why.
        reason: &'static str,
    },
    /// The ciphertext's prefix names a key that is disabled or destroyed, and no
    /// other key opened it.
    KeyNotEnabled {
        /// The key named by the ciphertext.
        key_id: u32,
        /// Its status.
        status: KeyStatus,
        /// The prefix's kind.
        prefix: OutputPrefix,
    },
    /// The ciphertext's prefix names a key id the keyset does not hold, and the
    /// keyset has no RAW key that could have opened it.
    KeyNotFound {
        /// The key id the prefix names.
        key_id: u32,
    },
    /// No key opened the ciphertext (wrong keyset, wrong associated data, or damage).
    Authentication,
    /// The key-encryption AEAD failed to encrypt or decrypt the keyset.
    KeyEncryption(KeyEncryptionError),
    /// The operating system's random number generator failed.
    RandomSource,
    /// The core crate refused an input (a message over its limits, say).
    Cipher(gcmsiv::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Malformed(reason) => write!(f, "malformed keyset: {reason}"),
            Error::UnsupportedKeyType { key_id, type_url } => {
                write!(f, "key {key_id} has type {type_url}, which is not AES-GCM-SIV or AES-GCM")
            }
            Error::InvalidKey { key_id, reason } => write!(f, "key {key_id} is invalid: {reason}"),
            Error::Empty => f.write_str("the keyset holds no key that is not destroyed"),
            Error::DuplicateKeyId(id) => write!(f, "the keyset holds key id {id} more than once"),
            Error::NoPrimary(id) => write!(f, "the keyset's primary key id {id} names no key of it"),
            Error::PrimaryNotEnabled { key_id, status } => {
                write!(f, "the primary key {key_id} is {status}: the primary must be enabled")
            }
            Error::UnknownKeyId(id) => write!(f, "no key {id} in the keyset"),
            Error::Refused { key_id, reason } => write!(f, "key {key_id}: {reason}"),
            Error::KeyNotEnabled { key_id, status, prefix } => write!(
                f,
                "the ciphertext names key {key_id} ({prefix} prefix), which is {status} in this keyset"
            ),
            Error::KeyNotFound { key_id } => {
                write!(f, "the ciphertext names key {key_id}, which this keyset does not hold")
            }
            Error::Authentication => f.write_str("authentication failed"),
            Error::KeyEncryption(e) => write!(f, "the key-encryption AEAD failed: {e}"),
            Error::RandomSource => f.write_str("the operating system's random number generator failed"),
            Error::Cipher(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::KeyEncryption(e) => Some(e.as_ref()),
            Error::Cipher(e) => Some(e),
            _ => None,
        }
    }
}
