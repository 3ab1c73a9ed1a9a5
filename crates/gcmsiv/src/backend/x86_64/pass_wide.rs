//! The bulk passes on 256-bit registers, two blocks per instruction, and on
//! 512-bit ones, four: CTR with VAES, POLYVAL's aggregated step with
//! VPCLMULQDQ, and the two stitched in one pass (GCM-SIV decryption, GCM both
//! ways), built from `wide.rs`'s primitives. Each takes the whole chunks of
//! its input and returns how far it got; `bulk.rs` chooses the width and runs
//! the 128-bit pass (`pass128.rs`) and the tails for the rest.
//!
//! On CPUs with AVX-512 as well, the hash of long inputs (1 KiB and more)
//! runs on 512-bit registers, sixteen blocks per reduction: POLYVAL's
//! aggregated step ([`polyval_chunks_zmm`]) and the stitched pass's
//! ([`Schedule::ctr_stitched_wide`]), since on Zen 4 a 512-bit `vpclmulqdq`
//! issues as often as a 128- or 256-bit one; and CTR, there and in its own
//! pass, runs four blocks per `vaesenc` (a 512-bit `vaesenc` takes two issue
//! slots, the same rate per block, but fewer instructions let the AES and
//! the multiplications overlap better). On a Zen 4 core, microbenchmarks of
//! the chunk loops: CTR 0.13 cycles per byte against 0.23 one block per
//! instruction, POLYVAL 0.17 against 0.29 (with 512-bit registers 0.12 and
//! 0.12).
//!
//! Every function here carries the 256-bit set of target features (and the
//! 512-bit ones add AVX-512 F, BW and VL); callers reach them only through a
//! [`Features`] whose `wide` (and `zmm`) flags say detection found them.

use super::aes::Schedule;
use super::array;
use super::clmul::Powers;
use super::load::byte_reverse_mask;
use super::pass128::{Stitch, counter_after};
use super::wide::*;
use crate::backend::Block;
use core::arch::x86_64::*;

/// CTR over the whole 128-byte chunks of `data` from `counter` (as
/// `bulk.rs`'s `ctr32`: little-endian in the first four bytes, or with
/// `BE` GCM's big-endian last four), two blocks per instruction; returns the
/// bytes processed. The caller runs the rest from counter + bytes / 16.
///
/// # Safety
/// The CPU must support the enabled features (AVX2 and VAES besides the
/// baseline set).
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) unsafe fn ctr32_ymm<const NR: usize, const BE: bool, const PUBLIC: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    data: &mut [u8],
) -> usize {
    let chunks = data.len() / (16 * CHUNK_BLOCKS);
    if chunks == 0 {
        return 0;
    }
    let base = counter_pair::<BE>(counter);
    let reverse2 = _mm256_broadcastsi128_si256(byte_reverse_mask());
    let p = data.as_mut_ptr();
    for c in 0..chunks {
        let mut b = chunk_counters::<BE, PUBLIC>(base, c, reverse2);
        encrypt_chunk!(round4x2, "vpxor", &mut b, &key.rk, NR);
        for (k, x) in b.iter().enumerate() {
            // SAFETY: chunk c's register k covers bytes 128 c + 32 k
            // .. + 32, inside `data` (c < chunks).
            unsafe {
                let q = p.add(16 * CHUNK_BLOCKS * c + 32 * k).cast::<__m256i>();
                _mm256_storeu_si256(q, _mm256_xor_si256(_mm256_loadu_si256(q), *x));
            }
        }
    }
    chunks * 16 * CHUNK_BLOCKS
}

/// [`ctr32_vaes`] over whole 256-byte chunks, four registers of
/// four blocks (limits table: 0.117 against 0.120 c/B for AES-128, 0.163
/// against 0.173 for AES-256). Returns the bytes processed.
///
/// # Safety
/// The CPU must support the enabled features.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn ctr32_zmm<const NR: usize, const BE: bool, const PUBLIC: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    data: &mut [u8],
) -> usize {
    let chunks = data.len() / 256;
    let mut counters = ChunkCounters::<BE, PUBLIC>::new(counter_quad::<BE>(counter));
    let p = data.as_mut_ptr();
    for c in 0..chunks {
        let mut b = counters.next();
        encrypt_chunk!(round4x4, "vpxorq", &mut b, &key.rk, NR);
        for (k, x) in b.iter().enumerate() {
            // SAFETY: register k of chunk c, inside `data` (c < chunks).
            unsafe {
                let q = p.add(256 * c + 64 * k);
                _mm512_storeu_si512(q.cast(), _mm512_xor_si512(_mm512_loadu_si512(q.cast()), *x));
            }
        }
    }
    chunks * 256
}

/// POLYVAL's aggregated step over the whole 128-byte chunks of `blocks`,
/// from `s`: per chunk, S = dot(S ^ X_1, H^8) ^ dot(X_2, H^7) ^ ... ^
/// dot(X_8, H), as [`super::clmul::aggregate`], with two Karatsuba products
/// per instruction and one reduction. Returns S and the bytes absorbed.
///
/// The powers are read as [`pairs`] of the table, in the lane order of the
/// block pairs as they lie in memory (swapping each pair's lanes instead cost
/// 5% in the stitched pass).
///
/// # Safety
/// The CPU must support the enabled features (AVX2 and VPCLMULQDQ besides
/// the baseline set).
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) unsafe fn polyval_chunks_ymm<const REVERSED: bool>(
    s: __m128i,
    powers: &Powers,
    blocks: &[u8],
) -> (__m128i, usize) {
    // SAFETY: same features.
    unsafe { polyval_chunks_with::<REVERSED>(s, pairs(powers), blocks) }
}

/// Inputs at least this long take their first block on its own when that
/// puts the rest of a stitched pass on 32-byte boundaries
/// ([`Schedule::ctr_stitched_wide`]). A heap buffer starts on a 16-byte
/// boundary, and half of them 16 bytes past a 32-byte one (every buffer of
/// 128 KiB or more does: the allocator's header before a mapped block);
/// there the passes ran 2-5% slower than aligned (cycles 16 or 48 bytes off
/// against 0 or 32 bytes off, best of 300-3000 calls, medians of four
/// alternating runs, at 64 KiB and 1 MiB: GCM seal 1.05 -> 1.00-1.01,
/// GCM-SIV open 1.02-1.03 -> 1.00-1.01, GCM open 1.02-1.03 -> 1.00-1.01).
/// The first block apart leaves a tail of 240 bytes past the last whole
/// chunk, which since the 512-bit pass finishes such tails as one masked
/// chunk costs less than the misalignment from 8 KiB: on buffers 16 or 48
/// bytes off a 64-byte boundary, 16 KiB GCM-SIV opens 3-5% and GCM seals 5-6%
/// fewer cycles than with the earlier 32 KiB, 8 KiB 0-5% (GCM opens the same
/// within 2%); at 4 KiB it cost up to 1% more.
pub(super) const ALIGN_FROM: usize = 8 * 1024;

/// A 512-bit pass that finishes a message (see [`Schedule::ctr_stitched_wide`])
/// takes a tail longer than this as one more chunk under a mask. Shorter
/// tails take a 128-byte chunk of the 256-bit pass (from 128 bytes) and
/// then `blocks.rs`'s `stitched_tail`, which run AES on the blocks there
/// are rather than on sixteen: as a masked chunk, tails of 128 and 144-152
/// bytes took 2-7% more cycles, 176 about as many, 192-255 3-15% fewer.
const FINAL_CHUNK_FROM: usize = 176;

/// [`polyval_chunks_wide`] four blocks per instruction (512-bit registers),
/// sixteen blocks per reduction. Each 256-byte chunk's blocks are multiplied
/// by H^16..H^1 without the running sum S, whose product S H^16 is taken
/// apart (one 128-bit Karatsuba product) and added before the reduction:
/// the chain from one chunk's S to the next is then that product and the
/// reduction, not the sixteen-block sum and its 512-to-128-bit folding
/// (0.126 c/B at 16 KiB against 0.139 with S in the first block). The
/// stitched pass, whose chunks take longer, adds S to the first block
/// instead: three products fewer per chunk.
/// Returns S and the bytes absorbed (whole 256-byte chunks).
///
/// # Safety
/// The CPU must support the enabled features (AVX-512 F, BW and VL besides).
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn polyval_chunks_zmm<const REVERSED: bool>(
    mut s: __m128i,
    powers: &Powers,
    blocks: &[u8],
) -> (__m128i, usize) {
    let chunks = blocks.len() / 256;
    if chunks == 0 {
        return (s, 0);
    }
    let p = blocks.as_ptr();
    let sixteen = Sixteen::new(powers);
    for c in 0..chunks {
        // SAFETY: chunk c lies inside `blocks` (c < chunks).
        s = unsafe { sixteen.absorb::<REVERSED>(s, p.add(256 * c)) };
    }
    (s, chunks * 256)
}

/// [`polyval_chunks_wide`] on the table's [`pairs`].
///
/// # Safety
/// As there.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) unsafe fn polyval_chunks_with<const REVERSED: bool>(
    mut s: __m128i,
    table: &Pairs,
    blocks: &[u8],
) -> (__m128i, usize) {
    let chunks = blocks.len() / (16 * CHUNK_BLOCKS);
    let p = blocks.as_ptr();
    let reverse2 = _mm256_broadcastsi128_si256(byte_reverse_mask());
    for c in 0..chunks {
        let (mut lo, mut hi, mut mid) =
            (_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256());
        for j in 0..CHUNK_BLOCKS / 2 {
            // SAFETY: pair j of chunk c, inside `blocks` (c < chunks).
            let x = unsafe { _mm256_loadu_si256(p.add(16 * CHUNK_BLOCKS * c + 32 * j).cast()) };
            let x = if REVERSED { _mm256_shuffle_epi8(x, reverse2) } else { x };
            pair_product_table(x, j, s, table, &mut lo, &mut hi, &mut mid);
        }
        s = finish(lo, hi, mid);
    }
    (s, chunks * 16 * CHUNK_BLOCKS)
}

/// One block of a stitched pass on its own: CTR under `counter` and the
/// hash step of the block the mode hashes (Horner's rule, H from the
/// table).
///
/// # Safety
/// The CPU must support the enabled features.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn stitched_block<const NR: usize>(
    key: &Schedule<NR>,
    counter: &Block,
    block: &mut [u8],
    state: &mut __m128i,
    powers: &Powers,
    mode: Stitch,
) {
    debug_assert_eq!(block.len(), 16);
    let p = block.as_mut_ptr().cast::<__m128i>();
    // SAFETY (the loads and the store): 16 bytes each; AES-NI enabled.
    unsafe {
        let input = _mm_loadu_si128(p);
        let mut keystream = [_mm_loadu_si128(counter.as_ptr().cast())];
        super::blocks::avx::encrypt::<NR, 1>(&mut keystream, &key.rk);
        let output = _mm_xor_si128(input, keystream[0]);
        _mm_storeu_si128(p, output);
        let hashed = if mode.hashes_output() { output } else { input };
        let hashed = if mode.reversed() { _mm_shuffle_epi8(hashed, byte_reverse_mask()) } else { hashed };
        *state = super::clmul::dot(_mm_xor_si128(*state, hashed), powers.h[super::clmul::WIDTH - 1]);
    }
}

/// [`Schedule::ctr_stitched`] two blocks per instruction: CTR of each
/// chunk in four 256-bit registers with, between its first rounds, the
/// four pair products of the hash (the output of two chunks before when
/// hashing output, this chunk's input otherwise): the `vaes256` tier's
/// stitched pass, which the `vaes512` tier runs after its own 512-bit one
/// ([`ctr_stitched_zmm`]). Returns the bytes processed
/// (whole chunks, and the first block if it went on its own: from
/// [`ALIGN_FROM`] bytes, when `data` starts 16 bytes past a 32-byte
/// boundary, as large heap buffers do, so that the chunks' 256- and
/// 512-bit loads and stores fall on 32-byte boundaries); the caller does
/// the tail. `PUBLIC`: the counter's value is public, as in
/// [`ctr32`].
///
/// With `lengths` (the message's length block), the pass finishes the
/// message: it takes the tail too, hashes the length block last, and
/// returns `data.len()`. Where the 512-bit pass ran, a tail of more than
/// [`FINAL_CHUNK_FROM`] bytes goes through one more 256-byte chunk under
/// a mask ([`final_ctr_zmm`], [`Sixteen::absorb_final`]) rather
/// than a 128-byte chunk of the 256-bit pass and then `blocks.rs`'s
/// `stitched_tail`: one chain of AES rounds and one reduction where
/// there were two of each.
///
/// # Safety
/// The CPU must support the enabled features.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) unsafe fn ctr_stitched_wide<const NR: usize, const BE: bool, const PUBLIC: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    data: &mut [u8],
    state: &mut __m128i,
    powers: &Powers,
    mode: Stitch,
    lengths: Option<__m128i>,
) -> usize {
    if data.len() >= ALIGN_FROM && data.as_ptr() as usize % 32 == 16 {
        let (first, rest) = data.split_at_mut(16);
        // SAFETY (both): same features (AES-NI and PCLMULQDQ among them).
        // `rest` starts on a 32-byte boundary: nothing goes apart again.
        unsafe { stitched_block(key, counter, first, state, powers, mode) };
        let next = counter_after::<BE>(counter, 16);
        return 16
            + unsafe { ctr_stitched_wide::<_, BE, PUBLIC>(key, &next, rest, state, powers, mode, lengths) };
    }
    // SAFETY: same features.
    unsafe { ymm_then_tail::<_, BE, PUBLIC>(key, counter, data, 0, state, powers, mode, lengths) }
}

/// The rest of [`ctr_stitched_wide`] from byte `done` of `data` (the
/// message's start at `counter`): the 256-bit pass over the whole chunks
/// left, then, with `lengths`, the tail and the length block. Returns the
/// bytes processed, as there.
///
/// # Safety
/// The CPU must support the enabled features.
#[allow(clippy::too_many_arguments)]
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) unsafe fn ymm_then_tail<const NR: usize, const BE: bool, const PUBLIC: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    data: &mut [u8],
    mut done: usize,
    state: &mut __m128i,
    powers: &Powers,
    mode: Stitch,
    lengths: Option<__m128i>,
) -> usize {
    let next = counter_after::<BE>(counter, done);
    // SAFETY: same features.
    done += unsafe { ctr_stitched_ymm::<_, BE, PUBLIC>(key, &next, &mut data[done..], state, powers, mode) };
    if let Some(len) = lengths {
        let c = counter_after::<BE>(counter, done);
        // SAFETY: same features; 16 readable bytes in the counter.
        *state = unsafe {
            let c = _mm_loadu_si128(c.as_ptr().cast());
            super::blocks::avx::stitched_tail::<NR>(&key.rk, c, &mut data[done..], *state, powers, len, mode)
        };
        done = data.len();
    }
    done
}

/// [`ctr_stitched_wide`] on 256-bit registers. (The parameters of
/// `pass128.rs`'s `ctr_stitched`, on purpose: the same pass at another
/// width.)
///
/// # Safety
/// The CPU must support the enabled features.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
unsafe fn ctr_stitched_ymm<const NR: usize, const BE: bool, const PUBLIC: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    data: &mut [u8],
    state: &mut __m128i,
    powers: &Powers,
    mode: Stitch,
) -> usize {
    let chunks = data.len() / (16 * CHUNK_BLOCKS);
    if chunks == 0 {
        return 0;
    }
    let hash_output = mode.hashes_output();
    let reversed = mode.reversed();
    let base = counter_pair::<BE>(counter);
    let p = data.as_mut_ptr();
    let mut s = *state;
    let table = pairs(powers);
    // A pass that hashes its output hashes two chunks behind CTR (the
    // first two have nothing to hash beside them): the hash then reads
    // output stored an iteration earlier rather than the stores just
    // made. One chunk behind, an open's loop ran 3% (AES-128) and 6%
    // (AES-256) more cycles per byte; three or four behind gain nothing
    // more.
    let lag = if hash_output { chunks.min(2) } else { 0 };
    for c in 0..lag {
        // SAFETY: c < chunks: the chunk lies inside `data`.
        unsafe {
            let chunk = p.add(16 * CHUNK_BLOCKS * c);
            stitched_chunk_wide::<_, BE, PUBLIC, false>(key, base, c, chunk, chunk, s, table, reversed);
        }
    }
    for c in lag..chunks {
        // SAFETY: c < chunks, so the chunk lies inside `data`; so does
        // the one `lag` before it.
        unsafe {
            let chunk = p.add(16 * CHUNK_BLOCKS * c);
            let src = if hash_output { chunk.sub(16 * CHUNK_BLOCKS * lag) } else { chunk };
            s = stitched_chunk_wide::<_, BE, PUBLIC, true>(key, base, c, chunk, src, s, table, reversed);
        }
    }
    if hash_output {
        // The last `lag` chunks' output, not yet hashed.
        let last = &data[16 * CHUNK_BLOCKS * (chunks - lag)..16 * CHUNK_BLOCKS * chunks];
        // SAFETY: same features.
        s = unsafe {
            if reversed {
                polyval_chunks_with::<true>(s, table, last).0
            } else {
                polyval_chunks_with::<false>(s, table, last).0
            }
        };
    }
    *state = s;
    chunks * 16 * CHUNK_BLOCKS
}

/// [`ctr_stitched_wide`] over whole 256-byte chunks with 512-bit
/// registers, for CPUs with AVX-512: CTR of sixteen blocks in four
/// registers ([`round4x4!`]) and POLYVAL's sixteen-block step as in
/// [`polyval_chunks_zmm`] (four blocks per `vpclmulqdq`, which on Zen 4
/// issues as often as a 256-bit one), the four products between the
/// first rounds. A pass that hashes its output hashes one chunk (256
/// bytes) behind CTR. Returns the bytes processed, and whether the pass
/// finished the message (with `lengths`, when its tail was long enough
/// for [`final_ctr_zmm`]: the length block absorbed too);
/// otherwise the caller goes on from counter + bytes / 16.
///
/// # Safety
/// The CPU must support the enabled features.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn ctr_stitched_zmm<const NR: usize, const BE: bool, const PUBLIC: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    data: &mut [u8],
    state: &mut __m128i,
    powers: &Powers,
    mode: Stitch,
    keys: Option<&Keys512<NR>>,
    lengths: Option<__m128i>,
) -> (usize, bool) {
    let chunks = data.len() / 256;
    if chunks == 0 {
        return (0, false);
    }
    let mut built;
    let keys = match keys {
        Some(keys) => Some(keys),
        None if data.len() >= KEYS512_FROM => {
            // SAFETY: filled on the next line.
            built = unsafe { Keys512::<NR>::empty() };
            built.fill(&key.rk);
            Some(&built)
        }
        None => None,
    };
    // SAFETY (both): as this function's contract.
    unsafe {
        match keys {
            Some(keys) => {
                stitched_zmm_chunks::<NR, BE, PUBLIC, _>(keys, counter, data, state, powers, mode, lengths)
            }
            None => {
                stitched_zmm_chunks::<NR, BE, PUBLIC, _>(key, counter, data, state, powers, mode, lengths)
            }
        }
    }
}

/// [`ctr_stitched_zmm`]'s loop over the whole chunks, the round
/// keys read from `keys`; with `lengths`, the message's tail and its
/// length block as well when the tail is long enough (see
/// [`ctr_stitched_zmm`]).
///
/// # Safety
/// The CPU must support the enabled features.
#[allow(clippy::too_many_arguments)]
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
unsafe fn stitched_zmm_chunks<const NR: usize, const BE: bool, const PUBLIC: bool, K: ZmmKeys>(
    keys: &K,
    counter: &Block,
    data: &mut [u8],
    state: &mut __m128i,
    powers: &Powers,
    mode: Stitch,
    lengths: Option<__m128i>,
) -> (usize, bool) {
    let chunks = data.len() / 256;
    let hash_output = mode.hashes_output();
    let reversed = mode.reversed();
    let mut counters = ChunkCounters::<BE, PUBLIC>::new(counter_quad::<BE>(counter));
    let sixteen = Sixteen::new(powers);
    let p = data.as_mut_ptr();
    let mut s = *state;
    let lag = usize::from(hash_output);
    for c in 0..chunks {
        let b = counters.next();
        // SAFETY: c < chunks: the chunk lies inside `data`, and so does
        // the one `lag` before it when c >= lag.
        unsafe {
            let chunk = p.add(256 * c);
            s = if c < lag {
                stitched_chunk_zmm::<NR, false, K>(keys, b, chunk, chunk, s, &sixteen, reversed)
            } else {
                let src = chunk.sub(256 * lag);
                stitched_chunk_zmm::<NR, true, K>(keys, b, chunk, src, s, &sixteen, reversed)
            };
        }
    }
    // A tail past FINAL_CHUNK_FROM, when finishing: its CTR first,
    // which does not wait for the hash below.
    let rest = data.len() - 256 * chunks;
    let last = match lengths {
        // SAFETY: the `rest` bytes after the whole chunks lie inside `data`.
        Some(_) if rest > FINAL_CHUNK_FROM => {
            Some(unsafe { final_ctr_zmm::<NR, K>(keys, counters.next(), p.add(256 * chunks), rest, mode) })
        }
        _ => None,
    };
    if hash_output && chunks > 0 {
        // SAFETY: the last chunk, not yet hashed, lies inside `data`.
        s = unsafe {
            let last = p.add(256 * (chunks - 1));
            if reversed { sixteen.absorb::<true>(s, last) } else { sixteen.absorb::<false>(s, last) }
        };
    }
    let (Some(len), Some(x)) = (lengths, last) else {
        *state = s;
        return (chunks * 256, false);
    };
    *state = sixteen.absorb_final(s, x, rest.div_ceil(16), len);
    (data.len(), true)
}

/// CTR of the last `n` bytes of a message (177 to 255) at `p`, in place,
/// as one 256-byte chunk under a mask (counter blocks `b`): the bytes
/// past `n` are neither read nor written. Returns the blocks the pass
/// hashes (output or input, by `mode`; byte-reversed for GCM), zero past
/// `n` as POLYVAL pads them, for [`Sixteen::absorb_final`].
///
/// # Safety
/// `p` must point to `n` bytes that may be read and written; the CPU
/// must support the enabled features.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
unsafe fn final_ctr_zmm<const NR: usize, K: ZmmKeys>(
    keys: &K,
    mut b: [__m512i; 4],
    p: *mut u8,
    n: usize,
    mode: Stitch,
) -> [__m512i; 4] {
    debug_assert!((FINAL_CHUNK_FROM + 1..256).contains(&n));
    // Register q's bytes inside the message.
    let mask = |q: usize| -> __mmask64 {
        match n.saturating_sub(64 * q) {
            0 => 0,
            have if have >= 64 => !0,
            have => (1 << have) - 1,
        }
    };
    // A masked load or store touches only the bytes its mask selects (the
    // others may lie past the end of the buffer: the address is formed
    // with `wrapping_add` and never used for them).
    // SAFETY: the selected bytes lie inside the `n` bytes at `p`.
    let input: [__m512i; 4] =
        array(|q| unsafe { _mm512_maskz_loadu_epi8(mask(q), p.wrapping_add(64 * q).cast()) });
    // SAFETY (the three): this function enables AVX-512 F and VAES.
    unsafe { keys.first(&mut b) };
    for r in 1..NR {
        unsafe { keys.middle(&mut b, r) };
    }
    unsafe { keys.last(&mut b) };
    let reverse4 = _mm512_broadcast_i32x4(byte_reverse_mask());
    array(|q| {
        // The key stream past `n` never leaves the register: zeroed here.
        let out = _mm512_maskz_mov_epi8(mask(q), _mm512_xor_si512(b[q], input[q]));
        // SAFETY: as the loads. (A masked store costs more than a plain
        // one: registers wholly inside the tail take a plain one.)
        unsafe {
            match mask(q) {
                0 => {}
                m if m == !0 => _mm512_storeu_si512(p.add(64 * q).cast(), out),
                m => _mm512_mask_storeu_epi8(p.wrapping_add(64 * q).cast(), m, out),
            }
        }
        let x = if mode.hashes_output() { out } else { input[q] };
        if mode.reversed() { _mm512_shuffle_epi8(x, reverse4) } else { x }
    })
}

/// CTR of the 256-byte chunk at `chunk` (in place; counter blocks `b`,
/// from [`ChunkCounters`]) with, if `HASH`,
/// the chunk at `src` absorbed into `s`, one quad product after each of
/// the first four rounds. Returns the new `s`.
///
/// S goes in with the chunk's first block, as in the 256-bit pass, not
/// as a product of its own as in [`polyval_chunks_zmm`]: a chunk here is
/// long enough (the AES rounds) to hide the longer chain from one S to
/// the next, and the three products saved are 7% of the chunk's
/// multiplier work (GCM seals of 16 KiB 4-5% fewer cycles, GCM-SIV
/// opens 2-3%).
///
/// # Safety
/// `chunk` and `src` must each point to a whole chunk inside the data;
/// the CPU must support the enabled features.
#[allow(clippy::too_many_arguments)]
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
unsafe fn stitched_chunk_zmm<const NR: usize, const HASH: bool, K: ZmmKeys>(
    keys: &K,
    mut b: [__m512i; 4],
    chunk: *mut u8,
    src: *const u8,
    s: __m128i,
    sixteen: &Sixteen,
    reversed: bool,
) -> __m128i {
    let reverse4 = _mm512_broadcast_i32x4(byte_reverse_mask());
    // SAFETY (the three): this function enables AVX-512 F and VAES.
    unsafe { keys.first(&mut b) };
    let mut sums = (_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512());
    for r in 1..NR {
        unsafe { keys.middle(&mut b, r) };
        if HASH && r <= 4 {
            // Quads 1, 2, 3, then 0, which carries S: three rounds more
            // for the previous chunk's reduction to finish.
            let q = r % 4;
            // SAFETY: quad q of the chunk at `src` (caller's contract).
            let x = unsafe { _mm512_loadu_si512(src.add(64 * q).cast()) };
            let x = if reversed { _mm512_shuffle_epi8(x, reverse4) } else { x };
            let x = if q == 0 { _mm512_xor_si512(x, _mm512_zextsi128_si512(s)) } else { x };
            sixteen.product(x, q, &mut sums);
        }
    }
    unsafe { keys.last(&mut b) };
    // `b` ends up holding this pass's output, already in the data: no
    // keystream is left behind.
    for (k, x) in b.iter_mut().enumerate() {
        // SAFETY: register k of this chunk (caller's contract).
        unsafe {
            let q = chunk.add(64 * k);
            *x = _mm512_xor_si512(*x, _mm512_loadu_si512(q.cast()));
            _mm512_storeu_si512(q.cast(), *x);
        }
    }
    if HASH { sixteen.reduce(sums) } else { s }
}

/// CTR of chunk `c` at `chunk` (in place) with, if `HASH`, the chunk at
/// `src` absorbed into `s`, one pair product after each of the first four
/// rounds. Returns the new `s`.
///
/// # Safety
/// `chunk` and `src` must each point to a whole chunk inside the data;
/// the CPU must support the enabled features.
#[allow(clippy::too_many_arguments)]
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
unsafe fn stitched_chunk_wide<const NR: usize, const BE: bool, const PUBLIC: bool, const HASH: bool>(
    key: &Schedule<NR>,
    base: __m256i,
    c: usize,
    chunk: *mut u8,
    src: *const u8,
    s: __m128i,
    table: &Pairs,
    reversed: bool,
) -> __m128i {
    let reverse2 = _mm256_broadcastsi128_si256(byte_reverse_mask());
    let mut b = chunk_counters::<BE, PUBLIC>(base, c, reverse2);
    round4x2!("vpxor", &mut b, &key.rk[0]);
    let (mut lo, mut hi, mut mid) = (_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256());
    for r in 1..NR {
        round4x2!("vaesenc", &mut b, &key.rk[r]);
        if HASH && r <= CHUNK_BLOCKS / 2 {
            let j = r - 1;
            // SAFETY: pair j of the chunk at `src` (caller's contract).
            let x = unsafe { _mm256_loadu_si256(src.add(32 * j).cast()) };
            let x = if reversed { _mm256_shuffle_epi8(x, reverse2) } else { x };
            pair_product_table(x, j, s, table, &mut lo, &mut hi, &mut mid);
        }
    }
    round4x2!("vaesenclast", &mut b, &key.rk[NR]);
    // `b` ends up holding this pass's output, already in the data: no
    // keystream is left behind.
    for (k, x) in b.iter_mut().enumerate() {
        // SAFETY: register k of this chunk (caller's contract).
        unsafe {
            let q = chunk.add(32 * k).cast::<__m256i>();
            *x = _mm256_xor_si256(*x, _mm256_loadu_si256(q));
            _mm256_storeu_si256(q, *x);
        }
    }
    if HASH { finish(lo, hi, mid) } else { s }
}
