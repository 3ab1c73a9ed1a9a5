//! The public AES-GCM and GMAC types, one per key size.

use crate::Error;
use crate::backend::{Backend, soft};
use crate::dispatch::{Dispatch, FromProof, dispatch, hw};
use crate::gcm::Gcm;
#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::fmt;

/// An authentication tag of the length the key was made for (4 to 16 bytes).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Tag {
    bytes: [u8; 16],
    len: u8,
}

impl Tag {
    pub(crate) fn truncate(full: [u8; 16], len: usize) -> Self {
        let mut bytes = [0u8; 16];
        bytes[..len].copy_from_slice(&full[..len]);
        Tag { bytes, len: len as u8 }
    }

    /// The tag's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// All sixteen bytes, the tag's first (zeros after a truncated tag's):
    /// for callers that know the length, so that no bounds check reads the
    /// length field beside the secret bytes (rustc may compare it together
    /// with the last tag byte as one 16-bit word; harmless, its outcome does
    /// not depend on that byte, but Memcheck reports it under ctgrind).
    pub(crate) fn padded(&self) -> &[u8; 16] {
        &self.bytes
    }
}

impl AsRef<[u8]> for Tag {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tag(")?;
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

/// Tag lengths SP 800-38D allows without special conditions: 96 to 128 bits.
const TAG_LENS: core::ops::RangeInclusive<usize> = 12..=16;

macro_rules! gcm_type {
    ($name:ident, $gmac:ident, $key_len:literal, $aes:ident, $bits:literal) => {
        #[doc = concat!("AES-", $bits, "-GCM (NIST SP 800-38D).")]
        ///
        /// Nonces (IVs) of any length from 1 byte; 12 bytes is the fast path and
        /// the one to use. **A repeated nonce under one key is a break**: it
        /// leaks the XOR of the plaintexts and lets an attacker forge. Where
        /// nonces might repeat, use the GCM-SIV types. Tags are 16 bytes unless
        /// chosen otherwise at construction.
        ///
        /// ```
        #[doc = concat!("use gcmsiv::", stringify!($name), ";")]
        #[doc = concat!("let cipher = ", stringify!($name), "::new(&[0x42; ", $key_len, "]); // in practice: a random key")]
        /// let nonce = [0u8; 12]; // must never repeat under this key
        /// let sealed = cipher.encrypt(&nonce, b"header", b"secret").unwrap();
        /// assert_eq!(cipher.decrypt(&nonce, b"header", &sealed).unwrap(), b"secret");
        /// ```
        #[derive(Clone)]
        pub struct $name {
            inner: Dispatch<Gcm<soft::$aes>, Gcm<hw::$aes>>,
        }

        impl $name {
            /// Key length in bytes.
            pub const KEY_LEN: usize = $key_len;

            /// A cipher with 16-byte tags on the fastest backend this CPU supports.
            pub fn new(key: &[u8; $key_len]) -> Self {
                Self::build(key, 16, Backend::select()).expect("internal error: selected backend unavailable")
            }

            /// Like [`Self::new`], for a key whose length is known only at run time.
            pub fn new_from_slice(key: &[u8]) -> Result<Self, Error> {
                Ok(Self::new(crate::buffers::key_array(key)?))
            }

            /// A cipher whose tags are `tag_len` bytes, 12 to 16 (96 to 128 bits).
            /// Shorter tags make forgery easier; for 4- and 8-byte tags see
            /// [`Self::with_short_tag_hazardous`].
            pub fn with_tag_len(key: &[u8; $key_len], tag_len: usize) -> Result<Self, Error> {
                if !TAG_LENS.contains(&tag_len) {
                    return Err(Error::InvalidTagLength { expected: 16, actual: tag_len });
                }
                Self::build(key, tag_len, Backend::select())
            }

            /// A cipher with 4- or 8-byte (32- or 64-bit) tags. Hazardous.
            ///
            /// SP 800-38D Appendix C allows these tags only where the application
            /// enforces one row of its tables: a maximum length of ciphertext plus
            /// AAD in one packet, and a maximum number of decryption attempts
            /// under one key, after which the key must be changed.
            ///
            /// | 32-bit tags (Table 1): max packet | max decryptions per key |
            /// |---|---|
            /// | 2^1 bytes | 2^22 |
            /// | 2^2 bytes | 2^20 |
            /// | 2^3 bytes | 2^18 |
            /// | 2^4 bytes | 2^15 |
            /// | 2^5 bytes | 2^13 |
            /// | 2^6 bytes | 2^11 |
            ///
            /// | 64-bit tags (Table 2): max packet | max decryptions per key |
            /// |---|---|
            /// | 2^15 bytes | 2^32 |
            /// | 2^17 bytes | 2^29 |
            /// | 2^19 bytes | 2^26 |
            /// | 2^21 bytes | 2^23 |
            /// | 2^23 bytes | 2^20 |
            /// | 2^25 bytes | 2^17 |
            ///
            /// Each forgery attempt succeeds with probability up to about
            /// (message length in blocks) x 2^-t, and every success reveals
            /// information about the hash key that makes the next one easier
            /// (Appendix C also asks that failures be discarded silently and
            /// counted). This library does not count for you.
            pub fn with_short_tag_hazardous(key: &[u8; $key_len], tag_len: usize) -> Result<Self, Error> {
                if tag_len != 4 && tag_len != 8 {
                    return Err(Error::InvalidTagLength { expected: 8, actual: tag_len });
                }
                Self::build(key, tag_len, Backend::select())
            }

            /// A cipher on a chosen backend, with `tag_len`-byte tags (12 to 16).
            pub fn with_backend(key: &[u8; $key_len], tag_len: usize, backend: Backend) -> Result<Self, Error> {
                if !TAG_LENS.contains(&tag_len) {
                    return Err(Error::InvalidTagLength { expected: 16, actual: tag_len });
                }
                Self::build(key, tag_len, backend)
            }

            /// [`Self::with_short_tag_hazardous`] on a chosen backend. Hazardous,
            /// for the same reasons.
            pub fn with_backend_short_tag_hazardous(
                key: &[u8; $key_len],
                tag_len: usize,
                backend: Backend,
            ) -> Result<Self, Error> {
                if tag_len != 4 && tag_len != 8 {
                    return Err(Error::InvalidTagLength { expected: 8, actual: tag_len });
                }
                Self::build(key, tag_len, backend)
            }

            fn build(key: &[u8; $key_len], tag_len: usize, backend: Backend) -> Result<Self, Error> {
                let inner = Dispatch::build(
                    backend,
                    || Gcm::new(soft::$aes::new(key), tag_len),
                    |proof| Gcm::new(hw::$aes::from_proof(proof, key), tag_len),
                )?;
                Ok($name { inner })
            }

            /// The backend this key runs on.
            pub fn backend(&self) -> Backend {
                self.inner.backend()
            }

            /// The tag length in bytes.
            pub fn tag_len(&self) -> usize {
                dispatch!(self, core => core.tag_len())
            }

            /// Encrypts `plaintext`, returning ciphertext || tag.
            #[cfg(feature = "alloc")]
            pub fn encrypt(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, Error> {
                let needed = plaintext.len().checked_add(self.tag_len()).ok_or(Error::PlaintextTooLong)?;
                let mut out = alloc::vec![0; needed];
                self.encrypt_into(nonce, aad, plaintext, &mut out)?;
                Ok(out)
            }

            /// Decrypts ciphertext || tag; the plaintext only if it is authentic.
            #[cfg(feature = "alloc")]
            pub fn decrypt(&self, nonce: &[u8], aad: &[u8], ciphertext_and_tag: &[u8]) -> Result<Vec<u8>, Error> {
                let (ciphertext, _) = self.split_tag(ciphertext_and_tag)?;
                let mut out = alloc::vec![0; ciphertext.len()];
                self.decrypt_into(nonce, aad, ciphertext_and_tag, &mut out)?;
                Ok(out)
            }

            /// Encrypts `buffer` in place and returns the tag.
            pub fn encrypt_in_place_detached(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<Tag, Error> {
                dispatch!(self, core => {
                    let full = core.seal_in_place(nonce, aad, buffer)?;
                    Ok(Tag::truncate(full, core.tag_len()))
                })
            }

            /// Decrypts `buffer` in place if `tag` authenticates it; on failure the
            /// buffer holds the ciphertext again (never unauthenticated plaintext).
            #[must_use = "the buffer holds plaintext only if this returns Ok"]
            pub fn decrypt_in_place_detached(
                &self,
                nonce: &[u8],
                aad: &[u8],
                buffer: &mut [u8],
                tag: &[u8],
            ) -> Result<(), Error> {
                dispatch!(self, core => core.open_in_place(nonce, aad, buffer, tag))
            }

            /// Writes ciphertext || tag into `out` and returns the bytes written.
            pub fn encrypt_into(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8], out: &mut [u8]) -> Result<usize, Error> {
                crate::buffers::seal_into(plaintext, out, self.tag_len(), |data| self.seal(nonce, aad, data))
            }

            /// Encrypts `plaintext` into the first `plaintext.len()` bytes of
            /// `ciphertext` (another buffer) and returns the tag, in one pass that
            /// reads the one and writes the other (no copy). On an error nothing
            /// of the plaintext is left in `ciphertext`.
            pub fn encrypt_detached(&self, nonce: &[u8], aad: &[u8], plaintext: &[u8], ciphertext: &mut [u8]) -> Result<Tag, Error> {
                crate::buffers::seal_detached(plaintext, ciphertext, |data| self.seal(nonce, aad, data))
            }

            /// Decrypts `ciphertext` into the first `ciphertext.len()` bytes of
            /// `plaintext` (another buffer) if `tag` authenticates it, in one
            /// pass; on failure those bytes are zeroed.
            #[must_use = "`plaintext` holds plaintext only if this returns Ok"]
            pub fn decrypt_detached(&self, nonce: &[u8], aad: &[u8], ciphertext: &[u8], tag: &[u8], plaintext: &mut [u8]) -> Result<(), Error> {
                crate::buffers::open_into(ciphertext, plaintext, |data| dispatch!(self, core => core.open(nonce, aad, data, tag))).map(|_| ())
            }

            fn seal(&self, nonce: &[u8], aad: &[u8], data: crate::backend::InOut<'_>) -> Result<Tag, Error> {
                dispatch!(self, core => {
                    let full = core.seal(nonce, aad, data)?;
                    Ok(Tag::truncate(full, core.tag_len()))
                })
            }

            /// Writes the plaintext of ciphertext || tag into `out`; returns its length.
            /// On failure those bytes of `out` are zeroed.
            #[must_use = "`out` holds plaintext only if this returns Ok"]
            pub fn decrypt_into(&self, nonce: &[u8], aad: &[u8], ciphertext_and_tag: &[u8], out: &mut [u8]) -> Result<usize, Error> {
                let (ciphertext, tag) = self.split_tag(ciphertext_and_tag)?;
                crate::buffers::open_into(ciphertext, out, |data| dispatch!(self, core => core.open(nonce, aad, data, tag)))
            }

            fn split_tag<'a>(&self, sealed: &'a [u8]) -> Result<(&'a [u8], &'a [u8]), Error> {
                let body = sealed.len().checked_sub(self.tag_len()).ok_or(Error::CiphertextTooShort)?;
                Ok(sealed.split_at(body))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("backend", &self.backend())
                    .field("tag_len", &self.tag_len())
                    .finish_non_exhaustive()
            }
        }

        #[doc = concat!("GMAC with AES-", $bits, " (SP 800-38D): GCM authenticating data it")]
        /// does not encrypt. Every nonce must be unique per key, as for GCM.
        ///
        /// ```
        #[doc = concat!("use gcmsiv::", stringify!($gmac), ";")]
        #[doc = concat!("let mac = ", stringify!($gmac), "::new(&[7; ", $key_len, "]);")]
        /// let tag = mac.compute(&[1; 12], b"message").unwrap();
        /// assert!(mac.verify(&[1; 12], b"message", tag.as_bytes()).is_ok());
        /// assert!(mac.verify(&[1; 12], b"massage", tag.as_bytes()).is_err());
        /// ```
        #[derive(Clone, Debug)]
        pub struct $gmac {
            gcm: $name,
        }

        impl $gmac {
            /// GMAC with 16-byte tags.
            pub fn new(key: &[u8; $key_len]) -> Self {
                $gmac { gcm: $name::new(key) }
            }

            /// GMAC around a configured GCM key (tag length, backend).
            pub fn from_gcm(gcm: $name) -> Self {
                $gmac { gcm }
            }

            /// The tag of `data` under `nonce`.
            pub fn compute(&self, nonce: &[u8], data: &[u8]) -> Result<Tag, Error> {
                self.gcm.encrypt_in_place_detached(nonce, data, &mut [])
            }

            /// Checks `tag` in constant time; [`Error::Authentication`] if it is wrong.
            pub fn verify(&self, nonce: &[u8], data: &[u8], tag: &[u8]) -> Result<(), Error> {
                self.gcm.decrypt_in_place_detached(nonce, data, &mut [], tag)
            }
        }
    };
}

gcm_type!(Aes128Gcm, Aes128Gmac, 16, Aes128, "128");
gcm_type!(Aes256Gcm, Aes256Gmac, 32, Aes256, "256");
