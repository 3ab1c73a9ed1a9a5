//! The native half of the Java package (`dev.gcmsiv.Native`'s methods): keys
//! of the core's four AEADs behind an opaque handle, byte arrays in and out.
//! The Java classes (`java/dev/gcmsiv`) are the public API; what is thrown
//! from here: `javax.crypto.AEADBadTagException` for every authentication
//! failure, `IllegalArgumentException` for misuse (before any work),
//! `IllegalStateException` for a closed key, `OutOfMemoryError` when a
//! decryption's native buffer cannot be had, and `RuntimeException` for an
//! internal error (a panic, caught here: none unwinds into the JVM).
//!
//! How bytes cross: a message of up to [`STACK_MAX`] bytes is copied by the
//! JVM into a buffer on the native stack and the result copied back (a copy
//! of plaintext is wiped). A longer seal runs in the Java arrays themselves,
//! held with `GetPrimitiveArrayCritical` (no copy; the garbage collector
//! waits meanwhile), and so does a batch's arena (a private array). A longer
//! open is decrypted in this thread's native scratch buffer (the glue's
//! `with_scratch`) and copied out only if authentic: no Java thread can see
//! plaintext before the tag check.
//! Direct `ByteBuffer`s are used through their memory, opens again through
//! native buffers. Only the output range is written, and no reference to an
//! array is kept after a call.
//!
//! The keys are `gcmsiv::Cipher`s; the panic guard, the error mapping, the
//! scratch buffer, batches and backend numbers are the bindings' shared glue
//! (`gcmsiv-glue`).

use core::mem::MaybeUninit;
use gcmsiv::{Algorithm, Cipher, Error};
use gcmsiv_glue::{
    Class, Failure, Message, backend_names, backend_numbered, guard, open_batch, seal_batch, wipe,
    with_scratch,
};
use jni::JNIEnv;
use jni::objects::{JByteArray, JClass};
use jni::sys::{self, jboolean, jint, jlong, jstring};
use zeroize_copy::Wiped;

mod stream;

/// Algorithm numbers, as `Native.java` has them.
const AES_GCM_SIV: jint = 1;
const AES_GCM: jint = 2;

/// What a call failed with, to throw as a Java exception.
enum Thrown {
    /// The core's error, or a panic.
    Failed(Failure),
    Misuse(String),
    /// A JNI call threw; its exception is the one to leave pending.
    Pending,
    /// Native memory for a scratch buffer could not be had.
    OutOfMemory,
    /// An exception of this class with this message (the stream calls, `stream.rs`).
    Throw(&'static str, String),
}

impl From<Error> for Thrown {
    fn from(e: Error) -> Self {
        Thrown::Failed(e.into())
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
    let (class, message) = match guard(|| body(env)) {
        Ok(Ok(value)) => return value,
        Ok(Err(Thrown::Pending)) => return fallback,
        Ok(Err(Thrown::OutOfMemory)) => {
            ("java/lang/OutOfMemoryError", "gcmsiv: no native memory for the decryption's buffer".to_owned())
        }
        Ok(Err(Thrown::Failed(failure))) | Err(failure) => match failure.class() {
            Class::Authentication => ("javax/crypto/AEADBadTagException", failure.to_string()),
            Class::Misuse => ("java/lang/IllegalArgumentException", failure.to_string()),
            Class::Internal => ("java/lang/RuntimeException", format!("gcmsiv: {failure}")),
        },
        Ok(Err(Thrown::Throw(class, m))) => (class, m),
        Ok(Err(Thrown::Misuse(m))) if m.starts_with("closed") => ("java/lang/IllegalStateException", m),
        Ok(Err(Thrown::Misuse(m))) => ("java/lang/IllegalArgumentException", m),
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

/// A `Vec` zeroed when dropped, byte by byte with volatile stores (a key is
/// a few dozen bytes): the Java key bytes' copy.
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
        let backend = backend_numbered(backend).ok_or(Error::BackendUnavailable)?;
        let tag_len = size(tag_length, "tag length")?;
        let algorithm = match (algorithm, key.0.len() > 16) {
            (AES_GCM_SIV, false) => Algorithm::Aes128GcmSiv,
            (AES_GCM_SIV, true) => Algorithm::Aes256GcmSiv,
            (AES_GCM, false) => Algorithm::Aes128Gcm,
            (AES_GCM, true) => Algorithm::Aes256Gcm,
            _ => return Err(Thrown::Misuse(format!("unknown algorithm {algorithm}"))),
        };
        // Made on the heap in a frame whose stack is zeroed after it:
        // no copy of the schedule is left behind.
        let cipher = gcmsiv::scrubbed(|| Cipher::new(algorithm, &key.0, tag_len, backend).map(Box::new))?;
        Ok(Box::into_raw(cipher) as jlong)
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
        let _ = guard(|| drop(key));
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

/// `Native.backendNames()`: the core's backends by name, comma-separated, in
/// their numbers' order (from 1; the `Backend` enum's constants after `AUTO`).
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_Native_backendNames<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
) -> jstring {
    call(&mut env, core::ptr::null_mut(), |env| {
        Ok(env.new_string(backend_names().collect::<Vec<_>>().join(","))?.into_raw())
    })
}

/// `Native.backendBits(handle)`: the backend's register width on this CPU.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_Native_backendBits<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
) -> jint {
    // SAFETY: the Java class's contract for handles.
    call(&mut env, 0, |_| Ok(unsafe { cipher(handle) }?.backend().register_bits() as jint))
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

/// The JNI calls of the message paths, straight through the function table:
/// `jni`'s wrappers check for a pending exception after each call and
/// allocate a `Vec` per array, which would cost a short seal several times
/// the seal itself (PERFORMANCE-HISTORY.md, `bindings`).
#[derive(Clone, Copy)]
struct Raw(*mut sys::JNIEnv);

impl Raw {
    fn of(env: &JNIEnv) -> Self {
        Raw(env.get_raw())
    }

    fn table(self) -> &'static sys::JNINativeInterface_ {
        // SAFETY: a JNIEnv pointer the JVM passed to this native call, valid
        // for its duration on this thread (every `Raw` lives inside one call).
        unsafe { &**self.0 }
    }

    /// `array.length`; `array` is not null.
    fn length(self, array: sys::jarray) -> usize {
        // SAFETY: a live local reference to an array.
        let n = unsafe { (self.table().GetArrayLength.expect("JNI"))(self.0, array) };
        n as usize
    }

    /// Copies `out.len()` bytes from `array[offset..]` (the JVM checks the
    /// bounds: a pending exception if they are wrong, see [`Self::failed`]).
    fn read(self, array: sys::jbyteArray, offset: usize, out: &mut [u8]) {
        // SAFETY: the same memory seen as bytes that may be unwritten; the JVM
        // writes only initialized bytes into it.
        self.read_uninit(array, offset, unsafe {
            &mut *(core::ptr::from_mut(out) as *mut [MaybeUninit<u8>])
        });
    }

    /// [`Self::read`] into memory not yet written.
    fn read_uninit(self, array: sys::jbyteArray, offset: usize, out: &mut [MaybeUninit<u8>]) {
        if !out.is_empty() {
            // SAFETY: `out` is writable for its length; the JVM checks the range.
            unsafe {
                (self.table().GetByteArrayRegion.expect("JNI"))(
                    self.0,
                    array,
                    offset as sys::jsize,
                    out.len() as sys::jsize,
                    out.as_mut_ptr().cast(),
                )
            }
        }
    }

    /// Copies `data` to `array[offset..]` (bounds as [`Self::read`]).
    fn write(self, array: sys::jbyteArray, offset: usize, data: &[u8]) {
        if !data.is_empty() {
            // SAFETY: `data` is readable for its length; the JVM checks the range.
            unsafe {
                (self.table().SetByteArrayRegion.expect("JNI"))(
                    self.0,
                    array,
                    offset as sys::jsize,
                    data.len() as sys::jsize,
                    data.as_ptr().cast(),
                )
            }
        }
    }

    /// Whether `a` and `b` are the same object.
    fn same(self, a: sys::jobject, b: sys::jobject) -> bool {
        // SAFETY: live local references.
        unsafe { (self.table().IsSameObject.expect("JNI"))(self.0, a, b) == sys::JNI_TRUE }
    }

    /// Whether a JNI call threw (an out-of-range copy, say).
    fn failed(self) -> Result<(), Thrown> {
        // SAFETY: callable at any time.
        if unsafe { (self.table().ExceptionCheck.expect("JNI"))(self.0) } == sys::JNI_FALSE {
            Ok(())
        } else {
            Err(Thrown::Pending)
        }
    }
}

/// A Java array's elements in place (`GetPrimitiveArrayCritical`), released
/// when dropped: no other JNI call may run while one is held.
struct Critical {
    env: Raw,
    array: sys::jarray,
    ptr: *mut u8,
    /// 0 to copy changes back (if the JVM gave a copy), `JNI_ABORT` not to.
    mode: sys::jint,
}

impl Critical {
    fn new(env: Raw, array: sys::jarray, writes: bool) -> Result<Self, Thrown> {
        // SAFETY: a live local reference to a primitive array.
        let ptr = unsafe {
            (env.table().GetPrimitiveArrayCritical.expect("JNI"))(env.0, array, core::ptr::null_mut())
        };
        if ptr.is_null() {
            return Err(Thrown::Pending); // OutOfMemoryError
        }
        Ok(Critical { env, array, ptr: ptr.cast(), mode: if writes { 0 } else { sys::JNI_ABORT } })
    }
}

impl Drop for Critical {
    fn drop(&mut self) {
        // SAFETY: the pointer this array's Get returned, released once.
        unsafe {
            (self.env.table().ReleasePrimitiveArrayCritical.expect("JNI"))(
                self.env.0,
                self.array,
                self.ptr.cast(),
                self.mode,
            )
        }
    }
}

/// Up to this many bytes, a message goes through a buffer on the stack
/// (copied in and out by the JVM); above, a seal runs in the Java arrays
/// themselves ([`Critical`]) and an open through this thread's scratch
/// buffer (see [`open_native`]).
const STACK_MAX: usize = 2048;

/// Room on the stack for a short message and its tag, left uninitialized
/// (zeroing it would cost a short seal more than the copies).
type Stack = [MaybeUninit<u8>; STACK_MAX + 16];

/// Which of `Cipher`'s checks a call's lengths go through: a seal's
/// ([`Cipher::check_lengths`]) or an open's ([`Cipher::check_open_lengths`]).
type Check = fn(&Cipher, usize, usize, usize) -> Result<(), Error>;

/// Runs a message call: reads the nonce and the associated data (on the
/// stack when short), checks the lengths with `text_len` (the plaintext's,
/// or the ciphertext's without its tag, and the check for it), then runs
/// `body` with them.
#[allow(clippy::too_many_arguments)]
fn message(
    env: &mut JNIEnv,
    handle: jlong,
    nonce: sys::jbyteArray,
    nonce_len: jint,
    aad: sys::jbyteArray,
    aad_len: jint,
    text_len: impl FnOnce(&Cipher) -> Result<(usize, Check), Thrown>,
    body: impl FnOnce(&Cipher, Raw, &[u8], &[u8], usize) -> Result<(), Thrown>,
) -> Result<(), Thrown> {
    // SAFETY: the Java class's contract for handles.
    let key = unsafe { cipher(handle) }?;
    let raw = Raw::of(env);
    let (len, check) = text_len(key)?;
    let (mut nonce_stack, mut nonce_heap, mut aad_stack, mut aad_heap) =
        ([0; 16], Vec::new(), [0; 64], Vec::new());
    let nonce = read_small(raw, nonce, nonce_len, &mut nonce_stack, &mut nonce_heap)?;
    let aad = read_small(raw, aad, aad_len, &mut aad_stack, &mut aad_heap)?;
    check(key, nonce.len(), aad.len(), len)?;
    body(key, raw, nonce, aad, len)
}

/// `len` bytes of `array` (a nonce, associated data), copied by the JVM
/// into `stack` if they fit, else into `heap` (a wrong length throws). The
/// buffers are the caller's locals: a struct holding them, returned by
/// value, would cost a 300-byte copy per call.
fn read_small<'a>(
    raw: Raw,
    array: sys::jbyteArray,
    len: jint,
    stack: &'a mut [u8],
    heap: &'a mut Vec<u8>,
) -> Result<&'a [u8], Thrown> {
    let len = usize::try_from(len).map_err(|_| Thrown::Misuse("negative length".into()))?;
    let buf = if len <= stack.len() {
        &mut stack[..len]
    } else {
        heap.resize(len, 0);
        &mut heap[..]
    };
    if !buf.is_empty() {
        raw.read(array, 0, buf);
        raw.failed()?;
    }
    Ok(buf)
}

/// Copies `len` bytes of `array[offset..]` into the start of `stack`, or
/// throws (the JVM checks the range).
fn read_into(
    raw: Raw,
    array: sys::jbyteArray,
    offset: usize,
    len: usize,
    stack: &mut Stack,
) -> Result<(), Thrown> {
    raw.read_uninit(array, offset, &mut stack[..len]);
    raw.failed()
}

/// The first `len` bytes of `stack`, once written.
///
/// # Safety
/// The first `len` bytes have been written.
unsafe fn initialized(stack: &mut Stack, len: usize) -> &mut [u8] {
    // SAFETY: the caller's contract; u8 has no invalid values once written.
    unsafe { core::slice::from_raw_parts_mut(stack.as_mut_ptr().cast(), len) }
}

/// A non-negative length or offset.
fn size(n: jint, what: &str) -> Result<usize, Thrown> {
    usize::try_from(n).map_err(|_| Thrown::Misuse(format!("negative {what}")))
}

/// `offset` and `len` as a range of an array of `array_len` bytes.
fn range(offset: usize, len: usize, array_len: usize) -> Result<core::ops::Range<usize>, Thrown> {
    match offset.checked_add(len) {
        Some(end) if end <= array_len => Ok(offset..end),
        _ => Err(Thrown::Misuse(format!("{len} bytes at {offset} do not fit in an array of {array_len}"))),
    }
}

/// `Native.seal(handle, nonce, nonceLength, aad, aadLength, in, inOffset,
/// length, out, outOffset)`: writes ciphertext || tag (`length` + tag bytes)
/// at `out[outOffset..]`. `out` may be `in`, the ranges overlapping in any
/// way. The lengths given are the arrays' (a wrong one throws).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_dev_gcmsiv_Native_seal<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    nonce: sys::jbyteArray,
    nonce_len: jint,
    aad: sys::jbyteArray,
    aad_len: jint,
    input: sys::jbyteArray,
    in_offset: jint,
    length: jint,
    output: sys::jbyteArray,
    out_offset: jint,
) {
    call(&mut env, (), |env| {
        let text_len = sealed_len(length);
        message(env, handle, nonce, nonce_len, aad, aad_len, text_len, |key, raw, nonce, aad, len| {
            let (in_offset, out_offset) = (size(in_offset, "offset")?, size(out_offset, "offset")?);
            let tag_len = key.tag_len();
            if len <= STACK_MAX {
                let stack = &mut [MaybeUninit::uninit(); STACK_MAX + 16];
                read_into(raw, input, in_offset, len, stack)?;
                // SAFETY: the JVM wrote `len` bytes (it did not throw); the
                // tag's bytes are zeroed first.
                let sealed = unsafe {
                    core::ptr::write_bytes(stack.as_mut_ptr().add(len), 0, tag_len);
                    initialized(stack, len + tag_len)
                };
                let (body, tag) = sealed.split_at_mut(len);
                let sealing = key.encrypt_in_place_detached(nonce, aad, body, tag);
                if sealing.is_ok() {
                    raw.write(output, out_offset, sealed);
                }
                wipe(sealed); // the plaintext's copy, or its ciphertext
                return Ok(sealing?);
            }
            // In the Java arrays (only the caller's plaintext and its
            // ciphertext are ever there). Distinct arrays: one pass from the
            // input into the output. The same array: the input moved to the
            // output's range first (one critical section, any overlap), then
            // sealed in place.
            let input_range = range(in_offset, len, raw.length(input))?;
            let out = range(out_offset, len + tag_len, raw.length(output))?;
            let same = raw.same(input, output);
            let held_out = Critical::new(raw, output, true)?;
            let dst = held_out.ptr.wrapping_add(out.start);
            // SAFETY: `out` lies inside the output array, held until this returns.
            let sealed = unsafe { core::slice::from_raw_parts_mut(dst, out.len()) };
            if same {
                // SAFETY: both ranges lie inside this array (checked above).
                unsafe { core::ptr::copy(held_out.ptr.add(input_range.start), dst, len) };
                return seal_moved(key, nonce, aad, sealed, len);
            }
            let held_in = Critical::new(raw, input, false)?;
            // SAFETY: the range checked, inside the input array, held until
            // this returns; a distinct array from the output's.
            let plaintext = unsafe { core::slice::from_raw_parts(held_in.ptr.add(input_range.start), len) };
            let (body, tag) = sealed.split_at_mut(len);
            key.encrypt_detached(nonce, aad, plaintext, body, tag).inspect_err(|_| wipe(sealed))?;
            Ok(())
        })
    })
}

/// Seals the plaintext already moved into the first `len` bytes of `sealed`,
/// the tag into the rest (all of it wiped if that fails, which the length
/// checks before it leave no room for).
fn seal_moved(key: &Cipher, nonce: &[u8], aad: &[u8], sealed: &mut [u8], len: usize) -> Result<(), Thrown> {
    let (body, tag) = sealed.split_at_mut(len);
    key.encrypt_in_place_detached(nonce, aad, body, tag).inspect_err(|_| wipe(sealed))?;
    Ok(())
}

/// `Native.open(handle, nonce, nonceLength, aad, aadLength, in, inOffset,
/// length, out, outOffset)`: opens ciphertext || tag (`length` bytes at
/// `in[inOffset..]`) and writes the plaintext (`length` - tag bytes) at
/// `out[outOffset..]`, or throws `AEADBadTagException` (also for an input
/// shorter than a tag): then that range holds zeroes or, being exactly the
/// ciphertext's range, the ciphertext. `out` may be `in`. The decryption
/// runs in native memory (the stack, or the scratch buffer): no Java thread can see
/// plaintext before the tag is checked.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_dev_gcmsiv_Native_open<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    nonce: sys::jbyteArray,
    nonce_len: jint,
    aad: sys::jbyteArray,
    aad_len: jint,
    input: sys::jbyteArray,
    in_offset: jint,
    length: jint,
    output: sys::jbyteArray,
    out_offset: jint,
) {
    call(&mut env, (), |env| {
        message(
            env,
            handle,
            nonce,
            nonce_len,
            aad,
            aad_len,
            opened_len(length),
            |key, raw, nonce, aad, len| {
                let (in_offset, out_offset) = (size(in_offset, "offset")?, size(out_offset, "offset")?);
                let fill = |buf: &mut [MaybeUninit<u8>]| {
                    raw.read_uninit(input, in_offset, buf);
                    raw.failed()
                };
                let in_place = || raw.same(input, output) && in_offset == out_offset;
                let deliver = |plaintext: &[u8]| {
                    raw.write(output, out_offset, plaintext);
                    raw.failed()
                };
                open_native(key, nonce, aad, len, fill, in_place, deliver)
            },
        )
    })
}

/// The plaintext length of a seal of `length` bytes, and a seal's check.
fn sealed_len(length: jint) -> impl FnOnce(&Cipher) -> Result<(usize, Check), Thrown> {
    move |_| Ok((size(length, "length")?, Cipher::check_lengths))
}

/// The plaintext length of an open of `length` bytes (a shorter input than
/// a tag is not authentic), and an open's check.
fn opened_len(length: jint) -> impl FnOnce(&Cipher) -> Result<(usize, Check), Thrown> {
    move |key| {
        let len = size(length, "length")?.checked_sub(key.tag_len()).ok_or(Error::Authentication)?;
        Ok((len, Cipher::check_open_lengths))
    }
}

/// Opens ciphertext || tag (`len` + tag bytes) in native memory: `fill`
/// copies it into a buffer on the stack (short) or this thread's scratch
/// buffer (the glue's `with_scratch`: a decryption writes plaintext before
/// the tag is checked, so it may not run in a Java array, where other Java
/// threads can read it), and only an
/// authentic plaintext goes to `deliver`. On failure `deliver` gets zeroes,
/// unless `in_place` says the output is the ciphertext's own range (which
/// then keeps the ciphertext).
fn open_native(
    key: &Cipher,
    nonce: &[u8],
    aad: &[u8],
    len: usize,
    fill: impl FnOnce(&mut [MaybeUninit<u8>]) -> Result<(), Thrown>,
    in_place: impl FnOnce() -> bool,
    deliver: impl FnOnce(&[u8]) -> Result<(), Thrown>,
) -> Result<(), Thrown> {
    let sealed_len = len + key.tag_len();
    let open = |sealed: &mut [u8]| {
        let (body, received) = sealed.split_at_mut(len);
        let mut tag = [0u8; 16];
        let tag = &mut tag[..received.len()];
        tag.copy_from_slice(received);
        let opening = key.decrypt_in_place_detached(nonce, aad, body, tag);
        if opening.is_err() {
            wipe(body);
            if in_place() {
                return Ok(opening?); // the ciphertext stays
            }
        }
        let delivered = deliver(body); // the plaintext, or zeroes
        wipe(body);
        delivered?;
        Ok(opening?)
    };
    if sealed_len <= STACK_MAX + 16 {
        let stack = &mut [MaybeUninit::uninit(); STACK_MAX + 16];
        fill(&mut stack[..sealed_len])?;
        // SAFETY: `fill` wrote `sealed_len` bytes (it did not fail).
        return open(unsafe { initialized(stack, sealed_len) });
    }
    let opened = with_scratch(sealed_len, |scratch| {
        // SAFETY: the same memory, as bytes that may be unwritten; `fill`
        // only writes initialized bytes.
        fill(unsafe { &mut *(core::ptr::from_mut(scratch) as *mut [MaybeUninit<u8>]) })?;
        open(scratch)
    });
    opened.unwrap_or(Err(Thrown::OutOfMemory))
}

/// A direct `ByteBuffer`'s memory and capacity.
fn direct(raw: Raw, buffer: sys::jobject) -> Result<(*mut u8, usize), Thrown> {
    // SAFETY: a live local reference (a direct buffer, as the Java side checks).
    let (ptr, cap) = unsafe {
        (
            (raw.table().GetDirectBufferAddress.expect("JNI"))(raw.0, buffer),
            (raw.table().GetDirectBufferCapacity.expect("JNI"))(raw.0, buffer),
        )
    };
    match usize::try_from(cap) {
        Ok(cap) if !ptr.is_null() => Ok((ptr.cast(), cap)),
        _ => Err(Thrown::Misuse("not a direct buffer".into())),
    }
}

/// `Native.sealDirect(handle, nonce, nonceLength, aad, aadLength, in,
/// inPosition, length, out, outPosition)`: [`Java_dev_gcmsiv_Native_seal`]
/// on direct `ByteBuffer`s (their memory, in place; any overlap).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_dev_gcmsiv_Native_sealDirect<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    nonce: sys::jbyteArray,
    nonce_len: jint,
    aad: sys::jbyteArray,
    aad_len: jint,
    input: sys::jobject,
    in_position: jint,
    length: jint,
    output: sys::jobject,
    out_position: jint,
) {
    call(&mut env, (), |env| {
        let text_len = sealed_len(length);
        message(env, handle, nonce, nonce_len, aad, aad_len, text_len, |key, raw, nonce, aad, len| {
            let ((src, src_cap), (dst, dst_cap)) = (direct(raw, input)?, direct(raw, output)?);
            let from = range(size(in_position, "position")?, len, src_cap)?;
            let to = range(size(out_position, "position")?, len + key.tag_len(), dst_cap)?;
            // SAFETY: both ranges lie inside their buffers' memory (checked
            // above), which the JVM keeps while the buffers are reachable
            // (the Java side holds them); `copy` allows any overlap.
            let sealed = unsafe {
                core::ptr::copy(src.add(from.start), dst.add(to.start), len);
                core::slice::from_raw_parts_mut(dst.add(to.start), to.len())
            };
            seal_moved(key, nonce, aad, sealed, len)
        })
    })
}

/// `Native.openDirect(handle, nonce, nonceLength, aad, aadLength, in,
/// inPosition, length, out, outPosition)`: [`Java_dev_gcmsiv_Native_open`]
/// on direct `ByteBuffer`s (decrypted in native memory, then copied).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_dev_gcmsiv_Native_openDirect<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    nonce: sys::jbyteArray,
    nonce_len: jint,
    aad: sys::jbyteArray,
    aad_len: jint,
    input: sys::jobject,
    in_position: jint,
    length: jint,
    output: sys::jobject,
    out_position: jint,
) {
    call(&mut env, (), |env| {
        message(
            env,
            handle,
            nonce,
            nonce_len,
            aad,
            aad_len,
            opened_len(length),
            |key, raw, nonce, aad, len| {
                let ((src, src_cap), (dst, dst_cap)) = (direct(raw, input)?, direct(raw, output)?);
                let from = range(size(in_position, "position")?, len + key.tag_len(), src_cap)?;
                let to = range(size(out_position, "position")?, len, dst_cap)?;
                // SAFETY (the three closures): both ranges lie inside their
                // buffers' memory (checked above); the copies go to and from
                // native buffers of their lengths.
                let fill = |buf: &mut [MaybeUninit<u8>]| {
                    assert_eq!(buf.len(), from.len());
                    unsafe {
                        core::ptr::copy_nonoverlapping(
                            src.add(from.start),
                            buf.as_mut_ptr().cast(),
                            from.len(),
                        )
                    };
                    Ok(())
                };
                let in_place = || src.wrapping_add(from.start) == dst.wrapping_add(to.start);
                let deliver = |plaintext: &[u8]| {
                    unsafe {
                        core::ptr::copy_nonoverlapping(plaintext.as_ptr(), dst.add(to.start), plaintext.len())
                    };
                    Ok(())
                };
                open_native(key, nonce, aad, len, fill, in_place, deliver)
            },
        )
    })
}

/// One message of a batch in the arena Java packs: its nonce, associated
/// data, body and tag, in this order, each item right after the one before.
struct Span {
    nonce: usize,
    aad: usize,
    body: usize,
}

/// The spans `layout` gives (three lengths per item), checked to fit in an
/// arena of `arena_len` bytes with `tag_len`-byte tags, and each message's
/// lengths checked by `check` as a call's.
fn spans(
    raw: Raw,
    key: &Cipher,
    check: Check,
    layout: sys::jintArray,
    count: jint,
    arena_len: usize,
) -> Result<Vec<Span>, Thrown> {
    let count = size(count, "count")?;
    let ints = count.checked_mul(3).filter(|&n| n <= raw.length(layout));
    let mut lengths =
        vec![0 as jint; ints.ok_or_else(|| Thrown::Misuse("the batch layout is too short".into()))?];
    if !lengths.is_empty() {
        // SAFETY: `lengths` is writable for its length; the JVM checks the range.
        unsafe {
            (raw.table().GetIntArrayRegion.expect("JNI"))(
                raw.0,
                layout,
                0,
                lengths.len() as sys::jsize,
                lengths.as_mut_ptr(),
            )
        };
        raw.failed()?;
    }
    let mut total = 0usize;
    let spans = lengths
        .chunks_exact(3)
        .map(|l| {
            let len = |i: usize| usize::try_from(l[i]).map_err(|_| Thrown::Misuse("negative length".into()));
            let span = Span { nonce: len(0)?, aad: len(1)?, body: len(2)? };
            check(key, span.nonce, span.aad, span.body)?;
            let bytes = [span.nonce, span.aad, span.body, key.tag_len()];
            total = bytes.iter().fold(total, |t, &n| t.saturating_add(n));
            Ok(span)
        })
        .collect::<Result<Vec<_>, Thrown>>()?;
    if total > arena_len {
        return Err(Thrown::Misuse("the batch layout exceeds its arena".into()));
    }
    Ok(spans)
}

/// The arena's items as the glue's batch messages.
fn split<'a>(mut rest: &'a mut [u8], spans: &[Span], tag_len: usize) -> Vec<Message<'a>> {
    spans
        .iter()
        .map(|s| {
            let mut take = |n: usize| {
                let (head, tail) = core::mem::take(&mut rest).split_at_mut(n);
                rest = tail;
                head
            };
            Message { nonce: take(s.nonce), aad: take(s.aad), body: take(s.body), tag: take(tag_len) }
        })
        .collect()
}

/// `Native.sealMany(handle, arena, layout, count)`: seals every item of the
/// arena in place, writing each tag after its body (AES-GCM-SIV: the core's
/// interleaved batch path). Misuse anywhere is refused before any work.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_Native_sealMany<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    arena: sys::jbyteArray,
    layout: sys::jintArray,
    count: jint,
) {
    call(&mut env, (), |env| {
        // SAFETY: the Java class's contract for handles.
        let key = unsafe { cipher(handle) }?;
        let raw = Raw::of(env);
        let arena_len = raw.length(arena);
        let spans = spans(raw, key, Cipher::check_lengths, layout, count, arena_len)?;
        let held = Critical::new(raw, arena, true)?;
        // SAFETY: the whole array, held until this returns.
        let bytes = unsafe { core::slice::from_raw_parts_mut(held.ptr, arena_len) };
        Ok(seal_batch(key, &mut split(bytes, &spans, key.tag_len()))?)
    })
}

/// `Native.openMany(handle, arena, layout, count, ok)`: opens every item of
/// the arena in place (each body followed by its received tag); `ok[i]` is 1
/// where item `i` was authentic, else 0 (its body holds the ciphertext again).
/// Misuse anywhere is refused before any work.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_Native_openMany<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    arena: sys::jbyteArray,
    layout: sys::jintArray,
    count: jint,
    ok: sys::jbyteArray,
) {
    call(&mut env, (), |env| {
        // SAFETY: the Java class's contract for handles.
        let key = unsafe { cipher(handle) }?;
        let raw = Raw::of(env);
        let arena_len = raw.length(arena);
        let spans = spans(raw, key, Cipher::check_open_lengths, layout, count, arena_len)?;
        if raw.length(ok) < spans.len() {
            return Err(Thrown::Misuse("the result array is too short".into()));
        }
        let authentic = {
            let held = Critical::new(raw, arena, true)?;
            // SAFETY: the whole array, held until the end of this block.
            let bytes = unsafe { core::slice::from_raw_parts_mut(held.ptr, arena_len) };
            open_batch(key, &mut split(bytes, &spans, key.tag_len()))?
        };
        let flags: Vec<u8> = authentic.into_iter().map(u8::from).collect();
        raw.write(ok, 0, &flags);
        raw.failed()
    })
}

/// `Native.checkMany(handle, layout, count, seal)`: checks the items'
/// lengths as a `sealMany` (`seal`) or `openMany` call would
/// (IllegalArgumentException), so that a batch packed into several arenas
/// refuses misuse before its first arena runs.
#[unsafe(no_mangle)]
pub extern "system" fn Java_dev_gcmsiv_Native_checkMany<'l>(
    mut env: JNIEnv<'l>,
    _class: JClass<'l>,
    handle: jlong,
    layout: sys::jintArray,
    count: jint,
    seal: jboolean,
) {
    call(&mut env, (), |env| {
        // SAFETY: the Java class's contract for handles.
        let key = unsafe { cipher(handle) }?;
        let check: Check = if seal != 0 { Cipher::check_lengths } else { Cipher::check_open_lengths };
        spans(Raw::of(env), key, check, layout, count, usize::MAX).map(drop)
    })
}
