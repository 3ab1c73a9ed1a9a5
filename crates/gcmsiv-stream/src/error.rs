//! What can go wrong: the file is not valid for the given secret
//! ([`DecodeError`], checked in the order docs/FORMAT.md gives), the caller
//! asked for something the format does not allow ([`Error::Invalid`]), or
//! reading or writing failed ([`Error::Read`], [`Error::Write`]).
//!
//! Messages never contain key material: they are built from counts and fixed text.

use std::fmt;
use std::io;

/// Everything that can be wrong with a gcmsiv file (docs/FORMAT.md), in the order
/// a reader checks it. Each message says what was found, and nothing about the key.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input does not start with the magic bytes.
    NotGcmsiv,
    /// The version byte names a format this library does not read.
    UnsupportedVersion(u8),
    /// The input ends inside the header.
    TruncatedHeader,
    /// A header field holds a value the format does not allow.
    CorruptHeader(&'static str),
    /// The passphrase cost recorded in the header is over the reader's limits.
    CostTooHigh {
        /// Argon2id memory in KiB.
        memory_kib: u32,
        /// Argon2id passes.
        iterations: u32,
        /// Argon2id lanes.
        lanes: u32,
    },
    /// The file was written for the other kind of secret.
    WrongKeyMode {
        /// Whether the file needs a passphrase (else a key).
        file_uses_passphrase: bool,
    },
    /// A version 2 header holds more stanzas than the format allows.
    TooManyStanzas(usize),
    /// The file is encrypted to recipients (version 2) and was given a key or
    /// a passphrase.
    NeedsIdentity,
    /// The file is encrypted with a key or a passphrase (version 1) and was
    /// given identities.
    NotForIdentities {
        /// Whether the file needs a passphrase (else a key).
        file_uses_passphrase: bool,
    },
    /// No identity given opens any of the file's stanzas.
    NoIdentityMatched,
    /// An identity opened a stanza, and the header MAC does not verify under
    /// the file key it held: the header was altered.
    HeaderMac,
    /// The header MAC does not verify under the given secret.
    WrongKey {
        /// Whether the secret was a passphrase.
        passphrase: bool,
    },
    /// The input ends before the final chunk.
    Truncated,
    /// A chunk's length word is out of range.
    BadChunkLength(u64),
    /// A chunk fails AES-GCM-SIV authentication.
    ChunkAuthentication(u64),
    /// Bytes follow the final chunk.
    TrailingData,
    /// The chunk counter reached the format's cap, 2^64 - 1 chunks (docs/FORMAT.md:
    /// unreachable in practice, but never wrapped).
    TooManyChunks,
}

impl DecodeError {
    /// Whether this is an authentication failure (a wrong secret, or a chunk that
    /// does not verify) rather than a malformed file: bindings raise their
    /// language's authentication error for these and a format error for the rest.
    pub fn is_authentication(&self) -> bool {
        matches!(
            self,
            DecodeError::WrongKey { .. }
                | DecodeError::ChunkAuthentication(_)
                | DecodeError::NoIdentityMatched
                | DecodeError::HeaderMac
        )
    }

    /// The `DecodeError` inside an I/O error returned by this crate's readers and
    /// writers, if there is one.
    pub fn from_io(err: &io::Error) -> Option<&DecodeError> {
        err.get_ref()?.downcast_ref::<DecodeError>()
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NotGcmsiv => f.write_str("not a gcmsiv file (it does not start with GCMSIV)"),
            DecodeError::UnsupportedVersion(v) => write!(
                f,
                "unsupported format version {v}: this gcmsiv reads versions 1 and 2; a newer gcmsiv may read it"
            ),
            DecodeError::TruncatedHeader => f.write_str("file is truncated (incomplete header)"),
            DecodeError::CorruptHeader(what) => write!(f, "corrupted header ({what})"),
            DecodeError::CostTooHigh { memory_kib, iterations, lanes } => write!(
                f,
                "corrupted header or hostile file: its passphrase cost ({memory_kib} KiB, \
                 {iterations} iterations, {lanes} lanes) is over the limits \
                 (1048576 KiB, 16 iterations, 16 lanes)"
            ),
            DecodeError::WrongKeyMode { file_uses_passphrase: true } => {
                f.write_str("this file was encrypted with a passphrase, not a key")
            }
            DecodeError::WrongKeyMode { file_uses_passphrase: false } => {
                f.write_str("this file was encrypted with a key (file), not a passphrase")
            }
            DecodeError::TooManyStanzas(n) => {
                write!(f, "corrupted header or hostile file: it holds {n} recipient stanzas (at most 256)")
            }
            DecodeError::NeedsIdentity => {
                f.write_str("this file was encrypted to recipients: decrypt it with an identity")
            }
            DecodeError::NotForIdentities { file_uses_passphrase: true } => {
                f.write_str("this file was encrypted with a passphrase, not to recipients")
            }
            DecodeError::NotForIdentities { file_uses_passphrase: false } => {
                f.write_str("this file was encrypted with a key (file), not to recipients")
            }
            DecodeError::NoIdentityMatched => f.write_str("no identity matched any of the file's recipients"),
            DecodeError::HeaderMac => {
                f.write_str("corrupted header: an identity matched, but the header MAC does not verify")
            }
            DecodeError::WrongKey { passphrase: false } => f.write_str("wrong key or corrupted header"),
            DecodeError::WrongKey { passphrase: true } => f.write_str("wrong passphrase or corrupted header"),
            DecodeError::Truncated => f.write_str("file is truncated"),
            DecodeError::BadChunkLength(i) => {
                write!(f, "file is corrupted: chunk {i} has an invalid length")
            }
            DecodeError::ChunkAuthentication(i) => {
                write!(f, "file is corrupted: chunk {i} failed authentication")
            }
            DecodeError::TrailingData => f.write_str("trailing data after the final chunk"),
            DecodeError::TooManyChunks => f.write_str("the chunk counter reached its cap (2^64 - 1 chunks)"),
        }
    }
}

impl std::error::Error for DecodeError {}

impl From<DecodeError> for io::Error {
    /// An [`io::ErrorKind::InvalidData`] error carrying the `DecodeError`
    /// (recover it with [`DecodeError::from_io`]).
    fn from(err: DecodeError) -> Self {
        io::Error::new(io::ErrorKind::InvalidData, err)
    }
}

/// Why a call of this crate failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The input is not a valid gcmsiv file for the given secret.
    Decode(DecodeError),
    /// An argument the format does not allow (a chunk size, a cost, a key length).
    Invalid(&'static str),
    /// A key file is not in the format (the reason, which never quotes the file).
    KeyFile(&'static str),
    /// A recipient or recipients file is not valid (the reason, naming the line).
    Recipients(String),
    /// An identity file is not valid (the reason, naming the line and never
    /// quoting it).
    Identities(String),
    /// Reading the input failed.
    Read(io::Error),
    /// Writing the output failed.
    Write(io::Error),
    /// The operating system's random number generator failed.
    Random,
}

impl Error {
    /// A read error, unless it carries a [`DecodeError`] (from this crate's own
    /// readers), which stays one.
    pub(crate) fn read(err: io::Error) -> Self {
        match DecodeError::from_io(&err) {
            Some(decode) => Error::Decode(decode.clone()),
            None => Error::Read(err),
        }
    }
}

impl From<DecodeError> for Error {
    fn from(err: DecodeError) -> Self {
        Error::Decode(err)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Decode(err) => err.fmt(f),
            Error::Invalid(what) => f.write_str(what),
            Error::KeyFile(why) => write!(f, "not a gcmsiv key file: {why}"),
            Error::Recipients(why) => write!(f, "not a valid recipient: {why}"),
            Error::Identities(why) => write!(f, "not a gcmsiv identity file: {why}"),
            Error::Read(err) => write!(f, "cannot read the input: {err}"),
            Error::Write(err) => write!(f, "cannot write the output: {err}"),
            Error::Random => f.write_str("cannot get random bytes from the operating system"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Decode(err) => Some(err),
            Error::Read(err) | Error::Write(err) => Some(err),
            Error::Invalid(_)
            | Error::KeyFile(_)
            | Error::Recipients(_)
            | Error::Identities(_)
            | Error::Random => None,
        }
    }
}

impl From<Error> for io::Error {
    /// Decode failures become [`io::ErrorKind::InvalidData`] (carrying the
    /// [`DecodeError`]), bad arguments [`io::ErrorKind::InvalidInput`], and I/O
    /// failures stay what they were.
    fn from(err: Error) -> Self {
        match err {
            Error::Decode(err) => err.into(),
            Error::Invalid(what) => io::Error::new(io::ErrorKind::InvalidInput, what),
            Error::KeyFile(_) | Error::Recipients(_) | Error::Identities(_) => {
                io::Error::new(io::ErrorKind::InvalidData, err.to_string())
            }
            Error::Read(err) | Error::Write(err) => err,
            Error::Random => io::Error::other("cannot get random bytes from the operating system"),
        }
    }
}
