//! Batch kernels: the per-message steps of [`LANES`] messages run side by
//! side, round by round, so their dependency chains overlap instead of
//! leaving the AES and carry-less-multiply units idle between steps.

use super::Polyval;
use super::aesni::{RCON, Schedule, derivation_blocks, prefix_xor, sub_rot_word, sub_word};
use super::clmul::dot;
use super::partial::load_padded;
use crate::backend::{Block, LANES};
use core::arch::x86_64::*;
use zeroize::Zeroize;

impl<const NR: usize> Schedule<NR> {
    /// Encrypts `B` blocks of each of `L` lanes, each lane under its own key,
    /// round by round across all of them.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    fn encrypt_lanes<const L: usize, const B: usize>(keys: [&Self; L], x: &mut [[__m128i; B]; L]) {
        for (lane, k) in x.iter_mut().zip(keys) {
            for b in lane.iter_mut() {
                *b = _mm_xor_si128(*b, k.rk[0]);
            }
        }
        for r in 1..NR {
            for (lane, k) in x.iter_mut().zip(keys) {
                for b in lane.iter_mut() {
                    *b = _mm_aesenc_si128(*b, k.rk[r]);
                }
            }
        }
        for (lane, k) in x.iter_mut().zip(keys) {
            for b in lane.iter_mut() {
                *b = _mm_aesenclast_si128(*b, k.rk[NR]);
            }
        }
    }

    /// RFC 8452 section 4 for [`LANES`] nonces: all derivation blocks in
    /// flight together, then the key expansions interleaved round by round.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) fn derive_lanes<const NB: usize, const M: usize>(
        &self,
        nonces: [&[u8; 12]; LANES],
    ) -> ([Schedule<M>; LANES], [Polyval; LANES]) {
        let mut b: [[__m128i; NB]; LANES] = nonces.map(|n| derivation_blocks::<NB>(n));
        // All lanes' blocks share the key-generating key: eight at a time
        // (16 or 24 in all), each group's rounds kept together by `aesenc8`.
        let mut flat = [_mm_setzero_si128(); 24];
        for (l, lane) in b.iter().enumerate() {
            flat[l * NB..(l + 1) * NB].copy_from_slice(lane);
        }
        for group in flat[..LANES * NB].chunks_exact_mut(8) {
            let group: &mut [__m128i; 8] = group.try_into().expect("internal error: group of 8");
            self.encrypt8(group);
        }
        for (l, lane) in b.iter_mut().enumerate() {
            lane.copy_from_slice(&flat[l * NB..(l + 1) * NB]);
        }
        flat.zeroize();
        let pair = |l: &[__m128i; NB], i: usize| _mm_unpacklo_epi64(l[i], l[i + 1]);
        let features = self.features;
        // The round keys are written straight into the schedules returned.
        let mut keys: [Schedule<M>; LANES] =
            core::array::from_fn(|_| Schedule { rk: [_mm_setzero_si128(); 15], features });
        let hashes: [Polyval; LANES] =
            core::array::from_fn(|l| Polyval::from_register(features, pair(&b[l], 0)));
        if NB == 4 {
            let mut k: [__m128i; LANES] = core::array::from_fn(|l| pair(&b[l], 2));
            for (l, key) in k.iter().enumerate() {
                keys[l].rk[0] = *key;
            }
            for (i, &rcon) in RCON.iter().enumerate() {
                for (l, key) in k.iter_mut().enumerate() {
                    *key = _mm_xor_si128(prefix_xor(*key), sub_rot_word(*key, rcon));
                    keys[l].rk[i + 1] = *key;
                }
            }
            k.zeroize();
        } else {
            let mut k0: [__m128i; LANES] = core::array::from_fn(|l| pair(&b[l], 2));
            let mut k1: [__m128i; LANES] = core::array::from_fn(|l| pair(&b[l], 4));
            for l in 0..LANES {
                keys[l].rk[0] = k0[l];
                keys[l].rk[1] = k1[l];
            }
            for (i, &rcon) in RCON[..7].iter().enumerate() {
                for l in 0..LANES {
                    k0[l] = _mm_xor_si128(prefix_xor(k0[l]), sub_rot_word(k1[l], rcon));
                    keys[l].rk[2 * i + 2] = k0[l];
                }
                if i < 6 {
                    for l in 0..LANES {
                        k1[l] = _mm_xor_si128(prefix_xor(k1[l]), sub_word(k0[l]));
                        keys[l].rk[2 * i + 3] = k1[l];
                    }
                }
            }
            k0.zeroize();
            k1.zeroize();
        }
        b.zeroize();
        (keys, hashes)
    }

    /// One block under each lane's key.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) fn encrypt_block_lanes_tf(keys: [&Self; LANES], blocks: &mut [Block; LANES]) {
        // SAFETY: each block is 16 bytes.
        let mut x: [[__m128i; 1]; LANES] =
            blocks.each_ref().map(|b| [unsafe { _mm_loadu_si128(b.as_ptr().cast()) }]);
        Self::encrypt_lanes(keys, &mut x);
        for (b, x) in blocks.iter_mut().zip(x) {
            // SAFETY: as above.
            unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x[0]) };
        }
    }

    /// CTR (32-bit little-endian counter) over each lane's data under its own
    /// key, up to 4 blocks per lane per step (16 in flight).
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) fn ctr32le_lanes_tf(
        keys: [&Self; LANES],
        counters: &[Block; LANES],
        mut data: [&mut [u8]; LANES],
    ) {
        // SAFETY: each counter is 16 bytes.
        let ctr0: [__m128i; LANES] =
            counters.each_ref().map(|c| unsafe { _mm_loadu_si128(c.as_ptr().cast()) });
        let mut done = 0usize;
        loop {
            let most = data.iter().map(|d| d.len().saturating_sub(done * 16).div_ceil(16)).max().unwrap_or(0);
            macro_rules! step {
                ($b:literal) => {{
                    let mut x: [[__m128i; $b]; LANES] = core::array::from_fn(|l| {
                        core::array::from_fn(|j| {
                            _mm_add_epi32(ctr0[l], _mm_setr_epi32((done + j) as u32 as i32, 0, 0, 0))
                        })
                    });
                    Self::encrypt_lanes(keys, &mut x);
                    for (d, ks) in data.iter_mut().zip(&x) {
                        let start = (done * 16).min(d.len());
                        let end = ((done + $b) * 16).min(d.len());
                        for (j, chunk) in d[start..end].chunks_mut(16).enumerate() {
                            let p = _mm_xor_si128(load_padded(chunk), ks[j]);
                            if chunk.len() == 16 {
                                // SAFETY: 16 writable bytes.
                                unsafe { _mm_storeu_si128(chunk.as_mut_ptr().cast(), p) };
                            } else {
                                super::partial::store_partial(chunk, p);
                            }
                        }
                    }
                    x.zeroize();
                    done += $b;
                }};
            }
            match most {
                0 => break,
                1 => step!(1),
                2 => step!(2),
                _ => step!(4),
            }
        }
    }
}

/// For each lane, [`Polyval::update_padded`] of its segments in order, by
/// Horner's rule with the lanes' multiplications interleaved block by block.
///
/// # Safety
/// The CPU must support the enabled features.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn polyval_lanes<const S: usize>(hashes: [&mut Polyval; LANES], data: [[&[u8]; S]; LANES]) {
    let mut s: [__m128i; LANES] = core::array::from_fn(|l| hashes[l].s);
    let h: [__m128i; LANES] = core::array::from_fn(|l| hashes[l].h);
    for seg in 0..S {
        let most = data.iter().map(|d| d[seg].len().div_ceil(16)).max().unwrap_or(0);
        for j in 0..most {
            for l in 0..LANES {
                let d = data[l][seg];
                if 16 * j < d.len() {
                    let x = load_padded(&d[16 * j..d.len().min(16 * j + 16)]);
                    s[l] = dot(_mm_xor_si128(s[l], x), h[l]);
                }
            }
        }
    }
    for (hash, s) in hashes.into_iter().zip(s) {
        hash.s = s;
    }
}
