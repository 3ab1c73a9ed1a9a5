//! AES, CTR and POLYVAL on up to eight blocks in registers, the pieces that
//! finish a message: the short kernels (`short.rs`) are built from them, and
//! the bulk passes (`pass256.rs`, `long.rs`) finish their tails with
//! [`sse::stitched_tail`]. Written once and compiled twice, as `short.rs`'s
//! kernels are (`blocks!`): module [`sse`] with the base features, module
//! [`avx`] with AVX besides, each used by the kernels of the same features.

use super::aes::{aesenc_at, aesenclast_at, xor_at};
use super::array;
use super::clmul::{Powers, aggregate};
use super::load::{byte_reverse_mask, load_padded, load_partial, store_partial};
use super::pass128::Stitch;
use core::arch::x86_64::*;

/// Round keys 0..=NR of the record key (entries past NR unused, never written).
pub(super) type RoundKeys = [__m128i; 15];

/// Repeats `$body` with `$i` bound to each constant in turn: unrolled for
/// certain, so every round index is a constant.
macro_rules! unroll {
    ($i:ident in [$($n:literal),*] $body:block) => {
        $({
            const $i: usize = $n;
            $body
        })*
    };
}
pub(super) use unroll;

/// The functions of this file with `$features` as their target features:
/// expanded once per feature set (modules [`sse`] and [`avx`]).
macro_rules! blocks {
    ($features:literal) => {
        /// Round `r` of AES on `B` blocks. Every caller passes a constant `r` (the
        /// rounds are unrolled), so the choice of instruction folds away.
        ///
        /// The round key is read from the schedule by the instructions themselves:
        /// given as values, the round keys were kept in registers and spilled to
        /// stack slots that the schedule's wipe does not reach.
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) fn round<const NR: usize, const B: usize>(x: &mut [__m128i; B], rk: &RoundKeys, r: usize) {
            for b in x.iter_mut() {
                *b = if r == 0 {
                    xor_at(*b, &rk[0])
                } else if r == NR {
                    aesenclast_at(*b, &rk[r])
                } else {
                    aesenc_at(*b, &rk[r])
                };
            }
        }

        /// All rounds of AES on `B` blocks.
        ///
        /// Always inlined, without target features of its own (as
        /// [`xor_keystream`]): an instance that other kernels share (the same `NR`
        /// and `B`) was otherwise kept out of line, the blocks passed through
        /// memory.
        ///
        /// # Safety
        /// Only for inlining into functions that enable AES-NI.
        #[inline(always)]
        pub(crate) unsafe fn encrypt<const NR: usize, const B: usize>(x: &mut [__m128i; B], rk: &RoundKeys) {
            // SAFETY: inlined into callers that enable AES-NI.
            unsafe {
                round::<NR, B>(x, rk, 0);
                unroll! { R in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] {
                    if R <= NR {
                        round::<NR, B>(x, rk, R);
                    }
                } };
            }
        }

        /// XORs `data` (more than `16 (B - 1)` and at most `16 B` bytes) with the
        /// keystream `ks`, and returns the result as blocks, the last zero-padded.
        ///
        /// Always inlined (it needs only SSE2, so it can be): called out of line, it
        /// made the kernels spill what they held in registers across the call (H,
        /// its powers) to stack slots that nothing wipes.
        #[inline(always)]
        pub(crate) fn xor_keystream<const B: usize>(data: &mut [u8], ks: &[__m128i; B]) -> [__m128i; B] {
            debug_assert!(data.len() > 16 * (B - 1) && data.len() <= 16 * B);
            let mut out = *ks;
            let p = data.as_mut_ptr().cast::<__m128i>();
            for (j, x) in out[..B - 1].iter_mut().enumerate() {
                // SAFETY: blocks 0..B-1 are whole (the data is longer than 16 (B - 1)).
                unsafe {
                    *x = _mm_xor_si128(_mm_loadu_si128(p.add(j)), *x);
                    _mm_storeu_si128(p.add(j), *x);
                }
            }
            let last = &mut data[16 * (B - 1)..];
            let x = &mut out[B - 1];
            if last.len() == 16 {
                let q = last.as_mut_ptr().cast::<__m128i>();
                // SAFETY: 16 readable and writable bytes.
                unsafe {
                    *x = _mm_xor_si128(_mm_loadu_si128(q), *x);
                    _mm_storeu_si128(q, *x);
                }
            } else {
                // SAFETY: SSE2 is part of x86-64.
                unsafe {
                    *x = _mm_xor_si128(load_partial(last), *x);
                    store_partial(last, *x);
                    // Bytes at and past the length: keystream, to be cleared.
                    let index = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
                    *x = _mm_and_si128(*x, _mm_cmpgt_epi8(_mm_set1_epi8(last.len() as i8), index));
                }
            }
            out
        }

        /// The tail of a long stitched pass (fewer than 128 bytes, possibly none:
        /// the passes take every whole 128-byte chunk) and the length block `len`:
        /// CTR from the counter block `counter` in registers (GCM's big-endian, or
        /// GCM-SIV's little-endian), and the blocks `mode` hashes (GCM-SIV's
        /// plaintext; GCM's ciphertext, byte-reversed) absorbed into `s` with `len`
        /// in one aggregated step (two when that makes nine), H's powers read from
        /// `powers`. Returns the new S. In registers because through the mode's
        /// separate steps (two CTR entry points, then the blocks gathered in an
        /// array in memory, built and wiped) the tail cost more than whole chunks.
        ///
        /// # Safety
        /// The CPU must support the enabled features.
        #[allow(clippy::too_many_arguments)]
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn stitched_tail<const NR: usize>(
            rk: &RoundKeys,
            counter: __m128i,
            data: &mut [u8],
            s: __m128i,
            powers: &Powers,
            len: __m128i,
            mode: Stitch,
        ) -> __m128i {
            if data.is_empty() {
                return aggregate(s, &[len], powers);
            }
            // SAFETY (each arm): same features; 1 to 8 blocks.
            by_blocks! { data.len(), B => unsafe {
                stitched_tail_blocks::<NR, B>(rk, counter, data, s, powers, len, mode)
            } }
        }

        /// [`stitched_tail`] for `B` blocks (its parameters, on purpose: it
        /// only fixes the block count as a constant).
        ///
        /// # Safety
        /// The CPU must support the enabled features.
        #[allow(clippy::too_many_arguments)]
        #[inline]
        #[target_feature(enable = $features)]
        unsafe fn stitched_tail_blocks<const NR: usize, const B: usize>(
            rk: &RoundKeys,
            counter: __m128i,
            data: &mut [u8],
            s: __m128i,
            powers: &Powers,
            len: __m128i,
            mode: Stitch,
        ) -> __m128i {
            let reverse = byte_reverse_mask();
            let gcm = mode.reversed();
            let hash = |s: __m128i, blocks: [__m128i; B]| {
                absorb_with_length(
                    s,
                    if gcm { array(|i| _mm_shuffle_epi8(blocks[i], reverse)) } else { blocks },
                    len,
                    powers,
                )
            };
            // A pass that hashes its input (GCM's open) hashes first, so that the
            // blocks are not held beside the key stream (with both, the compiler
            // spilled).
            let s = if mode.hashes_output() {
                s
            } else {
                hash(s, array(|i| load_padded(&data[16 * i..data.len().min(16 * i + 16)])))
            };
            let output = if gcm {
                // Byte-reversed, the big-endian counter is lane 0, little-endian:
                // adding there wraps it modulo 2^32 and leaves the other 96 bits.
                let base = _mm_shuffle_epi8(counter, reverse);
                let mut ks: [__m128i; B] = array(|j| {
                    _mm_shuffle_epi8(_mm_add_epi32(base, _mm_setr_epi32(j as i32, 0, 0, 0)), reverse)
                });
                // SAFETY: this function enables AES-NI.
                unsafe { encrypt::<NR, B>(&mut ks, rk) };
                xor_keystream(data, &ks)
            } else {
                // SAFETY: same features.
                unsafe { ctr_blocks::<NR, B>(rk, counter, data) }
            };
            if mode.hashes_output() { hash(s, output) } else { s }
        }

        /// CTR over `data` (more than `16 (B - 1)` and at most `16 B` bytes) from
        /// the little-endian counter block `counter`, `B` blocks in registers;
        /// returns the output blocks (past the data's end, zero).
        ///
        /// # Safety
        /// The CPU must support the enabled features.
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) unsafe fn ctr_blocks<const NR: usize, const B: usize>(
            rk: &RoundKeys,
            counter: __m128i,
            data: &mut [u8],
        ) -> [__m128i; B] {
            let mut ks: [__m128i; B] = array(|j| _mm_add_epi32(counter, _mm_setr_epi32(j as i32, 0, 0, 0)));
            // SAFETY: this function enables AES-NI.
            unsafe { encrypt::<NR, B>(&mut ks, rk) };
            xor_keystream(data, &ks)
        }

        /// POLYVAL of `blocks` then the length block `len`, from `s`, in one
        /// aggregated step (two when that makes nine), the powers read from the
        /// table.
        #[inline]
        #[target_feature(enable = $features)]
        pub(crate) fn absorb_with_length<const B: usize>(
            s: __m128i,
            blocks: [__m128i; B],
            len: __m128i,
            powers: &Powers,
        ) -> __m128i {
            let mut x = [len; 9];
            x[..B].copy_from_slice(&blocks);
            if B == 8 {
                aggregate(aggregate(s, &x[..8], powers), &x[8..], powers)
            } else {
                aggregate(s, &x[..=B], powers)
            }
        }
    };
}

/// The pieces with AES-NI, PCLMULQDQ, SSSE3 and SSE4.1.
pub(super) mod sse {
    use super::*;
    blocks!("aes,pclmulqdq,ssse3,sse4.1");
}

/// The same with AVX too, for the one-message kernels' AVX forms and the
/// wide passes' tails: every `asm!` block in its VEX form (named as the SSE
/// ones here, so that the body is written once).
pub(super) mod avx {
    // Only what the AVX kernels use is used from here.
    #![allow(dead_code)]
    use super::super::aes::{
        aesenc_at_vex as aesenc_at, aesenclast_at_vex as aesenclast_at, xor_at_vex as xor_at,
    };
    use super::super::clmul::aggregate_vex as aggregate;
    use super::*;
    blocks!("aes,pclmulqdq,ssse3,sse4.1,avx");
}
