//! The gcmsiv file format (docs/FORMAT.md) for `gcmsiv.open` (python/gcmsiv/_stream.py):
//! the stream crate's three types without I/O, wrapped for Python, whose file objects do
//! the reading and writing. `_SealStream` turns plaintext into a file, `_OpenStream` a file
//! into authenticated plaintext, `_RandomAccess` says which stored bytes hold a plaintext
//! range and opens them; `_StreamSecret` holds the key or passphrase, zeroized on drop.
//!
//! Chunks are sealed and opened on all cores, on a rayon pool of this module's own: every
//! call into the stream crate runs inside it, with the GIL released. rayon's global pool
//! would hang a child process that used it after `os.fork()` (its threads are not copied);
//! this pool is rebuilt when the process id changes. The pool is looked up only while the
//! GIL is held, and `os.fork()` holds the GIL, so the lock is never left held in a child.

use std::borrow::Cow;
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use gcmsiv_stream::format::HEADER_LEN;
use gcmsiv_stream::{
    Algorithm, Argon2Cost, DecodeError, Error, Header, Identity, MASTER_LEN, MasterKey, OpenStream, Options,
    RandomAccess, Recipient, RecipientKind, SealStream, Secret,
};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::{ThreadPool, ThreadPoolBuilder};
use zeroize::Zeroizing;

use crate::InvalidTag;
use crate::buffer::ByteView;

/// Plaintext a writer's push hands the stream crate at once: the file bytes it returns,
/// written before the next piece goes in, stay within a few MiB whatever the caller's
/// buffer.
const PUSH_PIECE: usize = 4 << 20;

/// The pool and the process that built it.
static POOL: Mutex<Option<(u32, Arc<ThreadPool>)>> = Mutex::new(None);

/// This process's pool; a new one in a child after `os.fork()`. Takes `py` to show that
/// the GIL is held (see the module's documentation).
fn pool(_py: Python<'_>) -> PyResult<Arc<ThreadPool>> {
    let pid = std::process::id();
    let mut slot = POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((owner, pool)) = slot.as_ref()
        && *owner == pid
    {
        return Ok(Arc::clone(pool));
    }
    let pool = ThreadPoolBuilder::new()
        .thread_name(|i| format!("gcmsiv-stream-{i}"))
        .build()
        .map(Arc::new)
        .map_err(|e| PyOSError::new_err(format!("cannot start the chunk threads: {e}")))?;
    if let Some(inherited) = slot.replace((pid, Arc::clone(&pool))) {
        // The parent's pool: its threads do not exist here, and dropping it would wait on
        // them. Its memory is left alone.
        std::mem::forget(inherited);
    }
    Ok(pool)
}

/// Runs `work` (a call into the stream crate) on the pool, with the GIL released.
fn run<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    let pool = pool(py)?;
    Ok(py.detach(|| pool.install(work)))
}

/// The Python exception for a failure of the stream crate: `InvalidTag` for every
/// authentication failure (a wrong key or passphrase, a forged or moved chunk), the
/// crate's message with it, which names no secret; `ValueError` for a malformed file or a
/// bad argument; `OSError` (of the I/O error's kind) for I/O.
pub(crate) fn stream_err(err: Error) -> PyErr {
    match err {
        Error::Decode(decode) => decode_err(&decode),
        Error::Read(io) | Error::Write(io) => io.into(),
        Error::Random => PyOSError::new_err(Error::Random.to_string()),
        other => PyValueError::new_err(other.to_string()),
    }
}

fn decode_err(decode: &DecodeError) -> PyErr {
    if decode.is_authentication() {
        InvalidTag::new_err(decode.to_string())
    } else {
        PyValueError::new_err(decode.to_string())
    }
}

/// The exception object for a failure reported beside the plaintext released before it.
fn err_value(py: Python<'_>, err: Error) -> Py<PyAny> {
    stream_err(err).into_value(py).into_any()
}

/// The secret of a file: a 32-byte key or a passphrase, zeroized when dropped.
#[pyclass(frozen, module = "gcmsiv._gcmsiv", name = "_StreamSecret")]
pub struct StreamSecret(Secret);

#[pymethods]
impl StreamSecret {
    /// The 32-byte key a gcmsiv key file holds.
    #[staticmethod]
    fn from_key(key: ByteView<'_>) -> PyResult<Self> {
        if key.len() != MASTER_LEN {
            return Err(PyValueError::new_err(format!(
                "key must be {MASTER_LEN} bytes (the secret a gcmsiv key file holds), not {}",
                key.len()
            )));
        }
        let mut bytes = Zeroizing::new([0u8; MASTER_LEN]);
        key.copy_to(0, &mut bytes[..]);
        Ok(StreamSecret(Secret::Key(MasterKey::from_bytes(&bytes))))
    }

    /// The key of a gcmsiv key file (`gcmsiv keygen`'s format).
    #[staticmethod]
    fn from_key_file(path: PathBuf) -> PyResult<Self> {
        match MasterKey::load(&path) {
            Ok(key) => Ok(StreamSecret(Secret::Key(key))),
            Err(Error::Read(e)) => {
                Err(io::Error::new(e.kind(), format!("cannot read the key file {}: {e}", path.display()))
                    .into())
            }
            Err(other) => Err(PyValueError::new_err(format!("{}: {other}", path.display()))),
        }
    }

    /// A passphrase (its bytes; a `str` is encoded to UTF-8 by the caller).
    #[staticmethod]
    fn from_passphrase(passphrase: ByteView<'_>) -> PyResult<Self> {
        if passphrase.len() == 0 {
            return Err(PyValueError::new_err("the passphrase is empty"));
        }
        let mut bytes = Zeroizing::new(vec![0u8; passphrase.len()]);
        passphrase.copy_to(0, &mut bytes);
        Ok(StreamSecret(Secret::passphrase(&bytes[..])))
    }

    /// Recipients to write to: a recipients file's text (one `gcmsiv1...` or
    /// `gcmsivpq1...` string a line, `#` comments), 1 to 256; both kinds together
    /// only with `mixed` (refused when the file is made otherwise).
    #[staticmethod]
    fn from_recipients(text: &str, mixed: bool) -> PyResult<Self> {
        let list = Recipient::parse_list(text)
            .map_err(|why| PyValueError::new_err(format!("not a list of recipients: {why}")))?;
        if list.is_empty() {
            return Err(PyValueError::new_err("no recipient given"));
        }
        Ok(StreamSecret(if mixed { Secret::MixedRecipients(list) } else { Secret::Recipients(list) }))
    }

    /// Identities to read with: an identity file's text (`GCMSIV-SECRET-KEY-...`
    /// lines, `#` comments). The error never quotes it.
    #[staticmethod]
    fn from_identities(text: ByteView<'_>) -> PyResult<Self> {
        let mut bytes = Zeroizing::new(vec![0u8; text.len()]);
        text.copy_to(0, &mut bytes);
        let text = core::str::from_utf8(&bytes)
            .map_err(|_| PyValueError::new_err("identities must be UTF-8 text"))?;
        let list = Identity::parse_list(text)
            .map_err(|why| PyValueError::new_err(format!("not a list of identities: {why}")))?;
        Ok(StreamSecret(Secret::Identities(list)))
    }

    fn __repr__(&self) -> &'static str {
        match self.0 {
            Secret::Key(_) => "<gcmsiv secret: key>",
            Secret::Passphrase(_) => "<gcmsiv secret: passphrase>",
            Secret::Recipients(_) | Secret::MixedRecipients(_) => "<gcmsiv secret: recipients>",
            Secret::Identities(_) => "<gcmsiv secret: identities>",
        }
    }
}

/// Writes a new file: `push` and `finish` pass its bytes to `write`, a callable that
/// writes all of them.
#[pyclass(module = "gcmsiv._gcmsiv", name = "_SealStream")]
pub struct PySealStream {
    /// `None` once finished.
    inner: Option<SealStream>,
    out: Vec<u8>,
}

#[pymethods]
impl PySealStream {
    /// Derives the file's keys (Argon2id at `argon2_cost`, `(memory_kib, iterations,
    /// lanes)`, for a passphrase) and makes its header.
    #[new]
    #[pyo3(signature = (secret, chunk_size, algorithm, argon2_cost=None))]
    fn new(
        py: Python<'_>,
        secret: &StreamSecret,
        chunk_size: usize,
        algorithm: &str,
        argon2_cost: Option<(u32, u32, u32)>,
    ) -> PyResult<Self> {
        let algorithm = match algorithm {
            "aes256" => Algorithm::Aes256GcmSiv,
            "aes128" => Algorithm::Aes128GcmSiv,
            _ => return Err(PyValueError::new_err("algorithm must be 'aes256' or 'aes128'")),
        };
        let mut options = Options::new().algorithm(algorithm).chunk_size(chunk_size).map_err(stream_err)?;
        if let Some((memory_kib, iterations, lanes)) = argon2_cost {
            options =
                options.argon2_cost(Argon2Cost { memory_kib, iterations, lanes }).map_err(stream_err)?;
        }
        let secret = &secret.0;
        let inner = run(py, || SealStream::new(secret, &options))?.map_err(stream_err)?;
        Ok(PySealStream { inner: Some(inner), out: Vec::new() })
    }

    /// Takes plaintext (any buffer of bytes); passes the file bytes it completes to
    /// `write`, a piece at a time.
    fn push(&mut self, py: Python<'_>, data: ByteView<'_>, write: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut at = 0;
        while at < data.len() {
            let n = PUSH_PIECE.min(data.len() - at);
            let piece: Cow<'_, [u8]> = match data.immutable() {
                Some(bytes) => Cow::Borrowed(&bytes[at..at + n]),
                None => {
                    // Copied under the GIL: Python code may change the buffer.
                    let mut copy = vec![0u8; n];
                    data.copy_to(at, &mut copy);
                    Cow::Owned(copy)
                }
            };
            let inner = self.inner.as_mut().ok_or_else(finished)?;
            let out = &mut self.out;
            out.clear();
            run(py, || inner.push(&piece, out))?.map_err(stream_err)?;
            if !self.out.is_empty() {
                write.call1((PyBytes::new(py, &self.out),))?;
            }
            at += n;
        }
        Ok(())
    }

    /// Seals the final chunk and passes the rest of the file to `write`.
    fn finish(&mut self, py: Python<'_>, write: &Bound<'_, PyAny>) -> PyResult<()> {
        let inner = self.inner.take().ok_or_else(finished)?;
        let out = &mut self.out;
        out.clear();
        run(py, || inner.finish(out))?.map_err(stream_err)?;
        write.call1((PyBytes::new(py, &self.out),))?;
        Ok(())
    }
}

fn finished() -> PyErr {
    PyValueError::new_err("the file is finished")
}

/// Reads a file in order: `push` takes its bytes and returns the authenticated plaintext
/// of the chunks they complete, with the failure met, if any.
#[pyclass(module = "gcmsiv._gcmsiv", name = "_OpenStream")]
pub struct PyOpenStream {
    inner: OpenStream,
    out: Zeroizing<Vec<u8>>,
}

#[pymethods]
impl PyOpenStream {
    #[new]
    fn new(secret: &StreamSecret) -> Self {
        PyOpenStream { inner: OpenStream::new(&secret.0), out: Zeroizing::new(Vec::new()) }
    }

    /// `(plaintext, error)`: the plaintext of the chunks completed and authenticated, and
    /// the exception for the failure met (then and at every later push), or `None`.
    fn push<'py>(
        &mut self,
        py: Python<'py>,
        data: ByteView<'_>,
    ) -> PyResult<(Bound<'py, PyBytes>, Option<Py<PyAny>>)> {
        let bytes = data.snapshot();
        let (inner, out) = (&mut self.inner, &mut self.out);
        out.clear();
        // Room for every chunk the push can complete: no reallocation leaves plaintext behind.
        out.reserve(bytes.len() + (4 << 20));
        let result = run(py, || inner.push(&bytes, out))?;
        let plaintext = PyBytes::new(py, &self.out);
        Ok((plaintext, result.err().map(|e| err_value(py, e))))
    }

    /// At the end of the input: `None` if the file ended after its final chunk, else the
    /// exception (truncated, or the failure already met).
    fn finish(&mut self, py: Python<'_>) -> Option<Py<PyAny>> {
        self.inner.finish().err().map(|e| err_value(py, e))
    }
}

/// Random access into a file whose bytes the caller reads: see `RandomAccess`.
#[pyclass(module = "gcmsiv._gcmsiv", name = "_RandomAccess")]
pub struct PyRandomAccess {
    inner: RandomAccess,
}

#[pymethods]
impl PyRandomAccess {
    /// Checks the header (the file's first bytes, 86 or more) with `secret` (Argon2id
    /// at the header's cost for a passphrase); `file_len` is the size of the whole file.
    #[new]
    fn new(py: Python<'_>, header: ByteView<'_>, file_len: u64, secret: &StreamSecret) -> PyResult<Self> {
        let header = header.snapshot();
        let secret = &secret.0;
        let inner = run(py, || RandomAccess::new(&header, file_len, secret))?.map_err(stream_err)?;
        Ok(PyRandomAccess { inner })
    }

    /// Plaintext bytes per chunk.
    #[getter]
    fn chunk_size(&self) -> usize {
        self.inner.header().chunk_size()
    }

    /// `(offset, length)` of the final chunk in the file: what `verify_final` takes.
    fn final_chunk(&self) -> (u64, u64) {
        self.inner.final_chunk()
    }

    /// Authenticates the final chunk; returns the plaintext length.
    fn verify_final(&mut self, py: Python<'_>, stored: ByteView<'_>) -> PyResult<u64> {
        let stored = stored.snapshot();
        let inner = &mut self.inner;
        run(py, || inner.verify_final(&stored))?.map_err(stream_err)
    }

    /// `(first_chunk, file_offset, file_len, skip)`: the stored bytes that hold plaintext
    /// `offset..offset + length`, or `None` if that range is empty.
    fn span(&self, offset: u64, length: u64) -> Option<(u64, u64, u64, u64)> {
        self.inner.span(offset, length).map(|s| (s.first_chunk, s.file_offset, s.file_len, s.skip))
    }

    /// `(plaintext, error)`: the plaintext of the whole chunks in `stored` (from chunk
    /// `first_chunk`) that authenticated before any failure, and the exception for that
    /// failure, or `None`.
    fn open<'py>(
        &self,
        py: Python<'py>,
        first_chunk: u64,
        stored: ByteView<'_>,
    ) -> PyResult<(Bound<'py, PyBytes>, Option<Py<PyAny>>)> {
        let stored = stored.snapshot();
        let mut out = Zeroizing::new(Vec::with_capacity(stored.len()));
        let inner = &self.inner;
        let result = run(py, || inner.open(first_chunk, &stored, &mut out))?;
        Ok((PyBytes::new(py, &out), result.err().map(|e| err_value(py, e))))
    }
}

/// A new identity of `kind` (`"x25519"` or `"hybrid"`, ML-KEM-768 with X25519):
/// `(identity, recipient)` strings; keep the identity secret.
#[pyfunction]
#[pyo3(signature = (kind = "x25519"))]
fn generate_identity(kind: &str) -> PyResult<(String, String)> {
    let kind = match kind {
        "x25519" => RecipientKind::X25519,
        "hybrid" => RecipientKind::Hybrid,
        other => return Err(PyValueError::new_err(format!("kind is 'x25519' or 'hybrid', not {other:?}"))),
    };
    let identity = Identity::generate(kind).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((identity.to_secret_string().to_string(), identity.recipient().to_string()))
}

/// The recipient string of one identity string.
#[pyfunction]
fn identity_recipient(identity: &str) -> PyResult<String> {
    let identity =
        Identity::parse(identity).map_err(|why| PyValueError::new_err(format!("not an identity: {why}")))?;
    Ok(identity.recipient().to_string())
}

/// How long the header of the file starting with `prefix` is, as far as `prefix`
/// tells (read until it is at most what was read).
#[pyfunction]
fn _stream_header_needed(prefix: &[u8]) -> PyResult<usize> {
    Header::needed(prefix).map_err(|e| stream_err(Error::Decode(e)))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(generate_identity, m)?)?;
    m.add_function(wrap_pyfunction!(identity_recipient, m)?)?;
    m.add_function(wrap_pyfunction!(_stream_header_needed, m)?)?;
    m.add_class::<StreamSecret>()?;
    m.add_class::<PySealStream>()?;
    m.add_class::<PyOpenStream>()?;
    m.add_class::<PyRandomAccess>()?;
    m.add("_STREAM_HEADER_LEN", HEADER_LEN)?;
    Ok(())
}
