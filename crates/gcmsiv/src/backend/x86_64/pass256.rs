//! The bulk passes on 256-bit registers, two blocks per instruction: CTR
//! with VAES, POLYVAL's aggregated step with VPCLMULQDQ, and the two
//! stitched in one pass (GCM-SIV decryption, GCM both ways), built from
//! `vaes.rs`'s primitives: the `vaes256` tier's passes, and the `vaes512`
//! tier's for what its 512-bit chunks leave. Each takes the whole chunks of
//! its input and returns how far it got; `bulk.rs` runs the 128-bit pass
//! (`pass128.rs`) and the tails for the rest.
//!
//! Every function here carries the 256-bit set of target features; callers
//! reach them only through a key whose [`Features`](super::Features) name a
//! VAES tier.

use super::aes::Schedule;
use super::clmul::Powers;
use super::load::byte_reverse_mask;
use super::pass128::{Stitch, counter_after};
use super::vaes::*;
use crate::backend::{Block, InOut};
use core::arch::x86_64::*;

/// CTR over the whole 128-byte chunks of `data` from `counter` (as
/// `bulk.rs`'s `ctr32`: little-endian in the first four bytes, or with
/// `BE` GCM's big-endian last four), two blocks per instruction, from its
/// input to its output; returns the bytes processed. The caller runs the
/// rest from counter + bytes / 16.
///
/// # Safety
/// The CPU must support the enabled features (AVX2 and VAES besides the
/// baseline set).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) unsafe fn ctr32_ymm<const NR: usize, const BE: bool, const PUBLIC: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    mut data: InOut<'_>,
) -> usize {
    let chunks = data.len() / (16 * CHUNK_BLOCKS);
    if chunks == 0 {
        return 0;
    }
    let base = counter_pair::<BE>(counter);
    let reverse2 = _mm256_broadcastsi128_si256(byte_reverse_mask());
    let (input, output) = (data.input_ptr(), data.output_ptr());
    for c in 0..chunks {
        let mut b = chunk_counters::<BE, PUBLIC>(base, c, reverse2);
        encrypt_chunk!(round4x2, "vpxor", &mut b, &key.rk, NR);
        for (k, x) in b.iter().enumerate() {
            // SAFETY: chunk c's register k covers bytes 128 c + 32 k
            // .. + 32, inside the input and the output (c < chunks).
            unsafe {
                let at = 16 * CHUNK_BLOCKS * c + 32 * k;
                let x = _mm256_xor_si256(_mm256_loadu_si256(input.add(at).cast()), *x);
                _mm256_storeu_si256(output.add(at).cast(), x);
            }
        }
    }
    chunks * 16 * CHUNK_BLOCKS
}

/// POLYVAL's aggregated step over the whole 128-byte chunks of `blocks`,
/// from `s`: per chunk, S = dot(S ^ X_1, H^8) ^ dot(X_2, H^7) ^ ... ^
/// dot(X_8, H), as [`super::clmul::aggregate`], with two Karatsuba products
/// per instruction and one reduction. Returns S and the bytes absorbed.
///
/// The powers are read as [`pairs`] of the table, in the lane order of the
/// block pairs as they lie in memory (swapping each pair's lanes instead
/// slowed the stitched pass).
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
/// ([`ctr_stitched_wide`]). A heap buffer starts on a 16-byte
/// boundary, and half of them 16 bytes past a 32-byte one (every buffer of
/// 128 KiB or more does: the allocator's header before a mapped block);
/// there the passes run slower than aligned, since their 256- and 512-bit
/// loads and stores split cache lines. The first block apart leaves a tail
/// of 240 bytes past the last whole chunk, which costs less than the
/// misalignment from this length on (the 512-bit pass finishes such tails
/// as one masked chunk).
pub(super) const ALIGN_FROM: usize = 8 * 1024;

/// [`polyval_chunks_ymm`] on the table's [`pairs`].
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
/// table). Out of place, the block is copied and worked on in place: one
/// block of a long message.
///
/// # Safety
/// The CPU must support the enabled features.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn stitched_block<const NR: usize>(
    key: &Schedule<NR>,
    counter: &Block,
    block: InOut<'_>,
    state: &mut __m128i,
    powers: &Powers,
    mode: Stitch,
) {
    let block = block.into_in_place();
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

/// `pass128.rs`'s `ctr_stitched` two blocks per instruction: CTR of each
/// chunk in four 256-bit registers with, between its first rounds, the
/// four pair products of the hash (the output of two chunks before when
/// hashing output, this chunk's input otherwise): the `vaes256` tier's
/// stitched pass, which the `vaes512` tier runs after its own 512-bit one
/// (`ctr_stitched_zmm`). Returns the bytes processed
/// (whole chunks, and the first block if it went on its own: from
/// [`ALIGN_FROM`] bytes, when `data` starts 16 bytes past a 32-byte
/// boundary, as large heap buffers do, so that the chunks' 256- and
/// 512-bit loads and stores fall on 32-byte boundaries); the caller does
/// the tail. `PUBLIC`: the counter's value is public, as in
/// `ctr32`.
///
/// With `lengths` (the message's length block), the pass finishes the
/// message: it takes the tail too, hashes the length block last, and
/// returns `data.len()`. Where the 512-bit pass ran, a tail of more than
/// `FINAL_CHUNK_FROM` bytes goes through one more 256-byte chunk under
/// a mask (`final_ctr_zmm`, `Sixteen::absorb_final`) rather
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
    mut data: InOut<'_>,
    state: &mut __m128i,
    powers: &Powers,
    mode: Stitch,
    lengths: Option<__m128i>,
) -> usize {
    if data.len() >= ALIGN_FROM && data.output_ptr() as usize % 32 == 16 {
        let (first, rest) = data.split_at(16);
        // SAFETY (both): same features (AES-NI and PCLMULQDQ among them).
        // `rest` starts on a 32-byte boundary: nothing goes apart again.
        unsafe { stitched_block(key, counter, first, state, powers, mode) };
        let next = counter_after::<BE>(counter, 16);
        return 16
            + unsafe { ctr_stitched_wide::<_, BE, PUBLIC>(key, &next, rest, state, powers, mode, lengths) };
    }
    let total = data.len();
    // SAFETY: same features.
    let mut done =
        unsafe { ctr_stitched_ymm::<_, BE, PUBLIC>(key, counter, data.reborrow(), state, powers, mode) };
    if let Some(len) = lengths {
        let c = counter_after::<BE>(counter, done);
        // The tail (less than a chunk) in place, copied first when out of place.
        let tail = data.split_at(done).1.into_in_place();
        // SAFETY: same features; 16 readable bytes in the counter.
        *state = unsafe {
            let c = _mm_loadu_si128(c.as_ptr().cast());
            super::blocks::avx::stitched_tail::<NR>(&key.rk, c, tail, *state, powers, len, mode)
        };
        done = total;
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
    mut data: InOut<'_>,
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
    let (input, output) = (data.input_ptr(), data.output_ptr());
    let mut s = *state;
    let table = pairs(powers);
    // A pass that hashes its output hashes two chunks behind CTR (the
    // first two have nothing to hash beside them): the hash then reads
    // output stored an iteration earlier rather than the stores just
    // made, which one chunk behind waits for; three or four behind gain
    // nothing more.
    let lag = if hash_output { chunks.min(2) } else { 0 };
    for c in 0..lag {
        // SAFETY: c < chunks: the chunk lies inside the input and the output.
        unsafe {
            let at = 16 * CHUNK_BLOCKS * c;
            let (i, o) = (input.add(at), output.add(at));
            stitched_chunk_wide::<_, BE, PUBLIC, false>(key, base, c, i, o, i, s, table, reversed);
        }
    }
    for c in lag..chunks {
        // SAFETY: c < chunks, so the chunk lies inside the input and the
        // output; so does the output's chunk `lag` before it.
        unsafe {
            let at = 16 * CHUNK_BLOCKS * c;
            let (i, o) = (input.add(at), output.add(at));
            let hashed = if hash_output { o.sub(16 * CHUNK_BLOCKS * lag).cast_const() } else { i };
            s = stitched_chunk_wide::<_, BE, PUBLIC, true>(key, base, c, i, o, hashed, s, table, reversed);
        }
    }
    if hash_output {
        // The last `lag` chunks' output, not yet hashed.
        let last = &data.output()[16 * CHUNK_BLOCKS * (chunks - lag)..16 * CHUNK_BLOCKS * chunks];
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

/// CTR of chunk `c` from `input` to `output` (the same address in place)
/// with, if `HASH`, the chunk at `hashed` absorbed into `s`, one pair
/// product after each of the first four rounds. Returns the new `s`.
///
/// # Safety
/// `input`, `output` and `hashed` must each point to a whole chunk inside
/// the data; the CPU must support the enabled features.
#[allow(clippy::too_many_arguments)]
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
unsafe fn stitched_chunk_wide<const NR: usize, const BE: bool, const PUBLIC: bool, const HASH: bool>(
    key: &Schedule<NR>,
    base: __m256i,
    c: usize,
    input: *const u8,
    output: *mut u8,
    hashed: *const u8,
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
            // SAFETY: pair j of the chunk at `hashed` (caller's contract).
            let x = unsafe { _mm256_loadu_si256(hashed.add(32 * j).cast()) };
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
            *x = _mm256_xor_si256(*x, _mm256_loadu_si256(input.add(32 * k).cast()));
            _mm256_storeu_si256(output.add(32 * k).cast(), *x);
        }
    }
    if HASH { finish(lo, hi, mid) } else { s }
}
