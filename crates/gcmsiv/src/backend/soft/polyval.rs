//! Constant-time POLYVAL without carry-less multiply instructions.
//!
//! The 64x64 carry-less product comes from ordinary integer multiplications of
//! operands with "holes" (every fourth bit), so carries land only in bits that
//! are masked away: the `bmul64` technique of BearSSL's `ghash_ctmul64.c`. The
//! high half is the bit-reversed low half of the bit-reversed operands.

use super::super::Block;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Low 64 bits of the carry-less product x * y.
///
/// Each partial product has at most 16 terms per bit position below 64, so its
/// count never carries into the next bit of the same residue class.
#[inline(always)]
fn bmul64_lo(x: u64, y: u64) -> u64 {
    const M0: u64 = 0x1111_1111_1111_1111;
    const M1: u64 = M0 << 1;
    const M2: u64 = M0 << 2;
    const M3: u64 = M0 << 3;
    let (x0, x1, x2, x3) = (x & M0, x & M1, x & M2, x & M3);
    let (y0, y1, y2, y3) = (y & M0, y & M1, y & M2, y & M3);
    let m = |a: u64, b: u64| a.wrapping_mul(b);
    let z0 = m(x0, y0) ^ m(x1, y3) ^ m(x2, y2) ^ m(x3, y1);
    let z1 = m(x0, y1) ^ m(x1, y0) ^ m(x2, y3) ^ m(x3, y2);
    let z2 = m(x0, y2) ^ m(x1, y1) ^ m(x2, y0) ^ m(x3, y3);
    let z3 = m(x0, y3) ^ m(x1, y2) ^ m(x2, y1) ^ m(x3, y0);
    (z0 & M0) | (z1 & M1) | (z2 & M2) | (z3 & M3)
}

/// The full 128-bit carry-less product x * y as (low, high).
#[inline(always)]
fn clmul64(x: u64, y: u64) -> (u64, u64) {
    let lo = bmul64_lo(x, y);
    let hi = bmul64_lo(x.reverse_bits(), y.reverse_bits()).reverse_bits() >> 1;
    (lo, hi)
}

/// dot(a, b) = a * b * x^-128 mod x^128 + x^127 + x^126 + x^121 + 1 (RFC 8452
/// section 3), on (low, high) 64-bit halves of little-endian field elements.
#[inline(always)]
fn dot(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
    // Karatsuba: three 64x64 products make the 256-bit product p0..p3.
    let (l0, l1) = clmul64(a.0, b.0);
    let (h0, h1) = clmul64(a.1, b.1);
    let (m0, m1) = clmul64(a.0 ^ a.1, b.0 ^ b.1);
    let (m0, m1) = (m0 ^ l0 ^ h0, m1 ^ l1 ^ h1);
    let (p0, mut p1, mut p2, mut p3) = (l0, l1 ^ m0, h0 ^ m1, h1);
    // Montgomery reduction, 64 bits at a time: adding p_k * P(x) clears word k
    // (P's constant term is 1) and adds p_k * (x^121 + x^126 + x^127 + x^128)
    // higher up; after two steps the product is divisible by x^128.
    p1 ^= (p0 << 57) ^ (p0 << 62) ^ (p0 << 63);
    p2 ^= p0 ^ (p0 >> 1) ^ (p0 >> 2) ^ (p0 >> 7);
    p2 ^= (p1 << 57) ^ (p1 << 62) ^ (p1 << 63);
    p3 ^= p1 ^ (p1 >> 1) ^ (p1 >> 2) ^ (p1 >> 7);
    (p2, p3)
}

fn load(b: &[u8]) -> (u64, u64) {
    (u64::from_le_bytes(b[..8].try_into().unwrap()), u64::from_le_bytes(b[8..16].try_into().unwrap()))
}

fn store(x: (u64, u64)) -> Block {
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&x.0.to_le_bytes());
    out[8..].copy_from_slice(&x.1.to_le_bytes());
    out
}

/// POLYVAL state: the key H and the accumulator S.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Polyval {
    h: (u64, u64),
    s: (u64, u64),
}

impl Polyval {
    pub(crate) fn new(h: &Block) -> Self {
        Polyval { h: load(h), s: (0, 0) }
    }
}

impl crate::backend::Polyval for Polyval {
    fn update_blocks(&mut self, blocks: &[u8]) {
        for x in blocks.chunks_exact(16) {
            let x = load(x);
            self.s = dot((self.s.0 ^ x.0, self.s.1 ^ x.1), self.h);
        }
    }

    fn finalize(&self) -> Block {
        store(self.s)
    }

    fn dot(&self, a: &Block, b: &Block) -> Block {
        store(dot(load(a), load(b)))
    }

    fn key(&self) -> Block {
        store(self.h)
    }

    fn set_state(&mut self, s: &Block) {
        self.s = load(s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clmul64_matches_schoolbook() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let y = x.rotate_left(23) ^ 0xdead_beef;
            let (mut lo, mut hi) = (0u64, 0u64);
            for i in 0..64 {
                if (y >> i) & 1 == 1 {
                    lo ^= x << i;
                    hi ^= if i == 0 { 0 } else { x >> (64 - i) };
                }
            }
            assert_eq!(clmul64(x, y), (lo, hi));
        }
        assert_eq!(clmul64(u64::MAX, u64::MAX), (0x5555_5555_5555_5555, 0x5555_5555_5555_5555));
    }
}
