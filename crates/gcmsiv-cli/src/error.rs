//! What the user sees when something fails, and the exit status it maps to.
//!
//! Two kinds, so scripts can tell them apart: the data was judged and found bad
//! (exit 1: do not retry with the same key), or the command could not run as asked
//! (exit 2: fix the arguments, the files or the environment). Messages never
//! contain key material: they are built only from paths, counts and fixed text.

use std::fmt;
use std::io;
use std::path::Path;

/// Exit status when the input fails authentication or is not in the format.
pub const EXIT_DATA: u8 = 1;
/// Exit status for usage errors, unusable files and I/O failures (clap uses it too).
pub const EXIT_USAGE: u8 = 2;

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// The input is not a valid gcmsiv file for the given key.
    Data(DecodeError),
    /// Arguments, files or the environment do not allow the command to run.
    Usage(String),
}

impl Failure {
    /// The process exit status for this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Data(_) => EXIT_DATA,
            Failure::Usage(_) => EXIT_USAGE,
        }
    }

    /// A usage failure with this message.
    pub fn usage(message: impl Into<String>) -> Self {
        Failure::Usage(message.into())
    }

    /// An I/O failure on a named file, e.g. `io("cannot read", path, err)`.
    pub fn io(what: &str, path: &Path, err: io::Error) -> Self {
        Failure::Usage(format!("{what} {}: {}", path.display(), io_reason(&err)))
    }
}

impl From<DecodeError> for Failure {
    fn from(err: DecodeError) -> Self {
        Failure::Data(err)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Data(err) => err.fmt(f),
            Failure::Usage(message) => f.write_str(message),
        }
    }
}

/// An I/O error's reason without Rust's "(os error N)" suffix.
pub fn io_reason(err: &io::Error) -> String {
    let text = err.to_string();
    match text.find(" (os error") {
        Some(end) => text[..end].to_string(),
        None => text,
    }
}

/// Everything that can be wrong with a gcmsiv file (docs/FORMAT.md), in the order
/// a reader checks it. Each message says what to do or what was found, and nothing
/// about the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The input does not start with the magic bytes.
    NotGcmsiv,
    /// The version byte names a format this tool does not read.
    UnsupportedVersion(u8),
    /// The input ends inside the header.
    TruncatedHeader,
    /// A header field holds a value the format does not allow.
    CorruptHeader(&'static str),
    /// The passphrase cost recorded in the header is over the reader's limits.
    CostTooHigh { memory_kib: u32, iterations: u32, lanes: u32 },
    /// The file was written for the other key mode.
    WrongKeyMode { file_uses_passphrase: bool },
    /// The header MAC does not verify under the given key.
    WrongKey { passphrase: bool },
    /// The input ends before the final chunk.
    Truncated,
    /// A chunk's length word is out of range.
    BadChunkLength(u64),
    /// A chunk fails AES-GCM-SIV authentication.
    ChunkAuthentication(u64),
    /// Bytes follow the final chunk.
    TrailingData,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::NotGcmsiv => f.write_str("not a gcmsiv file (it does not start with GCMSIV)"),
            DecodeError::UnsupportedVersion(v) => write!(
                f,
                "unsupported format version {v}: this gcmsiv reads version 1; a newer gcmsiv may read it"
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
                f.write_str("this file was encrypted with a passphrase: decrypt it with -p/--passphrase")
            }
            DecodeError::WrongKeyMode { file_uses_passphrase: false } => {
                f.write_str("this file was encrypted with a key file: decrypt it with -k/--key-file")
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
        }
    }
}
