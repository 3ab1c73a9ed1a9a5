//! Batches: many independent messages under one key in one call.
//!
//! Sealing a short message is mostly set-up: record-key derivation, key
//! expansion, the tag and the first counter block are chains of dependent AES
//! rounds that leave the AES units idle. A batch runs the set-up of
//! [`LANES`] messages side by side so those chains overlap.

use crate::Error;
use crate::backend::{Aes, Block, LANES, Polyval};
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
        let mut groups = items.chunks_exact_mut(LANES);
        for group in &mut groups {
            if fits_lanes(group) {
                self.seal_lanes(group.try_into().expect("internal error: lane count"));
            } else {
                for it in group {
                    it.tag = self.seal_in_place(it.nonce, it.aad, it.buffer)?;
                }
            }
        }
        for it in groups.into_remainder() {
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
        let mut groups = items.chunks_exact_mut(LANES);
        let mut out = results.chunks_exact_mut(LANES);
        for (group, res) in (&mut groups).zip(&mut out) {
            if fits_lanes(group) {
                let group: &mut [BatchItem<'_>; LANES] =
                    group.try_into().expect("internal error: lane count");
                self.open_lanes(group, res);
            } else {
                for (it, r) in group.iter_mut().zip(res) {
                    *r = self.open_in_place(it.nonce, it.aad, it.buffer, &it.tag);
                }
            }
        }
        for (it, r) in groups.into_remainder().iter_mut().zip(out.into_remainder()) {
            *r = self.open_in_place(it.nonce, it.aad, it.buffer, &it.tag);
        }
        Ok(())
    }

    /// RFC 8452 section 4 for LANES messages with their steps interleaved.
    fn seal_lanes(&self, g: &mut [BatchItem<'_>; LANES]) {
        let nonces = g.each_ref().map(|it| it.nonce);
        let aads = g.each_ref().map(|it| it.aad);
        if let Some(tags) =
            self.key_generating_key().seal_short(nonces, aads, g.each_mut().map(|it| &mut *it.buffer))
        {
            for (it, t) in g.iter_mut().zip(tags) {
                it.tag = t;
            }
            return;
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
    }

    fn open_lanes(&self, g: &mut [BatchItem<'_>; LANES], results: &mut [Result<(), Error>]) {
        let nonces = g.each_ref().map(|it| it.nonce);
        let aads = g.each_ref().map(|it| it.aad);
        let received = g.each_ref().map(|it| it.tag);
        let short = self.key_generating_key().open_short(
            nonces,
            aads,
            g.each_mut().map(|it| &mut *it.buffer),
            &received,
        );
        let expected = match short {
            Some(expected) => expected,
            None => {
                let mut keys =
                    self.key_generating_key().derive_record_keys_lanes(g.each_ref().map(|it| it.nonce));
                let counters = g.each_ref().map(|it| initial_counter(&it.tag));
                A::ctr32le_lanes(keys.0.each_ref(), &counters, g.each_mut().map(|it| &mut *it.buffer));
                self.tags_lanes(&keys.0, &mut keys.1, g.each_ref().map(|it| &*it.buffer), g)
            }
        };
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
