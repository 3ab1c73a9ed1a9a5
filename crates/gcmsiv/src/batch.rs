//! Batches: many independent messages under one key in one call.
//!
//! Sealing a short message is mostly set-up: record-key derivation, key
//! expansion, the tag and the first counter block are chains of dependent AES
//! rounds that leave the AES units idle. A batch runs the set-up of
//! [`GROUP`] short messages (or [`LANES`] longer ones) side by side so those
//! chains overlap.

use crate::Error;
use crate::backend::{Aes, Block, GROUP, LANES, Polyval};
use crate::siv::{GcmSiv, NONCE_LEN, P_MAX, TAG_LEN, initial_counter, length_block, tag_input};

/// Messages longer than this go through the one-message path even inside a
/// batch: their set-up is a small part of their cost.
const LANE_MAX_LEN: usize = 256;

/// One message of a batch, sealed or opened in place.
///
/// ```
/// use gcmsiv::{Aes128GcmSiv, BatchItem};
/// let cipher = Aes128GcmSiv::new(&[7; 16]);
/// let nonces: Vec<[u8; 12]> = (0..10u8).map(|i| [i; 12]).collect();
/// let mut bufs: Vec<Vec<u8>> = (0..10).map(|i| vec![i as u8; 16]).collect();
/// let mut items: Vec<BatchItem> = nonces.iter().zip(&mut bufs)
///     .map(|(n, b)| BatchItem::new(n, b"header", b))
///     .collect();
/// cipher.encrypt_batch(&mut items).unwrap();
/// let mut results = vec![Ok(()); items.len()];
/// items[3].tag[0] ^= 1; // tamper with one message
/// cipher.decrypt_batch(&mut items, &mut results).unwrap();
/// assert!(results[3].is_err() && results.iter().filter(|r| r.is_ok()).count() == 9);
/// assert_eq!(items[0].buffer, &[0u8; 16]);
/// ```
#[derive(Debug)]
pub struct BatchItem<'a> {
    /// This message's nonce.
    pub nonce: &'a [u8; NONCE_LEN],
    /// This message's associated data.
    pub aad: &'a [u8],
    /// Plaintext in and ciphertext out when sealing; the reverse when opening.
    pub buffer: &'a mut [u8],
    /// Written by sealing; read by opening.
    pub tag: [u8; TAG_LEN],
}

impl<'a> BatchItem<'a> {
    /// An item with a zero tag (to be filled by sealing).
    pub fn new(nonce: &'a [u8; NONCE_LEN], aad: &'a [u8], buffer: &'a mut [u8]) -> Self {
        BatchItem { nonce, aad, buffer, tag: [0; TAG_LEN] }
    }

    /// An item to open, with its received tag.
    pub fn with_tag(
        nonce: &'a [u8; NONCE_LEN],
        aad: &'a [u8],
        buffer: &'a mut [u8],
        tag: [u8; TAG_LEN],
    ) -> Self {
        BatchItem { nonce, aad, buffer, tag }
    }
}

fn fits_lanes(group: &[BatchItem<'_>]) -> bool {
    group.iter().all(|it| it.buffer.len() <= LANE_MAX_LEN && it.aad.len() <= LANE_MAX_LEN)
}

impl<A: Aes> GcmSiv<A> {
    /// Seals every item; any misuse (an over-long input) is reported before
    /// any work, so either all items are sealed or none is touched.
    pub(crate) fn seal_batch(&self, items: &mut [BatchItem<'_>]) -> Result<(), Error> {
        for it in items.iter() {
            crate::siv::check_lengths(it.aad.len(), it.buffer.len(), P_MAX, Error::PlaintextTooLong)?;
        }
        let mut groups = items.chunks_exact_mut(GROUP);
        for group in &mut groups {
            let group: &mut [BatchItem<'_>; GROUP] = group.try_into().expect("internal error: group size");
            if !self.seal_fused(group) {
                for quad in group.chunks_exact_mut(LANES) {
                    self.seal_quad(quad.try_into().expect("internal error: lane count"))?;
                }
            }
        }
        let mut quads = groups.into_remainder().chunks_exact_mut(LANES);
        for quad in &mut quads {
            self.seal_quad(quad.try_into().expect("internal error: lane count"))?;
        }
        for it in quads.into_remainder() {
            it.tag = self.seal_in_place(it.nonce, it.aad, it.buffer)?;
        }
        Ok(())
    }

    /// Opens every item; `results[i]` says whether item `i` was authentic. A
    /// failed item's buffer is zeroed; the others are unaffected.
    pub(crate) fn open_batch(
        &self,
        items: &mut [BatchItem<'_>],
        results: &mut [Result<(), Error>],
    ) -> Result<(), Error> {
        if results.len() < items.len() {
            return Err(Error::BufferTooSmall { needed: items.len(), actual: results.len() });
        }
        for it in items.iter() {
            crate::siv::check_lengths(
                it.aad.len(),
                it.buffer.len(),
                crate::siv::CIPHERTEXT_BODY_MAX,
                Error::CiphertextTooLong,
            )?;
        }
        let n = items.len();
        let results = &mut results[..n];
        let mut groups = items.chunks_exact_mut(GROUP);
        let mut out = results.chunks_exact_mut(GROUP);
        for (group, res) in (&mut groups).zip(&mut out) {
            let group: &mut [BatchItem<'_>; GROUP] = group.try_into().expect("internal error: group size");
            if !self.open_fused(group, res) {
                for (quad, res) in group.chunks_exact_mut(LANES).zip(res.chunks_exact_mut(LANES)) {
                    self.open_quad(quad.try_into().expect("internal error: lane count"), res);
                }
            }
        }
        let mut quads = groups.into_remainder().chunks_exact_mut(LANES);
        let mut out = out.into_remainder().chunks_exact_mut(LANES);
        for (quad, res) in (&mut quads).zip(&mut out) {
            self.open_quad(quad.try_into().expect("internal error: lane count"), res);
        }
        for (it, r) in quads.into_remainder().iter_mut().zip(out.into_remainder()) {
            *r = self.open_in_place(it.nonce, it.aad, it.buffer, &it.tag);
        }
        Ok(())
    }

    /// Seals `L` short messages in the backend's fused kernel, if it has one
    /// and they fit; false (nothing touched) otherwise.
    fn seal_fused<const L: usize>(&self, g: &mut [BatchItem<'_>; L]) -> bool {
        let nonces = g.each_ref().map(|it| it.nonce);
        let aads = g.each_ref().map(|it| it.aad);
        let Some(tags) =
            self.key_generating_key().seal_short(nonces, aads, g.each_mut().map(|it| &mut *it.buffer))
        else {
            return false;
        };
        for (it, t) in g.iter_mut().zip(tags) {
            it.tag = t;
        }
        true
    }

    /// Opens `L` short messages in the backend's fused kernel, as [`Self::seal_fused`].
    fn open_fused<const L: usize>(
        &self,
        g: &mut [BatchItem<'_>; L],
        results: &mut [Result<(), Error>],
    ) -> bool {
        let nonces = g.each_ref().map(|it| it.nonce);
        let aads = g.each_ref().map(|it| it.aad);
        let received = g.each_ref().map(|it| it.tag);
        let Some(expected) = self.key_generating_key().open_short(
            nonces,
            aads,
            g.each_mut().map(|it| &mut *it.buffer),
            &received,
        ) else {
            return false;
        };
        for ((it, e), r) in g.iter_mut().zip(expected).zip(results) {
            *r = crate::verify::release_if_tags_match(&e, &it.tag, it.buffer);
        }
        true
    }

    /// Seals LANES messages: fused if they are short, else with their steps
    /// interleaved if they fit the lanes, else one by one.
    fn seal_quad(&self, g: &mut [BatchItem<'_>; LANES]) -> Result<(), Error> {
        if self.seal_fused(g) {
            return Ok(());
        }
        if !fits_lanes(g) {
            for it in g {
                it.tag = self.seal_in_place(it.nonce, it.aad, it.buffer)?;
            }
            return Ok(());
        }
        // Used through its fields, not destructured: that would copy four key
        // schedules.
        let mut keys = self.key_generating_key().derive_record_keys_lanes(g.each_ref().map(|it| it.nonce));
        let tags = self.tags_lanes(&keys.0, &mut keys.1, g.each_ref().map(|it| &*it.buffer), g);
        let counters = tags.map(|t| initial_counter(&t));
        A::ctr32le_lanes(keys.0.each_ref(), &counters, g.each_mut().map(|it| &mut *it.buffer));
        for (it, t) in g.iter_mut().zip(tags) {
            it.tag = t;
        }
        Ok(())
    }

    /// Opens LANES messages, as [`Self::seal_quad`].
    fn open_quad(&self, g: &mut [BatchItem<'_>; LANES], results: &mut [Result<(), Error>]) {
        if self.open_fused(g, results) {
            return;
        }
        if !fits_lanes(g) {
            for (it, r) in g.iter_mut().zip(results) {
                *r = self.open_in_place(it.nonce, it.aad, it.buffer, &it.tag);
            }
            return;
        }
        let mut keys = self.key_generating_key().derive_record_keys_lanes(g.each_ref().map(|it| it.nonce));
        let counters = g.each_ref().map(|it| initial_counter(&it.tag));
        A::ctr32le_lanes(keys.0.each_ref(), &counters, g.each_mut().map(|it| &mut *it.buffer));
        let expected = self.tags_lanes(&keys.0, &mut keys.1, g.each_ref().map(|it| &*it.buffer), g);
        for ((it, e), r) in g.iter_mut().zip(expected).zip(results) {
            *r = crate::verify::release_if_tags_match(&e, &it.tag, it.buffer);
        }
    }

    /// POLYVAL over each lane's AAD, message and length block, then the tags.
    fn tags_lanes(
        &self,
        encryption_keys: &[A; LANES],
        hashes: &mut [A::Polyval; LANES],
        messages: [&[u8]; LANES],
        g: &[BatchItem<'_>; LANES],
    ) -> [Block; LANES] {
        let lengths: [Block; LANES] =
            core::array::from_fn(|i| length_block(g[i].aad.len(), messages[i].len()));
        let inputs: [[&[u8]; 3]; LANES] = core::array::from_fn(|i| [g[i].aad, messages[i], &lengths[i][..]]);
        A::Polyval::update_padded_lanes(hashes.each_mut(), inputs);
        let mut blocks: [Block; LANES] =
            core::array::from_fn(|i| tag_input(hashes[i].finalize(), g[i].nonce));
        A::encrypt_block_lanes(encryption_keys.each_ref(), &mut blocks);
        blocks
    }
}
