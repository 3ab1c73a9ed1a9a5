//! Files and streams in the gcmsiv format (docs/FORMAT.md) for `stream.js`:
//! the I/O-free types of `gcmsiv-stream` ([`SealStream`], [`OpenStream`],
//! [`RandomAccess`]) behind three classes, whose reading and writing happen
//! in JavaScript. Every call that may do real work (a batch of chunks,
//! Argon2id for a passphrase) is an `AsyncTask` on libuv's thread pool, so the
//! event loop is not blocked; the cheap ones (where the final chunk is, which
//! bytes hold a range) run on the calling thread.
//!
//! Each class keeps its state in an `Arc` shared with the task in flight;
//! `stream.js` runs one task at a time per stream (a `Transform` waits for
//! each callback), and a random-access reader's opens share a read lock.
//!
//! Errors leave as `ERR_GCMSIV_*: message`, as in `lib.rs`: an authentication
//! failure (a wrong key or passphrase, a forged chunk) is
//! `ERR_GCMSIV_AUTHENTICATION`, any other fault of the file (not gcmsiv,
//! truncated, trailing data, ...) `ERR_GCMSIV_FORMAT`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use gcmsiv_glue::guard;
use gcmsiv_stream::format::HEADER_LEN;
use gcmsiv_stream::{
    Algorithm, Argon2Cost, Error, Header, Identity, MasterKey, OpenStream, Options, RandomAccess, Recipient,
    RecipientKind, SealStream, Secret,
};
use napi::bindgen_prelude::{AsyncTask, Buffer};
use napi::{Env, Result, Status, Task};
use napi_derive::napi;
use zeroize::Zeroizing;

/// The code JavaScript sees for each failure of the stream crate.
fn code(err: &Error) -> &'static str {
    match err {
        Error::Decode(e) if e.is_authentication() => "ERR_GCMSIV_AUTHENTICATION",
        Error::Decode(_) => "ERR_GCMSIV_FORMAT",
        Error::Invalid(_) => "ERR_GCMSIV_INVALID_ARGUMENT",
        Error::KeyFile(_) => "ERR_GCMSIV_KEY_FILE",
        Error::Random => "ERR_GCMSIV_RANDOM_SOURCE",
        _ => "ERR_GCMSIV_IO",
    }
}

fn js_error(err: &Error) -> napi::Error {
    napi::Error::new(Status::GenericFailure, format!("{}: {err}", code(err)))
}

fn invalid(message: &str) -> napi::Error {
    napi::Error::new(Status::InvalidArg, format!("ERR_GCMSIV_INVALID_ARGUMENT: {message}"))
}

fn internal() -> napi::Error {
    napi::Error::new(Status::GenericFailure, "ERR_GCMSIV_INTERNAL: internal error")
}

fn disposed() -> napi::Error {
    napi::Error::new(Status::GenericFailure, "ERR_GCMSIV_DISPOSED: the stream was closed")
}

/// Runs `work` on a pool thread, where no napi wrapper catches a panic.
fn guarded<T>(work: impl FnOnce() -> Result<T>) -> Result<T> {
    guard(work).unwrap_or_else(|_| Err(internal()))
}

/// The secret `stream.js` passes: `"key"` with the 32 bytes a key file holds,
/// `"passphrase"` with its bytes (UTF-8 for a string), `"recipients"` or
/// `"mixedRecipients"` with a recipients file's text (both kinds together
/// allowed only in the second), or `"identities"` with an identity file's text.
fn secret(kind: &str, bytes: &[u8]) -> Result<Secret> {
    let text = |what: &str| {
        core::str::from_utf8(bytes).map_err(|_| invalid(&format!("the {what} are not UTF-8 text")))
    };
    match kind {
        "key" => Ok(Secret::Key(MasterKey::from_slice(bytes).map_err(|e| js_error(&e))?)),
        "passphrase" if bytes.is_empty() => Err(invalid("the passphrase is empty")),
        "passphrase" => Ok(Secret::passphrase(bytes)),
        "recipients" | "mixedRecipients" => {
            let list = Recipient::parse_list(text("recipients")?)
                .map_err(|why| invalid(&format!("not a list of recipients: {why}")))?;
            if list.is_empty() {
                return Err(invalid("no recipient given"));
            }
            Ok(if kind == "recipients" { Secret::Recipients(list) } else { Secret::MixedRecipients(list) })
        }
        "identities" => Ok(Secret::Identities(
            Identity::parse_list(text("identities")?)
                .map_err(|why| invalid(&format!("not a list of identities: {why}")))?,
        )),
        _ => Err(invalid("the secret must be a key, a passphrase, recipients or identities")),
    }
}

/// A new identity of `kind` (`"x25519"` or `"hybrid"`): `[identity, recipient]`.
// Registered by napi, which a test build does not do.
#[cfg_attr(test, allow(dead_code))]
#[napi(catch_unwind)]
pub fn generate_identity(kind: String) -> Result<Vec<String>> {
    let kind = match kind.as_str() {
        "x25519" => RecipientKind::X25519,
        "hybrid" => RecipientKind::Hybrid,
        _ => return Err(invalid("kind is 'x25519' or 'hybrid'")),
    };
    let identity = Identity::generate(kind).map_err(|e| js_error(&e))?;
    Ok(vec![identity.to_secret_string().to_string(), identity.recipient().to_string()])
}

/// The recipient string of one identity string.
#[cfg_attr(test, allow(dead_code))]
#[napi(catch_unwind)]
pub fn identity_recipient(identity: String) -> Result<String> {
    let identity = Zeroizing::new(identity);
    let identity = Identity::parse(&identity).map_err(|why| invalid(&format!("not an identity: {why}")))?;
    Ok(identity.recipient().to_string())
}

/// How long the header of the file starting with `prefix` is, as far as the
/// prefix tells (read until it is at most what was read).
#[cfg_attr(test, allow(dead_code))]
#[napi(catch_unwind)]
pub fn header_needed(prefix: Buffer) -> Result<u32> {
    let n = Header::needed(&prefix).map_err(|e| js_error(&Error::Decode(e)))?;
    Ok(n as u32)
}

/// The 32-byte key of a key file's text (`gcmsiv-key-v1:` and 64 hex digits).
// Registered by napi, which a test build does not do.
#[cfg_attr(test, allow(dead_code))]
#[napi(catch_unwind)]
pub fn parse_key_file(text: String) -> Result<Buffer> {
    let text = Zeroizing::new(text);
    let key = MasterKey::from_key_file(&text).map_err(|why| js_error(&Error::KeyFile(why)))?;
    Ok(key.as_bytes().to_vec().into())
}

/// Bytes of the header: what to read before anything else.
// Registered by napi, which a test build does not do.
#[cfg_attr(test, allow(dead_code))]
#[napi(catch_unwind)]
pub fn header_length() -> u32 {
    HEADER_LEN as u32
}

/// A file offset or length from JavaScript (a safe integer, checked there).
fn unsigned(n: i64, what: &str) -> Result<u64> {
    u64::try_from(n).map_err(|_| invalid(&format!("{what} must not be negative")))
}

/// The buffer a stream's pushes copy their input into, handed to the task and
/// given back when it ends (on the main thread, as is every `take`), so that a
/// stream of many pushes does not allocate (and fault in) fresh memory for each.
#[derive(Clone, Default)]
pub struct Spare(Arc<Mutex<Vec<u8>>>);

impl Spare {
    fn copy_of(&self, bytes: &[u8]) -> Vec<u8> {
        let mut buf = std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner));
        buf.clear();
        buf.extend_from_slice(bytes);
        buf
    }

    /// Keeps `buf` for the next push, unless it is larger than pushes usually are.
    fn give_back(&self, buf: Vec<u8>) {
        if buf.capacity() <= SPARE_MAX {
            *self.0.lock().unwrap_or_else(PoisonError::into_inner) = buf;
        }
    }
}

/// Input buffers up to this size are kept between pushes.
const SPARE_MAX: usize = 16 << 20;

/// Writes a new file: `init` (derives the keys), then `push` for each piece of
/// plaintext and `finish` once; each returns the file bytes ready.
#[napi]
pub struct NativeSealStream {
    state: Arc<Mutex<Option<SealStream>>>,
    /// Set by `dispose`: an `init` still running then drops what it made.
    disposed: Arc<AtomicBool>,
    spare: Spare,
}

#[napi]
impl NativeSealStream {
    #[napi(constructor, catch_unwind)]
    pub fn new() -> Self {
        NativeSealStream {
            state: Arc::new(Mutex::new(None)),
            disposed: Arc::new(AtomicBool::new(false)),
            spare: Spare::default(),
        }
    }

    /// Checks the options now; derives the file's keys (Argon2id for a
    /// passphrase) on the pool.
    #[napi(catch_unwind)]
    #[allow(clippy::too_many_arguments)]
    pub fn init(
        &self,
        kind: String,
        secret_bytes: &[u8],
        chunk_size: u32,
        algorithm: String,
        memory_kib: u32,
        iterations: u32,
        lanes: u32,
    ) -> Result<AsyncTask<SealInit>> {
        let algorithm = match algorithm.as_str() {
            "aes256" => Algorithm::Aes256GcmSiv,
            "aes128" => Algorithm::Aes128GcmSiv,
            _ => return Err(invalid("the algorithm must be \"aes256\" or \"aes128\"")),
        };
        let options = Options::new()
            .algorithm(algorithm)
            .chunk_size(chunk_size as usize)
            .and_then(|o| o.argon2_cost(Argon2Cost { memory_kib, iterations, lanes }))
            .map_err(|e| js_error(&e))?;
        let secret = secret(&kind, secret_bytes)?;
        Ok(AsyncTask::new(SealInit {
            state: Arc::clone(&self.state),
            disposed: Arc::clone(&self.disposed),
            secret,
            options,
        }))
    }

    /// Seals the batches `plaintext` completes (copied now) on the pool;
    /// resolves to the file bytes ready (the header first).
    #[napi(catch_unwind)]
    pub fn push(&self, plaintext: &[u8]) -> AsyncTask<SealPush> {
        AsyncTask::new(SealPush {
            state: Arc::clone(&self.state),
            data: Plain(self.spare.copy_of(plaintext)),
            spare: self.spare.clone(),
            finish: false,
        })
    }

    /// Seals the rest and the final chunk on the pool; resolves to the last
    /// file bytes. The stream is spent after.
    #[napi(catch_unwind)]
    pub fn finish(&self) -> AsyncTask<SealPush> {
        AsyncTask::new(SealPush {
            state: Arc::clone(&self.state),
            data: Plain(Vec::new()),
            spare: self.spare.clone(),
            finish: true,
        })
    }

    /// Drops the keys and buffered plaintext now (zeroized).
    #[napi(catch_unwind)]
    pub fn dispose(&self) {
        self.disposed.store(true, Ordering::SeqCst);
        self.state.lock().unwrap_or_else(PoisonError::into_inner).take();
    }
}

impl Default for NativeSealStream {
    fn default() -> Self {
        Self::new()
    }
}

pub struct SealInit {
    state: Arc<Mutex<Option<SealStream>>>,
    disposed: Arc<AtomicBool>,
    secret: Secret,
    options: Options,
}

impl Task for SealInit {
    type Output = ();
    type JsValue = ();

    fn compute(&mut self) -> Result<()> {
        guarded(|| {
            let stream = SealStream::new(&self.secret, &self.options).map_err(|e| js_error(&e))?;
            let mut state = self.state.lock().map_err(|_| internal())?;
            // Checked under the lock that `dispose` takes after setting it.
            if self.disposed.load(Ordering::SeqCst) {
                return Err(disposed());
            }
            *state = Some(stream);
            Ok(())
        })
    }

    fn resolve(&mut self, _env: Env, _output: ()) -> Result<()> {
        Ok(())
    }
}

pub struct SealPush {
    state: Arc<Mutex<Option<SealStream>>>,
    /// The plaintext copy, wiped when the task drops.
    data: Plain,
    spare: Spare,
    finish: bool,
}

/// A copy of plaintext, wiped when dropped with the glue's `wipe` (a plain
/// fill: `Zeroizing`'s byte-wise volatile stores cost as much as the sealing).
pub struct Plain(Vec<u8>);

impl Drop for Plain {
    fn drop(&mut self) {
        gcmsiv_glue::wipe(&mut self.0);
    }
}

impl Task for SealPush {
    type Output = Vec<u8>;
    type JsValue = Buffer;

    fn compute(&mut self) -> Result<Vec<u8>> {
        guarded(|| {
            let mut state = self.state.lock().map_err(|_| internal())?;
            let mut out = Vec::new();
            if self.finish {
                let stream = state.take().ok_or_else(disposed)?;
                stream.finish(&mut out).map_err(|e| js_error(&e))?;
            } else {
                let stream = state.as_mut().ok_or_else(disposed)?;
                stream.push(&self.data.0, &mut out).map_err(|e| js_error(&e))?;
            }
            Ok(out)
        })
    }

    fn resolve(&mut self, _env: Env, output: Vec<u8>) -> Result<Buffer> {
        Ok(output.into())
    }

    fn finally(mut self, _env: Env) -> Result<()> {
        gcmsiv_glue::wipe(&mut self.data.0);
        self.spare.give_back(std::mem::take(&mut self.data.0));
        Ok(())
    }
}

/// Reads a file: `push` file bytes, get back the plaintext of the chunks they
/// complete, each authenticated; `finish` says whether the file was whole.
#[napi]
pub struct NativeOpenStream {
    state: Arc<Mutex<Option<OpenStream>>>,
    spare: Spare,
}

#[napi]
impl NativeOpenStream {
    /// The header is checked with the secret once it has arrived (on the
    /// pool, in the push that completes it).
    #[napi(constructor, catch_unwind)]
    pub fn new(kind: String, secret_bytes: &[u8]) -> Result<Self> {
        let secret = secret(&kind, secret_bytes)?;
        Ok(NativeOpenStream {
            state: Arc::new(Mutex::new(Some(OpenStream::new(&secret)))),
            spare: Spare::default(),
        })
    }

    /// Opens the chunks `bytes` (copied now) completes, on the pool; resolves
    /// to their plaintext. A failure after some chunks authenticated resolves
    /// to their plaintext, and the next `push` or `finish` reports it: no byte
    /// of a chunk that failed is ever returned.
    #[napi(catch_unwind)]
    pub fn push(&self, bytes: &[u8]) -> AsyncTask<OpenPush> {
        AsyncTask::new(OpenPush {
            state: Arc::clone(&self.state),
            data: self.spare.copy_of(bytes),
            spare: self.spare.clone(),
        })
    }

    /// Throws unless the file ended just after its final chunk.
    #[napi(catch_unwind)]
    pub fn finish(&self) -> Result<()> {
        let mut state = self.state.lock().map_err(|_| internal())?;
        state.as_mut().ok_or_else(disposed)?.finish().map_err(|e| js_error(&e))
    }

    /// Drops the keys and buffered bytes now.
    #[napi(catch_unwind)]
    pub fn dispose(&self) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).take();
    }
}

pub struct OpenPush {
    state: Arc<Mutex<Option<OpenStream>>>,
    data: Vec<u8>,
    spare: Spare,
}

impl Task for OpenPush {
    type Output = Vec<u8>;
    type JsValue = Buffer;

    fn compute(&mut self) -> Result<Vec<u8>> {
        guarded(|| {
            let mut state = self.state.lock().map_err(|_| internal())?;
            let stream = state.as_mut().ok_or_else(disposed)?;
            // Room for the plaintext of a batch (about 2 MiB) and of these
            // bytes, so that appending chunk by chunk does not reallocate.
            let mut out = Vec::with_capacity(self.data.len() + (2 << 20));
            match stream.push(&self.data, &mut out) {
                Ok(()) => Ok(out),
                // The stream keeps the failure and reports it on the next call.
                Err(_) if !out.is_empty() => Ok(out),
                Err(e) => Err(js_error(&e)),
            }
        })
    }

    fn resolve(&mut self, _env: Env, output: Vec<u8>) -> Result<Buffer> {
        Ok(output.into())
    }

    fn finally(mut self, _env: Env) -> Result<()> {
        self.spare.give_back(std::mem::take(&mut self.data));
        Ok(())
    }
}

/// Random access into a file `stream.js` reads: `init` with the header and
/// the file's size, read `finalChunk()` and `verifyFinal` it (which fixes the
/// plaintext size), then for each range read the bytes `span` names and
/// `open` them.
#[napi]
pub struct NativeRandomAccess {
    state: Arc<RwLock<Option<RandomAccess>>>,
}

#[napi]
impl NativeRandomAccess {
    #[napi(constructor, catch_unwind)]
    pub fn new() -> Self {
        NativeRandomAccess { state: Arc::new(RwLock::new(None)) }
    }

    /// Checks the header (at least its first bytes) with the secret on the
    /// pool (Argon2id for a passphrase).
    #[napi(catch_unwind)]
    pub fn init(
        &self,
        header: &[u8],
        file_len: i64,
        kind: String,
        secret_bytes: &[u8],
    ) -> Result<AsyncTask<Access>> {
        let secret = secret(&kind, secret_bytes)?;
        Ok(AsyncTask::new(Access {
            state: Arc::clone(&self.state),
            op: Op::Init { header: header.to_vec(), file_len: unsigned(file_len, "the file size")?, secret },
        }))
    }

    /// `[offset, length]` of the final chunk in the file.
    #[napi(catch_unwind)]
    pub fn final_chunk(&self) -> Result<Vec<i64>> {
        let state = self.state.read().map_err(|_| internal())?;
        let (at, len) = state.as_ref().ok_or_else(disposed)?.final_chunk();
        Ok(vec![at as i64, len as i64])
    }

    /// Authenticates the final chunk on the pool; resolves to the plaintext size.
    #[napi(catch_unwind)]
    pub fn verify_final(&self, stored: &[u8]) -> AsyncTask<Access> {
        AsyncTask::new(Access { state: Arc::clone(&self.state), op: Op::Verify(stored.to_vec()) })
    }

    /// `[firstChunk, fileOffset, fileLength, skip]`: the stored chunks that
    /// hold plaintext `offset..offset + length` (cut at the end), or `null` if
    /// that range is empty.
    #[napi(catch_unwind)]
    pub fn span(&self, offset: i64, length: i64) -> Result<Option<Vec<i64>>> {
        let (offset, length) = (unsigned(offset, "the offset")?, unsigned(length, "the length")?);
        let state = self.state.read().map_err(|_| internal())?;
        let span = state.as_ref().ok_or_else(disposed)?.span(offset, length);
        Ok(span.map(|s| vec![s.first_chunk as i64, s.file_offset as i64, s.file_len as i64, s.skip as i64]))
    }

    /// Authenticates and opens whole chunks (`stored` starts with chunk
    /// `first_chunk`) on the pool; resolves to their plaintext.
    #[napi(catch_unwind)]
    pub fn open(&self, first_chunk: i64, stored: &[u8]) -> Result<AsyncTask<Access>> {
        let first = unsigned(first_chunk, "the chunk index")?;
        Ok(AsyncTask::new(Access { state: Arc::clone(&self.state), op: Op::Open(first, stored.to_vec()) }))
    }

    /// Drops the keys now.
    #[napi(catch_unwind)]
    pub fn dispose(&self) {
        self.state.write().unwrap_or_else(PoisonError::into_inner).take();
    }
}

impl Default for NativeRandomAccess {
    fn default() -> Self {
        Self::new()
    }
}

enum Op {
    Init { header: Vec<u8>, file_len: u64, secret: Secret },
    Verify(Vec<u8>),
    Open(u64, Vec<u8>),
}

pub struct Access {
    state: Arc<RwLock<Option<RandomAccess>>>,
    op: Op,
}

/// What an [`Access`] task resolves to: nothing, the plaintext size, or plaintext.
pub enum Done {
    Nothing,
    Size(u64),
    Plaintext(Vec<u8>),
}

impl Task for Access {
    type Output = Done;
    type JsValue = napi::Either<f64, Buffer>;

    fn compute(&mut self) -> Result<Done> {
        guarded(|| match &mut self.op {
            Op::Init { header, file_len, secret } => {
                let access = RandomAccess::new(header, *file_len, secret).map_err(|e| js_error(&e))?;
                *self.state.write().map_err(|_| internal())? = Some(access);
                Ok(Done::Nothing)
            }
            Op::Verify(stored) => {
                let mut state = self.state.write().map_err(|_| internal())?;
                let access = state.as_mut().ok_or_else(disposed)?;
                Ok(Done::Size(access.verify_final(stored).map_err(|e| js_error(&e))?))
            }
            Op::Open(first, stored) => {
                let state = self.state.read().map_err(|_| internal())?;
                let access = state.as_ref().ok_or_else(disposed)?;
                let mut out = Vec::new();
                // On a failure `out` holds the chunks before the one that
                // failed; a read returns all it asked for or nothing.
                access.open(*first, stored, &mut out).map_err(|e| js_error(&e))?;
                Ok(Done::Plaintext(out))
            }
        })
    }

    fn resolve(&mut self, _env: Env, output: Done) -> Result<napi::Either<f64, Buffer>> {
        Ok(match output {
            Done::Nothing => napi::Either::A(0.0),
            Done::Size(n) => napi::Either::A(n as f64),
            Done::Plaintext(p) => napi::Either::B(p.into()),
        })
    }
}
