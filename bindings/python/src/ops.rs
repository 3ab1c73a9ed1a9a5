//! The calls, written once for both classes: check inputs in pyca/cryptography's order,
//! copy what Python code could change, run the cipher (without the GIL above a size),
//! and build the result.

use crate::InvalidTag;
use crate::buffer::{ByteView, NewBytes, OutBuffer, Pending};
use crate::pyca::{NONCE_MAX, TAG_LEN, check_nonce, to_py_err};
use gcmsiv::{Cipher, Error};
use gcmsiv_glue::{Message, open_batch, seal_batch, with_scratch};
use pyo3::exceptions::{PyMemoryError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use std::borrow::Cow;

/// Bytes of data plus associated data from which a call releases the GIL. Below it,
/// releasing and taking back the GIL costs more than the time other threads would gain.
pub(crate) const GIL_RELEASE_BYTES: usize = 4096;

/// Bytes of messages a batch copies in before the cipher runs over them: small enough
/// that the copies are still in cache, large enough for the core's batch path.
const GROUP_BYTES: usize = 64 * 1024;

/// Work charged to each message of a batch for its fixed cost (per-nonce key derivation,
/// tag), in bytes of data that take as long.
const PER_MESSAGE_WORK: usize = 256;

/// A nonce copied out of Python memory, its length already checked.
struct Nonce {
    bytes: [u8; NONCE_MAX],
    len: usize,
}

impl Nonce {
    fn read(cipher: &Cipher, view: &ByteView<'_>) -> PyResult<Self> {
        check_nonce(cipher, view.len())?;
        let mut bytes = [0u8; NONCE_MAX];
        view.copy_to(0, &mut bytes[..view.len()]);
        Ok(Nonce { bytes, len: view.len() })
    }

    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Runs `$call`, the cipher's part of a call (a `Result<_, Error>`), without the GIL if
/// `$work` bytes make that worth it, and turns its error into the Python exception. A macro,
/// so that below the threshold the call is written in place: a closure called from two
/// branches stays out of line (PERFORMANCE-HISTORY.md, `bindings`). A panic needs no guard of
/// ours: pyo3 carries it across `py.detach`, and its trampoline raises `PanicException`.
macro_rules! run {
    ($py:expr, $work:expr, $call:expr) => {{
        let result = if $work < GIL_RELEASE_BYTES { $call } else { $py.detach(|| $call) };
        result.map_err(to_py_err)
    }};
}

/// Associated data safe to read without the GIL; `None` is empty, as in pyca.
fn associated_data<'a>(aad: Option<&'a ByteView<'_>>) -> Cow<'a, [u8]> {
    aad.map_or(Cow::Borrowed(&[][..]), ByteView::snapshot)
}

fn buffer_size_error(needed: usize) -> PyErr {
    PyValueError::new_err(format!("buffer must be {needed} bytes"))
}

/// Splits ciphertext || tag: the body length and the tag, or `InvalidTag` when the input
/// is shorter than a tag (pyca's answer too).
fn split_tag(data: &ByteView<'_>) -> PyResult<(usize, [u8; TAG_LEN])> {
    let body_len = data.len().checked_sub(TAG_LEN).ok_or_else(|| InvalidTag::new_err(()))?;
    let mut tag = [0u8; TAG_LEN];
    data.copy_to(body_len, &mut tag);
    Ok((body_len, tag))
}

// The single calls are inlined into each class's method: one copy shared by both classes
// would move the 136-byte `Nonce` twice per call.

#[inline(always)]
pub(crate) fn encrypt<'py>(
    py: Python<'py>,
    cipher: &Cipher,
    nonce: &ByteView<'_>,
    data: &ByteView<'_>,
    aad: Option<&ByteView<'_>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let nonce = Nonce::read(cipher, nonce)?;
    let aad = associated_data(aad);
    let len = data.len();
    let mut out = NewBytes::new(py, len + TAG_LEN)?;
    let pending = out.fill_from(data, 0, len);
    run!(py, len + aad.len(), seal_new(cipher, &nonce, &aad, pending.finish()))?;
    Ok(out.into_bytes())
}

/// Seals `buffer`, plaintext then room for the tag, in place.
fn seal_new(cipher: &Cipher, nonce: &Nonce, aad: &[u8], buffer: &mut [u8]) -> Result<(), Error> {
    let (body, tag) = buffer.split_at_mut(buffer.len() - TAG_LEN);
    cipher.encrypt_in_place_detached(nonce.as_slice(), aad, body, tag)
}

#[inline(always)]
pub(crate) fn decrypt<'py>(
    py: Python<'py>,
    cipher: &Cipher,
    nonce: &ByteView<'_>,
    data: &ByteView<'_>,
    aad: Option<&ByteView<'_>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let nonce = Nonce::read(cipher, nonce)?;
    let (len, tag) = split_tag(data)?;
    let aad = associated_data(aad);
    let mut out = NewBytes::new(py, len)?;
    let pending = out.fill_from(data, 0, len);
    run!(
        py,
        len + aad.len(),
        cipher.decrypt_in_place_detached(nonce.as_slice(), &aad, pending.finish(), &tag)
    )?;
    Ok(out.into_bytes())
}

#[inline(always)]
pub(crate) fn encrypt_into(
    py: Python<'_>,
    cipher: &Cipher,
    nonce: &ByteView<'_>,
    data: &ByteView<'_>,
    aad: Option<&ByteView<'_>>,
    out: &mut OutBuffer,
) -> PyResult<usize> {
    let nonce = Nonce::read(cipher, nonce)?;
    let len = data.len();
    let needed = len + TAG_LEN;
    if out.len() != needed {
        return Err(buffer_size_error(needed));
    }
    // Every input is read before `out` is written: any of them may be a view of it.
    let aad = associated_data(aad);
    let pending = out.fill_from(data, 0, len);
    run!(py, len + aad.len(), seal_new(cipher, &nonce, &aad, pending.finish()))?;
    Ok(needed)
}

#[inline(always)]
pub(crate) fn decrypt_into(
    py: Python<'_>,
    cipher: &Cipher,
    nonce: &ByteView<'_>,
    data: &ByteView<'_>,
    aad: Option<&ByteView<'_>>,
    out: &mut OutBuffer,
) -> PyResult<usize> {
    let nonce = Nonce::read(cipher, nonce)?;
    let (len, tag) = split_tag(data)?;
    if out.len() != len {
        return Err(buffer_size_error(len));
    }
    let aad = associated_data(aad);
    if len + aad.len() < GIL_RELEASE_BYTES {
        // In the caller's buffer, under the GIL throughout: no Python thread runs while it
        // holds plaintext not yet authenticated. On failure the core puts the ciphertext
        // back (pyca leaves the plaintext there), and a buffer that shares memory with
        // `data` loses nothing.
        let pending = out.fill_from(data, 0, len);
        cipher
            .decrypt_in_place_detached(nonce.as_slice(), &aad, pending.finish(), &tag)
            .map_err(to_py_err)?;
        return Ok(len);
    }
    // Without the GIL other threads run, and could read the caller's buffer while the
    // core decrypts ahead of its tag check: the decryption runs in this thread's scratch
    // memory (the glue's, wiped after use), and the buffer gets the plaintext if
    // authentic, else the ciphertext again.
    let mut open_copy = |scratch: &mut [u8]| {
        let opened = cipher.decrypt_in_place_detached(nonce.as_slice(), &aad, scratch, &tag);
        out.copy_from(scratch);
        opened
    };
    let opened = match data.immutable() {
        // A `bytes` input: everything without the GIL, the scratch buffer's set-up too.
        Some(bytes) => py.detach(|| {
            with_scratch(len, |scratch| {
                scratch.copy_from_slice(&bytes[..len]);
                open_copy(scratch)
            })
        }),
        // Any other is copied under the GIL, as Python code could change it.
        None => with_scratch(len, |scratch| {
            data.copy_to(0, scratch);
            py.detach(|| open_copy(scratch))
        }),
    };
    opened.ok_or_else(|| PyMemoryError::new_err(()))?.map_err(to_py_err)?;
    Ok(len)
}

/// The items of a batch call, read and checked before any work.
struct Batch<'py> {
    nonces: Vec<Nonce>,
    data: Vec<ByteView<'py>>,
    aad: Vec<Option<ByteView<'py>>>,
}

impl<'py> Batch<'py> {
    /// Reads `(nonce, data, associated_data)` tuples from any iterable. Errors name the
    /// item, and keep the exception type a single call would raise.
    fn read(cipher: &Cipher, items: &Bound<'py, PyAny>) -> PyResult<Self> {
        let capacity = items.len().unwrap_or(0);
        let mut batch = Batch {
            nonces: Vec::with_capacity(capacity),
            data: Vec::with_capacity(capacity),
            aad: Vec::with_capacity(capacity),
        };
        for (i, item) in items.try_iter()?.enumerate() {
            let item = item?;
            let tuple = item.cast::<PyTuple>().ok().filter(|t| t.len() == 3).ok_or_else(|| {
                PyTypeError::new_err(format!("items[{i}] must be a (nonce, data, associated_data) tuple"))
            })?;
            let at = |field: &'static str| move |e: PyErr| locate(items.py(), e, i, field);
            let nonce: ByteView<'py> = tuple.get_borrowed_item(0)?.extract().map_err(at("nonce"))?;
            let data: ByteView<'py> = tuple.get_borrowed_item(1)?.extract().map_err(at("data"))?;
            let aad: Option<ByteView<'py>> =
                tuple.get_borrowed_item(2)?.extract().map_err(at("associated_data"))?;
            batch.nonces.push(Nonce::read(cipher, &nonce).map_err(at("nonce"))?);
            // Copied now if they are not `bytes`: the iterable may change them before
            // it yields the next item (a generator refilling one `bytearray`).
            batch.data.push(data.into_private());
            batch.aad.push(aad.map(ByteView::into_private));
        }
        Ok(batch)
    }

    /// Associated data safe to read without the GIL, one per item.
    fn aad_snapshots(&self) -> Vec<Cow<'_, [u8]>> {
        self.aad.iter().map(|aad| associated_data(aad.as_ref())).collect()
    }

    fn work(&self, aad: &[Cow<'_, [u8]>]) -> usize {
        let data: usize = self.data.iter().map(ByteView::len).sum();
        let aad: usize = aad.iter().map(|a| a.len()).sum();
        data + aad + PER_MESSAGE_WORK * self.nonces.len()
    }
}

/// The same exception, its message prefixed with the failing item and field.
fn locate(py: Python<'_>, error: PyErr, index: usize, field: &str) -> PyErr {
    let message = format!("items[{index}] {field}: {}", error.value(py));
    PyErr::from_type(error.get_type(py), message)
}

pub(crate) fn encrypt_many<'py>(
    py: Python<'py>,
    cipher: &Cipher,
    items: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let batch = Batch::read(cipher, items)?;
    let aad = batch.aad_snapshots();
    let work = batch.work(&aad);
    let mut outs = batch
        .data
        .iter()
        .map(|data| NewBytes::new(py, data.len() + TAG_LEN))
        .collect::<PyResult<Vec<_>>>()?;
    let pending: Vec<Pending<'_>> =
        outs.iter_mut().zip(&batch.data).map(|(out, data)| out.fill_from(data, 0, data.len())).collect();
    run!(py, work, seal_groups(cipher, &batch.nonces, &aad, pending))?;
    PyList::new(py, outs.into_iter().map(NewBytes::into_bytes))
}

/// Copies each plaintext in and seals it in place, the tag after it, in groups of about
/// [`GROUP_BYTES`] (the glue's batch call: AES-GCM-SIV through the core's batch path).
fn seal_groups(
    cipher: &Cipher,
    nonces: &[Nonce],
    aad: &[Cow<'_, [u8]>],
    outs: Vec<Pending<'_>>,
) -> Result<(), Error> {
    let mut group = Vec::new();
    let mut group_bytes = 0;
    for ((nonce, aad), pending) in nonces.iter().zip(aad).zip(outs) {
        let buffer = pending.finish();
        group_bytes += buffer.len();
        let (body, tag) = buffer.split_at_mut(buffer.len() - TAG_LEN);
        group.push(Message { nonce: nonce.as_slice(), aad, body, tag });
        if group_bytes >= GROUP_BYTES {
            seal_batch(cipher, &mut group)?;
            group.clear();
            group_bytes = 0;
        }
    }
    seal_batch(cipher, &mut group)
}

pub(crate) fn decrypt_many<'py>(
    py: Python<'py>,
    cipher: &Cipher,
    items: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let batch = Batch::read(cipher, items)?;
    let aad = batch.aad_snapshots();
    let work = batch.work(&aad);
    // A ciphertext shorter than a tag fails like a wrong tag: `None`, and no work.
    let mut outs = Vec::with_capacity(batch.data.len());
    for data in &batch.data {
        outs.push(match data.len().checked_sub(TAG_LEN) {
            Some(len) => {
                let mut tag = [0u8; TAG_LEN];
                data.copy_to(len, &mut tag);
                Some((NewBytes::new(py, len)?, tag))
            }
            None => None,
        });
    }
    let pending: Vec<Option<(Pending<'_>, &mut [u8; TAG_LEN])>> = outs
        .iter_mut()
        .zip(&batch.data)
        .map(|(out, data)| out.as_mut().map(|(out, tag)| (out.fill_from(data, 0, data.len() - TAG_LEN), tag)))
        .collect();
    let authentic = run!(py, work, open_groups(cipher, &batch.nonces, &aad, pending))?;
    // `authentic` has one entry per item that had a tag, in order.
    let mut authentic = authentic.into_iter();
    let results = outs.into_iter().map(|job| {
        let (out, _) = job?;
        authentic.next().expect("internal error: one result per message").then(|| out.into_bytes().into_any())
    });
    PyList::new(py, results)
}

/// Copies each ciphertext in and opens it in place, in groups of about [`GROUP_BYTES`]:
/// whether each item that had a tag (`Some`) was authentic, in order.
fn open_groups(
    cipher: &Cipher,
    nonces: &[Nonce],
    aad: &[Cow<'_, [u8]>],
    outs: Vec<Option<(Pending<'_>, &mut [u8; TAG_LEN])>>,
) -> Result<Vec<bool>, Error> {
    let mut authentic = Vec::with_capacity(nonces.len());
    let mut group = Vec::new();
    let mut group_bytes = 0;
    for ((nonce, aad), job) in nonces.iter().zip(aad).zip(outs) {
        let Some((pending, tag)) = job else { continue };
        let body = pending.finish();
        group_bytes += body.len();
        group.push(Message { nonce: nonce.as_slice(), aad, body, tag });
        if group_bytes >= GROUP_BYTES {
            authentic.extend(open_batch(cipher, &mut group)?);
            group.clear();
            group_bytes = 0;
        }
    }
    authentic.extend(open_batch(cipher, &mut group)?);
    Ok(authentic)
}
