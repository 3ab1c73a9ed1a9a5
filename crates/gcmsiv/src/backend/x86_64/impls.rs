//! The backend's contract implemented for AES-NI schedules: each trait
//! method calls the kernel (`short.rs`, `long.rs`, `group.rs`) or the bulk
//! pass (`bulk.rs`) for its lengths. The top layer of the x86-64 backend;
//! nothing below imports from here.

use super::Polyval;
use super::aes::{Schedule, derivation_blocks, expand128, expand256};
use super::bulk::GcmTable;
use super::clmul::dot;
use super::lanes::LaneKeyMemory;
use super::short;
use super::{Aes128, Aes256};
use crate::backend::{Block, LaneLimits, SHORT_MAX};
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// The longest message or AAD a batch's group kernel (`group.rs`) takes
/// when every lane has the same lengths, one lane per register / lanes in
/// pairs (`aesni-vaes`). Past these, one message at a time is faster: its
/// aggregated POLYVAL and 8-block CTR beat the lanes' Horner steps and
/// block-by-block CTR by more than the set-up the group saves (measured
/// crossovers, seal and open, both key sizes: about 300-470 bytes and
/// 730-990 bytes). At 200 bytes a group takes 0.47-0.93x the cycles of one
/// message at a time.
const LANES_MAX: usize = 256;
const WIDE_LANES_MAX: usize = 512;
/// The same where the CPU has AVX-512 and the group's POLYVAL runs four
/// lanes per instruction (`wide.rs`, `QuadHash`): seals up to 1 KiB (768 B
/// 1.27x, 1 KiB 1.10-1.14x one message at a time in a quiet phase of a
/// shared host, 0.88-0.93x while a neighbour kept the core's vector units
/// busy; 1.5 KiB 0.90-0.97x), opens
/// still up to 512 B (a single open's stitched pass is the faster from 768
/// B: 0.99-1.03x there, 0.85-0.91x at 1 KiB).
const ZMM_SEAL_LANES_MAX: usize = 1024;

impl<const NR: usize> Schedule<NR> {
    /// [`BatchKernels::lane_limits`](crate::backend::BatchKernels::lane_limits) for this CPU.
    /// Lanes of unequal lengths each take the longest one's CTR steps, and
    /// past the short ones that waste costs more than the group saves (a
    /// 16-512-byte mix measured 0.73-0.83x one message at a time), so only
    /// groups of equal lengths go past [`SHORT_MAX`]. Short lanes of unequal
    /// lengths hash one lane per register in a loop of their own; without
    /// VAES that loop made AES-256 groups of a 16-128-byte mix 0.92-0.93x
    /// one message at a time (AES-128 1.00-1.05x), so they go one by one; and
    /// since the one-message kernels take AVX's forms, so do AES-128 seals of
    /// such a mix where the CPU has AVX (grouped, 0.93x; opens grouped 1.00x
    /// against 0.97x one by one, so they stay grouped).
    fn lane_limits(&self, seal: bool) -> LaneLimits {
        let equal_max = if self.features.zmm() && seal {
            ZMM_SEAL_LANES_MAX
        } else if self.features.wide() {
            WIDE_LANES_MAX
        } else {
            LANES_MAX
        };
        let mixed_short = self.features.wide() || (NR == 10 && !(seal && self.features.avx()));
        LaneLimits { equal_max, mixed_short }
    }

    /// RFC 8452 section 4 in registers: the derivation blocks are encrypted
    /// together, and the record keys (the first halves, paired with
    /// `unpacklo_epi64`) go straight into key expansion and POLYVAL.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    fn derive<const N: usize, const M: usize>(&self, nonce: &[u8; 12]) -> (Schedule<M>, Polyval) {
        let mut b = derivation_blocks::<N>(nonce);
        self.encrypt_n(&mut b);
        let h = _mm_unpacklo_epi64(b[0], b[1]);
        let rk = match N {
            4 => expand128(_mm_unpacklo_epi64(b[2], b[3])),
            _ => expand256(_mm_unpacklo_epi64(b[2], b[3]), _mm_unpacklo_epi64(b[4], b[5])),
        };
        let hash = Polyval::from_register(self.features, h);
        b.zeroize();
        (Schedule { rk, features: self.features }, hash)
    }
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
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.ctr32::<false, false>(counter, data) }
            }
            fn ctr32be(&self, counter: &Block, data: &mut [u8]) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.ctr32::<true, false>(counter, data) }
            }
        }

        impl crate::backend::Hashes for $name {
            type Polyval = Polyval;
            fn polyval(&self, h: &Block) -> Polyval {
                Polyval::new(self.features, h)
            }
            type GhashTable = GcmTable<$nr>;
            fn ghash_table(&self, h: &Block) -> GcmTable<$nr> {
                // SAFETY: a schedule holds the Features proof; 16 readable bytes.
                unsafe { GcmTable::new(self, _mm_loadu_si128(h.as_ptr().cast())) }
            }
            fn ghash_update(table: &GcmTable<$nr>, hash: &mut Polyval, data: &[u8]) {
                // SAFETY: a Polyval holds the Features proof of CPU support.
                unsafe { hash.update_padded_blocks::<true>(data, Some(&table.powers)) }
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
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.ctr32be_ghash::<false>(counter, data, hash, table) }
            }
            fn ghash_then_ctr32be(
                &self,
                counter: &Block,
                data: &mut [u8],
                hash: &mut Polyval,
                table: &GcmTable<$nr>,
            ) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.ctr32be_ghash::<true>(counter, data, hash, table) }
            }
            fn ctr32le_then_polyval(&self, counter: &Block, data: &mut [u8], hash: &mut Polyval) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.ctr32le_then_polyval(counter, data, hash) }
            }
            fn derive_record_keys_fused(&self, nonce: &[u8; 12]) -> Option<(Self, Polyval)> {
                // SAFETY: a schedule holds the Features proof of CPU support.
                Some(unsafe { self.derive::<{ 2 + $key_len / 8 }, $nr>(nonce) })
            }
            #[inline]
            fn seal_fused(&self, nonce: &[u8; 12], aad: &[u8], data: &mut [u8]) -> Option<Block> {
                // SAFETY (both): a schedule holds the Features proof; lengths
                // checked for the short kernel.
                Some(if aad.len() <= SHORT_MAX && data.len() <= SHORT_MAX {
                    unsafe { short::seal_one::<$nr, { 2 + $key_len / 8 }>(self, nonce, aad, data) }
                } else {
                    unsafe { self.seal_long::<{ 2 + $key_len / 8 }>(nonce, aad, data) }
                })
            }
            #[inline]
            fn open_fused(
                &self,
                nonce: &[u8; 12],
                aad: &[u8],
                data: &mut [u8],
                tag: &Block,
            ) -> Option<Block> {
                // SAFETY (both): as in `seal_fused`.
                Some(if aad.len() <= SHORT_MAX && data.len() <= SHORT_MAX {
                    unsafe { short::open_one::<$nr, { 2 + $key_len / 8 }>(self, nonce, aad, data, tag) }
                } else {
                    unsafe { self.open_long::<{ 2 + $key_len / 8 }>(nonce, aad, data, tag) }
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
                data: &mut [u8],
            ) -> Option<Block> {
                // SAFETY (both): a schedule holds the Features proof; lengths
                // checked for the short kernel.
                Some(if aad.len() <= SHORT_MAX && data.len() <= SHORT_MAX {
                    unsafe { short::gcm_one::<$nr, OPEN>(self, &table.powers, iv, aad, data) }
                } else {
                    unsafe { self.gcm_long::<OPEN>(table, iv, aad, data) }
                })
            }
        }

        impl crate::backend::BatchKernels for $name {
            type LaneKeys = LaneKeyMemory;
            fn wide_groups(&self) -> bool {
                // Sixteen lanes one per register too for AES-256, whose
                // derivation is 24 blocks per quad: seals 4-5% faster, opens
                // 1-3%; for AES-128 sixteen measured 6-16 cycles slower.
                self.features.wide() || $nr == 14
            }
            fn lane_limits(&self, seal: bool) -> Option<LaneLimits> {
                Some(Schedule::lane_limits(self, seal))
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
                Some(unsafe { self.seal_group::<{ 2 + $key_len / 8 }, L>(nonces, aads, data, keys) })
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
                Some(unsafe { self.open_group::<{ 2 + $key_len / 8 }, L>(nonces, aads, data, tags, keys) })
            }
        }
    };
}

aes_impl!(Aes128, 16, 10);
aes_impl!(Aes256, 32, 14);

impl crate::backend::Polyval for Polyval {
    fn update_blocks(&mut self, blocks: &[u8]) {
        debug_assert_eq!(blocks.len() % 16, 0);
        // SAFETY: a Polyval holds the Features proof of CPU support; the trait
        // contract gives whole blocks.
        unsafe { self.update::<false>(blocks) }
    }

    fn update_padded(&mut self, data: &[u8]) {
        // SAFETY: a Polyval holds the Features proof of CPU support.
        unsafe { self.update_padded_blocks::<false>(data, None) }
    }

    fn update_padded_reversed(&mut self, data: &[u8]) {
        // SAFETY: a Polyval holds the Features proof of CPU support.
        unsafe { self.update_padded_blocks::<true>(data, None) }
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
