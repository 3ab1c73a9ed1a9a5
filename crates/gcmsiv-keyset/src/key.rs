//! One key of a keyset: its id, status, output prefix and material, and the
//! templates that make new ones. The material is held once, zeroized on drop,
//! beside the ready cipher (whose key schedule the core crate zeroizes).

use core::fmt;

use gcmsiv::{Algorithm, Backend, Cipher, TAG_LEN};
use prost::Message;
use zeroize::Zeroizing;

use crate::error::Error;
use crate::proto;

/// Tink's type URL of AES-GCM-SIV keys.
pub const AES_GCM_SIV_TYPE_URL: &str = "type.googleapis.com/google.crypto.tink.AesGcmSivKey";
/// Tink's type URL of AES-GCM keys.
pub const AES_GCM_TYPE_URL: &str = "type.googleapis.com/google.crypto.tink.AesGcmKey";

/// Bytes of the prefix of TINK, LEGACY and CRUNCHY ciphertexts: a start byte and
/// the big-endian key id.
pub const PREFIX_LEN: usize = 5;

/// A key's status (`KeyStatusType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyStatus {
    /// Encrypts (if primary) and decrypts.
    Enabled,
    /// Kept, but used for nothing until enabled again.
    Disabled,
    /// Its material is gone; only the id remains.
    Destroyed,
}

impl KeyStatus {
    /// Tink's name: `ENABLED`, `DISABLED`, `DESTROYED`.
    pub const fn tink_name(self) -> &'static str {
        match self {
            KeyStatus::Enabled => "ENABLED",
            KeyStatus::Disabled => "DISABLED",
            KeyStatus::Destroyed => "DESTROYED",
        }
    }

    pub(crate) fn from_proto(value: i32, key_id: u32) -> Result<Self, Error> {
        match proto::KeyStatusType::try_from(value) {
            Ok(proto::KeyStatusType::Enabled) => Ok(KeyStatus::Enabled),
            Ok(proto::KeyStatusType::Disabled) => Ok(KeyStatus::Disabled),
            Ok(proto::KeyStatusType::Destroyed) => Ok(KeyStatus::Destroyed),
            _ => Err(Error::InvalidKey { key_id, reason: format!("unknown key status {value}") }),
        }
    }

    pub(crate) fn to_proto(self) -> i32 {
        match self {
            KeyStatus::Enabled => proto::KeyStatusType::Enabled as i32,
            KeyStatus::Disabled => proto::KeyStatusType::Disabled as i32,
            KeyStatus::Destroyed => proto::KeyStatusType::Destroyed as i32,
        }
    }
}

impl fmt::Display for KeyStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeyStatus::Enabled => "enabled",
            KeyStatus::Disabled => "disabled",
            KeyStatus::Destroyed => "destroyed",
        })
    }
}

/// What a key puts in front of its ciphertexts (`OutputPrefixType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutputPrefix {
    /// `0x01 || key id (big-endian u32)`.
    Tink,
    /// `0x00 || key id`; for AEADs Tink adds nothing else (the extra zero byte of
    /// LEGACY is a MAC's).
    Legacy,
    /// `0x00 || key id`, as LEGACY.
    Crunchy,
    /// Nothing: such keys are found by trial decryption.
    Raw,
}

impl OutputPrefix {
    /// Tink's name: `TINK`, `LEGACY`, `CRUNCHY`, `RAW`.
    pub const fn tink_name(self) -> &'static str {
        match self {
            OutputPrefix::Tink => "TINK",
            OutputPrefix::Legacy => "LEGACY",
            OutputPrefix::Crunchy => "CRUNCHY",
            OutputPrefix::Raw => "RAW",
        }
    }

    /// The prefix of a key with this type and id (empty for RAW).
    pub fn bytes(self, key_id: u32) -> Option<[u8; PREFIX_LEN]> {
        let start = match self {
            OutputPrefix::Tink => 0x01,
            OutputPrefix::Legacy | OutputPrefix::Crunchy => 0x00,
            OutputPrefix::Raw => return None,
        };
        let id = key_id.to_be_bytes();
        Some([start, id[0], id[1], id[2], id[3]])
    }

    pub(crate) fn from_proto(value: i32, key_id: u32) -> Result<Self, Error> {
        match proto::OutputPrefixType::try_from(value) {
            Ok(proto::OutputPrefixType::Tink) => Ok(OutputPrefix::Tink),
            Ok(proto::OutputPrefixType::Legacy) => Ok(OutputPrefix::Legacy),
            Ok(proto::OutputPrefixType::Crunchy) => Ok(OutputPrefix::Crunchy),
            Ok(proto::OutputPrefixType::Raw) => Ok(OutputPrefix::Raw),
            _ => Err(Error::InvalidKey { key_id, reason: format!("unsupported output prefix type {value}") }),
        }
    }

    pub(crate) fn to_proto(self) -> i32 {
        (match self {
            OutputPrefix::Tink => proto::OutputPrefixType::Tink,
            OutputPrefix::Legacy => proto::OutputPrefixType::Legacy,
            OutputPrefix::Crunchy => proto::OutputPrefixType::Crunchy,
            OutputPrefix::Raw => proto::OutputPrefixType::Raw,
        }) as i32
    }
}

impl fmt::Display for OutputPrefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.tink_name())
    }
}

/// What a new key is: its algorithm and output prefix. The constants are Tink's
/// key templates of the same names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Template {
    /// The key's algorithm (and so its type URL and length).
    pub algorithm: Algorithm,
    /// What its ciphertexts start with.
    pub prefix: OutputPrefix,
}

impl Template {
    /// Tink's `AES128_GCM_SIV`.
    pub const AES128_GCM_SIV: Template = Template::new(Algorithm::Aes128GcmSiv, OutputPrefix::Tink);
    /// Tink's `AES256_GCM_SIV`.
    pub const AES256_GCM_SIV: Template = Template::new(Algorithm::Aes256GcmSiv, OutputPrefix::Tink);
    /// Tink's `AES128_GCM_SIV_RAW`.
    pub const AES128_GCM_SIV_RAW: Template = Template::new(Algorithm::Aes128GcmSiv, OutputPrefix::Raw);
    /// Tink's `AES256_GCM_SIV_RAW`.
    pub const AES256_GCM_SIV_RAW: Template = Template::new(Algorithm::Aes256GcmSiv, OutputPrefix::Raw);
    /// Tink's `AES128_GCM`.
    pub const AES128_GCM: Template = Template::new(Algorithm::Aes128Gcm, OutputPrefix::Tink);
    /// Tink's `AES256_GCM`.
    pub const AES256_GCM: Template = Template::new(Algorithm::Aes256Gcm, OutputPrefix::Tink);
    /// Tink's `AES128_GCM_RAW`.
    pub const AES128_GCM_RAW: Template = Template::new(Algorithm::Aes128Gcm, OutputPrefix::Raw);
    /// Tink's `AES256_GCM_RAW`.
    pub const AES256_GCM_RAW: Template = Template::new(Algorithm::Aes256Gcm, OutputPrefix::Raw);

    /// A template of any algorithm and prefix.
    pub const fn new(algorithm: Algorithm, prefix: OutputPrefix) -> Self {
        Template { algorithm, prefix }
    }

    /// Tink's template of this name (`AES256_GCM_SIV`, `AES128_GCM_RAW`, ...),
    /// case-insensitive.
    pub fn from_tink_name(name: &str) -> Option<Self> {
        let upper = name.to_ascii_uppercase();
        let (base, prefix) = match upper.strip_suffix("_RAW") {
            Some(base) => (base, OutputPrefix::Raw),
            None => (upper.as_str(), OutputPrefix::Tink),
        };
        let algorithm = match base {
            "AES128_GCM_SIV" => Algorithm::Aes128GcmSiv,
            "AES256_GCM_SIV" => Algorithm::Aes256GcmSiv,
            "AES128_GCM" => Algorithm::Aes128Gcm,
            "AES256_GCM" => Algorithm::Aes256Gcm,
            _ => return None,
        };
        Some(Template::new(algorithm, prefix))
    }
}

/// Tink's type URL for an algorithm.
pub fn type_url(algorithm: Algorithm) -> &'static str {
    if algorithm.is_nonce_misuse_resistant() { AES_GCM_SIV_TYPE_URL } else { AES_GCM_TYPE_URL }
}

/// A key's secret: its algorithm, its bytes (kept to write the keyset back) and
/// the cipher made from them.
#[derive(Clone)]
pub(crate) struct Material {
    pub algorithm: Algorithm,
    bytes: Zeroizing<Vec<u8>>,
    pub cipher: Cipher,
}

impl Material {
    /// A new random key.
    pub fn generate(algorithm: Algorithm) -> Result<Self, Error> {
        let mut bytes = Zeroizing::new(vec![0u8; algorithm.key_len()]);
        getrandom::fill(&mut bytes).map_err(|_| Error::RandomSource)?;
        Self::new(algorithm, bytes, 0)
    }

    fn new(algorithm: Algorithm, bytes: Zeroizing<Vec<u8>>, key_id: u32) -> Result<Self, Error> {
        let cipher = Cipher::new(algorithm, &bytes, TAG_LEN, Backend::select())
            .map_err(|e| Error::InvalidKey { key_id, reason: e.to_string() })?;
        Ok(Material { algorithm, bytes, cipher })
    }

    /// The material of a `KeyData`: its type URL says which message its value is.
    pub fn from_key_data(data: &proto::KeyData, key_id: u32) -> Result<Self, Error> {
        let siv = match data.type_url.as_str() {
            AES_GCM_SIV_TYPE_URL => true,
            AES_GCM_TYPE_URL => false,
            other => return Err(Error::UnsupportedKeyType { key_id, type_url: other.to_string() }),
        };
        if data.key_material_type != proto::KeyMaterialType::Symmetric as i32 {
            let reason = format!("key material type {} (a symmetric key is 1)", data.key_material_type);
            return Err(Error::InvalidKey { key_id, reason });
        }
        let mut key = proto::AesKey::decode(data.value.as_slice()).map_err(|e| Error::InvalidKey {
            key_id,
            reason: format!("its key is not a protobuf message: {e}"),
        })?;
        if key.version != 0 {
            let reason = format!("version {} (this is version 0 of the key type)", key.version);
            return Err(Error::InvalidKey { key_id, reason });
        }
        let algorithm = match (siv, key.key_value.len()) {
            (true, 16) => Algorithm::Aes128GcmSiv,
            (true, 32) => Algorithm::Aes256GcmSiv,
            (false, 16) => Algorithm::Aes128Gcm,
            (false, 32) => Algorithm::Aes256Gcm,
            (_, n) => {
                let reason = format!("{n}-byte AES key (16 or 32 bytes are allowed)");
                return Err(Error::InvalidKey { key_id, reason });
            }
        };
        let bytes = Zeroizing::new(core::mem::take(&mut key.key_value));
        Self::new(algorithm, bytes, key_id)
    }

    /// The `KeyData` that holds this key.
    pub fn to_key_data(&self) -> proto::KeyData {
        let key = proto::AesKey { version: 0, key_value: self.bytes.to_vec() };
        proto::KeyData {
            type_url: type_url(self.algorithm).to_string(),
            value: key.encode_to_vec(),
            key_material_type: proto::KeyMaterialType::Symmetric as i32,
        }
    }
}

/// One key of a keyset.
#[derive(Clone)]
pub(crate) struct Entry {
    pub id: u32,
    pub status: KeyStatus,
    pub prefix: OutputPrefix,
    /// `None` once destroyed.
    pub material: Option<Material>,
}

impl Entry {
    /// The key's algorithm, unless it was destroyed.
    pub fn algorithm(&self) -> Option<Algorithm> {
        self.material.as_ref().map(|m| m.algorithm)
    }

    pub fn from_proto(key: &proto::Key) -> Result<Self, Error> {
        let id = key.key_id;
        let status = KeyStatus::from_proto(key.status, id)?;
        let prefix = OutputPrefix::from_proto(key.output_prefix_type, id)?;
        let material = match (status, &key.key_data) {
            // Tink keeps no material for destroyed keys; any left is dropped here.
            (KeyStatus::Destroyed, _) => None,
            (_, Some(data)) => Some(Material::from_key_data(data, id)?),
            (_, None) => {
                return Err(Error::InvalidKey { key_id: id, reason: "it has no key data".to_string() });
            }
        };
        Ok(Entry { id, status, prefix, material })
    }

    pub fn to_proto(&self) -> proto::Key {
        proto::Key {
            key_data: self.material.as_ref().map(Material::to_key_data),
            status: self.status.to_proto(),
            key_id: self.id,
            output_prefix_type: self.prefix.to_proto(),
        }
    }

    pub fn to_key_info(&self) -> proto::KeyInfo {
        proto::KeyInfo {
            type_url: self.algorithm().map(type_url).unwrap_or_default().to_string(),
            status: self.status.to_proto(),
            key_id: self.id,
            output_prefix_type: self.prefix.to_proto(),
        }
    }
}

/// Ids, statuses and algorithms; never the material.
impl fmt::Debug for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Key")
            .field("id", &self.id)
            .field("status", &self.status)
            .field("prefix", &self.prefix)
            .field("algorithm", &self.algorithm())
            .finish()
    }
}
