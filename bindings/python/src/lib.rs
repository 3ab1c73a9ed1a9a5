//! Python bindings for `gcmsiv`: `AESGCMSIV` and `AESGCM` with the API of
//! pyca/cryptography's classes of the same names, plus batch calls that release the GIL.
//!
//! Both classes hold a `gcmsiv::Cipher`, the one layer every binding sits on, and share
//! the bindings' glue (`gcmsiv-glue`: the error mapping, the scratch buffer, batches; a
//! panic is left to pyo3, which raises `PanicException`). `buffer.rs` holds all the `unsafe` code (memory lent by Python's
//! buffer protocol); `pyca.rs` has pyca's key and nonce rules and exceptions; `ops.rs`
//! implements each call once for both classes.

#![deny(unsafe_code)]

// column_io (a column's layout, the modes, the checks of its values) sits
// below column (the batch work on it), which sits below arrow (the Python
// entry points): none uses one above it.
mod arrow;
mod buffer;
mod column_io;
mod column;
mod kdf;
mod pyca;
mod ops;
mod random_nonce;
mod stream;

use buffer::{ByteView, OutBuffer};
use gcmsiv::{Algorithm, Cipher};
use pyca::{KEY_LENS, new_cipher};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};

create_exception!(
    gcmsiv,
    InvalidTag,
    PyException,
    "Authentication failed: the ciphertext, tag, nonce, associated data or key is wrong.\n\n\
     Raised for every decryption failure, with no further detail. The same role as\n\
     ``cryptography.exceptions.InvalidTag``, but a separate class: gcmsiv does not depend on\n\
     pyca/cryptography. Catch both if your code must handle either."
);

/// `bit_length / 8` random bytes from `os.urandom`, as pyca's `generate_key`.
fn generate_key(py: Python<'_>, bit_length: usize) -> PyResult<Bound<'_, PyAny>> {
    if !bit_length.is_multiple_of(8) || !KEY_LENS.contains(&(bit_length / 8)) {
        return Err(PyValueError::new_err("bit_length must be 128 or 256"));
    }
    py.import("os")?.call_method1("urandom", (bit_length / 8,))
}

/// Both classes have the same methods; only the algorithms (hence the nonce rule), the
/// key error and the docstrings differ.
macro_rules! aead_class {
    (
        $name:ident, $algorithms:expr, key_error: $key_error:literal,
        class_doc: $class_doc:literal, nonce_doc: $nonce_doc:literal
    ) => {
        #[doc = $class_doc]
        #[pyclass(frozen, module = "gcmsiv")]
        pub struct $name {
            /// Boxed: Python allocates the object itself and aligns it to 16
            /// bytes, where the key's tables ask for 64 (held inline, they
            /// crashed the AES-GCM tests once the alignment went to 64).
            cipher: Box<Cipher>,
        }

        #[pymethods]
        impl $name {
            #[new]
            fn new(key: ByteView<'_>) -> PyResult<Self> {
                Ok($name { cipher: new_cipher(&key, $algorithms, $key_error)? })
            }

            /// Returns a new random key of ``bit_length`` bits (128 or 256) from
            /// ``os.urandom``.
            #[staticmethod]
            fn generate_key(py: Python<'_>, bit_length: usize) -> PyResult<Bound<'_, PyAny>> {
                generate_key(py, bit_length)
            }

            #[doc = concat!(
                        "Encrypts and authenticates ``data``, and authenticates ``associated_data``\n",
                        "(``None`` for none). Returns ciphertext || 16-byte tag as ``bytes``.\n\n",
                        $nonce_doc, "\n\n",
                        "Every argument may be any contiguous buffer of bytes. ``data`` may be empty.\n",
                        "The GIL is released while the cipher runs on 4 KiB or more.")]
            fn encrypt<'py>(
                &self,
                py: Python<'py>,
                nonce: ByteView<'_>,
                data: ByteView<'_>,
                associated_data: Option<ByteView<'_>>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                ops::encrypt(py, &*self.cipher, &nonce, &data, associated_data.as_ref())
            }

            /// Checks and decrypts ciphertext || tag, returning the plaintext as ``bytes``.
            ///
            /// Raises ``InvalidTag`` if the ciphertext, tag, nonce, associated data or key
            /// is wrong, or ``data`` is shorter than a tag. No plaintext is released then.
            fn decrypt<'py>(
                &self,
                py: Python<'py>,
                nonce: ByteView<'_>,
                data: ByteView<'_>,
                associated_data: Option<ByteView<'_>>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                ops::decrypt(py, &*self.cipher, &nonce, &data, associated_data.as_ref())
            }

            /// Like ``encrypt``, writing ciphertext || tag into ``buf``, a writable
            /// contiguous buffer of exactly ``len(data) + 16`` bytes (``ValueError``
            /// otherwise, as pyca). Returns the number of bytes written.
            ///
            /// ``buf`` may share memory with ``data`` (in-place encryption). Do not read
            /// or write ``buf`` from another thread until the call returns.
            fn encrypt_into(
                &self,
                py: Python<'_>,
                nonce: ByteView<'_>,
                data: ByteView<'_>,
                associated_data: Option<ByteView<'_>>,
                mut buf: OutBuffer,
            ) -> PyResult<usize> {
                ops::encrypt_into(py, &*self.cipher, &nonce, &data, associated_data.as_ref(), &mut buf)
            }

            /// Like ``decrypt``, writing the plaintext into ``buf``, a writable contiguous
            /// buffer of exactly ``len(data) - 16`` bytes. Returns the number of bytes
            /// written.
            ///
            /// On ``InvalidTag`` the buffer holds the ciphertext again: never
            /// unauthenticated plaintext (pyca/cryptography leaves it there). ``buf``
            /// may share memory with ``data`` (in-place decryption), which a failure
            /// then leaves as it was.
            fn decrypt_into(
                &self,
                py: Python<'_>,
                nonce: ByteView<'_>,
                data: ByteView<'_>,
                associated_data: Option<ByteView<'_>>,
                mut buf: OutBuffer,
            ) -> PyResult<usize> {
                ops::decrypt_into(py, &*self.cipher, &nonce, &data, associated_data.as_ref(), &mut buf)
            }

            /// Encrypts many messages in one call: ``items`` is an iterable of
            /// ``(nonce, data, associated_data)`` tuples, as for ``encrypt``. Returns a
            /// list of ``bytes``, one per item, in order.
            ///
            /// Every item is checked first: a bad one raises what ``encrypt`` would
            /// (message prefixed with ``items[i]``), before any encryption. The GIL is
            /// released once for the whole batch.
            fn encrypt_many<'py>(
                &self,
                py: Python<'py>,
                items: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyList>> {
                ops::encrypt_many(py, &*self.cipher, items)
            }

            /// Decrypts many messages in one call: ``items`` is an iterable of
            /// ``(nonce, data, associated_data)`` tuples, as for ``decrypt``. Returns a
            /// list with, for each item in order, the plaintext as ``bytes``, or ``None``
            /// if that item failed authentication (where ``decrypt`` raises
            /// ``InvalidTag``).
            ///
            /// Misuse (a bad nonce length, a non-buffer) raises before any work, as
            /// ``encrypt_many``. The GIL is released once for the whole batch.
            fn decrypt_many<'py>(
                &self,
                py: Python<'py>,
                items: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyList>> {
                ops::decrypt_many(py, &*self.cipher, items)
            }

            /// Encrypts ``data`` under a fresh 12-byte nonce from the operating system and
            /// returns nonce || ciphertext || tag (28 bytes more than ``data``): no nonce to
            /// choose, store or send apart. ``associated_data`` is authenticated, ``None``
            /// for none; both may be any buffer.
            ///
            /// With ``AESGCMSIV`` random nonces stay safe far past AES-GCM's 2**32 messages
            /// per key: a repeat reveals only that two messages were equal (RFC 8452
            /// section 9; the README has the limits). With ``AESGCM`` keep to 2**32
            /// messages per key. The GIL is released from 4 KiB on. ``OSError`` if the
            /// operating system has no random bytes to give.
            fn encrypt_random_nonce<'py>(
                &self,
                py: Python<'py>,
                data: ByteView<'_>,
                associated_data: Option<ByteView<'_>>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                random_nonce::encrypt(py, &self.cipher, &data, associated_data.as_ref())
            }

            /// Checks and decrypts what ``encrypt_random_nonce`` returned (nonce ||
            /// ciphertext || tag) with the same ``associated_data``; returns the plaintext.
            ///
            /// Raises ``InvalidTag`` if anything is wrong, a ``sealed`` shorter than 28
            /// bytes included. No plaintext is released then.
            fn decrypt_random_nonce<'py>(
                &self,
                py: Python<'py>,
                sealed: ByteView<'_>,
                associated_data: Option<ByteView<'_>>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                random_nonce::decrypt(py, &self.cipher, &sealed, associated_data.as_ref())
            }

            /// ``encrypt_random_nonce`` for many messages: ``items`` is an iterable of
            /// ``(data, associated_data)`` tuples. Returns a list of ``bytes`` (nonce ||
            /// ciphertext || tag), one per item, in order; one system call draws every
            /// nonce, and the GIL is released once.
            fn encrypt_random_nonce_many<'py>(
                &self,
                py: Python<'py>,
                items: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyList>> {
                random_nonce::encrypt_many(py, &self.cipher, items)
            }

            /// ``decrypt_random_nonce`` for many messages: ``items`` is an iterable of
            /// ``(sealed, associated_data)`` tuples. Returns a list with, for each item in
            /// order, the plaintext, or ``None`` if that item failed authentication (or was
            /// shorter than 28 bytes). The GIL is released once.
            fn decrypt_random_nonce_many<'py>(
                &self,
                py: Python<'py>,
                items: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyList>> {
                random_nonce::decrypt_many(py, &self.cipher, items)
            }
        }
    };
}

aead_class!(
    AESGCMSIV, [Algorithm::Aes128GcmSiv, Algorithm::Aes256GcmSiv],
    key_error: "AES-GCM-SIV key must be 128 or 256 bits.",
    class_doc: "AES-GCM-SIV (RFC 8452): authenticated encryption that survives nonce reuse.\n\n\
        ``AESGCMSIV(key)`` with a 16- or 32-byte key (any buffer); a drop-in for\n\
        ``cryptography.hazmat.primitives.ciphers.aead.AESGCMSIV``. A repeated nonce reveals\n\
        only whether two (nonce, associated data, plaintext) triples were identical.",
    nonce_doc: "``nonce`` must be 12 bytes (``ValueError`` otherwise). Use a fresh one per\n\
        message where you can; a repeat leaks only message equality."
);

aead_class!(
    AESGCM, [Algorithm::Aes128Gcm, Algorithm::Aes256Gcm],
    key_error: "AESGCM key must be 128 or 256 bits.",
    class_doc: "AES-GCM (NIST SP 800-38D) with 16-byte tags.\n\n\
        ``AESGCM(key)`` with a 16- or 32-byte key (any buffer); a drop-in for\n\
        ``cryptography.hazmat.primitives.ciphers.aead.AESGCM``. A nonce must never repeat\n\
        under one key: a repeat leaks the XOR of two plaintexts and allows forgeries.\n\
        Where nonces might repeat, use ``AESGCMSIV``.",
    nonce_doc: "``nonce`` must be 8 to 128 bytes (``ValueError`` otherwise), as in pyca; 12 is\n\
        standard and fastest. It must never repeat under this key."
);

/// The backend a new key runs on: one of :func:`backends` (``"aesni-vaes"``,
/// ``"aesni-clmul"``, ``"armv8-aes-pmull"`` or ``"portable"``), the fastest this CPU
/// runs. Chosen once per key from the CPU's features.
#[pyfunction]
fn backend() -> &'static str {
    gcmsiv::Backend::select().name()
}

/// The widest vector registers :func:`backend`'s code uses on this CPU: ``64``
/// (portable), ``128`` (aesni-clmul), ``256`` or ``512`` (aesni-vaes: 512 where
/// the CPU has AVX-512 and runs it at full clock).
#[pyfunction]
fn backend_bits() -> u32 {
    gcmsiv::Backend::select().register_bits()
}

/// Every backend this library knows, portable first, as ``(name, available)``
/// pairs: whether this CPU runs it. The library's own list, not one spelled out here.
#[pyfunction]
fn backends() -> Vec<(&'static str, bool)> {
    gcmsiv_glue::backend_names()
        .map(|name| (name, gcmsiv_glue::backend_named(name).is_some_and(|b| b.if_supported().is_some())))
        .collect()
}

#[pymodule]
fn _gcmsiv(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AESGCMSIV>()?;
    m.add_class::<AESGCM>()?;
    m.add("InvalidTag", m.py().get_type::<InvalidTag>())?;
    m.add_function(wrap_pyfunction!(backend, m)?)?;
    m.add_function(wrap_pyfunction!(backend_bits, m)?)?;
    m.add_function(wrap_pyfunction!(backends, m)?)?;
    stream::register(m)?;
    m.add_function(wrap_pyfunction!(arrow::_arrow_seal, m)?)?;
    m.add_function(wrap_pyfunction!(arrow::_arrow_open, m)?)?;
    m.add_function(wrap_pyfunction!(kdf::derive_column_key, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
