//! Tink keysets for AES-GCM-SIV and AES-GCM, on the `gcmsiv` crate.
//!
//! A keyset is a list of keys with ids, one of them primary. Encryption uses
//! the primary; each ciphertext starts with its key's id (a 5-byte prefix), so
//! decryption finds the key without trying them all, and a key can be rotated
//! without re-encrypting what the old one sealed. This crate reads and writes
//! Tink's keysets (JSON and binary protobuf; `AesGcmSivKey` and `AesGcmKey`
//! keys; TINK, LEGACY, CRUNCHY and RAW prefixes), and its ciphertexts are
//! Tink's: keysets and data move between Tink and this crate both ways.
//!
//! ```
//! use gcmsiv_keyset::{Keyset, Template};
//! let keyset = Keyset::from_cleartext_json(r#"{
//!   "primaryKeyId": 1470622833,
//!   "key": [{
//!     "keyData": {
//!       "typeUrl": "type.googleapis.com/google.crypto.tink.AesGcmSivKey",
//!       "value": "GhDA237F1U/Z1NPaUFYynuke",
//!       "keyMaterialType": "SYMMETRIC"
//!     },
//!     "status": "ENABLED",
//!     "keyId": 1470622833,
//!     "outputPrefixType": "TINK"
//!   }]
//! }"#)?;
//! let sealed = keyset.encrypt(b"plaintext", b"associated data")?;
//! assert_eq!(keyset.decrypt(&sealed, b"associated data")?, b"plaintext");
//! # Ok::<(), gcmsiv_keyset::Error>(())
//! ```
//!
//! # In the clear only by name
//!
//! As with Tink's `CleartextKeysetHandle`, key material is read and written in
//! the clear only by functions whose name says so (`from_cleartext_json`,
//! `to_cleartext_binary`, ...). Otherwise a keyset is encrypted, as Tink's
//! `EncryptedKeyset`, under a key-encryption AEAD the caller supplies through
//! [`KeyEncryption`]: one of the core crate's keys, a key file's
//! ([`key_file_kek`]), another keyset, or a cloud KMS.
//!
//! # Secrets
//!
//! Key material, serialized keysets in the clear and the protobuf messages that
//! hold them are zeroized on drop; `Debug` prints ids, statuses and algorithms
//! only. Malformed keysets are errors, never panics.

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod aead;
mod cleartext;
mod encrypted;
mod error;
mod json;
mod key;
mod keyset;
mod proto;

pub use cleartext::Format;
pub use encrypted::{KEY_FILE_KEK_INFO, KeyEncryption, key_file_kek};
pub use error::{Error, KeyEncryptionError};
pub use gcmsiv::Algorithm;
pub use key::{
    AES_GCM_SIV_TYPE_URL, AES_GCM_TYPE_URL, KeyStatus, OutputPrefix, PREFIX_LEN, Template, type_url,
};
pub use keyset::{KeyInfo, Keyset};
