//! The all-cores pipeline for whole files: a reader thread cuts the input into
//! batches of chunks, the calling thread seals or opens each batch's chunks on
//! rayon's pool, and a writer thread writes them in order. A fixed set of
//! batch buffers circulates (reader, then crypto, then writer, then back to the
//! reader), so memory stays at [`BATCHES`] batches of about 2 MiB (two chunks
//! per thread where that is more, up to 16 MiB) whatever the file size, and reading, crypto and writing overlap. This is what the
//! `gcmsiv` tool runs; [`Encryptor::encrypt_from`] and
//! [`Decryptor::decrypt_to`] do the same work without the two I/O threads.
//!
//! Errors travel in order with the data: a batch carries the status of the input
//! after its last chunk, so the writer writes every chunk before the first failure
//! (and, when decrypting, only chunks that authenticated, and not the final chunk
//! if reading the input just after it failed) and then reports it.
//!
//! The reader thread owns the input and is not joined: after a failure it may
//! be blocked reading a pipe; it stops at its next read, once the other stages
//! are gone.

use std::io::{IoSlice, Read, Write};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread;

use crate::chunks::{After, Batch, Layout};
use crate::error::Error;
use crate::read::Decryptor;
use crate::write::Encryptor;

/// Batch buffers in circulation: one each being read, sealed and written, one spare.
pub const BATCHES: usize = 4;

/// A batch and what follows it in the input.
struct Item {
    batch: Batch,
    after: After,
}

impl<W: Write + Send + 'static> Encryptor<W> {
    /// Encrypts everything `input` holds and finishes, with reading, sealing
    /// (on all cores) and writing overlapped in threads; `progress` is called
    /// with the plaintext bytes of each batch read. The encryptor must be
    /// fresh: nothing written to it yet.
    pub fn encrypt_from_pipelined<R: Read + Send + 'static>(
        self,
        mut input: R,
        progress: impl Fn(u64) + Send + 'static,
    ) -> Result<W, Error> {
        let (output, session) = self.into_fresh_parts()?;
        let layout = Layout::new(session.chunk_size(), true);
        let mut carry = None;
        let mut next = 0u64;
        let read = move |batch: &mut Batch| {
            batch.reset(next);
            let after = match batch.fill_plaintext(&mut input, &mut carry) {
                Ok(true) => After::Done,
                Ok(false) => After::More,
                Err(e) => After::Failed(Error::read(e)),
            };
            progress(batch.lens.iter().map(|&l| l as u64).sum());
            match batch.next_index() {
                Ok(n) => {
                    next = n;
                    after
                }
                Err(e) => After::Failed(e.into()),
            }
        };
        let write = |output: &mut W, batch: &Batch| output.write_all(batch.stored());
        run(
            layout,
            output,
            read,
            |batch, after| {
                batch.seal(&session);
                after
            },
            write,
        )
    }
}

impl<R: Read + Send + 'static> Decryptor<R> {
    /// Writes the rest of the plaintext to `output`, with reading, opening (on
    /// all cores) and writing overlapped in threads; `progress` is called with
    /// the stored bytes of each batch read. Only authenticated chunks are
    /// written, and an error comes after the last of them.
    pub fn decrypt_to_pipelined<W: Write + Send + 'static>(
        self,
        mut output: W,
        progress: impl Fn(u64) + Send + 'static,
    ) -> Result<W, Error> {
        let Some((mut input, session, mut next)) = self.into_remaining_parts(&mut output)? else {
            output.flush().map_err(Error::Write)?;
            return Ok(output);
        };
        let layout = Layout::new(session.chunk_size(), true);
        let read = move |batch: &mut Batch| {
            batch.reset(next);
            let after = batch.fill_sealed(&mut input);
            progress(batch.stored().len() as u64);
            match batch.next_index() {
                Ok(n) => {
                    next = n;
                    after
                }
                Err(e) => After::Failed(e.into()),
            }
        };
        let write = |output: &mut W, batch: &Batch| {
            let mut pieces: Vec<IoSlice<'_>> =
                (0..batch.lens.len()).map(|k| IoSlice::new(batch.body(k))).collect();
            write_all_vectored(output, &mut pieces)
        };
        run(layout, output, read, |batch, after| batch.open_then(&session, after), write)
    }
}

/// Wires the three stages together and returns the writer's verdict: `read`
/// fills a batch and says what follows it; `crypto` seals or opens it and
/// says what follows it then (an error keeps the chunks before the failure);
/// `write` writes it.
fn run<W: Write + Send + 'static>(
    layout: Layout,
    mut output: W,
    mut read: impl FnMut(&mut Batch) -> After + Send + 'static,
    crypto: impl Fn(&mut Batch, After) -> After,
    write: impl Fn(&mut W, &Batch) -> std::io::Result<()> + Send + 'static,
) -> Result<W, Error> {
    let (free_tx, free_rx) = sync_channel::<Batch>(BATCHES);
    for _ in 0..BATCHES {
        free_tx.send(Batch::new(layout)).expect("internal error: batch pool");
    }
    let (filled_tx, filled_rx) = sync_channel::<Item>(1);
    let (done_tx, done_rx) = sync_channel::<Item>(1);
    thread::spawn(move || reader(free_rx, filled_tx, &mut read));
    let writer = thread::spawn(move || -> Result<W, Error> {
        for Item { batch, after } in done_rx.iter() {
            write(&mut output, &batch).map_err(Error::Write)?;
            match after {
                After::More => {
                    let _ = free_tx.send(batch);
                }
                After::Done => {
                    output.flush().map_err(Error::Write)?;
                    return Ok(output);
                }
                After::Failed(err) => return Err(err),
            }
        }
        Err(Error::Invalid("internal error: the pipeline stopped early"))
    });
    for Item { mut batch, after } in filled_rx.iter() {
        let item = Item { after: crypto(&mut batch, after), batch };
        let more = matches!(item.after, After::More);
        if done_tx.send(item).is_err() || !more {
            break;
        }
    }
    drop(done_tx);
    writer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

fn reader(free: Receiver<Batch>, filled: SyncSender<Item>, read: &mut impl FnMut(&mut Batch) -> After) {
    while let Ok(mut batch) = free.recv() {
        let after = read(&mut batch);
        let more = matches!(after, After::More);
        if filled.send(Item { batch, after }).is_err() || !more {
            return;
        }
    }
}

/// `write_all` for several buffers in as few system calls as possible.
fn write_all_vectored(output: &mut impl Write, mut pieces: &mut [IoSlice<'_>]) -> std::io::Result<()> {
    IoSlice::advance_slices(&mut pieces, 0);
    while !pieces.is_empty() {
        match output.write_vectored(pieces) {
            Ok(0) => return Err(std::io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut pieces, n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
