//! POLYVAL with PMULL/PMULL2: schoolbook products of up to eight blocks
//! against the precomputed powers H^1..H^8, summed unreduced, then one
//! Montgomery reduction. GHASH runs through the same code with each block
//! byte-reversed (RFC 8452 Appendix A).

use super::aes::WIDTH;
use super::{Features, V, load_padded};
use core::arch::aarch64::*;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// POLYVAL state: the key H and the accumulator S. Small on purpose: it is
/// made per message, and inputs of several blocks build their powers of H
/// on the stack of the call that needs them.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Polyval {
    pub(super) h: V,
    pub(super) s: V,
    #[zeroize(skip)]
    pub(super) features: Features,
}

/// H^8..H^1 in the dot-product sense (H^(k+1) = dot(H^k, H)), highest
/// first, and each with its 64-bit halves swapped, for the cross products.
/// Also GCM's per-key table.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Powers {
    /// `h[k]` = H^(8-k).
    pub(super) h: [V; WIDTH],
    /// `h_swap[k]`: `h[k]` with its halves swapped.
    pub(super) h_swap: [V; WIDTH],
}

impl Powers {
    /// All eight powers.
    #[inline]
    #[target_feature(enable = "aes,neon")]
    pub(super) fn new(h1: V) -> Self {
        let mut p = Self::zeroed();
        p.up_to(h1, WIDTH);
        p
    }

    /// No powers yet: to be filled in place by [`Powers::fill`] (a table
    /// returned by value would be one more copy on the stack).
    #[inline]
    #[target_feature(enable = "aes,neon")]
    pub(super) fn zeroed() -> Self {
        Powers { h: [vdupq_n_u8(0); WIDTH], h_swap: [vdupq_n_u8(0); WIDTH] }
    }

    /// H^1..H^n only (1 <= n <= 8; the rest left as they are): a short
    /// message needs few powers, and each costs multiplications. Three
    /// dependent levels, every even power a square (H^k = H^ceil(k/2) *
    /// H^floor(k/2)).
    #[inline]
    #[target_feature(enable = "aes,neon")]
    fn up_to(&mut self, h1: V, n: usize) {
        debug_assert!((1..=WIDTH).contains(&n));
        // Highest first: H^k at index WIDTH - k.
        self.h[WIDTH - 1] = h1;
        for k in 2..=n {
            let (a, b) = (self.h[WIDTH - k.div_ceil(2)], self.h[WIDTH - k / 2]);
            self.h[WIDTH - k] = if k % 2 == 0 { square(a) } else { dot(a, b) };
        }
        for k in WIDTH - n..WIDTH {
            self.h_swap[k] = swap_halves(self.h[k]);
        }
    }

    /// The powers a pass of `blocks` blocks takes (at most eight).
    #[inline]
    #[target_feature(enable = "aes,neon")]
    pub(super) fn fill(&mut self, h1: V, blocks: usize) {
        self.up_to(h1, blocks.clamp(1, WIDTH))
    }
}

/// The low 64-bit halves of `a` and `b` multiplied (PMULL).
///
/// In `asm!` (as [`pmull_hi`]): through the intrinsic, the compiler took
/// the loop-invariant powers of H apart into 64-bit scalars, built vectors
/// of them again for each product, and, short of registers, kept the halves
/// in stack slots: about fifteen reloads per eight blocks, and copies of
/// the powers on the stack.
#[inline]
#[target_feature(enable = "aes,neon")]
fn pmull_lo(a: V, b: V) -> V {
    let out: V;
    // SAFETY: registers only; this function enables AES, which covers
    // PMULL and which every caller proves.
    unsafe {
        core::arch::asm!(
            "pmull {out:v}.1q, {a:v}.1d, {b:v}.1d",
            out = lateout(vreg) out,
            a = in(vreg) a,
            b = in(vreg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    out
}

/// The high 64-bit halves of `a` and `b` multiplied (PMULL2).
#[inline]
#[target_feature(enable = "aes,neon")]
fn pmull_hi(a: V, b: V) -> V {
    let out: V;
    // SAFETY: as in `pmull_lo`.
    unsafe {
        core::arch::asm!(
            "pmull2 {out:v}.1q, {a:v}.2d, {b:v}.2d",
            out = lateout(vreg) out,
            a = in(vreg) a,
            b = in(vreg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    out
}

/// The 64-bit halves of `a` swapped.
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) fn swap_halves(a: V) -> V {
    vextq_u8::<8>(a, a)
}

/// The bytes of `a` in reverse order (GHASH's blocks as POLYVAL takes them).
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) fn byte_reverse(a: V) -> V {
    swap_halves(vrev64q_u8(a))
}

/// An unreduced sum of 256-bit products: the low products, the high ones
/// and the cross ones (which straddle the halves).
#[derive(Clone, Copy)]
struct Wide {
    lo: V,
    mid: V,
    hi: V,
}

impl Wide {
    /// a * b, given b with its halves swapped too (four PMULLs, no
    /// Karatsuba pre-adds: the cross products are two PMULLs against the
    /// swapped power, straight from the registers).
    #[inline]
    #[target_feature(enable = "aes,neon")]
    fn product(a: V, b: V, b_swap: V) -> Self {
        Wide {
            lo: pmull_lo(a, b),
            hi: pmull_hi(a, b),
            mid: veorq_u8(pmull_lo(a, b_swap), pmull_hi(a, b_swap)),
        }
    }

    /// a * b for the power at `b` and its swapped halves at `b_swap`, both
    /// loaded inside the `asm!` block, into scratch registers. Passed in as
    /// values, the powers are loop-invariant: the compiler hoists all
    /// sixteen out of the hashing loops and, short of registers beside the
    /// blocks in flight, keeps some in stack slots, copies that outlive the
    /// call.
    #[inline]
    #[target_feature(enable = "aes,neon")]
    fn product_at(a: V, b: &V, b_swap: &V) -> Self {
        let (lo, hi, mid): (V, V, V);
        // SAFETY: reads the 16 bytes of `b` and of `b_swap`, valid
        // references; no stack, no flags; this function enables AES, which
        // covers PMULL and which every caller proves.
        unsafe {
            core::arch::asm!(
                "ldr {p:q}, [{b}]",
                "ldr {q:q}, [{b_swap}]",
                "pmull {lo:v}.1q, {a:v}.1d, {p:v}.1d",
                "pmull2 {hi:v}.1q, {a:v}.2d, {p:v}.2d",
                "pmull {mid:v}.1q, {a:v}.1d, {q:v}.1d",
                "pmull2 {q:v}.1q, {a:v}.2d, {q:v}.2d",
                "eor {mid:v}.16b, {mid:v}.16b, {q:v}.16b",
                b = in(reg) b,
                b_swap = in(reg) b_swap,
                a = in(vreg) a,
                p = out(vreg) _,
                q = out(vreg) _,
                lo = out(vreg) lo,
                hi = out(vreg) hi,
                mid = out(vreg) mid,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        Wide { lo, mid, hi }
    }

    #[inline]
    #[target_feature(enable = "aes,neon")]
    fn add(self, o: Wide) -> Self {
        Wide { lo: veorq_u8(self.lo, o.lo), mid: veorq_u8(self.mid, o.mid), hi: veorq_u8(self.hi, o.hi) }
    }

    /// p * x^-128 mod x^128 + x^127 + x^126 + x^121 + 1: the cross products
    /// added across the halves, then two 64-bit Montgomery steps. Each step
    /// folds the lowest 64-bit word w by adding w * P(x); the part of that
    /// above x^64 is pmull(w, 0xc200000000000000) (x^57 + x^62 + x^63, the
    /// terms x^121, x^126, x^127 shifted down by 64) plus w itself at x^128.
    #[inline]
    #[target_feature(enable = "aes,neon")]
    fn reduce(self) -> V {
        let zero = vdupq_n_u8(0);
        let mut lo = veorq_u8(self.lo, vextq_u8::<8>(zero, self.mid));
        let hi = veorq_u8(self.hi, vextq_u8::<8>(self.mid, zero));
        let poly = vreinterpretq_u8_u64(vdupq_n_u64(0xc200_0000_0000_0000));
        for _ in 0..2 {
            lo = veorq_u8(swap_halves(lo), pmull_lo(lo, poly));
        }
        veorq_u8(hi, lo)
    }
}

/// dot(a, b) = a * b * x^-128 (RFC 8452 section 3).
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) fn dot(a: V, b: V) -> V {
    Wide::product(a, b, swap_halves(b)).reduce()
}

/// dot(a, a): in characteristic 2 the two cross products of a square
/// cancel.
#[inline]
#[target_feature(enable = "aes,neon")]
fn square(a: V) -> V {
    Wide { lo: pmull_lo(a, a), mid: vdupq_n_u8(0), hi: pmull_hi(a, a) }.reduce()
}

/// S' = dot(S ^ x_1, H^n) ^ dot(x_2, H^(n-1)) ^ ... ^ dot(x_n, H) for
/// n = `x.len()` <= 8: n products summed unreduced, one reduction.
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) fn aggregate(s: V, x: &[V], powers: &Powers) -> V {
    let n = x.len();
    debug_assert!((1..=WIDTH).contains(&n));
    let mut acc = Wide::product_at(veorq_u8(s, x[0]), &powers.h[WIDTH - n], &powers.h_swap[WIDTH - n]);
    for (k, &xk) in x.iter().enumerate().skip(1) {
        // Block k of n takes H^(n-k), at index WIDTH - (n - k).
        acc = acc.add(Wide::product_at(xk, &powers.h[WIDTH - n + k], &powers.h_swap[WIDTH - n + k]));
    }
    acc.reduce()
}

/// The block as the hash takes it: byte-reversed if `REVERSED` (GHASH).
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) fn order<const REVERSED: bool>(x: V) -> V {
    if REVERSED { byte_reverse(x) } else { x }
}

/// Absorbs `data` into `s`, its last partial block zero-padded (each block
/// byte-reversed first if `REVERSED`), then `last` if given, as it is (the
/// length block): eight blocks per reduction, and what remains, `last`
/// included, as one more (two if that makes nine). `powers` must hold as
/// many powers as the largest of those steps has blocks.
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) fn absorb_padded<const REVERSED: bool>(
    mut s: V,
    powers: &Powers,
    data: &[u8],
    last: Option<V>,
) -> V {
    let mut chunks = data.chunks_exact(16 * WIDTH);
    for chunk in &mut chunks {
        let x: [V; WIDTH] =
            crate::backend::array(|k| order::<REVERSED>(load_padded(&chunk[16 * k..16 * k + 16])));
        s = aggregate(s, &x, powers);
    }
    let rest = chunks.remainder();
    if rest.is_empty() {
        return match last {
            Some(l) => aggregate(s, &[l], powers),
            None => s,
        };
    }
    by_blocks!(rest.len(), B => {
        let x: [V; B] = crate::backend::array(|k| {
            order::<REVERSED>(load_padded(&rest[16 * k..rest.len().min(16 * k + 16)]))
        });
        absorb_last(s, &x, last, powers)
    })
}

/// The last step of a hash: the blocks `x` (1..=8), then `last` if given,
/// in one reduction, or two when that makes nine.
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) fn absorb_last<const B: usize>(s: V, x: &[V; B], last: Option<V>, powers: &Powers) -> V {
    match last {
        Some(l) if B == WIDTH => aggregate(aggregate(s, x, powers), &[l], powers),
        Some(l) => {
            let mut y = [l; WIDTH];
            y[..B].copy_from_slice(x);
            aggregate(s, &y[..=B], powers)
        }
        None => aggregate(s, x, powers),
    }
}

impl Polyval {
    pub(crate) fn new(features: Features, h: &crate::backend::Block) -> Self {
        // SAFETY: `features` proves the CPU has AES, PMULL and NEON.
        unsafe { Self::from_register(features, super::load_opaque(h)) }
    }

    /// POLYVAL keyed with `h` (a derived key that never left registers).
    #[inline]
    #[target_feature(enable = "aes,neon")]
    pub(super) fn from_register(features: Features, h: V) -> Self {
        Polyval { h, s: vdupq_n_u8(0), features }
    }

    /// Absorbs `data`, zero-padded, each block byte-reversed if `REVERSED`,
    /// with `table`'s powers or, without one, as many as it needs.
    #[inline]
    #[target_feature(enable = "aes,neon")]
    pub(super) fn update<const REVERSED: bool>(&mut self, data: &[u8], table: Option<&Powers>) {
        if data.is_empty() {
            return;
        }
        self.s = match table {
            Some(powers) => absorb_padded::<REVERSED>(self.s, powers, data, None),
            None => {
                let mut powers = Powers::zeroed();
                powers.fill(self.h, data.len().div_ceil(16));
                absorb_padded::<REVERSED>(self.s, &powers, data, None)
            }
        };
    }
}
