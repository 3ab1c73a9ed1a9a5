//! The public AES-GCM-SIV types, one per key size, each holding the backend
//! chosen when the key was made.

use crate::Error;
use crate::backend::{Backend, soft};
use crate::dispatch::{Dispatch, FromProof, dispatch, hw};
use crate::limits::{NONCE_LEN, TAG_LEN};
use crate::siv::GcmSiv;
#[cfg(feature = "alloc")]
use alloc::vec::Vec;
use core::fmt;

macro_rules! gcm_siv_type {
    ($name:ident, $key_len:literal, $aes:ident, $bits:literal) => {
        #[doc = concat!("AEAD_AES_", $bits, "_GCM_SIV (RFC 8452): nonce-misuse-resistant")]
        /// authenticated encryption.
        ///
        /// Encrypting the same (nonce, associated data, plaintext) twice gives the same
        /// ciphertext, and that is all a repeated nonce reveals. Keys are zeroized on
        /// drop and never printed by `Debug`.
        ///
        /// ```
        #[doc = concat!("use gcmsiv::", stringify!($name), ";")]
        #[doc = concat!("let cipher = ", stringify!($name), "::new(&[0x42; ", $key_len, "]); // in practice: a random key")]
        /// let nonce = [0u8; 12];
        /// let sealed = cipher.encrypt(&nonce, b"header", b"secret").unwrap();
        /// assert_eq!(sealed.len(), b"secret".len() + 16);
        /// assert_eq!(cipher.decrypt(&nonce, b"header", &sealed).unwrap(), b"secret");
        /// assert!(cipher.decrypt(&nonce, b"other header", &sealed).is_err());
        /// ```
        #[derive(Clone)]
        pub struct $name {
            inner: Dispatch<GcmSiv<soft::$aes>, GcmSiv<hw::$aes>>,
            /// Which messages are processed on all cores.
            #[cfg(feature = "parallel")]
            parallel_threshold: crate::parallel::Threshold,
        }

        impl $name {
            /// Key length in bytes.
            pub const KEY_LEN: usize = $key_len;
            /// Nonce length in bytes.
            pub const NONCE_LEN: usize = NONCE_LEN;
            /// Tag length in bytes.
            pub const TAG_LEN: usize = TAG_LEN;

            /// A cipher for `key` on the fastest backend this CPU supports
            /// (detected once, here).
            pub fn new(key: &[u8; $key_len]) -> Self {
                Self::with_backend(key, Backend::select()).expect("internal error: selected backend unavailable")
            }

            /// Like [`Self::new`], for a key whose length is known only at run time.
            ///
            /// ```
            #[doc = concat!("# use gcmsiv::", stringify!($name), ";")]
            #[doc = concat!("assert!(", stringify!($name), "::new_from_slice(&[0u8; 7]).is_err());")]
            /// ```
            pub fn new_from_slice(key: &[u8]) -> Result<Self, Error> {
                Ok(Self::new(crate::buffers::key_array(key)?))
            }

            /// A cipher on a chosen backend; [`Error::BackendUnavailable`] if the CPU
            /// lacks it. Mostly for tests and benchmarks.
            pub fn with_backend(key: &[u8; $key_len], backend: Backend) -> Result<Self, Error> {
                let inner = Dispatch::build(
                    backend,
                    || GcmSiv::new(soft::$aes::new(key)),
                    |proof| GcmSiv::new(hw::$aes::from_proof(proof, key)),
                )?;
                Ok($name {
                    inner,
                    #[cfg(feature = "parallel")]
                    parallel_threshold: crate::parallel::Threshold::Default,
                })
            }

            /// Sets the size from which one message is sealed and opened on all
            /// cores (the calling thread plus helpers from rayon's current
            /// pool); `None` keeps every message on the calling thread. The
            /// default is
            #[doc = concat!("[`", stringify!($name), "::DEFAULT_PARALLEL_THRESHOLD`] (4 MiB).")]
            /// The output is identical either way.
            ///
            /// The caller starts on the message at once and helpers take pieces
            /// as they arrive, so a busy pool only means less help. A helper
            /// stays awake (spinning) for 1 ms after a call, for the next one.
            /// The default threshold also takes messages from 1 MiB up to all
            /// cores when they come in a burst: the previous one of at least
            /// 1 MiB started less than 1 ms before, or a helper is still awake.
            /// A lone call below 4 MiB stays on one core, since waking an idle
            /// core costs it about as much as the core brings. A threshold set
            /// here is exact, even one equal to the default's 4 MiB (the burst
            /// rule is the default's alone, which a key has until this is
            /// called). Calls in a stream gain from 1 MiB up; a first call after
            /// the machine has idled gains only from several MiB (the speedups
            /// measured are in docs/PERFORMANCE.md). Use a lower value for bulk
            /// jobs, `None` for servers whose cores are already all in use.
            ///
            /// ```
            #[doc = concat!("let cipher = gcmsiv::", stringify!($name), "::new(&[1; ", $key_len, "]).with_parallel_threshold(Some(1 << 20));")]
            /// let big = vec![0u8; 2 << 20];
            /// let sealed = cipher.encrypt(&[0; 12], b"", &big).unwrap(); // uses every core
            /// assert_eq!(cipher.decrypt(&[0; 12], b"", &sealed).unwrap(), big);
            /// ```
            #[cfg(feature = "parallel")]
            pub fn with_parallel_threshold(mut self, bytes: Option<usize>) -> Self {
                self.parallel_threshold = match bytes {
                    Some(bytes) => crate::parallel::Threshold::Exact(bytes),
                    None => crate::parallel::Threshold::Off,
                };
                self
            }

            /// The default of [`Self::with_parallel_threshold`].
            #[cfg(feature = "parallel")]
            pub const DEFAULT_PARALLEL_THRESHOLD: usize = crate::parallel::DEFAULT_PARALLEL_THRESHOLD;

            #[cfg(feature = "parallel")]
            fn parallel(&self, len: usize) -> bool {
                crate::parallel::worth_it(self.parallel_threshold, len)
            }

            /// The backend this key runs on.
            pub fn backend(&self) -> Backend {
                self.inner.backend()
            }

            /// Encrypts `plaintext`, returning ciphertext || 16-byte tag.
            #[cfg(feature = "alloc")]
            pub fn encrypt(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, Error> {
                let needed = plaintext.len().checked_add(TAG_LEN).ok_or(Error::PlaintextTooLong)?;
                let mut out = alloc::vec![0; needed];
                self.encrypt_into(nonce, aad, plaintext, &mut out)?;
                Ok(out)
            }

            /// Decrypts ciphertext || tag. Returns the plaintext only if it is authentic.
            #[cfg(feature = "alloc")]
            pub fn decrypt(
                &self,
                nonce: &[u8; NONCE_LEN],
                aad: &[u8],
                ciphertext_and_tag: &[u8],
            ) -> Result<Vec<u8>, Error> {
                let mut out = alloc::vec![0; ciphertext_and_tag.len().saturating_sub(TAG_LEN)];
                self.decrypt_into(nonce, aad, ciphertext_and_tag, &mut out)?;
                Ok(out)
            }

            /// Encrypts `buffer` in place and returns the tag.
            pub fn encrypt_in_place_detached(
                &self,
                nonce: &[u8; NONCE_LEN],
                aad: &[u8],
                buffer: &mut [u8],
            ) -> Result<[u8; TAG_LEN], Error> {
                #[cfg(feature = "parallel")]
                if self.parallel(buffer.len()) {
                    return dispatch!(self, core => core.seal_in_place_parallel(nonce, aad, buffer));
                }
                dispatch!(self, core => core.seal_in_place(nonce, aad, buffer))
            }

            /// Decrypts `buffer` in place if `tag` authenticates it. On failure the
            /// buffer holds the ciphertext again (the plaintext encrypted anew with
            /// the same key stream, as the `aes-gcm-siv` crate does): unauthenticated
            /// plaintext is never released, and nothing is lost, so the same buffer
            /// can be tried under another key.
            ///
            /// ```
            /// use gcmsiv::Aes128GcmSiv;
            /// let (old, new) = (Aes128GcmSiv::new(&[1; 16]), Aes128GcmSiv::new(&[2; 16]));
            /// let nonce = [7; 12];
            /// let mut record = *b"sealed under the new key";
            /// let tag = new.encrypt_in_place_detached(&nonce, b"", &mut record)?;
            /// let sealed = record;
            /// // After a key rotation: the old key first, then the new one, same buffer.
            /// assert!(old.decrypt_in_place_detached(&nonce, b"", &mut record, &tag).is_err());
            /// assert_eq!(record, sealed, "a failure leaves the ciphertext as it was");
            /// new.decrypt_in_place_detached(&nonce, b"", &mut record, &tag)?;
            /// assert_eq!(&record, b"sealed under the new key");
            /// # Ok::<(), gcmsiv::Error>(())
            /// ```
            #[must_use = "the buffer holds plaintext only if this returns Ok"]
            pub fn decrypt_in_place_detached(
                &self,
                nonce: &[u8; NONCE_LEN],
                aad: &[u8],
                buffer: &mut [u8],
                tag: &[u8; TAG_LEN],
            ) -> Result<(), Error> {
                #[cfg(feature = "parallel")]
                if self.parallel(buffer.len()) {
                    return dispatch!(self, core => core.open_in_place_parallel(nonce, aad, buffer, tag));
                }
                dispatch!(self, core => core.open_in_place(nonce, aad, buffer, tag))
            }

            /// Seals many independent messages in one call, each in place with its
            /// own nonce and associated data, writing each item's tag.
            ///
            /// On x86-64, messages of up to 128 bytes (and AAD as long) go through
            /// one kernel that runs each step of the per-nonce set-up (record keys,
            /// key expansion, POLYVAL, tag, CTR) for a group of messages before the
            /// next step, so the AES and carry-less-multiply units always have
            /// independent work: sixteen messages as eight pairs, two per
            /// instruction, where the CPU has VAES and VPCLMULQDQ; eight (AES-128)
            /// or sixteen (AES-256) otherwise.
            /// Groups of equal lengths take it up to 512 bytes (256 without VAES;
            /// seals up to 1 KiB with AVX-512); other messages take the
            /// one-message path. The shorter the messages, the more a group
            /// gains: 16- to 64-byte messages about twice the messages per
            /// second of one call each where the CPU has VAES, less without
            /// (docs/PERFORMANCE.md has the figures). Groups are consecutive
            /// items, and lengths matter: short messages of mixed lengths gain
            /// less, so put records of equal length next to each other when
            /// you can. Any misuse (an input over the limits) is reported before
            /// any item is touched. See [`BatchItem`](crate::BatchItem).
            pub fn encrypt_batch(&self, items: &mut [crate::BatchItem<'_>]) -> Result<(), Error> {
                dispatch!(self, core => core.seal_batch(items))
            }

            /// Opens many independent messages in one call. `results[i]` is
            /// `Ok(())` if item `i` was authentic, else [`Error::Authentication`]
            /// and its buffer holds its ciphertext again; one bad message does not
            /// affect the others.
            /// `results` needs at least `items.len()` entries (any beyond are left
            /// alone). Misuse (too few results, an item over the limits) refuses
            /// the whole call before any item is touched, and the entries for the
            /// items then read [`Error::Authentication`]: none passes for authentic.
            pub fn decrypt_batch(
                &self,
                items: &mut [crate::BatchItem<'_>],
                results: &mut [Result<(), Error>],
            ) -> Result<(), Error> {
                dispatch!(self, core => core.open_batch(items, results))
            }

            /// Writes ciphertext || tag into `out`, which needs `plaintext.len() + 16`
            /// bytes, and returns the number of bytes written.
            pub fn encrypt_into(
                &self,
                nonce: &[u8; NONCE_LEN],
                aad: &[u8],
                plaintext: &[u8],
                out: &mut [u8],
            ) -> Result<usize, Error> {
                crate::buffers::seal_into(plaintext, out, TAG_LEN, |data| self.seal(nonce, aad, data))
            }

            /// Encrypts `plaintext` into the first `plaintext.len()` bytes of
            /// `ciphertext` (another buffer; bytes past those are left alone) and
            /// returns the tag. One pass reads the plaintext and writes the
            /// ciphertext: no copy, as fast as [`Self::encrypt_in_place_detached`].
            /// On an error nothing of the plaintext is left in `ciphertext`.
            pub fn encrypt_detached(
                &self,
                nonce: &[u8; NONCE_LEN],
                aad: &[u8],
                plaintext: &[u8],
                ciphertext: &mut [u8],
            ) -> Result<[u8; TAG_LEN], Error> {
                crate::buffers::seal_detached(plaintext, ciphertext, |data| self.seal(nonce, aad, data))
            }

            /// Decrypts `ciphertext` into the first `ciphertext.len()` bytes of
            /// `plaintext` (another buffer) if `tag` authenticates it, in one pass
            /// as [`Self::encrypt_detached`]. On failure those bytes are zeroed:
            /// unauthenticated plaintext never reaches the caller.
            #[must_use = "`plaintext` holds plaintext only if this returns Ok"]
            pub fn decrypt_detached(
                &self,
                nonce: &[u8; NONCE_LEN],
                aad: &[u8],
                ciphertext: &[u8],
                tag: &[u8; TAG_LEN],
                plaintext: &mut [u8],
            ) -> Result<(), Error> {
                crate::buffers::open_into(ciphertext, plaintext, |data| self.open(nonce, aad, data, tag)).map(|_| ())
            }

            /// The seal of every shape of call: in place or out of place, on
            /// all cores past the threshold (in place: the input copied first).
            fn seal(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], data: crate::backend::InOut<'_>) -> Result<[u8; TAG_LEN], Error> {
                #[cfg(feature = "parallel")]
                if self.parallel(data.len()) {
                    let buffer = data.into_in_place();
                    return dispatch!(self, core => core.seal_in_place_parallel(nonce, aad, buffer));
                }
                dispatch!(self, core => core.seal(nonce, aad, data))
            }

            /// [`Self::seal`]'s open.
            fn open(
                &self,
                nonce: &[u8; NONCE_LEN],
                aad: &[u8],
                data: crate::backend::InOut<'_>,
                tag: &[u8; TAG_LEN],
            ) -> Result<(), Error> {
                #[cfg(feature = "parallel")]
                if self.parallel(data.len()) {
                    let buffer = data.into_in_place();
                    return dispatch!(self, core => core.open_in_place_parallel(nonce, aad, buffer, tag));
                }
                dispatch!(self, core => core.open(nonce, aad, data, tag))
            }

            /// Writes the plaintext of ciphertext || tag into `out`, which needs
            /// `ciphertext_and_tag.len() - 16` bytes, and returns that length. On
            /// failure those bytes of `out` are zeroed.
            #[must_use = "`out` holds plaintext only if this returns Ok"]
            pub fn decrypt_into(
                &self,
                nonce: &[u8; NONCE_LEN],
                aad: &[u8],
                ciphertext_and_tag: &[u8],
                out: &mut [u8],
            ) -> Result<usize, Error> {
                let (ciphertext, tag) = split_tag(ciphertext_and_tag)?;
                crate::buffers::open_into(ciphertext, out, |data| self.open(nonce, aad, data, tag))
            }

        }

        impl crate::hazmat::private::Sealed for $name {}

        impl crate::hazmat::DeriveRecordKeys for $name {
            type RecordKeys = crate::hazmat::RecordKeys<$key_len>;

            fn derive_record_keys(&self, nonce: &[u8; NONCE_LEN]) -> Self::RecordKeys {
                dispatch!(self, core => {
                    let keys = core.record_key_bytes(nonce);
                    crate::hazmat::RecordKeys::from_parts(
                        &keys.authentication_key,
                        &keys.encryption_key[..$key_len],
                    )
                })
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).field("backend", &self.backend()).finish_non_exhaustive()
            }
        }
    };
}

gcm_siv_type!(Aes128GcmSiv, 16, Aes128, "128");
gcm_siv_type!(Aes256GcmSiv, 32, Aes256, "256");

/// Splits ciphertext || tag, refusing inputs shorter than a tag.
fn split_tag(ciphertext_and_tag: &[u8]) -> Result<(&[u8], &[u8; TAG_LEN]), Error> {
    let body_len = ciphertext_and_tag.len().checked_sub(TAG_LEN).ok_or(Error::CiphertextTooShort)?;
    let (ciphertext, tag) = ciphertext_and_tag.split_at(body_len);
    Ok((ciphertext, tag.try_into().expect("internal error: tag length")))
}

/// Checks a nonce given as a slice (from a binding or a file), for the
/// `&[u8; 12]` the ciphers take.
///
/// ```
/// assert!(gcmsiv::nonce_from_slice(&[0u8; 12]).is_ok());
/// assert_eq!(
///     gcmsiv::nonce_from_slice(&[0u8; 16]),
///     Err(gcmsiv::Error::InvalidNonceLength { expected: 12, actual: 16 })
/// );
/// ```
pub fn nonce_from_slice(nonce: &[u8]) -> Result<&[u8; NONCE_LEN], Error> {
    crate::limits::GCM_SIV.check_nonce(nonce.len())?;
    Ok(nonce.try_into().expect("internal error: nonce length checked"))
}
