//! A batch of consecutive chunks in one buffer, sealed or opened together
//! (on rayon's pool when the batch holds more than one). Each chunk has a slot
//! laid out as the chunk is stored in a file (`W || ciphertext || tag`), so a
//! batch of sealed chunks is one contiguous write, and a batch read from a
//! file is one contiguous read. Every reader and writer of this crate works
//! through it: the mode logic of the format is here once.

use std::io::{self, Read};

use rayon::prelude::*;

use crate::error::{DecodeError, Error};
use crate::format::{
    CHUNK_OVERHEAD, MAC_LEN, TAG_LEN, WORD_LEN, chunk_aad, chunk_nonce, chunk_word, parse_chunk_word,
};
use crate::keys::PayloadCipher;
use crate::session::{Session, read_full};

/// What follows a batch's last chunk in the input.
#[derive(Debug)]
pub(crate) enum After {
    /// More chunks.
    More,
    /// Nothing: the batch ends with the file's final chunk.
    Done,
    /// An error at this point of the input.
    Failed(Error),
}

/// Target plaintext bytes per batch; a batch also holds at least two chunks per
/// thread when it runs in parallel, up to [`BATCH_BYTES_MAX`].
#[cfg(not(fuzzing))]
const BATCH_BYTES: usize = 2 << 20;
/// Fuzzing builds batch 4 KiB, so inputs of a few KiB reach a second batch.
#[cfg(fuzzing)]
const BATCH_BYTES: usize = 4 << 10;

/// The most plaintext one batch holds, whatever the number of threads: with
/// the largest chunks (1 MiB) and many cores, two chunks per thread would be
/// 128 MiB a batch on 64 threads, and a pipeline holds [`crate::pipeline::BATCHES`]
/// batches. At the default 64 KiB chunks the cap binds only past 128 threads.
pub(crate) const BATCH_BYTES_MAX: usize = 16 << 20;

/// How many chunks of what size a batch holds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    pub chunk_size: usize,
    pub per_batch: usize,
    pub parallel: bool,
}

impl Layout {
    /// Batches of about 2 MiB sized for rayon's pool, or of one chunk when
    /// `parallel` is off (nothing gained by more, and less memory).
    pub fn new(chunk_size: usize, parallel: bool) -> Self {
        let per_batch = if parallel {
            let per_thread = (2 * rayon::current_num_threads()).min(BATCH_BYTES_MAX / chunk_size);
            (BATCH_BYTES / chunk_size).max(per_thread).max(1)
        } else {
            1
        };
        Layout { chunk_size, per_batch, parallel }
    }

    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.per_batch * self.chunk_size
    }

    /// Bytes of one stored chunk of `C` plaintext bytes.
    pub fn slot(&self) -> usize {
        self.chunk_size + CHUNK_OVERHEAD
    }
}

/// Consecutive chunks of one file.
pub(crate) struct Batch {
    pub layout: Layout,
    pub buf: Vec<u8>,
    /// Plaintext length of each chunk in the batch.
    pub lens: Vec<usize>,
    /// Index of the batch's first chunk in the file.
    pub first: u64,
    /// Whether the batch's last chunk is the file's final chunk.
    pub ends_with_final: bool,
}

impl Batch {
    /// An empty batch with room for `layout.per_batch` chunks.
    pub fn new(layout: Layout) -> Self {
        Batch {
            layout,
            buf: vec![0; layout.per_batch * layout.slot()],
            lens: Vec::with_capacity(layout.per_batch),
            first: 0,
            ends_with_final: false,
        }
    }

    /// Empties the batch, whose next chunk will be chunk `first` of the file.
    pub fn reset(&mut self, first: u64) {
        self.lens.clear();
        self.first = first;
        self.ends_with_final = false;
    }

    /// Whether chunk `k` of the batch is the file's final chunk.
    pub fn is_final(&self, k: usize) -> bool {
        self.ends_with_final && k + 1 == self.lens.len()
    }

    /// Whether the batch has room for another chunk.
    pub fn is_full(&self) -> bool {
        self.lens.len() == self.layout.per_batch
    }

    /// Slot `k`: where chunk `k` of the batch is stored.
    pub fn slot_mut(&mut self, k: usize) -> &mut [u8] {
        let slot = self.layout.slot();
        &mut self.buf[k * slot..(k + 1) * slot]
    }

    /// The plaintext (or ciphertext) of chunk `k`.
    pub fn body(&self, k: usize) -> &[u8] {
        let at = k * self.layout.slot() + WORD_LEN;
        &self.buf[at..at + self.lens[k]]
    }

    /// Room for the plaintext of chunk `k` (`C` bytes, and the tag's room after it).
    pub fn body_mut(&mut self, k: usize) -> &mut [u8] {
        let at = k * self.layout.slot() + WORD_LEN;
        &mut self.buf[at..at + self.layout.chunk_size + TAG_LEN]
    }

    /// The stored bytes of the whole batch: every chunk but the last fills its
    /// slot, so they are one run.
    pub fn stored(&self) -> &[u8] {
        match self.lens.last() {
            Some(&last) => &self.buf[..(self.lens.len() - 1) * self.layout.slot() + last + CHUNK_OVERHEAD],
            None => &[],
        }
    }

    /// Index of the chunk after the batch, or the counter's cap.
    pub fn next_index(&self) -> Result<u64, DecodeError> {
        self.first.checked_add(self.lens.len() as u64).ok_or(DecodeError::TooManyChunks)
    }

    /// Reads plaintext into the batch's slots until it is full or the input
    /// ends (then its last chunk is final). Each read asks for one byte more
    /// than a chunk: if it comes, the chunk is not final and the byte starts
    /// the next chunk (kept in `carry`), so the final chunk is known without a
    /// second buffer. Returns whether the input ended.
    pub fn fill_plaintext(
        &mut self,
        input: &mut (impl Read + ?Sized),
        carry: &mut Option<u8>,
    ) -> io::Result<bool> {
        let chunk = self.layout.chunk_size;
        while !self.is_full() {
            let k = self.lens.len();
            // C + 1 bytes fit: the slot has room for the tag after the chunk.
            let body = &mut self.body_mut(k)[..chunk + 1];
            let mut got = 0;
            if let Some(byte) = carry.take() {
                body[0] = byte;
                got = 1;
            }
            got += read_full(input, &mut body[got..])?;
            if got > chunk {
                *carry = Some(body[chunk]);
                self.lens.push(chunk);
            } else {
                self.lens.push(got);
                self.ends_with_final = true;
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Reads stored chunks (`W || ciphertext || tag`) into the batch's slots
    /// until it is full or the final chunk is read, checking each `W` against
    /// the chunk size. After the final chunk, reads one byte more to tell a
    /// whole file from trailing data.
    pub fn fill_sealed(&mut self, input: &mut (impl Read + ?Sized)) -> After {
        self.fill_sealed_upto(input, self.layout.per_batch)
    }

    /// [`Batch::fill_sealed`], stopping after `most` chunks in the batch.
    pub fn fill_sealed_upto(&mut self, input: &mut (impl Read + ?Sized), most: usize) -> After {
        while self.lens.len() < most.min(self.layout.per_batch) {
            let index = match self.next_index() {
                Ok(index) => index,
                Err(err) => return After::Failed(err.into()),
            };
            match self.read_chunk(input, index) {
                Ok(false) => {}
                Ok(true) => {
                    self.ends_with_final = true;
                    return match read_full(input, &mut [0u8; 1]) {
                        Ok(0) => After::Done,
                        Ok(_) => After::Failed(DecodeError::TrailingData.into()),
                        Err(e) => After::Failed(Error::read(e)),
                    };
                }
                Err(err) => return After::Failed(err),
            }
        }
        After::More
    }

    /// Reads chunk `index` into the next slot; whether it is the final chunk.
    fn read_chunk(&mut self, input: &mut (impl Read + ?Sized), index: u64) -> Result<bool, Error> {
        let k = self.lens.len();
        let chunk_size = self.layout.chunk_size;
        let slot = self.slot_mut(k);
        let got = read_full(input, &mut slot[..WORD_LEN]).map_err(Error::read)?;
        if got < WORD_LEN {
            return Err(DecodeError::Truncated.into());
        }
        let word = slot[..WORD_LEN].try_into().expect("internal error: word length");
        let (len, last) = parse_chunk_word(word, index, chunk_size)?;
        let body = &mut slot[WORD_LEN..WORD_LEN + len + TAG_LEN];
        if read_full(input, body).map_err(Error::read)? < body.len() {
            return Err(DecodeError::Truncated.into());
        }
        self.lens.push(len);
        Ok(last)
    }

    /// Seals every chunk of the batch in place: writes its length word and tag
    /// around its plaintext.
    pub fn seal(&mut self, session: &Session) {
        let (cipher, mac) = (&session.cipher, &session.header_mac);
        let first = self.first;
        self.for_each_chunk(|k, last, slot, len| {
            seal_chunk(cipher, mac, first + k as u64, last, slot, len);
            true
        });
    }

    /// Opens every chunk in place, whose slots hold the stored chunks; their
    /// length words were checked as they were read. On a failure, the batch
    /// keeps only the chunks before the first that failed (each of those
    /// authenticated), and the others hold ciphertext or nothing: nothing
    /// unauthenticated is released.
    pub fn open(&mut self, session: &Session) -> Result<(), DecodeError> {
        let (cipher, mac) = (&session.cipher, &session.header_mac);
        let first = self.first;
        match self
            .for_each_chunk(|k, last, slot, len| open_chunk(cipher, mac, first + k as u64, last, slot, len))
        {
            None => Ok(()),
            Some(k) => {
                self.lens.truncate(k);
                self.ends_with_final = false;
                Err(DecodeError::ChunkAuthentication(first + k as u64))
            }
        }
    }

    /// Opens the batch, read with `after` following it (see [`Batch::open`]),
    /// and says what follows it now: a forged chunk is reported before
    /// anything after it. When the input itself failed just after the final
    /// chunk (an I/O error, or armor whose END line is missing or followed by
    /// data), the final chunk is held back although it authenticated, so a
    /// broken transport releases nothing of the file's end. Trailing data in
    /// the file itself does not hold it back (docs/FORMAT.md, "Chunks").
    pub fn open_then(&mut self, session: &Session, after: After) -> After {
        if let Err(err) = self.open(session) {
            return After::Failed(err.into());
        }
        if self.ends_with_final && matches!(after, After::Failed(Error::Read(_))) {
            self.lens.pop();
            self.ends_with_final = false;
        }
        after
    }

    /// Runs `f(k, last, slot, len)` on every chunk, in parallel if the layout
    /// says so; returns the first `k` for which it returned false.
    fn for_each_chunk(&mut self, f: impl Fn(usize, bool, &mut [u8], usize) -> bool + Sync) -> Option<usize> {
        let n = self.lens.len();
        let slot = self.layout.slot();
        let final_at = if self.ends_with_final { n.checked_sub(1) } else { None };
        let lens = &self.lens[..];
        let slots = &mut self.buf[..n * slot];
        if self.layout.parallel && n > 1 {
            slots
                .par_chunks_mut(slot)
                .zip(lens)
                .enumerate()
                .position_first(|(k, (slot, &len))| !f(k, Some(k) == final_at, slot, len))
        } else {
            slots
                .chunks_mut(slot)
                .zip(lens)
                .enumerate()
                .position(|(k, (slot, &len))| !f(k, Some(k) == final_at, slot, len))
        }
    }
}

/// A batch holds plaintext: it is wiped when it goes (about 2 MiB of writes,
/// once per reader or writer).
impl Drop for Batch {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.buf.zeroize();
    }
}

/// Seals chunk `index` whose plaintext is in `slot[W..W + len]`.
fn seal_chunk(
    cipher: &PayloadCipher,
    mac: &[u8; MAC_LEN],
    index: u64,
    last: bool,
    slot: &mut [u8],
    len: usize,
) {
    let word = chunk_word(len, last);
    slot[..WORD_LEN].copy_from_slice(&word);
    let (body, rest) = slot[WORD_LEN..].split_at_mut(len);
    let tag = cipher.seal(&chunk_nonce(index, last), &chunk_aad(mac, word), body);
    rest[..TAG_LEN].copy_from_slice(&tag);
}

/// Opens chunk `index` stored in `slot`; whether it authenticated.
fn open_chunk(
    cipher: &PayloadCipher,
    mac: &[u8; MAC_LEN],
    index: u64,
    last: bool,
    slot: &mut [u8],
    len: usize,
) -> bool {
    let word = chunk_word(len, last);
    let (body, rest) = slot[WORD_LEN..].split_at_mut(len);
    let tag: &[u8; TAG_LEN] = rest[..TAG_LEN].try_into().expect("internal error: tag slot");
    cipher.open(&chunk_nonce(index, last), &chunk_aad(mac, word), body, tag)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch's memory is bounded whatever the pool's size: on 256 threads
    /// with 1 MiB chunks, 16 MiB, not 512.
    #[test]
    fn batches_hold_at_most_their_cap_on_any_number_of_threads() {
        for threads in [1, 2, 8, 64, 256] {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| {
                for exp in 10..=20 {
                    let layout = Layout::new(1 << exp, true);
                    assert!(layout.bytes() <= BATCH_BYTES_MAX.max(1 << exp), "{threads} threads, 2^{exp}");
                    assert!(layout.per_batch >= 1);
                    // Enough chunks for every thread where the cap allows.
                    let wanted = (2 * threads).min(BATCH_BYTES_MAX >> exp);
                    assert!(layout.per_batch >= wanted, "{threads} threads, 2^{exp}");
                }
            });
        }
    }
}
