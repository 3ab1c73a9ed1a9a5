//! The key object (`gcmsiv_key`): made once for one algorithm, tag length
//! and backend, asked what it runs on, freed with its secrets zeroized; and
//! the length checks, seal and open that the message calls share.
//! Uses [`crate::sizes`] and [`crate::ffi`].

use crate::ffi::{
    GCMSIV_ERR_ALGORITHM, GCMSIV_ERR_NULL_POINTER, GCMSIV_ERR_TAG_LENGTH, guarded, input, status,
};
use crate::sizes::{GCMSIV_BACKEND_AUTO, TAG_MAX, algorithm_from, backend_from};
use core::ffi::{c_char, c_int};
use gcmsiv::{Backend, Cipher};

/// A key ready for use: one algorithm, its backend chosen once.
pub struct GcmsivKey {
    pub(crate) cipher: Cipher,
}

/// A key from C, or `GCMSIV_ERR_NULL_POINTER` for NULL.
///
/// # Safety
/// `key` is NULL or a pointer from `gcmsiv_key_new*` not yet freed.
pub(crate) unsafe fn key_ref<'a>(key: *const GcmsivKey) -> Result<&'a GcmsivKey, c_int> {
    // SAFETY: the caller's contract.
    unsafe { crate::ffi::handle_ref(key) }
}

impl GcmsivKey {
    /// `short`: the hazardous 4- and 8-byte AES-GCM tags instead of 12-16.
    fn new(
        algorithm: c_int,
        key: &[u8],
        tag_len: usize,
        backend: Backend,
        short: bool,
    ) -> Result<Self, c_int> {
        let algorithm = algorithm_from(algorithm).ok_or(GCMSIV_ERR_ALGORITHM)?;
        let cipher = if short {
            Cipher::new_short_tag_hazardous(algorithm, key, tag_len, backend)
        } else {
            Cipher::new(algorithm, key, if tag_len == 0 { TAG_MAX } else { tag_len }, backend)
        };
        Ok(GcmsivKey { cipher: cipher.map_err(status)? })
    }

    pub(crate) fn tag_len(&self) -> usize {
        self.cipher.tag_len()
    }

    /// The checks an encryption makes before any work (see
    /// [`Cipher::check_lengths`]).
    pub(crate) fn check_seal(&self, npub_len: usize, ad_len: usize, m_len: usize) -> Result<(), c_int> {
        self.cipher.check_lengths(npub_len, ad_len, m_len).map_err(status)
    }

    /// The checks a decryption makes before any work, `body_len` the
    /// ciphertext's without its tag (see [`Cipher::check_open_lengths`]).
    pub(crate) fn check_open(&self, npub_len: usize, ad_len: usize, body_len: usize) -> Result<(), c_int> {
        self.cipher.check_open_lengths(npub_len, ad_len, body_len).map_err(status)
    }

    /// A detached tag of this key's length, checked after the lengths (as
    /// the core checks it).
    pub(crate) fn check_mac(&self, mac_len: usize) -> Result<&Self, c_int> {
        if mac_len != self.tag_len() {
            return Err(GCMSIV_ERR_TAG_LENGTH);
        }
        Ok(self)
    }

    /// Encrypts `buffer` in place; writes the tag into `tag` (its length).
    pub(crate) fn seal(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), c_int> {
        self.cipher.encrypt_in_place_detached(nonce, aad, buffer, tag).map_err(status)
    }

    /// Encrypts `plaintext` into `ciphertext` (as long, apart) in one pass;
    /// writes the tag into `tag` (its length).
    pub(crate) fn seal_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        plaintext: &[u8],
        ciphertext: &mut [u8],
        tag: &mut [u8],
    ) -> Result<(), c_int> {
        self.cipher.encrypt_detached(nonce, aad, plaintext, ciphertext, tag).map_err(status)
    }

    /// Decrypts `ciphertext` into `plaintext` (as long, apart) in one pass
    /// if `tag` authenticates it; otherwise `plaintext` is zeroed.
    pub(crate) fn open_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ciphertext: &[u8],
        tag: &[u8],
        plaintext: &mut [u8],
    ) -> Result<(), c_int> {
        self.cipher.decrypt_detached(nonce, aad, ciphertext, tag, plaintext).map_err(status)
    }

    /// Decrypts `buffer` in place if `tag` authenticates it; otherwise the
    /// buffer holds the ciphertext again.
    pub(crate) fn open(&self, nonce: &[u8], aad: &[u8], buffer: &mut [u8], tag: &[u8]) -> Result<(), c_int> {
        self.cipher.decrypt_in_place_detached(nonce, aad, buffer, tag).map_err(status)
    }
}

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
    unsafe { crate::ffi::put(key_out, core::ptr::null_mut()) };
    guarded(|| {
        // SAFETY: the caller's contract for `key`.
        let key = unsafe { input(key, key_len) }?;
        let backend = backend_from(backend)?;
        // Made on the heap in a frame whose stack is zeroed after it: no
        // copy of the schedule is left behind.
        let made =
            gcmsiv::scrubbed(|| GcmsivKey::new(algorithm, key, tag_len, backend, short).map(Box::new))?;
        // SAFETY: as above.
        unsafe { crate::ffi::put(key_out, crate::ffi::new_handle(made)) };
        Ok(())
    })
}

/// Frees a key (its round keys and hash key are zeroized). NULL is ignored.
///
/// # Safety
/// `key` is NULL or from `gcmsiv_key_new*`, and not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_key_free(key: *mut GcmsivKey) {
    // SAFETY: made by `new_handle` in make_key (every constructor); the
    // caller's contract: freed once.
    unsafe { crate::ffi::free_handle(key) }
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
    unsafe { key_ref(key) }.map_or(c"".as_ptr(), |k| crate::sizes::backend_c_name(k.cipher.backend()))
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
