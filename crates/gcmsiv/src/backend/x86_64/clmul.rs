//! POLYVAL with PCLMULQDQ: Karatsuba products of up to eight blocks against the
//! precomputed powers H^1..H^8, summed unreduced, then one Montgomery reduction.

use super::super::Block;
use super::Features;
use core::arch::x86_64::*;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Blocks per aggregated step.
const WIDTH: usize = 8;

/// POLYVAL state: H, its powers (built on first use by a long input), and S.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Polyval {
    /// `powers[k]` = H^(k+1) in the dot-product sense: dot(H^k, H).
    powers: [__m128i; WIDTH],
    /// Low lane: the XOR of the two halves of `powers[k]`, for Karatsuba.
    powers_xor: [__m128i; WIDTH],
    powers_ready: bool,
    s: __m128i,
    #[zeroize(skip)]
    features: Features,
}

/// An unreduced 256-bit product, as (low, high) 128-bit halves.
type Wide = (__m128i, __m128i);

/// Schoolbook 128x128 carry-less product.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn clmul128(a: __m128i, b: __m128i) -> Wide {
    let lo = _mm_clmulepi64_si128::<0x00>(a, b);
    let hi = _mm_clmulepi64_si128::<0x11>(a, b);
    let mid = _mm_xor_si128(_mm_clmulepi64_si128::<0x01>(a, b), _mm_clmulepi64_si128::<0x10>(a, b));
    (_mm_xor_si128(lo, _mm_slli_si128::<8>(mid)), _mm_xor_si128(hi, _mm_srli_si128::<8>(mid)))
}

/// p * x^-128 mod x^128 + x^127 + x^126 + x^121 + 1: two 64-bit Montgomery steps.
///
/// Each step folds the lowest 64-bit word w by adding w * P(x); the part of that
/// above x^64 is clmul(w, 0xc200000000000000) (x^57 + x^62 + x^63, i.e. the
/// terms x^121, x^126, x^127 shifted down by 64) plus w itself at x^128.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn reduce((mut lo, hi): Wide) -> __m128i {
    let poly = _mm_set_epi64x(0, 0xc200_0000_0000_0000u64 as i64);
    for _ in 0..2 {
        let t = _mm_clmulepi64_si128::<0x00>(lo, poly);
        lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
    }
    _mm_xor_si128(hi, lo)
}

/// dot(a, b) = a * b * x^-128 (RFC 8452 section 3).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn dot(a: __m128i, b: __m128i) -> __m128i {
    reduce(clmul128(a, b))
}

/// Swaps the 64-bit halves and XORs: low lane becomes lo ^ hi.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn fold_halves(a: __m128i) -> __m128i {
    _mm_xor_si128(a, _mm_shuffle_epi32::<0x4e>(a))
}

impl Polyval {
    pub(crate) fn new(features: Features, h: &Block) -> Self {
        // SAFETY: 16 readable bytes; SSE2 is part of x86-64.
        let h = unsafe { _mm_loadu_si128(h.as_ptr().cast()) };
        // SAFETY: SSE2 is baseline on x86-64.
        let zero = unsafe { _mm_setzero_si128() };
        let mut powers = [zero; WIDTH];
        powers[0] = h;
        Polyval { powers, powers_xor: [zero; WIDTH], powers_ready: false, s: zero, features }
    }

    /// Fills H^2..H^8 the first time an input is long enough to use them.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn build_powers(&mut self) {
        let h = self.powers[0];
        for k in 1..WIDTH {
            self.powers[k] = dot(self.powers[k - 1], h);
        }
        for k in 0..WIDTH {
            self.powers_xor[k] = fold_halves(self.powers[k]);
        }
        self.powers_ready = true;
    }

    /// S = dot(S ^ x_1, H^n) ^ dot(x_2, H^(n-1)) ^ ... ^ dot(x_n, H), with one
    /// reduction; `n` = `x.len()` is at most 8 and the powers must be built.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) fn aggregate(&mut self, x: &[__m128i]) {
        let n = x.len();
        let (mut lo, mut hi, mut mid) = (_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128());
        for (k, &xk) in x.iter().enumerate() {
            let a = if k == 0 { _mm_xor_si128(xk, self.s) } else { xk };
            let h = self.powers[n - 1 - k];
            lo = _mm_xor_si128(lo, _mm_clmulepi64_si128::<0x00>(a, h));
            hi = _mm_xor_si128(hi, _mm_clmulepi64_si128::<0x11>(a, h));
            mid =
                _mm_xor_si128(mid, _mm_clmulepi64_si128::<0x00>(fold_halves(a), self.powers_xor[n - 1 - k]));
        }
        mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
        lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(mid));
        hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(mid));
        self.s = reduce((lo, hi));
    }

    /// # Safety
    /// The CPU must support the enabled features; `blocks.len()` % 16 == 0.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn update(&mut self, blocks: &[u8]) {
        // SAFETY (all loads below): every chunk is whole 16-byte blocks.
        let load = |b: &[u8]| unsafe { _mm_loadu_si128(b.as_ptr().cast()) };
        if blocks.len() >= 16 * WIDTH && !self.powers_ready {
            // SAFETY: same features as this function.
            unsafe { self.build_powers() };
        }
        if !self.powers_ready {
            // Short input: Horner's rule needs no powers.
            for b in blocks.chunks_exact(16) {
                self.s = dot(_mm_xor_si128(self.s, load(b)), self.powers[0]);
            }
            return;
        }
        for chunk in blocks.chunks(16 * WIDTH) {
            let mut x = [_mm_setzero_si128(); WIDTH];
            let n = chunk.len() / 16;
            for (k, b) in chunk.chunks_exact(16).enumerate() {
                x[k] = load(b);
            }
            self.aggregate(&x[..n]);
        }
    }
}

impl crate::backend::Polyval for Polyval {
    fn update_blocks(&mut self, blocks: &[u8]) {
        debug_assert_eq!(blocks.len() % 16, 0);
        // SAFETY: a Polyval holds the Features proof of CPU support; the trait
        // contract gives whole blocks.
        unsafe { self.update(blocks) }
    }

    fn finalize(&self) -> Block {
        let mut out = [0u8; 16];
        // SAFETY: 16 writable bytes; SSE2 is baseline on x86-64.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), self.s) };
        out
    }
}
