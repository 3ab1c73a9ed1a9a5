//! Encryption and decryption with a keyset, in Tink's wire format:
//! `prefix || nonce || ciphertext || tag`, where the prefix is the key's
//! (5 bytes, or none for RAW), the nonce 12 random bytes and the tag 16 bytes,
//! for AES-GCM-SIV and AES-GCM alike (Tink's `AesGcmSiv` and `AesGcm`
//! primitives, wrapped by its AEAD wrapper).
//!
//! Decryption follows Tink's wrapper: a ciphertext longer than a prefix is
//! tried with the enabled keys whose prefix it starts with, then the whole of
//! it with every enabled RAW key; the first that authenticates wins.

use gcmsiv::{Cipher, NONCE_LEN, TAG_LEN};

use crate::error::Error;
use crate::key::{KeyStatus, OutputPrefix, PREFIX_LEN};
use crate::keyset::Keyset;

impl Keyset {
    /// Encrypts with the primary key under a fresh random nonce: returns
    /// `prefix || nonce || ciphertext || tag`, which Tink's `Aead.decrypt` opens.
    pub fn encrypt(&self, plaintext: &[u8], associated_data: &[u8]) -> Result<Vec<u8>, Error> {
        let primary = self.entry(self.primary).expect("internal error: a keyset has its primary");
        let material = primary.material.as_ref().expect("internal error: the primary is enabled");
        let prefix = primary.prefix.bytes(primary.id);
        let prefix: &[u8] = prefix.as_ref().map_or(&[], |p| p.as_slice());
        let cipher = &material.cipher;
        cipher.check_lengths(NONCE_LEN, associated_data.len(), plaintext.len()).map_err(Error::Cipher)?;
        let mut out = Vec::with_capacity(prefix.len() + NONCE_LEN + plaintext.len() + TAG_LEN);
        out.extend_from_slice(prefix);
        out.resize(prefix.len() + NONCE_LEN, 0);
        getrandom::fill(&mut out[prefix.len()..]).map_err(|_| Error::RandomSource)?;
        out.extend_from_slice(plaintext);
        out.resize(out.len() + TAG_LEN, 0);
        let (head, rest) = out.split_at_mut(prefix.len() + NONCE_LEN);
        let (body, tag) = rest.split_at_mut(plaintext.len());
        cipher
            .encrypt_in_place_detached(&head[prefix.len()..], associated_data, body, tag)
            .map_err(Error::Cipher)?;
        Ok(out)
    }

    /// Decrypts what [`Keyset::encrypt`] or Tink's `Aead.encrypt` made with a key
    /// of this keyset. No plaintext is released unless it authenticates. When no
    /// key opens it, the error is [`Error::Authentication`], or, where the
    /// prefix names a key that is disabled, destroyed or absent (and no RAW key
    /// opened it either), [`Error::KeyNotEnabled`] or [`Error::KeyNotFound`].
    pub fn decrypt(&self, ciphertext: &[u8], associated_data: &[u8]) -> Result<Vec<u8>, Error> {
        if ciphertext.len() > PREFIX_LEN {
            let (prefix, rest) = ciphertext.split_at(PREFIX_LEN);
            for entry in self.enabled().filter(|e| e.prefix.bytes(e.id).is_some_and(|p| p == prefix)) {
                if let Some(plaintext) = open(entry_cipher(entry), associated_data, rest) {
                    return Ok(plaintext);
                }
            }
        }
        for entry in self.enabled().filter(|e| e.prefix == OutputPrefix::Raw) {
            if let Some(plaintext) = open(entry_cipher(entry), associated_data, ciphertext) {
                return Ok(plaintext);
            }
        }
        Err(self.why_not(ciphertext))
    }

    fn enabled(&self) -> impl Iterator<Item = &crate::key::Entry> {
        self.entries.iter().filter(|e| e.status == KeyStatus::Enabled)
    }

    /// Why no key opened a ciphertext: its prefix's key if that key cannot be
    /// used, else nothing but "authentication failed".
    fn why_not(&self, ciphertext: &[u8]) -> Error {
        let Some(prefix) = ciphertext.get(..PREFIX_LEN).filter(|_| ciphertext.len() > PREFIX_LEN) else {
            return Error::Authentication;
        };
        if prefix[0] > 1 {
            return Error::Authentication;
        }
        let key_id = u32::from_be_bytes([prefix[1], prefix[2], prefix[3], prefix[4]]);
        let named = self.entries.iter().find(|e| e.prefix.bytes(e.id).is_some_and(|p| p == prefix));
        match named {
            Some(e) if e.status != KeyStatus::Enabled => {
                Error::KeyNotEnabled { key_id, status: e.status, prefix: e.prefix }
            }
            None if self.entry(key_id).is_none()
                && !self.enabled().any(|e| e.prefix == OutputPrefix::Raw) =>
            {
                Error::KeyNotFound { key_id }
            }
            _ => Error::Authentication,
        }
    }
}

fn entry_cipher(entry: &crate::key::Entry) -> &Cipher {
    &entry.material.as_ref().expect("internal error: enabled keys have material").cipher
}

/// `nonce || ciphertext || tag` opened, or `None`.
fn open(cipher: &Cipher, associated_data: &[u8], sealed: &[u8]) -> Option<Vec<u8>> {
    if sealed.len() < NONCE_LEN + TAG_LEN {
        return None;
    }
    let (nonce, rest) = sealed.split_at(NONCE_LEN);
    let (body, tag) = rest.split_at(rest.len() - TAG_LEN);
    let mut out = body.to_vec();
    // On failure the buffer holds the ciphertext again: nothing to wipe.
    cipher.decrypt_in_place_detached(nonce, associated_data, &mut out, tag).ok()?;
    Some(out)
}
