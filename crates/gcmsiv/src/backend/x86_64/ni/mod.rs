//! The `ni` tier: AES-NI and PCLMULQDQ (with SSSE3 and SSE4.1), one block
//! per instruction, the `aesni-clmul` backend. Its bulk passes are the
//! shared 128-bit ones (`pass128.rs`), so it adds no wide pass: what it
//! holds is its batch groups' layout (one lane per register) and the limits
//! measured for them. The one-message kernels take AVX's forms where the
//! CPU has AVX (`short.rs`).

use super::aes::Schedule;
use super::aes::derivation_blocks;
use super::array;
use super::blocks::sse::stitched_tail;
use super::clmul::Powers;
use super::group::{hash_lanes, open_group_narrow, seal_group_narrow};
use super::lanes::blocks16;
use super::lanes::{LaneKeyMemory, LaneKeys};
use super::pass128::{Stitch, counter_after, ctr_stitched};
use super::tier::Tier;
use super::vaes::Keys512;
use crate::backend::{Block, InOut, LaneLimits};
use core::arch::x86_64::*;

/// The longest message or AAD a batch's group kernel takes when every lane
/// has the same lengths, one lane per register. Past it one message at a
/// time is faster: its aggregated POLYVAL and 8-block CTR beat the lanes'
/// Horner steps and block-by-block CTR by more than the set-up the group
/// saves (docs/PERFORMANCE-HISTORY.md has the crossovers).
const LANES_MAX: usize = 256;

/// The `ni` tier.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ni;

impl Tier for Ni {
    const KEYS512: bool = false;

    fn wide_groups(nr: usize) -> bool {
        // Sixteen lanes one per register for AES-256, whose derivation is 24
        // blocks per quad; AES-128's groups keep eight, where sixteen lost.
        nr == 14
    }

    fn lane_limits(nr: usize, seal: bool, avx: bool) -> LaneLimits {
        // Lanes of unequal lengths each take the longest one's CTR steps, so
        // only groups of equal lengths go past SHORT_MAX. Short lanes of
        // unequal lengths hash one lane per register in a loop of their own,
        // which loses to one message at a time for AES-256 groups, and, since
        // the one-message kernels take AVX's forms, for AES-128 seals where
        // the CPU has AVX (docs/PERFORMANCE-HISTORY.md has the figures).
        LaneLimits { equal_max: LANES_MAX, mixed_short: nr == 10 && !(seal && avx) }
    }

    #[inline(always)]
    unsafe fn ctr32_chunks<const NR: usize, const BE: bool, const PUBLIC: bool>(
        _key: &Schedule<NR>,
        _counter: &Block,
        _data: InOut<'_>,
    ) -> usize {
        0
    }

    #[inline(always)]
    unsafe fn polyval_chunks<const REVERSED: bool>(
        s: __m128i,
        _powers: &Powers,
        _blocks: &[u8],
    ) -> (__m128i, usize) {
        (s, 0)
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
        let mut data = data;
        // SAFETY: the trait's contract.
        let done = unsafe { ctr_stitched::<_, BE>(key, counter, data.reborrow(), state, powers, mode) };
        let Some(lengths) = lengths else {
            return done;
        };
        let total = data.len();
        let c = counter_after::<BE>(counter, done);
        // The tail (less than a chunk) in place, copied first when out of place.
        let tail = data.split_at(done).1.into_in_place();
        // SAFETY: the trait's contract; 16 readable bytes in the counter.
        *state = unsafe {
            let c = _mm_loadu_si128(c.as_ptr().cast());
            stitched_tail::<NR>(&key.rk, c, tail, *state, powers, lengths, mode)
        };
        total
    }

    #[inline(always)]
    unsafe fn derive_group<const NR: usize, const NB: usize, const L: usize>(
        key: &Schedule<NR>,
        nonces: &[&[u8; 12]; L],
        h: &mut [__m128i; L],
        k: &mut [[__m128i; 2]; L],
    ) {
        // SAFETY: the trait's contract.
        unsafe { derive_group_narrow::<NR, NB, L>(key, nonces, h, k) }
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
        // SAFETY: the trait's contract.
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
        // SAFETY: the trait's contract.
        unsafe { open_group_narrow::<Self, _, NB, L>(key, nonces, aads, data, tags, keys) }
    }
}

/// Record-key derivation (RFC 8452 section 4) for `L` nonces under this
/// (key-generating) schedule, one block per instruction, sixteen in flight:
/// each lane's H and encryption key (one or two blocks). The `ni` tier's.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn derive_group_narrow<const NR: usize, const NB: usize, const L: usize>(
    key: &Schedule<NR>,
    nonces: &[&[u8; 12]; L],
    h: &mut [__m128i; L],
    k: &mut [[__m128i; 2]; L],
) {
    // Four lanes at a time: 16 or 24 blocks, sixteen in flight, then eight.
    for c in (0..L).step_by(4) {
        // The blocks built in place, not copied into a zeroed array: on
        // this core every store costs a cycle of the one store port.
        let blocks: [[__m128i; NB]; 4] = array(|i| derivation_blocks::<NB>(nonces[c + i]));
        let mut sixteen: [__m128i; 16] = array(|j| _mm_xor_si128(blocks[j / NB][j % NB], key.rk[0]));
        let mut rest: [__m128i; 8] =
            array(|j| if NB == 6 { blocks[(16 + j) / NB][(16 + j) % NB] } else { blocks[0][0] });
        for key in &key.rk[1..NR] {
            blocks16!("aesenc", &mut sixteen, key);
        }
        blocks16!("aesenclast", &mut sixteen, &key.rk[NR]);
        if NB == 6 {
            key.encrypt8(&mut rest);
        }
        let block = |j: usize| if j < 16 { sixteen[j] } else { rest[j - 16] };
        let pair = |j: usize| _mm_unpacklo_epi64(block(j), block(j + 1));
        for i in 0..4 {
            h[c + i] = pair(NB * i);
            k[c + i] = [pair(NB * i + 2), if NB == 6 { pair(NB * i + 4) } else { _mm_setzero_si128() }];
        }
    }
}
