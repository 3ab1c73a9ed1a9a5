//! The C ABI of gcmsiv: AES-GCM-SIV (RFC 8452) and AES-GCM (SP 800-38D) for C,
//! and for every language that calls C (Go through cgo, and the like).
//!
//! `include/gcmsiv.h` is the contract; the modules below implement it. The
//! shape follows libsodium: one grid of calls ({encrypt, decrypt} x {combined,
//! detached}), one argument order everywhere (output, input, associated
//! data, nonce, key last), sizes as functions so that bindings never parse
//! the header, and decryption that wipes its output and sets its length to 0
//! on failure. Every call returns an `int` status: 0 on success, a negative
//! `GCMSIV_ERR_*` otherwise; misuse (a wrong length, a NULL pointer, an
//! output that shares bytes with an input other than exactly in place) is
//! reported before any work, with the outputs untouched, and every
//! authentication failure is the one `GCMSIV_ERR_AUTHENTICATION`.
//!
//! Nothing unwinds across the boundary: each call runs under the panic
//! guard the bindings share (`gcmsiv_glue::guard`), and a panic (an internal
//! error; none is known) becomes `GCMSIV_ERR_INTERNAL`, with what a
//! decryption wrote wiped.
//!
//! The `unsafe` here is the FFI's: raw pointers from C turned into slices,
//! each conversion in `ffi::input` or `ffi::output` with the caller's
//! contract (the header's) as its proof.
//!
//! One module per concern, each using only those listed before it:
//!
//! - `ffi.rs`: the plumbing: status codes and their mapping from the glue's
//!   kinds of failure, the panic guard, C buffers as slices, overlap checks.
//! - `sizes.rs`: the algorithm and backend identifiers, and the calls that
//!   need no key (`gcmsiv_keybytes`, `gcmsiv_backend_available`,
//!   `gcmsiv_strerror`, ...).
//! - `key.rs`: the key object (`gcmsiv_key_new*`, `gcmsiv_key_free`, what a
//!   key runs on).
//! - `aead.rs`: one message per call: `gcmsiv_{encrypt,decrypt}` and their
//!   `_detached` forms.
//! - `batch.rs`: many messages per call: `gcmsiv_{encrypt,decrypt}_batch`.
//! - `random.rs`: nonce-managed messages, the nonce drawn by the library
//!   and placed in front: `gcmsiv_{encrypt,decrypt}_random_nonce` and their
//!   batches.
//! - `stream.rs`: files and streams in the gcmsiv file format
//!   (docs/FORMAT.md): secrets, the encryptor and decryptor (push, drain,
//!   finish), and random access (`gcmsiv_reader_*`).

mod ffi;
mod sizes;
mod key;
mod aead;
mod batch;
mod random;
mod stream;

pub use aead::{gcmsiv_decrypt, gcmsiv_decrypt_detached, gcmsiv_encrypt, gcmsiv_encrypt_detached};
pub use batch::{GcmsivBatchItem, gcmsiv_decrypt_batch, gcmsiv_encrypt_batch};
pub use ffi::{
    GCMSIV_ERR_ALGORITHM, GCMSIV_ERR_AUTHENTICATION, GCMSIV_ERR_BACKEND_UNAVAILABLE,
    GCMSIV_ERR_BUFFER_TOO_SMALL, GCMSIV_ERR_INTERNAL, GCMSIV_ERR_KEY_LENGTH, GCMSIV_ERR_NONCE_LENGTH,
    GCMSIV_ERR_NULL_POINTER, GCMSIV_ERR_OVERLAP, GCMSIV_ERR_TAG_LENGTH, GCMSIV_ERR_TOO_LONG,
    GCMSIV_ERR_TOO_SHORT, GCMSIV_OK,
};
pub use ffi::{GCMSIV_ERR_FORMAT, GCMSIV_ERR_INVALID, GCMSIV_ERR_STATE, GCMSIV_ERR_TRUNCATED};
pub use key::{
    GcmsivKey, gcmsiv_key_backend, gcmsiv_key_backend_bits, gcmsiv_key_free, gcmsiv_key_new,
    gcmsiv_key_new_ex, gcmsiv_key_new_gcm_short_tag_hazardous, gcmsiv_key_tag_bytes,
};
pub use random::{
    GcmsivSealedItem, gcmsiv_decrypt_random_nonce, gcmsiv_decrypt_random_nonce_batch,
    gcmsiv_encrypt_random_nonce, gcmsiv_encrypt_random_nonce_batch, gcmsiv_random_nonce_overhead,
};
pub use sizes::{
    GCMSIV_AES_128_GCM, GCMSIV_AES_128_GCM_SIV, GCMSIV_AES_256_GCM, GCMSIV_AES_256_GCM_SIV,
    GCMSIV_BACKEND_AESNI_CLMUL, GCMSIV_BACKEND_AESNI_VAES, GCMSIV_BACKEND_ARMV8_AES_PMULL,
    GCMSIV_BACKEND_AUTO, GCMSIV_BACKEND_PORTABLE, gcmsiv_abytes, gcmsiv_backend_available,
    gcmsiv_backend_bits, gcmsiv_backend_count, gcmsiv_backend_name, gcmsiv_keybytes, gcmsiv_messagebytes_max,
    gcmsiv_npubbytes, gcmsiv_strerror, gcmsiv_version,
};
pub use stream::{
    GcmsivDecryptor, GcmsivEncryptor, GcmsivReader, GcmsivSecret, gcmsiv_decryptor_drain,
    gcmsiv_decryptor_finish, gcmsiv_decryptor_free, gcmsiv_decryptor_new, gcmsiv_decryptor_pending,
    gcmsiv_decryptor_push, gcmsiv_encryptor_drain, gcmsiv_encryptor_finish, gcmsiv_encryptor_free,
    gcmsiv_encryptor_new, gcmsiv_encryptor_new_ex, gcmsiv_encryptor_pending, gcmsiv_encryptor_push,
    gcmsiv_file_header_bytes, gcmsiv_reader_final_chunk, gcmsiv_reader_free, gcmsiv_reader_new,
    gcmsiv_reader_read, gcmsiv_reader_size, gcmsiv_reader_span, gcmsiv_reader_verify_final,
    gcmsiv_secret_free, gcmsiv_secret_new_key, gcmsiv_secret_new_key_file, gcmsiv_secret_new_passphrase,
    gcmsiv_stream_error_message,
};
