//! One message per call: the grid of {encrypt, decrypt} x {combined,
//! detached}. The combined calls place the tag after the ciphertext and
//! share the detached calls' [`seal_detached`] and [`open_detached`], which
//! check overlaps, copy, and wipe what they wrote on failure. Uses
//! [`crate::key`] and [`crate::ffi`].

use crate::ffi::{
    GCMSIV_ERR_BUFFER_TOO_SMALL, GCMSIV_ERR_INTERNAL, GCMSIV_ERR_NULL_POINTER, GCMSIV_ERR_TOO_LONG,
    GCMSIV_ERR_TOO_SHORT, GCMSIV_OK, clear_of, guarded, input, output, wipe,
};
use crate::key::{GcmsivKey, key_ref};
use core::ffi::c_int;

/// Writes `len` to `*out`, if `out` is not NULL (a combined call's output
/// length: 0 until the call has succeeded).
///
/// # Safety
/// `out` is NULL or writable.
pub(crate) unsafe fn report_len(out: *mut usize, len: usize) {
    // SAFETY: the caller's contract.
    unsafe { crate::ffi::put(out, len) }
}

/// Encrypts: writes ciphertext || tag (`m_len` + tag bytes) to `c`, its
/// length to `*c_len` (if not NULL; 0 on failure). `c` may be `m` itself (in
/// place, with room for the tag); it must not otherwise overlap `m`, nor
/// overlap `ad` or `npub` at all. The detached call with the tag placed
/// after the ciphertext.
///
/// # Safety
/// Each pointer with a length covers that many bytes (readable, or writable
/// for `c`); `c_len` is NULL or writable; `key` is a live key.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_encrypt(
    c: *mut u8,
    c_cap: usize,
    c_len: *mut usize,
    m: *const u8,
    m_len: usize,
    ad: *const u8,
    ad_len: usize,
    npub: *const u8,
    npub_len: usize,
    key: *const GcmsivKey,
) -> c_int {
    // SAFETY: `c_len` is NULL or writable by the contract.
    unsafe { report_len(c_len, 0) };
    let checked = || {
        // SAFETY: the caller's contract.
        let key = unsafe { key_ref(key) }?;
        key.check_seal(npub_len, ad_len, m_len)?;
        let sealed_len = m_len.checked_add(key.tag_len()).ok_or(GCMSIV_ERR_TOO_LONG)?;
        if c_cap < sealed_len {
            return Err(GCMSIV_ERR_BUFFER_TOO_SMALL);
        }
        if c.is_null() {
            return Err(GCMSIV_ERR_NULL_POINTER);
        }
        Ok((key, sealed_len))
    };
    let (key, sealed_len) = match checked() {
        Ok(ok) => ok,
        Err(code) => return code,
    };
    let (body, tag) = (c, c.wrapping_add(m_len));
    // SAFETY: `c` covers `sealed_len` writable bytes: the body, then the tag.
    let code = unsafe { seal_detached(key, body, tag, m, m_len, ad, ad_len, npub, npub_len) };
    if code == GCMSIV_OK {
        // SAFETY: as above.
        unsafe { report_len(c_len, sealed_len) };
    }
    code
}

/// Decrypts ciphertext || tag from `c` into `m` (`c_len` - tag bytes),
/// writing that length to `*m_len` (if not NULL). On any failure `*m_len`
/// is 0 and no plaintext is released: `m` is zeroed, or, when `m` is `c`
/// (in place), holds the ciphertext again. `m` must not otherwise overlap
/// `c`, nor overlap `ad` or `npub` at all. The detached call with the tag
/// read from after the ciphertext.
///
/// # Safety
/// As [`gcmsiv_encrypt`], with `m` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_decrypt(
    m: *mut u8,
    m_cap: usize,
    m_len: *mut usize,
    c: *const u8,
    c_len: usize,
    ad: *const u8,
    ad_len: usize,
    npub: *const u8,
    npub_len: usize,
    key: *const GcmsivKey,
) -> c_int {
    // SAFETY: `m_len` is NULL or writable by the contract.
    unsafe { report_len(m_len, 0) };
    let checked = || {
        // SAFETY: the caller's contract.
        let key = unsafe { key_ref(key) }?;
        let body_len = c_len.checked_sub(key.tag_len()).ok_or(GCMSIV_ERR_TOO_SHORT)?;
        key.check_open(npub_len, ad_len, body_len)?;
        if m_cap < body_len {
            return Err(GCMSIV_ERR_BUFFER_TOO_SMALL);
        }
        // `c_len` is at least a tag, so `c` must be there.
        if c.is_null() || (m.is_null() && body_len > 0) {
            return Err(GCMSIV_ERR_NULL_POINTER);
        }
        Ok((key, body_len))
    };
    let (key, body_len) = match checked() {
        Ok(ok) => ok,
        Err(code) => return code,
    };
    let tag = c.wrapping_add(body_len);
    // SAFETY: `c` covers `c_len` readable bytes: the body, then the tag.
    let code = unsafe { open_detached(key, m, c, body_len, tag, key.tag_len(), ad, ad_len, npub, npub_len) };
    if code == GCMSIV_OK {
        // SAFETY: as above.
        unsafe { report_len(m_len, body_len) };
    }
    code
}

/// Encrypts `m_len` bytes from `m` to `c` (which may be `m`; must not
/// otherwise overlap it) and writes the tag, `mac_len` bytes (the key's tag
/// length), to `mac`. Neither output may overlap `ad`, `npub` or the other.
///
/// # Safety
/// As [`gcmsiv_encrypt`]; `mac` covers `mac_len` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_encrypt_detached(
    c: *mut u8,
    mac: *mut u8,
    mac_len: usize,
    m: *const u8,
    m_len: usize,
    ad: *const u8,
    ad_len: usize,
    npub: *const u8,
    npub_len: usize,
    key: *const GcmsivKey,
) -> c_int {
    // SAFETY: the caller's contract.
    let checked =
        unsafe { key_ref(key) }.and_then(|k| k.check_seal(npub_len, ad_len, m_len).and(k.check_mac(mac_len)));
    let key = match checked {
        Ok(key) => key,
        Err(code) => return code,
    };
    // SAFETY: the same contract.
    unsafe { seal_detached(key, c, mac, m, m_len, ad, ad_len, npub, npub_len) }
}

/// Decrypts `c_len` bytes from `c` into `m` (which may be `c`; must not
/// otherwise overlap it, nor overlap `mac`, `ad` or `npub`) if the
/// `mac_len`-byte tag at `mac` authenticates them. On failure no plaintext
/// is released: `m` is zeroed, or, in place, holds the ciphertext again.
///
/// # Safety
/// As [`gcmsiv_decrypt`]; `mac` covers `mac_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_decrypt_detached(
    m: *mut u8,
    c: *const u8,
    c_len: usize,
    mac: *const u8,
    mac_len: usize,
    ad: *const u8,
    ad_len: usize,
    npub: *const u8,
    npub_len: usize,
    key: *const GcmsivKey,
) -> c_int {
    // SAFETY: the caller's contract.
    let checked =
        unsafe { key_ref(key) }.and_then(|k| k.check_open(npub_len, ad_len, c_len).and(k.check_mac(mac_len)));
    let key = match checked {
        Ok(key) => key,
        Err(code) => return code,
    };
    // SAFETY: the same contract.
    unsafe { open_detached(key, m, c, c_len, mac, mac_len, ad, ad_len, npub, npub_len) }
}

/// Both encryptions after their length checks: the overlap checks, the seal
/// (in place, or from `m` into `c` in one pass); on failure what it wrote is
/// wiped (only an internal error can fail after it). `mac` is the key's tag
/// length.
///
/// # Safety
/// As [`gcmsiv_encrypt_detached`].
#[allow(clippy::too_many_arguments, reason = "the C calls' own arguments")]
pub(crate) unsafe fn seal_detached(
    key: &GcmsivKey,
    c: *mut u8,
    mac: *mut u8,
    m: *const u8,
    m_len: usize,
    ad: *const u8,
    ad_len: usize,
    npub: *const u8,
    npub_len: usize,
) -> c_int {
    let mac_len = key.tag_len();
    let mut written: (*mut u8, usize) = (core::ptr::null_mut(), 0);
    let code = guarded(|| {
        let in_place = core::ptr::eq(c, m) && m_len > 0;
        let m_span = if in_place { (m, 0) } else { (m, m_len) };
        clear_of(c, m_len, &[m_span, (ad, ad_len), (npub, npub_len), (mac, mac_len)])?;
        clear_of(mac, mac_len, &[(m, m_len), (ad, ad_len), (npub, npub_len)])?;
        // SAFETY (all): the caller's contract; the outputs share no byte with
        // each other or the inputs but, in place, `m`, read only through
        // `body` from here.
        let (ad, npub, m) =
            unsafe { (input(ad, ad_len)?, input(npub, npub_len)?, input(m_span.0, m_span.1)?) };
        let mac = unsafe { output(mac, mac_len) }?;
        let body = unsafe { output(c, m_len) }?;
        if in_place {
            key.seal(npub, ad, body, mac)
        } else {
            written = (body.as_mut_ptr(), m_len);
            key.seal_detached(npub, ad, m, body, mac)
        }
    });
    if code != GCMSIV_OK {
        // SAFETY: the output this call wrote.
        unsafe { wipe(written.0, written.1) };
    }
    code
}

/// Both decryptions after their length checks: the overlap checks, the
/// open (in place, or from `c` into `m` in one pass). On failure a separate
/// output is zeroed; in place, the core has put the ciphertext back, unless
/// a panic cut it short (then it is zeroed too).
///
/// # Safety
/// As [`gcmsiv_decrypt_detached`].
#[allow(clippy::too_many_arguments, reason = "the C calls' own arguments")]
pub(crate) unsafe fn open_detached(
    key: &GcmsivKey,
    m: *mut u8,
    c: *const u8,
    c_len: usize,
    mac: *const u8,
    mac_len: usize,
    ad: *const u8,
    ad_len: usize,
    npub: *const u8,
    npub_len: usize,
) -> c_int {
    let mut written: (*mut u8, usize, bool) = (core::ptr::null_mut(), 0, false);
    let code = guarded(|| {
        let in_place = core::ptr::eq(m, c) && c_len > 0;
        let c_span = if in_place { (c, 0) } else { (c, c_len) };
        clear_of(m, c_len, &[c_span, (mac, mac_len), (ad, ad_len), (npub, npub_len)])?;
        // SAFETY (all): the caller's contract; the output shares no byte with
        // the inputs but, in place, `c`, read only through `body` from here.
        let (ad, npub, mac, c) = unsafe {
            (input(ad, ad_len)?, input(npub, npub_len)?, input(mac, mac_len)?, input(c_span.0, c_span.1)?)
        };
        let body = unsafe { output(m, c_len) }?;
        written = (body.as_mut_ptr(), c_len, in_place);
        if in_place { key.open(npub, ad, body, mac) } else { key.open_detached(npub, ad, c, mac, body) }
    });
    if code != GCMSIV_OK && (!written.2 || code == GCMSIV_ERR_INTERNAL) {
        // SAFETY: the output this call wrote.
        unsafe { wipe(written.0, written.1) };
    }
    code
}
