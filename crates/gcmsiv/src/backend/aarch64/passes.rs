//! CTR with the hash beside it, in one pass over the data: GCM-SIV's open
//! (CTR, then POLYVAL of the plaintext), GCM's seal (CTR, then GHASH of the
//! ciphertext) and GCM's open (GHASH of the ciphertext, then CTR).
//!
//! Where the hash takes the pass's output, the eight blocks of a chunk are
//! hashed while the next chunk's key stream is made: the two have no
//! dependency, so the AES and PMULL units work side by side.

use super::aes::{Counter, Schedule, WIDTH};
use super::polyval::{Powers, absorb_last, aggregate, order};
use super::{V, load, load_padded, store, store_partial};
use crate::backend::{Block, array};
use core::arch::aarch64::*;

/// XORs `data` with the key stream from `counter` (GCM's counter if `BE`,
/// GCM-SIV's otherwise) and absorbs into `s`, with `powers` (as many as the
/// pass's blocks, up to eight), the zero-padded blocks of the output if
/// `HASH_OUT`, else of the input, each byte-reversed if `REVERSED`, then
/// `last` (as it is) if given. Returns the new accumulator.
#[target_feature(enable = "aes,neon")]
pub(super) fn ctr_hash<const NR: usize, const BE: bool, const HASH_OUT: bool, const REVERSED: bool>(
    aes: &Schedule<NR>,
    counter: V,
    data: &mut [u8],
    mut s: V,
    powers: &Powers,
    last: Option<V>,
) -> V {
    let mut ctr = Counter::<BE>::new(counter);
    let mut pending: Option<[V; WIDTH]> = None;
    let mut chunks = data.chunks_exact_mut(16 * WIDTH);
    for chunk in &mut chunks {
        let blocks: &mut [Block] = block_slice(chunk);
        let mut ks = ctr.take::<WIDTH>();
        let x: [V; WIDTH] = array(|k| load(&blocks[k]));
        if !HASH_OUT {
            s = aggregate(s, &array::<V, WIDTH>(|k| order::<REVERSED>(x[k])), powers);
        }
        aes.encrypt8(&mut ks);
        if let Some(p) = pending.take() {
            s = aggregate(s, &p, powers);
        }
        let y: [V; WIDTH] = array(|k| veorq_u8(x[k], ks[k]));
        for (out, yk) in blocks.iter_mut().zip(y) {
            store(out, yk);
        }
        if HASH_OUT {
            pending = Some(array(|k| order::<REVERSED>(y[k])));
        }
    }
    if let Some(p) = pending {
        s = aggregate(s, &p, powers);
    }
    let rest = chunks.into_remainder();
    if rest.is_empty() {
        return match last {
            Some(l) => aggregate(s, &[l], powers),
            None => s,
        };
    }
    by_blocks!(rest.len(), B => {
        ctr_hash_rest::<NR, BE, HASH_OUT, REVERSED, B>(aes, &mut ctr, rest, s, powers, last)
    })
}

/// [`ctr_hash`]'s last `B` blocks (`rest`: more than 16 * (B - 1) bytes,
/// at most 16 * B).
#[inline]
#[target_feature(enable = "aes,neon")]
fn ctr_hash_rest<
    const NR: usize,
    const BE: bool,
    const HASH_OUT: bool,
    const REVERSED: bool,
    const B: usize,
>(
    aes: &Schedule<NR>,
    ctr: &mut Counter<BE>,
    rest: &mut [u8],
    s: V,
    powers: &Powers,
    last: Option<V>,
) -> V {
    let mut ks = ctr.take::<B>();
    let x: [V; B] = array(|k| load_padded(&rest[16 * k..rest.len().min(16 * k + 16)]));
    aes.encrypt_n(&mut ks);
    let y: [V; B] = array(|k| veorq_u8(x[k], ks[k]));
    for (k, chunk) in rest.chunks_mut(16).enumerate() {
        store_partial(chunk, y[k]);
    }
    let hashed = if HASH_OUT {
        // The output's padding holds key stream: hash the bytes as stored.
        array(|k| load_padded(&rest[16 * k..rest.len().min(16 * k + 16)]))
    } else {
        x
    };
    absorb_last(s, &array::<V, B>(|k| order::<REVERSED>(hashed[k])), last, powers)
}

/// A chunk of whole blocks as blocks.
#[inline]
fn block_slice(chunk: &mut [u8]) -> &mut [Block] {
    let (blocks, rest) = chunk.as_chunks_mut::<16>();
    debug_assert!(rest.is_empty());
    blocks
}
