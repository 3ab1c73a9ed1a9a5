//! Streams without I/O, for bindings whose reads and writes happen in their
//! own language (Node.js streams, Java streams, Go's `io` interfaces, C):
//! the caller pushes bytes in and gets bytes out. [`SealStream`] turns
//! plaintext into a file, [`OpenStream`] a file into authenticated plaintext;
//! both go through the same batches of chunks as every other reader and
//! writer of this crate.

use std::fmt;

use crate::chunks::{Batch, Layout};
use crate::error::{DecodeError, Error};
use crate::format::{CHUNK_OVERHEAD, HEADER_LEN, Header, WORD_LEN, parse_chunk_word};
use crate::keys::Secret;
use crate::session::{Options, Session};
use crate::write::Encryptor;

/// Encrypts pushed plaintext into a gcmsiv file: each push returns the file
/// bytes ready so far (the header first), [`SealStream::finish`] the rest.
/// Chunks are sealed a batch (about 2 MiB) at a time, so output comes in
/// batches. Dropped without `finish`, the file lacks its final chunk and every
/// reader reports it truncated.
pub struct SealStream {
    encryptor: Encryptor<Vec<u8>>,
}

impl SealStream {
    /// Derives the file's keys (Argon2id for a passphrase) and makes the header,
    /// which the first push (or `finish`) returns.
    pub fn new(secret: &Secret, options: &Options) -> Result<Self, Error> {
        Ok(SealStream { encryptor: Encryptor::new(Vec::with_capacity(HEADER_LEN), secret, options)? })
    }

    /// The file's header fields.
    pub fn header(&self) -> &Header {
        self.encryptor.header()
    }

    /// Takes `plaintext`; appends the file bytes now ready to `out`.
    pub fn push(&mut self, plaintext: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        use std::io::Write;
        self.encryptor.write_all(plaintext).map_err(Error::Write)?;
        out.append(self.encryptor.output_mut());
        Ok(())
    }

    /// Seals the final chunk; appends the rest of the file to `out`.
    pub fn finish(self, out: &mut Vec<u8>) -> Result<(), Error> {
        out.append(&mut self.encryptor.finish().map_err(Error::Write)?);
        Ok(())
    }
}

impl fmt::Debug for SealStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SealStream").field("header", self.header()).finish_non_exhaustive()
    }
}

/// Decrypts a pushed gcmsiv file: each push appends the plaintext of every
/// chunk it completed, once authenticated, and [`OpenStream::finish`] says
/// whether the file was whole. A failure is reported by the push that meets
/// it (after appending the authenticated plaintext before it) and by every
/// later call.
pub struct OpenStream {
    secret: Option<Secret>,
    head: Vec<u8>,
    session: Option<Session>,
    batch: Option<Batch>,
    /// The chunk being received: its stored bytes so far.
    partial: Vec<u8>,
    done: bool,
    failed: Option<DecodeError>,
}

impl OpenStream {
    /// A stream that will check the header with `secret` once it has arrived.
    pub fn new(secret: &Secret) -> Self {
        OpenStream {
            secret: Some(secret.clone()),
            head: Vec::with_capacity(HEADER_LEN),
            session: None,
            batch: None,
            partial: Vec::new(),
            done: false,
            failed: None,
        }
    }

    /// The header, once it has arrived and verified.
    pub fn header(&self) -> Option<&Header> {
        self.session.as_ref().map(|s| &s.header)
    }

    /// Whether the final chunk has arrived and authenticated.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Takes file bytes; appends the plaintext of the chunks they complete,
    /// each authenticated, to `out`.
    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        if let Some(err) = &self.failed {
            return Err(err.clone().into());
        }
        let result = self.consume(&mut bytes, out);
        // The chunks received are opened first: a forged chunk is reported
        // before what follows it.
        let result = self.open_batch(out).and(result);
        match result {
            Ok(()) => Ok(()),
            Err(Error::Decode(err)) => {
                self.failed = Some(err.clone());
                Err(err.into())
            }
            Err(other) => Err(other),
        }
    }

    /// Says whether the file ended where it should: after its final chunk.
    pub fn finish(&mut self) -> Result<(), Error> {
        if let Some(err) = &self.failed {
            return Err(err.clone().into());
        }
        let err = if self.session.is_none() {
            match Header::parse(&self.head) {
                Err(err) => err,
                Ok(_) => DecodeError::TruncatedHeader,
            }
        } else if self.done {
            return Ok(());
        } else {
            DecodeError::Truncated
        };
        self.failed = Some(err.clone());
        Err(err.into())
    }

    fn consume(&mut self, bytes: &mut &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        if self.session.is_none() {
            // The header's length fields are checked as soon as they arrive
            // (a hostile header is refused before its bytes are awaited).
            loop {
                let need = Header::needed(&self.head)?;
                if self.head.len() >= need {
                    break;
                }
                if bytes.is_empty() {
                    return Ok(());
                }
                let n = (need - self.head.len()).min(bytes.len());
                self.head.extend_from_slice(&bytes[..n]);
                *bytes = &bytes[n..];
            }
            let secret = self.secret.take().expect("internal error: the secret is used once");
            let session = Session::from_header_bytes(&self.head, &secret)?;
            self.batch = Some(Batch::new(Layout::new(session.chunk_size(), true)));
            self.partial = Vec::with_capacity(session.chunk_size() + CHUNK_OVERHEAD);
            self.session = Some(session);
        }
        while !bytes.is_empty() {
            if self.done {
                return Err(DecodeError::TrailingData.into());
            }
            let batch = self.batch.as_mut().expect("internal error: batch");
            if batch.is_full() {
                self.open_batch(out)?;
            }
            self.take_chunk_bytes(bytes)?;
        }
        Ok(())
    }

    /// Moves bytes of the chunk being received from `bytes`; once it is
    /// whole, into the batch.
    fn take_chunk_bytes(&mut self, bytes: &mut &[u8]) -> Result<(), Error> {
        let batch = self.batch.as_mut().expect("internal error: batch");
        let chunk_size = batch.layout.chunk_size;
        if self.partial.len() < WORD_LEN {
            let n = (WORD_LEN - self.partial.len()).min(bytes.len());
            self.partial.extend_from_slice(&bytes[..n]);
            *bytes = &bytes[n..];
            if self.partial.len() < WORD_LEN {
                return Ok(());
            }
        }
        let word = self.partial[..WORD_LEN].try_into().expect("internal error: word length");
        let index = batch.next_index()?;
        let (len, last) = parse_chunk_word(word, index, chunk_size)?;
        let need = len + CHUNK_OVERHEAD;
        let n = (need - self.partial.len()).min(bytes.len());
        self.partial.extend_from_slice(&bytes[..n]);
        *bytes = &bytes[n..];
        if self.partial.len() == need {
            let k = batch.lens.len();
            batch.slot_mut(k)[..need].copy_from_slice(&self.partial);
            batch.lens.push(len);
            self.partial.clear();
            if last {
                batch.ends_with_final = true;
                self.done = true;
            }
        }
        Ok(())
    }

    /// Opens the whole chunks received; appends their plaintext to `out`.
    fn open_batch(&mut self, out: &mut Vec<u8>) -> Result<(), Error> {
        let (Some(batch), Some(session)) = (self.batch.as_mut(), self.session.as_ref()) else {
            return Ok(());
        };
        if batch.lens.is_empty() {
            return Ok(());
        }
        let opened = batch.open(session);
        for k in 0..batch.lens.len() {
            out.extend_from_slice(batch.body(k));
        }
        if opened.is_err() {
            self.done = false;
        }
        opened?;
        let next = batch.next_index()?;
        batch.reset(next);
        Ok(())
    }
}

impl fmt::Debug for OpenStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenStream")
            .field("header", &self.header())
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}
