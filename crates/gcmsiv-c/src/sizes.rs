//! The header's identifiers (algorithms, backends) and what can be asked
//! of them before a key exists: key, nonce and tag sizes, the message limit,
//! whether a backend runs on this CPU, the version, and what a status code
//! says. Uses [`crate::ffi`] only.

use crate::ffi::{
    GCMSIV_ERR_ALGORITHM, GCMSIV_ERR_AUTHENTICATION, GCMSIV_ERR_BACKEND_UNAVAILABLE,
    GCMSIV_ERR_BUFFER_TOO_SMALL, GCMSIV_ERR_INTERNAL, GCMSIV_ERR_KEY_LENGTH, GCMSIV_ERR_NONCE_LENGTH,
    GCMSIV_ERR_NULL_POINTER, GCMSIV_ERR_OVERLAP, GCMSIV_ERR_RANDOM_SOURCE, GCMSIV_ERR_TAG_LENGTH,
    GCMSIV_ERR_TOO_LONG, GCMSIV_ERR_TOO_SHORT, GCMSIV_OK,
};
use crate::ffi::{GCMSIV_ERR_FORMAT, GCMSIV_ERR_INVALID, GCMSIV_ERR_STATE, GCMSIV_ERR_TRUNCATED};
use core::ffi::{c_char, c_int};
use gcmsiv::{Algorithm, Backend};

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
pub const GCMSIV_BACKEND_ARMV8_AES_PMULL: c_int = 4;

/// Every tag this library makes is at most this long (AES-GCM keys may be
/// made for 12- to 15-byte tags; AES-GCM-SIV's are always 16).
pub(crate) const TAG_MAX: usize = 16;

pub(crate) fn algorithm_from(algorithm: c_int) -> Option<Algorithm> {
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

/// The backend a caller names by number (`GCMSIV_BACKEND_*`: the glue's
/// numbering, which Java's `Backend` shares; `AUTO` is the fastest this CPU
/// runs), or `GCMSIV_ERR_BACKEND_UNAVAILABLE` for an unknown number.
pub(crate) fn backend_from(backend: c_int) -> Result<Backend, c_int> {
    gcmsiv_glue::backend_numbered(backend).ok_or(GCMSIV_ERR_BACKEND_UNAVAILABLE)
}

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
    backend_from(backend).map_or(0, |b| c_int::from(b.if_supported().is_some()))
}

/// How many backends this library knows (numbered 1 to this; 0 is `AUTO`),
/// on any CPU: bindings list them from here rather than spell them out.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_backend_count() -> c_int {
    Backend::ALL.len() as c_int
}

/// Backend `backend`'s name (`"portable"`, `"aesni-clmul"`, ...; for `AUTO`,
/// the one it picks here), a static NUL-terminated string; `""` for an
/// unknown number.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_backend_name(backend: c_int) -> *const c_char {
    backend_from(backend).map_or(c"".as_ptr(), backend_c_name)
}

/// The widest registers `backend` uses on this CPU (64, 128, 256 or 512);
/// 0 for an unknown number.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_backend_bits(backend: c_int) -> c_int {
    backend_from(backend).map_or(0, |b| b.register_bits() as c_int)
}

/// A backend's name as a static C string: made once from the core's names.
pub(crate) fn backend_c_name(backend: Backend) -> *const c_char {
    static NAMES: std::sync::OnceLock<Vec<std::ffi::CString>> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        Backend::ALL
            .iter()
            .map(|b| std::ffi::CString::new(b.name()).expect("internal error: a name without NUL"))
            .collect()
    });
    let index = gcmsiv_glue::backend_number(backend) as usize - 1;
    names[index].as_ptr()
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
        GCMSIV_ERR_RANDOM_SOURCE => "the operating system's random number generator failed\0",
        GCMSIV_ERR_FORMAT => "not a gcmsiv file, or a corrupted one\0",
        GCMSIV_ERR_TRUNCATED => "the file is truncated (it ends before its final chunk)\0",
        GCMSIV_ERR_INVALID => "an argument the file format does not allow\0",
        GCMSIV_ERR_STATE => "call out of order (drain pending output first, or the stream is finished)\0",
        _ => "unknown status code\0",
    };
    text.as_ptr().cast()
}
