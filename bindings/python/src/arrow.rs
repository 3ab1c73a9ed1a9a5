//! The native half of `gcmsiv.arrow`: one call per array chunk, taking its buffers (the
//! Python half unpacks the `pyarrow` objects) and returning the result's buffers, which
//! the Python half wraps in an array. Everything is checked before the first allocation;
//! the cipher runs without the GIL, on several threads for a large chunk.

use crate::InvalidTag;
use crate::buffer::{ArrowBuffer, ByteView, FreshBuffer, init_zero};
use crate::column::{Job, NonceSource};
use crate::column_io::Mode;
use crate::column_io::{
    Aad, BadInput, Column, Layout, Sizes, Width, check, offset_at, write_offsets, write_validity,
};
use crate::pyca::{new_cipher, to_py_err};
use gcmsiv::{Algorithm, Cipher};
use pyo3::exceptions::{PyOSError, PyOverflowError, PyValueError};
use pyo3::prelude::*;
use std::borrow::Cow;

/// A chunk as the Python half passes it: its layout (0: 32-bit offsets, 1: 64-bit offsets,
/// 2: views), its offsets or views buffer, its data buffers (one, or a view array's
/// several), its validity bitmap, offset (in values) and length. Buffers may be `None` in
/// an empty array, and the bitmap in one without nulls.
type ChunkArgs = (u8, Option<ArrowBuffer>, Vec<Option<ArrowBuffer>>, Option<ArrowBuffer>, usize, usize);

/// A chunk's buffers, exported for the length of the call.
struct Chunk {
    kind: u8,
    index: Option<ArrowBuffer>,
    data: Vec<Option<ArrowBuffer>>,
    validity: Option<ArrowBuffer>,
    offset: usize,
    len: usize,
}

fn bytes(buffer: &Option<ArrowBuffer>) -> &[u8] {
    buffer.as_ref().map_or(&[], ArrowBuffer::as_slice)
}

impl Chunk {
    fn new((kind, index, data, validity, offset, len): ChunkArgs) -> Self {
        Chunk { kind, index, data, validity, offset, len }
    }

    /// The result's offset width: the input's, 64 bits for views (large_binary).
    fn width(&self) -> Width {
        if self.kind == 0 { Width::Bits32 } else { Width::Bits64 }
    }

    fn column(&self, what: &str) -> PyResult<Column<'_>> {
        let layout = match self.kind {
            0 | 1 => Layout::Offsets {
                offsets: bytes(&self.index),
                width: self.width(),
                data: self.data.first().map_or(&[], bytes),
            },
            2 => Layout::Views { views: bytes(&self.index), buffers: self.data.iter().map(bytes).collect() },
            _ => return Err(PyValueError::new_err("internal error: an unknown layout")),
        };
        let validity = self.validity.as_ref().map(ArrowBuffer::as_slice);
        Column::new(what, layout, validity, self.offset, self.len).map_err(bad_input)
    }
}

fn bad_input(bad: BadInput) -> PyErr {
    if bad.too_long { PyOverflowError::new_err(bad.message) } else { PyValueError::new_err(bad.message) }
}

fn parse_mode(mode: &str) -> PyResult<Mode> {
    match mode {
        "random" => Ok(Mode::Random),
        "deterministic" => Ok(Mode::Deterministic),
        _ => Err(PyValueError::new_err(format!("mode must be 'random' or 'deterministic', not {mode:?}"))),
    }
}

fn column_cipher(key: &ByteView<'_>) -> PyResult<Box<Cipher>> {
    new_cipher(
        key,
        [Algorithm::Aes128GcmSiv, Algorithm::Aes256GcmSiv],
        "AES-GCM-SIV key must be 128 or 256 bits (16 or 32 bytes).",
    )
}

/// Threads for a call: the caller's number, or 0 for every core this process may use.
fn thread_count(threads: usize) -> usize {
    if threads > 0 { threads } else { std::thread::available_parallelism().map_or(1, |n| n.get()) }
}

/// What one chunk's call returns: validity bitmap (`None`: no nulls), offsets and data
/// buffers, and the number of nulls.
type Result3 = (Option<Py<PyAny>>, Py<PyAny>, Py<PyAny>, usize);

/// A chunk's call, checked, with the result's offsets and data buffers allocated.
struct Prepared<'a> {
    job: Job<'a>,
    width: Width,
    sizes: Sizes,
    offsets: FreshBuffer,
    data: FreshBuffer,
}

/// Checks a seal's (`seal`) or an open's inputs whole and allocates the result: the
/// common start of both calls. `base` is the chunk's first value's index in the whole
/// array (for errors); `allocate(n)` returns a new writable buffer of `n` bytes.
#[allow(clippy::too_many_arguments)] // the call's arguments, passed on
fn prepare<'a>(
    key: &ByteView<'_>,
    mode: &str,
    values: &'a Chunk,
    aad_scalar: Option<&'a Cow<'a, [u8]>>,
    aad_column: Option<&'a Chunk>,
    base: usize,
    seal: bool,
    allocate: &Bound<'_, PyAny>,
) -> PyResult<Prepared<'a>> {
    let cipher = column_cipher(key)?;
    let mode = parse_mode(mode)?;
    let aad = match (aad_column, aad_scalar) {
        (Some(chunk), _) => Aad::Column(chunk.column("associated_data")?),
        (None, Some(bytes)) => Aad::Scalar(bytes),
        (None, None) => Aad::Scalar(&[]),
    };
    let job = Job { cipher, mode, values: values.column("the array")?, aad };
    let width = values.width();
    let sizes = check(job.mode, seal, &job.values, &job.aad, base, width).map_err(bad_input)?;
    let offsets = FreshBuffer::allocate(allocate, (job.values.len() + 1) * width.bytes())?;
    let data = FreshBuffer::allocate(allocate, sizes.data)?;
    Ok(Prepared { job, width, sizes, offsets, data })
}

/// Encrypts one chunk (see [`prepare`] for `base` and `allocate`).
#[pyfunction]
#[pyo3(signature = (key, mode, values, aad_scalar, aad_column, base, threads, allocate))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _arrow_seal(
    py: Python<'_>,
    key: ByteView<'_>,
    mode: &str,
    values: ChunkArgs,
    aad_scalar: Option<ByteView<'_>>,
    aad_column: Option<ChunkArgs>,
    base: usize,
    threads: usize,
    allocate: &Bound<'_, PyAny>,
) -> PyResult<Result3> {
    let (values, aad_column) = (Chunk::new(values), aad_column.map(Chunk::new));
    let aad_scalar = aad_scalar.as_ref().map(ByteView::snapshot);
    let prepared =
        prepare(&key, mode, &values, aad_scalar.as_ref(), aad_column.as_ref(), base, true, allocate)?;
    let Prepared { job, width, sizes, mut offsets, mut data } = prepared;
    let n = job.values.len();
    let mut validity =
        if sizes.nulls > 0 { Some(FreshBuffer::allocate(allocate, n.div_ceil(8))?) } else { None };
    let seed = match job.mode {
        Mode::Random => Some(NonceSource::seed().map_err(|e| PyOSError::new_err(e.to_string()))?),
        Mode::Deterministic => None,
    };
    let threads = thread_count(threads);
    py.detach(|| {
        if let Some(validity) = validity.as_mut() {
            write_validity(&job.values, &[], validity.as_uninit());
        }
        let offsets = write_offsets(&job.values, job.mode, true, width, offsets.as_uninit());
        job.seal(data.as_uninit(), |i| offset_at(offsets, width, i), threads, seed.as_deref())
    })
    .map_err(to_py_err)?;
    Ok((validity.map(FreshBuffer::into_object), offsets.into_object(), data.into_object(), sizes.nulls))
}

/// Decrypts one chunk, as [`_arrow_seal`] encrypts it. A value that fails authentication
/// raises `InvalidTag` (its `index` attribute: the first such value's index in the whole
/// array), with the result wiped; or, with `null_failures`, becomes a null. Returns the
/// result's buffers and the number of values that failed.
#[pyfunction]
#[pyo3(signature = (key, mode, values, aad_scalar, aad_column, base, threads, allocate, null_failures))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _arrow_open(
    py: Python<'_>,
    key: ByteView<'_>,
    mode: &str,
    values: ChunkArgs,
    aad_scalar: Option<ByteView<'_>>,
    aad_column: Option<ChunkArgs>,
    base: usize,
    threads: usize,
    allocate: &Bound<'_, PyAny>,
    null_failures: bool,
) -> PyResult<(Result3, usize)> {
    let (values, aad_column) = (Chunk::new(values), aad_column.map(Chunk::new));
    let aad_scalar = aad_scalar.as_ref().map(ByteView::snapshot);
    let prepared =
        prepare(&key, mode, &values, aad_scalar.as_ref(), aad_column.as_ref(), base, false, allocate)?;
    let Prepared { job, width, sizes, mut offsets, mut data } = prepared;
    let n = job.values.len();
    let threads = thread_count(threads);
    let failed = py
        .detach(|| {
            let offsets = write_offsets(&job.values, job.mode, false, width, offsets.as_uninit());
            job.open(data.as_uninit(), |i| offset_at(offsets, width, i), threads)
        })
        .map_err(to_py_err)?;
    if let Some(&first) = failed.first()
        && !null_failures
    {
        // No plaintext of this call outlives it, authentic or not.
        init_zero(data.as_uninit());
        let more = match failed.len() - 1 {
            0 => String::new(),
            k => format!(" (and {k} more)"),
        };
        let error = InvalidTag::new_err(format!("value {} failed authentication{more}", base + first));
        error.value(py).setattr("index", base + first)?;
        return Err(error);
    }
    let nulls = sizes.nulls + failed.len();
    let validity = if nulls > 0 {
        let mut validity = FreshBuffer::allocate(allocate, n.div_ceil(8))?;
        write_validity(&job.values, &failed, validity.as_uninit());
        Some(validity.into_object())
    } else {
        None
    };
    Ok(((validity, offsets.into_object(), data.into_object(), nulls), failed.len()))
}
