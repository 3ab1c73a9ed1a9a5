//! CTR and POLYVAL stitched into one loop, for decryption (GCM-SIV, GCM) and
//! GCM encryption.
//!
//! While the eight AES blocks of one chunk go through their rounds, the hash
//! absorbs eight blocks, one Karatsuba product between rounds: the previous
//! chunk's output (GCM-SIV plaintext, GCM ciphertext when encrypting) or the
//! current chunk's input (GCM ciphertext when decrypting). The blocks hashed
//! are reloaded from memory (loads are cheap) rather than kept in registers,
//! so nothing spills. One reduction per chunk.

use super::aesni::{Schedule, aesenc8, byte_reverse_mask};
use super::clmul::{Powers, aggregate, fold_halves, reduce};
use crate::backend::Block;
use core::arch::x86_64::*;

const WIDTH: usize = 8;
const CHUNK: usize = 16 * WIDTH;

/// What the hash absorbs, and in which byte order.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Stitch {
    /// GCM-SIV decryption: the plaintext (this pass's output), as is.
    SivOpen,
    /// GCM encryption: the ciphertext (output), byte-reversed (GHASH).
    GcmSeal,
    /// GCM decryption: the ciphertext (input), byte-reversed (GHASH).
    GcmOpen,
}

impl<const NR: usize> Schedule<NR> {
    /// One pass of CTR over the whole chunks of `data` with the hash stitched
    /// in; returns the number of bytes processed (a multiple of 128). The
    /// partial tail is left to the caller. `BE` selects GCM's counter.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn ctr_stitched<const BE: bool>(
        &self,
        counter: &Block,
        data: &mut [u8],
        state: &mut __m128i,
        powers: &Powers,
        mode: Stitch,
    ) -> usize {
        let chunks = data.len() / CHUNK;
        if chunks == 0 {
            return 0;
        }
        let reverse = byte_reverse_mask();
        let hash_output = mode != Stitch::GcmOpen;
        let reversed = mode != Stitch::SivOpen;
        // SAFETY: 16 readable bytes.
        let mut ctr = unsafe { _mm_loadu_si128(counter.as_ptr().cast()) };
        if BE {
            ctr = _mm_shuffle_epi8(ctr, reverse);
        }
        let base = data.as_mut_ptr();
        let mut s = *state;
        let hash_block = |src: *const u8, j: usize, s: __m128i, acc: &mut [__m128i; 3]| {
            // SAFETY: the caller passes the start of a whole chunk inside `data`.
            let mut x = unsafe { _mm_loadu_si128(src.add(16 * j).cast()) };
            if reversed {
                x = _mm_shuffle_epi8(x, reverse);
            }
            if j == 0 {
                x = _mm_xor_si128(x, s);
            }
            let (h, hx) = (powers.h[WIDTH - 1 - j], powers.h_xor[WIDTH - 1 - j]);
            acc[0] = _mm_xor_si128(acc[0], _mm_clmulepi64_si128::<0x00>(x, h));
            acc[1] = _mm_xor_si128(acc[1], _mm_clmulepi64_si128::<0x11>(x, h));
            acc[2] = _mm_xor_si128(acc[2], _mm_clmulepi64_si128::<0x00>(fold_halves(x), hx));
        };
        let finish = |acc: [__m128i; 3]| {
            let mid = _mm_xor_si128(acc[2], _mm_xor_si128(acc[0], acc[1]));
            reduce((
                _mm_xor_si128(acc[0], _mm_slli_si128::<8>(mid)),
                _mm_xor_si128(acc[1], _mm_srli_si128::<8>(mid)),
            ))
        };
        for c in 0..chunks {
            // SAFETY: c < chunks, so the chunk lies inside `data`.
            let chunk = unsafe { base.add(c * CHUNK) };
            let src: Option<*const u8> = match (hash_output, c) {
                (true, 0) => None,
                // SAFETY: the previous chunk, inside `data`.
                (true, _) => Some(unsafe { chunk.sub(CHUNK) }),
                (false, _) => Some(chunk),
            };
            // Counters in the little-endian lane, byte-reversed back for GCM.
            // (No shortcut that depends on the counter's value: for IVs that
            // are not 96 bits, J0 comes from GHASH under the secret key.)
            let first = (c * WIDTH) as u32;
            let mut ks: [__m128i; WIDTH] = core::array::from_fn(|k| {
                let x = _mm_add_epi32(ctr, _mm_setr_epi32(first.wrapping_add(k as u32) as i32, 0, 0, 0));
                let x = if BE { _mm_shuffle_epi8(x, reverse) } else { x };
                _mm_xor_si128(x, self.rk[0])
            });
            let mut acc = [_mm_setzero_si128(); 3];
            for r in 1..NR {
                aesenc8(&mut ks, self.rk[r]);
                if let (Some(src), true) = (src, r <= WIDTH) {
                    hash_block(src, r - 1, s, &mut acc);
                }
            }
            // `ks` ends up holding this pass's output, already in `data`: no
            // keystream is left behind to wipe.
            for (k, x) in ks.iter_mut().enumerate() {
                // SAFETY: block k of this chunk, inside `data`.
                unsafe {
                    let p = chunk.add(16 * k).cast::<__m128i>();
                    *x = _mm_xor_si128(_mm_aesenclast_si128(*x, self.rk[NR]), _mm_loadu_si128(p));
                    _mm_storeu_si128(p, *x);
                }
            }
            if src.is_some() {
                s = finish(acc);
            }
        }
        if hash_output {
            // The last chunk's output, not yet hashed.
            // SAFETY: the last whole chunk, inside `data`.
            let last = unsafe { base.add((chunks - 1) * CHUNK) };
            let x: [__m128i; WIDTH] = core::array::from_fn(|j| {
                // SAFETY: block j of that chunk.
                let b = unsafe { _mm_loadu_si128(last.add(16 * j).cast()) };
                if reversed { _mm_shuffle_epi8(b, reverse) } else { b }
            });
            s = aggregate(s, &x, powers);
        }
        *state = s;
        chunks * CHUNK
    }
}
