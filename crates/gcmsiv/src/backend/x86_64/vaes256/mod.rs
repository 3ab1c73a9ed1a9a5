//! The `vaes256` tier: VAES and VPCLMULQDQ on 256-bit registers (with AVX
//! and AVX2), two blocks per instruction, the `aesni-vaes` backend where
//! the CPU has no AVX-512 or runs it at a lower clock (AMD Zen 3, Intel
//! Alder Lake, Ice Lake, Tiger Lake). Its passes are the shared 256-bit ones
//! (`pass256.rs`), which the `vaes512` tier runs too for what its 512-bit
//! chunks leave; its batch groups take the lanes in pairs.

use super::aes::Schedule;
use super::clmul::Powers;
use super::group::{
    derive_group_wide, hash_lanes, open_group_narrow, open_group_wide, seal_group_narrow, seal_group_wide,
};
use super::lanes::{LaneKeyMemory, LaneKeys};
use super::pass128::Stitch;
use super::pass256::{ctr_stitched_wide, ctr32_ymm, polyval_chunks_ymm};
use super::tier::Tier;
use super::vaes::Keys512;
use crate::backend::{Block, InOut, LaneLimits};
use core::arch::x86_64::*;

/// The longest message or AAD a batch's group kernel takes when every lane
/// has the same lengths, lanes in pairs: past it, one message at a time is
/// faster (docs/PERFORMANCE-HISTORY.md has the crossovers).
const LANES_MAX: usize = 512;

/// The `vaes256` tier.
#[derive(Clone, Copy, Debug)]
pub(super) struct Vaes256;

impl Tier for Vaes256 {
    const KEYS512: bool = false;

    fn wide_groups(_nr: usize) -> bool {
        // Sixteen lanes: eight registers of lane pairs, each step with eight
        // independent chains.
        true
    }

    fn lane_limits(_nr: usize, _seal: bool, _avx: bool) -> LaneLimits {
        LaneLimits { equal_max: LANES_MAX, mixed_short: true }
    }

    #[inline(always)]
    unsafe fn ctr32_chunks<const NR: usize, const BE: bool, const PUBLIC: bool>(
        key: &Schedule<NR>,
        counter: &Block,
        data: InOut<'_>,
    ) -> usize {
        // SAFETY: the trait's contract.
        unsafe { ctr32_ymm::<_, BE, PUBLIC>(key, counter, data) }
    }

    #[inline(always)]
    unsafe fn polyval_chunks<const REVERSED: bool>(
        s: __m128i,
        powers: &Powers,
        blocks: &[u8],
    ) -> (__m128i, usize) {
        // SAFETY: the trait's contract.
        unsafe { polyval_chunks_ymm::<REVERSED>(s, powers, blocks) }
    }

    #[inline(always)]
    unsafe fn ctr_stitched<const NR: usize, const BE: bool, const PUBLIC: bool>(
        key: &Schedule<NR>,
        counter: &Block,
        data: InOut<'_>,
        state: &mut __m128i,
        powers: &Powers,
        mode: Stitch,
        _keys: Option<&Keys512<NR>>,
        lengths: Option<__m128i>,
    ) -> usize {
        // SAFETY: the trait's contract.
        unsafe { ctr_stitched_wide::<_, BE, PUBLIC>(key, counter, data, state, powers, mode, lengths) }
    }

    #[inline(always)]
    unsafe fn derive_group<const NR: usize, const NB: usize, const L: usize>(
        key: &Schedule<NR>,
        nonces: &[&[u8; 12]; L],
        h: &mut [__m128i; L],
        k: &mut [[__m128i; 2]; L],
    ) {
        // SAFETY: the trait's contract.
        unsafe { derive_group_wide::<NR, NB, L>(key, nonces, h, k) }
    }

    #[inline(always)]
    unsafe fn group_hash<const NR: usize, const L: usize, K: LaneKeys<NR, L>>(
        h: &[__m128i; L],
        aads: &[&[u8]; L],
        data: &[&mut [u8]; L],
    ) -> [__m128i; L] {
        // SAFETY: the trait's contract.
        unsafe { hash_lanes::<NR, L, K>(h, aads, data) }
    }

    #[inline(always)]
    unsafe fn seal_group<const NR: usize, const NB: usize, const L: usize>(
        key: &Schedule<NR>,
        nonces: [&[u8; 12]; L],
        aads: [&[u8]; L],
        data: [&mut [u8]; L],
        keys: &mut LaneKeyMemory,
    ) -> [Block; L] {
        // SAFETY (both): the trait's contract.
        if L.is_multiple_of(8) {
            return unsafe { seal_group_wide::<Self, _, NB, L>(key, nonces, aads, data, keys) };
        }
        unsafe { seal_group_narrow::<Self, _, NB, L>(key, nonces, aads, data, keys) }
    }

    #[inline(always)]
    unsafe fn open_group<const NR: usize, const NB: usize, const L: usize>(
        key: &Schedule<NR>,
        nonces: [&[u8; 12]; L],
        aads: [&[u8]; L],
        data: [&mut [u8]; L],
        tags: &[Block; L],
        keys: &mut LaneKeyMemory,
    ) -> [Block; L] {
        // SAFETY (both): the trait's contract.
        if L.is_multiple_of(8) {
            return unsafe { open_group_wide::<Self, _, NB, L>(key, nonces, aads, data, tags, keys) };
        }
        unsafe { open_group_narrow::<Self, _, NB, L>(key, nonces, aads, data, tags, keys) }
    }
}
