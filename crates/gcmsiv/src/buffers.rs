//! The shapes every cipher type offers around its in-place primitives: keys
//! from slices, sealing or opening into a caller's buffer, and making a key
//! without leaving copies of its schedule on the stack ([`scrubbed`]).

use crate::Error;
use crate::inout::InOut;
use zeroize::Zeroize;

/// `key` as an array of the length the algorithm needs.
pub(crate) fn key_array<const N: usize>(key: &[u8]) -> Result<&[u8; N], Error> {
    key.try_into().map_err(|_| Error::InvalidKeyLength { expected: N, actual: key.len() })
}

/// Seals `plaintext` into the first bytes of `out` with `seal` (which
/// returns the tag; out of place, its kernels read the one and write the
/// other in one pass), appends the tag, and returns the bytes written. If
/// `seal` refuses (misuse: a nonce or AAD it does not take), what it may
/// have written is zeroed: no plaintext is left in what is usually the
/// outgoing buffer.
pub(crate) fn seal_into<T: AsRef<[u8]>>(
    plaintext: &[u8],
    out: &mut [u8],
    tag_len: usize,
    seal: impl FnOnce(InOut<'_>) -> Result<T, Error>,
) -> Result<usize, Error> {
    let needed = plaintext.len().checked_add(tag_len).ok_or(Error::PlaintextTooLong)?;
    if out.len() < needed {
        return Err(Error::BufferTooSmall { needed, actual: out.len() });
    }
    let (body, rest) = out.split_at_mut(plaintext.len());
    let tag = seal_detached(plaintext, body, seal)?;
    rest[..tag_len].copy_from_slice(tag.as_ref());
    Ok(needed)
}

/// Seals `plaintext` into the first `plaintext.len()` bytes of `out` with
/// `seal`, and returns the tag; on a refusal those bytes are zeroed.
pub(crate) fn seal_detached<T>(
    plaintext: &[u8],
    out: &mut [u8],
    seal: impl FnOnce(InOut<'_>) -> Result<T, Error>,
) -> Result<T, Error> {
    let body = body_of(out, plaintext.len())?;
    seal(InOut::new(plaintext, &mut *body)).inspect_err(|_| body.zeroize())
}

/// Opens `ciphertext` into `out` with `open`; returns its length. On
/// failure the bytes of `out` it was given are zeroed: the input is intact,
/// and the output holds nothing.
pub(crate) fn open_into(
    ciphertext: &[u8],
    out: &mut [u8],
    open: impl FnOnce(InOut<'_>) -> Result<(), Error>,
) -> Result<usize, Error> {
    let body = body_of(out, ciphertext.len())?;
    open(InOut::new(ciphertext, &mut *body)).inspect_err(|_| body.zeroize())?;
    Ok(ciphertext.len())
}

/// The first `len` bytes of `out`, or the error that says it is too short.
fn body_of(out: &mut [u8], len: usize) -> Result<&mut [u8], Error> {
    let actual = out.len();
    out.get_mut(..len).ok_or(Error::BufferTooSmall { needed: len, actual })
}

/// Stack below the caller's frame that [`scrub_stack`] zeroes: more than
/// the deepest the kernels and key set-up go (`tests/residue.rs` checks
/// what is left, on x86-64). One size for 32-bit and 64-bit targets: in
/// optimized builds the all-cores work and making a key reach 3-6 KiB below
/// their caller on x86-64, aarch64 and armv7 alike (painted-stack
/// measurement), so 16 KiB leaves room for deeper inlining.
const SCRUB: usize = 16 * 1024;

/// Zeroes [`SCRUB`] bytes of stack below the caller's frame: where the calls
/// it has made kept their frames, which may hold copies of round keys, of H
/// and its powers, or of partial sums (moves and spills the code cannot
/// wipe one by one). The all-cores path calls it on the caller's thread and
/// after each helper's turn, and [`scrubbed`] after making a key; the
/// one-core kernels keep their secrets in registers and wipe what they
/// store, and need no scrub. Its cost is small beside the megabytes the
/// all-cores path handles (PERFORMANCE-HISTORY.md, `buffers.rs`).
///
/// It needs [`SCRUB`] bytes of stack free below its caller, on 32-bit and
/// 64-bit targets alike: the main thread has megabytes (8 MiB by default on
/// Linux) and rayon's threads Rust's default of 2 MiB; a pool built with
/// stacks of a few tens of KiB (`ThreadPoolBuilder::stack_size`,
/// `RUST_MIN_STACK`) could overflow here. The area is bytes, so it assumes
/// no alignment; it lies at whatever the ABI aligns frames to (8 bytes on
/// 32-bit ARM, 16 on x86-64 and aarch64), and every byte of it is stored.
#[inline(never)]
pub(crate) fn scrub_stack() {
    let mut area = [0u8; SCRUB];
    // Lent mutably to what the optimizer must treat as reading and writing
    // it all: the array is a real stack slot and the zeroes are stored, a
    // memset over the dead frames below.
    core::hint::black_box(&mut area);
}

/// Runs `make` in a frame of its own, then zeroes the stack that frame used
/// (16 KiB below the caller's frame), and returns what `make` returned.
///
/// A key is built by value: its round keys (and for AES-GCM the powers of
/// its hash key) pass through the stack while it is made and moved to where
/// it lives, and those copies outlive the call. Make the key and put it in
/// its final place (a `Box`, an `Arc`, an object of the caller's) inside
/// `make`, and return that handle; the copies left on the way are zeroed.
/// `tests/residue.rs` checks it for every algorithm and backend (in
/// optimized builds). The bindings and the C ABI make their keys this way.
///
/// `T` may have any size and alignment, on 32-bit and 64-bit targets: it is
/// returned by value, and what `make` left of it on the stack is zeroed.
/// What is assumed, on both: `make`'s frames reach at most 16 KiB below
/// this call's (making a key takes 3-6 KiB on x86-64, aarch64 and armv7),
/// and the thread has that much stack free.
///
/// ```
/// use gcmsiv::{Algorithm, Backend, Cipher};
/// let key = gcmsiv::scrubbed(|| {
///     Cipher::new(Algorithm::Aes256GcmSiv, &[0x42; 32], 16, Backend::select()).map(Box::new)
/// })?;
/// assert_eq!(key.tag_len(), 16);
/// # Ok::<(), gcmsiv::Error>(())
/// ```
pub fn scrubbed<T>(make: impl FnOnce() -> T) -> T {
    let made = in_own_frame(make);
    scrub_stack();
    made
}

/// `make()`, never inlined: its frames lie below the caller's, where
/// [`scrub_stack`], called from the same frame next, zeroes. Its own frame
/// is whatever size and alignment the ABI gives it, on 32-bit and 64-bit
/// targets: it counts against the same 16 KiB.
#[inline(never)]
fn in_own_frame<T>(make: impl FnOnce() -> T) -> T {
    make()
}
