//! The `vaes512` tier: VAES and VPCLMULQDQ on 512-bit registers (with
//! AVX-512 F, BW and VL), four blocks per instruction, the `aesni-vaes`
//! backend where the CPU runs AVX-512 at full clock (AMD Zen 4 and later,
//! Intel Sapphire Rapids and later). Inputs of [`ZMM_FROM`] bytes and more
//! take the 512-bit passes for their 256-byte chunks, and the shared
//! 256-bit passes (`pass256.rs`) for what those leave; shorter ones take
//! the 256-bit passes alone. Its batch groups take the lanes in pairs and
//! hash them four lanes per instruction.
//!
//! On Zen 4 a 512-bit `vpclmulqdq` issues as often as a 128- or 256-bit
//! one, so the hash of long inputs runs sixteen blocks per reduction; a
//! 512-bit `vaesenc` takes two issue slots, the same rate per block, but
//! fewer instructions let the AES and the multiplications overlap better.

mod passes;
mod zmm;

use super::aes::Schedule;
use super::clmul::Powers;
use super::group::{
    derive_group_wide, hash_lanes, open_group_narrow, open_group_wide, seal_group_narrow, seal_group_wide,
};
use super::lanes::{LaneKeyMemory, LaneKeys};
use super::pass128::Stitch;
use super::pass128::counter_after;
use super::pass256::{ALIGN_FROM, ctr_stitched_wide, ctr32_ymm, polyval_chunks_with, stitched_block};
use super::tier::Tier;
use super::vaes::{Keys512, pairs};
use crate::backend::{Block, InOut, LaneLimits};
use core::arch::x86_64::*;
pub(super) use passes::polyval_chunks_zmm;
use passes::{ctr_stitched_zmm, ctr32_zmm};
use zmm::group_hash_zmm;

/// The longest message or AAD a batch's group kernel takes when every lane
/// has the same lengths, lanes in pairs: opens as at 256 bits; seals
/// further, since their POLYVAL runs four lanes per instruction
/// (`QuadHash`). Past these one message at a time is faster
/// (docs/PERFORMANCE-HISTORY.md has the crossovers).
const OPEN_LANES_MAX: usize = 512;
const SEAL_LANES_MAX: usize = 1024;

/// Inputs from this long take the 512-bit passes: below it, building
/// H^9..H^16 for the sixteen-block step costs more than the wider pass
/// saves.
pub(super) const ZMM_FROM: usize = 1024;

/// The `vaes512` tier.
#[derive(Clone, Copy, Debug)]
pub(super) struct Vaes512;

impl Tier for Vaes512 {
    const KEYS512: bool = true;

    fn wide_groups(_nr: usize) -> bool {
        // Sixteen lanes: eight registers of lane pairs, each step with eight
        // independent chains.
        true
    }

    fn lane_limits(_nr: usize, seal: bool, _avx: bool) -> LaneLimits {
        LaneLimits { equal_max: if seal { SEAL_LANES_MAX } else { OPEN_LANES_MAX }, mixed_short: true }
    }

    #[inline(always)]
    unsafe fn ctr32_chunks<const NR: usize, const BE: bool, const PUBLIC: bool>(
        key: &Schedule<NR>,
        counter: &Block,
        data: InOut<'_>,
    ) -> usize {
        // SAFETY: the trait's contract.
        unsafe { ctr32_chunks::<_, BE, PUBLIC>(key, counter, data) }
    }

    #[inline(always)]
    unsafe fn polyval_chunks<const REVERSED: bool>(
        s: __m128i,
        powers: &Powers,
        blocks: &[u8],
    ) -> (__m128i, usize) {
        // SAFETY: the trait's contract.
        unsafe { polyval_chunks::<REVERSED>(s, powers, blocks) }
    }

    #[inline(always)]
    unsafe fn ctr_stitched<const NR: usize, const BE: bool, const PUBLIC: bool>(
        key: &Schedule<NR>,
        counter: &Block,
        data: InOut<'_>,
        state: &mut __m128i,
        powers: &Powers,
        mode: Stitch,
        keys: Option<&Keys512<NR>>,
        lengths: Option<__m128i>,
    ) -> usize {
        // SAFETY (both): the trait's contract. Below `ZMM_FROM` the 256-bit
        // pass alone, called from here: through `ctr_stitched` it would be
        // a second call for every message of 129 bytes to 1 KiB.
        unsafe {
            if data.len() < ZMM_FROM {
                return ctr_stitched_wide::<_, BE, PUBLIC>(key, counter, data, state, powers, mode, lengths);
            }
            ctr_stitched::<_, BE, PUBLIC>(key, counter, data, state, powers, mode, keys, lengths)
        }
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
        // SAFETY (both): the trait's contract; lanes in quads are lanes in
        // pairs (`PairSchedules`), whose hash this tier runs four per
        // instruction.
        unsafe {
            if K::QUADS { group_hash_zmm::<L>(h, aads, data) } else { hash_lanes::<NR, L, K>(h, aads, data) }
        }
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

/// POLYVAL's aggregated step over the whole chunks of `blocks`: the 256-byte
/// chunks sixteen blocks per reduction where `blocks` has [`ZMM_FROM`] bytes
/// or more, then the 128-byte chunks left two blocks per instruction.
///
/// # Safety
/// The CPU must support the enabled features and AVX-512 F, BW and VL.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
unsafe fn polyval_chunks<const REVERSED: bool>(
    s: __m128i,
    powers: &Powers,
    blocks: &[u8],
) -> (__m128i, usize) {
    let (s, done) = if blocks.len() >= ZMM_FROM {
        // SAFETY: the caller's promise.
        unsafe { polyval_chunks_zmm::<REVERSED>(s, powers, blocks) }
    } else {
        (s, 0)
    };
    // SAFETY: same features.
    let (s, more) = unsafe { polyval_chunks_with::<REVERSED>(s, pairs(powers), &blocks[done..]) };
    (s, done + more)
}

/// The stitched pass (see [`Tier::ctr_stitched`]): as the 256-bit tier's
/// (`pass256.rs`'s `ctr_stitched_wide`), with the 256-byte chunks of an
/// input of [`ZMM_FROM`] bytes or more through the 512-bit pass first
/// (`ctr_stitched_zmm`), which may finish the message itself.
///
/// # Safety
/// The CPU must support the enabled features and AVX-512 F, BW and VL.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
unsafe fn ctr_stitched<const NR: usize, const BE: bool, const PUBLIC: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    mut data: InOut<'_>,
    state: &mut __m128i,
    powers: &Powers,
    mode: Stitch,
    keys: Option<&Keys512<NR>>,
    lengths: Option<__m128i>,
) -> usize {
    if data.len() >= ALIGN_FROM && data.output_ptr() as usize % 32 == 16 {
        let (first, rest) = data.split_at(16);
        // SAFETY (both): same features (AES-NI and PCLMULQDQ among them).
        // `rest` starts on a 32-byte boundary: nothing goes apart again.
        unsafe { stitched_block(key, counter, first, state, powers, mode) };
        let next = counter_after::<BE>(counter, 16);
        return 16
            + unsafe { ctr_stitched::<_, BE, PUBLIC>(key, &next, rest, state, powers, mode, keys, lengths) };
    }
    let mut done = 0;
    if data.len() >= ZMM_FROM {
        // SAFETY: the caller's promise.
        let finished;
        (done, finished) = unsafe {
            ctr_stitched_zmm::<_, BE, PUBLIC>(
                key,
                counter,
                data.reborrow(),
                state,
                powers,
                mode,
                keys,
                lengths,
            )
        };
        if finished {
            return done;
        }
    }
    // The rest through the 256-bit pass, which finishes the message with
    // `lengths`. (Its own first-block check finds the rest aligned: it was
    // made so above.)
    let next = counter_after::<BE>(counter, done);
    // SAFETY: same features.
    let rest = data.split_at(done).1;
    done + unsafe { ctr_stitched_wide::<_, BE, PUBLIC>(key, &next, rest, state, powers, mode, lengths) }
}

/// CTR over the whole chunks of `data`: the 256-byte ones four blocks per
/// instruction, then a 128-byte one left two blocks per instruction. One
/// function with the 256-bit features, so that the 256-bit loop is inlined
/// here and a message's CTR costs one call.
///
/// # Safety
/// The CPU must support the enabled features and AVX-512 F, BW and VL.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
unsafe fn ctr32_chunks<const NR: usize, const BE: bool, const PUBLIC: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    mut data: InOut<'_>,
) -> usize {
    // SAFETY (both): the caller's promise.
    let done = unsafe { ctr32_zmm::<_, BE, PUBLIC>(key, counter, data.reborrow()) };
    let next = counter_after::<BE>(counter, done);
    done + unsafe { ctr32_ymm::<_, BE, PUBLIC>(key, &next, data.split_at(done).1) }
}
