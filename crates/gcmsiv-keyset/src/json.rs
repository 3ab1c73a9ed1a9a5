//! Tink's JSON keysets: the protobuf messages in proto3's JSON mapping (field
//! names in lowerCamelCase, enums by name, bytes in Base64), as Tink's
//! `JsonKeysetWriter` writes them. Reading takes what the mapping allows and
//! Tink's writers have produced: snake_case names, enums as numbers, ids as
//! numbers or strings (and, as older Java writers wrote ids above 2^31, negative
//! numbers), Base64 standard or URL-safe, padded or not.

use base64::Engine;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::{DecodePaddingMode, general_purpose};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use crate::error::Error;
use crate::proto;

const LENIENT: GeneralPurposeConfig =
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
const STANDARD_LENIENT: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::STANDARD, LENIENT);
const URL_SAFE_LENIENT: GeneralPurpose = GeneralPurpose::new(&base64::alphabet::URL_SAFE, LENIENT);

fn decode_base64(text: &str, what: &str) -> Result<Zeroizing<Vec<u8>>, Error> {
    // Room for the whole output up front: no reallocation leaves a copy behind.
    let mut out = Zeroizing::new(Vec::with_capacity(text.len() / 4 * 3 + 3));
    let result = STANDARD_LENIENT.decode_vec(text, &mut out).or_else(|_| {
        out.clear();
        URL_SAFE_LENIENT.decode_vec(text, &mut out)
    });
    result.map_err(|_| Error::Malformed(format!("{what} is not Base64")))?;
    Ok(out)
}

fn encode_base64(bytes: &[u8]) -> Zeroizing<String> {
    let mut out = Zeroizing::new(String::with_capacity(bytes.len().div_ceil(3) * 4));
    STANDARD.encode_string(bytes, &mut out);
    out
}

/// A uint32 in proto3 JSON: a number or a string of digits.
#[derive(Deserialize)]
#[serde(untagged)]
enum Uint32 {
    Number(i64),
    Text(String),
}

impl Uint32 {
    fn get(&self, what: &str) -> Result<u32, Error> {
        let value = match self {
            Uint32::Number(n) => *n,
            Uint32::Text(t) => t.parse().map_err(|_| Error::Malformed(format!("{what} is not a number")))?,
        };
        if let Ok(v) = u32::try_from(value) {
            Ok(v)
        } else if let Ok(v) = i32::try_from(value) {
            Ok(v as u32) // an id above 2^31 written as a Java int
        } else {
            Err(Error::Malformed(format!("{what} {value} is out of range")))
        }
    }
}

/// An enum in proto3 JSON: its name or its number.
#[derive(Deserialize)]
#[serde(untagged)]
enum Enum {
    Number(i32),
    Name(String),
}

impl Enum {
    fn get(&self, names: &[(&str, i32)], what: &str) -> Result<i32, Error> {
        match self {
            Enum::Number(n) => Ok(*n),
            Enum::Name(name) => names
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| *v)
                .ok_or_else(|| Error::Malformed(format!("unknown {what} {name:?}"))),
        }
    }
}

const STATUS_NAMES: &[(&str, i32)] =
    &[("UNKNOWN_STATUS", 0), ("ENABLED", 1), ("DISABLED", 2), ("DESTROYED", 3)];
const PREFIX_NAMES: &[(&str, i32)] = &[
    ("UNKNOWN_PREFIX", 0),
    ("TINK", 1),
    ("LEGACY", 2),
    ("RAW", 3),
    ("CRUNCHY", 4),
    ("WITH_ID_REQUIREMENT", 5),
];
const MATERIAL_NAMES: &[(&str, i32)] = &[
    ("UNKNOWN_KEYMATERIAL", 0),
    ("SYMMETRIC", 1),
    ("ASYMMETRIC_PRIVATE", 2),
    ("ASYMMETRIC_PUBLIC", 3),
    ("REMOTE", 4),
];

fn name_of(names: &[(&str, i32)], value: i32) -> String {
    names.iter().find(|(_, v)| *v == value).map_or_else(|| value.to_string(), |(n, _)| n.to_string())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct KeysetIn {
    #[serde(default, alias = "primary_key_id")]
    primary_key_id: Option<Uint32>,
    #[serde(default)]
    key: Vec<KeyIn>,
    #[serde(default, alias = "encrypted_keyset")]
    encrypted_keyset: Option<serde::de::IgnoredAny>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct KeyIn {
    #[serde(default, alias = "key_data")]
    key_data: Option<KeyDataIn>,
    #[serde(default)]
    status: Option<Enum>,
    #[serde(default, alias = "key_id")]
    key_id: Option<Uint32>,
    #[serde(default, alias = "output_prefix_type")]
    output_prefix_type: Option<Enum>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct KeyDataIn {
    #[serde(default, alias = "type_url")]
    type_url: String,
    #[serde(default)]
    value: Zeroizing<String>,
    #[serde(default, alias = "key_material_type")]
    key_material_type: Option<Enum>,
}

fn uint(v: &Option<Uint32>, what: &str) -> Result<u32, Error> {
    v.as_ref().map_or(Ok(0), |v| v.get(what))
}

fn enumeration(v: &Option<Enum>, names: &[(&str, i32)], what: &str) -> Result<i32, Error> {
    v.as_ref().map_or(Ok(0), |v| v.get(names, what))
}

fn malformed(e: serde_json::Error) -> Error {
    // serde_json's messages name a position and the expected shape, never the value.
    Error::Malformed(format!("not a Tink JSON keyset: {e}"))
}

/// A JSON cleartext keyset to its protobuf message.
pub(crate) fn keyset_from_json(text: &[u8]) -> Result<proto::Keyset, Error> {
    let parsed: KeysetIn = serde_json::from_slice(text).map_err(malformed)?;
    if parsed.encrypted_keyset.is_some() {
        return Err(Error::Malformed("it is an encrypted keyset, not a cleartext one".to_string()));
    }
    let mut keyset =
        proto::Keyset { primary_key_id: uint(&parsed.primary_key_id, "primaryKeyId")?, key: vec![] };
    for key in &parsed.key {
        let key_data = match &key.key_data {
            None => None,
            Some(data) => Some(proto::KeyData {
                type_url: data.type_url.clone(),
                value: decode_base64(&data.value, "a key's value")?.to_vec(),
                key_material_type: enumeration(&data.key_material_type, MATERIAL_NAMES, "key material type")?,
            }),
        };
        keyset.key.push(proto::Key {
            key_data,
            status: enumeration(&key.status, STATUS_NAMES, "key status")?,
            key_id: uint(&key.key_id, "keyId")?,
            output_prefix_type: enumeration(&key.output_prefix_type, PREFIX_NAMES, "output prefix type")?,
        });
    }
    Ok(keyset)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct KeysetOut<'a> {
    primary_key_id: u32,
    key: Vec<KeyOut<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct KeyOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    key_data: Option<KeyDataOut<'a>>,
    status: String,
    key_id: u32,
    output_prefix_type: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct KeyDataOut<'a> {
    type_url: &'a str,
    value: Zeroizing<String>,
    key_material_type: String,
}

/// Pretty JSON into a buffer sized up front (`capacity`), so that no growth
/// leaves a copy of a secret behind.
fn to_pretty(value: &impl Serialize, capacity: usize) -> Zeroizing<String> {
    let mut out = Zeroizing::new(Vec::with_capacity(capacity));
    serde_json::to_writer_pretty(&mut *out, value).expect("internal error: JSON of plain data");
    out.push(b'\n');
    let text = String::from_utf8(core::mem::take(&mut *out)).expect("internal error: JSON is UTF-8");
    Zeroizing::new(text)
}

/// A cleartext keyset's JSON, as Tink writes it.
pub(crate) fn keyset_to_json(keyset: &proto::Keyset) -> Zeroizing<String> {
    let key = keyset
        .key
        .iter()
        .map(|k| KeyOut {
            key_data: k.key_data.as_ref().map(|d| KeyDataOut {
                type_url: &d.type_url,
                value: encode_base64(&d.value),
                key_material_type: name_of(MATERIAL_NAMES, d.key_material_type),
            }),
            status: name_of(STATUS_NAMES, k.status),
            key_id: k.key_id,
            output_prefix_type: name_of(PREFIX_NAMES, k.output_prefix_type),
        })
        .collect();
    let capacity: usize = 64
        + keyset
            .key
            .iter()
            .map(|k| 400 + k.key_data.as_ref().map_or(0, |d| d.value.len() * 2))
            .sum::<usize>();
    to_pretty(&KeysetOut { primary_key_id: keyset.primary_key_id, key }, capacity)
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct EncryptedOut {
    encrypted_keyset: String,
    keyset_info: InfoOut,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct InfoOut {
    primary_key_id: u32,
    key_info: Vec<KeyInfoOut>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct KeyInfoOut {
    type_url: String,
    status: String,
    key_id: u32,
    output_prefix_type: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct EncryptedIn {
    #[serde(default, alias = "encrypted_keyset")]
    encrypted_keyset: Option<String>,
}

/// An encrypted keyset's JSON, as Tink writes it.
pub(crate) fn encrypted_to_json(encrypted: &proto::EncryptedKeyset) -> String {
    let info = encrypted.keyset_info.clone().unwrap_or_default();
    let out = EncryptedOut {
        encrypted_keyset: general_purpose::STANDARD.encode(&encrypted.encrypted_keyset),
        keyset_info: InfoOut {
            primary_key_id: info.primary_key_id,
            key_info: info
                .key_info
                .iter()
                .map(|k| KeyInfoOut {
                    type_url: k.type_url.clone(),
                    status: name_of(STATUS_NAMES, k.status),
                    key_id: k.key_id,
                    output_prefix_type: name_of(PREFIX_NAMES, k.output_prefix_type),
                })
                .collect(),
        },
    };
    let mut text = serde_json::to_string_pretty(&out).expect("internal error: JSON of plain data");
    text.push('\n');
    text
}

/// The sealed keyset of an encrypted JSON keyset (its `keysetInfo`, which is not
/// authenticated, is not read).
pub(crate) fn encrypted_from_json(text: &[u8]) -> Result<Vec<u8>, Error> {
    let parsed: EncryptedIn = serde_json::from_slice(text).map_err(malformed)?;
    let sealed = parsed
        .encrypted_keyset
        .ok_or_else(|| Error::Malformed("no encryptedKeyset: is it a cleartext keyset?".to_string()))?;
    Ok(decode_base64(&sealed, "encryptedKeyset")?.to_vec())
}
