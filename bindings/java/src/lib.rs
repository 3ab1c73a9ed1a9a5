//! The native half of the Java package (`dev.gcmsiv.Native`'s methods): keys
//! of the core's four AEADs behind an opaque handle, byte arrays in and out.
//! The Java classes (`java/dev/gcmsiv`) are the public API; what is thrown
//! from here: `javax.crypto.AEADBadTagException` for every authentication
//! failure, `IllegalArgumentException` for misuse (before any work),
//! `IllegalStateException` for a closed key, and `RuntimeException` for an
//! internal error (a panic, caught here: none unwinds into the JVM).
//!
//! Inputs are copied out of the Java arrays and outputs are new arrays, so
//! the Java side's arrays are never written and no reference to them is
//! kept.

use gcmsiv::{Algorithm, Backend, Cipher, Error};
use jni::JNIEnv;
use jni::objects::{JByteArray, JClass};
use jni::sys::{jint, jlong, jstring};
use std::panic::{AssertUnwindSafe, catch_unwind};
use zeroize_copy::Wiped;

/// Algorithm numbers, as `Native.java` has them.
const AES_GCM_SIV: jint = 1;
const AES_GCM: jint = 2;

/// What a call failed with, to throw as a Java exception.
enum Thrown {
    Core(Error),
    Misuse(String),
}

impl From<Error> for Thrown {
    fn from(e: Error) -> Self {
        Thrown::Core(e)
    }
}

impl From<jni::errors::Error> for Thrown {
    fn from(e: jni::errors::Error) -> Self {
        Thrown::Misuse(format!("JNI: {e}"))
    }
}

/// Runs `body`, turning its failure or panic into a pending Java exception
/// and `fallback` as the value returned to Java.
fn call<'l, T>(
    env: &mut JNIEnv<'l>,
    fallback: T,
    body: impl FnOnce(&mut JNIEnv<'l>) -> Result<T, Thrown>,
) -> T {
    let outcome = catch_unwind(AssertUnwindSafe(|| body(env)));
    let (class, message) = match outcome {
        Ok(Ok(value)) => return value,
        Ok(Err(Thrown::Core(Error::Authentication))) => {
            ("javax/crypto/AEADBadTagException", "authentication failed".to_owned())
        }
        Ok(Err(Thrown::Core(e))) => ("java/lang/IllegalArgumentException", e.to_string()),
        Ok(Err(Thrown::Misuse(m))) if m.starts_with("closed") => ("java/lang/IllegalStateException", m),
        Ok(Err(Thrown::Misuse(m))) => ("java/lang/IllegalArgumentException", m),
        Err(_) => ("java/lang/RuntimeException", "gcmsiv: internal error".to_owned()),
    };
    // An exception already pending (from a JNI call) stays the one thrown.
    if !env.exception_check().unwrap_or(true) {
        let _ = env.throw_new(class, message);
    }
    fallback
}

/// # Safety
/// `handle` is 0 or a live handle from `newKey`.
unsafe fn cipher<'a>(handle: jlong) -> Result<&'a Cipher, Thrown> {
    // SAFETY: the Java class keeps the handle alive while calls run (freeing
    // it, by `close` or by the cleaner, takes the write lock that calls hold
    // for reading) and passes 0 once it is freed.
    unsafe { (handle as *const Cipher).as_ref() }
        .ok_or_else(|| Thrown::Misuse("closed: the key was closed".into()))
}

fn backend_numbered(backend: jint) -> Result<Backend, Thrown> {
    Ok(match backend {
        0 => Backend::select(),
        1 => Backend::Portable,
        2 => Backend::AesNiClmul,
        3 => Backend::AesNiVaes,
        _ => return Err(Error::BackendUnavailable.into()),
    })
}

/// ciphertext || tag.
fn seal(cipher: &Cipher, nonce: &[u8], aad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>, Error> {
    cipher.check_lengths(nonce.len(), aad.len(), plaintext.len())?;
    let mut out = vec![0u8; plaintext.len() + cipher.tag_len()];
    let (body, tag) = out.split_at_mut(plaintext.len());
    body.copy_from_slice(plaintext);
    cipher.encrypt_in_place_detached(nonce, aad, body, tag)?;
    Ok(out)
}

/// The plaintext of ciphertext || tag (on failure the copy holds the
/// ciphertext again, as the core leaves it, and is wiped besides).
fn open(cipher: &Cipher, nonce: &[u8], aad: &[u8], sealed: &[u8]) -> Result<Wiped, Error> {
    let body = sealed.len().checked_sub(cipher.tag_len()).ok_or(Error::CiphertextTooShort)?;
    cipher.check_lengths(nonce.len(), aad.len(), body)?;
    let (ciphertext, tag) = sealed.split_at(body);
    let mut out = Wiped(ciphertext.to_vec());
    cipher.decrypt_in_place_detached(nonce, aad, &mut out.0, tag)?;
    Ok(out)
}

/// A `Vec` zeroed when dropped unless taken: the plaintext of a failed open
/// (the core has put the ciphertext back; this is belt and braces) and the
/// Java key bytes' copy.
mod zeroize_copy {
    pub struct Wiped(pub Vec<u8>);

    impl Drop for Wiped {
        fn drop(&mut self) {
            for b in self.0.iter_mut() {
                // SAFETY: a valid, aligned, exclusive reference.
                unsafe { core::ptr::write_volatile(b, 0) };
            }
        }
    }
}

fn bytes(env: &JNIEnv, array: &JByteArray) -> Result<Vec<u8>, Thrown> {
    if array.is_null() {
        return Err(Thrown::Misuse("a byte array argument is null".into()));
    }
    Ok(env.convert_byte_array(array)?)
}

/// `Native.newKey(algorithm, key, tagLength, backend)`: a handle, or 0 with
/// an exception pending.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_Native_newKey<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    algorithm: jint,
    key: JByteArray<'l>,
    tag_length: jint,
    backend: jint,
) -> jlong {
    call(&mut env, 0, |env| {
        let key = Wiped(bytes(env, &key)?);
        let backend = backend_numbered(backend)?;
        let tag_len =
            usize::try_from(tag_length).map_err(|_| Error::InvalidTagLength { expected: 16, actual: 0 })?;
        let algorithm = match (algorithm, key.0.len() > 16) {
            (AES_GCM_SIV, false) => Algorithm::Aes128GcmSiv,
            (AES_GCM_SIV, true) => Algorithm::Aes256GcmSiv,
            (AES_GCM, false) => Algorithm::Aes128Gcm,
            (AES_GCM, true) => Algorithm::Aes256Gcm,
            _ => return Err(Thrown::Misuse(format!("unknown algorithm {algorithm}"))),
        };
        let cipher = Cipher::new(algorithm, &key.0, tag_len, backend)?;
        Ok(Box::into_raw(Box::new(cipher)) as jlong)
    })
}

/// `Native.freeKey(handle)`: drops (and zeroizes) the key.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_Native_freeKey<'l>(
    _env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    if handle != 0 {
        // SAFETY: made by `newKey`; the Java class frees each handle once,
        // after every call on it has returned.
        let key = unsafe { Box::from_raw(handle as *mut Cipher) };
        let _ = catch_unwind(AssertUnwindSafe(|| drop(key)));
    }
}

/// `Native.backend(handle)`: the backend's name.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_Native_backend<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jstring {
    call(&mut env, core::ptr::null_mut(), |env| {
        // SAFETY: the Java class's contract for handles.
        let backend = unsafe { cipher(handle) }?.backend();
        Ok(env.new_string(backend.name())?.into_raw())
    })
}

/// `Native.tagLength(handle)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_Native_tagLength<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    // SAFETY: the Java class's contract for handles.
    call(&mut env, 0, |_| Ok(unsafe { cipher(handle) }?.tag_len() as jint))
}

/// `Native.seal(handle, nonce, plaintext, aad)`: ciphertext || tag.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_Native_seal<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    nonce: JByteArray<'l>,
    plaintext: JByteArray<'l>,
    aad: JByteArray<'l>,
) -> JByteArray<'l> {
    call(&mut env, JByteArray::default(), |env| {
        // SAFETY: the Java class's contract for handles.
        let key = unsafe { cipher(handle) }?;
        let (nonce, aad) = (bytes(env, &nonce)?, bytes(env, &aad)?);
        let sealed = seal(key, &nonce, &aad, &bytes(env, &plaintext)?)?;
        Ok(env.byte_array_from_slice(&sealed)?)
    })
}

/// `Native.open(handle, nonce, sealed, aad)`: the plaintext, or an
/// `AEADBadTagException` pending.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_Native_open<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    nonce: JByteArray<'l>,
    sealed: JByteArray<'l>,
    aad: JByteArray<'l>,
) -> JByteArray<'l> {
    call(&mut env, JByteArray::default(), |env| {
        // SAFETY: the Java class's contract for handles.
        let key = unsafe { cipher(handle) }?;
        let (nonce, aad, sealed) = (bytes(env, &nonce)?, bytes(env, &aad)?, bytes(env, &sealed)?);
        let plaintext = open(key, &nonce, &aad, &sealed)?;
        Ok(env.byte_array_from_slice(&plaintext.0)?)
    })
}
