//! The native half of the Node.js package: one key class over the core's four
//! AEADs, on `gcmsiv::Cipher` with the bindings' shared glue (`gcmsiv-glue`:
//! error codes, batches, backend names, the panic guard). `index.js` is the
//! public API (argument checks, error classes); errors leave here as
//! `ERR_GCMSIV_*: message`, which it turns into `GcmsivError`s with that code.
//!
//! Inputs arrive as borrowed views of JavaScript typed arrays and outputs are
//! new buffers, so no input is ever written. The views stay valid and
//! unchanged during a call: no JavaScript runs on this thread meanwhile, and
//! `index.js` copies any view of a `SharedArrayBuffer` (which another thread
//! could write) before the call. A panic (an internal error; none is known)
//! becomes an exception, never an abort of the process: napi's
//! `catch_unwind` around each call (it covers napi's own argument conversion
//! too), and the glue's guard on libuv's pool threads, where no napi wrapper
//! runs.

use gcmsiv::{Algorithm, Cipher, Error};
use gcmsiv_glue::{Failure, Message, backend_named, backend_names, guard, open_batch, seal_batch, wipe};
use napi::bindgen_prelude::{AsyncTask, Buffer, BufferSlice, Uint8Array};
use napi::{Env, Result, Status, Task};
use napi_derive::napi;
use std::cell::RefCell;
use std::sync::Arc;

mod random_nonce;
mod stream;

/// The error JavaScript sees: `code: message`.
fn js_error(failure: impl Into<Failure>) -> napi::Error {
    let failure = failure.into();
    misuse(failure.code(), &failure.to_string())
}

fn misuse(code: &str, message: &str) -> napi::Error {
    napi::Error::new(Status::InvalidArg, format!("{code}: {message}"))
}

/// A key of one algorithm, its backend chosen once; `dispose()` drops
/// (and zeroizes) it before the garbage collector would.
/// The core's backends by name, in their numbers' order: `backends()` in
/// `index.js`, the one list (read here, not spelled out in JavaScript).
#[napi(js_name = "backendNames")]
pub fn list_backends() -> Vec<String> {
    backend_names().map(str::to_owned).collect()
}

#[napi]
pub struct NativeKey {
    /// Shared with the async tasks in flight, which keep it until they end.
    /// In a cell so that `dispose` needs no exclusive borrow, which napi
    /// refuses while a returned task still borrows the object.
    cipher: RefCell<Option<Arc<Cipher>>>,
}

#[napi]
impl NativeKey {
    /// `algorithm`: "aes-gcm-siv" or "aes-gcm"; the key length picks
    /// AES-128 or AES-256.
    #[napi(constructor, catch_unwind)]
    pub fn new(algorithm: String, key: &[u8], tag_length: u32, backend: String) -> Result<Self> {
        let backend = backend_named(&backend).ok_or_else(|| {
            misuse("ERR_GCMSIV_BACKEND_UNAVAILABLE", &format!("unknown backend {backend:?}"))
        })?;
        let wide = key.len() > 16;
        let algorithm = match (algorithm.as_str(), wide) {
            ("aes-gcm-siv", false) => Algorithm::Aes128GcmSiv,
            ("aes-gcm-siv", true) => Algorithm::Aes256GcmSiv,
            ("aes-gcm", false) => Algorithm::Aes128Gcm,
            ("aes-gcm", true) => Algorithm::Aes256Gcm,
            (other, _) => {
                return Err(misuse("ERR_GCMSIV_ALGORITHM", &format!("unknown algorithm {other:?}")));
            }
        };
        // Made in its `Arc` in a frame whose stack is zeroed after it: no
        // copy of the schedule is left behind.
        let cipher =
            gcmsiv::scrubbed(|| Cipher::new(algorithm, key, tag_length as usize, backend).map(Arc::new))
                .map_err(js_error)?;
        Ok(NativeKey { cipher: RefCell::new(Some(cipher)) })
    }

    fn cipher(&self) -> Result<Arc<Cipher>> {
        self.cipher.borrow().clone().ok_or_else(|| misuse("ERR_GCMSIV_DISPOSED", "the key was disposed"))
    }

    /// Drops the key now (its round keys and hash key are zeroized).
    #[napi(catch_unwind)]
    pub fn dispose(&self) {
        self.cipher.borrow_mut().take();
    }

    /// The backend the key runs on.
    #[napi(getter, catch_unwind)]
    pub fn backend(&self) -> Result<String> {
        Ok(self.cipher()?.backend().name().to_owned())
    }

    /// The widest vector registers the key's backend uses on this CPU.
    #[napi(getter, catch_unwind)]
    pub fn backend_bits(&self) -> Result<u32> {
        Ok(self.cipher()?.backend().register_bits())
    }

    /// The tag length of this key's ciphertexts.
    #[napi(getter, catch_unwind)]
    pub fn tag_length(&self) -> Result<u32> {
        Ok(self.cipher()?.tag_len() as u32)
    }

    /// ciphertext || tag of `plaintext` under `nonce` and `aad`.
    #[napi(catch_unwind)]
    pub fn seal<'env>(
        &self,
        env: &'env Env,
        nonce: &[u8],
        plaintext: &[u8],
        aad: &[u8],
    ) -> Result<BufferSlice<'env>> {
        to_js(env, seal_bytes(&*self.cipher()?, nonce, plaintext, aad)?)
    }

    /// The plaintext of ciphertext || tag, or an `ERR_GCMSIV_AUTHENTICATION`
    /// error (and no plaintext: the copy decrypted in place holds the
    /// ciphertext again, as the core leaves it, and is dropped).
    #[napi(catch_unwind)]
    pub fn open<'env>(
        &self,
        env: &'env Env,
        nonce: &[u8],
        sealed: &[u8],
        aad: &[u8],
    ) -> Result<BufferSlice<'env>> {
        to_js(env, open_bytes(&*self.cipher()?, nonce, sealed, aad)?)
    }

    /// `seal` on libuv's thread pool: the inputs are copied now, the promise
    /// settles when the work is done.
    #[napi(catch_unwind)]
    pub fn seal_async(&self, nonce: &[u8], plaintext: &[u8], aad: &[u8]) -> Result<AsyncTask<Work>> {
        Ok(AsyncTask::new(Work::new(&self.cipher()?, true, nonce, plaintext, aad)))
    }

    /// `open` on libuv's thread pool, as `seal_async`.
    #[napi(catch_unwind)]
    pub fn open_async(&self, nonce: &[u8], sealed: &[u8], aad: &[u8]) -> Result<AsyncTask<Work>> {
        Ok(AsyncTask::new(Work::new(&self.cipher()?, false, nonce, sealed, aad)))
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
        let cipher = self.cipher()?;
        let tag_len = cipher.tag_len();
        let mut sealed: Vec<Vec<u8>> = plaintexts
            .iter()
            .map(|p| {
                let mut out = vec![0u8; p.len() + tag_len];
                out[..p.len()].copy_from_slice(p);
                out
            })
            .collect();
        let mut messages: Vec<Message<'_>> = sealed
            .iter_mut()
            .zip(nonces.iter().zip(&aads))
            .map(|(out, (nonce, aad))| {
                let body_len = out.len() - tag_len;
                let (body, tag) = out.split_at_mut(body_len);
                Message { nonce, aad, body, tag }
            })
            .collect();
        seal_batch(&cipher, &mut messages).map_err(js_error)?;
        drop(messages);
        Ok(sealed.into_iter().map(Buffer::from).collect())
    }

    /// Opens many messages in one call: each entry is its plaintext, or
    /// `null` if it was not authentic, a message shorter than a tag included
    /// (the others are not affected). Misuse anywhere (a wrong nonce length)
    /// fails the call.
    #[napi(catch_unwind)]
    pub fn open_many(
        &self,
        nonces: Vec<Uint8Array>,
        sealed: Vec<Uint8Array>,
        aads: Vec<Uint8Array>,
    ) -> Result<Vec<Option<Buffer>>> {
        check_counts(&nonces, &sealed, &aads)?;
        let cipher = self.cipher()?;
        let tag_len = cipher.tag_len();
        for ((s, nonce), aad) in sealed.iter().zip(&nonces).zip(&aads) {
            cipher
                .check_open_lengths(nonce.len(), aad.len(), s.len().saturating_sub(tag_len))
                .map_err(js_error)?;
        }
        // The messages at least a tag long go to the batch, each copied whole
        // (ciphertext, then tag); the others are not authentic (None)
        // without any work.
        let kept: Vec<usize> = (0..sealed.len()).filter(|&i| sealed[i].len() >= tag_len).collect();
        let mut copies: Vec<Vec<u8>> = kept.iter().map(|&i| sealed[i].to_vec()).collect();
        let mut messages: Vec<Message<'_>> = copies
            .iter_mut()
            .zip(&kept)
            .map(|(copy, &i)| {
                let body_len = copy.len() - tag_len;
                let (body, tag) = copy.split_at_mut(body_len);
                Message { nonce: &nonces[i], aad: &aads[i], body, tag }
            })
            .collect();
        let authentic = open_batch(&cipher, &mut messages).map_err(js_error)?;
        drop(messages);
        let mut out: Vec<Option<Buffer>> = (0..sealed.len()).map(|_| None).collect();
        for ((mut copy, ok), i) in copies.into_iter().zip(authentic).zip(kept) {
            if ok {
                copy.truncate(copy.len() - tag_len);
                out[i] = Some(copy.into());
            }
        }
        Ok(out)
    }
}

/// A JavaScript Buffer of `data`: short ones copied into memory the engine
/// allocates (an external buffer, with its finalizer, costs more per call
/// than a whole short seal; PERFORMANCE-HISTORY.md, `bindings`), long ones
/// handed over as they are.
fn to_js(env: &Env, data: Vec<u8>) -> Result<BufferSlice<'_>> {
    if data.len() <= COPY_MAX {
        BufferSlice::copy_from(env, &data)
    } else {
        BufferSlice::from_data(env, data)
    }
}

/// Outputs up to this long are copied into the engine's memory.
const COPY_MAX: usize = 64 * 1024;

fn seal_bytes(cipher: &Cipher, nonce: &[u8], plaintext: &[u8], aad: &[u8]) -> Result<Vec<u8>> {
    cipher.check_lengths(nonce.len(), aad.len(), plaintext.len()).map_err(js_error)?;
    let mut out = vec![0u8; plaintext.len() + cipher.tag_len()];
    let (body, tag) = out.split_at_mut(plaintext.len());
    // One pass from the plaintext into the new buffer: no copy first.
    cipher.encrypt_detached(nonce, aad, plaintext, body, tag).map_err(js_error)?;
    Ok(out)
}

fn open_bytes(cipher: &Cipher, nonce: &[u8], sealed: &[u8], aad: &[u8]) -> Result<Vec<u8>> {
    let tag_len = cipher.tag_len();
    // The nonce and associated data are the caller's: misuse first. A
    // ciphertext shorter than a tag is the sender's (an attacker's), so it is
    // the one authentication failure, as in every other binding.
    cipher.check_open_lengths(nonce.len(), aad.len(), 0).map_err(js_error)?;
    let body = sealed.len().checked_sub(tag_len).ok_or_else(|| js_error(Error::Authentication))?;
    cipher.check_open_lengths(nonce.len(), aad.len(), body).map_err(js_error)?;
    let mut tag = [0u8; 16];
    tag[..tag_len].copy_from_slice(&sealed[body..]);
    let mut out = vec![0u8; body];
    cipher.decrypt_detached(nonce, aad, &sealed[..body], &tag[..tag_len], &mut out).map_err(js_error)?;
    Ok(out)
}

/// One seal or open for the thread pool, on copies of its inputs.
pub struct Work {
    cipher: Arc<Cipher>,
    seal: bool,
    nonce: Vec<u8>,
    data: Vec<u8>,
    aad: Vec<u8>,
}

impl Work {
    fn new(cipher: &Arc<Cipher>, seal: bool, nonce: &[u8], data: &[u8], aad: &[u8]) -> Self {
        Work {
            cipher: Arc::clone(cipher),
            seal,
            nonce: nonce.to_vec(),
            data: data.to_vec(),
            aad: aad.to_vec(),
        }
    }
}

impl Task for Work {
    type Output = Vec<u8>;
    type JsValue = Buffer;

    fn compute(&mut self) -> Result<Vec<u8>> {
        // On a pool thread no napi wrapper catches a panic: this does.
        let run = || {
            if self.seal {
                seal_bytes(&self.cipher, &self.nonce, &self.data, &self.aad)
            } else {
                open_bytes(&self.cipher, &self.nonce, &self.data, &self.aad)
            }
        };
        let outcome = guard(run).unwrap_or_else(|internal| Err(js_error(internal)));
        // The plaintext copy a seal was given.
        if self.seal {
            wipe(&mut self.data);
        }
        outcome
    }

    fn resolve(&mut self, _env: Env, output: Vec<u8>) -> Result<Buffer> {
        Ok(output.into())
    }
}

fn check_counts<A, B, C>(nonces: &[A], data: &[B], aads: &[C]) -> Result<()> {
    if nonces.len() != data.len() || aads.len() != data.len() {
        return Err(misuse("ERR_GCMSIV_BATCH", "nonces, data and associated data differ in count"));
    }
    Ok(())
}
