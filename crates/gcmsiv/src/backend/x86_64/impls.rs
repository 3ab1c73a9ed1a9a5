//! The backend's contract implemented for AES-NI schedules: each trait
//! method calls the kernel (`short.rs`, `long.rs`, `group.rs`) or the bulk
//! pass (`bulk.rs`) for its lengths. The top layer of the x86-64 backend;
//! nothing below imports from here.

use super::Polyval;
use super::aes::{Schedule, derivation_blocks, expand128, expand256};
use super::bulk::{
    GcmTable, ctr32, ctr32be_ghash, ctr32le_then_polyval, polyval_update, polyval_update_padded,
};
use super::clmul::dot;
use super::cpu::Width;
use super::lanes::LaneKeyMemory;
use super::long::{gcm_long, open_long, seal_long};
use super::ni::Ni;
use super::short;
use super::tier::Tier;
use super::vaes256::Vaes256;
use super::vaes512::Vaes512;
use super::{Aes128, Aes256};
use crate::backend::{Block, InOut, LaneLimits, SHORT_MAX};
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// Runs `$e` with `$t` the tier type of `$features`'s width: the one place
/// the x86-64 backend reads a key's width, once per call, so that every
/// kernel below is compiled for one tier and asks nothing again.
macro_rules! on_tier {
    ($features:expr, $t:ident => $e:expr) => {
        match $features.width() {
            Width::W128 => {
                type $t = Ni;
                $e
            }
            Width::W256 => {
                type $t = Vaes256;
                $e
            }
            Width::W512 => {
                type $t = Vaes512;
                $e
            }
        }
    };
}

/// RFC 8452 section 4 in registers: the derivation blocks are encrypted
/// together, and the record keys (the first halves, paired with
/// `unpacklo_epi64`) go straight into key expansion and POLYVAL.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn derive<const NR: usize, const N: usize, const M: usize>(
    key: &Schedule<NR>,
    nonce: &[u8; 12],
) -> (Schedule<M>, Polyval) {
    let mut b = derivation_blocks::<N>(nonce);
    key.encrypt_n(&mut b);
    let h = _mm_unpacklo_epi64(b[0], b[1]);
    let rk = match N {
        4 => expand128(_mm_unpacklo_epi64(b[2], b[3])),
        _ => expand256(_mm_unpacklo_epi64(b[2], b[3]), _mm_unpacklo_epi64(b[4], b[5])),
    };
    let hash = Polyval::from_register(key.features, h);
    b.zeroize();
    (Schedule { rk, features: key.features }, hash)
}

/// `long.rs`'s `seal_long` at the key's tier, out of line, so that the
/// fused methods, inlined into the mode, keep one call in their long branch
/// (not one per tier). Without target features, so that each tier's kernel
/// stays a function of its own (inlined here, three of them made one
/// function too large for the compiler to keep their helpers inlined).
///
/// # Safety
/// As `seal_long`'s, with the key's proof for its tier.
#[inline(never)]
unsafe fn seal_long_at<const NR: usize, const NB: usize>(
    key: &Schedule<NR>,
    nonce: &[u8; 12],
    aad: &[u8],
    data: InOut<'_>,
) -> Block {
    // SAFETY: the caller's promise.
    on_tier!(key.features, T => unsafe { seal_long::<T, NR, NB>(key, nonce, aad, data) })
}

/// `long.rs`'s `open_long` at the key's tier, out of line (see
/// [`seal_long_at`]).
///
/// # Safety
/// As `open_long`'s, with the key's proof for its tier.
#[inline(never)]
unsafe fn open_long_at<const NR: usize, const NB: usize>(
    key: &Schedule<NR>,
    nonce: &[u8; 12],
    aad: &[u8],
    data: InOut<'_>,
    tag: &Block,
) -> Block {
    // SAFETY: the caller's promise.
    on_tier!(key.features, T => unsafe { open_long::<T, NR, NB>(key, nonce, aad, data, tag) })
}

/// `long.rs`'s `gcm_long` at the key's tier, out of line (see
/// [`seal_long_at`]).
///
/// # Safety
/// As `gcm_long`'s, with the key's proof for its tier.
#[inline(never)]
unsafe fn gcm_long_at<const NR: usize, const OPEN: bool>(
    key: &Schedule<NR>,
    table: &GcmTable<NR>,
    iv: &[u8; 12],
    aad: &[u8],
    data: InOut<'_>,
) -> Block {
    // SAFETY: the caller's promise.
    on_tier!(key.features, T => unsafe { gcm_long::<T, NR, OPEN>(key, table, iv, aad, data) })
}

macro_rules! aes_impl {
    ($name:ident, $key_len:literal, $nr:literal) => {
        impl crate::backend::BlockCipher for $name {
            const KEY_LEN: usize = $key_len;
            fn rekey(&self, key: &[u8]) -> Self {
                let key: &[u8; $key_len] = key.try_into().expect("internal error: record key length");
                Self::new(self.features, key)
            }
            fn encrypt_blocks(&self, blocks: &mut [Block]) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.encrypt_blocks(blocks) }
            }
            fn ctr32le(&self, counter: &Block, data: &mut [u8]) {
                // SAFETY: a schedule holds the Features proof of its tier.
                on_tier!(self.features, T => unsafe { ctr32::<T, _, false, false>(self, counter, InOut::in_place(data)) })
            }
            fn ctr32be(&self, counter: &Block, data: &mut [u8]) {
                // SAFETY: a schedule holds the Features proof of its tier.
                on_tier!(self.features, T => unsafe { ctr32::<T, _, true, false>(self, counter, InOut::in_place(data)) })
            }
        }

        impl crate::backend::Hashes for $name {
            type Polyval = Polyval;
            fn polyval(&self, h: &Block) -> Polyval {
                Polyval::new(self.features, h)
            }
            type GhashTable = GcmTable<$nr>;
            fn ghash_table(&self, h: &Block) -> GcmTable<$nr> {
                // SAFETY: a schedule holds the Features proof of its tier; 16
                // readable bytes.
                on_tier!(self.features, T => unsafe {
                    GcmTable::new::<T>(self, _mm_loadu_si128(h.as_ptr().cast()))
                })
            }
            fn ghash_update(table: &GcmTable<$nr>, hash: &mut Polyval, data: &[u8]) {
                // SAFETY: a Polyval holds the Features proof of its tier.
                on_tier!(hash.features, T => unsafe {
                    polyval_update_padded::<T, true>(hash, data, Some(&table.powers))
                })
            }
        }

        impl crate::backend::FusedKernels for $name {
            fn ctr32be_then_ghash(
                &self,
                counter: &Block,
                data: &mut [u8],
                hash: &mut Polyval,
                table: &GcmTable<$nr>,
            ) {
                // SAFETY: a schedule holds the Features proof of its tier.
                on_tier!(self.features, T => unsafe { ctr32be_ghash::<T, _, false>(self, counter, data, hash, table) })
            }
            fn ghash_then_ctr32be(
                &self,
                counter: &Block,
                data: &mut [u8],
                hash: &mut Polyval,
                table: &GcmTable<$nr>,
            ) {
                // SAFETY: a schedule holds the Features proof of its tier.
                on_tier!(self.features, T => unsafe { ctr32be_ghash::<T, _, true>(self, counter, data, hash, table) })
            }
            fn ctr32le_then_polyval(&self, counter: &Block, data: &mut [u8], hash: &mut Polyval) {
                // SAFETY: a schedule holds the Features proof of its tier.
                on_tier!(self.features, T => unsafe { ctr32le_then_polyval::<T, _>(self, counter, data, hash) })
            }
            fn derive_record_keys_fused(&self, nonce: &[u8; 12]) -> Option<(Self, Polyval)> {
                // SAFETY: a schedule holds the Features proof of CPU support.
                Some(unsafe { derive::<$nr, { 2 + $key_len / 8 }, $nr>(self, nonce) })
            }
            #[inline]
            fn seal_fused(&self, nonce: &[u8; 12], aad: &[u8], data: InOut<'_>) -> Option<Block> {
                // SAFETY (both): a schedule holds the Features proof; lengths
                // checked for the short kernel, which works in place (a
                // short message's copy costs next to nothing).
                Some(if aad.len() <= SHORT_MAX && data.len() <= SHORT_MAX {
                    let data = data.into_in_place();
                    unsafe { short::seal_one::<$nr, { 2 + $key_len / 8 }>(self, nonce, aad, data) }
                } else {
                    unsafe { seal_long_at::<$nr, { 2 + $key_len / 8 }>(self, nonce, aad, data) }
                })
            }
            #[inline]
            fn open_fused(
                &self,
                nonce: &[u8; 12],
                aad: &[u8],
                data: InOut<'_>,
                tag: &Block,
            ) -> Option<Block> {
                // SAFETY (both): as in `seal_fused`.
                Some(if aad.len() <= SHORT_MAX && data.len() <= SHORT_MAX {
                    let data = data.into_in_place();
                    unsafe { short::open_one::<$nr, { 2 + $key_len / 8 }>(self, nonce, aad, data, tag) }
                } else {
                    unsafe { open_long_at::<$nr, { 2 + $key_len / 8 }>(self, nonce, aad, data, tag) }
                })
            }
            #[inline]
            fn seal_layout(
                &self,
                h: &Block,
                layout: &crate::backend::SivLayout,
                aad: &[u8],
                data: &mut [u8],
            ) -> Option<Block> {
                // SAFETY: a schedule holds the Features proof; lengths checked
                // for the short kernel.
                (aad.len() <= SHORT_MAX && data.len() <= SHORT_MAX)
                    .then(|| unsafe { short::seal_layout::<$nr>(self, h, layout, aad, data) })
            }
            #[inline]
            fn open_layout(
                &self,
                h: &Block,
                layout: &crate::backend::SivLayout,
                aad: &[u8],
                data: &mut [u8],
                tag: &Block,
            ) -> Option<Block> {
                // SAFETY: as in `seal_layout`.
                (aad.len() <= SHORT_MAX && data.len() <= SHORT_MAX)
                    .then(|| unsafe { short::open_layout::<$nr>(self, h, layout, aad, data, tag) })
            }
            #[inline]
            fn gcm_fused<const OPEN: bool>(
                &self,
                table: &GcmTable<$nr>,
                iv: &[u8; 12],
                aad: &[u8],
                data: InOut<'_>,
            ) -> Option<Block> {
                // SAFETY (both): a schedule holds the Features proof; lengths
                // checked for the short kernel (in place, as in `seal_fused`).
                Some(if aad.len() <= SHORT_MAX && data.len() <= SHORT_MAX {
                    let data = data.into_in_place();
                    unsafe { short::gcm_one::<$nr, OPEN>(self, &table.powers, iv, aad, data) }
                } else {
                    unsafe { gcm_long_at::<$nr, OPEN>(self, table, iv, aad, data) }
                })
            }
        }

        impl crate::backend::BatchKernels for $name {
            type LaneKeys = LaneKeyMemory;
            fn wide_groups(&self) -> bool {
                on_tier!(self.features, T => T::wide_groups($nr))
            }
            fn lane_limits(&self, seal: bool) -> Option<LaneLimits> {
                Some(on_tier!(self.features, T => T::lane_limits($nr, seal, self.features.avx())))
            }
            fn seal_lanes<const L: usize>(
                &self,
                nonces: [&[u8; 12]; L],
                aads: [&[u8]; L],
                data: [&mut [u8]; L],
                keys: &mut LaneKeyMemory,
            ) -> Option<[Block; L]> {
                if L % 4 != 0 {
                    return None;
                }
                // SAFETY: a schedule holds the Features proof; a multiple of
                // 4 lanes (any lengths are correct; the caller keeps them
                // within `lane_limits`, where the group is the faster).
                Some(on_tier!(self.features, T => unsafe {
                    T::seal_group::<$nr, { 2 + $key_len / 8 }, L>(self, nonces, aads, data, keys)
                }))
            }
            fn open_lanes<const L: usize>(
                &self,
                nonces: [&[u8; 12]; L],
                aads: [&[u8]; L],
                data: [&mut [u8]; L],
                tags: &[Block; L],
                keys: &mut LaneKeyMemory,
            ) -> Option<[Block; L]> {
                if L % 4 != 0 {
                    return None;
                }
                // SAFETY: as in `seal_lanes`.
                Some(on_tier!(self.features, T => unsafe {
                    T::open_group::<$nr, { 2 + $key_len / 8 }, L>(self, nonces, aads, data, tags, keys)
                }))
            }
        }
    };
}

aes_impl!(Aes128, 16, 10);
aes_impl!(Aes256, 32, 14);

impl crate::backend::Polyval for Polyval {
    fn update_blocks(&mut self, blocks: &[u8]) {
        debug_assert_eq!(blocks.len() % 16, 0);
        // SAFETY: a Polyval holds the Features proof of its tier; the trait
        // contract gives whole blocks.
        on_tier!(self.features, T => unsafe { polyval_update::<T, false>(self, blocks) })
    }

    fn update_padded(&mut self, data: &[u8]) {
        // SAFETY: a Polyval holds the Features proof of its tier.
        on_tier!(self.features, T => unsafe { polyval_update_padded::<T, false>(self, data, None) })
    }

    fn update_padded_reversed(&mut self, data: &[u8]) {
        // SAFETY: a Polyval holds the Features proof of its tier.
        on_tier!(self.features, T => unsafe { polyval_update_padded::<T, true>(self, data, None) })
    }

    fn dot(&self, a: &Block, b: &Block) -> Block {
        let mut out = [0u8; 16];
        // SAFETY: a Polyval holds the Features proof of CPU support; 16-byte
        // loads and store.
        unsafe {
            let r = dot(_mm_loadu_si128(a.as_ptr().cast()), _mm_loadu_si128(b.as_ptr().cast()));
            _mm_storeu_si128(out.as_mut_ptr().cast(), r);
        }
        out
    }

    fn key(&self) -> Block {
        let mut out = [0u8; 16];
        // SAFETY: 16 writable bytes; SSE2 is baseline on x86-64.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), self.h) };
        out
    }

    fn set_state(&mut self, s: &Block) {
        // SAFETY: 16 readable bytes; SSE2 is baseline on x86-64.
        self.s = unsafe { _mm_loadu_si128(s.as_ptr().cast()) };
    }

    fn finalize(&self) -> Block {
        let mut out = [0u8; 16];
        // SAFETY: 16 writable bytes; SSE2 is baseline on x86-64.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), self.s) };
        out
    }
}
