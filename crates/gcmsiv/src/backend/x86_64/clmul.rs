//! POLYVAL with PCLMULQDQ: Karatsuba products of up to eight blocks against the
//! precomputed powers H^1..H^8, summed unreduced, then one Montgomery reduction.

use super::super::Block;
use super::load::byte_reverse_mask;
use super::load::load_padded;
use super::{Features, array};
use core::arch::x86_64::*;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Blocks per aggregated step.
pub(super) const WIDTH: usize = 8;

/// POLYVAL state: the key H and the accumulator S. Small on purpose: it is
/// made per message, and long inputs build their table of powers of H on the
/// stack of the call that needs it.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Polyval {
    pub(super) h: __m128i,
    pub(super) s: __m128i,
    #[zeroize(skip)]
    pub(super) features: Features,
}

/// H^8..H^1 in the dot-product sense (H^(k+1) = dot(H^k, H)), highest
/// first, and for each the XOR of its halves in the low lane, for Karatsuba.
///
/// Highest first and 32-byte aligned so that the 256-bit passes read the
/// table as it is (`vaes.rs`): its 32-byte pair j, (H^(8-2j), H^(7-2j)), is
/// what block pair j of a chunk multiplies by. (A second table in that order,
/// built per pass and wiped after, cost an open or seal of a few KiB about
/// 40 stores.)
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
#[repr(C, align(64))]
pub(crate) struct Powers {
    /// `h[k]` = H^(8-k).
    pub(super) h: [__m128i; WIDTH],
    /// `h_xor[k]`: the halves of `h[k]` XORed.
    pub(super) h_xor: [__m128i; WIDTH],
}

impl Powers {
    /// Builds the table in three dependent steps (H^2; H^3, H^4; H^5..H^8)
    /// rather than seven, every even power a square (see [`square`]).
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) fn new(h1: __m128i) -> Self {
        let h2 = square(h1);
        let (h3, h4) = (dot(h2, h1), square(h2));
        let (h5, h6, h7, h8) = (dot(h3, h2), square(h3), dot(h4, h3), square(h4));
        let h = [h8, h7, h6, h5, h4, h3, h2, h1];
        Powers { h, h_xor: array(|i| fold_halves(h[i])) }
    }
}

/// H^1..H^n only (n <= 8; the rest zero) and the XORs of their halves, by
/// value: a short message needs few powers, each costs multiplications, and a
/// table this small stays in registers (a [`Powers`] lives in memory, where
/// building and wiping it cost a short open about 30 stores). Three levels
/// of the same tree as [`Powers::new`], every even power a square.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn powers_up_to(h1: __m128i, n: usize) -> ([__m128i; WIDTH], [__m128i; WIDTH]) {
    debug_assert!((1..=WIDTH).contains(&n));
    // Highest first, as in [`Powers`]: H^k at index WIDTH - k.
    let mut h = [_mm_setzero_si128(); WIDTH];
    h[WIDTH - 1] = h1;
    for k in 2..=n {
        // H^k = H^ceil(k/2) * H^floor(k/2): three levels for k <= 8.
        let (a, b) = (h[WIDTH - k.div_ceil(2)], h[WIDTH - k / 2]);
        h[WIDTH - k] = if k % 2 == 0 { square(a) } else { dot(a, b) };
    }
    let mut h_xor = [_mm_setzero_si128(); WIDTH];
    for (x, p) in h_xor[WIDTH - n..].iter_mut().zip(&h[WIDTH - n..]) {
        *x = fold_halves(*p);
    }
    (h, h_xor)
}

/// An unreduced 256-bit product, as (low, high) 128-bit halves.
pub(super) type Wide = (__m128i, __m128i);

/// Schoolbook 128x128 carry-less product.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn clmul128(a: __m128i, b: __m128i) -> Wide {
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
pub(super) fn reduce((mut lo, hi): Wide) -> __m128i {
    let poly = _mm_set_epi64x(0, 0xc200_0000_0000_0000u64 as i64);
    for _ in 0..2 {
        let t = _mm_clmulepi64_si128::<0x00>(lo, poly);
        lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
    }
    _mm_xor_si128(hi, lo)
}

/// The sum of Karatsuba products reduced: `lo` and `hi` the sums of the
/// low and high products, `mid` of the middle ones (of the halves folded),
/// from which the low and high ones are taken back before the middle term
/// is added across the halves.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn reduce_karatsuba(lo: __m128i, hi: __m128i, mid: __m128i) -> __m128i {
    let mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
    reduce((_mm_xor_si128(lo, _mm_slli_si128::<8>(mid)), _mm_xor_si128(hi, _mm_srli_si128::<8>(mid))))
}

/// dot(a, b) = a * b * x^-128 (RFC 8452 section 3).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn dot(a: __m128i, b: __m128i) -> __m128i {
    reduce(clmul128(a, b))
}

/// dot(a, a): in characteristic 2 the two cross products of a square cancel,
/// so it takes two multiplications before the reduction instead of four.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn square(a: __m128i) -> __m128i {
    reduce((_mm_clmulepi64_si128::<0x00>(a, a), _mm_clmulepi64_si128::<0x11>(a, a)))
}

/// [`dot`] reordered for latency, for the short kernels' chains of Horner
/// steps: the first reduction step reads only the low 64 bits of the low half,
/// which the middle product does not touch, so it starts as soon as the low
/// product exists, beside the middle one. (Inside the bulk kernels, which are
/// bound by throughput, this order changed the compiler's register allocation
/// for the worse: they keep [`dot`].)
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn dot_chained(a: __m128i, b: __m128i) -> __m128i {
    let poly = _mm_set_epi64x(0, 0xc200_0000_0000_0000u64 as i64);
    let lo = _mm_clmulepi64_si128::<0x00>(a, b);
    let hi = _mm_clmulepi64_si128::<0x11>(a, b);
    let mid = _mm_xor_si128(_mm_clmulepi64_si128::<0x01>(a, b), _mm_clmulepi64_si128::<0x10>(a, b));
    let t = _mm_clmulepi64_si128::<0x00>(lo, poly);
    let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(_mm_xor_si128(lo, _mm_slli_si128::<8>(mid))), t);
    let t = _mm_clmulepi64_si128::<0x00>(lo, poly);
    let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
    _mm_xor_si128(_mm_xor_si128(hi, _mm_srli_si128::<8>(mid)), lo)
}

/// Swaps the 64-bit halves and XORs: low lane becomes lo ^ hi.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn fold_halves(a: __m128i) -> __m128i {
    _mm_xor_si128(a, _mm_shuffle_epi32::<0x4e>(a))
}

/// Absorbs `data` into `s` (key `h`), its last partial block zero-padded,
/// then `last` if given (the length block): eight blocks per aggregated step,
/// and what remains, `last` included, as one more (two if that makes nine).
/// H comes from the table too: passed as a value, it was spilled to the stack.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn absorb_padded(s: __m128i, powers: &Powers, data: &[u8], last: Option<__m128i>) -> __m128i {
    absorb_padded_as::<false>(s, powers, data, last)
}

/// [`absorb_padded`] with, if `REVERSED`, the data's blocks byte-reversed
/// first (GHASH's order; `last` is taken as given).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn absorb_padded_as<const REVERSED: bool>(
    mut s: __m128i,
    powers: &Powers,
    data: &[u8],
    last: Option<__m128i>,
) -> __m128i {
    let reverse = byte_reverse_mask();
    let order = |x: __m128i| if REVERSED { _mm_shuffle_epi8(x, reverse) } else { x };
    let mut chunks = data.chunks_exact(16 * WIDTH);
    for chunk in &mut chunks {
        // SAFETY: every chunk is whole 16-byte blocks.
        let x: [__m128i; WIDTH] =
            array(|k| order(unsafe { _mm_loadu_si128(chunk[16 * k..].as_ptr().cast()) }));
        s = aggregate(s, &x, powers);
    }
    let rest = chunks.remainder();
    if rest.is_empty() {
        // At most the length block, which is public: one step, without the
        // block array below that is built in memory and wiped (at the end of
        // the message's chain, where its cost shows).
        return match last {
            Some(l) => aggregate(s, &[l], powers),
            None => s,
        };
    }
    // The rest (1 to 127 bytes: the chunks above take every whole 128) with
    // its block count a constant, so that the blocks stay in registers (with
    // the count at run time they went through an array in memory, built and
    // wiped).
    by_blocks!(rest.len(), B => absorb_rest::<REVERSED, B>(s, powers, rest, last))
}

/// [`absorb_padded_as`]'s last step: the `B` blocks of `rest` (the last
/// zero-padded), then `last` if given, aggregated (in two steps when that
/// makes nine).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn absorb_rest<const REVERSED: bool, const B: usize>(
    s: __m128i,
    powers: &Powers,
    rest: &[u8],
    last: Option<__m128i>,
) -> __m128i {
    debug_assert!(rest.len() > 16 * (B - 1) && rest.len() <= 16 * B);
    let reverse = byte_reverse_mask();
    let mut x = [last.unwrap_or(_mm_setzero_si128()); WIDTH + 1];
    for (i, slot) in x[..B].iter_mut().enumerate() {
        let block = load_padded(&rest[16 * i..rest.len().min(16 * i + 16)]);
        *slot = if REVERSED { _mm_shuffle_epi8(block, reverse) } else { block };
    }
    match last {
        Some(_) if B == WIDTH => aggregate(aggregate(s, &x[..WIDTH], powers), &x[WIDTH..], powers),
        Some(_) => aggregate(s, &x[..=B], powers),
        None => aggregate(s, &x[..B], powers),
    }
}

/// `pclmulqdq` of `a` with the block at `b`, read by the instruction itself
/// (so that a loop's reads of a table of powers stay inside the loop).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn clmul_at<const IMM: u8>(mut a: __m128i, b: &__m128i) -> __m128i {
    // SAFETY: reads the 16 bytes of `b` (an aligned `__m128i`); registers
    // otherwise; every caller enables PCLMULQDQ.
    unsafe {
        core::arch::asm!(
            "pclmulqdq {a}, xmmword ptr [{b}], {imm}",
            a = inout(xmm_reg) a,
            b = in(reg) b,
            imm = const IMM,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    a
}

/// [`clmul_at`] in the VEX form, for code compiled with AVX (see `aes.rs`,
/// `round_at_vex!`).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx")]
pub(super) fn clmul_at_vex<const IMM: u8>(a: __m128i, b: &__m128i) -> __m128i {
    let out: __m128i;
    // SAFETY: reads the 16 bytes of `b` (an aligned `__m128i`); registers
    // otherwise; every caller enables AVX and PCLMULQDQ.
    unsafe {
        core::arch::asm!(
            "vpclmulqdq {out}, {a}, xmmword ptr [{b}], {imm}",
            out = lateout(xmm_reg) out,
            a = in(xmm_reg) a,
            b = in(reg) b,
            imm = const IMM,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    out
}

/// S' = dot(S ^ x_1, H^n) ^ dot(x_2, H^(n-1)) ^ ... ^ dot(x_n, H) for
/// n = `x.len()` <= 8: n Karatsuba products summed unreduced, one reduction.
///
/// The powers are read from the table by the `pclmulqdq` instructions
/// themselves ([`clmul_at`]). Loaded as values, the compiler hoisted the table
/// out of the callers' loops and, short of registers, copied it to the stack
/// on every call, where nothing wiped it.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn aggregate(s: __m128i, x: &[__m128i], powers: &Powers) -> __m128i {
    aggregate_from(s, x, &powers.h, &powers.h_xor, |a, h, h_xor| {
        (clmul_at::<0x00>(a, h), clmul_at::<0x11>(a, h), clmul_at::<0x00>(fold_halves(a), h_xor))
    })
}

/// [`aggregate`] with its products in the VEX form, for code compiled with
/// AVX.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx")]
pub(super) fn aggregate_vex(s: __m128i, x: &[__m128i], powers: &Powers) -> __m128i {
    aggregate_from(s, x, &powers.h, &powers.h_xor, |a, h, h_xor| {
        (clmul_at_vex::<0x00>(a, h), clmul_at_vex::<0x11>(a, h), clmul_at_vex::<0x00>(fold_halves(a), h_xor))
    })
}

/// [`aggregate`] with the powers (`h[k]` = H^(8-k)) and their folded halves
/// given as arrays held in registers (the short kernels'), used as values.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn aggregate_with(
    s: __m128i,
    x: &[__m128i],
    h: &[__m128i; WIDTH],
    h_xor: &[__m128i; WIDTH],
) -> __m128i {
    aggregate_from(s, x, h, h_xor, |a, h, h_xor| {
        (
            _mm_clmulepi64_si128::<0x00>(a, *h),
            _mm_clmulepi64_si128::<0x11>(a, *h),
            _mm_clmulepi64_si128::<0x00>(fold_halves(a), *h_xor),
        )
    })
}

/// The one body of [`aggregate`] (each power read from the table by its
/// `pclmulqdq`), [`aggregate_vex`] (the same in the VEX form) and
/// [`aggregate_with`] (the powers as values): `product` gives a block's
/// three Karatsuba products with a power and its folded halves. Always
/// inlined, so that `product`, a closure of the caller, takes on the
/// caller's target features.
#[inline(always)]
fn aggregate_from(
    s: __m128i,
    x: &[__m128i],
    h: &[__m128i; WIDTH],
    h_xor: &[__m128i; WIDTH],
    product: impl Fn(__m128i, &__m128i, &__m128i) -> (__m128i, __m128i, __m128i),
) -> __m128i {
    let n = x.len();
    // SAFETY (all three): SSE2 is part of x86-64, and `reduce_karatsuba`'s
    // features are every caller's.
    let (mut lo, mut hi, mut mid) =
        unsafe { (_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128()) };
    for (k, &xk) in x.iter().enumerate() {
        // SAFETY: as above.
        let a = if k == 0 { unsafe { _mm_xor_si128(xk, s) } } else { xk };
        // Block k of n takes H^(n-k), at index WIDTH - (n - k).
        let (l, u, m) = product(a, &h[WIDTH - n + k], &h_xor[WIDTH - n + k]);
        // SAFETY: as above.
        unsafe {
            lo = _mm_xor_si128(lo, l);
            hi = _mm_xor_si128(hi, u);
            mid = _mm_xor_si128(mid, m);
        }
    }
    // SAFETY: every caller enables PCLMULQDQ and SSSE3.
    unsafe { reduce_karatsuba(lo, hi, mid) }
}

impl Polyval {
    pub(crate) fn new(features: Features, h: &Block) -> Self {
        // SAFETY: `features` proves CPU support.
        unsafe { Self::from_register(features, super::load::loadu_opaque(h)) }
    }

    /// POLYVAL keyed with `h` (a derived key that never left registers).
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) fn from_register(features: Features, h: __m128i) -> Self {
        Polyval { h, s: _mm_setzero_si128(), features }
    }

    /// The key H, for kernels that build their own table.
    pub(super) fn key(&self) -> __m128i {
        self.h
    }

    /// The accumulator, for kernels that absorb blocks themselves.
    pub(super) fn state_mut(&mut self) -> &mut __m128i {
        &mut self.s
    }

    /// S = dot(S ^ x, H): one block by Horner's rule.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn absorb(&mut self, x: __m128i) {
        self.s = dot(_mm_xor_si128(self.s, x), self.h);
    }
}
