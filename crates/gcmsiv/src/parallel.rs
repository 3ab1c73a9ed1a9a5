//! One large message on all cores (feature `parallel`).
//!
//! POLYVAL is Horner's rule, so the message splits into pieces whose partial
//! sums are computed independently from zero and joined in order with powers
//! of H ([`Polyval::power`]); CTR splits by counter ranges. The output is byte
//! for byte the sequential one. Sealing needs two passes over the pieces (the
//! tag, which seeds CTR, depends on all of POLYVAL); opening needs one.
//!
//! Who does the work: the calling thread starts on the pieces at once, and
//! helpers from rayon's pool claim pieces as they arrive. The caller never
//! waits for a helper that has not started ([`crate::pieces::for_each`]): waking an
//! idle core can take longer than a whole megabyte takes one core
//! (PERFORMANCE-HISTORY.md, `parallel.rs`). So a call
//! is never much slower than one core, and as fast as all cores when they are
//! at hand; helpers stay awake for a while after a call so that the next one
//! finds them at hand.
//!
//! What it leaves behind: the record keys, H and the partial sums move
//! between frames and threads here, so rather than keep every copy in a
//! wiped structure, the work runs in a frame of its own and the stack below
//! is zeroed after it, on the caller and after each helper's turn
//! ([`crate::buffers::scrub_stack`]; `tests/residue.rs` checks the caller).

use crate::Error;
use crate::backend::{Aes, Block, Polyval, counter_add_le32};
use crate::limits::{GCM_SIV, NONCE_LEN};
use crate::pieces;
use crate::siv::{GcmSiv, initial_counter};
use std::cell::Cell;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use std::vec::Vec;
use zeroize::Zeroize;

/// Below this, one core is as fast as splitting when the pool is asleep:
/// waking a helper costs the caller microseconds, and the helper can arrive
/// milliseconds later (the measured crossover: PERFORMANCE-HISTORY.md,
/// `parallel.rs`).
pub const DEFAULT_PARALLEL_THRESHOLD: usize = 4 << 20;

/// With the default threshold, messages from this size up also go to all
/// cores inside a burst of large calls: when a helper is awake from a
/// recent call (it joins at once and nobody is woken), or when this
/// thread's previous call of this size started less than [`BURST`] ago (the
/// helpers woken now will still be awake for the calls that follow). A lone call of 1 to
/// 4 MiB stays on one core, where waking a helper would cost it more than
/// the helper brings.
pub const WARM_PARALLEL_THRESHOLD: usize = 1 << 20;

/// Calls of at least [`WARM_PARALLEL_THRESHOLD`] bytes from one thread
/// starting within this of each other form a burst.
const BURST: Duration = Duration::from_millis(1);

std::thread_local! {
    /// When this thread's last call of at least [`WARM_PARALLEL_THRESHOLD`]
    /// bytes started. Per thread: a burst is one caller's stream, not the
    /// calls of a server's many threads, which already keep its cores busy.
    static LAST_LARGE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Which messages a key processes on all cores.
#[derive(Clone, Copy)]
pub(crate) enum Threshold {
    /// [`DEFAULT_PARALLEL_THRESHOLD`], with the burst rule of
    /// [`WARM_PARALLEL_THRESHOLD`].
    Default,
    /// The user's: messages of at least this many bytes, exactly.
    Exact(usize),
    /// None: every message on the calling thread.
    Off,
}

/// Whether a message of `len` bytes goes to all cores under `threshold`.
pub(crate) fn worth_it(threshold: Threshold, len: usize) -> bool {
    let t = match threshold {
        Threshold::Off => return false,
        Threshold::Exact(t) => return len >= t,
        Threshold::Default => DEFAULT_PARALLEL_THRESHOLD,
    };
    if len < WARM_PARALLEL_THRESHOLD {
        return false;
    }
    let now = Instant::now();
    let burst =
        LAST_LARGE.with(|last| last.replace(Some(now))).is_some_and(|t| now.duration_since(t) < BURST);
    len >= t || burst || pieces::helper_awake()
}

/// The largest piece: small enough that a helper arriving late still finds
/// work, large enough that claiming a piece and joining its sum (a lock and
/// one multiplication) stay near 1% of its cost. It matters from 2 MiB
/// (below, pieces are an eighth of a thread's share; PERFORMANCE-HISTORY.md,
/// `parallel.rs`).
const PIECE_MAX: usize = 256 * 1024;

/// Piece size for `len` bytes: about eight pieces per thread, whole blocks
/// (every piece but the last starts and ends on a block boundary).
fn piece_len(len: usize) -> usize {
    let threads = rayon::current_num_threads().max(1);
    (len / (8 * threads) / 16 * 16).clamp(16, PIECE_MAX)
}

/// Helpers worth asking for `pieces` pieces: one per other thread of the pool.
fn helpers(pieces: usize) -> usize {
    rayon::current_num_threads().saturating_sub(1).min(pieces.saturating_sub(1))
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
        GCM_SIV.check_seal(nonce.len(), aad.len(), buffer.len())?;
        let tag = self.seal_on_all_cores(nonce, aad, buffer);
        crate::buffers::scrub_stack();
        Ok(tag)
    }

    /// [`Self::seal_in_place_parallel`]'s work, in a frame of its own so that
    /// the scrub after it also covers what it moved and left behind (the
    /// record keys returned by value, say): every secret of the call lives
    /// in this frame or below it.
    #[inline(never)]
    fn seal_on_all_cores(&self, nonce: &[u8; NONCE_LEN], aad: &[u8], buffer: &mut [u8]) -> Block {
        let (encryption_key, mut hash) = self.derive_record_keys(nonce);
        let piece = piece_len(buffer.len());
        let mut partials = Partials::new(buffer.len(), piece);
        let helpers = helpers(partials.sums.len());
        let mut h = hash.key();
        // Pass 1: partial POLYVAL sums; the first piece also absorbs the AAD.
        pieces::for_each(buffer.chunks(piece).enumerate(), helpers, |(i, chunk)| {
            let sum = partial_sum(&encryption_key, &h, i, aad, |hash| hash.update_padded(chunk));
            partials.set(i, sum);
        });
        h.zeroize();
        partials.join(&mut hash, aad);
        let tag = crate::siv::finish_tag(&encryption_key, &mut hash, aad.len(), buffer.len(), nonce);
        // Pass 2: CTR by counter ranges.
        let counter = initial_counter(&tag);
        pieces::for_each(buffer.chunks_mut(piece).enumerate(), helpers, |(i, chunk)| {
            encryption_key.ctr32le(&counter_add_le32(&counter, ((i * piece) / 16) as u32), chunk);
        });
        tag
    }

    /// [`GcmSiv::open_in_place`] on all cores (its parameters and first
    /// check, on purpose: the caller picks one or the other by length): each
    /// piece is decrypted and hashed in one pass; nothing is released unless
    /// the whole tag matches (on failure the buffer holds the ciphertext
    /// again, as on one core).
    pub(crate) fn open_in_place_parallel(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &Block,
    ) -> Result<(), Error> {
        GCM_SIV.check_open(nonce.len(), aad.len(), buffer.len())?;
        // A panic in a piece (re-raised here from a helper too) must not leave
        // the pieces already decrypted in the caller's buffer.
        let expected = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.open_on_all_cores(nonce, aad, buffer, tag)
        }))
        .unwrap_or_else(|panic| {
            buffer.zeroize();
            std::panic::resume_unwind(panic)
        });
        crate::buffers::scrub_stack();
        // A failure (public) puts the ciphertext back on one core.
        crate::verify::release_if_tags_match(&expected, tag, buffer, |b| {
            self.restore_ciphertext(nonce, tag, b)
        })
    }

    /// [`Self::open_in_place_parallel`]'s work up to the tag it expects, in a
    /// frame of its own, as [`Self::seal_on_all_cores`].
    #[inline(never)]
    fn open_on_all_cores(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &Block,
    ) -> Block {
        let (encryption_key, mut hash) = self.derive_record_keys(nonce);
        let piece = piece_len(buffer.len());
        let mut partials = Partials::new(buffer.len(), piece);
        let helpers = helpers(partials.sums.len());
        let mut h = hash.key();
        let counter = initial_counter(tag);
        pieces::for_each(buffer.chunks_mut(piece).enumerate(), helpers, |(i, chunk)| {
            let c = counter_add_le32(&counter, ((i * piece) / 16) as u32);
            let sum = partial_sum(&encryption_key, &h, i, aad, |hash| {
                encryption_key.ctr32le_then_polyval(&c, chunk, hash)
            });
            partials.set(i, sum);
        });
        h.zeroize();
        partials.join(&mut hash, aad);
        crate::siv::finish_tag(&encryption_key, &mut hash, aad.len(), buffer.len(), nonce)
    }
}

/// One piece's POLYVAL sum from zero; the first piece's also covers the AAD.
/// `absorb` feeds the piece.
fn partial_sum<A: Aes>(
    key: &A,
    h: &Block,
    index: usize,
    aad: &[u8],
    absorb: impl FnOnce(&mut A::Polyval),
) -> Block {
    let mut hash = key.polyval(h);
    if index == 0 {
        hash.update_padded(aad);
    }
    absorb(&mut hash);
    hash.finalize()
}

/// The pieces' partial sums, filled in any order, joined in order, wiped.
struct Partials {
    sums: Vec<Mutex<Block>>,
    /// Blocks in each piece but the last, and in the last.
    piece_blocks: u64,
    last_blocks: u64,
}

impl Partials {
    fn new(len: usize, piece: usize) -> Self {
        let count = len.div_ceil(piece);
        let last = len - count.saturating_sub(1) * piece;
        Partials {
            sums: (0..count).map(|_| Mutex::new([0; 16])).collect(),
            piece_blocks: (piece / 16) as u64,
            last_blocks: last.div_ceil(16) as u64,
        }
    }

    fn set(&self, index: usize, sum: Block) {
        *self.sums[index].lock().unwrap_or_else(std::sync::PoisonError::into_inner) = sum;
    }

    /// S = (((S_0 H^n1) ^ S_1) H^n2) ^ S_2 ..., into `hash`. With no pieces
    /// at all (empty message), S is just POLYVAL over the AAD.
    fn join<P: Polyval>(&mut self, hash: &mut P, aad: &[u8]) {
        let count = self.sums.len();
        if count == 0 {
            hash.update_padded(aad);
            return;
        }
        let mut power = hash.power(self.piece_blocks);
        let mut s = *self.sums[0].get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        for i in 1..count {
            if i == count - 1 && self.last_blocks != self.piece_blocks {
                power.zeroize();
                power = hash.power(self.last_blocks);
            }
            let sum = self.sums[i].get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
            s = (u128::from_le_bytes(hash.dot(&s, &power)) ^ u128::from_le_bytes(*sum)).to_le_bytes();
        }
        hash.set_state(&s);
        power.zeroize();
        s.zeroize();
    }
}

impl Drop for Partials {
    fn drop(&mut self) {
        for sum in &mut self.sums {
            sum.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner).zeroize();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{DEFAULT_PARALLEL_THRESHOLD, Threshold, WARM_PARALLEL_THRESHOLD, worth_it};

    /// The threshold rule: the user's threshold is exact; the default one
    /// also takes large calls in a burst. (Whether a lone call between the
    /// two sizes goes to all cores depends on helpers that other tests may
    /// have left awake, so it is not asserted here.)
    #[test]
    fn thresholds() {
        assert!(!worth_it(Threshold::Off, 1 << 30));
        assert!(worth_it(Threshold::Exact(0), 0));
        assert!(!worth_it(Threshold::Exact(2 << 20), (2 << 20) - 1));
        assert!(worth_it(Threshold::Exact(2 << 20), 2 << 20));
        // A threshold the user sets equal to the default's value is exact
        // too: no burst rule below it, however many calls come.
        let exact = Threshold::Exact(DEFAULT_PARALLEL_THRESHOLD);
        assert!((0..5).all(|_| !worth_it(exact, WARM_PARALLEL_THRESHOLD)));
        let default = Threshold::Default;
        assert!(!worth_it(default, WARM_PARALLEL_THRESHOLD - 1));
        assert!(worth_it(default, DEFAULT_PARALLEL_THRESHOLD));
        // Two calls in a row: the second is in a burst (a few tries, in case
        // this thread is preempted for a millisecond between them).
        assert!((0..5).any(|_| {
            worth_it(default, WARM_PARALLEL_THRESHOLD);
            worth_it(default, WARM_PARALLEL_THRESHOLD)
        }));
    }
}
