//! Per-column keys: `derive_column_key(master_key, column_name)`, HKDF (RFC 5869) with
//! SHA-256. The master key is the input keying material (no salt: it is already a uniformly
//! random key, the case RFC 5869 section 3.1 allows without one); the info string is a fixed
//! label, a zero byte, then the column name's bytes (a name's UTF-8 encoding), so that every
//! (label, name) pair is a distinct info string; the output has the master key's length.

use crate::buffer::ByteView;
use crate::pyca::KEY_LENS;
use hkdf::Hkdf;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use sha2::Sha256;
use zeroize::Zeroizing;

/// The label that opens every info string: a new version of the construction would take a
/// new label, so keys of the two never coincide.
const LABEL: &[u8] = b"gcmsiv arrow column key v1";

/// The info string for `column`: [`LABEL`], a zero byte, the name's bytes.
fn info(column: &[u8]) -> Vec<u8> {
    [LABEL, &[0], column].concat()
}

/// HKDF-SHA256 of `master` (16 or 32 bytes) for `column`, as many bytes as `master`.
fn derive(master: &[u8], column: &[u8]) -> Zeroizing<[u8; 32]> {
    let mut key = Zeroizing::new([0u8; 32]);
    Hkdf::<Sha256>::new(None, master)
        .expand(&info(column), &mut key[..master.len()])
        .expect("internal error: 32 bytes is far under HKDF-SHA256's output limit");
    key
}

/// Derives the key of one column from a master key: HKDF-SHA256 (RFC 5869) with the master
/// key as input keying material, no salt, and the info string
/// ``b"gcmsiv arrow column key v1" + b"\x00" + column_name`` (a ``str`` name is encoded as
/// UTF-8). Returns a key of the master key's length (16 or 32 bytes).
///
/// Equal values in two columns encrypted under their own column keys never have equal
/// ciphertexts, in deterministic mode too; and one column's key reveals nothing about the
/// master key or another column's key.
#[pyfunction]
pub(crate) fn derive_column_key<'py>(
    py: Python<'py>,
    master_key: ByteView<'_>,
    column_name: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    if !KEY_LENS.contains(&master_key.len()) {
        return Err(PyValueError::new_err("master_key must be 16 or 32 bytes (128 or 256 bits)."));
    }
    let mut master = Zeroizing::new([0u8; 32]);
    let master = &mut master[..master_key.len()];
    master_key.copy_to(0, master);
    let name: Vec<u8> = if let Ok(name) = column_name.cast::<PyString>() {
        name.to_str()?.as_bytes().to_vec()
    } else if let Ok(name) = column_name.extract::<ByteView<'_>>() {
        name.snapshot().into_owned()
    } else {
        return Err(PyTypeError::new_err("column_name must be a str or bytes"));
    };
    let key = derive(master, &name);
    Ok(PyBytes::new(py, &key[..master.len()]))
}
