//! Keysets in the clear, only through functions that say so (as Tink's
//! `CleartextKeysetHandle` and `insecure_keyset_handle`): whoever reads the
//! output has the keys. Everywhere else a keyset is read and written encrypted
//! (see [`crate::KeyEncryption`]).

use prost::Message;
use zeroize::Zeroizing;

use crate::error::Error;
use crate::json;
use crate::keyset::Keyset;
use crate::proto;

/// A keyset's serialization: Tink's JSON or its binary protobuf.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// proto3's JSON mapping, as Tink's `JsonKeysetWriter` writes it.
    Json,
    /// The protobuf wire format, as Tink's `BinaryKeysetWriter` writes it.
    Binary,
}

impl Format {
    /// The format of serialized keyset bytes, cleartext or encrypted: JSON
    /// starts with `{` (after white space), which no protobuf keyset does.
    pub fn detect(bytes: &[u8]) -> Format {
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => Format::Json,
            _ => Format::Binary,
        }
    }
}

impl Keyset {
    /// Reads a cleartext keyset in Tink's JSON (`CleartextKeysetHandle.read`
    /// with a `JsonKeysetReader`), and checks it.
    pub fn from_cleartext_json(text: &str) -> Result<Self, Error> {
        Self::from_cleartext(text.as_bytes(), Format::Json)
    }

    /// Reads a cleartext keyset in Tink's binary protobuf, and checks it.
    pub fn from_cleartext_binary(bytes: &[u8]) -> Result<Self, Error> {
        Self::from_cleartext(bytes, Format::Binary)
    }

    /// Reads a cleartext keyset in either format.
    pub fn from_cleartext(bytes: &[u8], format: Format) -> Result<Self, Error> {
        let keyset = match format {
            Format::Json => json::keyset_from_json(bytes)?,
            Format::Binary => decode_keyset(bytes)?,
        };
        Keyset::from_proto(&keyset)
    }

    /// The keyset in Tink's JSON, key material included, zeroized on drop.
    pub fn to_cleartext_json(&self) -> Zeroizing<String> {
        json::keyset_to_json(&self.to_proto())
    }

    /// The keyset in Tink's binary protobuf, key material included, zeroized on drop.
    pub fn to_cleartext_binary(&self) -> Zeroizing<Vec<u8>> {
        Zeroizing::new(self.to_proto().encode_to_vec())
    }

    /// The keyset in either format, key material included, zeroized on drop.
    pub fn to_cleartext(&self, format: Format) -> Zeroizing<Vec<u8>> {
        match format {
            Format::Json => {
                let mut text = self.to_cleartext_json();
                Zeroizing::new(core::mem::take(&mut *text).into_bytes())
            }
            Format::Binary => self.to_cleartext_binary(),
        }
    }
}

/// A serialized `Keyset`; the decoder's own message, never the bytes.
pub(crate) fn decode_keyset(bytes: &[u8]) -> Result<proto::Keyset, Error> {
    proto::Keyset::decode(bytes).map_err(|e| Error::Malformed(format!("not a Tink keyset: {e}")))
}
