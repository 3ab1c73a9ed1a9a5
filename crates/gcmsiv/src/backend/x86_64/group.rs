//! Batch groups: RFC 8452 section 4 for `L` short messages at once (`L` a
//! multiple of 4: a batch's groups of [`GROUP`](crate::backend::GROUP), or of
//! [`WIDE_GROUP`](crate::backend::WIDE_GROUP) with lanes in pairs on
//! `aesni-vaes`, where the steps below run on `vaes.rs`'s [`LaneKeys`] and
//! POLYVAL).
//!
//! One message's set-up is a chain of dependent steps; a group's messages are
//! independent, so here each step runs for every lane before the next step
//! starts, with the lanes' AES rounds and multiplications side by side:
//! derivation (sixteen blocks in flight), key expansion (four lanes per
//! instruction, two quads in lockstep), POLYVAL by Horner's rule (four lanes'
//! multiplications interleaved), the tags, and CTR one block of every lane at
//! a time.
//! Round keys live in one stack array, one row per lane, and the AES rounds
//! under per-lane keys read them straight from it (see `lanes4!`).
//!
//! Like `short.rs`, this spells out the mode's steps for speed alone; the tests
//! hold batches to the step-by-step path at every length up to
//! [`SHORT_MAX`](crate::backend::SHORT_MAX), on both sides, and to one
//! message at a time past it, beyond the longest a group takes (`impls.rs`,
//! `lane_limits`: any length works, the limit is where one message at a time
//! becomes faster).
//!
//! What is wiped, as in `short.rs`: the round keys, which this kernel puts in
//! memory on purpose (the batch call's [`LaneKeyMemory`], shared by its
//! groups and wiped once as the call returns), and the derived keys and H,
//! which live in arrays too
//! large for the registers. Blocks the kernel holds in registers (derivation
//! output, keystream, the expansion's words) are not copied to memory to be
//! wiped: that copy would be the only place they reached memory (and cost
//! stores). `tests/residue.rs` checks that no round key or H is
//! left on the stack.

use super::aes::{Schedule, derivation_blocks};
use super::array;
use super::lanes::*;
use super::siv_blocks::{counter0, tag_input};
use super::tier::Tier;
use super::vaes::{PairSchedules, round4x2, rounds_x2};
use crate::backend::Block;
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// Record-key derivation (RFC 8452 section 4) for `L` nonces under the
/// (key-generating) schedule `key`, two blocks per instruction
/// ([`derive_quad_wide`]): both VAES tiers'.
///
/// # Safety
/// The CPU must support the enabled features.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) unsafe fn derive_group_wide<const NR: usize, const NB: usize, const L: usize>(
    key: &Schedule<NR>,
    nonces: &[&[u8; 12]; L],
    h: &mut [__m128i; L],
    k: &mut [[__m128i; 2]; L],
) {
    for c in (0..L).step_by(4) {
        // SAFETY: this function's features; four entries each (L is a
        // multiple of 4).
        unsafe { derive_quad_wide::<_, NB>(key, &nonces[c..c + 4], &mut h[c..c + 4], &mut k[c..c + 4]) };
    }
}

/// POLYVAL of each lane ([`GroupHash`]) in `K`'s own lane layout, or for
/// sixteen lanes one per register a quad at a time ([`hash_quads`]): every
/// tier's group hash but the 512-bit one of lanes in quads.
///
/// # Safety
/// The CPU must support `K::Hash`'s features and the baseline set.
#[inline(always)]
pub(super) unsafe fn hash_lanes<const NR: usize, const L: usize, K: LaneKeys<NR, L>>(
    h: &[__m128i; L],
    aads: &[&[u8]; L],
    data: &[&mut [u8]; L],
) -> [__m128i; L] {
    // SAFETY (both): the caller's features.
    unsafe {
        if K::QUADS || L <= 8 {
            GroupHash::<L, K::Hash>::new(h, aads, data).finish()
        } else {
            hash_quads::<NR, L>(h, aads, data)
        }
    }
}

/// POLYVAL of sixteen lanes one lane per register, a quad at a time: the
/// keys and accumulators of four lanes stay in registers, where those of
/// sixteen went through memory. Groups of eight gain nothing from quads,
/// and keep one pass.
///
/// # Safety
/// The CPU must support the baseline set.
#[inline(always)]
unsafe fn hash_quads<const NR: usize, const L: usize>(
    h: &[__m128i; L],
    aads: &[&[u8]; L],
    data: &[&mut [u8]; L],
) -> [__m128i; L] {
    // SAFETY: the caller's features (SSE2 at least).
    let mut s = unsafe { [_mm_setzero_si128(); L] };
    for q in (0..L).step_by(4) {
        let hq: &[__m128i; 4] = h[q..q + 4].try_into().expect("internal error: quad");
        let aq: &[&[u8]; 4] = aads[q..q + 4].try_into().expect("internal error: quad");
        let dq: &[&mut [u8]; 4] = data[q..q + 4].try_into().expect("internal error: quad");
        // SAFETY: the caller's features.
        s[q..q + 4].copy_from_slice(&unsafe { GroupHash::<4, Lanes<4>>::new(hq, aq, dq).finish() });
    }
    s
}

/// A tier's `seal_group` with one lane per register ([`Schedules`]): the
/// `ni` tier's groups, and the VAES tiers' groups of four.
///
/// # Safety
/// As [`seal_with`].
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn seal_group_narrow<T: Tier, const NR: usize, const NB: usize, const L: usize>(
    key: &Schedule<NR>,
    nonces: [&[u8; 12]; L],
    aads: [&[u8]; L],
    data: [&mut [u8]; L],
    keys: &mut LaneKeyMemory,
) -> [Block; L] {
    // SAFETY: as the caller's.
    unsafe { seal_with::<T, _, NB, L, Schedules<L>>(key, nonces, aads, data, keys) }
}

/// A tier's `open_group` with one lane per register, as
/// [`seal_group_narrow`].
///
/// # Safety
/// As [`seal_with`].
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn open_group_narrow<T: Tier, const NR: usize, const NB: usize, const L: usize>(
    key: &Schedule<NR>,
    nonces: [&[u8; 12]; L],
    aads: [&[u8]; L],
    data: [&mut [u8]; L],
    tags: &[Block; L],
    keys: &mut LaneKeyMemory,
) -> [Block; L] {
    // SAFETY: as the caller's.
    unsafe { open_with::<T, _, NB, L, Schedules<L>>(key, nonces, aads, data, tags, keys) }
}

/// A tier's `seal_group`: its steps with the round keys in `K`; inlined into
/// a caller that enables `K`'s features.
///
/// # Safety
/// The CPU must support the enabled features, `T`'s and `K`'s; `L` a
/// multiple of 4. (Any lengths are correct; callers keep them within
/// `lane_limits`, past which one message at a time is faster.)
#[inline(always)]
pub(super) unsafe fn seal_with<
    T: Tier,
    const NR: usize,
    const NB: usize,
    const L: usize,
    K: LaneKeys<NR, L>,
>(
    key: &Schedule<NR>,
    nonces: [&[u8; 12]; L],
    aads: [&[u8]; L],
    mut data: [&mut [u8]; L],
    keys: &mut LaneKeyMemory,
) -> [Block; L] {
    // SAFETY: the caller's CPU supports the features of every call
    // here (`K`'s and the baseline set); the caller bounds the lengths.
    unsafe {
        let mut h = [_mm_setzero_si128(); L];
        let mut k = [[_mm_setzero_si128(); 2]; L];
        T::derive_group::<NR, NB, L>(key, &nonces, &mut h, &mut k);
        let rk = K::place(keys);
        rk.expand(&k);
        k.zeroize();
        let s = T::group_hash::<NR, L, K>(&h, &aads, &data);
        h.zeroize();
        let mut t: [__m128i; L] = array(|l| tag_input(s[l], nonces[l]));
        rk.encrypt(&mut t);
        rk.ctr(&array(|l| counter0(t[l])), &mut data);
        blocks(&t)
    }
}

/// A tier's `open_group`: its steps with the round keys in `K`, as
/// [`seal_with`].
///
/// # Safety
/// As [`seal_with`].
#[inline(always)]
pub(super) unsafe fn open_with<
    T: Tier,
    const NR: usize,
    const NB: usize,
    const L: usize,
    K: LaneKeys<NR, L>,
>(
    key: &Schedule<NR>,
    nonces: [&[u8; 12]; L],
    aads: [&[u8]; L],
    mut data: [&mut [u8]; L],
    tags: &[Block; L],
    keys: &mut LaneKeyMemory,
) -> [Block; L] {
    // SAFETY: as in `seal_with`; 16 readable bytes in each tag.
    unsafe {
        let mut h = [_mm_setzero_si128(); L];
        let mut k = [[_mm_setzero_si128(); 2]; L];
        T::derive_group::<NR, NB, L>(key, &nonces, &mut h, &mut k);
        let ctr0: [__m128i; L] = array(|l| counter0(_mm_loadu_si128(tags[l].as_ptr().cast())));
        let rk = K::place(keys);
        rk.expand(&k);
        k.zeroize();
        rk.ctr(&ctr0, &mut data);
        let s = T::group_hash::<NR, L, K>(&h, &aads, &data);
        h.zeroize();
        let mut t: [__m128i; L] = array(|l| tag_input(s[l], nonces[l]));
        rk.encrypt(&mut t);
        blocks(&t)
    }
}

/// Record-key derivation (RFC 8452 section 4) for four nonces under this
/// (key-generating) schedule, two blocks per instruction: each nonce's
/// `NB` derivation blocks as `NB / 2` registers of adjacent counters, so
/// that a register's two outputs are the two halves of one derived key
/// (their low 64 bits, joined by one lane permute). Writes each nonce's H
/// and encryption key (one or two blocks) to `h` and `k`.
///
/// # Safety
/// The CPU must support the enabled features; `nonces`, `h` and `k` hold
/// four entries each.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) unsafe fn derive_quad_wide<const NR: usize, const NB: usize>(
    key: &Schedule<NR>,
    nonces: &[&[u8; 12]],
    h: &mut [__m128i],
    k: &mut [[__m128i; 2]],
) {
    debug_assert!((NB == 4 || NB == 6) && nonces.len() == 4 && h.len() == 4 && k.len() == 4);
    let per = NB / 2;
    // Registers 4 g .. 4 g + 4 form group g: two (AES-128) or three
    // (AES-256) groups of four, all in flight.
    let mut y = [_mm256_setzero_si256(); 12];
    for (m, nonce) in nonces.iter().enumerate() {
        let base = _mm256_broadcastsi128_si256(derivation_blocks::<1>(nonce)[0]);
        for q in 0..per {
            let i = 2 * q as i32;
            y[per * m + q] = _mm256_add_epi32(base, _mm256_setr_epi32(i, 0, 0, 0, i + 1, 0, 0, 0));
        }
    }
    let groups = 4 * per / 4;
    for g in 0..groups {
        let b: &mut [__m256i; 4] = (&mut y[4 * g..4 * g + 4]).try_into().expect("four registers");
        round4x2!("vpxor", b, &key.rk[0]);
    }
    for r in 1..NR {
        for g in 0..groups {
            let b: &mut [__m256i; 4] = (&mut y[4 * g..4 * g + 4]).try_into().expect("four registers");
            round4x2!("vaesenc", b, &key.rk[r]);
        }
    }
    for g in 0..groups {
        let b: &mut [__m256i; 4] = (&mut y[4 * g..4 * g + 4]).try_into().expect("four registers");
        round4x2!("vaesenclast", b, &key.rk[NR]);
    }
    // The low 64 bits of each lane, side by side: one derived key.
    let halves = |v: __m256i| _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0b00_00_10_00>(v));
    for m in 0..4 {
        h[m] = halves(y[per * m]);
        k[m] = [halves(y[per * m + 1]), if NB == 6 { halves(y[per * m + 2]) } else { _mm_setzero_si128() }];
    }
}

/// A VAES tier's `seal_group` with the lanes in pairs.
///
/// # Safety
/// As [`seal_with`]; the CPU supports the enabled features; `L` is 8 or 16.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) unsafe fn seal_group_wide<T: Tier, const NR: usize, const NB: usize, const L: usize>(
    key: &Schedule<NR>,
    nonces: [&[u8; 12]; L],
    aads: [&[u8]; L],
    data: [&mut [u8]; L],
    keys: &mut LaneKeyMemory,
) -> [Block; L] {
    // SAFETY: as the caller's.
    unsafe { seal_with::<T, _, NB, L, PairSchedules>(key, nonces, aads, data, keys) }
}

/// A VAES tier's `open_group` with the lanes in pairs. (The same
/// parameters as `open_with` and the trait's `open_lanes`, on purpose:
/// each layer passes the group down unchanged, enabling more features.)
///
/// # Safety
/// As [`seal_group_wide`].
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) unsafe fn open_group_wide<T: Tier, const NR: usize, const NB: usize, const L: usize>(
    key: &Schedule<NR>,
    nonces: [&[u8; 12]; L],
    aads: [&[u8]; L],
    data: [&mut [u8]; L],
    tags: &[Block; L],
    keys: &mut LaneKeyMemory,
) -> [Block; L] {
    // SAFETY: as the caller's.
    unsafe { open_with::<T, _, NB, L, PairSchedules>(key, nonces, aads, data, tags, keys) }
}

#[cfg(test)]
mod tests {
    use super::super::{Aes128, Aes256, Features};
    use crate::backend::{BatchKernels, FusedKernels, InOut};

    /// A batch group's seal and open (sixteen lanes and eight) agree between
    /// the narrow kernel (one lane per register), lanes in pairs with their
    /// POLYVAL in pairs (no AVX-512), and lanes in pairs with POLYVAL four
    /// lanes per instruction (AVX-512): equal lengths around the block and
    /// group limits, and short lanes of unequal lengths.
    #[test]
    fn group_kernels_agree_with_and_without_avx512() {
        use super::super::group::LaneKeyMemory;
        let (Some(narrow), Some(wide)) = (Features::detect(), Features::detect_widest()) else {
            return; // this CPU has no VAES: nothing to compare
        };
        let widths = [narrow, wide.at_256(), wide];
        let cases: std::vec::Vec<std::vec::Vec<(usize, usize)>> =
            [0usize, 1, 16, 17, 64, 100, 128, 200, 256, 512, 1024]
                .into_iter()
                .map(|m| std::vec![(m % 33, m); 16])
                .chain([(0..16).map(|l| (l * 7 % 40, l * 13 % 129)).collect()])
                .collect();
        macro_rules! run {
            ($aes:ty, $key:expr, $L:literal) => {{
                for lens in &cases {
                    let mut outputs = std::vec::Vec::new();
                    for features in widths {
                        let aes = <$aes>::new(features, $key);
                        let nonces: [[u8; 12]; $L] = core::array::from_fn(|l| [l as u8 ^ 0x5a; 12]);
                        let aads: std::vec::Vec<std::vec::Vec<u8>> =
                            (0..$L).map(|l| (0..lens[l].0).map(|i| (i * 3 + l) as u8).collect()).collect();
                        let mut bufs: std::vec::Vec<std::vec::Vec<u8>> =
                            (0..$L).map(|l| (0..lens[l].1).map(|i| (i * 5 + l) as u8).collect()).collect();
                        let mut keys = LaneKeyMemory::default();
                        let mut it = bufs.iter_mut();
                        let Some(tags) = aes.seal_lanes::<$L>(
                            core::array::from_fn(|l| &nonces[l]),
                            core::array::from_fn(|l| &aads[l][..]),
                            core::array::from_fn(|_| &mut it.next().unwrap()[..]),
                            &mut keys,
                        ) else {
                            continue; // no group kernel for this many lanes
                        };
                        let sealed = bufs.clone();
                        // Each lane as one message sealed alone.
                        for l in 0..$L {
                            let mut one: std::vec::Vec<u8> =
                                (0..lens[l].1).map(|i| (i * 5 + l) as u8).collect();
                            let tag =
                                aes.seal_fused(&nonces[l], &aads[l], InOut::in_place(&mut one)).unwrap();
                            assert_eq!(
                                (tag, &one),
                                (tags[l], &sealed[l]),
                                "lane {l}, {features:?}, {lens:?}"
                            );
                        }
                        let mut it = bufs.iter_mut();
                        // (Every length is correct; `lane_limits` only says where it pays.)
                        if let Some(expected) = aes.open_lanes::<$L>(
                            core::array::from_fn(|l| &nonces[l]),
                            core::array::from_fn(|l| &aads[l][..]),
                            core::array::from_fn(|_| &mut it.next().unwrap()[..]),
                            &tags,
                            &mut keys,
                        ) {
                            assert_eq!(expected, tags, "open's tags, {features:?}, {lens:?}");
                            for (l, b) in bufs.iter().enumerate() {
                                assert_eq!(
                                    b,
                                    &(0..lens[l].1).map(|i| (i * 5 + l) as u8).collect::<std::vec::Vec<u8>>()
                                );
                            }
                        }
                        outputs.push((tags, sealed));
                    }
                    assert!(outputs.windows(2).all(|w| w[0] == w[1]), "widths disagree, {lens:?}");
                }
            }};
        }
        let key: [u8; 32] = core::array::from_fn(|i| (i * 9 + 1) as u8);
        run!(Aes128, key[..16].try_into().unwrap(), 16);
        run!(Aes128, key[..16].try_into().unwrap(), 8);
        run!(Aes256, &key, 16);
        run!(Aes256, &key, 8);
    }
}
