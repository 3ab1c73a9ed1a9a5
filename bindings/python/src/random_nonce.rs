//! The nonce-managed calls of both classes (`encrypt_random_nonce` and the rest): the
//! core's `Cipher::*_random_nonce` calls, which draw the nonce from the operating system
//! and put it in front of ciphertext || tag. A sealed input shorter than a nonce and a
//! tag is `InvalidTag`, as any other that does not authenticate (its length is the
//! attacker's choice); a failing random source is `OSError`.

use std::borrow::Cow;

use gcmsiv::{Cipher, Error};
use pyo3::exceptions::{PyOSError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use zeroize::Zeroizing;

use crate::buffer::ByteView;
use crate::ops::GIL_RELEASE_BYTES;
use crate::pyca::to_py_err;

fn err(error: Error) -> PyErr {
    match error {
        Error::RandomSource => PyOSError::new_err("cannot get random bytes from the operating system"),
        other => to_py_err(other),
    }
}

/// Runs `call` without the GIL if `work` bytes make that worth it.
fn run<T: Send>(py: Python<'_>, work: usize, call: impl FnOnce() -> T + Send) -> T {
    if work < GIL_RELEASE_BYTES { call() } else { py.detach(call) }
}

fn aad_of<'a>(aad: Option<&'a ByteView<'_>>) -> Cow<'a, [u8]> {
    aad.map_or(Cow::Borrowed(&[][..]), ByteView::snapshot)
}

pub(crate) fn encrypt<'py>(
    py: Python<'py>,
    cipher: &Cipher,
    data: &ByteView<'_>,
    aad: Option<&ByteView<'_>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (data, aad) = (data.snapshot(), aad_of(aad));
    let sealed = run(py, data.len() + aad.len(), || cipher.encrypt_random_nonce(&aad, &data)).map_err(err)?;
    Ok(PyBytes::new(py, &sealed))
}

pub(crate) fn decrypt<'py>(
    py: Python<'py>,
    cipher: &Cipher,
    sealed: &ByteView<'_>,
    aad: Option<&ByteView<'_>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (sealed, aad) = (sealed.snapshot(), aad_of(aad));
    let plaintext = run(py, sealed.len() + aad.len(), || cipher.decrypt_random_nonce(&aad, &sealed))
        .map(Zeroizing::new)
        .map_err(err)?;
    Ok(PyBytes::new(py, &plaintext))
}

/// `(data, associated_data)` pairs from any iterable, copied if not `bytes` (the iterable
/// may change a buffer before it yields the next item). Errors name the item.
fn read_items<'py>(items: &Bound<'py, PyAny>, first: &str) -> PyResult<Vec<Item<'py>>> {
    let mut read = Vec::with_capacity(items.len().unwrap_or(0));
    for (i, item) in items.try_iter()?.enumerate() {
        let item = item?;
        let tuple = item.cast::<PyTuple>().ok().filter(|t| t.len() == 2).ok_or_else(|| {
            PyTypeError::new_err(format!("items[{i}] must be a ({first}, associated_data) tuple"))
        })?;
        let at = |field: String| {
            move |e: PyErr| {
                PyErr::from_type(
                    e.get_type(items.py()),
                    format!("items[{i}] {field}: {}", e.value(items.py())),
                )
            }
        };
        let data: ByteView<'py> = tuple.get_borrowed_item(0)?.extract().map_err(at(first.to_owned()))?;
        let aad: Option<ByteView<'py>> =
            tuple.get_borrowed_item(1)?.extract().map_err(at("associated_data".to_owned()))?;
        read.push((data.into_private(), aad.map(ByteView::into_private)));
    }
    Ok(read)
}

/// One item of a batch: data (or sealed) and the associated data, each `bytes` or a copy.
type Item<'py> = (ByteView<'py>, Option<ByteView<'py>>);

/// `(associated_data, data)` slices, as the core's batch calls take them.
type Pairs<'a> = Vec<(&'a [u8], &'a [u8])>;

fn snapshots<'a>(items: &'a [Item<'_>]) -> (Pairs<'a>, usize) {
    let mut work = 0;
    let pairs = items
        .iter()
        .map(|(data, aad)| {
            // Every item is `bytes` or a private copy (`read_items`).
            let data = data.immutable().expect("internal error: batch item not immutable");
            let aad = aad.as_ref().map_or(&[][..], |a| a.immutable().expect("internal error: batch aad"));
            work += data.len() + aad.len();
            (aad, data)
        })
        .collect();
    (pairs, work)
}

pub(crate) fn encrypt_many<'py>(
    py: Python<'py>,
    cipher: &Cipher,
    items: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let items = read_items(items, "data")?;
    let (pairs, work) = snapshots(&items);
    let sealed = run(py, work, || cipher.encrypt_random_nonce_batch(&pairs)).map_err(err)?;
    PyList::new(py, sealed.iter().map(|s| PyBytes::new(py, s)))
}

pub(crate) fn decrypt_many<'py>(
    py: Python<'py>,
    cipher: &Cipher,
    items: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let items = read_items(items, "sealed")?;
    let (pairs, work) = snapshots(&items);
    let opened = run(py, work, || cipher.decrypt_random_nonce_batch(&pairs));
    let mut results = Vec::with_capacity(opened.len());
    for result in opened {
        results.push(match result {
            Ok(plaintext) => Some(PyBytes::new(py, &Zeroizing::new(plaintext))),
            Err(Error::Authentication | Error::CiphertextTooShort) => None,
            Err(other) => return Err(err(other)),
        });
    }
    PyList::new(py, results)
}
