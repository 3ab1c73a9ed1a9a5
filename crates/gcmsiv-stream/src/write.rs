//! Encrypting: [`Encryptor`], a [`Write`] adapter that turns plaintext into a
//! gcmsiv file, and [`encrypt`], the one call for a whole reader.

use std::fmt;
use std::io::{self, Read, Write};

use crate::chunks::{Batch, Layout};
use crate::error::{DecodeError, Error};
use crate::format::Header;
use crate::keys::Secret;
use crate::session::{Options, Session};

/// Writes a gcmsiv file: the header at once, then the plaintext written to it
/// in sealed chunks, a batch at a time (on all cores unless the options say
/// otherwise). Memory stays at one batch (about 2 MiB) whatever the size.
///
/// Call [`Encryptor::finish`] at the end: it seals the final chunk. An
/// encryptor dropped without `finish` leaves a file without a final chunk,
/// which every reader reports as truncated: a program that stops half-way
/// never produces a file that looks complete.
///
/// ```
/// use std::io::{Read, Write};
/// use gcmsiv_stream::{Decryptor, Encryptor, MasterKey, Options, Secret};
///
/// let secret = Secret::Key(MasterKey::generate()?);
/// let mut encryptor = Encryptor::new(Vec::new(), &secret, &Options::new())?;
/// encryptor.write_all(b"hello, ")?;
/// encryptor.write_all(b"world")?;
/// let file = encryptor.finish()?;
///
/// let mut plaintext = Vec::new();
/// Decryptor::new(&file[..], &secret)?.read_to_end(&mut plaintext)?;
/// assert_eq!(plaintext, b"hello, world");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Encryptor<W: Write> {
    output: W,
    session: Session,
    batch: Batch,
    /// Bytes of plaintext in the batch's last chunk.
    filling: usize,
    /// Set once a write failed: the output is no longer a prefix of a valid file.
    poisoned: bool,
}

impl<W: Write> Encryptor<W> {
    /// Derives the file's keys from `secret` (running Argon2id for a
    /// passphrase, at the options' cost) and writes the header to `output`.
    pub fn new(mut output: W, secret: &Secret, options: &Options) -> Result<Self, Error> {
        let (session, header) = Session::create(secret, options)?;
        output.write_all(&header).map_err(Error::Write)?;
        let layout = Layout::new(session.chunk_size(), options.is_parallel());
        let mut batch = Batch::new(layout);
        batch.lens.push(0);
        Ok(Encryptor { output, session, batch, filling: 0, poisoned: false })
    }

    /// The header written.
    pub fn header(&self) -> &Header {
        &self.session.header
    }

    /// The output.
    pub fn get_ref(&self) -> &W {
        &self.output
    }

    /// The output, for the push-based stream that drains it.
    pub(crate) fn output_mut(&mut self) -> &mut W {
        &mut self.output
    }

    /// Seals the final chunk, writes it and flushes; returns the output.
    pub fn finish(mut self) -> io::Result<W> {
        self.check()?;
        let k = self.batch.lens.len() - 1;
        self.batch.lens[k] = self.filling;
        self.batch.ends_with_final = true;
        self.write_batch()?;
        self.output.flush()?;
        Ok(self.output)
    }

    /// Encrypts everything `input` holds and finishes: the one call for a
    /// whole reader, reading straight into the batch (no copy through a
    /// buffer). Returns the output and the plaintext length.
    pub fn encrypt_from(mut self, input: &mut (impl Read + ?Sized)) -> Result<(W, u64), Error> {
        self.check().map_err(Error::Write)?;
        let mut input = Counting { inner: input, count: 0 };
        let mut carry = None;
        if self.filling > 0 {
            // What was written before stays at the start of the open chunk.
            let (k, at) = (self.batch.lens.len() - 1, self.filling);
            let chunk = self.batch.layout.chunk_size;
            let body = &mut self.batch.body_mut(k)[..chunk + 1];
            let got = crate::session::read_full(&mut input, &mut body[at..]).map_err(Error::read)?;
            if at + got > chunk {
                carry = Some(body[chunk]);
                self.batch.lens[k] = chunk;
            } else {
                self.batch.lens[k] = at + got;
                self.batch.ends_with_final = true;
            }
        } else {
            self.batch.lens.clear();
        }
        while !self.batch.ends_with_final {
            if self.batch.is_full() {
                self.write_batch().map_err(Error::Write)?;
                let next = self.batch.next_index()?;
                self.batch.reset(next);
            }
            self.batch.fill_plaintext(&mut input, &mut carry).map_err(Error::read)?;
        }
        self.write_batch().map_err(Error::Write)?;
        self.output.flush().map_err(Error::Write)?;
        Ok((self.output, input.count))
    }

    /// The output and the session of an encryptor nothing was written to.
    pub(crate) fn into_fresh_parts(self) -> Result<(W, Session), Error> {
        self.check().map_err(Error::Write)?;
        if self.filling != 0 || self.batch.lens.len() != 1 || self.batch.first != 0 {
            return Err(Error::Invalid("the pipelined encryption needs an encryptor nothing was written to"));
        }
        Ok((self.output, self.session))
    }

    fn check(&self) -> io::Result<()> {
        if self.poisoned {
            return Err(io::Error::other("an earlier write to this encryptor failed"));
        }
        Ok(())
    }

    /// Seals the batch and writes it.
    fn write_batch(&mut self) -> io::Result<()> {
        self.batch.seal(&self.session);
        let result = self.output.write_all(self.batch.stored());
        self.poisoned |= result.is_err();
        result
    }
}

impl<W: Write> Write for Encryptor<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.check()?;
        if buf.is_empty() {
            return Ok(0);
        }
        let chunk = self.batch.layout.chunk_size;
        let mut done = 0;
        while done < buf.len() {
            // The last chunk is full and more plaintext comes: it is not final.
            if self.filling == chunk {
                let k = self.batch.lens.len() - 1;
                self.batch.lens[k] = chunk;
                if self.batch.is_full() {
                    self.write_batch()?;
                    let next = self.batch.next_index().map_err(io::Error::from)?;
                    self.batch.reset(next);
                }
                if next_index_overflows(&self.batch) {
                    return Err(DecodeError::TooManyChunks.into());
                }
                self.batch.lens.push(0);
                self.filling = 0;
            }
            let k = self.batch.lens.len() - 1;
            let n = (chunk - self.filling).min(buf.len() - done);
            let at = self.filling;
            self.batch.body_mut(k)[at..at + n].copy_from_slice(&buf[done..done + n]);
            self.filling += n;
            done += n;
        }
        Ok(done)
    }

    /// Flushes the output. The plaintext of the chunk being filled stays here:
    /// a chunk is sealed only once it is full and more follows, or at
    /// [`Encryptor::finish`].
    fn flush(&mut self) -> io::Result<()> {
        self.output.flush()
    }
}

/// Counts the bytes read through it.
struct Counting<'a, R: Read + ?Sized> {
    inner: &'a mut R,
    count: u64,
}

impl<R: Read + ?Sized> Read for Counting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

fn next_index_overflows(batch: &Batch) -> bool {
    batch.next_index().is_err()
}

impl<W: Write> fmt::Debug for Encryptor<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Encryptor").field("header", &self.session.header).finish_non_exhaustive()
    }
}

/// Encrypts everything `input` holds to `output` as one gcmsiv file; returns
/// the output and the plaintext length. Chunks are sealed on all cores unless
/// the options say otherwise; for reading, sealing and writing overlapped in
/// threads, see [`crate::pipeline`].
pub fn encrypt<W: Write>(
    input: &mut (impl Read + ?Sized),
    output: W,
    secret: &Secret,
    options: &Options,
) -> Result<(W, u64), Error> {
    Encryptor::new(output, secret, options)?.encrypt_from(input)
}
