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
