//! The chunk pipeline: a reader thread cuts the input into batches of chunks, the
//! rayon pool seals or opens the chunks of a batch in parallel, and a writer thread
//! writes them in order. A fixed set of batch buffers circulates (reader, then
//! crypto, then writer, then back to the reader), so memory stays at
//! `BATCHES` x batch size whatever the file size, and reading, crypto and writing
//! overlap.
//!
//! Errors travel in order with the data: a batch carries the status of the input
//! after its last chunk, so the writer writes every chunk before the first failure
//! (and, when decrypting, only chunks that authenticated) and then reports it.

use std::fs::File;
use std::io::{self, IoSlice, Read, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;

use indicatif::ProgressBar;
use rayon::prelude::*;

use crate::error::{DecodeError, Failure, io_reason};
use crate::format::{
    HEADER_LEN, Header, MAC_LEN, TAG_LEN, WORD_LEN, chunk_aad, chunk_nonce, chunk_word, parse_chunk_word,
};
use crate::keys::PayloadCipher;
use crate::writeback::OutputWriter;

/// Batch buffers in circulation: one each being read, sealed and written, one spare.
const BATCHES: usize = 4;
/// Target bytes per batch; a batch also holds at least two chunks per thread.
const BATCH_BYTES: usize = 2 << 20;

/// How chunks are laid out in a batch buffer: one slot per chunk, each slot the
/// chunk as stored in the file (`W || ciphertext || tag`), so that a batch of full
/// sealed chunks is one contiguous write.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    chunk_size: usize,
    per_batch: usize,
}

impl Layout {
    /// Batches sized for `threads` workers.
    pub fn new(chunk_size: usize, threads: usize) -> Self {
        let per_batch = (BATCH_BYTES / chunk_size).max(2 * threads).max(1);
        Layout { chunk_size, per_batch }
    }

    fn slot(&self) -> usize {
        WORD_LEN + self.chunk_size + TAG_LEN
    }
}

/// What one run needs besides its input and output.
pub struct Job {
    pub cipher: PayloadCipher,
    pub header_mac: [u8; MAC_LEN],
    pub layout: Layout,
    pub progress: ProgressBar,
    /// How to name the input and output in messages.
    pub input_name: String,
    pub output_name: String,
}

/// What follows a batch's last chunk in the input.
enum Status {
    /// More chunks.
    More,
    /// Nothing: the last chunk of the batch is the final chunk.
    Done,
    /// An error at this point of the input.
    Failed(Failure),
}

struct Batch {
    buf: Vec<u8>,
    /// Plaintext length of each chunk in the batch.
    lens: Vec<usize>,
    /// Index of the batch's first chunk in the file.
    first: u64,
    /// Whether the batch's last chunk is the file's final chunk.
    ends_with_final: bool,
    /// What follows the last chunk.
    status: Status,
}

impl Batch {
    fn new(layout: Layout) -> Self {
        Batch {
            buf: vec![0; layout.per_batch * layout.slot()],
            lens: Vec::with_capacity(layout.per_batch),
            first: 0,
            ends_with_final: false,
            status: Status::More,
        }
    }

    fn reset(&mut self, first: u64) {
        self.lens.clear();
        self.first = first;
        self.ends_with_final = false;
        self.status = Status::More;
    }

    /// Whether chunk `k` of the batch is the file's final chunk.
    fn is_final(&self, k: usize) -> bool {
        self.ends_with_final && k + 1 == self.lens.len()
    }
}

impl Job {
    /// A job for the file described by `header`, with batches sized for the pool.
    pub fn new(
        cipher: PayloadCipher,
        header_mac: [u8; MAC_LEN],
        header: &Header,
        progress: &ProgressBar,
        input_name: String,
        output_name: String,
    ) -> Self {
        let layout = Layout::new(header.chunk_size(), rayon::current_num_threads());
        Job { cipher, header_mac, layout, progress: progress.clone(), input_name, output_name }
    }
}

/// Encrypts `input` to `output`: the header, then every chunk sealed.
pub fn encrypt(input: File, output: OutputWriter, header: [u8; HEADER_LEN], job: Job) -> Result<(), Failure> {
    let Job { cipher, header_mac, layout, progress, input_name, output_name } = job;
    run(
        layout,
        move |free, filled| read_plaintext(input, &input_name, layout, &progress, free, filled),
        move |sealed, free| write_sealed(output, &output_name, header, layout, sealed, free),
        |batch| seal_batch(batch, &cipher, &header_mac, layout),
    )
}

/// Decrypts the chunks of `input`, whose header was already read and verified,
/// to `output`. Only authenticated chunks are written.
pub fn decrypt(input: File, output: OutputWriter, job: Job) -> Result<(), Failure> {
    let Job { cipher, header_mac, layout, progress, input_name, output_name } = job;
    run(
        layout,
        move |free, filled| read_sealed(input, &input_name, layout, &progress, free, filled),
        move |opened, free| write_opened(output, &output_name, layout, opened, free),
        |batch| open_batch(batch, &cipher, &header_mac, layout),
    )
}

/// Wires the three stages together and returns the writer's verdict.
fn run(
    layout: Layout,
    reader: impl FnOnce(Receiver<Batch>, SyncSender<Batch>) + Send + 'static,
    writer: impl FnOnce(Receiver<Batch>, SyncSender<Batch>) -> Result<(), Failure> + Send + 'static,
    crypto: impl Fn(&mut Batch),
) -> Result<(), Failure> {
    let (free_tx, free_rx) = sync_channel(BATCHES);
    for _ in 0..BATCHES {
        free_tx.send(Batch::new(layout)).expect("internal error: batch pool");
    }
    let (filled_tx, filled_rx) = sync_channel::<Batch>(1);
    let (done_tx, done_rx) = sync_channel::<Batch>(1);
    // The reader is not joined: it may be blocked reading a pipe after a failure.
    // It stops at its next send once the channels close, or when the process exits.
    thread::spawn(move || reader(free_rx, filled_tx));
    let writer = thread::spawn(move || writer(done_rx, free_tx));
    for mut batch in filled_rx.iter() {
        crypto(&mut batch);
        let more = matches!(batch.status, Status::More);
        if done_tx.send(batch).is_err() || !more {
            break;
        }
    }
    drop(done_tx);
    writer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// Fills `buf` from `input` until it is full or the input ends; returns the count.
pub fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// `write_all` for several buffers in as few system calls as possible.
fn write_all_vectored(output: &mut impl Write, mut pieces: &mut [IoSlice<'_>]) -> io::Result<()> {
    IoSlice::advance_slices(&mut pieces, 0);
    while !pieces.is_empty() {
        match output.write_vectored(pieces) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut pieces, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn read_failure(name: &str, err: &io::Error) -> Failure {
    Failure::usage(format!("cannot read {name}: {}", io_reason(err)))
}

fn write_failure(name: &str, err: &io::Error) -> Failure {
    Failure::usage(format!("cannot write {name}: {}", io_reason(err)))
}

/// Cuts plaintext into chunks. Each read asks for one byte more than a chunk: if it
/// comes, the chunk is not final and the byte starts the next chunk, so the final
/// chunk is known without a second buffer or a zero-length read-ahead.
fn read_plaintext(
    mut input: File,
    name: &str,
    layout: Layout,
    progress: &ProgressBar,
    free: Receiver<Batch>,
    filled: SyncSender<Batch>,
) {
    let (slot, chunk) = (layout.slot(), layout.chunk_size);
    let mut carry: Option<u8> = None;
    let mut next = 0u64;
    while let Ok(mut batch) = free.recv() {
        batch.reset(next);
        let mut bytes = 0u64;
        while batch.lens.len() < layout.per_batch {
            let at = batch.lens.len() * slot + WORD_LEN;
            // C + 1 bytes fit: the slot has room for the tag after the chunk.
            let body = &mut batch.buf[at..at + chunk + 1];
            let mut got = 0;
            if let Some(byte) = carry.take() {
                body[0] = byte;
                got = 1;
            }
            match read_full(&mut input, &mut body[got..]) {
                Ok(n) => got += n,
                Err(e) => {
                    batch.status = Status::Failed(read_failure(name, &e));
                    break;
                }
            }
            if got > chunk {
                carry = Some(body[chunk]);
                batch.lens.push(chunk);
                bytes += chunk as u64;
            } else {
                batch.lens.push(got);
                bytes += got as u64;
                batch.ends_with_final = true;
                batch.status = Status::Done;
                break;
            }
        }
        progress.inc(bytes);
        next += batch.lens.len() as u64;
        let more = matches!(batch.status, Status::More);
        if filled.send(batch).is_err() || !more {
            return;
        }
    }
}

/// Reads stored chunks (`W || ciphertext || tag`) into slots, checking each `W`.
fn read_sealed(
    mut input: File,
    name: &str,
    layout: Layout,
    progress: &ProgressBar,
    free: Receiver<Batch>,
    filled: SyncSender<Batch>,
) {
    let slot = layout.slot();
    let mut next = 0u64;
    while let Ok(mut batch) = free.recv() {
        batch.reset(next);
        let mut bytes = 0u64;
        while batch.lens.len() < layout.per_batch {
            let at = batch.lens.len() * slot;
            let index = next + batch.lens.len() as u64;
            match read_chunk(&mut input, name, &mut batch.buf[at..at + slot], index, layout.chunk_size) {
                Ok((len, last)) => {
                    batch.lens.push(len);
                    bytes += (WORD_LEN + len + TAG_LEN) as u64;
                    if last {
                        // The final chunk is still opened before a failure after it is
                        // reported, so a forged final chunk is reported first.
                        batch.ends_with_final = true;
                        batch.status = match read_full(&mut input, &mut [0u8; 1]) {
                            Ok(0) => Status::Done,
                            Ok(_) => Status::Failed(DecodeError::TrailingData.into()),
                            Err(e) => Status::Failed(read_failure(name, &e)),
                        };
                        break;
                    }
                }
                Err(failure) => {
                    batch.status = Status::Failed(failure);
                    break;
                }
            }
        }
        progress.inc(bytes);
        next += batch.lens.len() as u64;
        let more = matches!(batch.status, Status::More);
        if filled.send(batch).is_err() || !more {
            return;
        }
    }
}

/// Reads one stored chunk into `slot`; returns its plaintext length and final flag.
fn read_chunk(
    input: &mut File,
    name: &str,
    slot: &mut [u8],
    index: u64,
    chunk_size: usize,
) -> Result<(usize, bool), Failure> {
    let mut word = [0u8; WORD_LEN];
    let got = read_full(input, &mut word).map_err(|e| read_failure(name, &e))?;
    if got < WORD_LEN {
        return Err(DecodeError::Truncated.into());
    }
    let (len, last) = parse_chunk_word(word, index, chunk_size)?;
    let body = &mut slot[WORD_LEN..WORD_LEN + len + TAG_LEN];
    if read_full(input, body).map_err(|e| read_failure(name, &e))? < body.len() {
        return Err(DecodeError::Truncated.into());
    }
    slot[..WORD_LEN].copy_from_slice(&word);
    Ok((len, last))
}

fn seal_batch(batch: &mut Batch, cipher: &PayloadCipher, header_mac: &[u8; MAC_LEN], layout: Layout) {
    let slot = layout.slot();
    let n = batch.lens.len();
    let finals: Vec<bool> = (0..n).map(|k| batch.is_final(k)).collect();
    let first = batch.first;
    batch.buf[..n * slot].par_chunks_mut(slot).zip(&batch.lens[..]).zip(finals).enumerate().for_each(
        |(k, ((slot, &len), last))| {
            let word = chunk_word(len, last);
            slot[..WORD_LEN].copy_from_slice(&word);
            let (body, rest) = slot[WORD_LEN..].split_at_mut(len);
            let tag = cipher.seal(&chunk_nonce(first + k as u64, last), &chunk_aad(header_mac, word), body);
            rest[..TAG_LEN].copy_from_slice(&tag);
        },
    );
}

fn open_batch(batch: &mut Batch, cipher: &PayloadCipher, header_mac: &[u8; MAC_LEN], layout: Layout) {
    let slot = layout.slot();
    let n = batch.lens.len();
    let finals: Vec<bool> = (0..n).map(|k| batch.is_final(k)).collect();
    let first = batch.first;
    let bad = batch.buf[..n * slot]
        .par_chunks_mut(slot)
        .zip(&batch.lens[..])
        .zip(finals)
        .enumerate()
        .position_first(|(k, ((slot, &len), last))| {
            let word = chunk_word(len, last);
            let (body, rest) = slot[WORD_LEN..].split_at_mut(len);
            let tag: &[u8; TAG_LEN] = rest[..TAG_LEN].try_into().expect("internal error: tag slot");
            !cipher.open(&chunk_nonce(first + k as u64, last), &chunk_aad(header_mac, word), body, tag)
        });
    if let Some(k) = bad {
        batch.lens.truncate(k);
        batch.ends_with_final = false;
        batch.status = Status::Failed(DecodeError::ChunkAuthentication(first + k as u64).into());
    }
}

fn write_sealed(
    mut output: OutputWriter,
    name: &str,
    header: [u8; HEADER_LEN],
    layout: Layout,
    sealed: Receiver<Batch>,
    free: SyncSender<Batch>,
) -> Result<(), Failure> {
    output.write_all(&header).map_err(|e| write_failure(name, &e))?;
    let slot = layout.slot();
    for batch in sealed.iter() {
        if let Some(&last_len) = batch.lens.last() {
            // Every chunk but the last fills its slot, so the batch is one run of bytes.
            let end = (batch.lens.len() - 1) * slot + WORD_LEN + last_len + TAG_LEN;
            output.write_all(&batch.buf[..end]).map_err(|e| write_failure(name, &e))?;
        }
        match batch.status {
            Status::More => {
                let _ = free.send(batch);
            }
            Status::Done => return Ok(()),
            Status::Failed(failure) => return Err(failure),
        }
    }
    Err(Failure::usage("internal error: the pipeline stopped early"))
}

fn write_opened(
    mut output: OutputWriter,
    name: &str,
    layout: Layout,
    opened: Receiver<Batch>,
    free: SyncSender<Batch>,
) -> Result<(), Failure> {
    let slot = layout.slot();
    for batch in opened.iter() {
        let mut pieces: Vec<IoSlice<'_>> = batch
            .lens
            .iter()
            .enumerate()
            .map(|(k, &len)| IoSlice::new(&batch.buf[k * slot + WORD_LEN..][..len]))
            .collect();
        write_all_vectored(&mut output, &mut pieces).map_err(|e| write_failure(name, &e))?;
        drop(pieces);
        match batch.status {
            Status::More => {
                let _ = free.send(batch);
            }
            Status::Done => return Ok(()),
            Status::Failed(failure) => return Err(failure),
        }
    }
    Err(Failure::usage("internal error: the pipeline stopped early"))
}
