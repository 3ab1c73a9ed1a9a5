//! One message of any length in one kernel: RFC 8452 section 4 for messages
//! past [`SHORT_MAX`](crate::backend::SHORT_MAX), where the bulk loops do most
//! of the work and what is left to win is their set-up and wind-down.
//!
//! Run as the mode's separate steps, a message paid for more than its work:
//! the record keys returned through memory (a schedule copied, a POLYVAL state
//! built), the length block multiplied on its own, the tag stored and reloaded
//! as the counter, an AAD pass even when there is no AAD: stores, of which a
//! core retires one per cycle. Here the record keys are expanded in place in
//! the wiped schedule
//! (a seal's expansion, with the tag's rounds riding on it, after POLYVAL in
//! program order, so that the core runs it beside the pass's end), the
//! length block joins the last aggregated step, and the tag stays in a
//! register. Opening runs the same stitched CTR+POLYVAL loop as the mode's
//! steps do.
//!
//! With `short.rs`, the place outside `siv.rs` that spells out the mode's
//! steps, for speed alone: the tests hold it to the step-by-step path at every
//! length and to every vector file. The round keys live in a [`Schedule`],
//! which wipes itself when dropped.

use super::aes::Schedule;
use super::blocks::sse::encrypt;
use super::bulk::{GcmTable, ctr32};
use super::clmul::{Powers, absorb_padded, absorb_padded_as};
use super::pass128::Stitch;
use super::short::{
    decrypt, derive_one, expand_parked, expand_riding, gcm_counter, gcm_lengths, gcm_tag, seal_tail,
    to_block, verdict_block,
};
use super::siv_blocks::{counter0, tag_input};
use super::tier::Tier;
use super::vaes::Keys512;
use crate::backend::{Block, InOut};
use core::arch::x86_64::*;

/// Seals a message of any length, input to output (or in place), and
/// returns its tag. Out of place, POLYVAL reads the input and CTR reads it
/// and writes the output in one pass: no copy of the message.
///
/// # Safety
/// The CPU must support the enabled features and `T`'s.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn seal_long<T: Tier, const NR: usize, const NB: usize>(
    key: &Schedule<NR>,
    nonce: &[u8; 12],
    aad: &[u8],
    data: InOut<'_>,
) -> Block {
    let (h, k) = derive_one::<NR, NB>(key, nonce);
    // The record key waits for POLYVAL in the schedule (wiped when it
    // drops), not in registers: the calls below would spill it to the
    // stack. Expanded in place there: a local array moved into the
    // schedule afterwards could leave a copy that nothing wipes.
    let mut key = Schedule::<NR> { rk: [_mm_setzero_si128(); 15], features: key.features };
    key.rk[..2].copy_from_slice(&k);
    let powers = Powers::new(h);
    // SAFETY: the caller's CPU supports `T`'s features.
    let s = unsafe { absorb_wide::<T, false>(_mm_setzero_si128(), &powers, aad) };
    let lengths = super::siv_blocks::lengths(aad.len(), data.len());
    // The message's whole chunks in the tier's widest registers; the rest,
    // or all of it (`ni`), one block at a time.
    // SAFETY: the caller's CPU supports `T`'s features.
    let input = data.input();
    let (s, done) = unsafe { T::polyval_chunks::<false>(s, &powers, input) };
    let s = absorb_padded(s, &powers, &input[done..], Some(lengths));
    // The key expansion, a chain of dependent steps that only the tag
    // needs, comes after POLYVAL in program order, with the tag's rounds
    // riding on it (each as soon as its round key exists), as in
    // `short.rs`'s seal. It depends on nothing POLYVAL computes, so the
    // core starts it as soon as it enters the window, beside the pass's
    // last steps. First in program order, its waiting steps would hold up
    // the work behind them instead.
    let mut tag = [tag_input(s, nonce)];
    expand_parked::<NR, 1>(&mut key.rk, &mut tag);
    let counter = to_block(counter0(tag[0]));
    // The whole 128-byte chunks through the bulk passes, the rest (less
    // than a chunk) in registers.
    let whole = data.len() - data.len() % 128;
    let (bulk, rest) = data.split_at(whole);
    // SAFETY: the caller's features.
    unsafe { ctr32::<T, _, false, false>(&key, &counter, bulk) };
    if !rest.is_empty() {
        // In place, copied first when out of place: less than a chunk.
        let rest = rest.into_in_place();
        let c = crate::backend::counter_add_le32(&counter, (whole / 16) as u32);
        // SAFETY: same features; 16 readable bytes in the counter.
        unsafe { seal_tail::<NR>(&key.rk, _mm_loadu_si128(c.as_ptr().cast()), rest) };
    }
    to_block(tag[0])
}

/// Opens a message longer than the short kernel's (CTR from the received
/// `tag`, input to output, POLYVAL of the output stitched in) and returns
/// [`verdict_block`]: `tag` itself exactly
/// when it is authentic; the caller compares.
///
/// Its first lines are [`seal_long`]'s, but for the key expansion,
/// which CTR needs at once and so comes first here. Not a shared helper:
/// returning the schedule and the powers by value copies their 31 vectors
/// on the way out.
///
/// # Safety
/// The CPU must support the enabled features and `T`'s.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn open_long<T: Tier, const NR: usize, const NB: usize>(
    key: &Schedule<NR>,
    nonce: &[u8; 12],
    aad: &[u8],
    data: InOut<'_>,
    tag: &Block,
) -> Block {
    let (h, k) = derive_one::<NR, NB>(key, nonce);
    let mut key = Schedule::<NR> { rk: [_mm_setzero_si128(); 15], features: key.features };
    expand_riding::<NR, 0>(k, &mut key.rk, &mut []);
    let powers = Powers::new(h);
    // SAFETY: the caller's CPU supports `T`'s features.
    let s = unsafe { absorb_wide::<T, false>(_mm_setzero_si128(), &powers, aad) };
    // SAFETY: 16 readable bytes.
    let counter = to_block(counter0(unsafe { _mm_loadu_si128(tag.as_ptr().cast()) }));
    let lengths = super::siv_blocks::lengths(aad.len(), data.len());
    // SAFETY: same features.
    let s = unsafe {
        stitched_message::<T, _, false, false>(
            &key,
            &counter,
            data,
            s,
            &powers,
            Stitch::SivOpen,
            None,
            lengths,
        )
    };
    // SAFETY: 16 readable bytes.
    let received = unsafe { _mm_loadu_si128(tag.as_ptr().cast()) };
    verdict_block(received, decrypt::<NR>(received, &key.rk), tag_input(s, nonce))
}

/// GCM-AE (SP 800-38D section 7.1), or with `OPEN` GCM-AD, with a 96-bit
/// IV for a message past the short kernel's, `powers` the table of this
/// key's POLYVAL key. Sealing encrypts `data` (input to output, or in
/// place) and returns the full tag; opening decrypts it and returns the
/// full tag it
/// should have (the caller compares, and puts the ciphertext back on a
/// mismatch). As
/// the mode's steps run it, with E(J0) and the running hash in registers
/// between them and the last partial block joined to the length block in
/// one aggregated step (the mode's steps went through memory between
/// calls, the length block a step of its own).
///
/// # Safety
/// The CPU must support the enabled features and `T`'s.
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn gcm_long<T: Tier, const NR: usize, const OPEN: bool>(
    key: &Schedule<NR>,
    table: &GcmTable<NR>,
    iv: &[u8; 12],
    aad: &[u8],
    data: InOut<'_>,
) -> Block {
    let powers = &table.powers;
    let mut mask = [gcm_counter(iv, 0)];
    // SAFETY: this function enables AES-NI.
    unsafe { encrypt::<NR, 1>(&mut mask, &key.rk) };
    // SAFETY: the caller's CPU supports `T`'s features.
    let s = unsafe { absorb_wide::<T, true>(_mm_setzero_si128(), powers, aad) };
    let counter = to_block(gcm_counter(iv, 1));
    let mode = if OPEN { Stitch::GcmOpen } else { Stitch::GcmSeal };
    let lengths = gcm_lengths(aad.len(), data.len());
    // SAFETY: same features.
    let s = unsafe {
        stitched_message::<T, _, true, true>(key, &counter, data, s, powers, mode, table.keys(), lengths)
    };
    gcm_tag(mask[0], s)
}

/// The associated data `aad` absorbed into `s` zero-padded, its whole
/// chunks in the tier's widest pass (as the message's): a protocol that
/// authenticates large headers hashes them at the pass's speed, not a block
/// at a time. With `REVERSED`, GHASH's byte order.
///
/// # Safety
/// The CPU must support the enabled features and `T`'s.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn absorb_wide<T: Tier, const REVERSED: bool>(s: __m128i, powers: &Powers, aad: &[u8]) -> __m128i {
    // SAFETY: the caller's CPU supports `T`'s features.
    let (s, done) = unsafe { T::polyval_chunks::<REVERSED>(s, powers, aad) };
    absorb_padded_as::<REVERSED>(s, powers, &aad[done..], None)
}

/// CTR over the whole message `data` from `counter` with the hash
/// stitched in (`mode`), its tail and the length block `lengths`
/// included: S from `s`. `BE`, `PUBLIC` and `keys` as in
/// [`Tier::ctr_stitched`].
///
/// # Safety
/// The CPU must support the enabled features and `T`'s.
#[allow(clippy::too_many_arguments)]
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn stitched_message<T: Tier, const NR: usize, const BE: bool, const PUBLIC: bool>(
    key: &Schedule<NR>,
    counter: &Block,
    data: InOut<'_>,
    mut s: __m128i,
    powers: &Powers,
    mode: Stitch,
    keys: Option<&Keys512<NR>>,
    lengths: __m128i,
) -> __m128i {
    // SAFETY: the caller's CPU supports `T`'s features.
    unsafe {
        T::ctr_stitched::<NR, BE, PUBLIC>(key, counter, data, &mut s, powers, mode, keys, Some(lengths))
    };
    s
}
