//! The 128-bit bulk passes, one block per instruction: CTR, and CTR and
//! POLYVAL stitched into one loop, for decryption (GCM-SIV, GCM) and GCM
//! encryption: the `ni` tier's passes, and every tier's for what its wider
//! passes leave (`bulk.rs`).
//!
//! While the eight AES blocks of one chunk go through their rounds, the hash
//! absorbs eight blocks, one Karatsuba product between rounds: the previous
//! chunk's output (GCM-SIV plaintext, GCM ciphertext when encrypting) or the
//! current chunk's input (GCM ciphertext when decrypting). The blocks hashed
//! are reloaded from memory (loads are cheap) rather than kept in registers,
//! so nothing spills. One reduction per chunk.

use super::aes::{Schedule, aesenc8, aesenclast8, xor8};
use super::array;
use super::clmul::{Powers, aggregate, clmul_at, fold_halves, reduce_karatsuba};
use super::load::{byte_reverse_mask, load_partial, store_partial};
use crate::backend::{Block, InOut};
use core::arch::x86_64::*;
use zeroize::Zeroize;

const WIDTH: usize = 8;
const CHUNK: usize = 16 * WIDTH;

/// How many chunks behind CTR a pass that hashes its output hashes here:
/// one. (Two, which the 256-bit loop gains from, see `pass256.rs`, is no
/// gain on this loop taken over both key sizes.)
const LAG: usize = 1;

/// What the hash absorbs, and in which byte order.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Stitch {
    /// GCM-SIV decryption: the plaintext (this pass's output), as is.
    SivOpen,
    /// GCM encryption: the ciphertext (output), byte-reversed (GHASH).
    GcmSeal,
    /// GCM decryption: the ciphertext (input), byte-reversed (GHASH).
    GcmOpen,
}

impl Stitch {
    /// Whether the pass hashes its output (GCM-SIV decryption's plaintext,
    /// GCM encryption's ciphertext), so the hash must trail CTR.
    pub(super) fn hashes_output(self) -> bool {
        self != Stitch::GcmOpen
    }

    /// Whether the hashed blocks are byte-reversed first (GHASH).
    pub(super) fn reversed(self) -> bool {
        self != Stitch::SivOpen
    }
}

/// One pass of CTR over the whole chunks of `data` (input to output) with
/// the hash stitched in; returns the number of bytes processed (a multiple
/// of 128). The partial tail is left to the caller. `BE` selects GCM's
/// counter.
///
/// # Safety
/// The CPU must support the enabled features.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn ctr_stitched<const NR: usize, const BE: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    mut data: InOut<'_>,
    state: &mut __m128i,
    powers: &Powers,
    mode: Stitch,
) -> usize {
    let chunks = data.len() / CHUNK;
    if chunks == 0 {
        return 0;
    }
    let reverse = byte_reverse_mask();
    let hash_output = mode.hashes_output();
    let reversed = mode.reversed();
    // SAFETY: 16 readable bytes.
    let mut ctr = unsafe { _mm_loadu_si128(counter.as_ptr().cast()) };
    if BE {
        ctr = _mm_shuffle_epi8(ctr, reverse);
    }
    let (input, output) = (data.input_ptr(), data.output_ptr());
    let mut s = *state;
    // A pass that hashes its output hashes `lag` chunks behind CTR; the
    // first `lag` chunks have nothing hashed beside them and are peeled
    // off, so the loop itself never tests for them. LAG (see there).
    let lag = if hash_output { chunks.min(LAG) } else { 0 };
    for c in 0..lag {
        // SAFETY: c < chunks: the chunk lies inside the input and the output.
        unsafe {
            let (i, o) = (input.add(c * CHUNK), output.add(c * CHUNK));
            stitched_chunk::<_, BE, false>(key, ctr, c, i, o, i, s, powers, reversed);
        }
    }
    for c in lag..chunks {
        // SAFETY: c < chunks, so the chunk lies inside the input and the
        // output; so does the output's one `lag` before it.
        unsafe {
            let (i, o) = (input.add(c * CHUNK), output.add(c * CHUNK));
            let hashed = if hash_output { o.sub(lag * CHUNK).cast_const() } else { i };
            s = stitched_chunk::<_, BE, true>(key, ctr, c, i, o, hashed, s, powers, reversed);
        }
    }
    // The last `lag` chunks' output, not yet hashed, in order.
    for c in chunks - lag..chunks {
        // SAFETY: a whole chunk inside the output.
        let last = unsafe { output.add(c * CHUNK) };
        let x: [__m128i; WIDTH] = array(|j| {
            // SAFETY: block j of that chunk.
            let b = unsafe { _mm_loadu_si128(last.add(16 * j).cast()) };
            if reversed { _mm_shuffle_epi8(b, reverse) } else { b }
        });
        s = aggregate(s, &x, powers);
    }
    *state = s;
    chunks * CHUNK
}

/// CTR of chunk `c` from `input` to `output` (the same address in place)
/// with, if `HASH`, the eight blocks at `hashed` absorbed into `s` between
/// its rounds, one Karatsuba product per round and one reduction at the
/// end. Returns the new `s`.
///
/// # Safety
/// `input`, `output` and `hashed` must each point to a whole chunk inside
/// the data; the CPU must support the enabled features.
#[allow(clippy::too_many_arguments)]
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn stitched_chunk<const NR: usize, const BE: bool, const HASH: bool>(
    key: &Schedule<NR>,
    ctr: __m128i,
    c: usize,
    input: *const u8,
    output: *mut u8,
    hashed: *const u8,
    s: __m128i,
    powers: &Powers,
    reversed: bool,
) -> __m128i {
    let reverse = byte_reverse_mask();
    // Counters in the little-endian lane, byte-reversed back for GCM.
    // (No shortcut that depends on the counter's value: for IVs that
    // are not 96 bits, J0 comes from GHASH under the secret key.)
    // The chunk's first counter once, then each block's offset as a
    // constant operand: one vector op per block rather than a move from a
    // general register and an add (the vector pipes are the bottleneck).
    let base = _mm_add_epi32(ctr, _mm_setr_epi32((c * WIDTH) as i32, 0, 0, 0));
    let mut ks: [__m128i; WIDTH] = array(|k| {
        let x = if k == 0 { base } else { _mm_add_epi32(base, _mm_setr_epi32(k as i32, 0, 0, 0)) };
        if BE { _mm_shuffle_epi8(x, reverse) } else { x }
    });
    xor8(&mut ks, &key.rk[0]);
    let (mut lo, mut hi, mut mid) = (_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128());
    for r in 1..NR {
        aesenc8(&mut ks, &key.rk[r]);
        if HASH && r <= WIDTH {
            let j = r - 1;
            // SAFETY: block j of the chunk at `hashed` (caller's contract).
            let mut x = unsafe { _mm_loadu_si128(hashed.add(16 * j).cast()) };
            if reversed {
                x = _mm_shuffle_epi8(x, reverse);
            }
            if j == 0 {
                x = _mm_xor_si128(x, s);
            }
            let (h, hx) = (&powers.h[j], &powers.h_xor[j]);
            // The powers as memory operands. Loaded as values, the
            // compiler hoists all sixteen out of the loop and, short of
            // registers, copies them to the stack on every call, where
            // nothing wipes them (`tests/residue.rs` found H^8 there).
            lo = _mm_xor_si128(lo, clmul_at::<0x00>(x, h));
            hi = _mm_xor_si128(hi, clmul_at::<0x11>(x, h));
            mid = _mm_xor_si128(mid, clmul_at::<0x00>(fold_halves(x), hx));
        }
    }
    aesenclast8(&mut ks, &key.rk[NR]);
    // `ks` ends up holding this pass's output, already in the data: no
    // keystream is left behind to wipe.
    for (k, x) in ks.iter_mut().enumerate() {
        // SAFETY: block k of this chunk (caller's contract).
        unsafe {
            *x = _mm_xor_si128(*x, _mm_loadu_si128(input.add(16 * k).cast()));
            _mm_storeu_si128(output.add(16 * k).cast(), *x);
        }
    }
    if !HASH {
        return s;
    }
    reduce_karatsuba(lo, hi, mid)
}

/// `bulk.rs`'s `ctr32` one block per instruction (input to output; a tail
/// of less than a chunk in place, copied first when out of place).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn ctr32_narrow<const NR: usize, const BE: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    mut data: InOut<'_>,
) {
    // SAFETY: 16 readable bytes.
    let mut ctr0 = unsafe { _mm_loadu_si128(counter.as_ptr().cast()) };
    // Byte-reversed, GCM's big-endian counter becomes lane 0, little-endian.
    let reverse = byte_reverse_mask();
    if BE {
        ctr0 = _mm_shuffle_epi8(ctr0, reverse);
    }
    // `add_epi32` on lane 0 wraps the counter modulo 2^32 and leaves the
    // other 96 bits alone.
    let mut next = 0i32;
    let mut counters = || {
        let b: [__m128i; WIDTH] = array(|k| {
            let c = _mm_add_epi32(ctr0, _mm_setr_epi32(next.wrapping_add(k as i32), 0, 0, 0));
            if BE { _mm_shuffle_epi8(c, reverse) } else { c }
        });
        next = next.wrapping_add(WIDTH as i32);
        b
    };
    let rk = &key.rk;
    let whole = data.len() / (16 * WIDTH);
    let (input, output) = (data.input_ptr(), data.output_ptr());
    for c in 0..whole {
        let mut b = counters();
        xor8(&mut b, &rk[0]);
        for key in &rk[1..NR] {
            aesenc8(&mut b, key);
        }
        aesenclast8(&mut b, &rk[NR]);
        for (k, x) in b.iter().enumerate() {
            let at = 16 * (WIDTH * c + k);
            // SAFETY: block k of chunk c (c < whole) lies inside the input
            // and the output.
            unsafe {
                let x = _mm_xor_si128(_mm_loadu_si128(input.add(at).cast()), *x);
                _mm_storeu_si128(output.add(at).cast(), x);
            }
        }
    }
    let tail = data.split_at(16 * WIDTH * whole).1.into_in_place();
    if !tail.is_empty() {
        // Latency, not throughput, bounds a short tail: a group of 4 costs
        // about what 1 does, 8 about what 5 does.
        let first = _mm_setr_epi32(next, 0, 0, 0);
        match tail.len().div_ceil(16) {
            1 => ctr_tail::<_, 1, BE>(key, ctr0, first, reverse, tail),
            2 => ctr_tail::<_, 2, BE>(key, ctr0, first, reverse, tail),
            3 | 4 => ctr_tail::<_, 4, BE>(key, ctr0, first, reverse, tail),
            _ => ctr_tail::<_, 8, BE>(key, ctr0, first, reverse, tail),
        }
    }
}

/// CTR over a tail of at most `N` blocks (the last may be partial), from
/// counter `ctr0 + first` (in the little-endian lane).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn ctr_tail<const NR: usize, const N: usize, const BE: bool>(
    key: &Schedule<NR>,
    ctr0: __m128i,
    first: __m128i,
    reverse: __m128i,
    tail: &mut [u8],
) {
    let base = _mm_add_epi32(ctr0, first);
    let mut k: [__m128i; N] = array(|i| {
        let c = _mm_add_epi32(base, _mm_setr_epi32(i as i32, 0, 0, 0));
        if BE { _mm_shuffle_epi8(c, reverse) } else { c }
    });
    key.encrypt_n(&mut k);
    for (block, x) in tail.chunks_mut(16).zip(k) {
        if block.len() == 16 {
            // SAFETY: 16 readable and writable bytes.
            unsafe {
                let p = block.as_mut_ptr().cast::<__m128i>();
                _mm_storeu_si128(p, _mm_xor_si128(_mm_loadu_si128(p), x));
            }
        } else {
            store_partial(block, _mm_xor_si128(load_partial(block), x));
        }
    }
    k.zeroize();
}

/// `counter` advanced past `bytes` (whole blocks) of CTR, in the counter's
/// own convention.
#[inline]
pub(super) fn counter_after<const BE: bool>(counter: &Block, bytes: usize) -> Block {
    let n = (bytes / 16) as u32;
    if BE {
        crate::backend::counter_add_be32(counter, n)
    } else {
        crate::backend::counter_add_le32(counter, n)
    }
}
