//! One message of any length in one kernel: RFC 8452 section 4 for messages
//! past [`SHORT_MAX`](crate::backend::SHORT_MAX), where the bulk loops do most
//! of the work and what is left to win is their set-up and wind-down.
//!
//! Sealing, run as the mode's separate steps, paid for the record key's
//! expansion before POLYVAL could start, multiplied the length block on its
//! own, and stored the tag to reload it as the counter. Here the expansion
//! overlaps the powers of H and POLYVAL, the length block joins the last
//! aggregated step, and the tag stays in a register. (Opening was tried the
//! same way, with the first eight CTR blocks riding on the expansion: no
//! measurable gain over the stitched path, so it was not kept.)
//!
//! With `short.rs`, the place outside `siv.rs` that spells out the mode's
//! steps, for speed alone: the tests hold it to the step-by-step path at every
//! length and to every vector file. The round keys live in a [`Schedule`],
//! which wipes itself when dropped.

use super::aesni::Schedule;
use super::clmul::{Powers, absorb_padded};
use super::short::{counter0, encrypt, expand_riding, tag_input, to_block};
use crate::backend::Block;
use core::arch::x86_64::*;

impl<const NR: usize> Schedule<NR> {
    /// Seals a message of any length in place and returns its tag.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn seal_long<const NB: usize>(
        &self,
        nonce: &[u8; 12],
        aad: &[u8],
        data: &mut [u8],
    ) -> Block {
        let (h, k) = self.derive_one::<NB>(nonce);
        // The expansion is a chain of dependent steps that the tag needs only
        // at the end: first in program order, it runs beside POLYVAL.
        // Expanded in place: a local array moved into the schedule afterwards
        // could leave a copy of the round keys that nothing wipes.
        let mut key = Schedule::<NR> { rk: [_mm_setzero_si128(); 15], features: self.features };
        expand_riding::<NR, 0>(k, &mut key.rk, &mut []);
        let powers = Powers::new(h);
        let s = absorb_padded(_mm_setzero_si128(), h, &powers, aad, None);
        let lengths = super::short::lengths(aad.len(), data.len());
        let s = absorb_padded(s, h, &powers, data, Some(lengths));
        let mut tag = [tag_input(s, nonce)];
        encrypt::<NR, 1>(&mut tag, &key.rk);
        key.ctr32::<false>(&to_block(counter0(tag[0])), data);
        to_block(tag[0])
    }
}
