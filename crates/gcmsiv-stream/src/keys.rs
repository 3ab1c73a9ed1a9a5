//! Secrets: the master secret (key file or Argon2id of a passphrase), the per-file
//! keys derived from it with HKDF-SHA-256, and the header MAC that commits to them
//! (docs/FORMAT.md, "Keys"). Every secret buffer is zeroized on drop (the HMAC and
//! SHA-256 states too: their crates' `zeroize` features are on), and no `Debug`
//! here prints key material.

use std::fmt;
use std::io::Read;
use std::path::Path;

use gcmsiv::{Aes128GcmSiv, Aes256GcmSiv};
use hkdf::Hkdf;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::error::{DecodeError, Error};
use crate::format::{
    Algorithm, Argon2Cost, Header, KeyMode, MAC_LEN, MAX_STANZAS, SALT_LEN, Stanza, TAG_LEN,
};
use crate::recipients::{FILE_KEY_LEN, Identity, Recipient};

/// Bytes of the master secret in a key file, and of the Argon2id output.
pub const MASTER_LEN: usize = 32;
/// Largest key file read: a key file is under 200 bytes.
pub const KEY_FILE_MAX: u64 = 4096;
/// The key line's prefix in a key file.
pub const KEY_LINE_PREFIX: &str = "gcmsiv-key-v1:";

const INFO_HEADER_KEY: &[u8] = b"gcmsiv v1 header key";
const INFO_PAYLOAD_KEY: &[u8] = b"gcmsiv v1 payload key";
const INFO_HEADER_KEY_V2: &[u8] = b"gcmsiv v2 header key";
const INFO_PAYLOAD_KEY_V2: &[u8] = b"gcmsiv v2 payload key";

/// The user's 32-byte secret: HKDF's input keying material, what a key file holds.
#[derive(Clone)]
pub struct MasterKey(Zeroizing<[u8; MASTER_LEN]>);

impl fmt::Debug for MasterKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MasterKey(..)")
    }
}

impl MasterKey {
    /// A fresh random key from the operating system.
    pub fn generate() -> Result<Self, Error> {
        let mut key = Zeroizing::new([0u8; MASTER_LEN]);
        getrandom::fill(key.as_mut_slice()).map_err(|_| Error::Random)?;
        Ok(MasterKey(key))
    }

    /// A master secret from its 32 bytes (for example from a secrets manager).
    pub fn from_bytes(bytes: &[u8; MASTER_LEN]) -> Self {
        MasterKey(Zeroizing::new(*bytes))
    }

    /// A master secret from a slice, which must be 32 bytes long.
    pub fn from_slice(bytes: &[u8]) -> Result<Self, Error> {
        let bytes: &[u8; MASTER_LEN] =
            bytes.try_into().map_err(|_| Error::Invalid("a gcmsiv key is 32 bytes"))?;
        Ok(Self::from_bytes(bytes))
    }

    /// The 32 secret bytes.
    pub fn as_bytes(&self) -> &[u8; MASTER_LEN] {
        &self.0
    }

    /// Reads a key file (at most [`KEY_FILE_MAX`] bytes). The error names what is
    /// wrong without quoting the file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, Error> {
        let file = std::fs::File::open(path).map_err(Error::Read)?;
        // Room for the whole read up front: no reallocation leaves a copy behind.
        let mut bytes = Zeroizing::new(Vec::with_capacity(KEY_FILE_MAX as usize + 64));
        file.take(KEY_FILE_MAX).read_to_end(&mut bytes).map_err(Error::Read)?;
        let text = std::str::from_utf8(&bytes).map_err(|_| Error::KeyFile("it is not text"))?;
        Self::from_key_file(text).map_err(Error::KeyFile)
    }

    /// The key file text: a comment and the key line.
    pub fn to_key_file(&self) -> Zeroizing<String> {
        let mut text = Zeroizing::new(String::with_capacity(160));
        text.push_str(
            "# gcmsiv key file (docs/FORMAT.md). Keep it secret: it decrypts everything encrypted with it.\n",
        );
        text.push_str(KEY_LINE_PREFIX);
        for byte in self.0.iter() {
            text.push(hex_digit(byte >> 4));
            text.push(hex_digit(byte & 0xf));
        }
        text.push('\n');
        text
    }

    /// Parses key file text: comments (empty lines and lines starting with `#`)
    /// and exactly one key line, with nothing after its 64 digits but a line end
    /// (`\n` or `\r\n`), as docs/FORMAT.md says. The error says what is wrong
    /// without quoting the file.
    pub fn from_key_file(text: &str) -> Result<Self, &'static str> {
        let mut lines = text.lines().filter(|l| !l.is_empty() && !l.starts_with('#'));
        let line = lines.next().ok_or("it holds no key line")?;
        if lines.next().is_some() {
            return Err("it holds more than one line that is not a comment");
        }
        let digits =
            line.strip_prefix(KEY_LINE_PREFIX).ok_or("its key line does not start with gcmsiv-key-v1:")?;
        if digits.len() != 2 * MASTER_LEN {
            return Err("its key is not 64 hexadecimal digits");
        }
        let mut key = Zeroizing::new([0u8; MASTER_LEN]);
        for (byte, pair) in key.iter_mut().zip(digits.as_bytes().chunks_exact(2)) {
            let (Some(hi), Some(lo)) = (hex_value(pair[0]), hex_value(pair[1])) else {
                return Err("its key is not 64 hexadecimal digits");
            };
            *byte = hi << 4 | lo;
        }
        Ok(MasterKey(key))
    }

    /// Argon2id (version 0x13) of the passphrase, salted with the file's salt.
    pub fn from_passphrase(passphrase: &[u8], salt: &[u8; SALT_LEN], cost: Argon2Cost) -> Self {
        let params = argon2::Params::new(cost.memory_kib, cost.iterations, cost.lanes, Some(MASTER_LEN))
            .expect("internal error: Argon2id cost was checked");
        let argon = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
        let mut key = Zeroizing::new([0u8; MASTER_LEN]);
        argon
            .hash_password_into(passphrase, salt, key.as_mut_slice())
            .expect("internal error: Argon2id inputs were checked");
        MasterKey(key)
    }
}

fn hex_digit(nibble: u8) -> char {
    char::from(b"0123456789abcdef"[usize::from(nibble)])
}

fn hex_value(digit: u8) -> Option<u8> {
    match digit {
        b'0'..=b'9' => Some(digit - b'0'),
        b'a'..=b'f' => Some(digit - b'a' + 10),
        b'A'..=b'F' => Some(digit - b'A' + 10),
        _ => None,
    }
}

/// Why [`Secret::Recipients`] refuses recipients of both kinds.
const MIXED_KINDS: &str = "post-quantum (gcmsivpq1...) and X25519 (gcmsiv1...) recipients in one file: \
     it would be only as safe as X25519 against a quantum computer; use one kind, or mix them knowingly";

/// How the user gives the secret a file is encrypted to.
#[derive(Clone)]
pub enum Secret {
    /// A 32-byte master secret (what a key file holds).
    Key(MasterKey),
    /// A passphrase, stretched with Argon2id (its UTF-8 bytes, for a string).
    Passphrase(Zeroizing<Vec<u8>>),
    /// Public-key recipients, for writing (format version 2): 1 to 256 of
    /// them, all of one kind. They cannot decrypt. Post-quantum (hybrid) and
    /// X25519 recipients together are refused (as age refuses them): the one
    /// file key is wrapped to each, so such a file is only as safe as X25519
    /// against a quantum computer, and the hybrid stanzas buy nothing.
    Recipients(Vec<Recipient>),
    /// Recipients of both kinds, knowingly: the file is only as safe as its
    /// X25519 stanzas against a future quantum computer (docs/FORMAT.md,
    /// "Mixed recipients").
    MixedRecipients(Vec<Recipient>),
    /// Identities (private keys), for reading files encrypted to their
    /// recipients; a writer given identities encrypts to their recipients.
    Identities(Vec<Identity>),
}

impl Secret {
    /// A passphrase secret.
    pub fn passphrase(passphrase: impl AsRef<[u8]>) -> Self {
        Secret::Passphrase(Zeroizing::new(passphrase.as_ref().to_vec()))
    }

    /// The keys of a file with this header, from the key itself, from
    /// Argon2id of the passphrase at the header's cost (checked against the
    /// format's caps when the header was parsed), or from the file key an
    /// identity unwraps from a stanza. A secret of the other kind is
    /// [`DecodeError::WrongKeyMode`], [`DecodeError::NeedsIdentity`] or
    /// [`DecodeError::NotForIdentities`]. HKDF and HMAC copy keys into blocks
    /// they do not wipe (the key padded to a block, HKDF's output blocks), in
    /// frames dead once they return, and the payload key's schedule is built
    /// by value: the derivation runs in [`gcmsiv::scrubbed`], which zeroes the
    /// stack it used, and the cipher is boxed there, so later moves copy only
    /// a pointer. `tests/residue.rs` checks that nothing is left.
    pub(crate) fn file_keys(&self, header: &Header) -> Result<FileKeys, Error> {
        if let Secret::Passphrase(passphrase) = self
            && passphrase.is_empty()
        {
            return Err(Error::Invalid("the passphrase is empty"));
        }
        gcmsiv::scrubbed(|| match (self, header.key_mode) {
            (Secret::Key(key), KeyMode::KeyFile) => Ok(FileKeys::derive(key.as_bytes(), header)),
            (Secret::Passphrase(passphrase), KeyMode::Passphrase(cost)) => {
                let master = MasterKey::from_passphrase(passphrase, &header.salt, cost);
                Ok(FileKeys::derive(master.as_bytes(), header))
            }
            (Secret::Identities(identities), KeyMode::Recipients) => {
                let aad = header.fixed_fields();
                for stanza in &header.stanzas {
                    for identity in identities.iter().filter(|i| i.kind() == stanza.kind) {
                        if let Some(file_key) = identity.unwrap(&stanza.bytes, &aad) {
                            return Ok(FileKeys::derive(&file_key, header));
                        }
                    }
                }
                Err(DecodeError::NoIdentityMatched.into())
            }
            (Secret::Recipients(_) | Secret::MixedRecipients(_), _) => {
                Err(Error::Invalid("a recipient (public key) cannot decrypt: give its identity"))
            }
            (Secret::Key(_) | Secret::Passphrase(_), KeyMode::Recipients) => {
                Err(DecodeError::NeedsIdentity.into())
            }
            (Secret::Identities(_), mode) => Err(DecodeError::NotForIdentities {
                file_uses_passphrase: matches!(mode, KeyMode::Passphrase(_)),
            }
            .into()),
            (_, mode) => Err(DecodeError::WrongKeyMode {
                file_uses_passphrase: matches!(mode, KeyMode::Passphrase(_)),
            }
            .into()),
        })
    }

    /// The keys of a new file: for a key or a passphrase, derived as
    /// [`Secret::file_keys`] does; for recipients, from a fresh random file key,
    /// wrapped to each of them into `header`'s stanzas (in the order given).
    pub(crate) fn new_file_keys(&self, header: &mut Header) -> Result<FileKeys, Error> {
        let (recipients, mixing_allowed): (Vec<Recipient>, bool) = match self {
            Secret::Recipients(recipients) => (recipients.clone(), false),
            Secret::MixedRecipients(recipients) => (recipients.clone(), true),
            Secret::Identities(identities) => (identities.iter().map(Identity::recipient).collect(), false),
            _ => return self.file_keys(header),
        };
        if recipients.is_empty() || recipients.len() > MAX_STANZAS {
            return Err(Error::Invalid("a file is encrypted to 1 to 256 recipients"));
        }
        if !mixing_allowed && recipients.iter().any(|r| r.kind() != recipients[0].kind()) {
            return Err(Error::Invalid(MIXED_KINDS));
        }
        let mut file_key = Zeroizing::new([0u8; FILE_KEY_LEN]);
        getrandom::fill(file_key.as_mut_slice()).map_err(|_| Error::Random)?;
        let aad = header.fixed_fields_for(recipients.len());
        let mut stanzas = Vec::with_capacity(recipients.len());
        for recipient in &recipients {
            stanzas.push(Stanza { kind: recipient.kind(), bytes: recipient.wrap(&file_key, &aad)? });
        }
        header.stanzas = stanzas;
        Ok(gcmsiv::scrubbed(|| FileKeys::derive(&file_key, header)))
    }

    /// The key mode a writer records for this secret.
    pub(crate) fn key_mode(&self, cost: Argon2Cost) -> KeyMode {
        match self {
            Secret::Key(_) => KeyMode::KeyFile,
            Secret::Passphrase(_) => KeyMode::Passphrase(cost),
            Secret::Recipients(_) | Secret::MixedRecipients(_) | Secret::Identities(_) => KeyMode::Recipients,
        }
    }
}

impl From<MasterKey> for Secret {
    fn from(key: MasterKey) -> Self {
        Secret::Key(key)
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Secret::Key(_) => f.write_str("Secret::Key(..)"),
            Secret::Passphrase(_) => f.write_str("Secret::Passphrase(..)"),
            Secret::Recipients(list) => f.debug_tuple("Secret::Recipients").field(list).finish(),
            Secret::MixedRecipients(list) => f.debug_tuple("Secret::MixedRecipients").field(list).finish(),
            Secret::Identities(list) => write!(f, "Secret::Identities({} identities, ..)", list.len()),
        }
    }
}

/// AES-GCM-SIV under the file's payload key, at either key size.
#[derive(Clone)]
#[allow(clippy::large_enum_variant)] // one per run: the size difference costs nothing
pub enum PayloadCipher {
    Aes128(Aes128GcmSiv),
    Aes256(Aes256GcmSiv),
}

impl PayloadCipher {
    /// Seals `buf` in place and returns its tag.
    pub fn seal(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; TAG_LEN] {
        let sealed = match self {
            PayloadCipher::Aes128(c) => c.encrypt_in_place_detached(nonce, aad, buf),
            PayloadCipher::Aes256(c) => c.encrypt_in_place_detached(nonce, aad, buf),
        };
        sealed.expect("internal error: chunk within AES-GCM-SIV limits")
    }

    /// Opens `buf` in place; on failure `buf` holds the ciphertext again and
    /// nothing is released.
    pub fn open(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8], tag: &[u8; TAG_LEN]) -> bool {
        match self {
            PayloadCipher::Aes128(c) => c.decrypt_in_place_detached(nonce, aad, buf, tag).is_ok(),
            PayloadCipher::Aes256(c) => c.decrypt_in_place_detached(nonce, aad, buf, tag).is_ok(),
        }
    }
}

/// The keys of one file: the header MAC key and the payload cipher.
#[derive(Clone)]
pub struct FileKeys {
    header_key: Zeroizing<[u8; 32]>,
    pub payload: Box<PayloadCipher>,
}

impl FileKeys {
    /// HKDF-SHA-256 with the header's salt over the master secret (version 1)
    /// or the file key (version 2), with the version's labels.
    pub fn derive(ikm: &[u8; 32], header: &Header) -> Self {
        let (info_header, info_payload) = match header.key_mode {
            KeyMode::Recipients => (INFO_HEADER_KEY_V2, INFO_PAYLOAD_KEY_V2),
            _ => (INFO_HEADER_KEY, INFO_PAYLOAD_KEY),
        };
        let hkdf = Hkdf::<Sha256>::new(Some(&header.salt), ikm.as_slice());
        let mut header_key = Zeroizing::new([0u8; 32]);
        hkdf.expand(info_header, header_key.as_mut_slice()).expect("internal error: HKDF length");
        let mut payload_key = Zeroizing::new([0u8; 32]);
        let payload_key = &mut payload_key[..header.algorithm.key_len()];
        hkdf.expand_multi_info(&[info_payload, &[header.algorithm.id()]], payload_key)
            .expect("internal error: HKDF length");
        // Chunks already run one per worker thread: no chunk is split across
        // cores (its helpers would only compete with the other workers).
        let payload = Box::new(match header.algorithm {
            Algorithm::Aes128GcmSiv => PayloadCipher::Aes128(
                Aes128GcmSiv::new_from_slice(payload_key)
                    .expect("internal error: key length")
                    .with_parallel_threshold(None),
            ),
            Algorithm::Aes256GcmSiv => PayloadCipher::Aes256(
                Aes256GcmSiv::new_from_slice(payload_key)
                    .expect("internal error: key length")
                    .with_parallel_threshold(None),
            ),
        });
        FileKeys { header_key, payload }
    }

    /// HMAC-SHA-256 of the header fields under the header key.
    pub fn header_mac(&self, fields: &[u8]) -> [u8; MAC_LEN] {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(self.header_key.as_slice())
            .expect("internal error: HMAC accepts any key length");
        mac.update(fields);
        mac.finalize().into_bytes().into()
    }

    /// Whether `mac` is the header's MAC, compared in constant time.
    pub fn verify_header(&self, fields: &[u8], mac: &[u8; MAC_LEN]) -> bool {
        self.header_mac(fields).ct_eq(mac).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_file_round_trips_and_has_the_documented_shape() {
        let key = MasterKey::generate().unwrap();
        let text = key.to_key_file();
        let line = text.lines().last().unwrap();
        assert!(line.starts_with(KEY_LINE_PREFIX) && line.len() == KEY_LINE_PREFIX.len() + 64);
        assert_eq!(*MasterKey::from_key_file(&text).unwrap().0, *key.0);
        assert_eq!(
            *MasterKey::from_key_file(&text.to_uppercase().replace("GCMSIV-KEY-V1", "gcmsiv-key-v1"))
                .unwrap()
                .0,
            *key.0
        );
    }

    #[test]
    fn bad_key_files_are_refused_without_quoting_them() {
        let good = format!("{KEY_LINE_PREFIX}{}", "ab".repeat(32));
        assert!(MasterKey::from_key_file(&good).is_ok());
        assert!(MasterKey::from_key_file(&format!("# c\n\n{good}\r\n")).is_ok());
        for bad in [
            String::new(),
            "# only a comment".into(),
            good[..good.len() - 1].into(),
            format!("{good}0"),
            good.replace("ab", "zz"),
            format!("{good}\n{good}"),
            format!("{good} "),
            format!("{good}\t\n"),
            format!(" {good}"),
            "ab".repeat(32),
        ] {
            let err = MasterKey::from_key_file(&bad).unwrap_err();
            assert!(!err.contains("ab") && !err.contains("zz"));
        }
    }

    #[test]
    fn debug_prints_no_key_material() {
        let key = MasterKey::from_key_file(&format!("{KEY_LINE_PREFIX}{}", "ab".repeat(32))).unwrap();
        assert_eq!(format!("{key:?}"), "MasterKey(..)");
    }

    #[test]
    fn derived_keys_depend_on_salt_algorithm_and_key() {
        let key = MasterKey::from_key_file(&format!("{KEY_LINE_PREFIX}{}", "01".repeat(32))).unwrap();
        let other = MasterKey::from_key_file(&format!("{KEY_LINE_PREFIX}{}", "02".repeat(32))).unwrap();
        let header = Header {
            algorithm: Algorithm::Aes256GcmSiv,
            key_mode: KeyMode::KeyFile,
            chunk_exp: 16,
            salt: [3; 32],
            stanzas: Vec::new(),
        };
        let fields = header.encode();
        let mac = FileKeys::derive(key.as_bytes(), &header).header_mac(&fields);
        assert!(FileKeys::derive(key.as_bytes(), &header).verify_header(&fields, &mac));
        assert!(!FileKeys::derive(other.as_bytes(), &header).verify_header(&fields, &mac));
        let salted = Header { salt: [4; 32], ..header.clone() };
        assert_ne!(FileKeys::derive(key.as_bytes(), &salted).header_mac(&fields), mac);

        let seal = |keys: FileKeys| keys.payload.seal(&[0; 12], b"", &mut []);
        let aes128 = Header { algorithm: Algorithm::Aes128GcmSiv, ..header.clone() };
        assert_ne!(
            seal(FileKeys::derive(key.as_bytes(), &header)),
            seal(FileKeys::derive(key.as_bytes(), &aes128))
        );
    }
}
