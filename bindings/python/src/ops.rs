//! The calls, written once for both classes: check inputs in pyca/cryptography's order,
//! copy what Python code could change, run the cipher (without the GIL above a size),
//! and build the result.

use crate::InvalidTag;
use crate::buffer::{ByteView, NewBytes, OutBuffer, Pending};
use crate::cipher::{Aead, NONCE_MAX, OpenJob, SealJob, TAG_LEN, to_py_err};
use gcmsiv::Error;
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
    fn read<C: Aead>(view: &ByteView<'_>) -> PyResult<Self> {
        C::check_nonce(view.len())?;
        let mut bytes = [0u8; NONCE_MAX];
        view.copy_to(0, &mut bytes[..view.len()]);
        Ok(Nonce { bytes, len: view.len() })
    }

    fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Runs `f`, without the GIL if `work` bytes make that worth it.
fn run<T: Send>(py: Python<'_>, work: usize, f: impl Send + FnOnce() -> T) -> T {
    if work >= GIL_RELEASE_BYTES { py.detach(f) } else { f() }
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

pub(crate) fn encrypt<'py, C: Aead>(
    py: Python<'py>,
    cipher: &C,
    nonce: &ByteView<'_>,
    data: &ByteView<'_>,
    aad: Option<&ByteView<'_>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let nonce = Nonce::read::<C>(nonce)?;
    let aad = associated_data(aad);
    let len = data.len();
    let mut out = NewBytes::new(py, len + TAG_LEN)?;
    let pending = out.fill_from(data, 0, len);
    run(py, len + aad.len(), || seal_new(cipher, &nonce, &aad, pending.finish())).map_err(to_py_err)?;
    Ok(out.into_bytes())
}

/// Seals `buffer`, plaintext then room for the tag, in place.
fn seal_new<C: Aead>(cipher: &C, nonce: &Nonce, aad: &[u8], buffer: &mut [u8]) -> Result<(), Error> {
    let (body, tag_slot) = buffer.split_at_mut(buffer.len() - TAG_LEN);
    tag_slot.copy_from_slice(&cipher.seal(nonce.as_slice(), aad, body)?);
    Ok(())
}

pub(crate) fn decrypt<'py, C: Aead>(
    py: Python<'py>,
    cipher: &C,
    nonce: &ByteView<'_>,
    data: &ByteView<'_>,
    aad: Option<&ByteView<'_>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let nonce = Nonce::read::<C>(nonce)?;
    let (len, tag) = split_tag(data)?;
    let aad = associated_data(aad);
    let mut out = NewBytes::new(py, len)?;
    let pending = out.fill_from(data, 0, len);
    run(py, len + aad.len(), || cipher.open(nonce.as_slice(), &aad, pending.finish(), &tag))
        .map_err(to_py_err)?;
    Ok(out.into_bytes())
}

pub(crate) fn encrypt_into<C: Aead>(
    py: Python<'_>,
    cipher: &C,
    nonce: &ByteView<'_>,
    data: &ByteView<'_>,
    aad: Option<&ByteView<'_>>,
    out: &mut OutBuffer,
) -> PyResult<usize> {
    let nonce = Nonce::read::<C>(nonce)?;
    let len = data.len();
    let needed = len + TAG_LEN;
    if out.len() != needed {
        return Err(buffer_size_error(needed));
    }
    // Every input is read before `out` is written: any of them may be a view of it.
    let aad = associated_data(aad);
    let pending = out.fill_from(data, 0, len);
    run(py, len + aad.len(), || seal_new(cipher, &nonce, &aad, pending.finish())).map_err(to_py_err)?;
    Ok(needed)
}

pub(crate) fn decrypt_into<C: Aead>(
    py: Python<'_>,
    cipher: &C,
    nonce: &ByteView<'_>,
    data: &ByteView<'_>,
    aad: Option<&ByteView<'_>>,
    out: &mut OutBuffer,
) -> PyResult<usize> {
    let nonce = Nonce::read::<C>(nonce)?;
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
        cipher.open(nonce.as_slice(), &aad, pending.finish(), &tag).map_err(to_py_err)?;
        return Ok(len);
    }
    // Without the GIL other threads run, and could read the caller's buffer while the
    // core decrypts ahead of its tag check: the decryption runs in this thread's scratch
    // memory, and the buffer gets the plaintext if authentic, else the ciphertext again.
    let mut open = |scratch: &mut [u8]| {
        let opened = cipher.open(nonce.as_slice(), &aad, scratch, &tag);
        out.copy_from(scratch);
        opened
    };
    match data.immutable() {
        // A `bytes` input: everything without the GIL, the scratch buffer's set-up too.
        Some(bytes) => py.detach(|| {
            with_scratch(len, |scratch| {
                scratch.copy_from_slice(&bytes[..len]);
                open(scratch)
            })
        }),
        // Any other is copied under the GIL, as Python code could change it.
        None => with_scratch(len, |scratch| {
            data.copy_to(0, scratch);
            py.detach(|| open(scratch))
        }),
    }?
    .map_err(to_py_err)?;
    Ok(len)
}

/// Keeps a thread's scratch buffer between `decrypt_into` calls up to this size (a fresh
/// one of a few MiB costs about as much in page faults as the decryption).
const SCRATCH_KEEP: usize = 4 << 20;

std::thread_local! {
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` on `len` bytes of this thread's scratch buffer, zeroed after (also if `f`
/// panics); `MemoryError` if that memory cannot be had.
fn with_scratch<T>(len: usize, f: impl FnOnce(&mut [u8]) -> T) -> PyResult<T> {
    /// Zeroes its bytes when dropped (a plain fill that `black_box` keeps: byte-wise
    /// volatile stores cost about as much as the decryption; the plaintext's other copy is
    /// in the caller's buffer anyway), and lets a buffer above the kept size go.
    struct Used<'a>(&'a mut Vec<u8>, usize);
    impl Drop for Used<'_> {
        fn drop(&mut self) {
            self.0[..self.1].fill(0);
            std::hint::black_box(&*self.0);
            if self.0.len() > SCRATCH_KEEP {
                *self.0 = Vec::new();
            }
        }
    }
    let mut fresh = Vec::new();
    SCRATCH.with(|cell| {
        let mut kept = cell.try_borrow_mut();
        let buf = match kept.as_deref_mut() {
            Ok(buf) => buf,
            Err(_) => &mut fresh, // reentered (no path does): a buffer of its own
        };
        if buf.len() < len {
            buf.try_reserve_exact(len - buf.len()).map_err(|_| PyMemoryError::new_err(()))?;
            buf.resize(len, 0);
        }
        let used = Used(buf, len);
        Ok(f(&mut used.0[..len]))
    })
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
    fn read<C: Aead>(items: &Bound<'py, PyAny>) -> PyResult<Self> {
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
            batch.nonces.push(Nonce::read::<C>(&nonce).map_err(at("nonce"))?);
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

pub(crate) fn encrypt_many<'py, C: Aead>(
    py: Python<'py>,
    cipher: &C,
    items: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let batch = Batch::read::<C>(items)?;
    let aad = batch.aad_snapshots();
    let work = batch.work(&aad);
    let mut outs = batch
        .data
        .iter()
        .map(|data| NewBytes::new(py, data.len() + TAG_LEN))
        .collect::<PyResult<Vec<_>>>()?;
    let pending: Vec<Pending<'_>> =
        outs.iter_mut().zip(&batch.data).map(|(out, data)| out.fill_from(data, 0, data.len())).collect();
    let nonces = &batch.nonces;
    run(py, work, || {
        let mut group = Vec::new();
        let mut group_bytes = 0;
        for ((nonce, aad), pending) in nonces.iter().zip(&aad).zip(pending) {
            let buffer = pending.finish();
            group_bytes += buffer.len();
            let (body, tag) = buffer.split_at_mut(buffer.len() - TAG_LEN);
            group.push(SealJob { nonce: nonce.as_slice(), aad, body, tag });
            if group_bytes >= GROUP_BYTES {
                cipher.seal_all(&mut group)?;
                group.clear();
                group_bytes = 0;
            }
        }
        cipher.seal_all(&mut group)
    })
    .map_err(to_py_err)?;
    PyList::new(py, outs.into_iter().map(NewBytes::into_bytes))
}

pub(crate) fn decrypt_many<'py, C: Aead>(
    py: Python<'py>,
    cipher: &C,
    items: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let batch = Batch::read::<C>(items)?;
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
    let pending: Vec<Option<(Pending<'_>, [u8; TAG_LEN])>> = outs
        .iter_mut()
        .zip(&batch.data)
        .map(|(out, data)| {
            out.as_mut().map(|(out, tag)| (out.fill_from(data, 0, data.len() - TAG_LEN), *tag))
        })
        .collect();
    let nonces = &batch.nonces;
    let authentic: Vec<bool> = run(py, work, || {
        let mut authentic = Vec::with_capacity(nonces.len());
        let mut group = Vec::new();
        let mut group_bytes = 0;
        for ((nonce, aad), job) in nonces.iter().zip(&aad).zip(pending) {
            let Some((pending, tag)) = job else { continue };
            let body = pending.finish();
            group_bytes += body.len();
            group.push(OpenJob { nonce: nonce.as_slice(), aad, body, tag });
            if group_bytes >= GROUP_BYTES {
                cipher.open_all(&mut group, &mut authentic)?;
                group.clear();
                group_bytes = 0;
            }
        }
        cipher.open_all(&mut group, &mut authentic)?;
        Ok(authentic)
    })
    .map_err(to_py_err)?;
    // `authentic` has one entry per item that had a tag, in order.
    let mut authentic = authentic.into_iter();
    let results = outs.into_iter().map(|job| {
        let (out, _) = job?;
        authentic.next().expect("internal error: one result per message").then(|| out.into_bytes().into_any())
    });
    PyList::new(py, results)
}
