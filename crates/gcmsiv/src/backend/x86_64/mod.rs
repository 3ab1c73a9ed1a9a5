//! The x86-64 backend: AES-NI for AES, PCLMULQDQ for POLYVAL, and VAES and
//! VPCLMULQDQ for the same two or four blocks per instruction, cut by what
//! the CPU offers into three tiers, one folder each: `ni/` (AES-NI and
//! PCLMULQDQ, 128-bit registers), `vaes256/` (VAES and VPCLMULQDQ on 256-bit
//! registers) and `vaes512/` (the same on 512-bit registers). The tiers
//! never use one another; each implements `tier.rs`'s [`Tier`](tier::Tier)
//! trait, the same operations under the same names, and what they share
//! sits below them. The modules are in layers, listed below lowest first
//! (each uses only those before it; `scripts/check-layers.py` checks):
//!
//! - shared by all tiers: `cpu.rs` (detection), `load.rs` (moving blocks),
//!   the 128-bit primitives (`aes.rs`, `clmul.rs`, `siv_blocks.rs`,
//!   `lanes.rs`), the 128-bit passes and tails (`pass128.rs`, `blocks.rs`);
//! - shared by the two VAES tiers: `vaes.rs` (256-bit primitives) and
//!   `pass256.rs` (the 256-bit passes, which `vaes512/` runs for what its
//!   512-bit chunks leave);
//! - the kernels, written once over a [`Tier`](tier::Tier) type parameter:
//!   `tier.rs` (the trait), `bulk.rs` (the bulk passes), `short.rs` (one
//!   message of up to 128 bytes, no tier: 128-bit code at every tier),
//!   `long.rs` (one longer message), `group.rs` (a batch's groups);
//! - the tiers, side by side: `ni/`, `vaes256/`, `vaes512/`;
//! - `impls.rs`: the traits of `backend/mod.rs`, where each call turns the
//!   key's tier tag into the tier type, the one place a width is read.
//!
//! docs/ARCHITECTURE.md draws them and gives the reasons for the cut.
//!
//! Every function that uses these instructions carries
//! `#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]`, exactly the set
//! [`Features::detect`] checks; `short.rs`'s `avx` module adds AVX, run only
//! where [`Features::avx`] says so, and the VAES code (`vaes.rs`,
//! `pass256.rs`, `vaes256/`, `vaes512/`) adds the features
//! [`Features::detect_wide`] checks for its tier. The only way to reach them
//! from safe code is through a type holding a [`Features`] value, which
//! exists only after detection succeeded: that value, and the tier it names,
//! is the proof each `// SAFETY:` comment names.

/// Evaluates `$e` with `$b` a constant: the number of blocks of `$len` bytes
/// (1..=8, `SHORT_MAX` / 16; `$len` not zero). One instance per block
/// count, so the CTR blocks of each stay in registers, side by side.
macro_rules! by_blocks {
    ($len:expr, $b:ident => $e:expr) => {
        by_blocks!($len, $b, _B1 => $e)
    };
    // `$b1` is `$b` + 1 (GCM's kernels: the blocks and J0's).
    ($len:expr, $b:ident, $b1:ident => $e:expr) => {
        match $len.div_ceil(16) {
            1 => { const $b: usize = 1; #[allow(dead_code)] const $b1: usize = 2; $e }
            2 => { const $b: usize = 2; #[allow(dead_code)] const $b1: usize = 3; $e }
            3 => { const $b: usize = 3; #[allow(dead_code)] const $b1: usize = 4; $e }
            4 => { const $b: usize = 4; #[allow(dead_code)] const $b1: usize = 5; $e }
            5 => { const $b: usize = 5; #[allow(dead_code)] const $b1: usize = 6; $e }
            6 => { const $b: usize = 6; #[allow(dead_code)] const $b1: usize = 7; $e }
            7 => { const $b: usize = 7; #[allow(dead_code)] const $b1: usize = 8; $e }
            8 => { const $b: usize = 8; #[allow(dead_code)] const $b1: usize = 9; $e }
            // An empty or over-long message here would have the kernel read
            // and write blocks that are not there: every caller rules both
            // out first, and this keeps it so.
            n => unreachable!("by_blocks: {n} blocks"),
        }
    };
}
const _: () = assert!(crate::backend::SHORT_MAX == 16 * 8);

use super::array;

// The layers, lowest first: each module uses only those above it in this
// list, and the three tiers (`ni`, `vaes256`, `vaes512`) never one another.
mod cpu;
mod load;
mod aes;
mod clmul;
mod siv_blocks;
mod lanes;
mod vaes;
mod pass128;
mod blocks;
mod pass256;
mod tier;
mod bulk;
mod short;
mod long;
mod group;
mod ni;
mod vaes256;
mod vaes512;
mod impls;
#[cfg(test)]
mod tests;

pub(crate) use aes::{Aes128, Aes256};
pub(crate) use clmul::Polyval;

use super::{Backend, Block, FromProof};
use cpu::Width;

/// The proof for one of this target's backends, if this CPU runs it.
pub(crate) fn detect(backend: Backend) -> Option<Features> {
    match backend {
        Backend::AesNiClmul => Features::detect(),
        Backend::AesNiVaes => Features::detect_wide(),
        _ => None,
    }
}

impl FromProof<[u8; 16]> for Aes128 {
    fn from_proof(proof: Features, key: &[u8; 16]) -> Self {
        Aes128::new(proof, key)
    }
}

impl FromProof<[u8; 32]> for Aes256 {
    fn from_proof(proof: Features, key: &[u8; 32]) -> Self {
        Aes256::new(proof, key)
    }
}

impl FromProof<Block> for Polyval {
    fn from_proof(proof: Features, h: &Block) -> Self {
        Polyval::new(proof, h)
    }
}

/// Proof that the CPU supports AES-NI, PCLMULQDQ, SSSE3 and SSE4.1, and, if
/// `avx`, AVX too (for the short kernels' AVX forms, `short.rs`), and the
/// tier its `width` names: at 256 bits AVX, AVX2, VAES and VPCLMULQDQ, at 512
/// bits AVX-512 F, BW and VL besides (with what rustc makes each imply;
/// `cpu.rs` says which).
///
/// Constructed only by [`Features::detect`] and [`Features::detect_wide`]
/// from the one detection in `cpu.rs`, and in tests from one of theirs with a
/// narrower width. The width is read once, where a key's trait method picks
/// its tier (`impls.rs`); no kernel asks for it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Features {
    avx: bool,
    width: Width,
}

impl Features {
    /// The proof for the `aesni-clmul` backend (the `ni` tier), and whether
    /// AVX is there too (every CPU with VAES, and most without since 2011:
    /// the short kernels take its forms).
    pub(crate) fn detect() -> Option<Self> {
        let tiers = cpu::Tiers::detect();
        tiers.base.then_some(Features { avx: tiers.avx, width: Width::W128 })
    }

    /// The proof for the `aesni-vaes` backend: also AVX, AVX2, VAES and
    /// VPCLMULQDQ; and whether its tier is `vaes512` or `vaes256`, which
    /// `cpu.rs` decides.
    pub(crate) fn detect_wide() -> Option<Self> {
        let tiers = cpu::Tiers::detect();
        let width = if tiers.zmm { Width::W512 } else { Width::W256 };
        tiers.wide.then_some(Features { avx: true, width })
    }

    /// [`Features::detect_wide`] with the 512-bit tier wherever the CPU can
    /// run it, even where `cpu.rs` chooses not to: for the tests that
    /// compare tiers.
    #[cfg(test)]
    pub(crate) fn detect_widest() -> Option<Self> {
        let tiers = cpu::Tiers::detect();
        let width = if tiers.zmm_capable { Width::W512 } else { Width::W256 };
        tiers.wide.then_some(Features { avx: true, width })
    }

    /// This proof for a narrower VAES tier (256 bits where it says 512), for
    /// the tests that compare tiers; the proof of the wider set covers it.
    #[cfg(test)]
    pub(crate) fn at_256(self) -> Self {
        assert!(self.width >= Width::W256, "a 128-bit proof does not cover VAES");
        Features { width: Width::W256, ..self }
    }

    /// The widest registers this proof lets the kernels use: 128, 256 or 512 bits.
    pub(crate) fn register_bits(self) -> u32 {
        match self.width {
            Width::W128 => 128,
            Width::W256 => 256,
            Width::W512 => 512,
        }
    }

    /// Whether this proof covers AVX (always at 256 and 512 bits:
    /// [`Features::detect_wide`] sets it).
    pub(crate) fn avx(self) -> bool {
        self.avx
    }

    /// The tier: read by `impls.rs` alone, where each trait method picks the
    /// tier's kernels once per call.
    pub(crate) fn width(self) -> Width {
        self.width
    }
}
