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

use super::Features;
use super::aes::Schedule;
use super::array;
use super::clmul::Powers;
use super::load::byte_reverse_mask;
use super::pass128::Stitch;
use super::wide::*;
use crate::backend::Block;
use core::arch::x86_64::*;

impl<const NR: usize> Schedule<NR> {
    /// CTR over the whole 128-byte chunks of `data` from `counter` (as
    /// [`Schedule::ctr32`]: little-endian in the first four bytes, or with
    /// `BE` GCM's big-endian last four); returns the bytes processed. The
    /// caller runs the rest from counter + bytes / 16. Where the CPU has
    /// AVX-512, the 256-byte chunks run four blocks per instruction first
    /// ([`Self::ctr32_zmm`]).
    ///
    /// # Safety
    /// The CPU must support the enabled features (AVX2 and VAES besides the
    /// baseline set).
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
    pub(super) unsafe fn ctr32_vaes<const BE: bool, const PUBLIC: bool>(
        &self,
        counter: &Block,
        data: &mut [u8],
    ) -> usize {
        let (done, next) = if self.features.zmm() {
            // SAFETY: `zmm` proves AVX-512 F, BW and VL besides.
            let done = unsafe { self.ctr32_zmm::<BE, PUBLIC>(counter, data) };
            (done, counter_after::<BE>(counter, done))
        } else {
            (0, *counter)
        };
        let data = &mut data[done..];
        let chunks = data.len() / (16 * CHUNK_BLOCKS);
        if chunks == 0 {
            return done;
        }
        let base = counter_pair::<BE>(&next);
        let reverse2 = _mm256_broadcastsi128_si256(byte_reverse_mask());
        let p = data.as_mut_ptr();
        for c in 0..chunks {
            let mut b = chunk_counters::<BE, PUBLIC>(base, c, reverse2);
            encrypt_chunk!(round4x2, "vpxor", &mut b, &self.rk, NR);
            for (k, x) in b.iter().enumerate() {
                // SAFETY: chunk c's register k covers bytes 128 c + 32 k
                // .. + 32, inside `data` (c < chunks).
                unsafe {
                    let q = p.add(16 * CHUNK_BLOCKS * c + 32 * k).cast::<__m256i>();
                    _mm256_storeu_si256(q, _mm256_xor_si256(_mm256_loadu_si256(q), *x));
                }
            }
        }
        done + chunks * 16 * CHUNK_BLOCKS
    }

    /// [`Self::ctr32_vaes`] over whole 256-byte chunks, four registers of
    /// four blocks (limits table: 0.117 against 0.120 c/B for AES-128, 0.163
    /// against 0.173 for AES-256). Returns the bytes processed.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    unsafe fn ctr32_zmm<const BE: bool, const PUBLIC: bool>(
        &self,
        counter: &Block,
        data: &mut [u8],
    ) -> usize {
        let chunks = data.len() / 256;
        let mut counters = ChunkCounters::<BE, PUBLIC>::new(counter_quad::<BE>(counter));
        let p = data.as_mut_ptr();
        for c in 0..chunks {
            let mut b = counters.next();
            encrypt_chunk!(round4x4, "vpxorq", &mut b, &self.rk, NR);
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
}

/// POLYVAL's aggregated step over the whole 128-byte chunks of `blocks`,
/// from `s`: per chunk, S = dot(S ^ X_1, H^8) ^ dot(X_2, H^7) ^ ... ^
/// dot(X_8, H), as [`super::clmul::aggregate`], with two Karatsuba products
/// per instruction and one reduction. Returns S and the bytes absorbed.
/// Long inputs, where `features` has AVX-512, take [`polyval_chunks_zmm`]
/// for their 256-byte chunks first.
///
/// The powers are read as [`pairs`] of the table, in the lane order of the
/// block pairs as they lie in memory (swapping each pair's lanes instead cost
/// 5% in the stitched pass).
///
/// # Safety
/// The CPU must support the enabled features (AVX2 and VPCLMULQDQ besides
/// the baseline set).
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) unsafe fn polyval_chunks_wide<const REVERSED: bool>(
    features: Features,
    s: __m128i,
    powers: &Powers,
    blocks: &[u8],
) -> (__m128i, usize) {
    let (s, done) = if features.zmm() && blocks.len() >= ZMM_FROM {
        // SAFETY: `zmm` proves AVX-512 F, BW and VL besides (`Features::detect_wide`).
        unsafe { polyval_chunks_zmm::<REVERSED>(s, powers, blocks) }
    } else {
        (s, 0)
    };
    // SAFETY: same features.
    let (s, more) = unsafe { polyval_chunks_with::<REVERSED>(s, pairs(powers), &blocks[done..]) };
    (s, done + more)
}

/// Inputs at least this long take the 512-bit hash ([`polyval_chunks_zmm`],
/// [`Schedule::ctr_stitched_wide`]) where the CPU can. Below it, building
/// H^9..H^16 costs more than the wider pass saves. With H^9..H^16 built as
/// eight products one instruction at a time, the break-even lay between 2
/// and 4 KiB; built four per instruction, against 4 KiB: 1-1.5 KiB 0-8%
/// fewer cycles, 2-3 KiB 3-13% (seals, opens, GCM); 512 B even.
const ZMM_FROM: usize = 1024;

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
const ALIGN_FROM: usize = 8 * 1024;

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
unsafe fn polyval_chunks_with<const REVERSED: bool>(
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

impl<const NR: usize> Schedule<NR> {
    /// One block of a stitched pass on its own: CTR under `counter` and the
    /// hash step of the block the mode hashes (Horner's rule, H from the
    /// table).
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn stitched_block(
        &self,
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
            super::blocks::avx::encrypt::<NR, 1>(&mut keystream, &self.rk);
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
    /// hashing output, this chunk's input otherwise). Where the CPU has
    /// AVX-512 and the data is at least [`ZMM_FROM`] bytes, the 256-byte
    /// chunks go first through [`Self::ctr_stitched_zmm`] (the hash four
    /// blocks per instruction: opens of 8-16 KiB 7-10% fewer cycles for
    /// AES-128, 3-6% for AES-256; GCM 4-16%). Returns the bytes processed
    /// (whole chunks, and the first block if it went on its own: from
    /// [`ALIGN_FROM`] bytes, when `data` starts 16 bytes past a 32-byte
    /// boundary, as large heap buffers do, so that the chunks' 256- and
    /// 512-bit loads and stores fall on 32-byte boundaries); the caller does
    /// the tail. `PUBLIC`: the counter's value is public, as in
    /// [`Self::ctr32`].
    ///
    /// With `lengths` (the message's length block), the pass finishes the
    /// message: it takes the tail too, hashes the length block last, and
    /// returns `data.len()`. Where the 512-bit pass ran, a tail of more than
    /// [`FINAL_CHUNK_FROM`] bytes goes through one more 256-byte chunk under
    /// a mask ([`Self::final_ctr_zmm`], [`Sixteen::absorb_final`]) rather
    /// than a 128-byte chunk of the 256-bit pass and then `blocks.rs`'s
    /// `stitched_tail`: one chain of AES rounds and one reduction where
    /// there were two of each.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
    pub(super) unsafe fn ctr_stitched_wide<const BE: bool, const PUBLIC: bool>(
        &self,
        counter: &Block,
        data: &mut [u8],
        state: &mut __m128i,
        powers: &Powers,
        mode: Stitch,
        keys: Option<&Keys512<NR>>,
        lengths: Option<__m128i>,
    ) -> usize {
        if data.len() >= ALIGN_FROM && data.as_ptr() as usize % 32 == 16 {
            let (first, rest) = data.split_at_mut(16);
            // SAFETY (both): same features (AES-NI and PCLMULQDQ among them).
            // `rest` starts on a 32-byte boundary: nothing goes apart again.
            unsafe { self.stitched_block(counter, first, state, powers, mode) };
            let next = counter_after::<BE>(counter, 16);
            return 16
                + unsafe {
                    self.ctr_stitched_wide::<BE, PUBLIC>(&next, rest, state, powers, mode, keys, lengths)
                };
        }
        let mut done = 0;
        let mut next = *counter;
        if self.features.zmm() && data.len() >= ZMM_FROM {
            // SAFETY: `zmm` proves AVX-512 F, BW and VL besides.
            let finished;
            (done, finished) = unsafe {
                self.ctr_stitched_zmm::<BE, PUBLIC>(counter, data, state, powers, mode, keys, lengths)
            };
            if finished {
                return done;
            }
            next = counter_after::<BE>(counter, done);
        }
        // SAFETY: same features.
        done += unsafe { self.ctr_stitched_ymm::<BE, PUBLIC>(&next, &mut data[done..], state, powers, mode) };
        if let Some(len) = lengths {
            let c = counter_after::<BE>(counter, done);
            // SAFETY: same features; 16 readable bytes in the counter.
            *state = unsafe {
                let c = _mm_loadu_si128(c.as_ptr().cast());
                super::blocks::avx::stitched_tail::<NR>(
                    &self.rk,
                    c,
                    &mut data[done..],
                    *state,
                    powers,
                    len,
                    mode,
                )
            };
            done = data.len();
        }
        done
    }

    /// [`Self::ctr_stitched_wide`] on 256-bit registers. (The parameters of
    /// `pass128.rs`'s `ctr_stitched`, on purpose: the same pass at another
    /// width.)
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
    unsafe fn ctr_stitched_ymm<const BE: bool, const PUBLIC: bool>(
        &self,
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
                self.stitched_chunk_wide::<BE, PUBLIC, false>(base, c, chunk, chunk, s, table, reversed);
            }
        }
        for c in lag..chunks {
            // SAFETY: c < chunks, so the chunk lies inside `data`; so does
            // the one `lag` before it.
            unsafe {
                let chunk = p.add(16 * CHUNK_BLOCKS * c);
                let src = if hash_output { chunk.sub(16 * CHUNK_BLOCKS * lag) } else { chunk };
                s = self.stitched_chunk_wide::<BE, PUBLIC, true>(base, c, chunk, src, s, table, reversed);
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

    /// [`Self::ctr_stitched_wide`] over whole 256-byte chunks with 512-bit
    /// registers, for CPUs with AVX-512: CTR of sixteen blocks in four
    /// registers ([`round4x4!`]) and POLYVAL's sixteen-block step as in
    /// [`polyval_chunks_zmm`] (four blocks per `vpclmulqdq`, which on Zen 4
    /// issues as often as a 256-bit one), the four products between the
    /// first rounds. A pass that hashes its output hashes one chunk (256
    /// bytes) behind CTR. Returns the bytes processed, and whether the pass
    /// finished the message (with `lengths`, when its tail was long enough
    /// for [`Self::final_ctr_zmm`]: the length block absorbed too);
    /// otherwise the caller goes on from counter + bytes / 16.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    unsafe fn ctr_stitched_zmm<const BE: bool, const PUBLIC: bool>(
        &self,
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
                built.fill(&self.rk);
                Some(&built)
            }
            None => None,
        };
        // SAFETY (both): as this function's contract.
        unsafe {
            match keys {
                Some(keys) => self
                    .stitched_zmm_chunks::<BE, PUBLIC, _>(keys, counter, data, state, powers, mode, lengths),
                None => self
                    .stitched_zmm_chunks::<BE, PUBLIC, _>(self, counter, data, state, powers, mode, lengths),
            }
        }
    }

    /// [`Self::ctr_stitched_zmm`]'s loop over the whole chunks, the round
    /// keys read from `keys`; with `lengths`, the message's tail and its
    /// length block as well when the tail is long enough (see
    /// [`Self::ctr_stitched_zmm`]).
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    unsafe fn stitched_zmm_chunks<const BE: bool, const PUBLIC: bool, K: ZmmKeys>(
        &self,
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
                    self.stitched_chunk_zmm::<false, K>(keys, b, chunk, chunk, s, &sixteen, reversed)
                } else {
                    let src = chunk.sub(256 * lag);
                    self.stitched_chunk_zmm::<true, K>(keys, b, chunk, src, s, &sixteen, reversed)
                };
            }
        }
        // A tail past FINAL_CHUNK_FROM, when finishing: its CTR first,
        // which does not wait for the hash below.
        let rest = data.len() - 256 * chunks;
        let last = match lengths {
            // SAFETY: the `rest` bytes after the whole chunks lie inside `data`.
            Some(_) if rest > FINAL_CHUNK_FROM => {
                Some(unsafe { self.final_ctr_zmm(keys, counters.next(), p.add(256 * chunks), rest, mode) })
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
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    unsafe fn final_ctr_zmm<K: ZmmKeys>(
        &self,
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
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    unsafe fn stitched_chunk_zmm<const HASH: bool, K: ZmmKeys>(
        &self,
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
    unsafe fn stitched_chunk_wide<const BE: bool, const PUBLIC: bool, const HASH: bool>(
        &self,
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
        round4x2!("vpxor", &mut b, &self.rk[0]);
        let (mut lo, mut hi, mut mid) =
            (_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256());
        for r in 1..NR {
            round4x2!("vaesenc", &mut b, &self.rk[r]);
            if HASH && r <= CHUNK_BLOCKS / 2 {
                let j = r - 1;
                // SAFETY: pair j of the chunk at `src` (caller's contract).
                let x = unsafe { _mm256_loadu_si256(src.add(32 * j).cast()) };
                let x = if reversed { _mm256_shuffle_epi8(x, reverse2) } else { x };
                pair_product_table(x, j, s, table, &mut lo, &mut hi, &mut mid);
            }
        }
        round4x2!("vaesenclast", &mut b, &self.rk[NR]);
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
}

#[cfg(test)]
mod tests {
    use super::super::aes::Schedule;
    use super::super::clmul::{Powers, absorb_padded};
    use super::super::{Aes128, Aes256, Features};
    use super::polyval_chunks_wide;
    use crate::backend::BlockCipher;
    use core::arch::x86_64::*;

    /// POLYVAL two blocks per instruction (and, where the CPU has AVX-512,
    /// four, from [`super::ZMM_FROM`] bytes) equals POLYVAL one block per
    /// instruction, with and without a length block, from a nonzero state.
    #[test]
    fn wide_polyval_equals_narrow_polyval() {
        let Some(detected) = Features::detect_widest() else {
            return; // this CPU has no VPCLMULQDQ: nothing to compare
        };
        let data: std::vec::Vec<u8> = (0..9000u32).map(|i| (i * 11 + 5) as u8).collect();
        for seed in 1..4u8 {
            let h: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(seed).wrapping_add(seed * 29));
            // SAFETY: `detect_wide` found every feature these functions enable.
            let outs = unsafe {
                let powers = Powers::new(_mm_loadu_si128(h.as_ptr().cast()));
                let start = _mm_set_epi64x(seed as i64 * 77, 12345);
                let lengths = _mm_set_epi64x(8 * 1100, 8 * seed as i64);
                let mut outs = std::vec::Vec::new();
                let lens = [
                    0, 15, 16, 127, 128, 129, 255, 256, 257, 1023, 1024, 1100, 1280, 4095, 4096, 4097, 4224,
                    4352, 8321, 9000,
                ];
                for len in lens {
                    for last in [None, Some(lengths)] {
                        let a = absorb_padded(start, &powers, &data[..len], last);
                        for features in [Features { zmm: false, ..detected }, detected] {
                            let (t, done) =
                                polyval_chunks_wide::<false>(features, start, &powers, &data[..len]);
                            let b = absorb_padded(t, &powers, &data[done..len], last);
                            let (mut x, mut y) = ([0u8; 16], [0u8; 16]);
                            _mm_storeu_si128(x.as_mut_ptr().cast(), a);
                            _mm_storeu_si128(y.as_mut_ptr().cast(), b);
                            outs.push((len, last.is_some(), x, y));
                        }
                    }
                }
                // GHASH's byte order: four blocks per instruction against two.
                if detected.zmm() {
                    for len in [256, 512, 4096, 4224, 8960] {
                        let a =
                            super::polyval_chunks_with::<true>(start, super::pairs(&powers), &data[..len]);
                        let (t, done) = super::polyval_chunks_zmm::<true>(start, &powers, &data[..len]);
                        let b =
                            super::polyval_chunks_with::<true>(t, super::pairs(&powers), &data[done..len]);
                        assert_eq!(a.1, len);
                        assert_eq!(done + b.1, len);
                        let (mut x, mut y) = ([0u8; 16], [0u8; 16]);
                        _mm_storeu_si128(x.as_mut_ptr().cast(), a.0);
                        _mm_storeu_si128(y.as_mut_ptr().cast(), b.0);
                        outs.push((len, true, x, y));
                    }
                }
                outs
            };
            for (len, last, x, y) in outs {
                assert_eq!(x, y, "POLYVAL, seed {seed}, len {len}, length block {last}");
            }
        }
    }

    /// The narrow pass with `n` and the wide one with `w` (the same key), on
    /// `data.0` and `data.1`, from the states `s.0` and `s.1`: the bytes each
    /// processed.
    #[allow(clippy::too_many_arguments)]
    unsafe fn both<const NR: usize>(
        n: &Schedule<NR>,
        w: &Schedule<NR>,
        counter: &[u8; 16],
        data: (&mut [u8], &mut [u8]),
        s: (&mut __m128i, &mut __m128i),
        powers: &Powers,
        mode: super::super::pass128::Stitch,
        public: bool,
    ) -> (usize, usize) {
        // SAFETY: the caller found every feature these enable.
        unsafe {
            if mode == super::super::pass128::Stitch::SivOpen {
                (
                    n.ctr_stitched::<false>(counter, data.0, s.0, powers, mode),
                    w.ctr_stitched_wide::<false, false>(counter, data.1, s.1, powers, mode, None, None),
                )
            } else if public {
                // As AES-GCM runs it: with the key's broadcast round keys
                // where the CPU has AVX-512.
                // SAFETY (`empty`): filled just below.
                let mut keys = w.features.zmm().then(|| super::Keys512::<NR>::empty());
                if let Some(keys) = &mut keys {
                    keys.fill(&w.rk);
                }
                (
                    n.ctr_stitched::<true>(counter, data.0, s.0, powers, mode),
                    w.ctr_stitched_wide::<true, true>(
                        counter,
                        data.1,
                        s.1,
                        powers,
                        mode,
                        keys.as_ref(),
                        None,
                    ),
                )
            } else {
                (
                    n.ctr_stitched::<true>(counter, data.0, s.0, powers, mode),
                    w.ctr_stitched_wide::<true, false>(counter, data.1, s.1, powers, mode, None, None),
                )
            }
        }
    }

    /// The stitched CTR+hash pass two blocks per instruction equals the one
    /// block per instruction pass, in every mode (GCM-SIV open, GCM seal and
    /// open), for both key sizes, counters that wrap, and several lengths
    /// (from 16 KiB, an open builds its broadcast round keys for the call;
    /// GCM with a public counter passes the key's own).
    #[test]
    fn wide_stitched_equals_narrow_stitched() {
        use super::super::pass128::Stitch;
        let (Some(narrow), Some(wide)) = (Features::detect(), Features::detect_widest()) else {
            return; // this CPU has no VAES: nothing to compare
        };
        let data: std::vec::Vec<u8> = (0..17000u32).map(|i| (i * 5 + 1) as u8).collect();
        // Both 32-bit counters near 2^32; then GCM's lowest counter byte where
        // its chunks' counters start just below, at and just past the values
        // whose chunk does not carry out of it (the 512-bit pass keeps the
        // next chunk's counters byte-reversed only while none does).
        let counters: [[u8; 16]; 6] = [
            [0xfd, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xfc],
            [2, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 2],
            [0xe0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0xff, 0xe0],
            [0xe1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0xff, 0xe1],
            [0xf0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0xff, 0xf0],
            [0xf1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0xff, 0xf1],
        ];
        // With AVX-512, both the 512-bit pass and the 256-bit one alone.
        let widths = [Features { zmm: false, ..wide }, wide];
        for (mode, wide, counter) in [Stitch::SivOpen, Stitch::GcmSeal, Stitch::GcmOpen]
            .into_iter()
            .flat_map(|m| widths.map(|w| (m, w)))
            .flat_map(|(m, w)| counters.iter().map(move |c| (m, w, c)))
        {
            // GCM's counter both as a public one (96-bit IV: the shortcut)
            // and as a secret one (no branch on its value).
            let publics: &[bool] = if mode == Stitch::SivOpen { &[false] } else { &[true, false] };
            for (key_len, &public) in
                [16usize, 32].into_iter().flat_map(|k| publics.iter().map(move |p| (k, p)))
            {
                let key: std::vec::Vec<u8> = (0..key_len as u8).map(|i| i ^ 0x33).collect();
                for len in [
                    0, 127, 128, 129, 256, 300, 1023, 1024, 1100, 1280, 1536, 4095, 4096, 4097, 4224, 4352,
                    4480, 5000, 8191, 9000, 16384, 17000,
                ] {
                    // 16 bytes past a 64-byte boundary below `ALIGN_FROM`, on
                    // one from it: there the wide pass takes a buffer 16
                    // bytes off apart and so processes other bytes than the
                    // narrow one (the offset tests in `tests/backends.rs` and
                    // `tests/gcm.rs` cover that path, whole messages against
                    // other backends).
                    let off = if len < super::ALIGN_FROM { 16 } else { 0 };
                    let (mut store_a, mut store_b) = (std::vec![0u8; len + 80], std::vec![0u8; len + 80]);
                    let oa = store_a.as_ptr().align_offset(64) + off;
                    let ob = store_b.as_ptr().align_offset(64) + off;
                    let (a, b) = (&mut store_a[oa..oa + len], &mut store_b[ob..ob + len]);
                    a.copy_from_slice(&data[..len]);
                    b.copy_from_slice(&data[..len]);
                    // SAFETY: `detect_wide` found every feature these enable.
                    let (sa, sb, da, db) = unsafe {
                        let powers =
                            Powers::new(_mm_set_epi64x(0x0123_4567_89ab_cdef, 0x7766_5544_3322_1100));
                        let (mut sa, mut sb) = (_mm_set_epi64x(5, 9), _mm_set_epi64x(5, 9));
                        // The same call on both key sizes' schedules.
                        macro_rules! on {
                            ($aes:ident, $n:literal) => {{
                                let k: &[u8; $n] = key[..].try_into().unwrap();
                                both(
                                    &$aes::new(narrow, k),
                                    &$aes::new(wide, k),
                                    counter,
                                    (&mut *a, &mut *b),
                                    (&mut sa, &mut sb),
                                    &powers,
                                    mode,
                                    public,
                                )
                            }};
                        }
                        let (da, db) = if key_len == 16 { on!(Aes128, 16) } else { on!(Aes256, 32) };
                        let (mut x, mut y) = ([0u8; 16], [0u8; 16]);
                        _mm_storeu_si128(x.as_mut_ptr().cast(), sa);
                        _mm_storeu_si128(y.as_mut_ptr().cast(), sb);
                        (x, y, da, db)
                    };
                    let what = std::format!("{mode:?}, key {key_len}, public {public}, len {len}, {wide:?}");
                    assert_eq!(da, db, "{what}: bytes processed");
                    assert_eq!(a, b, "{what}: output");
                    assert_eq!(sa, sb, "{what}: hash state");
                }
            }
        }
    }

    /// CTR two blocks per instruction equals CTR one block per instruction,
    /// for both counters (GCM-SIV's little-endian one and GCM's big-endian
    /// one), at lengths around the chunk size and with counters about to wrap.
    #[test]
    fn wide_ctr_equals_narrow_ctr() {
        let (Some(narrow), Some(wide)) = (Features::detect(), Features::detect_widest()) else {
            return; // this CPU has no VAES: nothing to compare
        };
        let counters: [[u8; 16]; 7] = [
            [0; 16],
            core::array::from_fn(|i| (i as u8).wrapping_mul(37) | 0x80),
            // Both 32-bit counters near 2^32: the first chunk wraps them.
            [0xfb, 0xff, 0xff, 0xff, 5, 6, 7, 8, 9, 10, 11, 12, 0xff, 0xff, 0xff, 0xfa],
            // GCM's lowest counter byte at the last value whose 512-bit
            // chunk (sixteen blocks), then 256-bit chunk (eight), does not
            // carry out of it, and one past: the one-shuffle case's edges.
            [0xf0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10, 0xff, 0xf0],
            [0xf1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10, 0xff, 0xf1],
            [0xf8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10, 0xfe, 0xf8],
            [0xf9, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10, 0xfe, 0xf9],
        ];
        let data: std::vec::Vec<u8> = (0..1100u32).map(|i| (i * 7 + 3) as u8).collect();
        // With AVX-512, both the 512-bit pass and the 256-bit one alone.
        for (key_len, wide) in
            [16usize, 32].into_iter().flat_map(|k| [(k, Features { zmm: false, ..wide }), (k, wide)])
        {
            let key: std::vec::Vec<u8> = (0..key_len as u8).collect();
            for counter in &counters {
                for len in [0, 1, 15, 16, 127, 128, 129, 255, 256, 257, 383, 384, 511, 512, 640, 1024, 1100] {
                    let mut a = data[..len].to_vec();
                    let mut b = data[..len].to_vec();
                    let mut c = data[..len].to_vec();
                    let mut d = data[..len].to_vec();
                    let mut e = data[..len].to_vec();
                    // The same calls on both key sizes' schedules.
                    macro_rules! on {
                        ($aes:ident) => {{
                            let (n, w) = (
                                $aes::new(narrow, key[..].try_into().unwrap()),
                                $aes::new(wide, key[..].try_into().unwrap()),
                            );
                            n.ctr32le(counter, &mut a);
                            w.ctr32le(counter, &mut b);
                            n.ctr32be(counter, &mut c);
                            w.ctr32be(counter, &mut d);
                            // SAFETY: `detect_wide` found every feature it enables.
                            unsafe { w.ctr32::<true, true>(counter, &mut e) };
                        }};
                    }
                    if key_len == 16 {
                        on!(Aes128);
                    } else {
                        on!(Aes256);
                    }
                    assert_eq!(
                        a, b,
                        "little-endian counter, key {key_len}, len {len}, counter {counter:02x?}, {wide:?}"
                    );
                    assert_eq!(
                        c, d,
                        "big-endian counter, key {key_len}, len {len}, counter {counter:02x?}, {wide:?}"
                    );
                    assert_eq!(
                        c, e,
                        "public big-endian counter, key {key_len}, len {len}, counter {counter:02x?}, {wide:?}"
                    );
                    if len > 0 {
                        assert_ne!(a, data[..len], "CTR changed nothing");
                    }
                }
            }
        }
    }
}
