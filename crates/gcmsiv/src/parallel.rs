//! One large message on all cores (feature `parallel`).
//!
//! POLYVAL is Horner's rule, so the message splits into parts whose partial
//! sums are computed independently from zero and joined in order with powers
//! of H ([`Polyval::append`]); CTR splits by counter ranges. The output is
//! byte for byte the sequential one. Sealing needs two parallel passes (the
//! tag, which seeds CTR, depends on all of POLYVAL); opening needs one.

use crate::Error;
use crate::backend::{Aes, Block, Polyval, counter_add_le32};
use crate::siv::{GcmSiv, NONCE_LEN, P_MAX, initial_counter};
use rayon::prelude::*;
use std::vec::Vec;
use subtle::ConstantTimeEq;

/// Below this, one core is faster than splitting (measured on 2 cores: the
/// pool's hand-off costs tens of microseconds).
pub const DEFAULT_PARALLEL_THRESHOLD: usize = 512 * 1024;

/// Part size for `len` bytes over the pool's threads: whole blocks, so every
/// part but the last starts and ends on a block boundary.
fn part_len(len: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    len.div_ceil(threads).next_multiple_of(16).max(16)
}

impl<A: Aes + Sync> GcmSiv<A>
where
    A::Polyval: Send,
{
    /// [`GcmSiv::seal_in_place`] on all cores.
    pub(crate) fn seal_in_place_parallel(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: &mut [u8],
    ) -> Result<Block, Error> {
        crate::siv::check_lengths(aad.len(), buffer.len(), P_MAX, Error::PlaintextTooLong)?;
        let (encryption_key, first) = self.key_generating_key().derive_record_keys(nonce);
        let part = part_len(buffer.len());
        let h = first.key();
        // Pass 1: partial POLYVAL sums; the first part also absorbs the AAD.
        let partials: Vec<(Block, u64)> = buffer
            .par_chunks(part)
            .enumerate()
            .map(|(i, chunk)| {
                partial_sum(&encryption_key, &h, i, aad, chunk.len(), |hash| hash.update_padded(chunk))
            })
            .collect();
        let mut hash = join(first, &partials, aad);
        let tag = crate::siv::finish_tag(&encryption_key, &mut hash, aad.len(), buffer.len(), nonce);
        // Pass 2: CTR by counter ranges.
        let counter = initial_counter(&tag);
        buffer.par_chunks_mut(part).enumerate().for_each(|(i, chunk)| {
            encryption_key.ctr32le(&counter_add_le32(&counter, ((i * part) / 16) as u32), chunk);
        });
        Ok(tag)
    }

    /// [`GcmSiv::open_in_place`] on all cores: each part is decrypted and
    /// hashed in one pass; nothing is released unless the whole tag matches.
    pub(crate) fn open_in_place_parallel(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &Block,
    ) -> Result<(), Error> {
        crate::siv::check_lengths(
            aad.len(),
            buffer.len(),
            crate::siv::CIPHERTEXT_BODY_MAX,
            Error::CiphertextTooLong,
        )?;
        let (encryption_key, first) = self.key_generating_key().derive_record_keys(nonce);
        let part = part_len(buffer.len());
        let h = first.key();
        let counter = initial_counter(tag);
        let partials: Vec<(Block, u64)> = buffer
            .par_chunks_mut(part)
            .enumerate()
            .map(|(i, chunk)| {
                let c = counter_add_le32(&counter, ((i * part) / 16) as u32);
                let len = chunk.len();
                partial_sum(&encryption_key, &h, i, aad, len, |hash| {
                    encryption_key.ctr32le_then_polyval(&c, chunk, hash)
                })
            })
            .collect();
        let mut hash = join(first, &partials, aad);
        let expected = crate::siv::finish_tag(&encryption_key, &mut hash, aad.len(), buffer.len(), nonce);
        crate::verify::release(u128::from_le_bytes(expected).ct_eq(&u128::from_le_bytes(*tag)), buffer)
    }
}

/// One part's POLYVAL sum from zero and the number of blocks it covers; the
/// first part also covers the AAD. `absorb` feeds the part's `len` bytes.
fn partial_sum<A: Aes>(
    key: &A,
    h: &Block,
    index: usize,
    aad: &[u8],
    len: usize,
    absorb: impl FnOnce(&mut A::Polyval),
) -> (Block, u64) {
    let mut hash = key.polyval(h);
    let mut blocks = len.div_ceil(16) as u64;
    if index == 0 {
        hash.update_padded(aad);
        blocks += aad.len().div_ceil(16) as u64;
    }
    absorb(&mut hash);
    (hash.finalize(), blocks)
}

/// Joins partial sums in order: S = (((S_0 H^n1) ^ S_1) H^n2) ^ S_2 ...
/// With no parts at all (empty message), S is just POLYVAL over the AAD.
fn join<P: Polyval>(mut hash: P, partials: &[(Block, u64)], aad: &[u8]) -> P {
    if partials.is_empty() {
        hash.update_padded(aad);
        return hash;
    }
    hash.set_state(&partials[0].0);
    for (s, n) in &partials[1..] {
        hash.append(s, *n);
    }
    hash
}
