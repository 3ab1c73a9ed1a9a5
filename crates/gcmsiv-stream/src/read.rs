//! Decrypting in order: [`Decryptor`], a [`Read`] adapter that releases a
//! chunk's plaintext only once the chunk authenticated, and [`decrypt`], the
//! one call for a whole file.

use std::fmt;
use std::io::{self, Read, Write};

use crate::chunks::{After, Batch, Layout};
use crate::error::Error;
use crate::format::Header;
use crate::keys::Secret;
use crate::session::Session;

/// Reads a gcmsiv file and yields its plaintext. The header is checked (and
/// the secret verified against its MAC) when the decryptor is made; then
/// chunks are read a batch at a time (about 2 MiB, opened on all cores unless
/// [`Decryptor::parallel`] turns it off), and a chunk's plaintext is released
/// only after that chunk authenticated.
///
/// Errors arrive in file order: every authenticated chunk before a failure is
/// released, then `read` fails with an [`io::ErrorKind::InvalidData`] error
/// carrying the [`DecodeError`](crate::DecodeError) ([`DecodeError::from_io`](crate::DecodeError::from_io) recovers it):
/// a file cut anywhere is `Truncated`, a chunk moved, forged or
/// replaced is `ChunkAuthentication`, bytes after the final
/// chunk are `TrailingData`. The final chunk is released only after the
/// input was read past it: if that read fails (an I/O error, or armor without
/// its END line), nothing of the final chunk is released. Only `Ok(0)` says the whole file
/// was intact; a consumer that acts on plaintext before it must be ready to
/// undo it.
pub struct Decryptor<R: Read> {
    input: R,
    session: Session,
    batch: Batch,
    /// Next chunk of the batch to release, and bytes of it already released.
    at: (usize, usize),
    /// What follows the batch.
    after: After,
    /// A failure already reported, repeated to later reads.
    failed: Option<io::ErrorKind>,
}

impl<R: Read> Decryptor<R> {
    /// Reads the header from `input` and verifies it with `secret` (running
    /// Argon2id at the header's cost for a passphrase, within the format's
    /// caps). A wrong secret is `DecodeError::WrongKey` here, before any
    /// chunk is read.
    pub fn new(mut input: R, secret: &Secret) -> Result<Self, Error> {
        let session = Session::read(&mut input, secret)?;
        let layout = Layout::new(session.chunk_size(), true);
        Ok(Decryptor {
            input,
            session,
            batch: Batch::new(layout),
            at: (0, 0),
            after: After::More,
            failed: None,
        })
    }

    /// Opens chunks on the calling thread only, one at a time (less memory,
    /// no work on rayon's pool); call before the first read.
    pub fn parallel(mut self, parallel: bool) -> Self {
        if self.batch.lens.is_empty() {
            self.batch = Batch::new(Layout::new(self.session.chunk_size(), parallel));
        }
        self
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.session.header
    }

    /// Writes the rest of the plaintext to `output`, read and opened a batch at
    /// a time; returns the output and the bytes written. Only authenticated
    /// chunks are written, and the error comes after the last of them.
    pub fn decrypt_to<W: Write>(mut self, mut output: W) -> Result<(W, u64), Error> {
        if self.failed.is_some() {
            return Err(Error::Invalid("an earlier read of this gcmsiv file failed"));
        }
        let mut total = 0u64;
        loop {
            let (k, off) = self.at;
            for j in k..self.batch.lens.len() {
                let body = &self.batch.body(j)[if j == k { off } else { 0 }..];
                output.write_all(body).map_err(Error::Write)?;
                total += body.len() as u64;
            }
            self.at = (self.batch.lens.len(), 0);
            match std::mem::replace(&mut self.after, After::More) {
                After::More => self.refill(),
                After::Done => return Ok((output, total)),
                After::Failed(err) => return Err(err),
            }
        }
    }

    /// Writes the plaintext already opened to `output`; then the input, the
    /// session and the next chunk's index, if chunks remain.
    pub(crate) fn into_remaining_parts(
        self,
        output: &mut impl Write,
    ) -> Result<Option<(R, Session, u64)>, Error> {
        if self.failed.is_some() {
            return Err(Error::Invalid("an earlier read of this gcmsiv file failed"));
        }
        let (k, off) = self.at;
        for j in k..self.batch.lens.len() {
            output.write_all(&self.batch.body(j)[if j == k { off } else { 0 }..]).map_err(Error::Write)?;
        }
        match self.after {
            After::More => {
                let next = self.batch.next_index()?;
                Ok(Some((self.input, self.session, next)))
            }
            After::Done => Ok(None),
            After::Failed(err) => Err(err),
        }
    }

    /// Reads and opens the next batch.
    fn refill(&mut self) {
        let first = match self.batch.next_index() {
            Ok(first) => first,
            Err(err) => {
                self.after = After::Failed(err.into());
                return;
            }
        };
        self.batch.reset(first);
        self.at = (0, 0);
        let after = self.batch.fill_sealed(&mut self.input);
        self.after = self.batch.open_then(&self.session, after);
    }
}

impl<R: Read> Read for Decryptor<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some(kind) = self.failed {
            return Err(io::Error::new(kind, "an earlier read of this gcmsiv file failed"));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            let (k, off) = self.at;
            if k < self.batch.lens.len() {
                let body = self.batch.body(k);
                let n = (body.len() - off).min(buf.len());
                buf[..n].copy_from_slice(&body[off..off + n]);
                self.at = if off + n == body.len() { (k + 1, 0) } else { (k, off + n) };
                if n > 0 {
                    return Ok(n);
                }
                continue;
            }
            match std::mem::replace(&mut self.after, After::More) {
                After::More => self.refill(),
                After::Done => {
                    self.after = After::Done;
                    return Ok(0);
                }
                After::Failed(err) => {
                    let err = io::Error::from(err);
                    self.failed = Some(err.kind());
                    return Err(err);
                }
            }
        }
    }
}

impl<R: Read> fmt::Debug for Decryptor<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decryptor").field("header", &self.session.header).finish_non_exhaustive()
    }
}

/// Decrypts the gcmsiv file `input` holds to `output`; returns the output and
/// the plaintext length. Only authenticated chunks are written: on an error,
/// what was written is a correct prefix of the plaintext.
pub fn decrypt<W: Write>(input: impl Read, output: W, secret: &Secret) -> Result<(W, u64), Error> {
    Decryptor::new(input, secret)?.decrypt_to(output)
}
