//! The plumbing under every call: the status codes, one for each kind of
//! failure the bindings' shared glue (`gcmsiv-glue`) tells apart; the glue's
//! panic guard, which keeps a panic from unwinding into C; C buffers as
//! slices; and the checks that an output shares no byte with an input. The
//! bottom module: it uses none of the others.

use core::ffi::c_int;
use gcmsiv_glue::{Failure, Kind, guard};

/// Status codes (`GCMSIV_OK`, `GCMSIV_ERR_*`).
pub const GCMSIV_OK: c_int = 0;
pub const GCMSIV_ERR_AUTHENTICATION: c_int = -1;
pub const GCMSIV_ERR_KEY_LENGTH: c_int = -2;
pub const GCMSIV_ERR_NONCE_LENGTH: c_int = -3;
pub const GCMSIV_ERR_TAG_LENGTH: c_int = -4;
pub const GCMSIV_ERR_TOO_LONG: c_int = -5;
pub const GCMSIV_ERR_TOO_SHORT: c_int = -6;
pub const GCMSIV_ERR_BUFFER_TOO_SMALL: c_int = -7;
pub const GCMSIV_ERR_BACKEND_UNAVAILABLE: c_int = -8;
pub const GCMSIV_ERR_ALGORITHM: c_int = -9;
pub const GCMSIV_ERR_NULL_POINTER: c_int = -10;
pub const GCMSIV_ERR_OVERLAP: c_int = -11;
pub const GCMSIV_ERR_INTERNAL: c_int = -12;
pub const GCMSIV_ERR_RANDOM_SOURCE: c_int = -13;
/// The streaming calls' own (`src/stream.rs`): a file that is not in the
/// format, one that ends early, an argument the format does not allow, a
/// call out of order.
pub const GCMSIV_ERR_FORMAT: c_int = -14;
pub const GCMSIV_ERR_TRUNCATED: c_int = -15;
pub const GCMSIV_ERR_INVALID: c_int = -16;
pub const GCMSIV_ERR_STATE: c_int = -17;

/// The status of a failure: of the core (a [`gcmsiv::Error`]) or a panic.
pub(crate) fn status(failure: impl Into<Failure>) -> c_int {
    match failure.into().kind() {
        Kind::Authentication => GCMSIV_ERR_AUTHENTICATION,
        Kind::KeyLength => GCMSIV_ERR_KEY_LENGTH,
        Kind::NonceLength => GCMSIV_ERR_NONCE_LENGTH,
        Kind::TagLength => GCMSIV_ERR_TAG_LENGTH,
        Kind::TooLong => GCMSIV_ERR_TOO_LONG,
        Kind::TooShort => GCMSIV_ERR_TOO_SHORT,
        Kind::BufferTooSmall => GCMSIV_ERR_BUFFER_TOO_SMALL,
        Kind::BackendUnavailable => GCMSIV_ERR_BACKEND_UNAVAILABLE,
        Kind::RandomSource => GCMSIV_ERR_RANDOM_SOURCE,
        Kind::Internal => GCMSIV_ERR_INTERNAL,
    }
}

/// Runs `body` under the glue's panic guard (a panic is
/// `GCMSIV_ERR_INTERNAL`; the decryption calls wipe their output after any
/// failure, this one included).
pub(crate) fn guarded(body: impl FnOnce() -> Result<(), c_int>) -> c_int {
    match guard(body) {
        Ok(Ok(())) => GCMSIV_OK,
        Ok(Err(code)) => code,
        Err(internal) => status(internal),
    }
}

/// A C input buffer as a slice: `len` bytes at `ptr`, which may be NULL only
/// when `len` is 0.
///
/// # Safety
/// If `len > 0`, `ptr` must point to `len` readable bytes that stay valid
/// and unchanged for `'a` (the call).
pub(crate) unsafe fn input<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], c_int> {
    if len == 0 {
        return Ok(&[]);
    }
    if ptr.is_null() {
        return Err(GCMSIV_ERR_NULL_POINTER);
    }
    if len > isize::MAX as usize {
        return Err(GCMSIV_ERR_TOO_LONG);
    }
    // SAFETY: non-null, and the caller promises `len` readable bytes.
    Ok(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// A C output buffer as a slice, as [`input`].
///
/// # Safety
/// If `len > 0`, `ptr` must point to `len` writable bytes, valid for `'a`
/// and reached through no other pointer during it.
pub(crate) unsafe fn output<'a>(ptr: *mut u8, len: usize) -> Result<&'a mut [u8], c_int> {
    if len == 0 {
        return Ok(&mut []);
    }
    if ptr.is_null() {
        return Err(GCMSIV_ERR_NULL_POINTER);
    }
    if len > isize::MAX as usize {
        return Err(GCMSIV_ERR_TOO_LONG);
    }
    // SAFETY: non-null, and the caller promises `len` writable bytes of its own.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr, len) })
}

/// Whether `[a, a + a_len)` and `[b, b + b_len)` share a byte.
fn overlap(a: *const u8, a_len: usize, b: *const u8, b_len: usize) -> bool {
    let (a, b) = (a as usize, b as usize);
    a_len > 0 && b_len > 0 && a < b.saturating_add(b_len) && b < a.saturating_add(a_len)
}

/// Fails with `GCMSIV_ERR_OVERLAP` if the output `[out, out + out_len)`
/// shares a byte with any of `inputs` (pointer, length).
pub(crate) fn clear_of(out: *const u8, out_len: usize, inputs: &[(*const u8, usize)]) -> Result<(), c_int> {
    if inputs.iter().any(|&(p, len)| overlap(out, out_len, p, len)) {
        Err(GCMSIV_ERR_OVERLAP)
    } else {
        Ok(())
    }
}

/// Zeroes `len` bytes at `ptr` (NULL: nothing).
///
/// # Safety
/// `ptr` is NULL or covers `len` writable bytes.
pub(crate) unsafe fn wipe(ptr: *mut u8, len: usize) {
    if !ptr.is_null() {
        // SAFETY: the caller's contract.
        unsafe { core::ptr::write_bytes(ptr, 0, len) };
    }
}

/// Writes `value` to `*out`, if `out` is not NULL (an output length or
/// offset; a handle's slot).
///
/// # Safety
/// `out` is NULL or points to a writable `T`.
pub(crate) unsafe fn put<T>(out: *mut T, value: T) {
    if !out.is_null() {
        // SAFETY: the caller's contract.
        unsafe { out.write(value) };
    }
}

/// A handle from C, or `GCMSIV_ERR_NULL_POINTER` for NULL.
///
/// # Safety
/// `ptr` is NULL or a live handle of this type (from [`new_handle`]), not
/// freed during `'a`.
pub(crate) unsafe fn handle_ref<'a, T>(ptr: *const T) -> Result<&'a T, c_int> {
    // SAFETY: the caller's contract.
    unsafe { ptr.as_ref() }.ok_or(GCMSIV_ERR_NULL_POINTER)
}

/// [`handle_ref`] for a call that changes the handle's state.
///
/// # Safety
/// As [`handle_ref`], and no other reference to it is live during `'a`.
pub(crate) unsafe fn handle_mut<'a, T>(ptr: *mut T) -> Result<&'a mut T, c_int> {
    // SAFETY: the caller's contract.
    unsafe { ptr.as_mut() }.ok_or(GCMSIV_ERR_NULL_POINTER)
}

/// A handle for C: `value` on the heap, owned by the caller until it hands
/// it to [`free_handle`].
pub(crate) fn new_handle<T>(value: Box<T>) -> *mut T {
    Box::into_raw(value)
}

/// Frees a handle from [`new_handle`] under the panic guard (a drop that
/// panics is swallowed: there is no status to report it in). NULL is ignored.
///
/// # Safety
/// `ptr` is NULL or from [`new_handle`] with this `T`, and not used again.
pub(crate) unsafe fn free_handle<T>(ptr: *mut T) {
    if !ptr.is_null() {
        // SAFETY: made by Box::into_raw in `new_handle`, freed once.
        let boxed = unsafe { Box::from_raw(ptr) };
        let _ = guard(|| drop(boxed));
    }
}

/// Checks that `count` items of `T` fit in an allocation: NULL only with
/// `count` 0, and at most `isize::MAX` bytes.
fn check_items<T>(ptr: *const T, count: usize) -> Result<(), c_int> {
    if ptr.is_null() {
        return Err(GCMSIV_ERR_NULL_POINTER);
    }
    if count.checked_mul(core::mem::size_of::<T>()).is_none_or(|n| n > isize::MAX as usize) {
        return Err(GCMSIV_ERR_TOO_LONG);
    }
    Ok(())
}

/// A C array of `count` items as a slice (NULL only with `count` 0).
///
/// # Safety
/// If `count > 0`, `ptr` points to `count` writable, aligned, initialized
/// items, reached through no other pointer during `'a`.
pub(crate) unsafe fn items_mut<'a, T>(ptr: *mut T, count: usize) -> Result<&'a mut [T], c_int> {
    if count == 0 {
        return Ok(&mut []);
    }
    check_items(ptr, count)?;
    // SAFETY: checked non-null and in size; the rest is the caller's contract.
    Ok(unsafe { core::slice::from_raw_parts_mut(ptr, count) })
}

/// Copies a C array of `count` plain-data items (any alignment; NULL only
/// with `count` 0).
///
/// # Safety
/// If `count > 0`, `ptr` points to `count` readable items, each valid for
/// any bits C wrote (plain data).
pub(crate) unsafe fn read_items<T>(ptr: *const T, count: usize) -> Result<Vec<T>, c_int> {
    if count == 0 {
        return Ok(Vec::new());
    }
    check_items(ptr, count)?;
    // SAFETY: checked non-null and in size; `read_unaligned` asks nothing of
    // the alignment; the items are plain data by the caller's contract.
    Ok((0..count).map(|i| unsafe { ptr.add(i).read_unaligned() }).collect())
}

/// Writes `value` to the field at byte `offset` (`core::mem::offset_of!`) of
/// item `i` of a C array, unaligned, through the raw pointer: no reference to
/// the items is made, and the item's other fields are left as they are.
///
/// # Safety
/// `ptr` covers at least `i + 1` writable items, no reference to them is
/// live, and `offset` is that of a field of type `F` in `T`.
pub(crate) unsafe fn write_field<T, F>(ptr: *mut T, i: usize, offset: usize, value: F) {
    // SAFETY: the caller's contract: in bounds, a field of type F.
    unsafe { ptr.add(i).cast::<u8>().add(offset).cast::<F>().write_unaligned(value) };
}

/// Copies `bytes` into C's buffer at `ptr`.
///
/// # Safety
/// `ptr` covers `bytes.len()` writable bytes that overlap nothing `bytes`
/// borrows.
pub(crate) unsafe fn copy_out(bytes: &[u8], ptr: *mut u8) {
    // SAFETY: the caller's contract.
    unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr, bytes.len()) };
}
