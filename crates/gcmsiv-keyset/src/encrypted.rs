//! Encrypted keysets, as Tink's `EncryptedKeyset`: the serialized keyset sealed
//! by a key-encryption AEAD (with empty associated data unless the caller gives
//! some, as Tink's `KeysetHandle.write` and `read`), beside a `KeysetInfo` that
//! lists the keys without their material. The info is not authenticated: it is
//! written for Tink's tools and never trusted when reading.

use hkdf::Hkdf;
use prost::Message;
use sha2::Sha256;
use zeroize::Zeroizing;

use gcmsiv::{Aes128Gcm, Aes128GcmSiv, Aes256Gcm, Aes256GcmSiv, Cipher};

use crate::cleartext::{Format, decode_keyset};
use crate::error::{Error, KeyEncryptionError};
use crate::json;
use crate::keyset::Keyset;
use crate::proto;

/// The AEAD that seals a keyset: one of this crate's keys, or a cloud KMS.
///
/// Ciphertexts are whatever the AEAD makes; Tink reads a keyset sealed here
/// when its own AEAD makes and opens the same bytes. The implementations for
/// the core crate's keys seal as `nonce (12 random bytes) || ciphertext || tag`,
/// which is Tink's AEAD of a RAW key of the same algorithm and bytes (an
/// `AES256_GCM_SIV_RAW` keyset, say); a [`Keyset`] seals as Tink's keyset AEAD.
///
/// To keep the key-encryption key in a cloud KMS, implement this trait with
/// the KMS's encrypt and decrypt calls (for Tink's KMS AEADs, the KMS's own
/// ciphertext is the whole output, and the associated data goes to the KMS as
/// its additional authenticated data):
///
/// ```
/// use gcmsiv_keyset::{KeyEncryption, KeyEncryptionError};
/// use zeroize::Zeroizing;
///
/// struct CloudKms { key_name: String }
///
/// impl KeyEncryption for CloudKms {
///     fn encrypt(&self, plaintext: &[u8], associated_data: &[u8]) -> Result<Vec<u8>, KeyEncryptionError> {
///         // e.g. the KMS client's encrypt(self.key_name, plaintext, associated_data)
///         Err(format!("no KMS in this example ({})", self.key_name).into())
///     }
///     fn decrypt(&self, ciphertext: &[u8], associated_data: &[u8]) -> Result<Zeroizing<Vec<u8>>, KeyEncryptionError> {
///         Err("no KMS in this example".into())
///     }
/// }
/// ```
pub trait KeyEncryption {
    /// Seals a serialized keyset.
    fn encrypt(&self, plaintext: &[u8], associated_data: &[u8]) -> Result<Vec<u8>, KeyEncryptionError>;
    /// Opens what [`KeyEncryption::encrypt`] sealed; the result is a secret.
    fn decrypt(
        &self,
        ciphertext: &[u8],
        associated_data: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>, KeyEncryptionError>;
}

macro_rules! random_nonce_key_encryption {
    ($($key:ty),*) => {$(
        /// `nonce || ciphertext || tag` under a random nonce (the key's
        /// `encrypt_random_nonce`).
        impl KeyEncryption for $key {
            fn encrypt(&self, plaintext: &[u8], associated_data: &[u8]) -> Result<Vec<u8>, KeyEncryptionError> {
                Ok(self.encrypt_random_nonce(associated_data, plaintext)?)
            }
            fn decrypt(
                &self,
                ciphertext: &[u8],
                associated_data: &[u8],
            ) -> Result<Zeroizing<Vec<u8>>, KeyEncryptionError> {
                Ok(Zeroizing::new(self.decrypt_random_nonce(associated_data, ciphertext)?))
            }
        }
    )*};
}

random_nonce_key_encryption!(Aes128GcmSiv, Aes256GcmSiv, Aes128Gcm, Aes256Gcm, Cipher);

/// Tink's keyset AEAD: the primary key's prefix, then `nonce || ciphertext || tag`.
impl KeyEncryption for Keyset {
    fn encrypt(&self, plaintext: &[u8], associated_data: &[u8]) -> Result<Vec<u8>, KeyEncryptionError> {
        Ok(Keyset::encrypt(self, plaintext, associated_data)?)
    }
    fn decrypt(
        &self,
        ciphertext: &[u8],
        associated_data: &[u8],
    ) -> Result<Zeroizing<Vec<u8>>, KeyEncryptionError> {
        Ok(Zeroizing::new(Keyset::decrypt(self, ciphertext, associated_data)?))
    }
}

/// The HKDF-SHA-256 `info` that derives a keyset's key-encryption key from a
/// gcmsiv key file's 32-byte secret.
pub const KEY_FILE_KEK_INFO: &[u8] = b"gcmsiv keyset encryption key";

/// The key-encryption key that `gcmsiv keyset --master-key FILE` uses: an
/// AES-256-GCM-SIV key, HKDF-SHA-256 of the key file's secret (no salt, `info`
/// [`KEY_FILE_KEK_INFO`]), so the same file never keys two different uses.
/// Tink reads keysets sealed with it through an `AES256_GCM_SIV_RAW` keyset of
/// the derived 32 bytes.
pub fn key_file_kek(secret: &[u8; 32]) -> Aes256GcmSiv {
    let mut okm = Zeroizing::new([0u8; 32]);
    Hkdf::<Sha256>::new(None, secret)
        .expand(KEY_FILE_KEK_INFO, okm.as_mut_slice())
        .expect("internal error: HKDF length");
    Aes256GcmSiv::new(&okm)
}

impl Keyset {
    /// Reads an encrypted keyset in Tink's JSON, sealed with empty associated data.
    pub fn from_encrypted_json(text: &str, kek: &impl KeyEncryption) -> Result<Self, Error> {
        Self::from_encrypted(text.as_bytes(), Format::Json, kek, b"")
    }

    /// Reads an encrypted keyset in Tink's binary protobuf, sealed with empty
    /// associated data.
    pub fn from_encrypted_binary(bytes: &[u8], kek: &impl KeyEncryption) -> Result<Self, Error> {
        Self::from_encrypted(bytes, Format::Binary, kek, b"")
    }

    /// Reads an encrypted keyset (`KeysetHandle.read_with_associated_data`):
    /// opens it with `kek` and checks it as a cleartext one.
    pub fn from_encrypted(
        bytes: &[u8],
        format: Format,
        kek: &impl KeyEncryption,
        associated_data: &[u8],
    ) -> Result<Self, Error> {
        let sealed = match format {
            Format::Json => json::encrypted_from_json(bytes)?,
            Format::Binary => {
                proto::EncryptedKeyset::decode(bytes)
                    .map_err(|e| Error::Malformed(format!("not a Tink encrypted keyset: {e}")))?
                    .encrypted_keyset
            }
        };
        if sealed.is_empty() {
            return Err(Error::Malformed("no encrypted keyset in it: is it a cleartext keyset?".to_string()));
        }
        let opened = kek.decrypt(&sealed, associated_data).map_err(Error::KeyEncryption)?;
        Keyset::from_proto(&decode_keyset(&opened)?)
    }

    /// The keyset sealed by `kek` in Tink's JSON, with empty associated data.
    pub fn to_encrypted_json(&self, kek: &impl KeyEncryption) -> Result<String, Error> {
        let bytes = self.to_encrypted(Format::Json, kek, b"")?;
        Ok(String::from_utf8(bytes).expect("internal error: JSON is UTF-8"))
    }

    /// The keyset sealed by `kek` in Tink's binary protobuf, with empty
    /// associated data.
    pub fn to_encrypted_binary(&self, kek: &impl KeyEncryption) -> Result<Vec<u8>, Error> {
        self.to_encrypted(Format::Binary, kek, b"")
    }

    /// The keyset sealed by `kek` (`KeysetHandle.write_with_associated_data`).
    pub fn to_encrypted(
        &self,
        format: Format,
        kek: &impl KeyEncryption,
        associated_data: &[u8],
    ) -> Result<Vec<u8>, Error> {
        let cleartext = self.to_cleartext_binary();
        let sealed = kek.encrypt(&cleartext, associated_data).map_err(Error::KeyEncryption)?;
        let encrypted =
            proto::EncryptedKeyset { encrypted_keyset: sealed, keyset_info: Some(self.to_keyset_info()) };
        Ok(match format {
            Format::Json => json::encrypted_to_json(&encrypted).into_bytes(),
            Format::Binary => encrypted.encode_to_vec(),
        })
    }
}
