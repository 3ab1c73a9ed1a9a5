//! What differs between the tiers, as one trait: each tier folder (`ni/`,
//! `vaes256/`, `vaes512/`) implements [`Tier`] for its type, with the same
//! operations under the same names, and the kernels above the shared part
//! (`bulk.rs`, `long.rs`, `group.rs`) are written once over it. A key
//! carries its tier's tag from the moment it is made (`Features`), and
//! `impls.rs` turns the tag into the type parameter once per call, so no
//! kernel asks for a width.
//!
//! The operations are the bulk passes (the only code whose width differs)
//! and the batch groups' steps whose lane layout differs, plus the limits a
//! tier's measurements set. Every other step of a message is 128-bit code
//! shared by all three (`short.rs`, `blocks.rs`, `pass128.rs` for what the
//! wide passes leave).

use super::aes::Schedule;
use super::clmul::Powers;
use super::lanes::{LaneKeyMemory, LaneKeys};
use super::pass128::Stitch;
use super::vaes::Keys512;
use crate::backend::{Block, InOut, LaneLimits};
use core::arch::x86_64::__m128i;

/// One tier of the x86-64 backend (a zero-sized type). Every `unsafe fn`
/// here has the same contract: the CPU supports the tier's features (the
/// proof a key of that tier holds) and the baseline set.
pub(super) trait Tier {
    /// Whether AES-GCM's per-key table keeps the round keys broadcast for
    /// the 512-bit stitched pass ([`Keys512`]).
    const KEYS512: bool;

    /// [`BatchKernels::wide_groups`](crate::backend::BatchKernels::wide_groups)
    /// for a schedule of `nr` rounds.
    fn wide_groups(nr: usize) -> bool;

    /// [`BatchKernels::lane_limits`](crate::backend::BatchKernels::lane_limits)
    /// for a schedule of `nr` rounds, where the CPU has AVX if `avx`.
    fn lane_limits(nr: usize, seal: bool, avx: bool) -> LaneLimits;

    /// CTR over the whole chunks of `data` this tier's wide registers take,
    /// from `counter` (as `bulk.rs`'s `ctr32`), input to output; returns the
    /// bytes processed (none in the `ni` tier, whose 128-bit pass is
    /// `bulk.rs`'s own).
    ///
    /// # Safety
    /// As the trait's.
    unsafe fn ctr32_chunks<const NR: usize, const BE: bool, const PUBLIC: bool>(
        key: &Schedule<NR>,
        counter: &Block,
        data: InOut<'_>,
    ) -> usize;

    /// POLYVAL's aggregated step over the whole chunks of `blocks` this
    /// tier's wide registers take, from `s`: S and the bytes absorbed (none
    /// in the `ni` tier).
    ///
    /// # Safety
    /// As the trait's.
    unsafe fn polyval_chunks<const REVERSED: bool>(
        s: __m128i,
        powers: &Powers,
        blocks: &[u8],
    ) -> (__m128i, usize);

    /// CTR over `data` (input to output) from `counter` with the hash
    /// stitched in (`mode`), S in `state`: the whole chunks, and with `lengths` (the message's
    /// length block) the tail and the length block too. Returns the bytes
    /// processed (`data.len()` with `lengths`). `PUBLIC`: the counter's value
    /// is public (GCM with a 96-bit IV); `keys`: GCM's broadcast round keys,
    /// if the key's table has them.
    ///
    /// # Safety
    /// As the trait's.
    #[allow(clippy::too_many_arguments)]
    unsafe fn ctr_stitched<const NR: usize, const BE: bool, const PUBLIC: bool>(
        key: &Schedule<NR>,
        counter: &Block,
        data: InOut<'_>,
        state: &mut __m128i,
        powers: &Powers,
        mode: Stitch,
        keys: Option<&Keys512<NR>>,
        lengths: Option<__m128i>,
    ) -> usize;

    /// Record-key derivation (RFC 8452 section 4) for `L` nonces (`L` a
    /// multiple of 4) under the key-generating schedule `key`: each lane's H
    /// and encryption key (one or two blocks).
    ///
    /// # Safety
    /// As the trait's.
    unsafe fn derive_group<const NR: usize, const NB: usize, const L: usize>(
        key: &Schedule<NR>,
        nonces: &[&[u8; 12]; L],
        h: &mut [__m128i; L],
        k: &mut [[__m128i; 2]; L],
    );

    /// POLYVAL of each lane of a group whose round keys are in `K`.
    ///
    /// # Safety
    /// As the trait's, and the CPU supports `K`'s features.
    unsafe fn group_hash<const NR: usize, const L: usize, K: LaneKeys<NR, L>>(
        h: &[__m128i; L],
        aads: &[&[u8]; L],
        data: &[&mut [u8]; L],
    ) -> [__m128i; L];

    /// Seals `L` short messages in place (`L` a multiple of 4) and returns
    /// their tags (`group.rs`'s `seal_with` in this tier's lane layout).
    ///
    /// # Safety
    /// As the trait's; `L` a multiple of 4. (Any lengths are correct;
    /// callers keep them within [`Tier::lane_limits`].)
    unsafe fn seal_group<const NR: usize, const NB: usize, const L: usize>(
        key: &Schedule<NR>,
        nonces: [&[u8; 12]; L],
        aads: [&[u8]; L],
        data: [&mut [u8]; L],
        keys: &mut LaneKeyMemory,
    ) -> [Block; L];

    /// Opens `L` short messages in place (CTR from the received `tags`) and
    /// returns the tags their plaintexts should have; the caller compares.
    ///
    /// # Safety
    /// As [`Tier::seal_group`].
    unsafe fn open_group<const NR: usize, const NB: usize, const L: usize>(
        key: &Schedule<NR>,
        nonces: [&[u8; 12]; L],
        aads: [&[u8]; L],
        data: [&mut [u8]; L],
        tags: &[Block; L],
        keys: &mut LaneKeyMemory,
    ) -> [Block; L];
}
