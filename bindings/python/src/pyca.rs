//! pyca/cryptography's rules on `gcmsiv::Cipher`: the keys and nonces each class takes,
//! refused with pyca's exceptions and messages, and the Python exception for each failure
//! of the core (the bindings' shared mapping, `gcmsiv_glue::Failure`).

use crate::InvalidTag;
use crate::buffer::ByteView;
use gcmsiv::{Algorithm, Backend, Cipher, Error};
use gcmsiv_glue::{Failure, Kind};
use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use zeroize::Zeroize;

/// Tag length of every ciphertext this package makes or opens: 16 bytes, as pyca's.
pub(crate) const TAG_LEN: usize = 16;

/// The longest nonce any class accepts (AESGCM: pyca allows 8 to 128 bytes).
pub(crate) const NONCE_MAX: usize = 128;

/// Key lengths every class accepts, in bytes: AES-128 and AES-256 (the core has no AES-192).
pub(crate) const KEY_LENS: [usize; 2] = [16, 32];

/// A key of one of a class's `algorithms` (AES-128, AES-256) for `key` (any buffer), which
/// must be 16 or 32 bytes (pyca's `key_error` otherwise), on the fastest backend; the copy
/// of the key zeroized after use. Made on the heap through `gcmsiv::scrubbed`, so no copy
/// of its schedule stays on the stack.
pub(crate) fn new_cipher(
    key: &ByteView<'_>,
    algorithms: [Algorithm; 2],
    key_error: &'static str,
) -> PyResult<Box<Cipher>> {
    let len = key.len();
    let Some(size) = KEY_LENS.iter().position(|&n| n == len) else {
        return Err(PyValueError::new_err(key_error));
    };
    let mut copy = [0u8; 32];
    key.copy_to(0, &mut copy[..len]);
    // One call, one core: the core's `parallel` feature is on (gcmsiv-stream needs it),
    // but its pool is rayon's global one, which hangs a child after os.fork().
    let cipher = gcmsiv::scrubbed(|| {
        Cipher::new(algorithms[size], &copy[..len], TAG_LEN, Backend::select())
            .map(|cipher| Box::new(cipher.with_parallel_threshold(None)))
    })
    .map_err(to_py_err);
    copy.zeroize();
    cipher
}

/// pyca's nonce-length rule for `cipher`'s class, checked before any work.
pub(crate) fn check_nonce(cipher: &Cipher, len: usize) -> PyResult<()> {
    if cipher.algorithm().is_nonce_misuse_resistant() {
        if len != gcmsiv::NONCE_LEN {
            return Err(PyValueError::new_err("Nonce must be 12 bytes long"));
        }
    } else if !(8..=NONCE_MAX).contains(&len) {
        return Err(PyValueError::new_err("Nonce must be between 8 and 128 bytes"));
    }
    Ok(())
}

/// The Python exception for an error of the core, by the kind the bindings' shared mapping
/// gives it. Every authentication failure is the one opaque `InvalidTag`, and so is a
/// ciphertext shorter than a tag; inputs over the algorithm's limits are `OverflowError`;
/// the rest `ValueError` (pyca's types).
pub(crate) fn to_py_err(error: Error) -> PyErr {
    let failure = Failure::from(error);
    match failure.kind() {
        Kind::Authentication | Kind::TooShort => InvalidTag::new_err(()),
        Kind::TooLong => PyOverflowError::new_err(format!("Data or associated data too long: {failure}")),
        _ => PyValueError::new_err(failure.to_string()),
    }
}
