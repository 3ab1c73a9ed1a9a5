//! Batches: many independent messages under one key in one call.
//!
//! Sealing a short message is mostly set-up: record-key derivation, key
//! expansion, the tag and the first counter block are chains of dependent AES
//! rounds. Where the backend has a fused kernel for short messages, a batch
//! runs the set-up of [`GROUP`] of them (or [`QUAD`], or [`WIDE_GROUP`]) side
//! by side, each step for all of them before the next; the backend says
//! which groups pay ([`BatchKernels::lane_limits`](crate::backend::BatchKernels::lane_limits); on x86-64: all short, or equal
//! lengths up to 256 bytes, 512 with VAES, seals up to 1 KiB with AVX-512).
//! The rest, and every message on a backend without such a kernel, take the
//! one-message path: their set-up is a small part of their cost, and
//! interleaving them through the generic step-by-step interface would cost
//! more than it saves and move record keys through memory that nothing wipes
//! (PERFORMANCE-HISTORY.md, `batch.rs`).

use crate::Error;
use crate::backend::{Aes, GROUP, LaneLimits, QUAD, SHORT_MAX, WIDE_GROUP, array};
use crate::limits::{GCM_SIV, NONCE_LEN, TAG_LEN};
use crate::siv::GcmSiv;

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

/// Lengths only: the buffer holds plaintext before a seal and after an open.
impl core::fmt::Debug for BatchItem<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("BatchItem")
            .field("aad_len", &self.aad.len())
            .field("buffer_len", &self.buffer.len())
            .finish_non_exhaustive()
    }
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

impl<A: Aes> GcmSiv<A> {
    /// Seals every item; any misuse (an over-long input) is reported before
    /// any work, so either all items are sealed or none is touched.
    pub(crate) fn seal_batch(&self, items: &mut [BatchItem<'_>]) -> Result<(), Error> {
        for it in items.iter() {
            GCM_SIV.check_seal(it.nonce.len(), it.aad.len(), it.buffer.len())?;
        }
        let Some(limits) = self.key_generating_key().lane_limits(true) else {
            return self.seal_each(items); // no group kernel
        };
        // Round keys of every group, wiped once as this returns.
        let keys = &mut A::LaneKeys::default();
        if self.key_generating_key().wide_groups() {
            self.seal_groups::<WIDE_GROUP>(items, limits, keys)
        } else {
            self.seal_groups::<GROUP>(items, limits, keys)
        }
    }

    /// Seals items in fused groups of `G` where they fit (`limits`, from
    /// [`BatchKernels::lane_limits`](crate::backend::BatchKernels::lane_limits); else quads of them that fit), what is left in
    /// groups of [`GROUP`] and quads, the rest one by one.
    fn seal_groups<const G: usize>(
        &self,
        items: &mut [BatchItem<'_>],
        limits: LaneLimits,
        keys: &mut A::LaneKeys,
    ) -> Result<(), Error> {
        let mut groups = items.chunks_exact_mut(G);
        for group in &mut groups {
            if fits(group, limits) {
                let group: &mut [BatchItem<'_>; G] = group.try_into().expect("internal error: group size");
                if self.seal_fused(group, keys) {
                    continue;
                }
            }
            for quad in group.chunks_exact_mut(QUAD) {
                self.seal_quad(quad.try_into().expect("internal error: quad size"), limits, keys)?;
            }
        }
        let rest = groups.into_remainder();
        if G > GROUP {
            return self.seal_groups::<GROUP>(rest, limits, keys);
        }
        let mut quads = rest.chunks_exact_mut(QUAD);
        for quad in &mut quads {
            self.seal_quad(quad.try_into().expect("internal error: quad size"), limits, keys)?;
        }
        self.seal_each(quads.into_remainder())
    }

    /// Opens every item; `results[i]` says whether item `i` was authentic. A
    /// failed item's buffer holds its ciphertext again; the others are
    /// unaffected. Every result starts as a failure, so a call refused for
    /// misuse (which touches no buffer) leaves none that reads as authentic.
    pub(crate) fn open_batch(
        &self,
        items: &mut [BatchItem<'_>],
        results: &mut [Result<(), Error>],
    ) -> Result<(), Error> {
        let n = results.len().min(items.len());
        results[..n].fill(Err(Error::Authentication));
        if results.len() < items.len() {
            return Err(Error::BufferTooSmall { needed: items.len(), actual: results.len() });
        }
        for it in items.iter() {
            GCM_SIV.check_open(it.nonce.len(), it.aad.len(), it.buffer.len())?;
        }
        let results = &mut results[..items.len()];
        let Some(limits) = self.key_generating_key().lane_limits(false) else {
            self.open_each(items, results); // no group kernel
            return Ok(());
        };
        // Round keys of every group, wiped once as this returns.
        let keys = &mut A::LaneKeys::default();
        if self.key_generating_key().wide_groups() {
            self.open_groups::<WIDE_GROUP>(items, results, limits, keys);
        } else {
            self.open_groups::<GROUP>(items, results, limits, keys);
        }
        Ok(())
    }

    /// Opens items as [`Self::seal_groups`] seals them.
    fn open_groups<const G: usize>(
        &self,
        items: &mut [BatchItem<'_>],
        results: &mut [Result<(), Error>],
        limits: LaneLimits,
        keys: &mut A::LaneKeys,
    ) {
        let mut groups = items.chunks_exact_mut(G);
        let mut out = results.chunks_exact_mut(G);
        for (group, res) in (&mut groups).zip(&mut out) {
            if fits(group, limits) {
                let group: &mut [BatchItem<'_>; G] = group.try_into().expect("internal error: group size");
                if self.open_fused(group, res, keys) {
                    continue;
                }
            }
            for (quad, res) in group.chunks_exact_mut(QUAD).zip(res.chunks_exact_mut(QUAD)) {
                self.open_quad(quad.try_into().expect("internal error: quad size"), res, limits, keys);
            }
        }
        let (rest, rest_out) = (groups.into_remainder(), out.into_remainder());
        if G > GROUP {
            return self.open_groups::<GROUP>(rest, rest_out, limits, keys);
        }
        let mut quads = rest.chunks_exact_mut(QUAD);
        let mut out = rest_out.chunks_exact_mut(QUAD);
        for (quad, res) in (&mut quads).zip(&mut out) {
            self.open_quad(quad.try_into().expect("internal error: quad size"), res, limits, keys);
        }
        self.open_each(quads.into_remainder(), out.into_remainder());
    }

    /// Seals `L` short messages in the backend's fused kernel, if it has one
    /// and they fit; false (nothing touched) otherwise.
    fn seal_fused<const L: usize>(&self, g: &mut [BatchItem<'_>; L], keys: &mut A::LaneKeys) -> bool {
        let nonces: [_; L] = array(|i| g[i].nonce);
        let aads: [_; L] = array(|i| g[i].aad);
        let mut items = g.iter_mut();
        let buffers: [_; L] = array(|_| &mut *items.next().expect("internal error: group size").buffer);
        let Some(tags) = self.key_generating_key().seal_lanes(nonces, aads, buffers, keys) else {
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
        keys: &mut A::LaneKeys,
    ) -> bool {
        let nonces: [_; L] = array(|i| g[i].nonce);
        let aads: [_; L] = array(|i| g[i].aad);
        let received: [_; L] = array(|i| g[i].tag);
        let mut items = g.iter_mut();
        let buffers: [_; L] = array(|_| &mut *items.next().expect("internal error: group size").buffer);
        let Some(expected) = self.key_generating_key().open_lanes(nonces, aads, buffers, &received, keys)
        else {
            return false;
        };
        let authentic: [subtle::Choice; L] = array(|i| crate::verify::tags_match(&expected[i], &g[i].tag));
        // One call for the group (one branch per item inside).
        let mask = crate::verify::release_group(&authentic, |i| {
            self.restore_ciphertext(g[i].nonce, &g[i].tag, g[i].buffer)
        });
        for (i, r) in results.iter_mut().enumerate() {
            *r = if mask >> i & 1 == 1 { Ok(()) } else { Err(Error::Authentication) };
        }
        true
    }

    /// Seals QUAD messages: fused if they fit, else one by one.
    fn seal_quad(
        &self,
        g: &mut [BatchItem<'_>; QUAD],
        limits: LaneLimits,
        keys: &mut A::LaneKeys,
    ) -> Result<(), Error> {
        if fits(g, limits) && self.seal_fused(g, keys) { Ok(()) } else { self.seal_each(g) }
    }

    /// Opens QUAD messages, as [`Self::seal_quad`].
    fn open_quad(
        &self,
        g: &mut [BatchItem<'_>; QUAD],
        results: &mut [Result<(), Error>],
        limits: LaneLimits,
        keys: &mut A::LaneKeys,
    ) {
        if !(fits(g, limits) && self.open_fused(g, results, keys)) {
            self.open_each(g, results);
        }
    }

    /// Seals each item on the one-message path.
    fn seal_each(&self, items: &mut [BatchItem<'_>]) -> Result<(), Error> {
        for it in items {
            it.tag = self.seal_in_place(it.nonce, it.aad, it.buffer)?;
        }
        Ok(())
    }

    /// Opens each item on the one-message path.
    fn open_each(&self, items: &mut [BatchItem<'_>], results: &mut [Result<(), Error>]) {
        for (it, r) in items.iter_mut().zip(results) {
            *r = self.open_in_place(it.nonce, it.aad, it.buffer, &it.tag);
        }
    }
}

/// Whether the backend's group kernel should take these items
/// ([`BatchKernels::lane_limits`](crate::backend::BatchKernels::lane_limits)): all of the same lengths up to its limit, or all
/// short where it takes mixed short lengths. Asked before a group's
/// arguments are gathered, so that a group turned down costs no gathering
/// (PERFORMANCE-HISTORY.md, `batch.rs`).
fn fits(items: &[BatchItem<'_>], limits: LaneLimits) -> bool {
    let short = |it: &BatchItem<'_>| it.aad.len() <= SHORT_MAX && it.buffer.len() <= SHORT_MAX;
    let (a, m) = (items[0].aad.len(), items[0].buffer.len());
    (limits.mixed_short && items.iter().all(short))
        || (a <= limits.equal_max
            && m <= limits.equal_max
            && items.iter().all(|it| it.aad.len() == a && it.buffer.len() == m))
}
