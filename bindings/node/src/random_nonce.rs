//! The nonce-managed AEAD on `NativeKey`: seal draws 12 random bytes from the
//! operating system and returns nonce || ciphertext || tag; open takes that
//! back. `index.js` calls these `encryptRandomNonce` and `decryptRandomNonce`
//! (and their batch forms).
//!
//! An input shorter than a nonce and a tag is an authentication failure, not
//! misuse: its length is the attacker's to choose, and every forgery must look
//! the same (security review item 9).

use gcmsiv::Error;
use napi::bindgen_prelude::{Buffer, BufferSlice, Uint8Array};
use napi::{Env, Result};
use napi_derive::napi;

use crate::{NativeKey, js_error, to_js};

/// A failed open as JavaScript sees it.
fn open_error(error: Error) -> napi::Error {
    match error {
        Error::CiphertextTooShort => js_error(Error::Authentication),
        other => js_error(other),
    }
}

#[napi]
impl NativeKey {
    /// nonce || ciphertext || tag of `plaintext` and `aad` under a fresh random nonce.
    #[napi(catch_unwind)]
    pub fn seal_random<'env>(
        &self,
        env: &'env Env,
        plaintext: &[u8],
        aad: &[u8],
    ) -> Result<BufferSlice<'env>> {
        let sealed = self.cipher()?.encrypt_random_nonce(aad, plaintext).map_err(js_error)?;
        to_js(env, sealed)
    }

    /// The plaintext of nonce || ciphertext || tag, or `ERR_GCMSIV_AUTHENTICATION`
    /// (and no plaintext).
    #[napi(catch_unwind)]
    pub fn open_random<'env>(&self, env: &'env Env, sealed: &[u8], aad: &[u8]) -> Result<BufferSlice<'env>> {
        let plaintext = self.cipher()?.decrypt_random_nonce(aad, sealed).map_err(open_error)?;
        to_js(env, plaintext)
    }

    /// Seals many messages, each under its own random nonce (one system call
    /// for all), through the batch path; misuse anywhere fails the call.
    #[napi(catch_unwind)]
    pub fn seal_random_many(
        &self,
        plaintexts: Vec<Uint8Array>,
        aads: Vec<Uint8Array>,
    ) -> Result<Vec<Buffer>> {
        if plaintexts.len() != aads.len() {
            return Err(crate::misuse("ERR_GCMSIV_BATCH", "plaintexts and associated data differ in count"));
        }
        let messages: Vec<(&[u8], &[u8])> =
            aads.iter().zip(&plaintexts).map(|(a, p)| (&a[..], &p[..])).collect();
        let sealed = self.cipher()?.encrypt_random_nonce_batch(&messages).map_err(js_error)?;
        Ok(sealed.into_iter().map(Buffer::from).collect())
    }

    /// Opens many messages: each entry its plaintext, or `null` where it was
    /// not authentic (one too short included). Misuse fails the call.
    #[napi(catch_unwind)]
    pub fn open_random_many(
        &self,
        sealed: Vec<Uint8Array>,
        aads: Vec<Uint8Array>,
    ) -> Result<Vec<Option<Buffer>>> {
        if sealed.len() != aads.len() {
            return Err(crate::misuse(
                "ERR_GCMSIV_BATCH",
                "sealed messages and associated data differ in count",
            ));
        }
        let messages: Vec<(&[u8], &[u8])> = aads.iter().zip(&sealed).map(|(a, s)| (&a[..], &s[..])).collect();
        let mut out = Vec::with_capacity(messages.len());
        for result in self.cipher()?.decrypt_random_nonce_batch(&messages) {
            out.push(match result {
                Ok(plaintext) => Some(plaintext.into()),
                Err(Error::Authentication | Error::CiphertextTooShort) => None,
                Err(other) => return Err(js_error(other)),
            });
        }
        Ok(out)
    }
}
