//! The AArch64 backend: the ARMv8 Cryptographic Extension's AESE/AESMC for
//! AES and PMULL/PMULL2 (64x64-bit carry-less multiply) for POLYVAL and
//! GHASH, in 128-bit NEON registers. The files, lowest first (each uses only
//! those before it): `aes.rs` (key expansion, blocks, CTR), `polyval.rs`
//! (POLYVAL with the powers of H, one reduction per eight blocks),
//! `passes.rs` (CTR and the hash stitched in one pass), `kernels.rs`
//! (record keys, whole GCM-SIV and GCM messages) and `impls.rs` (the
//! backend traits).
//!
//! Every function that uses these instructions carries
//! `#[target_feature(enable = "aes,neon")]` (in Rust's AArch64 features,
//! "aes" covers PMULL too), exactly what [`detect`] checks. The only way to
//! reach them from safe code is through a type holding a [`Features`] value,
//! which exists only after detection succeeded: that value is the proof each
//! `// SAFETY:` comment names.

/// Evaluates `$e` with `$b` a constant: the number of blocks of `$len` bytes
/// (1..=8; `$len` not zero). One instance per block count, so that the
/// blocks of each stay in registers, side by side.
macro_rules! by_blocks {
    ($len:expr, $b:ident => $e:expr) => {
        match $len.div_ceil(16) {
            1 => { const $b: usize = 1; $e }
            2 => { const $b: usize = 2; $e }
            3 => { const $b: usize = 3; $e }
            4 => { const $b: usize = 4; $e }
            5 => { const $b: usize = 5; $e }
            6 => { const $b: usize = 6; $e }
            7 => { const $b: usize = 7; $e }
            8 => { const $b: usize = 8; $e }
            // An empty or over-long rest here would have the kernel read and
            // write blocks that are not there: every caller rules both out.
            n => unreachable!("by_blocks: {n} blocks"),
        }
    };
}

mod aes;
mod polyval;
mod passes;
mod kernels;
mod impls;
#[cfg(test)]
mod tests;

pub(crate) use aes::{Aes128, Aes256};
pub(crate) use polyval::Polyval;

use super::{Backend, Block, FromProof};
use core::arch::aarch64::*;

/// One block in a NEON register, bytes in the spec's order.
pub(super) type V = uint8x16_t;

/// Proof that the CPU supports AES and PMULL (and NEON, which every AArch64
/// CPU has). Constructed only by [`detect`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Features {
    _proof: (),
}

impl Features {
    /// The widest registers the kernels use: NEON's 128 bits.
    pub(crate) fn register_bits(self) -> u32 {
        128
    }

    /// Whether this CPU runs the backend: asked of the operating system with
    /// `std` (the standard library caches the answer), or, without it, what
    /// the build was compiled for.
    fn cpu_has_features() -> bool {
        #[cfg(feature = "std")]
        {
            std::arch::is_aarch64_feature_detected!("aes") && std::arch::is_aarch64_feature_detected!("pmull")
        }
        #[cfg(not(feature = "std"))]
        {
            cfg!(all(target_feature = "aes", target_feature = "neon"))
        }
    }
}

/// The proof for one of this target's backends, if this CPU runs it.
pub(crate) fn detect(backend: Backend) -> Option<Features> {
    match backend {
        Backend::Armv8AesPmull => Features::cpu_has_features().then_some(Features { _proof: () }),
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

/// Loads a block. NEON is part of every AArch64 CPU and of the target's
/// baseline features, so these helpers need no proof.
#[inline]
fn load(b: &Block) -> V {
    // SAFETY: `b` is 16 readable bytes; NEON is baseline on AArch64.
    unsafe { vld1q_u8(b.as_ptr()) }
}

/// [`load`] of a key, read per call from the long-lived object that holds
/// it: opaque to the compiler, which otherwise loads a key a caller uses twice
/// once and keeps it in a stack slot across the calls in between (GCM's J0
/// and tag for a nonce other than 96 bits), where no wipe reaches it.
#[inline]
fn load_opaque(b: &Block) -> V {
    let x: V;
    // SAFETY: reads the 16 bytes of `b`; no other memory, stack or flags.
    unsafe {
        core::arch::asm!(
            "ldr {x:q}, [{p}]",
            x = out(vreg) x,
            p = in(reg) b.as_ptr(),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    x
}

/// Stores a block.
#[inline]
fn store(b: &mut Block, x: V) {
    // SAFETY: `b` is 16 writable bytes; NEON is baseline on AArch64.
    unsafe { vst1q_u8(b.as_mut_ptr(), x) }
}

/// Loads up to 16 bytes, zero-padded.
#[inline]
fn load_padded(bytes: &[u8]) -> V {
    match <&Block>::try_from(bytes) {
        Ok(b) => load(b),
        Err(_) => {
            let mut b = [0u8; 16];
            b[..bytes.len()].copy_from_slice(bytes);
            load(&b)
        }
    }
}

/// Stores the first `out.len()` (at most 16) bytes of `x`.
#[inline]
fn store_partial(out: &mut [u8], x: V) {
    match <&mut Block>::try_from(&mut *out) {
        Ok(b) => store(b, x),
        Err(_) => {
            let mut b = [0u8; 16];
            store(&mut b, x);
            let n = out.len();
            out.copy_from_slice(&b[..n]);
        }
    }
}
