//! The native half of the Java stream classes (`dev.gcmsiv.NativeStream`'s
//! methods): the I/O-free types of `gcmsiv-stream` ([`SealStream`],
//! [`OpenStream`], [`RandomAccess`]) behind opaque handles, for
//! `GcmsivOutputStream`, `GcmsivInputStream` and `GcmsivChannel`, which do
//! the reading and writing in Java. The chunk logic is the library's; nothing
//! of the format is written again here.
//!
//! What is thrown: `javax.crypto.AEADBadTagException` for an authentication
//! failure (a wrong key or passphrase, a forged chunk), which the Java classes
//! wrap in `GcmsivAuthenticationException` (an `IOException`);
//! `dev.gcmsiv.GcmsivFormatException` for any other fault of the file;
//! `IllegalArgumentException` for options the format does not allow. Every
//! call runs under the glue's panic guard (`call`).
//!
//! Inputs are read in the Java arrays themselves (`GetPrimitiveArrayCritical`:
//! the garbage collector waits while a batch of chunks is sealed or opened,
//! about a millisecond); outputs are new Java arrays.
//!
//! Handles: each is a `Box` of a `Mutex` (so that two Java threads misusing
//! one stream cannot race on it), made by a `*New` call and freed once by the
//! matching `*Free`; the Java classes serialize calls and free on a lock.
//! Copies of secrets and plaintext made here are wiped when dropped.

use std::sync::Mutex;

use gcmsiv_stream::format::HEADER_LEN;
use gcmsiv_stream::{
    Algorithm, Argon2Cost, Error, Header, Identity, MasterKey, OpenStream, Options, RandomAccess, Recipient,
    RecipientKind, SealStream, Secret,
};
use jni::JNIEnv;
use jni::objects::{JByteArray, JClass};
use jni::sys::{jbyteArray, jint, jlong, jlongArray, jstring};
use zeroize::Zeroizing;

use crate::{Critical, Raw, Thrown, call, range, size};

/// Secret kinds and algorithms, as `NativeStream.java` numbers them.
const KEY: jint = 1;
const PASSPHRASE: jint = 2;
const RECIPIENTS: jint = 3;
const MIXED_RECIPIENTS: jint = 4;
const IDENTITIES: jint = 5;
const AES128: jint = 128;
const AES256: jint = 256;

fn thrown(err: Error) -> Thrown {
    match &err {
        Error::Decode(e) if e.is_authentication() => {
            Thrown::Throw("javax/crypto/AEADBadTagException", err.to_string())
        }
        Error::Decode(_) => Thrown::Throw("dev/gcmsiv/GcmsivFormatException", err.to_string()),
        Error::Invalid(_) | Error::KeyFile(_) => Thrown::Misuse(err.to_string()),
        _ => Thrown::Throw("java/io/IOException", format!("gcmsiv: {err}")),
    }
}

fn null_handle() -> Thrown {
    Thrown::Misuse("closed: the stream was closed".into())
}

/// Runs `f` on a Java array's bytes `offset..offset + len` in place
/// (`GetPrimitiveArrayCritical`, as the message paths of `lib.rs` hold long
/// inputs): no copy of the plaintext or the file is made here, and no JNI call
/// runs while the array is held.
fn with_region<R>(
    env: &JNIEnv,
    array: &JByteArray,
    offset: jint,
    len: jint,
    f: impl FnOnce(&[u8]) -> R,
) -> Result<R, Thrown> {
    if array.is_null() {
        return Err(Thrown::Misuse("a byte array argument is null".into()));
    }
    let raw = Raw::of(env);
    let (offset, len) = (size(offset, "offset")?, size(len, "length")?);
    let span = range(offset, len, raw.length(array.as_raw()))?;
    if len == 0 {
        return Ok(f(&[]));
    }
    let held = Critical::new(raw, array.as_raw(), false)?;
    // SAFETY: the elements of a live array, valid until `held` drops (after
    // `f` returns); `span` is within its length.
    let bytes = unsafe { core::slice::from_raw_parts(held.ptr.add(span.start), len) };
    Ok(f(bytes))
}

/// Plaintext on its way to Java, wiped (a plain fill, the glue's `wipe`) when
/// dropped. Made with room for what a call returns in the common case (the
/// input and a batch of about 2 MiB), so that it is not moved as it grows.
struct Plain(Vec<u8>);

impl Plain {
    fn with_room(input: jint) -> Self {
        Plain(Vec::with_capacity(usize::try_from(input).unwrap_or(0) + (2 << 20)))
    }
}

impl Drop for Plain {
    fn drop(&mut self) {
        gcmsiv_glue::wipe(&mut self.0);
    }
}

fn whole(env: &JNIEnv, array: &JByteArray) -> Result<Zeroizing<Vec<u8>>, Thrown> {
    if array.is_null() {
        return Err(Thrown::Misuse("a byte array argument is null".into()));
    }
    Ok(Zeroizing::new(env.convert_byte_array(array)?))
}

fn to_java(env: &JNIEnv, data: &[u8]) -> Result<jbyteArray, Thrown> {
    Ok(env.byte_array_from_slice(data)?.into_raw())
}

fn longs(env: &JNIEnv, values: &[i64]) -> Result<jlongArray, Thrown> {
    let array = env.new_long_array(values.len() as i32)?;
    env.set_long_array_region(&array, 0, values)?;
    Ok(array.into_raw())
}

fn secret(env: &JNIEnv, kind: jint, bytes: &JByteArray) -> Result<Secret, Thrown> {
    let bytes = whole(env, bytes)?;
    let text = || core::str::from_utf8(&bytes).map_err(|_| Thrown::Misuse("the text is not UTF-8".into()));
    match kind {
        KEY => Ok(Secret::Key(MasterKey::from_slice(&bytes).map_err(thrown)?)),
        PASSPHRASE if bytes.is_empty() => Err(Thrown::Misuse("the passphrase is empty".into())),
        PASSPHRASE => Ok(Secret::passphrase(&*bytes)),
        RECIPIENTS | MIXED_RECIPIENTS => {
            let list = Recipient::parse_list(text()?)
                .map_err(|why| Thrown::Misuse(format!("not a list of recipients: {why}")))?;
            if list.is_empty() {
                return Err(Thrown::Misuse("no recipient given".into()));
            }
            Ok(if kind == RECIPIENTS { Secret::Recipients(list) } else { Secret::MixedRecipients(list) })
        }
        IDENTITIES => Ok(Secret::Identities(
            Identity::parse_list(text()?)
                .map_err(|why| Thrown::Misuse(format!("not a list of identities: {why}")))?,
        )),
        _ => Err(Thrown::Misuse(format!("unknown secret kind {kind}"))),
    }
}

fn unsigned(n: jlong, what: &str) -> Result<u64, Thrown> {
    u64::try_from(n).map_err(|_| Thrown::Misuse(format!("negative {what}")))
}

fn into_handle<T>(value: T) -> jlong {
    Box::into_raw(Box::new(Mutex::new(value))) as jlong
}

/// Runs `f` on the value behind `handle`.
///
/// # Safety
/// `handle` is 0 or a live handle of a `Mutex<T>` from [`into_handle`].
unsafe fn with<T, R>(handle: jlong, f: impl FnOnce(&mut T) -> Result<R, Thrown>) -> Result<R, Thrown> {
    // SAFETY: the caller's contract; the Java classes free a handle once,
    // under the lock every call on it holds, and pass 0 after.
    let cell = unsafe { (handle as *const Mutex<T>).as_ref() }.ok_or_else(null_handle)?;
    let mut value =
        cell.lock().map_err(|_| Thrown::Misuse("closed: a call on this stream panicked".into()))?;
    f(&mut value)
}

/// Frees a handle from [`into_handle`] (its secrets are zeroized as it drops).
///
/// # Safety
/// `handle` is 0 or a live handle of a `Mutex<T>`, freed once.
unsafe fn free<T>(handle: jlong) {
    if handle != 0 {
        // SAFETY: the caller's contract.
        let value = unsafe { Box::from_raw(handle as *mut Mutex<T>) };
        let _ = gcmsiv_glue::guard(|| drop(value));
    }
}

/// `NativeStream.headerLength()`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_headerLength<'l>(
    _env: JNIEnv<'l>,
    _class: JClass<'l>,
) -> jint {
    HEADER_LEN as jint
}

/// `NativeStream.generateIdentity(kind)`: a new identity of kind 1 (X25519)
/// or 2 (hybrid), as "identity\nrecipient".
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_generateIdentity<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    kind: jint,
) -> jstring {
    call(&mut env, core::ptr::null_mut(), |env| {
        let kind = u8::try_from(kind)
            .ok()
            .and_then(RecipientKind::from_id)
            .ok_or_else(|| Thrown::Misuse(format!("unknown recipient kind {kind}")))?;
        let identity = Identity::generate(kind).map_err(thrown)?;
        let mut both = Zeroizing::new(String::with_capacity(4096));
        both.push_str(&identity.to_secret_string());
        both.push('\n');
        both.push_str(&identity.recipient().to_string());
        Ok(env.new_string(both.as_str())?.into_raw())
    })
}

/// `NativeStream.identityRecipient(identity)`: the recipient of an identity string.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_identityRecipient<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    identity: JByteArray<'l>,
) -> jstring {
    call(&mut env, core::ptr::null_mut(), |env| {
        let bytes = whole(env, &identity)?;
        let text =
            core::str::from_utf8(&bytes).map_err(|_| Thrown::Misuse("the identity is not UTF-8".into()))?;
        let identity =
            Identity::parse(text).map_err(|why| Thrown::Misuse(format!("not an identity: {why}")))?;
        Ok(env.new_string(identity.recipient().to_string())?.into_raw())
    })
}

/// `NativeStream.headerNeeded(prefix)`: how long the header of the file that
/// starts with `prefix` is, as far as the prefix tells.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_headerNeeded<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    prefix: JByteArray<'l>,
) -> jint {
    call(&mut env, 0, |env| {
        let prefix = whole(env, &prefix)?;
        let n = Header::needed(&prefix).map_err(|e| thrown(Error::Decode(e)))?;
        Ok(n as jint)
    })
}

/// `NativeStream.parseKeyFile(text)`: the 32 bytes of a key file's text.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_parseKeyFile<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    text: JByteArray<'l>,
) -> jbyteArray {
    call(&mut env, core::ptr::null_mut(), |env| {
        let text = whole(env, &text)?;
        let text = std::str::from_utf8(&text).map_err(|_| thrown(Error::KeyFile("it is not UTF-8 text")))?;
        let key = MasterKey::from_key_file(text).map_err(|why| thrown(Error::KeyFile(why)))?;
        to_java(env, key.as_bytes())
    })
}

/// `NativeStream.randomBytes(out)`: fills `out` from the operating system.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_randomBytes<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    out: JByteArray<'l>,
) {
    call(&mut env, (), |env| {
        let raw = Raw::of(env);
        let mut bytes = vec![0u8; raw.length(out.as_raw())];
        getrandom::fill(&mut bytes).map_err(|_| thrown(Error::Random))?;
        raw.write(out.as_raw(), 0, &bytes);
        raw.failed()
    })
}

/// `NativeStream.sealNew(kind, secret, chunkSize, algorithm, memoryKib,
/// iterations, lanes)`: a writer's handle (Argon2id runs here for a passphrase).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_sealNew<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    kind: jint,
    secret_bytes: JByteArray<'l>,
    chunk_size: jint,
    algorithm: jint,
    memory_kib: jint,
    iterations: jint,
    lanes: jint,
) -> jlong {
    call(&mut env, 0, |env| {
        let algorithm = match algorithm {
            AES128 => Algorithm::Aes128GcmSiv,
            AES256 => Algorithm::Aes256GcmSiv,
            _ => return Err(Thrown::Misuse(format!("unknown algorithm {algorithm}"))),
        };
        let cost = Argon2Cost {
            memory_kib: size(memory_kib, "Argon2id memory")? as u32,
            iterations: size(iterations, "Argon2id iterations")? as u32,
            lanes: size(lanes, "Argon2id lanes")? as u32,
        };
        let options = Options::new()
            .algorithm(algorithm)
            .chunk_size(size(chunk_size, "chunk size")?)
            .and_then(|o| o.argon2_cost(cost))
            .map_err(thrown)?;
        let secret = secret(env, kind, &secret_bytes)?;
        let stream = SealStream::new(&secret, &options).map_err(thrown)?;
        Ok(into_handle(Some(stream)))
    })
}

/// `NativeStream.sealPush(handle, in, offset, length)`: the file bytes ready.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_sealPush<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    input: JByteArray<'l>,
    offset: jint,
    length: jint,
) -> jbyteArray {
    call(&mut env, core::ptr::null_mut(), |env| {
        let mut out = Vec::new();
        with_region(env, &input, offset, length, |plaintext| {
            // SAFETY: `NativeStream`'s contract for handles.
            unsafe {
                with(handle, |s: &mut Option<SealStream>| {
                    s.as_mut().ok_or_else(null_handle)?.push(plaintext, &mut out).map_err(thrown)
                })
            }
        })??;
        to_java(env, &out)
    })
}

/// `NativeStream.sealFinish(handle)`: the rest of the file and its final chunk.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_sealFinish<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jbyteArray {
    call(&mut env, core::ptr::null_mut(), |env| {
        let mut out = Vec::new();
        // SAFETY: `NativeStream`'s contract for handles.
        unsafe {
            with(handle, |s: &mut Option<SealStream>| {
                s.take().ok_or_else(null_handle)?.finish(&mut out).map_err(thrown)
            })
        }?;
        to_java(env, &out)
    })
}

/// `NativeStream.sealFree(handle)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_sealFree<'l>(
    _env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    // SAFETY: `NativeStream`'s contract: freed once.
    unsafe { free::<Option<SealStream>>(handle) }
}

/// `NativeStream.openNew(kind, secret)`: a reader's handle (the header is
/// checked when it arrives).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_openNew<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    kind: jint,
    secret_bytes: JByteArray<'l>,
) -> jlong {
    call(&mut env, 0, |env| Ok(into_handle(OpenStream::new(&secret(env, kind, &secret_bytes)?))))
}

/// `NativeStream.openPush(handle, in, offset, length)`: the plaintext of the
/// chunks these bytes complete, each authenticated. A failure after some
/// chunks authenticated returns their plaintext, and the next call throws it
/// (the stream keeps its failure): no byte of a chunk that failed is returned.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_openPush<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    input: JByteArray<'l>,
    offset: jint,
    length: jint,
) -> jbyteArray {
    call(&mut env, core::ptr::null_mut(), |env| {
        let mut out = Plain::with_room(length);
        let result = with_region(env, &input, offset, length, |stored| {
            // SAFETY: `NativeStream`'s contract for handles.
            unsafe { with(handle, |s: &mut OpenStream| Ok(s.push(stored, &mut out.0))) }
        })??;
        match result {
            Ok(()) => to_java(env, &out.0),
            Err(_) if !out.0.is_empty() => to_java(env, &out.0),
            Err(e) => Err(thrown(e)),
        }
    })
}

/// `NativeStream.openFinish(handle)`: throws unless the file ended just after
/// its final chunk.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_openFinish<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    // SAFETY: `NativeStream`'s contract for handles.
    call(&mut env, (), |_| unsafe { with(handle, |s: &mut OpenStream| s.finish().map_err(thrown)) })
}

/// `NativeStream.openFree(handle)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_openFree<'l>(
    _env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    // SAFETY: `NativeStream`'s contract: freed once.
    unsafe { free::<OpenStream>(handle) }
}

/// `NativeStream.accessNew(header, fileLength, kind, secret)`: random access
/// to a file whose first bytes are `header` (Argon2id runs here for a
/// passphrase).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_accessNew<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    header: JByteArray<'l>,
    file_len: jlong,
    kind: jint,
    secret_bytes: JByteArray<'l>,
) -> jlong {
    call(&mut env, 0, |env| {
        let header = whole(env, &header)?;
        let secret = secret(env, kind, &secret_bytes)?;
        let access = RandomAccess::new(&header, unsigned(file_len, "file size")?, &secret).map_err(thrown)?;
        Ok(into_handle(access))
    })
}

/// `NativeStream.accessFinalChunk(handle)`: `{offset, length}` of the final chunk.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_accessFinalChunk<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jlongArray {
    call(&mut env, core::ptr::null_mut(), |env| {
        // SAFETY: `NativeStream`'s contract for handles.
        let (at, len) = unsafe { with(handle, |a: &mut RandomAccess| Ok(a.final_chunk())) }?;
        longs(env, &[at as i64, len as i64])
    })
}

/// `NativeStream.accessVerifyFinal(handle, stored, length)`: authenticates
/// the final chunk; returns the plaintext size.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_accessVerifyFinal<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    stored: JByteArray<'l>,
    length: jint,
) -> jlong {
    call(&mut env, 0, |env| {
        let len = with_region(env, &stored, 0, length, |stored| {
            // SAFETY: `NativeStream`'s contract for handles.
            unsafe { with(handle, |a: &mut RandomAccess| a.verify_final(stored).map_err(thrown)) }
        })??;
        Ok(len as jlong)
    })
}

/// `NativeStream.accessSpan(handle, offset, length)`: `{firstChunk,
/// fileOffset, fileLength, skip}` for a plaintext range, or null if it is empty.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_accessSpan<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    offset: jlong,
    length: jlong,
) -> jlongArray {
    call(&mut env, core::ptr::null_mut(), |env| {
        let (offset, length) = (unsigned(offset, "offset")?, unsigned(length, "length")?);
        // SAFETY: `NativeStream`'s contract for handles.
        let span = unsafe { with(handle, |a: &mut RandomAccess| Ok(a.span(offset, length))) }?;
        match span {
            None => Ok(core::ptr::null_mut()),
            Some(s) => {
                longs(env, &[s.first_chunk as i64, s.file_offset as i64, s.file_len as i64, s.skip as i64])
            }
        }
    })
}

/// `NativeStream.accessOpen(handle, firstChunk, stored, length)`: the
/// plaintext of the whole chunks in `stored[0, length)`, each authenticated;
/// all of it or an exception.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_accessOpen<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    first_chunk: jlong,
    stored: JByteArray<'l>,
    length: jint,
) -> jbyteArray {
    call(&mut env, core::ptr::null_mut(), |env| {
        let first = unsigned(first_chunk, "chunk index")?;
        let mut out = Plain(Vec::with_capacity(usize::try_from(length).unwrap_or(0)));
        with_region(env, &stored, 0, length, |stored| {
            // SAFETY: `NativeStream`'s contract for handles.
            unsafe { with(handle, |a: &mut RandomAccess| a.open(first, stored, &mut out.0).map_err(thrown)) }
        })??;
        to_java(env, &out.0)
    })
}

/// `NativeStream.accessFree(handle)`.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_NativeStream_accessFree<'l>(
    _env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) {
    // SAFETY: `NativeStream`'s contract: freed once.
    unsafe { free::<RandomAccess>(handle) }
}
