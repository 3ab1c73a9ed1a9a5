//! Bytes in from Python and out to Python, with no copy the cipher would not make anyway.
//!
//! This file holds the binding's only `unsafe` code: reading and writing memory that
//! Python lends through the buffer protocol, and filling a fresh `bytes` object.
//!
//! What keeps it sound: while a cipher runs, possibly with the GIL released, it reads and
//! writes only memory that no Python code can change. A `bytes` input is immutable, so it
//! is read where it is, and its copy into the output may wait until the GIL is released.
//! Any other input is copied under the GIL into memory only this call can see: the output
//! the cipher then works on in place (the one copy the core's one-shot calls make too), or
//! a small private buffer for a nonce, a tag or the associated data. The exception is the
//! caller's output buffer in the `*_into` calls, which the call writes with the GIL
//! released; the documentation asks callers not to touch it from another thread until the
//! call returns, the contract of every C extension that writes into a caller's buffer.

#![allow(unsafe_code)]

use pyo3::buffer::{PyBuffer, PyUntypedBuffer};
use pyo3::exceptions::{PyBufferError, PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::borrow::Cow;
use std::mem::MaybeUninit;
use std::ptr::{self, NonNull};

/// A read-only byte string from Python: a `bytes` object, or any object exporting a
/// C-contiguous buffer of unsigned bytes (`bytearray`, `memoryview`, `array.array('B')`,
/// a NumPy `uint8` array, ...). Holding one keeps the buffer exported, so its owner
/// can neither resize nor free it.
pub(crate) enum ByteView<'py> {
    Bytes(Bound<'py, PyBytes>),
    Buffer(PyBuffer<u8>),
    /// A copy of a buffer, made under the GIL ([`ByteView::into_private`]):
    /// memory only this call can see, so it may be read without the GIL.
    Private(Vec<u8>),
}

impl<'a, 'py> FromPyObject<'a, 'py> for ByteView<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(bytes) = obj.cast::<PyBytes>() {
            return Ok(ByteView::Bytes(bytes.to_owned()));
        }
        Ok(ByteView::Buffer(byte_buffer(&obj)?))
    }
}

impl ByteView<'_> {
    pub(crate) fn len(&self) -> usize {
        match self {
            ByteView::Bytes(bytes) => bytes.as_bytes().len(),
            ByteView::Buffer(buffer) => buffer.len_bytes(),
            ByteView::Private(copy) => copy.len(),
        }
    }

    fn as_ptr(&self) -> *const u8 {
        match self {
            ByteView::Bytes(bytes) => bytes.as_bytes().as_ptr(),
            ByteView::Buffer(buffer) => buffer.buf_ptr().cast_const().cast(),
            ByteView::Private(copy) => copy.as_ptr(),
        }
    }

    /// The bytes as they are now, for good: a `bytes` object as it is (immutable),
    /// any other buffer copied (and its export released). For inputs read one at a time
    /// and used later, such as a batch's items from a generator that refills one
    /// `bytearray` for each: a view would see only the last contents.
    pub(crate) fn into_private(self) -> Self {
        match self {
            ByteView::Buffer(_) => {
                let mut copy = vec![0u8; self.len()];
                self.copy_to(0, &mut copy);
                ByteView::Private(copy)
            }
            other => other,
        }
    }

    /// The bytes, if no one else can change them (a `bytes` object or a private copy).
    pub(crate) fn immutable(&self) -> Option<&[u8]> {
        match self {
            ByteView::Bytes(bytes) => Some(bytes.as_bytes()),
            ByteView::Buffer(_) => None,
            ByteView::Private(copy) => Some(copy),
        }
    }

    /// The bytes, borrowed when no one can change them (a `bytes` object), copied
    /// otherwise: safe to read with the GIL released.
    pub(crate) fn snapshot(&self) -> Cow<'_, [u8]> {
        match self.immutable() {
            Some(bytes) => Cow::Borrowed(bytes),
            None => {
                let mut copy = vec![0u8; self.len()];
                self.copy_to(0, &mut copy);
                Cow::Owned(copy)
            }
        }
    }

    /// Copies bytes `start..start + dst.len()` into `dst`, memory private to this call.
    pub(crate) fn copy_to(&self, start: usize, dst: &mut [u8]) {
        assert!(start + dst.len() <= self.len(), "internal error: copy out of range");
        if dst.is_empty() {
            return;
        }
        // SAFETY: the source range lies inside the exported buffer (asserted above), which
        // stays valid while `self` holds the export. `dst` is memory this call owns
        // (a Rust allocation or a fresh `bytes` object), so it cannot overlap Python's.
        unsafe { ptr::copy_nonoverlapping(self.as_ptr().add(start), dst.as_mut_ptr(), dst.len()) }
    }
}

/// A writable, C-contiguous buffer of unsigned bytes lent by the caller, for the
/// `*_into` calls.
pub(crate) struct OutBuffer {
    buffer: PyBuffer<u8>,
    filled: bool,
}

impl<'a, 'py> FromPyObject<'a, 'py> for OutBuffer {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let buffer = byte_buffer(&obj)?;
        if buffer.readonly() {
            return Err(PyTypeError::new_err("Buffer is not writable."));
        }
        Ok(OutBuffer { buffer, filled: false })
    }
}

impl OutBuffer {
    pub(crate) fn len(&self) -> usize {
        self.buffer.len_bytes()
    }

    /// Fills the start of this buffer with bytes `start..start + count` of `src`. From
    /// a `bytes` object, which no writable buffer can share memory with, the copy waits
    /// for [`Pending::finish`], which may run without the GIL. From any other buffer it
    /// is made now, under the GIL, as a memmove: the two may be views of the same memory
    /// (in-place encryption and decryption). Call it after every other read of this
    /// call's inputs, as any of them may be a view of this buffer too.
    pub(crate) fn fill_from<'a>(
        &'a mut self,
        src: &'a ByteView<'_>,
        start: usize,
        count: usize,
    ) -> Pending<'a> {
        let len = self.len();
        assert!(start + count <= src.len() && count <= len, "internal error: copy out of range");
        let src = match src.immutable() {
            Some(bytes) => Some(&bytes[start..start + count]),
            None => {
                if count > 0 {
                    // SAFETY: both ranges lie inside exported buffers (asserted above) that
                    // stay valid while `src` and `self` hold their exports. `ptr::copy` is a
                    // memmove, so overlap is allowed, and no Rust reference to either range
                    // is alive here.
                    unsafe { ptr::copy(src.as_ptr().add(start), self.buffer.buf_ptr().cast::<u8>(), count) }
                }
                None
            }
        };
        let dst: &mut [MaybeUninit<u8>] = if len == 0 {
            &mut []
        } else {
            // SAFETY: the buffer is writable and C-contiguous with `len` one-byte items
            // (checked in `byte_buffer` and `extract`), and stays exported while `self`
            // lives, which the returned borrow cannot outlive. This binding makes no other
            // reference to this memory: inputs were read through raw pointers, before this.
            // Another thread writing the same object during the call is a race the
            // documentation tells callers not to start.
            unsafe { std::slice::from_raw_parts_mut(self.buffer.buf_ptr().cast::<MaybeUninit<u8>>(), len) }
        };
        Pending { dst, src, count, filled: &mut self.filled }
    }
}

impl OutBuffer {
    /// Copies `src` (memory private to this call, of this buffer's length) into it.
    pub(crate) fn copy_from(&mut self, src: &[u8]) {
        assert_eq!(src.len(), self.len(), "internal error: copy of another length");
        if !src.is_empty() {
            // SAFETY: the buffer is writable and C-contiguous with `len` one-byte items
            // (checked in `byte_buffer` and `extract`) and stays exported while `self`
            // lives; `src` is private memory, which cannot overlap it.
            unsafe { ptr::copy_nonoverlapping(src.as_ptr(), self.buffer.buf_ptr().cast::<u8>(), src.len()) }
        }
    }
}

/// A `bytes` object this call creates and fills before anyone else can see it.
pub(crate) struct NewBytes<'py> {
    bytes: Bound<'py, PyBytes>,
    data: NonNull<u8>,
    len: usize,
    filled: bool,
}

impl<'py> NewBytes<'py> {
    /// A `bytes` of `len` bytes, not yet filled.
    pub(crate) fn new(py: Python<'py>, len: usize) -> PyResult<Self> {
        let size = isize::try_from(len).map_err(|_| PyOverflowError::new_err("output too large"))?;
        // SAFETY: with a null source, `PyBytes_FromStringAndSize` allocates `len` bytes
        // left uninitialised (or returns the shared empty object for `len == 0`, which
        // is never written). It returns a new reference, or null with an exception set.
        let bytes = unsafe {
            Bound::from_owned_ptr_or_err(py, pyo3::ffi::PyBytes_FromStringAndSize(ptr::null(), size))?
        };
        let bytes = bytes.cast_into::<PyBytes>().map_err(PyErr::from)?;
        // SAFETY: `bytes` is a bytes object, so `PyBytes_AsString` returns a pointer to
        // its `len` bytes of storage (plus the trailing NUL), never null.
        let data = unsafe { pyo3::ffi::PyBytes_AsString(bytes.as_ptr()) }.cast::<u8>();
        let data = NonNull::new(data).ok_or_else(|| PyErr::fetch(py))?;
        Ok(NewBytes { bytes, data, len, filled: false })
    }

    /// Fills this object with bytes `start..start + count` of `src`, then zeros. From a
    /// `bytes` object, the copy waits for [`Pending::finish`], which may run without the
    /// GIL; from any other buffer it is made now, under the GIL.
    pub(crate) fn fill_from<'a>(
        &'a mut self,
        src: &'a ByteView<'_>,
        start: usize,
        count: usize,
    ) -> Pending<'a> {
        assert!(start + count <= src.len() && count <= self.len, "internal error: copy out of range");
        // SAFETY: `data` points to `len` bytes of an object no Python code has seen yet,
        // kept alive by `self.bytes`; the borrow of `self` makes this the only reference,
        // and `MaybeUninit` makes no claim about their contents.
        let dst =
            unsafe { std::slice::from_raw_parts_mut(self.data.as_ptr().cast::<MaybeUninit<u8>>(), self.len) };
        let src = match src.immutable() {
            Some(bytes) => Some(&bytes[start..start + count]),
            None => {
                if count > 0 {
                    // SAFETY: the source range lies inside `src`'s exported buffer (asserted
                    // above), a different object from this new one, and `dst` has room for
                    // `count` bytes.
                    unsafe {
                        ptr::copy_nonoverlapping(
                            src.as_ptr().add(start),
                            dst.as_mut_ptr().cast::<u8>(),
                            count,
                        )
                    }
                }
                None
            }
        };
        Pending { dst, src, count, filled: &mut self.filled }
    }

    /// The finished object, handed to Python.
    pub(crate) fn into_bytes(self) -> Bound<'py, PyBytes> {
        assert!(self.filled, "internal error: a new bytes object returned unfilled");
        self.bytes
    }
}

/// The contents of a [`NewBytes`] on their way in. It is `Send`, so it can be finished
/// with the GIL released: it reads only an immutable `bytes`, a private copy, or nothing
/// at all.
pub(crate) struct Pending<'a> {
    dst: &'a mut [MaybeUninit<u8>],
    /// The first `count` bytes, still to copy; `None` once copied.
    src: Option<&'a [u8]>,
    count: usize,
    filled: &'a mut bool,
}

impl<'a> Pending<'a> {
    /// Writes the contents (the source, then zeros) and returns them.
    pub(crate) fn finish(self) -> &'a mut [u8] {
        let dst = self.dst.as_mut_ptr().cast::<u8>();
        let len = self.dst.len();
        // SAFETY: `dst` is valid for `len` bytes, and `count <= len` (asserted in
        // `fill_from`). `src`, if any, is `count` bytes of an immutable `bytes` object or
        // of a private copy, neither of which can overlap this new one. Afterwards every byte is initialised: the
        // first `count` by the copy (here or in `fill_from`), the rest by the zeroing, so
        // the slice may be handed out as `u8`.
        unsafe {
            if let Some(src) = self.src {
                ptr::copy_nonoverlapping(src.as_ptr(), dst, self.count);
            }
            ptr::write_bytes(dst.add(self.count), 0, len - self.count);
            *self.filled = true;
            std::slice::from_raw_parts_mut(dst, len)
        }
    }
}

/// Exports `obj`'s buffer, refusing what pyca/cryptography refuses, with the same
/// exception types: `TypeError` for an object that is not a buffer or whose items are not
/// single unsigned bytes, `BufferError` for a buffer that is not C-contiguous.
fn byte_buffer(obj: &Bound<'_, PyAny>) -> PyResult<PyBuffer<u8>> {
    let untyped = PyUntypedBuffer::get(obj)?;
    if !untyped.is_c_contiguous() {
        return Err(PyBufferError::new_err("Buffer is not contiguous."));
    }
    let format = untyped.format().to_string_lossy().into_owned();
    untyped.into_typed::<u8>().map_err(|_| {
        PyTypeError::new_err(format!(
            "expected a buffer of unsigned bytes (format 'B'), got format '{format}'"
        ))
    })
}

/// A buffer of an Arrow array (a `pyarrow.Buffer`: validity bits, offsets or values),
/// read in place, without a copy, and without the GIL.
///
/// Why that is sound where [`ByteView`] copies: an Arrow array's buffers are immutable
/// once the array exists (the format's contract, on which pyarrow's own compute kernels
/// read them without the GIL too), and the export held here keeps the memory alive. Code
/// that writes into an array's memory behind Arrow's back while a call reads it races
/// with every Arrow reader; here it could only make the result wrong (a decryption reads
/// ciphertexts once, into memory of its own, and checks what it read).
pub(crate) struct ArrowBuffer(PyUntypedBuffer);

impl<'a, 'py> FromPyObject<'a, 'py> for ArrowBuffer {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let buffer = PyUntypedBuffer::get(&obj)?;
        if !buffer.is_c_contiguous() || buffer.item_size() != 1 {
            return Err(PyTypeError::new_err("expected a contiguous buffer of bytes (a pyarrow.Buffer)"));
        }
        Ok(ArrowBuffer(buffer))
    }
}

impl ArrowBuffer {
    pub(crate) fn as_slice(&self) -> &[u8] {
        let len = self.0.len_bytes();
        if len == 0 {
            return &[];
        }
        // SAFETY: the buffer is C-contiguous with `len` one-byte items (checked in
        // `extract`) and stays exported while `self` lives, which the slice cannot
        // outlive. Nothing writes it while the slice lives: see the type's comment.
        unsafe { std::slice::from_raw_parts(self.0.buf_ptr().cast_const().cast::<u8>(), len) }
    }
}

/// A buffer this call allocated (`pyarrow.allocate_buffer`) and fills before it hands it
/// to anyone: written in place without the GIL, then wrapped in the result array.
pub(crate) struct FreshBuffer {
    buffer: PyUntypedBuffer,
    object: Py<PyAny>,
}

impl FreshBuffer {
    /// `allocate(len)`, which must return a new writable buffer of `len` bytes.
    pub(crate) fn allocate(allocate: &Bound<'_, PyAny>, len: usize) -> PyResult<Self> {
        let object = allocate.call1((len,))?;
        let buffer = PyUntypedBuffer::get(&object)?;
        if buffer.readonly() || !buffer.is_c_contiguous() || buffer.len_bytes() != len {
            return Err(PyTypeError::new_err("internal error: the allocator returned an unusable buffer"));
        }
        Ok(FreshBuffer { buffer, object: object.unbind() })
    }

    /// The bytes, for this call alone to write: uninitialised memory of Arrow's pool, to
    /// be written with [`init_copy`] and [`init_zero`] before the buffer is handed out.
    pub(crate) fn as_uninit(&mut self) -> &mut [MaybeUninit<u8>] {
        let len = self.buffer.len_bytes();
        if len == 0 {
            return &mut [];
        }
        // SAFETY: a writable, C-contiguous buffer of `len` bytes (checked in `allocate`),
        // exported while `self` lives. The allocator made a new object, which only this
        // call holds until `into_object`, and `&mut self` makes this the only reference.
        // `MaybeUninit` makes no claim about the contents.
        unsafe { std::slice::from_raw_parts_mut(self.buffer.buf_ptr().cast::<MaybeUninit<u8>>(), len) }
    }

    /// The filled buffer, for Python.
    pub(crate) fn into_object(self) -> Py<PyAny> {
        self.object
    }
}

/// Copies `src` into `dst`, of the same length, and returns it initialised.
pub(crate) fn init_copy<'a>(dst: &'a mut [MaybeUninit<u8>], src: &[u8]) -> &'a mut [u8] {
    assert_eq!(dst.len(), src.len(), "internal error: copy of another length");
    // SAFETY: `dst` is valid for `src.len()` bytes, a `&mut` that cannot overlap `src`;
    // after the copy every byte is initialised, so it may be handed out as `u8`.
    unsafe {
        ptr::copy_nonoverlapping(src.as_ptr(), dst.as_mut_ptr().cast::<u8>(), src.len());
        std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<u8>(), dst.len())
    }
}

/// Zeroes `dst` and returns it initialised.
pub(crate) fn init_zero(dst: &mut [MaybeUninit<u8>]) -> &mut [u8] {
    // SAFETY: `dst` is valid for its length; after the zeroing every byte is initialised.
    unsafe {
        ptr::write_bytes(dst.as_mut_ptr(), 0, dst.len());
        std::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<u8>(), dst.len())
    }
}

/// Writes `src` into `dst`, exactly `N` bytes: a fixed-size move the compiler inlines,
/// where [`init_copy`] calls `memcpy` (a nonce and a tag per value, in a column).
#[inline(always)]
pub(crate) fn init_array<'a, const N: usize>(
    dst: &'a mut [MaybeUninit<u8>],
    src: &[u8; N],
) -> &'a mut [u8; N] {
    let dst: &mut [MaybeUninit<u8>; N] = dst.try_into().expect("internal error: a slot of another length");
    let dst = dst.as_mut_ptr().cast::<[u8; N]>();
    // SAFETY: `dst` is valid for `N` bytes and aligned for `[u8; N]` (alignment 1), and
    // borrowed for `'a`; after the write every byte is initialised.
    unsafe {
        ptr::write(dst, *src);
        &mut *dst
    }
}
