//! Arrow columns of variable-length values (Binary, LargeBinary, String, LargeString):
//! checked whole before any work, then sealed or opened value by value through the core's
//! batch path, on several threads for a large column. Free of Python: `arrow.rs` lends
//! the buffers and allocates the results; `column_io.rs` reads and writes the layout.
//!
//! The stored forms (docs/ARROW.md): random mode `nonce || ciphertext || tag`, a fresh
//! nonce per value; deterministic mode `ciphertext || tag` under the all-zero nonce, so that
//! equal (value, associated data) pairs give equal ciphertexts.

use crate::buffer::{init_array, init_copy};
use crate::column_io::{Aad, Column, Mode};
use gcmsiv::{Algorithm, Backend, BatchItem, Cipher, Error, NONCE_LEN, TAG_LEN};
use std::mem::MaybeUninit;
use std::ops::Range;
use zeroize::Zeroizing;

/// The nonce of every value in deterministic mode: the synthetic IV (the tag, a PRF of
/// key, associated data and value) is then the only thing that varies, which is the
/// deterministic use RFC 8452 allows for.
const FIXED_NONCE: [u8; NONCE_LEN] = [0; NONCE_LEN];

/// Values handed to the core in one batch call: enough for its groups of 16 and for the
/// per-call set-up to vanish, few enough that a group's inputs stay in cache.
const GROUP_VALUES: usize = 256;

/// Work charged to each value for its fixed cost (record keys, tag), in bytes of data
/// that take as long; only used to split a column evenly between threads.
const PER_VALUE_WORK: usize = 64;

/// Work below which a thread is not worth starting (about 100 microseconds of one core):
/// spawning one costs tens of microseconds.
const MIN_THREAD_WORK: usize = 256 * 1024;

/// Ranges of values, one per thread, of about equal work. `out_start(i)` is where value
/// `i`'s output starts (non-decreasing, `out_start(len)` the total).
fn split(len: usize, threads: usize, out_start: impl Fn(usize) -> usize) -> Vec<Range<usize>> {
    let work = |i: usize| out_start(i) + PER_VALUE_WORK * i;
    let total = work(len);
    let threads = threads.clamp(1, (total / MIN_THREAD_WORK).max(1)).min(len.max(1));
    let mut ranges = Vec::with_capacity(threads);
    let mut start = 0;
    for t in 1..=threads {
        let end = if t == threads { len } else { first_at_least(start, len, total / threads * t, work) };
        ranges.push(start..end);
        start = end;
    }
    ranges
}

/// The first `i` in `lo..=hi` with `work(i) >= target` (`hi` if none); `work` is
/// non-decreasing.
fn first_at_least(mut lo: usize, mut hi: usize, target: usize, work: impl Fn(usize) -> usize) -> usize {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if work(mid) >= target { hi = mid } else { lo = mid + 1 }
    }
    lo
}

/// Runs `job` on each range with its part of `out`, on a thread each but the first, which
/// runs on the caller. `out_start(i)` is where value `i`'s output starts in `out`.
fn on_threads<T: Send>(
    ranges: Vec<Range<usize>>,
    out: &mut [MaybeUninit<u8>],
    out_start: impl Fn(usize) -> usize,
    job: impl Fn(usize, Range<usize>, &mut [MaybeUninit<u8>]) -> T + Sync,
) -> Vec<T> {
    let mut parts = Vec::with_capacity(ranges.len());
    let mut rest = out;
    for range in &ranges {
        let (part, tail) = rest.split_at_mut(out_start(range.end) - out_start(range.start));
        parts.push(part);
        rest = tail;
    }
    let job = &job;
    let mut work = ranges.into_iter().zip(parts).enumerate();
    let first = work.next();
    std::thread::scope(|scope| {
        // `spawn` panics if the system has no thread left to give, which the binding
        // raises as `PanicException`: nothing is returned then.
        let handles: Vec<_> =
            work.map(|(t, (range, part))| scope.spawn(move || job(t, range, part))).collect();
        let mut results: Vec<T> = first.into_iter().map(|(t, (range, part))| job(t, range, part)).collect();
        for handle in handles {
            match handle.join() {
                Ok(result) => results.push(result),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        results
    })
}

/// Nonces for random mode: the AES-CTR keystream of AES-256-GCM-SIV under a key drawn
/// from the operating system for this call, each block of nonces sealed under its own
/// (counter, stream) nonce, so streams and blocks never share keystream. A CSPRNG in the
/// manner of NIST's CTR_DRBG, on the AES units (about a cycle per byte, where a system
/// call per value, or even per group, cost more than the value's encryption).
pub(crate) struct NonceSource {
    cipher: Cipher,
    stream: u32,
    counter: u64,
}

impl NonceSource {
    /// A 32-byte seed from the operating system, for one call's streams.
    pub(crate) fn seed() -> Result<Zeroizing<[u8; 32]>, getrandom::Error> {
        let mut seed = Zeroizing::new([0u8; 32]);
        getrandom::fill(&mut seed[..])?;
        Ok(seed)
    }

    fn new(seed: &[u8; 32], stream: u32) -> Self {
        let cipher = Cipher::new(Algorithm::Aes256GcmSiv, seed, TAG_LEN, Backend::select())
            .expect("internal error: a 32-byte key");
        NonceSource { cipher, stream, counter: 0 }
    }

    fn fill(&mut self, out: &mut [u8]) {
        let mut nonce = [0u8; NONCE_LEN];
        nonce[..8].copy_from_slice(&self.counter.to_le_bytes());
        nonce[8..].copy_from_slice(&self.stream.to_le_bytes());
        self.counter += 1;
        out.fill(0);
        let mut tag = [0u8; TAG_LEN];
        self.cipher
            .encrypt_in_place_detached(&nonce, &[], out, &mut tag)
            .expect("internal error: a short keystream request");
    }
}

/// One chunk's work: its cipher, mode, values and associated data, checked
/// (`column_io::check`).
pub(crate) struct Job<'a> {
    pub(crate) cipher: Box<Cipher>,
    pub(crate) mode: Mode,
    pub(crate) values: Column<'a>,
    pub(crate) aad: Aad<'a>,
}

impl Job<'_> {
    /// Seals every non-null value into `out`, the result's data buffer, whose value `i`
    /// starts at `out_start(i)`; `seed` seeds random mode's nonces.
    pub(crate) fn seal(
        &self,
        out: &mut [MaybeUninit<u8>],
        out_start: impl Fn(usize) -> usize + Sync,
        threads: usize,
        seed: Option<&[u8; 32]>,
    ) -> Result<(), Error> {
        let results = self.on_threads(out, out_start, threads, |t, range, part| {
            let nonces = seed.map(|seed| NonceSource::new(seed, t as u32));
            seal_range(self, range, part, nonces)
        });
        results.into_iter().collect()
    }

    /// Opens every non-null value into `out`, as [`Job::seal`] seals them: the indices of
    /// the values that failed authentication, in order; their bytes in `out` are zeros,
    /// never unauthenticated plaintext.
    pub(crate) fn open(
        &self,
        out: &mut [MaybeUninit<u8>],
        out_start: impl Fn(usize) -> usize + Sync,
        threads: usize,
    ) -> Result<Vec<usize>, Error> {
        let results =
            self.on_threads(out, out_start, threads, |_, range, part| open_range(self, range, part));
        let mut failed = Vec::new();
        for result in results {
            failed.extend(result?);
        }
        Ok(failed)
    }

    /// Splits the values between up to `threads` threads and runs `job` on each share.
    fn on_threads<T: Send>(
        &self,
        out: &mut [MaybeUninit<u8>],
        out_start: impl Fn(usize) -> usize + Sync,
        threads: usize,
        job: impl Fn(usize, Range<usize>, &mut [MaybeUninit<u8>]) -> T + Sync,
    ) -> Vec<T> {
        let ranges = split(self.values.len(), threads, &out_start);
        on_threads(ranges, out, &out_start, job)
    }
}

fn seal_range<'a>(
    job: &Job<'a>,
    range: Range<usize>,
    mut out: &'a mut [MaybeUninit<u8>],
    mut nonces: Option<NonceSource>,
) -> Result<(), Error> {
    let Job { cipher, mode, values, aad } = job;
    let mode = *mode;
    let mut items: Vec<BatchItem<'_>> = Vec::with_capacity(GROUP_VALUES);
    let mut tags: Vec<&mut [MaybeUninit<u8>]> = Vec::with_capacity(GROUP_VALUES);
    let mut fresh = [[0u8; NONCE_LEN]; GROUP_VALUES];
    let mut result = Ok(());
    let mut seal_group = |items: &mut Vec<BatchItem<'_>>, tags: &mut Vec<&mut [MaybeUninit<u8>]>| {
        result = result.and(cipher.encrypt_batch(items));
        for (item, tag) in items.drain(..).zip(tags.drain(..)) {
            init_array(tag, &item.tag);
        }
    };
    values.for_each(range, |i, value| {
        let Some(value) = value else { return };
        if items.is_empty()
            && let Some(nonces) = nonces.as_mut()
        {
            nonces.fill(fresh.as_flattened_mut());
        }
        let (slot, rest) = std::mem::take(&mut out).split_at_mut(value.len() + mode.overhead());
        out = rest;
        let (nonce, slot): (&[u8; NONCE_LEN], _) = match mode {
            Mode::Random => {
                let (nonce, slot) = slot.split_at_mut(NONCE_LEN);
                (&*init_array(nonce, &fresh[items.len()]), slot)
            }
            Mode::Deterministic => (&FIXED_NONCE, slot),
        };
        let (body, tag) = slot.split_at_mut(value.len());
        items.push(BatchItem::new(nonce, aad.get(i), init_copy(body, value)));
        tags.push(tag);
        if items.len() == GROUP_VALUES {
            seal_group(&mut items, &mut tags);
        }
    });
    seal_group(&mut items, &mut tags);
    assert!(out.is_empty(), "internal error: output left unwritten");
    result
}

fn open_range<'a>(
    job: &Job<'a>,
    range: Range<usize>,
    mut out: &'a mut [MaybeUninit<u8>],
) -> Result<Vec<usize>, Error> {
    let Job { cipher, mode, values, aad } = job;
    let mode = *mode;
    let mut failed = Vec::new();
    let mut items: Vec<BatchItem<'_>> = Vec::with_capacity(GROUP_VALUES);
    let mut indices = Vec::with_capacity(GROUP_VALUES);
    let mut results = vec![Ok(()); GROUP_VALUES];
    let mut outcome = Ok(());
    let mut open_group = |items: &mut Vec<BatchItem<'_>>, indices: &mut Vec<usize>| {
        let results = &mut results[..items.len()];
        outcome = outcome.and(cipher.decrypt_batch(items, results));
        for ((item, result), index) in items.drain(..).zip(results.iter()).zip(indices.drain(..)) {
            if result.is_err() {
                // The core put the ciphertext back; the result holds zeros instead.
                item.buffer.fill(0);
                failed.push(index);
            }
        }
    };
    values.for_each(range, |i, value| {
        let Some(value) = value else { return };
        let (nonce, sealed) = match mode {
            Mode::Random => value.split_at(NONCE_LEN),
            Mode::Deterministic => (&FIXED_NONCE[..], value),
        };
        let (body, tag) = sealed.split_at(sealed.len() - TAG_LEN);
        let (slot, rest) = std::mem::take(&mut out).split_at_mut(body.len());
        out = rest;
        let nonce = nonce.try_into().expect("internal error: a 12-byte nonce");
        let tag = tag.try_into().expect("internal error: a 16-byte tag");
        items.push(BatchItem::with_tag(nonce, aad.get(i), init_copy(slot, body), tag));
        indices.push(i);
        if items.len() == GROUP_VALUES {
            open_group(&mut items, &mut indices);
        }
    });
    open_group(&mut items, &mut indices);
    assert!(out.is_empty(), "internal error: output left unwritten");
    outcome.map(|()| failed)
}
