//! The keyset: its keys, the primary, the checks every keyset passes, and the
//! rotation steps. Every way in (reading, each step) ends in a valid keyset or
//! an error that leaves the keyset as it was.

use core::fmt;

use gcmsiv::Algorithm;

use crate::error::Error;
use crate::key::{Entry, KeyStatus, Material, OutputPrefix, Template};
use crate::proto;

/// A list of keys with ids, one of them primary: Tink's `Keyset` of
/// AES-GCM-SIV and AES-GCM keys.
///
/// Encryption uses the primary key; decryption finds the key by the
/// ciphertext's prefix (and tries RAW keys), so keys can be rotated without
/// re-encrypting what the old ones sealed:
///
/// ```
/// use gcmsiv_keyset::{Keyset, Template};
/// let mut keyset = Keyset::generate(Template::AES256_GCM_SIV)?;
/// let old = keyset.encrypt(b"message", b"context")?;
/// let new_id = keyset.add(Template::AES256_GCM_SIV)?;
/// keyset.set_primary(new_id)?;
/// let new = keyset.encrypt(b"message", b"context")?;
/// assert_eq!(&new[1..5], &new_id.to_be_bytes()); // TINK prefix: 0x01 || key id
/// assert_eq!(keyset.decrypt(&old, b"context")?, b"message");
/// assert_eq!(keyset.decrypt(&new, b"context")?, b"message");
/// # Ok::<(), gcmsiv_keyset::Error>(())
/// ```
#[derive(Clone)]
pub struct Keyset {
    pub(crate) primary: u32,
    pub(crate) entries: Vec<Entry>,
}

/// What can be said of a key without its material.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyInfo {
    /// The key's id, as in its ciphertexts' prefix.
    pub key_id: u32,
    /// Enabled, disabled or destroyed.
    pub status: KeyStatus,
    /// What its ciphertexts start with.
    pub prefix: OutputPrefix,
    /// Its algorithm (`None` once destroyed: the material said which).
    pub algorithm: Option<Algorithm>,
    /// Whether it is the primary key, the one that encrypts.
    pub is_primary: bool,
}

impl Keyset {
    /// A keyset of one new key, its primary.
    pub fn generate(template: Template) -> Result<Self, Error> {
        let mut keyset = Keyset { primary: 0, entries: Vec::new() };
        keyset.primary = keyset.add(template)?;
        Ok(keyset)
    }

    /// Adds a new enabled key (not primary) and returns its id: a random id
    /// below 2^31 (Java's Tink reads ids as signed ints), unused in the keyset.
    pub fn add(&mut self, template: Template) -> Result<u32, Error> {
        let material = Material::generate(template.algorithm)?;
        let id = loop {
            let mut bytes = [0u8; 4];
            getrandom::fill(&mut bytes).map_err(|_| Error::RandomSource)?;
            let id = u32::from_be_bytes(bytes) >> 1;
            if id != 0 && self.entry(id).is_none() {
                break id;
            }
        };
        let entry =
            Entry { id, status: KeyStatus::Enabled, prefix: template.prefix, material: Some(material) };
        self.entries.push(entry);
        Ok(id)
    }

    /// Makes an enabled key the primary: from now on it encrypts.
    pub fn set_primary(&mut self, key_id: u32) -> Result<(), Error> {
        let entry = self.entry(key_id).ok_or(Error::UnknownKeyId(key_id))?;
        if entry.status != KeyStatus::Enabled {
            return Err(Error::Refused { key_id, reason: "only an enabled key can become primary" });
        }
        self.primary = key_id;
        Ok(())
    }

    /// Keeps a key but stops using it (its ciphertexts no longer decrypt).
    /// Not the primary: promote another key first.
    pub fn disable(&mut self, key_id: u32) -> Result<(), Error> {
        let entry =
            self.changeable(key_id, "the primary key cannot be disabled: promote another key first")?;
        if entry.status == KeyStatus::Destroyed {
            return Err(Error::Refused { key_id, reason: "the key is destroyed" });
        }
        entry.status = KeyStatus::Disabled;
        Ok(())
    }

    /// Uses a disabled key again.
    pub fn enable(&mut self, key_id: u32) -> Result<(), Error> {
        let entry = self.entry_mut(key_id)?;
        if entry.status == KeyStatus::Destroyed {
            return Err(Error::Refused {
                key_id,
                reason: "a destroyed key cannot be enabled: its material is gone",
            });
        }
        entry.status = KeyStatus::Enabled;
        Ok(())
    }

    /// Destroys a key's material (wiped from memory here; gone from the keyset
    /// once it is written) and keeps its id, marked destroyed. Not the primary.
    pub fn destroy(&mut self, key_id: u32) -> Result<(), Error> {
        let entry =
            self.changeable(key_id, "the primary key cannot be destroyed: promote another key first")?;
        entry.status = KeyStatus::Destroyed;
        entry.material = None; // dropping it zeroizes the bytes and the key schedule
        Ok(())
    }

    /// Removes a key and its id from the keyset. Not the primary.
    pub fn delete(&mut self, key_id: u32) -> Result<(), Error> {
        self.changeable(key_id, "the primary key cannot be deleted: promote another key first")?;
        self.entries.retain(|e| e.id != key_id);
        Ok(())
    }

    /// The primary key's id.
    pub fn primary_key_id(&self) -> u32 {
        self.primary
    }

    /// Every key, in the keyset's order.
    pub fn keys(&self) -> Vec<KeyInfo> {
        self.entries
            .iter()
            .map(|e| KeyInfo {
                key_id: e.id,
                status: e.status,
                prefix: e.prefix,
                algorithm: e.algorithm(),
                is_primary: e.id == self.primary,
            })
            .collect()
    }

    pub(crate) fn entry(&self, key_id: u32) -> Option<&Entry> {
        self.entries.iter().find(|e| e.id == key_id)
    }

    fn entry_mut(&mut self, key_id: u32) -> Result<&mut Entry, Error> {
        self.entries.iter_mut().find(|e| e.id == key_id).ok_or(Error::UnknownKeyId(key_id))
    }

    /// A key that is not the primary, for a step the primary must not take.
    fn changeable(&mut self, key_id: u32, primary_reason: &'static str) -> Result<&mut Entry, Error> {
        if key_id == self.primary {
            return Err(Error::Refused { key_id, reason: primary_reason });
        }
        self.entry_mut(key_id)
    }

    /// The keyset of a protobuf `Keyset`, checked: every key valid and of a type
    /// this crate has, ids unique, at least one key not destroyed, the primary
    /// present and enabled.
    pub(crate) fn from_proto(keyset: &proto::Keyset) -> Result<Self, Error> {
        let mut entries = Vec::with_capacity(keyset.key.len());
        for key in &keyset.key {
            if entries.iter().any(|e: &Entry| e.id == key.key_id) {
                return Err(Error::DuplicateKeyId(key.key_id));
            }
            entries.push(Entry::from_proto(key)?);
        }
        if entries.iter().all(|e| e.status == KeyStatus::Destroyed) {
            return Err(Error::Empty);
        }
        let primary = keyset.primary_key_id;
        let entry = entries.iter().find(|e| e.id == primary).ok_or(Error::NoPrimary(primary))?;
        if entry.status != KeyStatus::Enabled {
            return Err(Error::PrimaryNotEnabled { key_id: primary, status: entry.status });
        }
        Ok(Keyset { primary, entries })
    }

    pub(crate) fn to_proto(&self) -> proto::Keyset {
        proto::Keyset {
            primary_key_id: self.primary,
            key: self.entries.iter().map(Entry::to_proto).collect(),
        }
    }

    pub(crate) fn to_keyset_info(&self) -> proto::KeysetInfo {
        proto::KeysetInfo {
            primary_key_id: self.primary,
            key_info: self.entries.iter().map(Entry::to_key_info).collect(),
        }
    }
}

/// Ids, statuses, prefixes and algorithms; never key material.
impl fmt::Debug for Keyset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Keyset").field("primary_key_id", &self.primary).field("keys", &self.entries).finish()
    }
}
