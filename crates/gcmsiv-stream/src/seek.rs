//! Random access: [`SeekableDecryptor`] reads plaintext at any offset of a
//! gcmsiv file held by any [`Read`] + [`Seek`] source, authenticating only the
//! chunks it touches.

use std::fmt;
use std::io::{self, Read, Seek, SeekFrom};

use crate::chunks::{After, Batch, Layout};
use crate::error::{DecodeError, Error};
use crate::format::{CHUNK_OVERHEAD, Geometry, Header};
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
        let geometry =
            Geometry::of_file(end, session.header_len, chunk_size).ok_or(DecodeError::Truncated)?;
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

    /// The source, borrowed.
    pub fn get_ref(&self) -> &R {
        &self.input
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
    /// authenticates them (see [`load`]).
    fn load(&mut self, first: u64, count: usize) -> Result<(), Error> {
        self.input.seek(SeekFrom::Start(self.geometry.offset(first))).map_err(Error::Read)?;
        load(&self.session, &self.geometry, &mut self.batch, first, count, &mut self.input)
    }
}

/// Reads chunks `first..` from `source` (at most `count`, at most a batch, and
/// none past the final chunk) into `batch` and authenticates them. Keeps those
/// that authenticated before any failure; fails if chunk `first` itself did
/// not. Chunks before the final one must be full and not final, the final one
/// must say it is final and be the last bytes of `source`; a final chunk
/// before the end authenticates, and what follows it is trailing data.
fn load(
    session: &Session,
    geometry: &Geometry,
    batch: &mut Batch,
    first: u64,
    count: usize,
    source: &mut (impl Read + ?Sized),
) -> Result<(), Error> {
    let final_index = geometry.final_index;
    let count = count.min(usize::try_from(final_index - first + 1).unwrap_or(usize::MAX));
    batch.reset(first);
    let failure = match batch.fill_sealed_upto(source, count) {
        After::Failed(err) => Some(err),
        After::More | After::Done => None,
    };
    let lied = (0..batch.lens.len()).find(|&k| batch.is_final(k) != (first + k as u64 == final_index));
    if let Some(k) = lied.filter(|&k| first + k as u64 == final_index) {
        // Not final where the size says the file ends: it was cut short.
        batch.lens.truncate(k);
        batch.ends_with_final = false;
    }
    let opened = batch.open(session);
    if batch.lens.is_empty() {
        batch.reset(0);
        return Err(match (opened, lied, failure) {
            (Err(err), _, _) => err.into(),
            (Ok(()), Some(k), _) if first + k as u64 == final_index => DecodeError::Truncated.into(),
            (Ok(()), Some(_), _) => DecodeError::TrailingData.into(),
            (Ok(()), None, Some(err)) => err,
            (Ok(()), None, None) => DecodeError::Truncated.into(),
        });
    }
    if let Some(k) = lied.filter(|&k| k < batch.lens.len()) {
        // An authenticated final chunk before the end: what follows it is
        // trailing data. Keep only the chunks before it.
        batch.lens.truncate(k);
        batch.ends_with_final = false;
        if k == 0 {
            batch.reset(0);
            return Err(DecodeError::TrailingData.into());
        }
    } else if let (true, Some(err)) = (batch.ends_with_final, failure) {
        // The final chunk authenticated where the size says the file ends,
        // and bytes follow it in `source` (or reading there failed): the
        // file does not end with it, as the streaming reader finds.
        batch.reset(0);
        return Err(err);
    }
    Ok(())
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

/// Random access without I/O, for bindings that read files in their own
/// language: says which bytes of the file hold a plaintext range, and
/// authenticates and opens them once the caller has read them.
/// [`SeekableDecryptor`] is the same for a Rust `Read + Seek` source.
///
/// 1. [`RandomAccess::new`] with the header (the file's first 86 bytes or
///    more) and the file's size;
/// 2. read [`RandomAccess::final_chunk`] and pass it to
///    [`RandomAccess::verify_final`], which fixes the plaintext length;
/// 3. for a range, read the bytes [`RandomAccess::span`] names and pass them
///    to [`RandomAccess::open`].
pub struct RandomAccess {
    session: Session,
    geometry: Geometry,
    file_len: u64,
    len: Option<u64>,
}

/// The stored bytes that hold a plaintext range: whole chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Index of the first chunk.
    pub first_chunk: u64,
    /// Where the first chunk starts in the file.
    pub file_offset: u64,
    /// Bytes to read from there.
    pub file_len: u64,
    /// Where the range starts in the plaintext of those chunks.
    pub skip: u64,
}

impl RandomAccess {
    /// Checks the header (the first bytes of the file, at least as many as
    /// [`Header::needed`] says: 86 in version 1) with `secret`; `file_len` is
    /// the size of the whole file.
    pub fn new(header: &[u8], file_len: u64, secret: &Secret) -> Result<Self, Error> {
        let session = Session::from_header_bytes(header, secret)?;
        let geometry = Geometry::of_file(file_len, session.header_len, session.chunk_size())
            .ok_or(DecodeError::Truncated)?;
        Ok(RandomAccess { session, geometry, file_len, len: None })
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.session.header
    }

    /// Where the final chunk is (offset and length in the file): what to read
    /// for [`RandomAccess::verify_final`].
    pub fn final_chunk(&self) -> (u64, u64) {
        let at = self.geometry.offset(self.geometry.final_index);
        (at, self.file_len - at)
    }

    /// Authenticates the final chunk, read from [`RandomAccess::final_chunk`],
    /// and returns the plaintext length.
    pub fn verify_final(&mut self, stored: &[u8]) -> Result<u64, Error> {
        let mut batch = Batch::new(Layout::new(self.geometry.chunk_size, false));
        load(&self.session, &self.geometry, &mut batch, self.geometry.final_index, 1, &mut &stored[..])?;
        if Some(batch.lens[0]) != self.geometry.final_len {
            return Err(DecodeError::TrailingData.into());
        }
        let len = self.geometry.final_index * self.geometry.chunk_size as u64 + batch.lens[0] as u64;
        self.len = Some(len);
        Ok(len)
    }

    /// The plaintext length, once the final chunk verified.
    pub fn len(&self) -> Option<u64> {
        self.len
    }

    /// Whether the plaintext is empty, once the final chunk verified.
    pub fn is_empty(&self) -> Option<bool> {
        self.len.map(|len| len == 0)
    }

    /// The chunks that hold plaintext bytes `offset..offset + len` (cut at the
    /// end of the plaintext); `None` if that is empty or the final chunk has not
    /// been verified.
    pub fn span(&self, offset: u64, len: u64) -> Option<Span> {
        let end = offset.saturating_add(len).min(self.len?);
        if offset >= end {
            return None;
        }
        let c = self.geometry.chunk_size as u64;
        let (first, last) = (offset / c, (end - 1) / c);
        let file_offset = self.geometry.offset(first);
        let file_end =
            if last == self.geometry.final_index { self.file_len } else { self.geometry.offset(last + 1) };
        Some(Span {
            first_chunk: first,
            file_offset,
            file_len: file_end - file_offset,
            skip: offset - first * c,
        })
    }

    /// Authenticates and opens the whole chunks in `stored`, which starts with
    /// chunk `first_chunk` (as [`RandomAccess::span`] said), and appends their
    /// plaintext to `out`. On a failure, `out` gets the plaintext of the chunks
    /// before the one that failed, and nothing after.
    pub fn open(&self, first_chunk: u64, stored: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        if self.len.is_none() {
            return Err(Error::Invalid("verify the final chunk first"));
        }
        if first_chunk > self.geometry.final_index {
            return Err(Error::Invalid("chunk index past the final chunk"));
        }
        let layout = Layout::new(self.geometry.chunk_size, true);
        // No bigger than the chunks `stored` holds: a one-chunk read must not allocate
        // (and the kernel zero) a whole batch of about 2 MiB.
        let held = stored.len().div_ceil(layout.slot()).max(1);
        let layout = Layout { per_batch: layout.per_batch.min(held), ..layout };
        let mut batch = Batch::new(layout);
        let (mut next, mut at) = (first_chunk, 0);
        while at < stored.len() {
            if next > self.geometry.final_index {
                return Err(DecodeError::TrailingData.into());
            }
            // From just after the chunks kept: a chunk that failed is read
            // again by the next round, which reports it.
            load(&self.session, &self.geometry, &mut batch, next, layout.per_batch, &mut &stored[at..])?;
            for k in 0..batch.lens.len() {
                out.extend_from_slice(batch.body(k));
                at += batch.lens[k] + CHUNK_OVERHEAD;
            }
            next += batch.lens.len() as u64;
        }
        Ok(())
    }
}

impl fmt::Debug for RandomAccess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RandomAccess")
            .field("header", &self.session.header)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}
