//! The native half of the Node.js package: one key class over the core's four
//! AEADs. `index.js` is the public API (argument checks, error classes);
//! errors leave here as `ERR_GCMSIV_*: message`, which it turns into
//! `GcmsivError`s with that code.
//!
//! Inputs arrive as borrowed views of JavaScript typed arrays and outputs are
//! new buffers, so no input is ever written. The views stay valid and
//! unchanged during a call: no JavaScript runs on this thread meanwhile, and
//! `index.js` copies any view of a `SharedArrayBuffer` (which another thread
//! could write) before the call. A panic (an internal error; none is known)
//! becomes an exception (`catch_unwind`), never an abort of the process.

use gcmsiv::{Aes128Gcm, Aes128GcmSiv, Aes256Gcm, Aes256GcmSiv, Backend, BatchItem, Error};
use napi::bindgen_prelude::{Buffer, Uint8Array};
use napi::{Result, Status};
use napi_derive::napi;

/// The error JavaScript sees: `code: message`.
fn js_error(error: Error) -> napi::Error {
    let code = match error {
        Error::Authentication => "ERR_GCMSIV_AUTHENTICATION",
        Error::InvalidKeyLength { .. } => "ERR_GCMSIV_KEY_LENGTH",
        Error::InvalidNonceLength { .. } => "ERR_GCMSIV_NONCE_LENGTH",
        Error::InvalidTagLength { .. } => "ERR_GCMSIV_TAG_LENGTH",
        Error::PlaintextTooLong | Error::AadTooLong | Error::CiphertextTooLong => "ERR_GCMSIV_TOO_LONG",
        Error::CiphertextTooShort => "ERR_GCMSIV_TOO_SHORT",
        Error::BackendUnavailable => "ERR_GCMSIV_BACKEND_UNAVAILABLE",
        _ => "ERR_GCMSIV_INTERNAL",
    };
    misuse(code, &error.to_string())
}

fn misuse(code: &str, message: &str) -> napi::Error {
    napi::Error::new(Status::InvalidArg, format!("{code}: {message}"))
}

#[allow(clippy::large_enum_variant, reason = "one per key object, on the heap")]
enum Cipher {
    Siv128(Aes128GcmSiv),
    Siv256(Aes256GcmSiv),
    Gcm128(Aes128Gcm),
    Gcm256(Aes256Gcm),
}

/// A key of one algorithm, its backend chosen once; `dispose()` drops
/// (and zeroizes) it before the garbage collector would.
#[napi]
pub struct NativeKey {
    cipher: Option<Cipher>,
}

fn backend_named(name: &str) -> Result<Backend> {
    Ok(match name {
        "auto" => Backend::select(),
        "portable" => Backend::Portable,
        "aesni-clmul" => Backend::AesNiClmul,
        "aesni-vaes" => Backend::AesNiVaes,
        other => return Err(misuse("ERR_GCMSIV_BACKEND_UNAVAILABLE", &format!("unknown backend {other:?}"))),
    })
}

#[napi]
impl NativeKey {
    /// `algorithm`: "aes-gcm-siv" or "aes-gcm"; the key length picks
    /// AES-128 or AES-256.
    #[napi(constructor, catch_unwind)]
    pub fn new(algorithm: String, key: &[u8], tag_length: u32, backend: String) -> Result<Self> {
        let backend = backend_named(&backend)?;
        let tag_length = tag_length as usize;
        let cipher = match (algorithm.as_str(), key.len()) {
            ("aes-gcm-siv", 16) => Cipher::Siv128(
                Aes128GcmSiv::with_backend(key.try_into().unwrap(), backend).map_err(js_error)?,
            ),
            ("aes-gcm-siv", 32) => Cipher::Siv256(
                Aes256GcmSiv::with_backend(key.try_into().unwrap(), backend).map_err(js_error)?,
            ),
            ("aes-gcm", 16) => Cipher::Gcm128(
                Aes128Gcm::with_backend(key.try_into().unwrap(), tag_length, backend).map_err(js_error)?,
            ),
            ("aes-gcm", 32) => Cipher::Gcm256(
                Aes256Gcm::with_backend(key.try_into().unwrap(), tag_length, backend).map_err(js_error)?,
            ),
            ("aes-gcm-siv" | "aes-gcm", n) => {
                return Err(js_error(Error::InvalidKeyLength {
                    expected: if n < 24 { 16 } else { 32 },
                    actual: n,
                }));
            }
            (other, _) => {
                return Err(misuse("ERR_GCMSIV_ALGORITHM", &format!("unknown algorithm {other:?}")));
            }
        };
        if matches!(cipher, Cipher::Siv128(_) | Cipher::Siv256(_)) && tag_length != gcmsiv::TAG_LEN {
            return Err(js_error(Error::InvalidTagLength { expected: gcmsiv::TAG_LEN, actual: tag_length }));
        }
        Ok(NativeKey { cipher: Some(cipher) })
    }

    fn cipher(&self) -> Result<&Cipher> {
        self.cipher.as_ref().ok_or_else(|| misuse("ERR_GCMSIV_DISPOSED", "the key was disposed"))
    }

    /// Drops the key now (its round keys and hash key are zeroized).
    #[napi(catch_unwind)]
    pub fn dispose(&mut self) {
        self.cipher = None;
    }

    /// The backend the key runs on.
    #[napi(getter, catch_unwind)]
    pub fn backend(&self) -> Result<String> {
        Ok(match self.cipher()? {
            Cipher::Siv128(c) => c.backend(),
            Cipher::Siv256(c) => c.backend(),
            Cipher::Gcm128(c) => c.backend(),
            Cipher::Gcm256(c) => c.backend(),
        }
        .name()
        .to_owned())
    }

    /// The tag length of this key's ciphertexts.
    #[napi(getter, catch_unwind)]
    pub fn tag_length(&self) -> Result<u32> {
        Ok(self.tag_len()? as u32)
    }

    fn tag_len(&self) -> Result<usize> {
        Ok(match self.cipher()? {
            Cipher::Gcm128(c) => c.tag_len(),
            Cipher::Gcm256(c) => c.tag_len(),
            Cipher::Siv128(_) | Cipher::Siv256(_) => gcmsiv::TAG_LEN,
        })
    }

    /// ciphertext || tag of `plaintext` under `nonce` and `aad`.
    #[napi(catch_unwind)]
    pub fn seal(&self, nonce: &[u8], plaintext: &[u8], aad: &[u8]) -> Result<Buffer> {
        let tag_len = self.tag_len()?;
        let mut out = Vec::with_capacity(plaintext.len() + tag_len);
        out.extend_from_slice(plaintext);
        let tag = self.seal_in_place(nonce, aad, &mut out)?;
        out.extend_from_slice(&tag[..tag_len]);
        Ok(out.into())
    }

    fn seal_in_place(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<[u8; 16]> {
        let mut tag = [0u8; 16];
        match self.cipher()? {
            Cipher::Siv128(c) => {
                tag = c.encrypt_in_place_detached(siv_nonce(nonce)?, aad, buffer).map_err(js_error)?
            }
            Cipher::Siv256(c) => {
                tag = c.encrypt_in_place_detached(siv_nonce(nonce)?, aad, buffer).map_err(js_error)?
            }
            Cipher::Gcm128(c) => {
                let t = c.encrypt_in_place_detached(nonce, aad, buffer).map_err(js_error)?;
                tag[..t.as_bytes().len()].copy_from_slice(t.as_bytes());
            }
            Cipher::Gcm256(c) => {
                let t = c.encrypt_in_place_detached(nonce, aad, buffer).map_err(js_error)?;
                tag[..t.as_bytes().len()].copy_from_slice(t.as_bytes());
            }
        }
        Ok(tag)
    }

    /// The plaintext of ciphertext || tag, or an `ERR_GCMSIV_AUTHENTICATION`
    /// error (and no plaintext: the copy decrypted in place holds the
    /// ciphertext again, as the core leaves it, and is dropped).
    #[napi(catch_unwind)]
    pub fn open(&self, nonce: &[u8], sealed: &[u8], aad: &[u8]) -> Result<Buffer> {
        let tag_len = self.tag_len()?;
        let body = sealed.len().checked_sub(tag_len).ok_or_else(|| js_error(Error::CiphertextTooShort))?;
        let mut tag = [0u8; 16];
        tag[..tag_len].copy_from_slice(&sealed[body..]);
        let mut out = sealed[..body].to_vec();
        self.open_in_place(nonce, aad, &mut out, &tag[..tag_len])?;
        Ok(out.into())
    }

    fn open_in_place(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8], tag: &[u8]) -> Result<()> {
        match self.cipher()? {
            Cipher::Siv128(c) => c.decrypt_in_place_detached(siv_nonce(nonce)?, aad, buffer, siv_tag(tag)?),
            Cipher::Siv256(c) => c.decrypt_in_place_detached(siv_nonce(nonce)?, aad, buffer, siv_tag(tag)?),
            Cipher::Gcm128(c) => c.decrypt_in_place_detached(nonce, aad, buffer, tag),
            Cipher::Gcm256(c) => c.decrypt_in_place_detached(nonce, aad, buffer, tag),
        }
        .map_err(js_error)
    }

    /// Seals many messages (nonces, plaintexts and associated data side by
    /// side) in one call: AES-GCM-SIV keys through the core's batch path.
    /// Misuse anywhere fails the call before any work.
    #[napi(catch_unwind)]
    pub fn seal_many(
        &self,
        nonces: Vec<Uint8Array>,
        plaintexts: Vec<Uint8Array>,
        aads: Vec<Uint8Array>,
    ) -> Result<Vec<Buffer>> {
        check_counts(&nonces, &plaintexts, &aads)?;
        let tag_len = self.tag_len()?;
        let mut bodies: Vec<Vec<u8>> = plaintexts.iter().map(|p| p.to_vec()).collect();
        let mut tags = vec![[0u8; 16]; bodies.len()];
        match self.cipher()? {
            Cipher::Siv128(c) => {
                siv_many(&nonces, &aads, &mut bodies, &mut tags, |items| c.encrypt_batch(items))?
            }
            Cipher::Siv256(c) => {
                siv_many(&nonces, &aads, &mut bodies, &mut tags, |items| c.encrypt_batch(items))?
            }
            Cipher::Gcm128(_) | Cipher::Gcm256(_) => {
                self.check_all(&nonces, &aads, &bodies)?;
                for ((body, tag), (nonce, aad)) in
                    bodies.iter_mut().zip(&mut tags).zip(nonces.iter().zip(&aads))
                {
                    *tag = self.seal_in_place(nonce, aad, body)?;
                }
            }
        }
        Ok(bodies
            .into_iter()
            .zip(tags)
            .map(|(mut body, tag)| {
                body.extend_from_slice(&tag[..tag_len]);
                body.into()
            })
            .collect())
    }

    /// Opens many messages in one call: each entry is its plaintext, or
    /// `null` if it was not authentic (the others are not affected). Misuse
    /// anywhere fails the call.
    #[napi(catch_unwind)]
    pub fn open_many(
        &self,
        nonces: Vec<Uint8Array>,
        sealed: Vec<Uint8Array>,
        aads: Vec<Uint8Array>,
    ) -> Result<Vec<Option<Buffer>>> {
        check_counts(&nonces, &sealed, &aads)?;
        let tag_len = self.tag_len()?;
        let mut bodies = Vec::with_capacity(sealed.len());
        let mut tags = Vec::with_capacity(sealed.len());
        for s in &sealed {
            let body = s.len().checked_sub(tag_len).ok_or_else(|| js_error(Error::CiphertextTooShort))?;
            bodies.push(s[..body].to_vec());
            let mut tag = [0u8; 16];
            tag[..tag_len].copy_from_slice(&s[body..]);
            tags.push(tag);
        }
        let mut authentic = vec![false; bodies.len()];
        match self.cipher()? {
            Cipher::Siv128(c) => {
                siv_open_many(&nonces, &aads, &mut bodies, &tags, &mut authentic, |i, r| {
                    c.decrypt_batch(i, r)
                })?
            }
            Cipher::Siv256(c) => {
                siv_open_many(&nonces, &aads, &mut bodies, &tags, &mut authentic, |i, r| {
                    c.decrypt_batch(i, r)
                })?
            }
            Cipher::Gcm128(_) | Cipher::Gcm256(_) => {
                self.check_all(&nonces, &aads, &bodies)?;
                for (i, body) in bodies.iter_mut().enumerate() {
                    authentic[i] = match self.open_in_place(&nonces[i], &aads[i], body, &tags[i][..tag_len]) {
                        Ok(()) => true,
                        Err(e) if e.reason.starts_with("ERR_GCMSIV_AUTHENTICATION") => false,
                        Err(e) => return Err(e),
                    };
                }
            }
        }
        Ok(bodies.into_iter().zip(authentic).map(|(body, ok)| ok.then(|| body.into())).collect())
    }

    /// AES-GCM's per-message checks for a whole batch, before any work.
    fn check_all(&self, nonces: &[Uint8Array], aads: &[Uint8Array], bodies: &[Vec<u8>]) -> Result<()> {
        for ((nonce, aad), body) in nonces.iter().zip(aads).zip(bodies) {
            if nonce.is_empty() || nonce.len() as u64 > gcmsiv::GCM_IV_MAX {
                return Err(js_error(Error::InvalidNonceLength { expected: 12, actual: nonce.len() }));
            }
            if body.len() as u64 > gcmsiv::GCM_P_MAX {
                return Err(js_error(Error::PlaintextTooLong));
            }
            if aad.len() as u64 > gcmsiv::GCM_A_MAX {
                return Err(js_error(Error::AadTooLong));
            }
        }
        Ok(())
    }
}

fn check_counts<A, B, C>(nonces: &[A], data: &[B], aads: &[C]) -> Result<()> {
    if nonces.len() != data.len() || aads.len() != data.len() {
        return Err(misuse("ERR_GCMSIV_BATCH", "nonces, data and associated data differ in count"));
    }
    Ok(())
}

fn siv_nonce(nonce: &[u8]) -> Result<&[u8; gcmsiv::NONCE_LEN]> {
    gcmsiv::nonce_from_slice(nonce).map_err(js_error)
}

fn siv_tag(tag: &[u8]) -> Result<&[u8; gcmsiv::TAG_LEN]> {
    tag.try_into()
        .map_err(|_| js_error(Error::InvalidTagLength { expected: gcmsiv::TAG_LEN, actual: tag.len() }))
}

fn siv_items<'a>(
    nonces: &'a [[u8; gcmsiv::NONCE_LEN]],
    aads: &'a [Uint8Array],
    bodies: &'a mut [Vec<u8>],
    tags: &[[u8; 16]],
) -> Vec<BatchItem<'a>> {
    nonces
        .iter()
        .zip(aads)
        .zip(bodies.iter_mut())
        .zip(tags)
        .map(|(((nonce, aad), body), tag)| BatchItem::with_tag(nonce, aad, body, *tag))
        .collect()
}

fn nonce_arrays(nonces: &[Uint8Array]) -> Result<Vec<[u8; gcmsiv::NONCE_LEN]>> {
    nonces.iter().map(|n| siv_nonce(n).copied()).collect()
}

fn siv_many(
    nonces: &[Uint8Array],
    aads: &[Uint8Array],
    bodies: &mut [Vec<u8>],
    tags: &mut [[u8; 16]],
    seal: impl FnOnce(&mut [BatchItem<'_>]) -> std::result::Result<(), Error>,
) -> Result<()> {
    let nonces = nonce_arrays(nonces)?;
    let mut items = siv_items(&nonces, aads, bodies, tags);
    seal(&mut items).map_err(js_error)?;
    for (tag, item) in tags.iter_mut().zip(&items) {
        *tag = item.tag;
    }
    Ok(())
}

fn siv_open_many(
    nonces: &[Uint8Array],
    aads: &[Uint8Array],
    bodies: &mut [Vec<u8>],
    tags: &[[u8; 16]],
    authentic: &mut [bool],
    open: impl FnOnce(
        &mut [BatchItem<'_>],
        &mut [std::result::Result<(), Error>],
    ) -> std::result::Result<(), Error>,
) -> Result<()> {
    let nonces = nonce_arrays(nonces)?;
    let mut items = siv_items(&nonces, aads, bodies, tags);
    let mut results = vec![Err(Error::Authentication); items.len()];
    open(&mut items, &mut results).map_err(js_error)?;
    for (ok, result) in authentic.iter_mut().zip(results) {
        *ok = result.is_ok();
    }
    Ok(())
}
