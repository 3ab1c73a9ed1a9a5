//! The backend's contract implemented for these schedules: each trait
//! method calls its kernel (`kernels.rs`), pass (`passes.rs`) or primitive.
//! The top layer of the AArch64 backend; nothing below imports from here.

use super::aes::Schedule;
use super::passes::ctr_hash;
use super::polyval::{Powers, dot};
use super::{Aes128, Aes256, Polyval, kernels, load, store};
use crate::backend::{Block, InOut};

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
                unsafe { self.ctr32::<false>(load(counter), data) }
            }
            fn ctr32be(&self, counter: &Block, data: &mut [u8]) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.ctr32::<true>(load(counter), data) }
            }
        }

        impl crate::backend::Hashes for $name {
            type Polyval = Polyval;
            fn polyval(&self, h: &Block) -> Polyval {
                Polyval::new(self.features, h)
            }
            type GhashTable = Powers;
            fn ghash_table(&self, h: &Block) -> Powers {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { Powers::new(load(h)) }
            }
            fn ghash_update(table: &Powers, hash: &mut Polyval, data: &[u8]) {
                // SAFETY: a Polyval holds the Features proof of CPU support.
                unsafe { hash.update::<true>(data, Some(table)) }
            }
        }

        impl crate::backend::FusedKernels for $name {
            fn ctr32be_then_ghash(
                &self,
                counter: &Block,
                data: &mut [u8],
                hash: &mut Polyval,
                table: &Powers,
            ) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                hash.s = unsafe {
                    ctr_hash::<$nr, true, true, true>(self, load(counter), data, hash.s, table, None)
                };
            }
            fn ghash_then_ctr32be(
                &self,
                counter: &Block,
                data: &mut [u8],
                hash: &mut Polyval,
                table: &Powers,
            ) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                hash.s = unsafe {
                    ctr_hash::<$nr, true, false, true>(self, load(counter), data, hash.s, table, None)
                };
            }
            fn ctr32le_then_polyval(&self, counter: &Block, data: &mut [u8], hash: &mut Polyval) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { ctr32le_then_polyval(self, counter, data, hash) }
            }
            fn derive_record_keys_fused(&self, nonce: &[u8; 12]) -> Option<(Self, Polyval)> {
                // SAFETY: a schedule holds the Features proof of CPU support.
                Some(unsafe { kernels::derive::<$nr, { 2 + $key_len / 8 }>(self, nonce) })
            }
            #[inline]
            fn seal_fused(&self, nonce: &[u8; 12], aad: &[u8], data: InOut<'_>) -> Option<Block> {
                // In place (out of place, the input copied first).
                let data = data.into_in_place();
                // SAFETY: a schedule holds the Features proof of CPU support.
                Some(unsafe { kernels::seal::<$nr, { 2 + $key_len / 8 }>(self, nonce, aad, data) })
            }
            #[inline]
            fn open_fused(
                &self,
                nonce: &[u8; 12],
                aad: &[u8],
                data: InOut<'_>,
                tag: &Block,
            ) -> Option<Block> {
                let data = data.into_in_place();
                // SAFETY: a schedule holds the Features proof of CPU support.
                Some(unsafe { kernels::open::<$nr, { 2 + $key_len / 8 }>(self, nonce, aad, data, tag) })
            }
            #[inline]
            fn gcm_fused<const OPEN: bool>(
                &self,
                table: &Powers,
                iv: &[u8; 12],
                aad: &[u8],
                data: InOut<'_>,
            ) -> Option<Block> {
                let data = data.into_in_place();
                // SAFETY: a schedule holds the Features proof of CPU support.
                Some(unsafe { kernels::gcm::<$nr, OPEN>(self, table, iv, aad, data) })
            }
        }

        /// No batch kernels yet: a batch runs one message at a time,
        /// each through the fused kernels above.
        impl crate::backend::BatchKernels for $name {
            type LaneKeys = ();
        }
    };
}

aes_impl!(Aes128, 16, 10);
aes_impl!(Aes256, 32, 14);

/// GCM-SIV open's pass with as many powers of the hash's key as the data
/// has blocks (up to eight), made here and wiped when it returns.
#[target_feature(enable = "aes,neon")]
fn ctr32le_then_polyval<const NR: usize>(
    aes: &Schedule<NR>,
    counter: &Block,
    data: &mut [u8],
    hash: &mut Polyval,
) {
    if data.is_empty() {
        return;
    }
    let mut powers = Powers::zeroed();
    powers.fill(hash.h, data.len().div_ceil(16));
    hash.s = ctr_hash::<NR, false, true, false>(aes, load(counter), data, hash.s, &powers, None);
}

impl crate::backend::Polyval for Polyval {
    fn update_blocks(&mut self, blocks: &[u8]) {
        debug_assert_eq!(blocks.len() % 16, 0);
        // SAFETY: a Polyval holds the Features proof of CPU support.
        unsafe { self.update::<false>(blocks, None) }
    }

    fn update_padded(&mut self, data: &[u8]) {
        // SAFETY: a Polyval holds the Features proof of CPU support.
        unsafe { self.update::<false>(data, None) }
    }

    fn update_padded_reversed(&mut self, data: &[u8]) {
        // SAFETY: a Polyval holds the Features proof of CPU support.
        unsafe { self.update::<true>(data, None) }
    }

    fn dot(&self, a: &Block, b: &Block) -> Block {
        let mut out = [0u8; 16];
        // SAFETY: a Polyval holds the Features proof of CPU support.
        unsafe { store(&mut out, dot(load(a), load(b))) };
        out
    }

    fn key(&self) -> Block {
        let mut out = [0u8; 16];
        store(&mut out, self.h);
        out
    }

    fn set_state(&mut self, s: &Block) {
        self.s = load(s);
    }

    fn finalize(&self) -> Block {
        let mut out = [0u8; 16];
        store(&mut out, self.s);
        out
    }
}
