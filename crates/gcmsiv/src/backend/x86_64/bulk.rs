//! The bulk passes with the one choice of register width: each runs the
//! 512-, 256- or 128-bit pass its schedule's [`Features`] allow
//! (`pass_wide.rs`, `pass128.rs`), and the 128-bit one for what the wider
//! passes leave. Everything above this file asks here, never a pass of one
//! width.

use super::aes::Schedule;
use super::clmul::{Powers, WIDTH, aggregate, dot};
use super::load::byte_reverse_mask;
use super::pass128::Stitch;
use super::wide::Keys512;
use super::{Features, Polyval, array};
use crate::backend::Block;
use core::arch::x86_64::*;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// AES-GCM's per-key table: the powers H^1..H^8 of the GHASH key, and where
/// the CPU has AVX-512 the round keys broadcast for the 512-bit stitched
/// pass ([`Keys512`]), both made once per key and wiped with it.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct GcmTable<const NR: usize> {
    pub(super) powers: Powers,
    keys: Option<Keys512<NR>>,
}

impl<const NR: usize> GcmTable<NR> {
    /// The table for `schedule`, whose GHASH key is `h`.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn new(schedule: &Schedule<NR>, h: __m128i) -> Self {
        // SAFETY (`Keys512::empty`): filled just below, before any pass.
        let mut table = GcmTable {
            powers: Powers::new(h),
            keys: schedule.features.zmm().then(|| unsafe { Keys512::empty() }),
        };
        if let Some(keys) = &mut table.keys {
            // SAFETY: `zmm` proves AVX-512 F, BW and VL, and VAES besides.
            unsafe { keys.fill(&schedule.rk) };
        }
        table
    }

    pub(super) fn keys(&self) -> Option<&Keys512<NR>> {
        self.keys.as_ref()
    }
}

impl<const NR: usize> Schedule<NR> {
    /// CTR over `data` with a 32-bit counter: little-endian in the first four
    /// bytes (GCM-SIV) or, if `BE`, big-endian in the last four (GCM).
    /// `PUBLIC` says the counter's value is public (GCM with a 96-bit IV),
    /// which lets the 512- and 256-bit passes branch on it (`wide.rs`,
    /// `ChunkCounters`); a counter derived from the key (GCM's J0 for other
    /// IV lengths) must go without.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) fn ctr32<const BE: bool, const PUBLIC: bool>(&self, counter: &Block, data: &mut [u8]) {
        if data.is_empty() {
            // The tail after a bulk pass that ended on a chunk boundary: the
            // calls below cost an 8 KiB open 20-30 cycles to do nothing.
            return;
        }
        if self.features.wide() {
            // SAFETY: `wide` proves AVX2 and VAES (`Features::detect_wide`).
            let done = unsafe { self.ctr32_vaes::<BE, PUBLIC>(counter, data) };
            if done > 0 {
                let step = (done / 16) as u32;
                let next = if BE {
                    crate::backend::counter_add_be32(counter, step)
                } else {
                    crate::backend::counter_add_le32(counter, step)
                };
                return self.ctr32_narrow::<BE>(&next, &mut data[done..]);
            }
        }
        self.ctr32_narrow::<BE>(counter, data)
    }

    /// GCM-SIV decryption in one pass: CTR with POLYVAL of the plaintext
    /// stitched in (see `pass128.rs` and `pass_wide.rs`), then the partial tail.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn ctr32le_then_polyval(&self, counter: &Block, data: &mut [u8], hash: &mut Polyval) {
        let mut done = 0;
        if data.len() >= 16 * WIDTH {
            let powers = Powers::new(hash.key());
            // SAFETY: same features.
            done = unsafe {
                if self.features.wide() {
                    // `wide` proves AVX2, VAES and VPCLMULQDQ (`Features::detect_wide`).
                    self.ctr_stitched_wide::<false, false>(
                        counter,
                        data,
                        hash.state_mut(),
                        &powers,
                        Stitch::SivOpen,
                        None,
                        None,
                    )
                } else {
                    self.ctr_stitched::<false>(counter, data, hash.state_mut(), &powers, Stitch::SivOpen)
                }
            };
        }
        let tail_counter = crate::backend::counter_add_le32(counter, (done / 16) as u32);
        let tail = &mut data[done..];
        self.ctr32::<false, false>(&tail_counter, tail);
        crate::backend::Polyval::update_padded(hash, tail);
    }

    /// GCM in one pass: CTR with GHASH (POLYVAL of byte-reversed blocks) of the
    /// ciphertext stitched in, then the partial tail, hashed before its CTR
    /// when decrypting and after it when encrypting.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn ctr32be_ghash<const DECRYPT: bool>(
        &self,
        counter: &Block,
        data: &mut [u8],
        hash: &mut Polyval,
        table: &GcmTable<NR>,
    ) {
        let powers = &table.powers;
        let mode = if DECRYPT { Stitch::GcmOpen } else { Stitch::GcmSeal };
        // SAFETY: same features; `wide` proves AVX2, VAES and VPCLMULQDQ
        // besides (`Features::detect_wide`).
        let done = unsafe {
            if self.features.wide() {
                self.ctr_stitched_wide::<true, false>(
                    counter,
                    data,
                    hash.state_mut(),
                    powers,
                    mode,
                    table.keys(),
                    None,
                )
            } else {
                self.ctr_stitched::<true>(counter, data, hash.state_mut(), powers, mode)
            }
        };
        let tail_counter = crate::backend::counter_add_be32(counter, (done / 16) as u32);
        let tail = &mut data[done..];
        if DECRYPT {
            // SAFETY: same features.
            unsafe { hash.update_padded_blocks::<true>(tail, Some(powers)) };
        }
        self.ctr32::<true, false>(&tail_counter, tail);
        if !DECRYPT {
            // SAFETY: same features.
            unsafe { hash.update_padded_blocks::<true>(tail, Some(powers)) };
        }
    }
}

/// Inputs at least this long build the table of powers; shorter ones use
/// Horner's rule, one dependent multiplication per block.
const AGGREGATE_FROM: usize = 16 * WIDTH;

/// Absorbs whole blocks into `s` (key `h`): aggregated 8 at a time with the
/// given table of powers, or with one built here for long inputs, or by
/// Horner's rule for short ones without a table. `REVERSED` byte-reverses
/// each block first (GHASH's order). With `features.wide()`, the whole
/// chunks go two (or four) blocks per instruction (`pass_wide.rs`).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn absorb_blocks<const REVERSED: bool>(
    features: Features,
    s: &mut __m128i,
    h: &__m128i,
    blocks: &[u8],
    table: Option<&Powers>,
) {
    let reverse = byte_reverse_mask();
    let load = |b: &[u8]| {
        // SAFETY: every chunk is whole 16-byte blocks.
        let x = unsafe { _mm_loadu_si128(b.as_ptr().cast()) };
        if REVERSED { _mm_shuffle_epi8(x, reverse) } else { x }
    };
    let built;
    let powers = match table {
        Some(p) => p,
        None if blocks.len() < AGGREGATE_FROM => {
            let h = super::load::load_opaque(h);
            for b in blocks.chunks_exact(16) {
                *s = dot(_mm_xor_si128(*s, load(b)), h);
            }
            return;
        }
        None => {
            built = Powers::new(super::load::load_opaque(h));
            &built
        }
    };
    let mut blocks = blocks;
    if features.wide() {
        // SAFETY: `wide` proves AVX2 and VPCLMULQDQ (`Features::detect_wide`).
        let (t, done) =
            unsafe { super::pass_wide::polyval_chunks_wide::<REVERSED>(features, *s, powers, blocks) };
        *s = t;
        blocks = &blocks[done..];
    }
    let mut chunks = blocks.chunks_exact(16 * WIDTH);
    for chunk in &mut chunks {
        // A fixed-size array, so the eight products unroll.
        let x: [__m128i; WIDTH] = array(|k| load(&chunk[16 * k..]));
        *s = aggregate(*s, &x, powers);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut x = [_mm_setzero_si128(); WIDTH];
        let n = rest.len() / 16;
        for (k, b) in rest.chunks_exact(16).enumerate() {
            x[k] = load(b);
        }
        *s = aggregate(*s, &x[..n], powers);
    }
}

impl Polyval {
    /// # Safety
    /// The CPU must support the enabled features; `blocks.len()` % 16 == 0.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn update<const REVERSED: bool>(&mut self, blocks: &[u8]) {
        absorb_blocks::<REVERSED>(self.features, &mut self.s, &self.h, blocks, None);
    }

    /// Absorbs `data`, the final partial block zero-padded in a register; with
    /// `REVERSED`, every block byte-reversed first (GHASH's order).
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn update_padded_blocks<const REVERSED: bool>(
        &mut self,
        data: &[u8],
        table: Option<&Powers>,
    ) {
        let whole = data.len() - data.len() % 16;
        absorb_blocks::<REVERSED>(self.features, &mut self.s, &self.h, &data[..whole], table);
        let rest = &data[whole..];
        if !rest.is_empty() {
            let mut last = [super::load::load_partial(rest)];
            if REVERSED {
                last[0] = _mm_shuffle_epi8(last[0], byte_reverse_mask());
            }
            // SAFETY: same features.
            unsafe { self.absorb(last[0]) };
            last.zeroize();
        }
    }
}
