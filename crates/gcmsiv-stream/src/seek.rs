//! Random access: [`SeekableDecryptor`] reads plaintext at any offset of a
//! gcmsiv file held by any [`Read`] + [`Seek`] source, authenticating only the
//! chunks it touches.

use std::fmt;
use std::io::{self, Read, Seek, SeekFrom};

use crate::chunks::{After, Batch, Layout};
use crate::error::{DecodeError, Error};
use crate::format::{Geometry, HEADER_LEN, Header};
use crate::keys::Secret;
use crate::session::Session;

/// Plaintext at any offset of a gcmsiv file, as a [`Read`] + [`Seek`] stream
/// and by [`SeekableDecryptor::read_at`].
///
/// Every chunk but the final one holds exactly `C` plaintext bytes, so the
/// chunk holding an offset, and where it is stored, follow from the chunk size
/// alone. Making the decryptor checks the header and authenticates the final
/// chunk (which fixes the plaintext length: a file cut short, or with bytes
/// appended, fails here); a read then reads and authenticates just the chunks
/// it covers (on all cores when there are several) and keeps them for the
/// next read. No plaintext of a chunk is released before that chunk
/// authenticated.
///
/// A seek past the end is allowed and reads there return nothing, as on a
/// regular file; a seek to a negative position is an
/// [`io::ErrorKind::InvalidInput`] error.
pub struct SeekableDecryptor<R: Read + Seek> {
    input: R,
    session: Session,
    geometry: Geometry,
    len: u64,
    pos: u64,
    /// Authenticated chunks kept from the last read.
    batch: Batch,
}

impl<R: Read + Seek> SeekableDecryptor<R> {
    /// Checks the header of the file `input` holds (from its start) with
    /// `secret`, and authenticates its final chunk.
    pub fn new(mut input: R, secret: &Secret) -> Result<Self, Error> {
        input.seek(SeekFrom::Start(0)).map_err(Error::Read)?;
        let session = Session::read(&mut input, secret)?;
        let end = input.seek(SeekFrom::End(0)).map_err(Error::Read)?;
        let chunk_size = session.chunk_size();
        let geometry = Geometry::of_payload(end.saturating_sub(HEADER_LEN as u64), chunk_size)
            .ok_or(DecodeError::Truncated)?;
        let layout = Layout::new(chunk_size, true);
        let mut this =
            SeekableDecryptor { input, session, geometry, len: 0, pos: 0, batch: Batch::new(layout) };
        this.load(geometry.final_index, 1)?;
        let final_len = this.batch.lens[0];
        if Some(final_len) != geometry.final_len {
            // The final chunk authenticated, and bytes follow it.
            return Err(DecodeError::TrailingData.into());
        }
        this.len = geometry.final_index * chunk_size as u64 + final_len as u64;
        Ok(this)
    }

    /// The plaintext length (authenticated: the final chunk says it).
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the plaintext is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.session.header
    }

    /// The source.
    pub fn into_inner(self) -> R {
        self.input
    }

    /// Reads plaintext at `offset` into `buf` without moving the stream's
    /// position; returns the bytes read, fewer than `buf.len()` only at the end
    /// of the plaintext (none at or past it).
    pub fn read_at(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            let n = self.read_once(offset + done as u64, &mut buf[done..])?;
            if n == 0 {
                break;
            }
            done += n;
        }
        Ok(done)
    }

    /// Reads from the chunk holding `offset` (loading the chunks `buf` spans
    /// if it is not kept), at most to that chunk's end.
    fn read_once(&mut self, offset: u64, buf: &mut [u8]) -> io::Result<usize> {
        if offset >= self.len || buf.is_empty() {
            return Ok(0);
        }
        let c = self.geometry.chunk_size as u64;
        let index = offset / c;
        let kept = index.checked_sub(self.batch.first).filter(|&k| k < self.batch.lens.len() as u64);
        let k = match kept {
            Some(k) => k as usize,
            None => {
                let end = (offset + buf.len() as u64).min(self.len);
                let spans = (end - 1) / c - index + 1;
                self.load(index, usize::try_from(spans).unwrap_or(usize::MAX))?;
                0
            }
        };
        let body = self.batch.body(k);
        let at = (offset - index * c) as usize;
        let n = (body.len() - at).min(buf.len());
        buf[..n].copy_from_slice(&body[at..at + n]);
        Ok(n)
    }

    /// Reads chunks `first..` (at most `count`, at most a batch) and
    /// authenticates them. Keeps those that authenticated before any failure;
    /// fails if chunk `first` itself did not.
    fn load(&mut self, first: u64, count: usize) -> Result<(), Error> {
        let final_index = self.geometry.final_index;
        let count = count.min(usize::try_from(final_index - first + 1).unwrap_or(usize::MAX));
        self.batch.reset(first);
        self.input.seek(SeekFrom::Start(self.geometry.offset(first))).map_err(Error::Read)?;
        let after = self.batch.fill_sealed_upto(&mut self.input, count);
        let failure = match after {
            After::Failed(err) => Some(err),
            After::More | After::Done => None,
        };
        // Chunks before `final_index` are full and not final; the final chunk
        // must say it is final.
        let read = self.batch.lens.len();
        let lied = (0..read).find(|&k| {
            let index = first + k as u64;
            self.batch.is_final(k) != (index == final_index)
        });
        if let Some(k) = lied {
            let index = first + k as u64;
            if index == final_index {
                // Not final where the size says the file ends: it was cut short.
                self.batch.lens.truncate(k);
                self.batch.ends_with_final = false;
            }
        }
        let opened = self.batch.open(&self.session);
        if self.batch.lens.is_empty() {
            self.batch.reset(0);
            return Err(match (opened, lied, failure) {
                (Err(err), _, _) => err.into(),
                (Ok(()), Some(k), _) if first + k as u64 == final_index => DecodeError::Truncated.into(),
                (Ok(()), Some(_), _) => DecodeError::TrailingData.into(),
                (Ok(()), None, Some(err)) => err,
                (Ok(()), None, None) => DecodeError::Truncated.into(),
            });
        }
        if let Some(k) = lied.filter(|&k| k < self.batch.lens.len()) {
            // An authenticated final chunk before the end: what follows it is
            // trailing data. Keep only the chunks before it.
            self.batch.lens.truncate(k);
            self.batch.ends_with_final = false;
            if k == 0 {
                self.batch.reset(0);
                return Err(DecodeError::TrailingData.into());
            }
        }
        Ok(())
    }
}

impl<R: Read + Seek> Read for SeekableDecryptor<R> {
    /// Fills `buf` as far as the plaintext goes, unless a chunk after the first
    /// fails: then it returns what it read before, and the next read fails.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            match self.read_once(self.pos, &mut buf[done..]) {
                Ok(0) => break,
                Ok(n) => {
                    self.pos += n as u64;
                    done += n;
                }
                Err(e) if done == 0 => return Err(e),
                Err(_) => break,
            }
        }
        Ok(done)
    }
}

impl<R: Read + Seek> Seek for SeekableDecryptor<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let (base, delta) = match to {
            SeekFrom::Start(at) => {
                self.pos = at;
                return Ok(at);
            }
            SeekFrom::End(delta) => (self.len, delta),
            SeekFrom::Current(delta) => (self.pos, delta),
        };
        self.pos = base.checked_add_signed(delta).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidInput, "seek to a negative position or past 2^64")
        })?;
        Ok(self.pos)
    }
}

impl<R: Read + Seek> fmt::Debug for SeekableDecryptor<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeekableDecryptor")
            .field("header", &self.session.header)
            .field("len", &self.len)
            .field("pos", &self.pos)
            .finish_non_exhaustive()
    }
}
