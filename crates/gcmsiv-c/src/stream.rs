//! Encrypted files and streams in the gcmsiv file format (docs/FORMAT.md)
//! for C, over `gcmsiv-stream`'s types without I/O: the caller reads and
//! writes, these calls only transform bytes, in bounded memory.
//!
//! - `gcmsiv_secret`: what a file is encrypted to (a 32-byte key, a key
//!   file's text, or a passphrase), copied into each handle made from it.
//! - `gcmsiv_encryptor` ([`SealStream`]): push plaintext, drain file bytes,
//!   finish.
//! - `gcmsiv_decryptor` ([`OpenStream`]): push file bytes, drain plaintext
//!   (only ever of authenticated chunks), finish (whether the file was
//!   whole).
//! - `gcmsiv_reader` ([`RandomAccess`]): the header and the file's size,
//!   then the final chunk, then for any plaintext range which stored bytes
//!   to read, and their plaintext.
//!
//! A push is refused while output is pending (drain first), so that a
//! handle holds at most one push and one batch of chunks (about 2 MiB) at a
//! time. Failures are status codes, the format's own ones included
//! (`GCMSIV_ERR_FORMAT`, `GCMSIV_ERR_TRUNCATED`; authentication failures are
//! `GCMSIV_ERR_AUTHENTICATION`); the message of the last failure on a thread
//! (`gcmsiv_stream_error_message`) says what was wrong ("chunk 3 failed
//! authentication") and never anything about the secret. Uses
//! [`crate::sizes`] and [`crate::ffi`].

use crate::ffi;
use crate::ffi::{
    GCMSIV_ERR_ALGORITHM, GCMSIV_ERR_AUTHENTICATION, GCMSIV_ERR_BUFFER_TOO_SMALL, GCMSIV_ERR_FORMAT,
    GCMSIV_ERR_INTERNAL, GCMSIV_ERR_INVALID, GCMSIV_ERR_KEY_LENGTH, GCMSIV_ERR_NULL_POINTER,
    GCMSIV_ERR_RANDOM_SOURCE, GCMSIV_ERR_STATE, GCMSIV_ERR_TRUNCATED, GCMSIV_OK, clear_of, guarded, input,
    output, put,
};
use crate::sizes::{GCMSIV_AES_128_GCM_SIV, GCMSIV_AES_256_GCM_SIV};
use core::ffi::{c_char, c_int};
use gcmsiv_stream::format::{HEADER_LEN, MAX_HEADER_LEN};
use gcmsiv_stream::{
    Algorithm, Argon2Cost, DecodeError, Error, Header, Identity, MasterKey, OpenStream, Options,
    RandomAccess, Recipient, RecipientKind, SealStream, Secret,
};
use std::cell::{Cell, RefCell};
use std::ffi::CString;

thread_local! {
    /// The message of the last streaming call that failed on this thread.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
    /// Whether the running call has recorded its message already.
    static RECORDED: Cell<bool> = const { Cell::new(false) };
}

/// Records `message` as this thread's last error and returns `code`.
fn fail(code: c_int, message: &str) -> c_int {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
    RECORDED.with(|r| r.set(true));
    code
}

/// The status of a failure of the format's library, its message recorded.
/// Authentication failures (a wrong secret, a forged chunk) are
/// `GCMSIV_ERR_AUTHENTICATION`; a file that ends early `GCMSIV_ERR_TRUNCATED`;
/// every other flaw of the file `GCMSIV_ERR_FORMAT`.
fn stream_status(err: &Error) -> c_int {
    let code = match err {
        Error::Decode(decode) if decode.is_authentication() => GCMSIV_ERR_AUTHENTICATION,
        Error::Decode(DecodeError::Truncated | DecodeError::TruncatedHeader) => GCMSIV_ERR_TRUNCATED,
        Error::Decode(_) => GCMSIV_ERR_FORMAT,
        Error::Invalid(_) | Error::KeyFile(_) => GCMSIV_ERR_INVALID,
        Error::Random => GCMSIV_ERR_RANDOM_SOURCE,
        // No I/O happens here: a read or write error is a broken invariant.
        _ => GCMSIV_ERR_INTERNAL,
    };
    fail(code, &err.to_string())
}

/// Runs `body` under the panic guard; a failure that recorded no message of
/// its own (misuse found by the shared helpers, a panic) gets its status's.
fn run(body: impl FnOnce() -> Result<(), c_int>) -> c_int {
    RECORDED.with(|r| r.set(false));
    let code = guarded(body);
    if code != GCMSIV_OK && !RECORDED.with(Cell::get) {
        let text = crate::sizes::gcmsiv_strerror(code);
        // SAFETY: gcmsiv_strerror returns a static NUL-terminated string.
        let text = unsafe { std::ffi::CStr::from_ptr(text) }.to_string_lossy();
        fail(code, &text);
    }
    code
}

/// Plaintext bytes, wiped when dropped (with the glue's plain fill: a
/// volatile store a byte, `Zeroizing`'s way, costs as much as the cipher).
/// The vector is sized before use so that it never moves, which would leave
/// an unwiped copy behind.
#[derive(Default)]
struct Wiped(Vec<u8>);

impl Drop for Wiped {
    fn drop(&mut self) {
        gcmsiv_glue::wipe(&mut self.0);
    }
}

/// A handle from C, or `GCMSIV_ERR_NULL_POINTER` for NULL.
///
/// # Safety
/// `ptr` is NULL or a live handle of this type, not used elsewhere during
/// the call (for `&mut`).
unsafe fn handle<'a, T>(ptr: *mut T) -> Result<&'a mut T, c_int> {
    // SAFETY: the caller's contract.
    unsafe { ffi::handle_mut(ptr) }
}

/// Boxes `value` into `*out` (set to NULL first, and left so on failure).
///
/// # Safety
/// `out` is NULL or writable.
unsafe fn make<T>(out: *mut *mut T, value: impl FnOnce() -> Result<T, c_int>) -> c_int {
    if out.is_null() {
        return fail(GCMSIV_ERR_NULL_POINTER, "NULL handle pointer");
    }
    // SAFETY: checked non-null; writable by the contract.
    unsafe { put(out, core::ptr::null_mut()) };
    run(|| {
        let made = ffi::new_handle(Box::new(value()?));
        // SAFETY: as above.
        unsafe { put(out, made) };
        Ok(())
    })
}

/// Frees a boxed handle under the panic guard.
///
/// # Safety
/// `ptr` is NULL or from [`make`], and not used again.
unsafe fn free<T>(ptr: *mut T) {
    // SAFETY: made by `new_handle` in `make`; the caller's contract: freed once.
    unsafe { ffi::free_handle(ptr) }
}

/// The message of the last streaming call that failed on this thread
/// (`gcmsiv_secret_*`, `gcmsiv_encryptor_*`, `gcmsiv_decryptor_*`,
/// `gcmsiv_reader_*`), "" if none has: a NUL-terminated string valid until
/// the next streaming call on this thread.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_stream_error_message() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// The length of a file's header: 86 bytes.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_file_header_bytes() -> usize {
    HEADER_LEN
}

// ---------------------------------------------------------------- secrets

/// What a file is encrypted to (`gcmsiv_secret`): zeroized when freed.
pub struct GcmsivSecret {
    secret: Secret,
}

/// # Safety
/// `ptr` is NULL or a live secret.
unsafe fn secret_ref<'a>(ptr: *const GcmsivSecret) -> Result<&'a Secret, c_int> {
    // SAFETY: the caller's contract.
    unsafe { ffi::handle_ref(ptr) }.map(|s| &s.secret)
}

/// A 32-byte key (what a key file holds).
///
/// # Safety
/// `secret_out` writable; `key` covers `key_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_secret_new_key(
    secret_out: *mut *mut GcmsivSecret,
    key: *const u8,
    key_len: usize,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        make(secret_out, || {
            if key_len != gcmsiv_stream::MASTER_LEN {
                return Err(fail(GCMSIV_ERR_KEY_LENGTH, "a file key is 32 bytes"));
            }
            let key = input(key, key_len)?;
            let key = MasterKey::from_slice(key).map_err(|e| stream_status(&e))?;
            Ok(GcmsivSecret { secret: Secret::Key(key) })
        })
    }
}

/// The key a key file holds, from the file's text (docs/FORMAT.md, "Key
/// files"); `GCMSIV_ERR_INVALID` if it is not one.
///
/// # Safety
/// `secret_out` writable; `text` covers `text_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_secret_new_key_file(
    secret_out: *mut *mut GcmsivSecret,
    text: *const u8,
    text_len: usize,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        make(secret_out, || {
            let text = input(text, text_len)?;
            let text = core::str::from_utf8(text)
                .map_err(|_| stream_status(&Error::KeyFile("it is not UTF-8 text")))?;
            let key = MasterKey::from_key_file(text).map_err(|why| stream_status(&Error::KeyFile(why)))?;
            Ok(GcmsivSecret { secret: Secret::Key(key) })
        })
    }
}

/// A passphrase (any bytes but none; UTF-8 for text), stretched with
/// Argon2id when a file is made or opened.
///
/// # Safety
/// `secret_out` writable; `passphrase` covers `passphrase_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_secret_new_passphrase(
    secret_out: *mut *mut GcmsivSecret,
    passphrase: *const u8,
    passphrase_len: usize,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        make(secret_out, || {
            let passphrase = input(passphrase, passphrase_len)?;
            if passphrase.is_empty() {
                return Err(stream_status(&Error::Invalid("the passphrase is empty")));
            }
            Ok(GcmsivSecret { secret: Secret::passphrase(passphrase) })
        })
    }
}

/// Text from C: UTF-8, else `GCMSIV_ERR_INVALID` naming `what`.
///
/// # Safety
/// `text` covers `text_len` readable bytes.
unsafe fn text_in<'a>(text: *const u8, text_len: usize, what: &str) -> Result<&'a str, c_int> {
    // SAFETY: the caller's contract.
    let bytes = unsafe { input(text, text_len) }?;
    core::str::from_utf8(bytes)
        .map_err(|_| fail(GCMSIV_ERR_INVALID, &format!("the {what} is not UTF-8 text")))
}

/// Public-key recipients to write a file to (format version 2): the text of a
/// recipients file (one `gcmsiv1...` or `gcmsivpq1...` string a line; empty
/// lines and `#` comments allowed), 1 to 256 of them. Both kinds together are
/// refused when the file is made unless `allow_mixed` is 1: such a file is only
/// as safe as X25519 against a quantum computer (docs/FORMAT.md). Such a
/// secret writes files; it cannot read them. `GCMSIV_ERR_INVALID` (the message
/// names the line) for text that is not a list of recipients.
///
/// # Safety
/// `secret_out` writable; `text` covers `text_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_secret_new_recipients(
    secret_out: *mut *mut GcmsivSecret,
    text: *const u8,
    text_len: usize,
    allow_mixed: c_int,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        make(secret_out, || {
            let text = text_in(text, text_len, "recipients list")?;
            let list = Recipient::parse_list(text)
                .map_err(|why| fail(GCMSIV_ERR_INVALID, &format!("not a list of recipients: {why}")))?;
            if list.is_empty() {
                return Err(fail(GCMSIV_ERR_INVALID, "the list holds no recipient"));
            }
            let secret = match allow_mixed {
                0 => Secret::Recipients(list),
                1 => Secret::MixedRecipients(list),
                _ => return Err(fail(GCMSIV_ERR_INVALID, "allow_mixed is 0 or 1")),
            };
            Ok(GcmsivSecret { secret })
        })
    }
}

/// Identities (private keys) to read files encrypted to their recipients:
/// the text of an identity file (`GCMSIV-SECRET-KEY-...` lines; empty lines
/// and `#` comments allowed), at least one. A writer given identities encrypts
/// to their recipients. `GCMSIV_ERR_INVALID` (naming the line, never quoting
/// it) for text that is not a list of identities.
///
/// # Safety
/// `secret_out` writable; `text` covers `text_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_secret_new_identities(
    secret_out: *mut *mut GcmsivSecret,
    text: *const u8,
    text_len: usize,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        make(secret_out, || {
            let text = text_in(text, text_len, "identity list")?;
            let list = Identity::parse_list(text)
                .map_err(|why| fail(GCMSIV_ERR_INVALID, &format!("not a list of identities: {why}")))?;
            Ok(GcmsivSecret { secret: Secret::Identities(list) })
        })
    }
}

/// Copies `text` into C's buffer: `GCMSIV_ERR_BUFFER_TOO_SMALL` (with the
/// length needed in `*out_len`) if it does not fit.
///
/// # Safety
/// `out` covers `out_cap` writable bytes; `out_len` writable.
unsafe fn text_out(text: &str, out: *mut u8, out_cap: usize, out_len: *mut usize) -> Result<(), c_int> {
    if out_len.is_null() {
        return Err(fail(GCMSIV_ERR_NULL_POINTER, "NULL output length"));
    }
    // SAFETY: the caller's contract.
    unsafe { put(out_len, text.len()) };
    if text.len() > out_cap {
        return Err(fail(GCMSIV_ERR_BUFFER_TOO_SMALL, "the buffer is too small for the text"));
    }
    // SAFETY: the caller's contract.
    let out = unsafe { output(out, out_cap) }?;
    out[..text.len()].copy_from_slice(text.as_bytes());
    Ok(())
}

/// A new identity from the operating system's random generator, written as
/// its identity string (`GCMSIV-SECRET-KEY-...`, no NUL; keep it secret):
/// `kind` `GCMSIV_RECIPIENT_X25519` or `GCMSIV_RECIPIENT_HYBRID` (ML-KEM-768 +
/// X25519). `*out_len` is the string's length (set also when `out_cap` is too
/// small: `GCMSIV_ERR_BUFFER_TOO_SMALL`; [`gcmsiv_identity_max_bytes`] always fits).
///
/// # Safety
/// `out` covers `out_cap` writable bytes; `out_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_identity_generate(
    kind: c_int,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    run(|| {
        let kind = u8::try_from(kind).ok().and_then(RecipientKind::from_id).ok_or_else(|| {
            fail(GCMSIV_ERR_INVALID, "kind is GCMSIV_RECIPIENT_X25519 or GCMSIV_RECIPIENT_HYBRID")
        })?;
        let identity = Identity::generate(kind).map_err(|e| stream_status(&e))?;
        let text = identity.to_secret_string();
        // SAFETY: the caller's contract.
        unsafe { text_out(&text, out, out_cap, out_len) }
    })
}

/// The recipient (public key, `gcmsiv1...` or `gcmsivpq1...`, no NUL) of one
/// identity string, to give to those who will encrypt to it. Lengths as in
/// [`gcmsiv_identity_generate`] ([`gcmsiv_recipient_max_bytes`] always fits).
///
/// # Safety
/// `identity` covers `identity_len` readable bytes; `out` covers `out_cap`
/// writable bytes; `out_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_identity_recipient(
    identity: *const u8,
    identity_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    run(|| {
        // SAFETY: the caller's contract.
        let text = unsafe { text_in(identity, identity_len, "identity") }?;
        let identity = Identity::parse(text)
            .map_err(|why| fail(GCMSIV_ERR_INVALID, &format!("not an identity: {why}")))?;
        let recipient = identity.recipient().to_string();
        // SAFETY: the caller's contract.
        unsafe { text_out(&recipient, out, out_cap, out_len) }
    })
}

/// How long the header of the file that starts with `prefix` is, as far as
/// `prefix` tells: its whole length once `prefix` reaches every length field
/// (86 for version 1; version 2's depends on its recipients), else a length
/// the prefix must reach to tell more. A reader calls it until `*needed` is at
/// most what it has read, then hands that many bytes to `gcmsiv_reader_new`.
/// A prefix that is no gcmsiv file, or a hostile header (too many stanzas, an
/// unknown kind), is refused here, before more is read.
///
/// # Safety
/// `prefix` covers `prefix_len` readable bytes; `needed` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_file_header_needed(
    prefix: *const u8,
    prefix_len: usize,
    needed: *mut usize,
) -> c_int {
    run(|| {
        if needed.is_null() {
            return Err(fail(GCMSIV_ERR_NULL_POINTER, "NULL output"));
        }
        // SAFETY: the caller's contract.
        let prefix = unsafe { input(prefix, prefix_len) }?;
        let n = Header::needed(prefix).map_err(|e| stream_status(&Error::Decode(e)))?;
        // SAFETY: checked non-null; writable by the contract.
        unsafe { put(needed, n) };
        Ok(())
    })
}

/// The length of a Bech32 string with a human-readable part of `hrp_len`
/// bytes and `data_len` bytes of data: the part, `1`, five bits a character,
/// six checksum characters.
const fn bech32_len(hrp_len: usize, data_len: usize) -> usize {
    hrp_len + 1 + (data_len * 8).div_ceil(5) + 6
}

/// The longest identity string (`GCMSIV-SECRET-KEY-PQ-1...`): room enough for
/// [`gcmsiv_identity_generate`]'s output.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_identity_max_bytes() -> usize {
    bech32_len("gcmsiv-secret-key-pq-".len(), gcmsiv_stream::recipients::IDENTITY_LEN)
}

/// The longest recipient string (a hybrid one, `gcmsivpq1...`): room enough
/// for [`gcmsiv_identity_recipient`]'s output.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_recipient_max_bytes() -> usize {
    bech32_len("gcmsivpq".len(), RecipientKind::Hybrid.public_len())
}

/// The longest header a file can have: version 2 with 256 hybrid stanzas.
#[unsafe(no_mangle)]
pub extern "C" fn gcmsiv_file_header_max_bytes() -> usize {
    MAX_HEADER_LEN
}

/// Frees (and zeroizes) a secret. NULL is ignored.
///
/// # Safety
/// `secret` is NULL or from `gcmsiv_secret_new*`, and not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_secret_free(secret: *mut GcmsivSecret) {
    // SAFETY: the caller's contract.
    unsafe { free(secret) }
}

// ------------------------------------------------------------- encryption

/// A file being written (`gcmsiv_encryptor`).
pub struct GcmsivEncryptor {
    /// `None` once finished, or after a failure.
    stream: Option<SealStream>,
    /// File bytes not yet drained: `pending[drained..]`.
    pending: Vec<u8>,
    drained: usize,
    /// The status every later call returns, once one failed.
    failed: c_int,
}

/// Copies pending bytes into `out` (at most `out_cap`); clears the buffer
/// (wiping what it held first when `wipe` is set) once all are drained.
///
/// # Safety
/// `out` covers `out_cap` writable bytes; `out_len` is writable.
unsafe fn drain_into(
    pending: &mut Vec<u8>,
    drained: &mut usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    wipe: bool,
) -> Result<(), c_int> {
    if out_len.is_null() {
        return Err(GCMSIV_ERR_NULL_POINTER);
    }
    let n = out_cap.min(pending.len() - *drained);
    clear_of(out, n, &[(pending.as_ptr(), pending.len())])?;
    // SAFETY: the caller's contract; checked clear of the pending bytes.
    let out = unsafe { output(out, n) }?;
    out.copy_from_slice(&pending[*drained..*drained + n]);
    *drained += n;
    if *drained == pending.len() {
        if wipe {
            gcmsiv_glue::wipe(pending);
        }
        pending.clear();
        *drained = 0;
    }
    // SAFETY: checked non-null; writable by the contract.
    unsafe { put(out_len, n) };
    Ok(())
}

/// A new file's layout: the algorithm (0 for AES-256-GCM-SIV), the chunk
/// size (0 for 64 KiB), and the Argon2id cost for a passphrase (all 0 for
/// the default).
fn options(algorithm: c_int, chunk_size: usize, cost: [u32; 3]) -> Result<Options, c_int> {
    let algorithm = match algorithm {
        0 | GCMSIV_AES_256_GCM_SIV => Algorithm::Aes256GcmSiv,
        GCMSIV_AES_128_GCM_SIV => Algorithm::Aes128GcmSiv,
        _ => {
            return Err(fail(
                GCMSIV_ERR_ALGORITHM,
                "files are AES-128-GCM-SIV or AES-256-GCM-SIV (GCMSIV_AES_*_GCM_SIV, or 0)",
            ));
        }
    };
    let mut options = Options::new().algorithm(algorithm);
    if chunk_size != 0 {
        options = options.chunk_size(chunk_size).map_err(|e| stream_status(&e))?;
    }
    if cost != [0; 3] {
        let [memory_kib, iterations, lanes] = cost;
        let cost = Argon2Cost { memory_kib, iterations, lanes };
        options = options.argon2_cost(cost).map_err(|e| stream_status(&e))?;
    }
    Ok(options)
}

/// Starts a file: `algorithm` `GCMSIV_AES_256_GCM_SIV` (or 0) or
/// `GCMSIV_AES_128_GCM_SIV`, `chunk_size` a power of two from 1024 to
/// 1048576 (0: 65536), the default Argon2id cost for a passphrase.
///
/// # Safety
/// `enc_out` writable; `secret` a live secret.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_encryptor_new(
    enc_out: *mut *mut GcmsivEncryptor,
    algorithm: c_int,
    chunk_size: usize,
    secret: *const GcmsivSecret,
) -> c_int {
    // SAFETY: the same contract.
    unsafe { gcmsiv_encryptor_new_ex(enc_out, algorithm, chunk_size, 0, 0, 0, secret) }
}

/// [`gcmsiv_encryptor_new`] with the Argon2id cost a passphrase is
/// stretched with (recorded in the header; all 0 for the default, 64 MiB, 3
/// passes, 4 lanes): memory 8 x lanes to 1048576 KiB, 1 to 16 passes, 1 to
/// 16 lanes. Checked for a key too, but used only for a passphrase.
///
/// # Safety
/// As [`gcmsiv_encryptor_new`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_encryptor_new_ex(
    enc_out: *mut *mut GcmsivEncryptor,
    algorithm: c_int,
    chunk_size: usize,
    argon2_memory_kib: u32,
    argon2_iterations: u32,
    argon2_lanes: u32,
    secret: *const GcmsivSecret,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        make(enc_out, || {
            let secret = secret_ref(secret)?;
            let options =
                options(algorithm, chunk_size, [argon2_memory_kib, argon2_iterations, argon2_lanes])?;
            let stream = SealStream::new(secret, &options).map_err(|e| stream_status(&e))?;
            Ok(GcmsivEncryptor { stream: Some(stream), pending: Vec::new(), drained: 0, failed: GCMSIV_OK })
        })
    }
}

/// Takes `in_len` bytes of plaintext; the file bytes ready (the header
/// first) become pending. `GCMSIV_ERR_STATE` while output is pending (drain
/// it first) or after finish.
///
/// # Safety
/// `enc` a live encryptor; `in` covers `in_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_encryptor_push(
    enc: *mut GcmsivEncryptor,
    r#in: *const u8,
    in_len: usize,
) -> c_int {
    // SAFETY: the caller's contract.
    let enc = match unsafe { handle(enc) } {
        Ok(enc) => enc,
        Err(code) => return fail(code, "NULL encryptor"),
    };
    if enc.failed != GCMSIV_OK {
        return fail(enc.failed, "the encryptor failed before");
    }
    if enc.drained < enc.pending.len() {
        return fail(GCMSIV_ERR_STATE, "output is pending: drain it before pushing more");
    }
    let Some(stream) = enc.stream.as_mut() else {
        return fail(GCMSIV_ERR_STATE, "the encryptor is finished");
    };
    let pending = &mut enc.pending;
    let code = run(|| {
        // SAFETY: the caller's contract.
        let plaintext = unsafe { input(r#in, in_len) }?;
        stream.push(plaintext, pending).map_err(|e| stream_status(&e))
    });
    if code == GCMSIV_ERR_INTERNAL {
        enc.failed = code;
        enc.stream = None;
    }
    code
}

/// Seals the final chunk; the rest of the file becomes pending. Every
/// file must be finished: one that is not reads as truncated.
///
/// # Safety
/// `enc` a live encryptor.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_encryptor_finish(enc: *mut GcmsivEncryptor) -> c_int {
    // SAFETY: the caller's contract.
    let enc = match unsafe { handle(enc) } {
        Ok(enc) => enc,
        Err(code) => return fail(code, "NULL encryptor"),
    };
    if enc.failed != GCMSIV_OK {
        return fail(enc.failed, "the encryptor failed before");
    }
    let Some(stream) = enc.stream.take() else {
        return fail(GCMSIV_ERR_STATE, "the encryptor is finished");
    };
    let pending = &mut enc.pending;
    let code = run(|| stream.finish(pending).map_err(|e| stream_status(&e)));
    if code != GCMSIV_OK {
        enc.failed = code;
    }
    code
}

/// Bytes pending: what the next drains return.
///
/// # Safety
/// `enc` NULL (0) or a live encryptor.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_encryptor_pending(enc: *const GcmsivEncryptor) -> usize {
    // SAFETY: the caller's contract.
    unsafe { ffi::handle_ref(enc) }.map_or(0, |e| e.pending.len() - e.drained)
}

/// Moves up to `out_cap` pending file bytes into `out`; `*out_len` gets the
/// count (0 when nothing is pending).
///
/// # Safety
/// `enc` a live encryptor; `out` covers `out_cap` writable bytes; `out_len`
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_encryptor_drain(
    enc: *mut GcmsivEncryptor,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    // SAFETY: `out_len` NULL or writable.
    unsafe { put(out_len, 0) };
    // SAFETY: the caller's contract.
    let enc = match unsafe { handle(enc) } {
        Ok(enc) => enc,
        Err(code) => return fail(code, "NULL encryptor"),
    };
    // SAFETY: the caller's contract.
    run(|| unsafe { drain_into(&mut enc.pending, &mut enc.drained, out, out_cap, out_len, false) })
}

/// Frees an encryptor (its keys zeroized). NULL is ignored. A file not
/// finished stays truncated.
///
/// # Safety
/// `enc` is NULL or from `gcmsiv_encryptor_new*`, and not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_encryptor_free(enc: *mut GcmsivEncryptor) {
    // SAFETY: the caller's contract.
    unsafe { free(enc) }
}

// ------------------------------------------------------------- decryption

/// A file being read (`gcmsiv_decryptor`).
pub struct GcmsivDecryptor {
    stream: OpenStream,
    /// Authenticated plaintext not yet drained: `pending[drained..]`. Sized
    /// before each push so that it never moves (which would leave a copy
    /// behind), wiped once drained and when freed.
    pending: Wiped,
    drained: usize,
    /// Set after a panic: every later call fails.
    poisoned: bool,
}

/// The most plaintext a push of `in_len` bytes can release: those bytes
/// and a batch of chunks held from before (the stream's batches: 2 MiB, or
/// two chunks per thread of rayon's pool), plus a chunk.
fn release_bound(in_len: usize, chunk_size: usize) -> usize {
    let batch = (2usize << 20).max(2 * rayon::current_num_threads() * chunk_size);
    in_len.saturating_add(batch).saturating_add(chunk_size)
}

/// Starts reading a file encrypted to `secret`.
///
/// # Safety
/// `dec_out` writable; `secret` a live secret.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_decryptor_new(
    dec_out: *mut *mut GcmsivDecryptor,
    secret: *const GcmsivSecret,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        make(dec_out, || {
            let secret = secret_ref(secret)?;
            Ok(GcmsivDecryptor {
                stream: OpenStream::new(secret),
                pending: Wiped::default(),
                drained: 0,
                poisoned: false,
            })
        })
    }
}

/// Takes `in_len` bytes of the file; the plaintext of every chunk they
/// complete becomes pending once authenticated. A failure (the file's
/// status: `GCMSIV_ERR_AUTHENTICATION`, `GCMSIV_ERR_FORMAT`, ...) leaves the
/// plaintext of the chunks before it pending, and every later push and
/// finish returns it again. `GCMSIV_ERR_STATE` while output is pending.
///
/// # Safety
/// `dec` a live decryptor; `in` covers `in_len` readable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_decryptor_push(
    dec: *mut GcmsivDecryptor,
    r#in: *const u8,
    in_len: usize,
) -> c_int {
    // SAFETY: the caller's contract.
    let dec = match unsafe { handle(dec) } {
        Ok(dec) => dec,
        Err(code) => return fail(code, "NULL decryptor"),
    };
    if dec.poisoned {
        return fail(GCMSIV_ERR_INTERNAL, "the decryptor failed before");
    }
    if dec.drained < dec.pending.0.len() {
        return fail(GCMSIV_ERR_STATE, "output is pending: drain it before pushing more");
    }
    let chunk_size = dec.stream.header().map_or(1 << 20, |h| h.chunk_size());
    let (stream, pending) = (&mut dec.stream, &mut dec.pending.0);
    let code = run(|| {
        // SAFETY: the caller's contract.
        let bytes = unsafe { input(r#in, in_len) }?;
        pending.reserve(release_bound(in_len, chunk_size));
        stream.push(bytes, pending).map_err(|e| stream_status(&e))
    });
    if code == GCMSIV_ERR_INTERNAL {
        dec.poisoned = true;
        gcmsiv_glue::wipe(&mut dec.pending.0);
        dec.pending.0.clear();
    }
    code
}

/// Says whether the file ended where it should: `GCMSIV_OK` after its final
/// chunk, `GCMSIV_ERR_TRUNCATED` if it stopped before, or the failure a push
/// met. Call it when the input has ended, and count the file good only then.
///
/// # Safety
/// `dec` a live decryptor.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_decryptor_finish(dec: *mut GcmsivDecryptor) -> c_int {
    // SAFETY: the caller's contract.
    let dec = match unsafe { handle(dec) } {
        Ok(dec) => dec,
        Err(code) => return fail(code, "NULL decryptor"),
    };
    if dec.poisoned {
        return fail(GCMSIV_ERR_INTERNAL, "the decryptor failed before");
    }
    let stream = &mut dec.stream;
    run(|| stream.finish().map_err(|e| stream_status(&e)))
}

/// Plaintext bytes pending.
///
/// # Safety
/// `dec` NULL (0) or a live decryptor.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_decryptor_pending(dec: *const GcmsivDecryptor) -> usize {
    // SAFETY: the caller's contract.
    unsafe { ffi::handle_ref(dec) }.map_or(0, |d| d.pending.0.len() - d.drained)
}

/// Moves up to `out_cap` bytes of pending plaintext into `out`; `*out_len`
/// gets the count. Works after a failure too: what was authenticated before
/// it.
///
/// # Safety
/// `dec` a live decryptor; `out` covers `out_cap` writable bytes; `out_len`
/// writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_decryptor_drain(
    dec: *mut GcmsivDecryptor,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    // SAFETY: `out_len` NULL or writable.
    unsafe { put(out_len, 0) };
    // SAFETY: the caller's contract.
    let dec = match unsafe { handle(dec) } {
        Ok(dec) => dec,
        Err(code) => return fail(code, "NULL decryptor"),
    };
    // SAFETY: the caller's contract.
    run(|| unsafe { drain_into(&mut dec.pending.0, &mut dec.drained, out, out_cap, out_len, true) })
}

/// Frees a decryptor, wiping the plaintext it held. NULL is ignored.
///
/// # Safety
/// `dec` is NULL or from `gcmsiv_decryptor_new`, and not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_decryptor_free(dec: *mut GcmsivDecryptor) {
    // SAFETY: the caller's contract.
    unsafe { free(dec) }
}

// ---------------------------------------------------------- random access

/// Random access into one file (`gcmsiv_reader`).
pub struct GcmsivReader {
    access: RandomAccess,
}

/// Checks a file's header (its first `header_len` bytes, at least 86) with
/// `secret`; `file_size` is the whole file's size. Next: read the final
/// chunk (`gcmsiv_reader_final_chunk`) and verify it.
///
/// # Safety
/// `reader_out` writable; `header` covers `header_len` readable bytes;
/// `secret` a live secret.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_reader_new(
    reader_out: *mut *mut GcmsivReader,
    header: *const u8,
    header_len: usize,
    file_size: u64,
    secret: *const GcmsivSecret,
) -> c_int {
    // SAFETY: the caller's contract.
    unsafe {
        make(reader_out, || {
            let secret = secret_ref(secret)?;
            let header = input(header, header_len)?;
            let access = RandomAccess::new(header, file_size, secret).map_err(|e| stream_status(&e))?;
            Ok(GcmsivReader { access })
        })
    }
}

/// Where the final chunk is: its offset in the file and its length.
///
/// # Safety
/// `reader` a live reader; `offset` and `len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_reader_final_chunk(
    reader: *const GcmsivReader,
    offset: *mut u64,
    len: *mut u64,
) -> c_int {
    // SAFETY: the caller's contract.
    let Ok(reader) = (unsafe { ffi::handle_ref(reader) }) else {
        return fail(GCMSIV_ERR_NULL_POINTER, "NULL reader");
    };
    if offset.is_null() || len.is_null() {
        return fail(GCMSIV_ERR_NULL_POINTER, "NULL output");
    }
    let (at, n) = reader.access.final_chunk();
    // SAFETY: checked non-null; writable by the contract.
    unsafe { (put(offset, at), put(len, n)) };
    GCMSIV_OK
}

/// Authenticates the final chunk (the bytes `gcmsiv_reader_final_chunk`
/// named) and writes the plaintext's length to `*plaintext_len` (if not
/// NULL). Needed once before any range is opened.
///
/// # Safety
/// `reader` a live reader used by no other thread meanwhile; `stored`
/// covers `stored_len` readable bytes; `plaintext_len` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_reader_verify_final(
    reader: *mut GcmsivReader,
    stored: *const u8,
    stored_len: usize,
    plaintext_len: *mut u64,
) -> c_int {
    // SAFETY: the caller's contract.
    let reader = match unsafe { handle(reader) } {
        Ok(reader) => reader,
        Err(code) => return fail(code, "NULL reader"),
    };
    let access = &mut reader.access;
    run(|| {
        // SAFETY: the caller's contract.
        let stored = unsafe { input(stored, stored_len) }?;
        let len = access.verify_final(stored).map_err(|e| stream_status(&e))?;
        // SAFETY: the caller's contract.
        unsafe { put(plaintext_len, len) };
        Ok(())
    })
}

/// The plaintext's length, once the final chunk verified
/// (`GCMSIV_ERR_STATE` before).
///
/// # Safety
/// `reader` a live reader; `plaintext_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_reader_size(reader: *const GcmsivReader, plaintext_len: *mut u64) -> c_int {
    // SAFETY: the caller's contract.
    let Ok(reader) = (unsafe { ffi::handle_ref(reader) }) else {
        return fail(GCMSIV_ERR_NULL_POINTER, "NULL reader");
    };
    let Some(len) = reader.access.len() else {
        return fail(GCMSIV_ERR_STATE, "verify the final chunk first");
    };
    if plaintext_len.is_null() {
        return fail(GCMSIV_ERR_NULL_POINTER, "NULL output");
    }
    // SAFETY: checked non-null; writable by the contract.
    unsafe { put(plaintext_len, len) };
    GCMSIV_OK
}

/// Which stored bytes hold plaintext bytes `offset..offset + len` (cut at
/// the end): `*file_len` bytes at `*file_offset` of the file, whole chunks
/// (0 and 0 for an empty range, past the end included).
///
/// # Safety
/// `reader` a live reader; `file_offset` and `file_len` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_reader_span(
    reader: *const GcmsivReader,
    offset: u64,
    len: u64,
    file_offset: *mut u64,
    file_len: *mut u64,
) -> c_int {
    // SAFETY: the caller's contract.
    let Ok(reader) = (unsafe { ffi::handle_ref(reader) }) else {
        return fail(GCMSIV_ERR_NULL_POINTER, "NULL reader");
    };
    if file_offset.is_null() || file_len.is_null() {
        return fail(GCMSIV_ERR_NULL_POINTER, "NULL output");
    }
    if reader.access.len().is_none() {
        return fail(GCMSIV_ERR_STATE, "verify the final chunk first");
    }
    let (at, n) = reader.access.span(offset, len).map_or((0, 0), |s| (s.file_offset, s.file_len));
    // SAFETY: checked non-null; writable by the contract.
    unsafe { (put(file_offset, at), put(file_len, n)) };
    GCMSIV_OK
}

/// Authenticates the stored bytes `gcmsiv_reader_span` named for the range
/// `offset..offset + len` (exactly those, `stored_len` of them) and writes
/// that range's plaintext (cut at the end) to `out`, its length to
/// `*out_len`. All or nothing: on a failure `*out_len` is 0 and `out` holds
/// no plaintext. `out` must not overlap `stored`. Calls on one reader may
/// run on several threads at once, once the final chunk verified.
///
/// # Safety
/// `reader` a live reader; `out` covers `out_cap` writable bytes, `stored`
/// `stored_len` readable ones; `out_len` writable.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments, reason = "the grid's order: output, input, range, reader")]
pub unsafe extern "C" fn gcmsiv_reader_read(
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
    stored: *const u8,
    stored_len: usize,
    offset: u64,
    len: u64,
    reader: *const GcmsivReader,
) -> c_int {
    // SAFETY: `out_len` NULL or writable.
    unsafe { put(out_len, 0) };
    // SAFETY: the caller's contract.
    let Ok(reader) = (unsafe { ffi::handle_ref(reader) }) else {
        return fail(GCMSIV_ERR_NULL_POINTER, "NULL reader");
    };
    run(|| {
        let Some(total) = reader.access.len() else {
            return Err(fail(GCMSIV_ERR_STATE, "verify the final chunk first"));
        };
        if out_len.is_null() {
            return Err(GCMSIV_ERR_NULL_POINTER);
        }
        let Some(span) = reader.access.span(offset, len) else {
            return Ok(());
        };
        let want = len.min(total - offset) as usize;
        if out_cap < want {
            return Err(GCMSIV_ERR_BUFFER_TOO_SMALL);
        }
        if (stored_len as u64) < span.file_len {
            return Err(fail(
                GCMSIV_ERR_TRUNCATED,
                "fewer stored bytes than the span: the file is truncated",
            ));
        }
        if stored_len as u64 != span.file_len {
            return Err(fail(GCMSIV_ERR_INVALID, "more stored bytes than the span"));
        }
        clear_of(out, want, &[(stored, stored_len)])?;
        // SAFETY: the caller's contract; checked clear of `stored`.
        let (stored, out) = unsafe { (input(stored, stored_len)?, output(out, want)?) };
        // Whole chunks of plaintext, never more than the stored bytes: the
        // buffer never moves, and is wiped when dropped.
        let mut plain = Wiped(Vec::with_capacity(stored_len));
        reader.access.open(span.first_chunk, stored, &mut plain.0).map_err(|e| stream_status(&e))?;
        let skip = span.skip as usize;
        let got = plain
            .0
            .get(skip..skip + want)
            .ok_or_else(|| fail(GCMSIV_ERR_INTERNAL, "internal error: span"))?;
        out.copy_from_slice(got);
        // SAFETY: checked non-null; writable by the contract.
        unsafe { put(out_len, want) };
        Ok(())
    })
}

/// Frees a reader. NULL is ignored.
///
/// # Safety
/// `reader` is NULL or from `gcmsiv_reader_new`, and not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn gcmsiv_reader_free(reader: *mut GcmsivReader) {
    // SAFETY: the caller's contract.
    unsafe { free(reader) }
}
