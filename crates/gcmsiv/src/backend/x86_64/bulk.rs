//! The bulk passes, written once over a [`Tier`]: each runs its tier's
//! widest pass over the whole chunks (`T::ctr32_chunks`, `T::ctr_stitched`,
//! `T::polyval_chunks`: nothing at all in the `ni` tier) and the 128-bit
//! code (`pass128.rs`, `clmul.rs`) for what that leaves. The tier is a type
//! parameter, chosen once by `impls.rs`: nothing here asks the CPU or the
//! proof for a width.

use super::aes::Schedule;
use super::clmul::{Powers, WIDTH, aggregate, dot};
use super::load::byte_reverse_mask;
use super::pass128::{Stitch, ctr32_narrow};
use super::tier::Tier;
use super::vaes::Keys512;
use super::{Polyval, array};
use crate::backend::{Block, InOut};
use core::arch::x86_64::*;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// AES-GCM's per-key table: the powers H^1..H^8 of the GHASH key, and for a
/// tier that wants them ([`Tier::KEYS512`]) the round keys broadcast for
/// the 512-bit stitched pass ([`Keys512`]), both made once per key and
/// wiped with it. One type at every tier: it is the key's
/// [`Hashes::GhashTable`](crate::backend::Hashes::GhashTable).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct GcmTable<const NR: usize> {
    pub(super) powers: Powers,
    keys: Option<Keys512<NR>>,
}

impl<const NR: usize> GcmTable<NR> {
    /// The table for `schedule` at tier `T`, whose GHASH key is `h`.
    ///
    /// # Safety
    /// The CPU must support the enabled features and `T`'s.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn new<T: Tier>(schedule: &Schedule<NR>, h: __m128i) -> Self {
        // SAFETY (`Keys512::empty`): filled just below, before any pass.
        let mut table =
            GcmTable { powers: Powers::new(h), keys: T::KEYS512.then(|| unsafe { Keys512::empty() }) };
        if let Some(keys) = &mut table.keys {
            // SAFETY: a tier with `KEYS512` runs on AVX-512 F, BW and VL, and
            // VAES besides (the caller's promise).
            unsafe { keys.fill(&schedule.rk) };
        }
        table
    }

    pub(super) fn keys(&self) -> Option<&Keys512<NR>> {
        self.keys.as_ref()
    }
}

/// CTR over `data` (input to output) with a 32-bit counter: little-endian
/// in the first four bytes (GCM-SIV) or, if `BE`, big-endian in the last
/// four (GCM).
/// `PUBLIC` says the counter's value is public (GCM with a 96-bit IV),
/// which lets the 512- and 256-bit passes branch on it (`vaes.rs`,
/// `ChunkCounters`); a counter derived from the key (GCM's J0 for other
/// IV lengths) must go without.
///
/// # Safety
/// The CPU must support the enabled features and `T`'s.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn ctr32<T: Tier, const NR: usize, const BE: bool, const PUBLIC: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    mut data: InOut<'_>,
) {
    if data.is_empty() {
        // Nothing to do for the tail after a bulk pass that ended on a chunk
        // boundary: the calls below would still cost their set-up.
        return;
    }
    // SAFETY: the caller's CPU supports `T`'s features.
    let done = unsafe { T::ctr32_chunks::<NR, BE, PUBLIC>(key, counter, data.reborrow()) };
    if done > 0 {
        let step = (done / 16) as u32;
        let next = if BE {
            crate::backend::counter_add_be32(counter, step)
        } else {
            crate::backend::counter_add_le32(counter, step)
        };
        return ctr32_narrow::<_, BE>(key, &next, data.split_at(done).1);
    }
    ctr32_narrow::<_, BE>(key, counter, data)
}

/// GCM-SIV decryption in one pass: CTR with POLYVAL of the plaintext
/// stitched in (the tier's [`Tier::ctr_stitched`]), then the partial tail.
///
/// # Safety
/// The CPU must support the enabled features and `T`'s.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn ctr32le_then_polyval<T: Tier, const NR: usize>(
    key: &Schedule<NR>,
    counter: &Block,
    data: &mut [u8],
    hash: &mut Polyval,
) {
    let mut done = 0;
    if data.len() >= 16 * WIDTH {
        let powers = Powers::new(hash.key());
        // SAFETY: the caller's features.
        done = unsafe {
            T::ctr_stitched::<NR, false, false>(
                key,
                counter,
                InOut::in_place(data),
                hash.state_mut(),
                &powers,
                Stitch::SivOpen,
                None,
                None,
            )
        };
    }
    let tail_counter = crate::backend::counter_add_le32(counter, (done / 16) as u32);
    let tail = &mut data[done..];
    // SAFETY (both): the caller's features.
    unsafe {
        ctr32::<T, _, false, false>(key, &tail_counter, InOut::in_place(tail));
        polyval_update_padded::<T, false>(hash, tail, None);
    }
}

/// GCM in one pass: CTR with GHASH (POLYVAL of byte-reversed blocks) of the
/// ciphertext stitched in, then the partial tail, hashed before its CTR
/// when decrypting and after it when encrypting.
///
/// # Safety
/// The CPU must support the enabled features and `T`'s.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn ctr32be_ghash<T: Tier, const NR: usize, const DECRYPT: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    data: &mut [u8],
    hash: &mut Polyval,
    table: &GcmTable<NR>,
) {
    let powers = &table.powers;
    let mode = if DECRYPT { Stitch::GcmOpen } else { Stitch::GcmSeal };
    // SAFETY: the caller's features.
    let done = unsafe {
        T::ctr_stitched::<NR, true, false>(
            key,
            counter,
            InOut::in_place(data),
            hash.state_mut(),
            powers,
            mode,
            table.keys(),
            None,
        )
    };
    let tail_counter = crate::backend::counter_add_be32(counter, (done / 16) as u32);
    let tail = &mut data[done..];
    // SAFETY (all three): the caller's features.
    unsafe {
        if DECRYPT {
            polyval_update_padded::<T, true>(hash, tail, Some(powers));
        }
        ctr32::<T, _, true, false>(key, &tail_counter, InOut::in_place(tail));
        if !DECRYPT {
            polyval_update_padded::<T, true>(hash, tail, Some(powers));
        }
    }
}

/// Inputs at least this long build the table of powers; shorter ones use
/// Horner's rule, one dependent multiplication per block.
const AGGREGATE_FROM: usize = 16 * WIDTH;

/// Absorbs whole blocks into `s` (key `h`): aggregated 8 at a time with the
/// given table of powers, or with one built here for long inputs, or by
/// Horner's rule for short ones without a table. `REVERSED` byte-reverses
/// each block first (GHASH's order). The tier's wide pass takes the whole
/// chunks first ([`Tier::polyval_chunks`]).
///
/// # Safety
/// The CPU must support the enabled features and `T`'s.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn absorb_blocks<T: Tier, const REVERSED: bool>(
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
    // SAFETY: the caller's features.
    let (t, done) = unsafe { T::polyval_chunks::<REVERSED>(*s, powers, blocks) };
    *s = t;
    let blocks = &blocks[done..];
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

/// Absorbs whole blocks into `hash` (`REVERSED` as in [`absorb_blocks`]).
///
/// # Safety
/// The CPU must support the enabled features and `T`'s; `blocks.len()` %
/// 16 == 0.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn polyval_update<T: Tier, const REVERSED: bool>(hash: &mut Polyval, blocks: &[u8]) {
    // SAFETY: the caller's features.
    unsafe { absorb_blocks::<T, REVERSED>(&mut hash.s, &hash.h, blocks, None) };
}

/// Absorbs `data` into `hash`, the final partial block zero-padded in a
/// register; with `REVERSED`, every block byte-reversed first (GHASH's order).
///
/// # Safety
/// The CPU must support the enabled features and `T`'s.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn polyval_update_padded<T: Tier, const REVERSED: bool>(
    hash: &mut Polyval,
    data: &[u8],
    table: Option<&Powers>,
) {
    let whole = data.len() - data.len() % 16;
    // SAFETY: the caller's features.
    unsafe { absorb_blocks::<T, REVERSED>(&mut hash.s, &hash.h, &data[..whole], table) };
    let rest = &data[whole..];
    if !rest.is_empty() {
        let mut last = [super::load::load_partial(rest)];
        if REVERSED {
            last[0] = _mm_shuffle_epi8(last[0], byte_reverse_mask());
        }
        // SAFETY: same features.
        unsafe { hash.absorb(last[0]) };
        last.zeroize();
    }
}
