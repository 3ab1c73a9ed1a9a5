//! Tink's protocol buffer messages (proto/tink.proto, proto/aes_gcm.proto,
//! proto/aes_gcm_siv.proto of Tink), written out with prost's derive: the field
//! numbers and types are the wire format, so each is Tink's. Proto3: a field at
//! its default value is absent on the wire.
//!
//! The messages that carry key material are zeroized on drop.

use zeroize::{Zeroize, ZeroizeOnDrop};

/// `google.crypto.tink.KeyStatusType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum KeyStatusType {
    UnknownStatus = 0,
    Enabled = 1,
    Disabled = 2,
    Destroyed = 3,
}

/// `google.crypto.tink.OutputPrefixType` (5, `WITH_ID_REQUIREMENT`, is for
/// key types whose parameters carry the id; not these).
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum OutputPrefixType {
    UnknownPrefix = 0,
    Tink = 1,
    Legacy = 2,
    Raw = 3,
    Crunchy = 4,
}

/// `google.crypto.tink.KeyData.KeyMaterialType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum KeyMaterialType {
    UnknownKeymaterial = 0,
    Symmetric = 1,
    AsymmetricPrivate = 2,
    AsymmetricPublic = 3,
    Remote = 4,
}

/// `google.crypto.tink.KeyData`: a key of one type, serialized.
#[derive(Clone, PartialEq, prost::Message, Zeroize, ZeroizeOnDrop)]
pub struct KeyData {
    #[prost(string, tag = "1")]
    pub type_url: String,
    /// The serialized key (here `AesGcmSivKey` or `AesGcmKey`): secret.
    #[prost(bytes = "vec", tag = "2")]
    pub value: Vec<u8>,
    #[prost(enumeration = "KeyMaterialType", tag = "3")]
    pub key_material_type: i32,
}

/// `google.crypto.tink.Keyset.Key`.
#[derive(Clone, PartialEq, prost::Message, Zeroize, ZeroizeOnDrop)]
pub struct Key {
    /// Absent for destroyed keys (Tink drops it when it destroys one).
    #[prost(message, optional, tag = "1")]
    pub key_data: Option<KeyData>,
    #[prost(enumeration = "KeyStatusType", tag = "2")]
    pub status: i32,
    #[prost(uint32, tag = "3")]
    pub key_id: u32,
    #[prost(enumeration = "OutputPrefixType", tag = "4")]
    pub output_prefix_type: i32,
}

/// `google.crypto.tink.Keyset`.
#[derive(Clone, PartialEq, prost::Message, Zeroize, ZeroizeOnDrop)]
pub struct Keyset {
    #[prost(uint32, tag = "1")]
    pub primary_key_id: u32,
    #[prost(message, repeated, tag = "2")]
    pub key: Vec<Key>,
}

/// `google.crypto.tink.KeysetInfo.KeyInfo`: a key without its material.
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyInfo {
    #[prost(string, tag = "1")]
    pub type_url: String,
    #[prost(enumeration = "KeyStatusType", tag = "2")]
    pub status: i32,
    #[prost(uint32, tag = "3")]
    pub key_id: u32,
    #[prost(enumeration = "OutputPrefixType", tag = "4")]
    pub output_prefix_type: i32,
}

/// `google.crypto.tink.KeysetInfo`: what an encrypted keyset shows in the clear
/// (not authenticated: for display only).
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeysetInfo {
    #[prost(uint32, tag = "1")]
    pub primary_key_id: u32,
    #[prost(message, repeated, tag = "2")]
    pub key_info: Vec<KeyInfo>,
}

/// `google.crypto.tink.EncryptedKeyset`: a serialized `Keyset` sealed by the
/// key-encryption AEAD (field 1 is unused in Tink's definition).
#[derive(Clone, PartialEq, prost::Message)]
pub struct EncryptedKeyset {
    #[prost(bytes = "vec", tag = "2")]
    pub encrypted_keyset: Vec<u8>,
    #[prost(message, optional, tag = "3")]
    pub keyset_info: Option<KeysetInfo>,
}

/// `google.crypto.tink.AesGcmSivKey` and `google.crypto.tink.AesGcmKey`: the
/// two have the same fields at the same numbers (field 2 is unused in both).
#[derive(Clone, PartialEq, prost::Message, Zeroize, ZeroizeOnDrop)]
pub struct AesKey {
    #[prost(uint32, tag = "1")]
    pub version: u32,
    #[prost(bytes = "vec", tag = "3")]
    pub key_value: Vec<u8>,
}
