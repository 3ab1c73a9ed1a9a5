//! AEADs that pick their own nonces: seal draws 12 random bytes from the
//! operating system and returns `nonce || ciphertext || tag`; open takes that
//! back. Callers never handle a nonce, the API shape of Go's proposed
//! `NewGCMSIV` (golang/go#54364, `NonceSize() == 0`) and of aws-lc-rs's
//! `RandomizedNonceKey`.
//!
//! # Why random nonces are safe with AES-GCM-SIV far beyond AES-GCM
//!
//! With AES-GCM, NIST SP 800-38D caps random 96-bit nonces at 2^32 messages per
//! key, because one repeated nonce reveals the XOR of two plaintexts and lets
//! an attacker forge. With AES-GCM-SIV a repeat reveals only that the two
//! messages (with their associated data) were equal, and each nonce gets its
//! own derived keys. RFC 8452 section 9's bounds keep the attacker's advantage
//! within 2^-32 for random nonces up to 2^62 messages of up to 64 KiB per key
//! (2^53 of up to 16 MiB, 2^37 of up to 4 GiB; plaintext and associated data
//! together): the limit is the volume of data, not the chance of a repeat.
//! [`random_nonce_messages_log2`](crate::random_nonce_messages_log2) computes
//! the figure for any length and derives it.
//!
//! Each call costs one `getrandom` system call (a few hundred nanoseconds);
//! batches draw every nonce of the batch in one.

use alloc::vec;
use alloc::vec::Vec;

use crate::{Aes128Gcm, Aes128GcmSiv, Aes256Gcm, Aes256GcmSiv, BatchItem, Cipher, Error, NONCE_LEN, TAG_LEN};

/// The nonce in front of every sealed message: 12 bytes.
pub const RANDOM_NONCE_LEN: usize = NONCE_LEN;

/// Fills `nonces` from the operating system's random number generator.
fn random_nonces(nonces: &mut [u8]) -> Result<(), Error> {
    getrandom::fill(nonces).map_err(|_| Error::RandomSource)
}

/// What the random-nonce calls need of a key: detached sealing and opening with
/// 12-byte nonces, and batches where the key has them.
trait Detached {
    fn tag_len(&self) -> usize;
    fn seal(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), Error>;
    fn open(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], buffer: &mut [u8], tag: &[u8]) -> Result<(), Error>;
    /// Seals every item (its tag into `item.tag[..tag_len]`); one at a time
    /// unless the key has a batch kernel.
    fn seal_batch(&self, items: &mut [BatchItem<'_>]) -> Result<(), Error> {
        let tag_len = self.tag_len();
        items.iter_mut().try_for_each(|it| self.seal(it.nonce, it.aad, it.buffer, &mut it.tag[..tag_len]))
    }
}

macro_rules! detached_siv {
    ($name:ty) => {
        impl Detached for $name {
            fn tag_len(&self) -> usize {
                TAG_LEN
            }
            fn seal(
                &self,
                nonce: &[u8; NONCE_LEN],
                aad: &[u8],
                buffer: &mut [u8],
                tag: &mut [u8],
            ) -> Result<(), Error> {
                tag.copy_from_slice(&self.encrypt_in_place_detached(nonce, aad, buffer)?);
                Ok(())
            }
            fn open(
                &self,
                nonce: &[u8; NONCE_LEN],
                aad: &[u8],
                buffer: &mut [u8],
                tag: &[u8],
            ) -> Result<(), Error> {
                let tag = tag.try_into().map_err(|_| Error::Authentication)?;
                self.decrypt_in_place_detached(nonce, aad, buffer, tag)
            }
            fn seal_batch(&self, items: &mut [BatchItem<'_>]) -> Result<(), Error> {
                self.encrypt_batch(items)
            }
        }
    };
}

macro_rules! detached_gcm {
    ($name:ty) => {
        impl Detached for $name {
            fn tag_len(&self) -> usize {
                <$name>::tag_len(self)
            }
            fn seal(
                &self,
                nonce: &[u8; NONCE_LEN],
                aad: &[u8],
                buffer: &mut [u8],
                tag: &mut [u8],
            ) -> Result<(), Error> {
                tag.copy_from_slice(self.encrypt_in_place_detached(nonce, aad, buffer)?.as_bytes());
                Ok(())
            }
            fn open(
                &self,
                nonce: &[u8; NONCE_LEN],
                aad: &[u8],
                buffer: &mut [u8],
                tag: &[u8],
            ) -> Result<(), Error> {
                self.decrypt_in_place_detached(nonce, aad, buffer, tag)
            }
        }
    };
}

detached_siv!(Aes128GcmSiv);
detached_siv!(Aes256GcmSiv);
detached_gcm!(Aes128Gcm);
detached_gcm!(Aes256Gcm);

impl Detached for Cipher {
    fn tag_len(&self) -> usize {
        Cipher::tag_len(self)
    }
    fn seal(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), Error> {
        self.encrypt_in_place_detached(nonce, aad, buffer, tag)
    }
    fn open(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], buffer: &mut [u8], tag: &[u8]) -> Result<(), Error> {
        self.decrypt_in_place_detached(nonce, aad, buffer, tag)
    }
    fn seal_batch(&self, items: &mut [BatchItem<'_>]) -> Result<(), Error> {
        self.encrypt_batch(items)
    }
}

fn seal<K: Detached>(key: &K, aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, Error> {
    let tag_len = key.tag_len();
    let mut out = vec![0u8; NONCE_LEN + plaintext.len() + tag_len];
    let (nonce, rest) = out.split_at_mut(NONCE_LEN);
    random_nonces(nonce)?;
    let nonce: &[u8; NONCE_LEN] = (&*nonce).try_into().expect("internal error: nonce length");
    let (body, tag) = rest.split_at_mut(plaintext.len());
    body.copy_from_slice(plaintext);
    key.seal(nonce, aad, body, tag)?;
    Ok(out)
}

fn open<K: Detached>(key: &K, aad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Error> {
    let tag_len = key.tag_len();
    if sealed.len() < NONCE_LEN + tag_len {
        return Err(Error::CiphertextTooShort);
    }
    let (nonce, rest) = sealed.split_at(NONCE_LEN);
    let nonce: &[u8; NONCE_LEN] = nonce.try_into().expect("internal error: nonce length");
    let (ciphertext, tag) = rest.split_at(rest.len() - tag_len);
    let mut out = ciphertext.to_vec();
    match key.open(nonce, aad, &mut out, tag) {
        Ok(()) => Ok(out),
        Err(e) => {
            // The buffer holds the ciphertext again; nothing to wipe, but say so.
            drop(out);
            Err(e)
        }
    }
}

fn seal_batch<K: Detached>(key: &K, messages: &[(&[u8], &[u8])]) -> Result<Vec<Vec<u8>>, Error> {
    let tag_len = key.tag_len();
    let mut nonces = vec![[0u8; NONCE_LEN]; messages.len()];
    random_nonces(nonces.as_flattened_mut())?;
    let mut bodies: Vec<Vec<u8>> = messages.iter().map(|(_, p)| p.to_vec()).collect();
    let mut items: Vec<BatchItem<'_>> = nonces
        .iter()
        .zip(messages)
        .zip(bodies.iter_mut())
        .map(|((nonce, (aad, _)), body)| BatchItem::new(nonce, aad, body))
        .collect();
    key.seal_batch(&mut items)?;
    let tags: Vec<[u8; TAG_LEN]> = items.iter().map(|it| it.tag).collect();
    drop(items);
    Ok(nonces
        .iter()
        .zip(bodies)
        .zip(tags)
        .map(|((nonce, body), tag)| {
            let mut out = Vec::with_capacity(NONCE_LEN + body.len() + tag_len);
            out.extend_from_slice(nonce);
            out.extend_from_slice(&body);
            out.extend_from_slice(&tag[..tag_len]);
            out
        })
        .collect())
}

fn open_batch<K: Detached>(key: &K, messages: &[(&[u8], &[u8])]) -> Vec<Result<Vec<u8>, Error>> {
    messages.iter().map(|(aad, sealed)| open(key, aad, sealed)).collect()
}

macro_rules! random_nonce_methods {
    ($name:ty, $overhead:literal) => {
        impl $name {
            /// Seals `plaintext` under a fresh random nonce from the operating
            /// system: returns `nonce || ciphertext || tag`
            #[doc = concat!("(", $overhead, " bytes more than the plaintext).")]
            /// See the module [`random_nonce`](crate::random_nonce) for why this is safe.
            pub fn encrypt_random_nonce(&self, aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, Error> {
                seal(self, aad, plaintext)
            }

            /// Opens what [`Self::encrypt_random_nonce`] returned. Input shorter
            /// than a nonce and a tag is [`Error::CiphertextTooShort`]; anything
            /// else that does not authenticate is [`Error::Authentication`], and
            /// no plaintext is released.
            pub fn decrypt_random_nonce(&self, aad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, Error> {
                open(self, aad, sealed)
            }

            /// Seals many `(aad, plaintext)` messages, each under its own random
            /// nonce (one system call for all of them), with the batch kernel
            /// where the key has one. Misuse anywhere refuses the whole call.
            pub fn encrypt_random_nonce_batch(
                &self,
                messages: &[(&[u8], &[u8])],
            ) -> Result<Vec<Vec<u8>>, Error> {
                seal_batch(self, messages)
            }

            /// Opens many `(aad, sealed)` messages: a result for each, one
            /// forgery failing only its own.
            pub fn decrypt_random_nonce_batch(
                &self,
                messages: &[(&[u8], &[u8])],
            ) -> Vec<Result<Vec<u8>, Error>> {
                open_batch(self, messages)
            }
        }
    };
}

random_nonce_methods!(Aes128GcmSiv, "28");
random_nonce_methods!(Aes256GcmSiv, "28");
random_nonce_methods!(Aes128Gcm, "12 + the tag length: 28 with the default 16-byte tags");
random_nonce_methods!(Aes256Gcm, "12 + the tag length: 28 with the default 16-byte tags");
random_nonce_methods!(Cipher, "12 + the tag length: 28 with 16-byte tags");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_messages_open_and_nonces_differ() {
        let key = Aes256GcmSiv::new(&[7; 32]);
        let a = key.encrypt_random_nonce(b"ad", b"message").unwrap();
        let b = key.encrypt_random_nonce(b"ad", b"message").unwrap();
        assert_eq!(a.len(), 7 + 28);
        assert_ne!(a[..12], b[..12]);
        assert_eq!(key.decrypt_random_nonce(b"ad", &a).unwrap(), b"message");
        // The same as sealing with that nonce by hand.
        let nonce: &[u8; 12] = a[..12].try_into().unwrap();
        assert_eq!(key.encrypt(nonce, b"ad", b"message").unwrap(), a[12..]);
        assert_eq!(key.decrypt_random_nonce(b"other", &a), Err(Error::Authentication));
        for cut in 0..28 {
            assert_eq!(key.decrypt_random_nonce(b"ad", &a[..cut]), Err(Error::CiphertextTooShort));
        }
        for at in 0..a.len() {
            let mut bad = a.clone();
            bad[at] ^= 0x80;
            assert_eq!(key.decrypt_random_nonce(b"ad", &bad), Err(Error::Authentication));
        }
    }

    #[test]
    fn every_key_type_and_batches() {
        let gcm = Aes128Gcm::new(&[1; 16]);
        let sealed = gcm.encrypt_random_nonce(b"", b"x").unwrap();
        assert_eq!(gcm.decrypt_random_nonce(b"", &sealed).unwrap(), b"x");
        let cipher =
            Cipher::new(crate::Algorithm::Aes128GcmSiv, &[2; 16], 16, crate::Backend::select()).unwrap();
        let messages: Vec<(&[u8], &[u8])> = vec![(b"a", b"one"), (b"", b""), (b"c", &[9; 100])];
        let sealed = cipher.encrypt_random_nonce_batch(&messages).unwrap();
        let typed = Aes128GcmSiv::new(&[2; 16]);
        for ((aad, plaintext), sealed) in messages.iter().zip(&sealed) {
            assert_eq!(typed.decrypt_random_nonce(aad, sealed).unwrap(), *plaintext);
        }
        let mut forged = sealed[1].clone();
        forged[13] ^= 1;
        let opened =
            typed.decrypt_random_nonce_batch(&[(b"a", &sealed[0]), (b"", &forged), (b"c", &sealed[2][..5])]);
        assert_eq!(opened[0].as_deref(), Ok(&b"one"[..]));
        assert_eq!(opened[1], Err(Error::Authentication));
        assert_eq!(opened[2], Err(Error::CiphertextTooShort));
    }
}
