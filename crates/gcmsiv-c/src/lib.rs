//! The C ABI of gcmsiv: AES-GCM-SIV (RFC 8452) and AES-GCM (SP 800-38D) for C,
//! and for every language that calls C (Go through cgo, and the like).
//!
//! `include/gcmsiv.h` is the contract; this file implements it. The shape
//! follows libsodium: one grid of calls ({encrypt, decrypt} x {combined,
//! detached}), one argument order everywhere (output, input, associated
//! data, nonce, key last), sizes as functions so that bindings never parse
//! the header, and decryption that wipes its output and sets its length to 0
//! on failure. Every call returns an `int` status: 0 on success, a negative
//! `GCMSIV_ERR_*` otherwise; misuse (a wrong length, a NULL pointer, an
//! output that shares bytes with an input other than exactly in place) is
//! reported before any work, with the outputs untouched, and every
//! authentication failure is the one `GCMSIV_ERR_AUTHENTICATION`.
//!
//! Nothing unwinds across the boundary: each call runs under
//! `catch_unwind`, and a panic (an internal error; none is known) becomes
//! `GCMSIV_ERR_INTERNAL`, with what a decryption wrote wiped.
//!
//! The `unsafe` here is the FFI's: raw pointers from C turned into slices,
//! each conversion in [`input`] or [`output`] with the caller's contract
//! (the header's) as its proof.

use core::ffi::{c_char, c_int};
use core::panic::{AssertUnwindSafe, UnwindSafe};
use gcmsiv::{Algorithm, Backend, BatchItem, Cipher, Error};

/// Algorithm identifiers (`GCMSIV_AES_*` in the header).
pub const GCMSIV_AES_128_GCM_SIV: c_int = 1;
pub const GCMSIV_AES_256_GCM_SIV: c_int = 2;
pub const GCMSIV_AES_128_GCM: c_int = 3;
pub const GCMSIV_AES_256_GCM: c_int = 4;

/// Backend identifiers (`GCMSIV_BACKEND_*`).
pub const GCMSIV_BACKEND_AUTO: c_int = 0;
pub const GCMSIV_BACKEND_PORTABLE: c_int = 1;
pub const GCMSIV_BACKEND_AESNI_CLMUL: c_int = 2;
pub const GCMSIV_BACKEND_AESNI_VAES: c_int = 3;

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

/// Every tag this library makes is at most this long (AES-GCM keys may be
/// made for 12- to 15-byte tags; AES-GCM-SIV's are always 16).
const TAG_MAX: usize = 16;

/// A key ready for use: one algorithm, its backend chosen once.
pub struct GcmsivKey {
    cipher: Cipher,
}

fn status(error: Error) -> c_int {
    match error {
        Error::Authentication => GCMSIV_ERR_AUTHENTICATION,
        Error::InvalidKeyLength { .. } => GCMSIV_ERR_KEY_LENGTH,
        Error::InvalidNonceLength { .. } => GCMSIV_ERR_NONCE_LENGTH,
        Error::InvalidTagLength { .. } => GCMSIV_ERR_TAG_LENGTH,
        Error::PlaintextTooLong | Error::AadTooLong | Error::CiphertextTooLong => GCMSIV_ERR_TOO_LONG,
        Error::CiphertextTooShort => GCMSIV_ERR_TOO_SHORT,
        Error::BufferTooSmall { .. } => GCMSIV_ERR_BUFFER_TOO_SMALL,
        Error::BackendUnavailable => GCMSIV_ERR_BACKEND_UNAVAILABLE,
        _ => GCMSIV_ERR_INTERNAL,
    }
}

/// Runs `body` with panics caught (a panic is `GCMSIV_ERR_INTERNAL`; the
/// decryption calls wipe their output after any failure, this one included).
fn guarded(body: impl FnOnce() -> Result<(), c_int> + UnwindSafe) -> c_int {
    match std::panic::catch_unwind(body) {
        Ok(Ok(())) => GCMSIV_OK,
        Ok(Err(code)) => code,
        Err(_) => GCMSIV_ERR_INTERNAL,
    }
}

/// A C input buffer as a slice: `len` bytes at `ptr`, which may be NULL only
/// when `len` is 0.
///
/// # Safety
/// If `len > 0`, `ptr` must point to `len` readable bytes that stay valid
/// and unchanged for `'a` (the call).
unsafe fn input<'a>(ptr: *const u8, len: usize) -> Result<&'a [u8], c_int> {
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
unsafe fn output<'a>(ptr: *mut u8, len: usize) -> Result<&'a mut [u8], c_int> {
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

/// # Safety
/// `key` is NULL or a pointer from `gcmsiv_key_new*` not yet freed.
unsafe fn key_ref<'a>(key: *const GcmsivKey) -> Result<&'a GcmsivKey, c_int> {
    // SAFETY: the caller's contract.
    unsafe { key.as_ref() }.ok_or(GCMSIV_ERR_NULL_POINTER)
}

impl GcmsivKey {
    /// `short`: the hazardous 4- and 8-byte AES-GCM tags instead of 12-16.
    fn new(
        algorithm: c_int,
        key: &[u8],
        tag_len: usize,
        backend: Option<Backend>,
        short: bool,
    ) -> Result<Self, c_int> {
        let algorithm = algorithm_from(algorithm).ok_or(GCMSIV_ERR_ALGORITHM)?;
        let backend = backend.unwrap_or_else(Backend::select);
        let cipher = if short {
            Cipher::new_short_tag_hazardous(algorithm, key, tag_len, backend)
        } else {
            Cipher::new(algorithm, key, if tag_len == 0 { TAG_MAX } else { tag_len }, backend)
        };
        Ok(GcmsivKey { cipher: cipher.map_err(status)? })
    }

    fn tag_len(&self) -> usize {
        self.cipher.tag_len()
    }

    /// The checks an encryption makes before any work (see
    /// [`Cipher::check_lengths`]).
    fn check_seal(&self, npub_len: usize, ad_len: usize, m_len: usize) -> Result<(), c_int> {
        self.cipher.check_lengths(npub_len, ad_len, m_len).map_err(status)
    }

    /// The checks a decryption makes before any work, `body_len` the
    /// ciphertext's without its tag (see [`Cipher::check_open_lengths`]).
    fn check_open(&self, npub_len: usize, ad_len: usize, body_len: usize) -> Result<(), c_int> {
        self.cipher.check_open_lengths(npub_len, ad_len, body_len).map_err(status)
    }

    /// A detached tag of this key's length, checked after the lengths (as
    /// the core checks it).
    fn check_mac(&self, mac_len: usize) -> Result<&Self, c_int> {
        if mac_len != self.tag_len() {
            return Err(GCMSIV_ERR_TAG_LENGTH);
        }
        Ok(self)
    }

    /// Encrypts `buffer` in place; writes the tag into `tag` (its length).
    fn seal(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8], tag: &mut [u8]) -> Result<(), c_int> {
        self.cipher.encrypt_in_place_detached(nonce, aad, buffer, tag).map_err(status)
    }

    /// Decrypts `buffer` in place if `tag` authenticates it; otherwise the
    /// buffer holds the ciphertext again.
    fn open(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8], tag: &[u8]) -> Result<(), c_int> {
        self.cipher.decrypt_in_place_detached(nonce, aad, buffer, tag).map_err(status)
    }
}

fn algorithm_from(algorithm: c_int) -> Option<Algorithm> {
    Some(match algorithm {
        GCMSIV_AES_128_GCM_SIV => Algorithm::Aes128GcmSiv,
        GCMSIV_AES_256_GCM_SIV => Algorithm::Aes256GcmSiv,
        GCMSIV_AES_128_GCM => Algorithm::Aes128Gcm,
        GCMSIV_AES_256_GCM => Algorithm::Aes256Gcm,
        _ => return None,
    })
}

fn key_bytes(algorithm: c_int) -> Option<usize> {
    algorithm_from(algorithm).map(Algorithm::key_len)
}

fn backend_from(backend: c_int) -> Result<Option<Backend>, c_int> {
    Ok(match backend {
        GCMSIV_BACKEND_AUTO => None,
        GCMSIV_BACKEND_PORTABLE => Some(Backend::Portable),
        GCMSIV_BACKEND_AESNI_CLMUL => Some(Backend::AesNiClmul),
        GCMSIV_BACKEND_AESNI_VAES => Some(Backend::AesNiVaes),
        _ => return Err(GCMSIV_ERR_BACKEND_UNAVAILABLE),
    })
}

// ---------------------------------------------------------------- sizes

/// Key bytes of `algorithm` (16 or 32), 0 for an unknown one.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_keybytes(algorithm: c_int) -> usize {
    key_bytes(algorithm).unwrap_or(0)
}

/// Nonce bytes `algorithm` takes: 12 (AES-GCM also takes 1 to 2^61 - 1,
/// at a cost; 12 is the length to use), 0 for an unknown algorithm.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_npubbytes(algorithm: c_int) -> usize {
    if key_bytes(algorithm).is_some() { gcmsiv::NONCE_LEN } else { 0 }
}

/// Tag bytes of a key made with the default tag length: 16.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_abytes() -> usize {
    TAG_MAX
}

/// The longest plaintext one message may have under `algorithm`, in bytes
/// (AES-GCM-SIV 2^36; AES-GCM 2^36 - 32), 0 for an unknown one.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_messagebytes_max(algorithm: c_int) -> u64 {
    match algorithm {
        GCMSIV_AES_128_GCM_SIV | GCMSIV_AES_256_GCM_SIV => gcmsiv::P_MAX,
        GCMSIV_AES_128_GCM | GCMSIV_AES_256_GCM => gcmsiv::GCM_P_MAX,
        _ => 0,
    }
}

/// Whether `backend` runs on this CPU (1) or not (0).
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_backend_available(backend: c_int) -> c_int {
    match backend_from(backend) {
        Ok(None) => 1,
        Ok(Some(b)) => c_int::from(b.if_supported().is_some()),
        Err(_) => 0,
    }
}

/// The library's version, a static NUL-terminated string.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// A static NUL-terminated description of a status code.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_strerror(code: c_int) -> *const c_char {
    let text: &'static str = match code {
        GCMSIV_OK => "success\0",
        GCMSIV_ERR_AUTHENTICATION => "authentication failed\0",
        GCMSIV_ERR_KEY_LENGTH => "invalid key length\0",
        GCMSIV_ERR_NONCE_LENGTH => "invalid nonce length\0",
        GCMSIV_ERR_TAG_LENGTH => "invalid tag length\0",
        GCMSIV_ERR_TOO_LONG => "input longer than the algorithm allows\0",
        GCMSIV_ERR_TOO_SHORT => "ciphertext shorter than the authentication tag\0",
        GCMSIV_ERR_BUFFER_TOO_SMALL => "output buffer too small\0",
        GCMSIV_ERR_BACKEND_UNAVAILABLE => "backend not supported on this CPU\0",
        GCMSIV_ERR_ALGORITHM => "unknown algorithm\0",
        GCMSIV_ERR_NULL_POINTER => "NULL pointer for a non-empty buffer or a required argument\0",
        GCMSIV_ERR_OVERLAP => "input and output overlap without being the same buffer\0",
        GCMSIV_ERR_INTERNAL => "internal error\0",
        _ => "unknown status code\0",
    };
    text.as_ptr().cast()
}

// ---------------------------------------------------------------- keys

/// Makes a key for `algorithm` with 16-byte tags on the fastest backend.
///
/// # Safety
/// `key_out` must be writable; `key` must point to `key_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_key_new(
    key_out: *mut *mut GcmsivKey,
    algorithm: c_int,
    key: *const u8,
    key_len: usize,
) -> c_int {
    // SAFETY: the same contract.
    unsafe { gcmsiv_key_new_ex(key_out, algorithm, key, key_len, 0, GCMSIV_BACKEND_AUTO) }
}

/// Makes a key with a chosen tag length (0 for 16; AES-GCM takes 12 to 16)
/// and backend (`GCMSIV_BACKEND_AUTO` for the fastest).
///
/// # Safety
/// `key_out` must be writable; `key` must point to `key_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_key_new_ex(
    key_out: *mut *mut GcmsivKey,
    algorithm: c_int,
    key: *const u8,
    key_len: usize,
    tag_len: usize,
    backend: c_int,
) -> c_int {
    // SAFETY: the same contract.
    unsafe { make_key(key_out, algorithm, key, key_len, tag_len, backend, false) }
}

/// An AES-GCM key with 4- or 8-byte (32- or 64-bit) tags. Hazardous: SP
/// 800-38D Appendix C allows them only with a bound on the length of each
/// message and on the number of failed decryptions per key, which the
/// caller must enforce (the Rust crate's `with_short_tag_hazardous` has the
/// tables); each forgery attempt succeeds with probability about
/// 2^-(8 * tag_len) times the message's blocks.
///
/// # Safety
/// As [`gcmsiv_key_new_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_key_new_gcm_short_tag_hazardous(
    key_out: *mut *mut GcmsivKey,
    algorithm: c_int,
    key: *const u8,
    key_len: usize,
    tag_len: usize,
    backend: c_int,
) -> c_int {
    // SAFETY: the same contract.
    unsafe { make_key(key_out, algorithm, key, key_len, tag_len, backend, true) }
}

/// # Safety
/// As [`gcmsiv_key_new_ex`].
unsafe fn make_key(
    key_out: *mut *mut GcmsivKey,
    algorithm: c_int,
    key: *const u8,
    key_len: usize,
    tag_len: usize,
    backend: c_int,
    short: bool,
) -> c_int {
    if key_out.is_null() {
        return GCMSIV_ERR_NULL_POINTER;
    }
    // SAFETY: checked non-null; writable by the contract.
    unsafe { key_out.write(core::ptr::null_mut()) };
    guarded(|| {
        // SAFETY: the caller's contract for `key`.
        let key = unsafe { input(key, key_len) }?;
        let made = GcmsivKey::new(algorithm, key, tag_len, backend_from(backend)?, short)?;
        // SAFETY: as above.
        unsafe { key_out.write(Box::into_raw(Box::new(made))) };
        Ok(())
    })
}

/// Frees a key (its round keys and hash key are zeroized). NULL is ignored.
///
/// # Safety
/// `key` is NULL or from `gcmsiv_key_new*`, and not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_key_free(key: *mut GcmsivKey) {
    if !key.is_null() {
        // SAFETY: made by Box::into_raw in gcmsiv_key_new_ex, freed once.
        let key = unsafe { Box::from_raw(key) };
        let _ = std::panic::catch_unwind(AssertUnwindSafe(|| drop(key)));
    }
}

/// The tag length of a key's ciphertexts, 0 for NULL.
///
/// # Safety
/// `key` is NULL or a live key.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_key_tag_bytes(key: *const GcmsivKey) -> usize {
    // SAFETY: the caller's contract.
    unsafe { key_ref(key) }.map_or(0, GcmsivKey::tag_len)
}

/// The backend a key runs on ("portable", "aesni-clmul", "aesni-vaes"), a
/// static NUL-terminated string; "" for NULL.
///
/// # Safety
/// `key` is NULL or a live key.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_key_backend(key: *const GcmsivKey) -> *const c_char {
    // SAFETY: the caller's contract.
    let name = match unsafe { key_ref(key) }.map(|k| k.cipher.backend()) {
        Ok(Backend::Portable) => "portable\0",
        Ok(Backend::AesNiClmul) => "aesni-clmul\0",
        Ok(Backend::AesNiVaes) => "aesni-vaes\0",
        _ => "\0",
    };
    name.as_ptr().cast()
}

/// The widest vector registers a key's backend uses on this CPU (64 for the
/// portable backend, 128, 256 or 512), as `Backend::register_bits`; 0 for NULL.
///
/// # Safety
/// `key` is NULL or a live key.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_key_backend_bits(key: *const GcmsivKey) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { key_ref(key) }.map_or(0, |k| k.cipher.backend().register_bits() as c_int)
}

// ---------------------------------------------------------------- one message

/// Fails with `GCMSIV_ERR_OVERLAP` if the output `[out, out + out_len)`
/// shares a byte with any of `inputs` (pointer, length).
fn clear_of(out: *const u8, out_len: usize, inputs: &[(*const u8, usize)]) -> Result<(), c_int> {
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
unsafe fn wipe(ptr: *mut u8, len: usize) {
    if !ptr.is_null() {
        // SAFETY: the caller's contract.
        unsafe { core::ptr::write_bytes(ptr, 0, len) };
    }
}

/// Writes `len` to `*out`, if `out` is not NULL (a combined call's output
/// length: 0 until the call has succeeded).
///
/// # Safety
/// `out` is NULL or writable.
unsafe fn report_len(out: *mut usize, len: usize) {
    if !out.is_null() {
        // SAFETY: the caller's contract.
        unsafe { out.write(len) };
    }
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

/// Both encryptions after their length checks: the overlap checks, the copy
/// of `m` into `c` (unless in place), the seal; on failure the copy is wiped
/// (only an internal error can fail after it). `mac` is the key's tag length.
///
/// # Safety
/// As [`gcmsiv_encrypt_detached`].
#[allow(clippy::too_many_arguments, reason = "the C calls' own arguments")]
unsafe fn seal_detached(
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
    let code = guarded(AssertUnwindSafe(|| {
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
        if !in_place {
            body.copy_from_slice(m);
            written = (body.as_mut_ptr(), m_len);
        }
        key.seal(npub, ad, body, mac)
    }));
    if code != GCMSIV_OK {
        // SAFETY: the output this call wrote.
        unsafe { wipe(written.0, written.1) };
    }
    code
}

/// Both decryptions after their length checks: the overlap checks, the
/// copy of `c` into `m` (unless in place), the open. On failure a separate
/// output is zeroed; in place, the core has put the ciphertext back, unless
/// a panic cut it short (then it is zeroed too).
///
/// # Safety
/// As [`gcmsiv_decrypt_detached`].
#[allow(clippy::too_many_arguments, reason = "the C calls' own arguments")]
unsafe fn open_detached(
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
    let code = guarded(AssertUnwindSafe(|| {
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
        if !in_place {
            body.copy_from_slice(c);
        }
        key.open(npub, ad, body, mac)
    }));
    if code != GCMSIV_OK && (!written.2 || code == GCMSIV_ERR_INTERNAL) {
        // SAFETY: the output this call wrote.
        unsafe { wipe(written.0, written.1) };
    }
    code
}

// ---------------------------------------------------------------- batches

/// One message of a batch (`gcmsiv_batch_item` in the header).
#[repr(C)]
pub struct GcmsivBatchItem {
    /// `npub_len` bytes of nonce.
    pub npub: *const u8,
    pub npub_len: usize,
    /// `ad_len` bytes of associated data.
    pub ad: *const u8,
    pub ad_len: usize,
    /// `data_len` bytes, encrypted or decrypted in place.
    pub data: *mut u8,
    pub data_len: usize,
    /// The tag: written by a seal, read by an open (the key's tag length).
    pub tag: [u8; TAG_MAX],
    /// Set by `gcmsiv_decrypt_batch`: 0, or `GCMSIV_ERR_AUTHENTICATION`.
    pub status: c_int,
}

/// Whether a batch's buffers conflict: two items' data sharing a byte, or
/// an item's data sharing one with the items array or with any item's
/// nonce or associated data (which may share bytes with one another: one
/// nonce array for many items, say). The data spans are sorted (already so,
/// usually: a check of order comes first), and each read-only span is
/// looked up among them by binary search.
fn batch_conflicts(items: &[GcmsivBatchItem]) -> bool {
    let mut data: Vec<(usize, usize)> = items
        .iter()
        .filter(|i| i.data_len > 0)
        .map(|i| (i.data as usize, (i.data as usize).saturating_add(i.data_len)))
        .collect();
    if !data.is_sorted() {
        data.sort_unstable();
    }
    if data.windows(2).any(|w| w[1].0 < w[0].1) {
        return true;
    }
    // The data span, if any, that ends after `start`, checked against `end`.
    let hits = |start: usize, end: usize| {
        let i = data.partition_point(|d| d.1 <= start);
        data.get(i).is_some_and(|d| d.0 < end)
    };
    let array = items.as_ptr() as usize;
    if hits(array, array.saturating_add(core::mem::size_of_val(items))) {
        return true;
    }
    items.iter().any(|i| {
        let span = |p: *const u8, len: usize| len > 0 && hits(p as usize, (p as usize).saturating_add(len));
        span(i.npub, i.npub_len) || span(i.ad, i.ad_len)
    })
}

/// One item's buffers as slices: nonce, associated data, data.
type Views<'a> = (&'a [u8], &'a [u8], &'a mut [u8]);

/// Runs a batch of `count` items under `key`: AES-GCM-SIV keys through the
/// core's batch path (several messages' set-up interleaved), AES-GCM keys
/// one message at a time. Every pointer and length is checked before any
/// item is touched; on misuse every item's status is the call's.
///
/// # Safety
/// `items` covers `count` items whose pointers are as their lengths say.
unsafe fn batch(items: *mut GcmsivBatchItem, count: usize, key: *const GcmsivKey, seal: bool) -> c_int {
    let code = guarded(AssertUnwindSafe(|| {
        // SAFETY: the caller's contract: `count` items, ours for the call.
        let items = unsafe { output_items(items, count) }?;
        // SAFETY: the caller's contract.
        let run = || -> Result<Vec<(c_int, [u8; TAG_MAX])>, c_int> {
            let key = unsafe { key_ref(key) }?;
            for item in items.iter() {
                if seal {
                    key.check_seal(item.npub_len, item.ad_len, item.data_len)?;
                } else {
                    key.check_open(item.npub_len, item.ad_len, item.data_len)?;
                }
            }
            if batch_conflicts(items) {
                return Err(GCMSIV_ERR_OVERLAP);
            }
            let mut views: Vec<Views<'_>> = Vec::with_capacity(items.len());
            for item in items.iter() {
                // SAFETY: the caller's contract for each item; the data
                // buffers share no byte with one another, the other buffers
                // or the items (checked above).
                views.push(unsafe {
                    (
                        input(item.npub, item.npub_len)?,
                        input(item.ad, item.ad_len)?,
                        output(item.data, item.data_len)?,
                    )
                });
            }
            let tags: Vec<[u8; TAG_MAX]> = items.iter().map(|i| i.tag).collect();
            let cipher = &key.cipher;
            if cipher.algorithm().is_nonce_misuse_resistant() {
                siv_batch(views, tags, seal, |i| cipher.encrypt_batch(i), |i, r| cipher.decrypt_batch(i, r))
            } else {
                gcm_batch(key, views, tags, seal)
            }
        };
        match run() {
            Ok(outcomes) => {
                for (item, (code, tag)) in items.iter_mut().zip(outcomes) {
                    item.status = code;
                    if seal {
                        item.tag = tag;
                    }
                }
                Ok(())
            }
            Err(code) => {
                items.iter_mut().for_each(|item| item.status = code);
                Err(code)
            }
        }
    }));
    if code == GCMSIV_ERR_INTERNAL {
        // A panic: no item counts as done, and none may hold plaintext that
        // a cut-short open left unauthenticated.
        // SAFETY: the caller's contract, as above (the panic ended every
        // borrow of the items).
        if let Ok(items) = unsafe { output_items(items, count) } {
            for item in items {
                item.status = GCMSIV_ERR_INTERNAL;
                if !seal {
                    // SAFETY: the item's data, as its length says.
                    unsafe { wipe(item.data, item.data_len) };
                }
            }
        }
    }
    code
}

/// The core's batch calls over `views`, with each item's `tags` (read by
/// an open). Returns each item's status and tag (written by a seal).
fn siv_batch(
    views: Vec<Views<'_>>,
    tags: Vec<[u8; TAG_MAX]>,
    seal: bool,
    encrypt: impl FnOnce(&mut [BatchItem<'_>]) -> Result<(), Error>,
    decrypt: impl FnOnce(&mut [BatchItem<'_>], &mut [Result<(), Error>]) -> Result<(), Error>,
) -> Result<Vec<(c_int, [u8; TAG_MAX])>, c_int> {
    let nonces: Vec<[u8; gcmsiv::NONCE_LEN]> = views
        .iter()
        .map(|(npub, ..)| gcmsiv::nonce_from_slice(npub).copied().map_err(status))
        .collect::<Result<_, _>>()?;
    let mut core_items: Vec<BatchItem<'_>> = views
        .into_iter()
        .zip(&nonces)
        .zip(tags)
        .map(|(((_, ad, data), nonce), tag)| BatchItem::with_tag(nonce, ad, data, tag))
        .collect();
    let mut results = vec![Ok(()); core_items.len()];
    if seal {
        encrypt(&mut core_items).map_err(status)?;
    } else {
        decrypt(&mut core_items, &mut results).map_err(status)?;
    }
    Ok(core_items
        .iter()
        .zip(results)
        .map(|(item, result)| (result.map_or_else(status, |()| GCMSIV_OK), item.tag))
        .collect())
}

/// AES-GCM batches (lengths already checked): one message at a time.
fn gcm_batch(
    key: &GcmsivKey,
    views: Vec<Views<'_>>,
    mut tags: Vec<[u8; TAG_MAX]>,
    seal: bool,
) -> Result<Vec<(c_int, [u8; TAG_MAX])>, c_int> {
    let tag_len = key.tag_len();
    let mut outcomes = Vec::with_capacity(views.len());
    for ((npub, ad, data), tag) in views.into_iter().zip(&mut tags) {
        let code = if seal {
            key.seal(npub, ad, data, &mut tag[..tag_len])?;
            GCMSIV_OK
        } else {
            match key.open(npub, ad, data, &tag[..tag_len]) {
                Ok(()) => GCMSIV_OK,
                Err(GCMSIV_ERR_AUTHENTICATION) => GCMSIV_ERR_AUTHENTICATION,
                Err(other) => return Err(other),
            }
        };
        outcomes.push((code, *tag));
    }
    Ok(outcomes)
}

/// # Safety
/// `items` is NULL with `count` 0, or covers `count` writable items.
unsafe fn output_items<'a>(
    items: *mut GcmsivBatchItem,
    count: usize,
) -> Result<&'a mut [GcmsivBatchItem], c_int> {
    if count == 0 {
        return Ok(&mut []);
    }
    if items.is_null() {
        return Err(GCMSIV_ERR_NULL_POINTER);
    }
    if count.checked_mul(core::mem::size_of::<GcmsivBatchItem>()).is_none_or(|n| n > isize::MAX as usize) {
        return Err(GCMSIV_ERR_TOO_LONG);
    }
    // SAFETY: the caller's contract.
    Ok(unsafe { core::slice::from_raw_parts_mut(items, count) })
}

/// Seals `count` messages in place, each with its own nonce and associated
/// data, writing each item's tag. Misuse (a bad length anywhere) is
/// reported before any item is touched.
///
/// # Safety
/// `items` covers `count` items whose pointers are as their lengths say,
/// with pairwise disjoint data buffers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_encrypt_batch(
    items: *mut GcmsivBatchItem,
    count: usize,
    key: *const GcmsivKey,
) -> c_int {
    // SAFETY: the same contract.
    unsafe { batch(items, count, key, true) }
}

/// Opens `count` messages in place. Returns `GCMSIV_OK` when the call ran
/// (each item's `status` then says whether it was authentic: a failed item
/// holds its ciphertext again, and the others are unaffected), or a misuse
/// error before any item is touched.
///
/// # Safety
/// As [`gcmsiv_encrypt_batch`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_decrypt_batch(
    items: *mut GcmsivBatchItem,
    count: usize,
    key: *const GcmsivKey,
) -> c_int {
    // SAFETY: the same contract.
    unsafe { batch(items, count, key, false) }
}
