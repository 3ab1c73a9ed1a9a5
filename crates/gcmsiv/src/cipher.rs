//! The crate's four AEADs behind one type, the algorithm chosen at run time:
//! for language bindings, configuration files and protocols that negotiate.
//! Each call dispatches to the typed cipher ([`Aes128GcmSiv`] and the rest),
//! which does the work; this adds no mode logic.

use crate::buffers::key_array;
use crate::limits::{self, Limits};
use crate::{Aes128Gcm, Aes128GcmSiv, Aes256Gcm, Aes256GcmSiv, Backend, BatchItem, Error};

/// An algorithm of this crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// `AEAD_AES_128_GCM_SIV` (RFC 8452).
    Aes128GcmSiv,
    /// `AEAD_AES_256_GCM_SIV` (RFC 8452).
    Aes256GcmSiv,
    /// AES-128-GCM (NIST SP 800-38D).
    Aes128Gcm,
    /// AES-256-GCM (NIST SP 800-38D).
    Aes256Gcm,
}

impl Algorithm {
    /// Key bytes: 16 or 32.
    pub const fn key_len(self) -> usize {
        match self {
            Algorithm::Aes128GcmSiv | Algorithm::Aes128Gcm => 16,
            Algorithm::Aes256GcmSiv | Algorithm::Aes256Gcm => 32,
        }
    }

    /// Whether a repeated nonce reveals only message equality (AES-GCM-SIV),
    /// rather than breaking confidentiality and integrity (AES-GCM).
    pub const fn is_nonce_misuse_resistant(self) -> bool {
        matches!(self, Algorithm::Aes128GcmSiv | Algorithm::Aes256GcmSiv)
    }
}

#[derive(Clone)]
#[allow(
    clippy::large_enum_variant,
    reason = "the variants are the ciphers themselves, as large as each other"
)]
enum Inner {
    Aes128GcmSiv(Aes128GcmSiv),
    Aes256GcmSiv(Aes256GcmSiv),
    Aes128Gcm(Aes128Gcm),
    Aes256Gcm(Aes256Gcm),
}

/// A key of any [`Algorithm`], with slices for nonces and tags.
///
/// ```
/// use gcmsiv::{Algorithm, Backend, Cipher};
/// let cipher = Cipher::new(Algorithm::Aes256GcmSiv, &[0x42; 32], 16, Backend::select())?;
/// let (nonce, mut buffer, mut tag) = ([7u8; 12], *b"attack at dawn", [0u8; 16]);
/// cipher.encrypt_in_place_detached(&nonce, b"header", &mut buffer, &mut tag)?;
/// cipher.decrypt_in_place_detached(&nonce, b"header", &mut buffer, &tag)?;
/// assert_eq!(&buffer, b"attack at dawn");
/// # Ok::<(), gcmsiv::Error>(())
/// ```
#[derive(Clone)]
pub struct Cipher {
    inner: Inner,
}

impl Cipher {
    /// A key for `algorithm` on `backend`, with `tag_len`-byte tags: 16 for
    /// AES-GCM-SIV, 12 to 16 for AES-GCM.
    pub fn new(algorithm: Algorithm, key: &[u8], tag_len: usize, backend: Backend) -> Result<Self, Error> {
        if algorithm.is_nonce_misuse_resistant() && tag_len != crate::TAG_LEN {
            return Err(Error::InvalidTagLength { expected: crate::TAG_LEN, actual: tag_len });
        }
        let inner = match algorithm {
            Algorithm::Aes128GcmSiv => {
                Inner::Aes128GcmSiv(Aes128GcmSiv::with_backend(key_array(key)?, backend)?)
            }
            Algorithm::Aes256GcmSiv => {
                Inner::Aes256GcmSiv(Aes256GcmSiv::with_backend(key_array(key)?, backend)?)
            }
            Algorithm::Aes128Gcm => {
                Inner::Aes128Gcm(Aes128Gcm::with_backend(key_array(key)?, tag_len, backend)?)
            }
            Algorithm::Aes256Gcm => {
                Inner::Aes256Gcm(Aes256Gcm::with_backend(key_array(key)?, tag_len, backend)?)
            }
        };
        Ok(Cipher { inner })
    }

    /// An AES-GCM key with 4- or 8-byte tags. Hazardous: see
    /// [`Aes128Gcm::with_short_tag_hazardous`] for the limits the caller must
    /// enforce. AES-GCM-SIV algorithms are refused.
    pub fn new_short_tag_hazardous(
        algorithm: Algorithm,
        key: &[u8],
        tag_len: usize,
        backend: Backend,
    ) -> Result<Self, Error> {
        let inner = match algorithm {
            Algorithm::Aes128Gcm => Inner::Aes128Gcm(Aes128Gcm::with_backend_short_tag_hazardous(
                key_array(key)?,
                tag_len,
                backend,
            )?),
            Algorithm::Aes256Gcm => Inner::Aes256Gcm(Aes256Gcm::with_backend_short_tag_hazardous(
                key_array(key)?,
                tag_len,
                backend,
            )?),
            _ => return Err(Error::InvalidTagLength { expected: crate::TAG_LEN, actual: tag_len }),
        };
        Ok(Cipher { inner })
    }

    /// Sets the size from which one AES-GCM-SIV message runs on rayon's pool
    /// (`None`: never); see [`Aes128GcmSiv::with_parallel_threshold`]. AES-GCM
    /// keys have no parallel path and are returned as they are.
    #[cfg(feature = "parallel")]
    pub fn with_parallel_threshold(self, bytes: Option<usize>) -> Self {
        let inner = match self.inner {
            Inner::Aes128GcmSiv(c) => Inner::Aes128GcmSiv(c.with_parallel_threshold(bytes)),
            Inner::Aes256GcmSiv(c) => Inner::Aes256GcmSiv(c.with_parallel_threshold(bytes)),
            other => other,
        };
        Cipher { inner }
    }

    /// The key's algorithm.
    #[inline]
    pub fn algorithm(&self) -> Algorithm {
        match self.inner {
            Inner::Aes128GcmSiv(_) => Algorithm::Aes128GcmSiv,
            Inner::Aes256GcmSiv(_) => Algorithm::Aes256GcmSiv,
            Inner::Aes128Gcm(_) => Algorithm::Aes128Gcm,
            Inner::Aes256Gcm(_) => Algorithm::Aes256Gcm,
        }
    }

    /// Tag bytes of this key's messages.
    #[inline]
    pub fn tag_len(&self) -> usize {
        match &self.inner {
            Inner::Aes128Gcm(c) => c.tag_len(),
            Inner::Aes256Gcm(c) => c.tag_len(),
            Inner::Aes128GcmSiv(_) | Inner::Aes256GcmSiv(_) => crate::TAG_LEN,
        }
    }

    /// The backend the key runs on.
    pub fn backend(&self) -> Backend {
        match &self.inner {
            Inner::Aes128GcmSiv(c) => c.backend(),
            Inner::Aes256GcmSiv(c) => c.backend(),
            Inner::Aes128Gcm(c) => c.backend(),
            Inner::Aes256Gcm(c) => c.backend(),
        }
    }

    /// The checks an encryption makes of its lengths, without the call: the
    /// nonce's, the associated data's and the plaintext's, in that order,
    /// with the errors the call would return. For callers that must refuse
    /// misuse before they copy anything (a C caller's buffers, a batch).
    /// Decryption's are [`Self::check_open_lengths`].
    #[inline]
    pub fn check_lengths(&self, nonce_len: usize, aad_len: usize, plaintext_len: usize) -> Result<(), Error> {
        self.limits().check_seal(nonce_len, aad_len, plaintext_len)
    }

    /// The checks a decryption makes of its lengths, without the call, as
    /// [`Self::check_lengths`]: `ciphertext_len` is the ciphertext's without
    /// its tag (an over-long one is [`Error::CiphertextTooLong`]).
    #[inline]
    pub fn check_open_lengths(
        &self,
        nonce_len: usize,
        aad_len: usize,
        ciphertext_len: usize,
    ) -> Result<(), Error> {
        self.limits().check_open(nonce_len, aad_len, ciphertext_len)
    }

    fn limits(&self) -> &'static Limits {
        if self.algorithm().is_nonce_misuse_resistant() { &limits::GCM_SIV } else { &limits::GCM }
    }

    /// Encrypts `buffer` in place and writes the tag into `tag`, which must
    /// be [`Self::tag_len`] bytes.
    #[inline]
    pub fn encrypt_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), Error> {
        // The lengths before the tag, as the typed AES-GCM calls and the C
        // ABI check them: one misuse, one error, whichever way it comes.
        self.check_lengths(nonce.len(), aad.len(), buffer.len())?;
        if tag.len() != self.tag_len() {
            return Err(Error::InvalidTagLength { expected: self.tag_len(), actual: tag.len() });
        }
        match &self.inner {
            Inner::Aes128GcmSiv(c) => tag.copy_from_slice(&c.encrypt_in_place_detached(
                crate::nonce_from_slice(nonce)?,
                aad,
                buffer,
            )?),
            Inner::Aes256GcmSiv(c) => tag.copy_from_slice(&c.encrypt_in_place_detached(
                crate::nonce_from_slice(nonce)?,
                aad,
                buffer,
            )?),
            // The length checked above, not the tag's own (see `Tag::padded`).
            Inner::Aes128Gcm(c) => {
                tag.copy_from_slice(&c.encrypt_in_place_detached(nonce, aad, buffer)?.padded()[..tag.len()])
            }
            Inner::Aes256Gcm(c) => {
                tag.copy_from_slice(&c.encrypt_in_place_detached(nonce, aad, buffer)?.padded()[..tag.len()])
            }
        }
        Ok(())
    }

    /// Encrypts `plaintext` into the first `plaintext.len()` bytes of
    /// `ciphertext` (another buffer) and writes the tag into `tag`
    /// ([`Self::tag_len`] bytes): one pass reads the plaintext and writes the
    /// ciphertext, with no copy. On an error nothing of the plaintext is left
    /// in `ciphertext`.
    pub fn encrypt_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        ciphertext: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), Error> {
        self.check_lengths(nonce.len(), aad.len(), plaintext.len())?;
        if tag.len() != self.tag_len() {
            return Err(Error::InvalidTagLength { expected: self.tag_len(), actual: tag.len() });
        }
        match &self.inner {
            Inner::Aes128GcmSiv(c) => tag.copy_from_slice(&c.encrypt_detached(
                crate::nonce_from_slice(nonce)?,
                aad,
                plaintext,
                ciphertext,
            )?),
            Inner::Aes256GcmSiv(c) => tag.copy_from_slice(&c.encrypt_detached(
                crate::nonce_from_slice(nonce)?,
                aad,
                plaintext,
                ciphertext,
            )?),
            Inner::Aes128Gcm(c) => tag.copy_from_slice(
                &c.encrypt_detached(nonce, aad, plaintext, ciphertext)?.padded()[..tag.len()],
            ),
            Inner::Aes256Gcm(c) => tag.copy_from_slice(
                &c.encrypt_detached(nonce, aad, plaintext, ciphertext)?.padded()[..tag.len()],
            ),
        }
        Ok(())
    }

    /// Decrypts `ciphertext` into the first `ciphertext.len()` bytes of
    /// `plaintext` (another buffer) if `tag` authenticates it, in one pass as
    /// [`Self::encrypt_detached`]; on failure those bytes are zeroed.
    #[must_use = "`plaintext` holds plaintext only if this returns Ok"]
    pub fn decrypt_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ciphertext: &[u8],
        tag: &[u8],
        plaintext: &mut [u8],
    ) -> Result<(), Error> {
        self.check_open_lengths(nonce.len(), aad.len(), ciphertext.len())?;
        match &self.inner {
            Inner::Aes128GcmSiv(c) => {
                c.decrypt_detached(crate::nonce_from_slice(nonce)?, aad, ciphertext, siv_tag(tag)?, plaintext)
            }
            Inner::Aes256GcmSiv(c) => {
                c.decrypt_detached(crate::nonce_from_slice(nonce)?, aad, ciphertext, siv_tag(tag)?, plaintext)
            }
            Inner::Aes128Gcm(c) => c.decrypt_detached(nonce, aad, ciphertext, tag, plaintext),
            Inner::Aes256Gcm(c) => c.decrypt_detached(nonce, aad, ciphertext, tag, plaintext),
        }
    }

    /// Decrypts `buffer` in place if `tag` authenticates it; on failure the
    /// buffer holds the ciphertext again (never unauthenticated plaintext).
    /// (The typed keys' call of the same name, for whichever algorithm this
    /// key has: the same signature on purpose.)
    #[must_use = "the buffer holds plaintext only if this returns Ok"]
    #[inline]
    pub fn decrypt_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        // As in `encrypt_in_place_detached`: the lengths before the tag.
        self.check_open_lengths(nonce.len(), aad.len(), buffer.len())?;
        match &self.inner {
            Inner::Aes128GcmSiv(c) => {
                c.decrypt_in_place_detached(crate::nonce_from_slice(nonce)?, aad, buffer, siv_tag(tag)?)
            }
            Inner::Aes256GcmSiv(c) => {
                c.decrypt_in_place_detached(crate::nonce_from_slice(nonce)?, aad, buffer, siv_tag(tag)?)
            }
            Inner::Aes128Gcm(c) => c.decrypt_in_place_detached(nonce, aad, buffer, tag),
            Inner::Aes256Gcm(c) => c.decrypt_in_place_detached(nonce, aad, buffer, tag),
        }
    }

    /// Seals a batch ([`Aes128GcmSiv::encrypt_batch`]'s interleaved path for
    /// AES-GCM-SIV; AES-GCM keys, one item at a time, with 12-byte nonces and
    /// the first [`Self::tag_len`] bytes of each item's tag). Misuse anywhere
    /// is refused before any item is touched.
    pub fn encrypt_batch(&self, items: &mut [BatchItem<'_>]) -> Result<(), Error> {
        match &self.inner {
            Inner::Aes128GcmSiv(c) => c.encrypt_batch(items),
            Inner::Aes256GcmSiv(c) => c.encrypt_batch(items),
            Inner::Aes128Gcm(_) | Inner::Aes256Gcm(_) => {
                items
                    .iter()
                    .try_for_each(|it| self.check_lengths(it.nonce.len(), it.aad.len(), it.buffer.len()))?;
                let tag_len = self.tag_len();
                items.iter_mut().try_for_each(|it| {
                    self.encrypt_in_place_detached(it.nonce, it.aad, it.buffer, &mut it.tag[..tag_len])
                })
            }
        }
    }

    /// Opens a batch: `results[i]` for item `i`, as
    /// [`Aes128GcmSiv::decrypt_batch`] (AES-GCM keys: one item at a time).
    pub fn decrypt_batch(
        &self,
        items: &mut [BatchItem<'_>],
        results: &mut [Result<(), Error>],
    ) -> Result<(), Error> {
        match &self.inner {
            Inner::Aes128GcmSiv(c) => c.decrypt_batch(items, results),
            Inner::Aes256GcmSiv(c) => c.decrypt_batch(items, results),
            Inner::Aes128Gcm(_) | Inner::Aes256Gcm(_) => {
                let refused = results.len() < items.len();
                let checked = if refused {
                    Err(Error::BufferTooSmall { needed: items.len(), actual: results.len() })
                } else {
                    items.iter().try_for_each(|it| {
                        self.check_open_lengths(it.nonce.len(), it.aad.len(), it.buffer.len())
                    })
                };
                if let Err(e) = checked {
                    results.iter_mut().take(items.len()).for_each(|r| *r = Err(Error::Authentication));
                    return Err(e);
                }
                let tag_len = self.tag_len();
                for (it, result) in items.iter_mut().zip(results.iter_mut()) {
                    *result = self.decrypt_in_place_detached(it.nonce, it.aad, it.buffer, &it.tag[..tag_len]);
                }
                Ok(())
            }
        }
    }
}

fn siv_tag(tag: &[u8]) -> Result<&[u8; crate::TAG_LEN], Error> {
    tag.try_into().map_err(|_| Error::InvalidTagLength { expected: crate::TAG_LEN, actual: tag.len() })
}

/// Lengths and algorithm only.
impl core::fmt::Debug for Cipher {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Cipher")
            .field("algorithm", &self.algorithm())
            .field("tag_len", &self.tag_len())
            .field("backend", &self.backend())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::{Algorithm, Cipher};
    use crate::{Aes128Gcm, Aes256GcmSiv, Backend, BatchItem, Error};

    /// The same bytes as the typed ciphers, and the same refusals.
    #[test]
    fn same_as_the_typed_ciphers() {
        for backend in Backend::available().into_iter().flatten() {
            let siv = Cipher::new(Algorithm::Aes256GcmSiv, &[3; 32], 16, backend).unwrap();
            let typed = Aes256GcmSiv::with_backend(&[3; 32], backend).unwrap();
            let mut a = *b"sixteen byte msg and more";
            let mut b = a;
            let mut tag = [0u8; 16];
            siv.encrypt_in_place_detached(&[1; 12], b"ad", &mut a, &mut tag).unwrap();
            assert_eq!(tag, typed.encrypt_in_place_detached(&[1; 12], b"ad", &mut b).unwrap());
            assert_eq!(a, b);
            let gcm = Cipher::new(Algorithm::Aes128Gcm, &[4; 16], 12, backend).unwrap();
            let typed = Aes128Gcm::with_backend(&[4; 16], 12, backend).unwrap();
            let mut tag = [0u8; 12];
            gcm.encrypt_in_place_detached(&[9; 7], b"", &mut a, &mut tag).unwrap();
            assert_eq!(&tag[..], typed.encrypt_in_place_detached(&[9; 7], b"", &mut b).unwrap().as_bytes());
            assert_eq!(a, b);
            tag[0] ^= 1;
            assert_eq!(gcm.decrypt_in_place_detached(&[9; 7], b"", &mut a, &tag), Err(Error::Authentication));
            assert_eq!(a, b, "the ciphertext again");
        }
        let e = Cipher::new(Algorithm::Aes128GcmSiv, &[0; 16], 12, Backend::Portable).unwrap_err();
        assert_eq!(e, Error::InvalidTagLength { expected: 16, actual: 12 });
        let e = Cipher::new(Algorithm::Aes256Gcm, &[0; 16], 16, Backend::Portable).unwrap_err();
        assert_eq!(e, Error::InvalidKeyLength { expected: 32, actual: 16 });
        let short =
            Cipher::new_short_tag_hazardous(Algorithm::Aes128Gcm, &[0; 16], 8, Backend::Portable).unwrap();
        assert_eq!(short.tag_len(), 8);
        assert!(
            Cipher::new_short_tag_hazardous(Algorithm::Aes128GcmSiv, &[0; 16], 8, Backend::Portable).is_err()
        );
        // AES-GCM's nearest IV length, as its calls report it.
        assert_eq!(short.check_lengths(0, 0, 0), Err(Error::InvalidNonceLength { expected: 1, actual: 0 }));
        assert_eq!(short.check_lengths(1, 0, 0), Ok(()));
    }

    /// AES-GCM batches: one item at a time, one bad tag fails only its item.
    #[test]
    fn gcm_batches() {
        let gcm = Cipher::new(Algorithm::Aes256Gcm, &[5; 32], 16, Backend::select()).unwrap();
        let nonces: [[u8; 12]; 5] = core::array::from_fn(|i| [i as u8; 12]);
        let mut bufs = [[7u8; 20]; 5];
        let mut items: std::vec::Vec<BatchItem<'_>> =
            bufs.iter_mut().zip(&nonces).map(|(b, n)| BatchItem::new(n, b"ad", b)).collect();
        gcm.encrypt_batch(&mut items).unwrap();
        items[2].tag[0] ^= 1;
        let mut results = [Ok(()); 5];
        gcm.decrypt_batch(&mut items, &mut results).unwrap();
        assert_eq!(results.iter().filter(|r| r.is_err()).count(), 1);
        assert_eq!(results[2], Err(Error::Authentication));
        assert!(items.iter().enumerate().all(|(i, it)| i == 2 || *it.buffer == [7u8; 20]));
    }
}
