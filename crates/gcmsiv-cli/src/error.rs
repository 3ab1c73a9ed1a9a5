//! What the user sees when something fails, and the exit status it maps to.
//!
//! Two kinds, so scripts can tell them apart: the data was judged and found bad
//! (exit 1: do not retry with the same key), or the command could not run as asked
//! (exit 2: fix the arguments, the files or the environment). Messages never
//! contain key material: they are built only from paths, counts and fixed text.

use std::fmt;
use std::io;
use std::path::Path;

pub use gcmsiv_stream::DecodeError;

/// Exit status when the input fails authentication or is not in the format.
pub const EXIT_DATA: u8 = 1;
/// Exit status for usage errors, unusable files and I/O failures (clap uses it too).
pub const EXIT_USAGE: u8 = 2;

/// Why a command failed.
#[derive(Debug)]
pub enum Failure {
    /// The input is not a valid gcmsiv file for the given key.
    Data(DecodeError),
    /// The input's ASCII armor is malformed (the reason).
    Armor(String),
    /// Arguments, files or the environment do not allow the command to run.
    Usage(String),
    /// A message that no key of the keyset opens (the reason).
    Rejected(String),
}

impl Failure {
    /// The process exit status for this failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Data(_) | Failure::Armor(_) | Failure::Rejected(_) => EXIT_DATA,
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
            // The library's message, with the option that gives the other secret.
            Failure::Data(DecodeError::WrongKeyMode { file_uses_passphrase: true }) => {
                f.write_str("this file was encrypted with a passphrase: decrypt it with -p/--passphrase")
            }
            Failure::Data(DecodeError::WrongKeyMode { file_uses_passphrase: false }) => {
                f.write_str("this file was encrypted with a key file: decrypt it with -k/--key-file")
            }
            Failure::Data(DecodeError::NeedsIdentity) => {
                f.write_str("this file was encrypted to recipients: decrypt it with -i/--identity")
            }
            Failure::Data(DecodeError::NotForIdentities { file_uses_passphrase: true }) => f.write_str(
                "this file was encrypted with a passphrase, not to recipients: \
                 decrypt it with -p/--passphrase, not -i",
            ),
            Failure::Data(DecodeError::NotForIdentities { file_uses_passphrase: false }) => f.write_str(
                "this file was encrypted with a key file, not to recipients: \
                 decrypt it with -k/--key-file, not -i",
            ),
            Failure::Data(err) => err.fmt(f),
            Failure::Usage(message) | Failure::Armor(message) | Failure::Rejected(message) => {
                f.write_str(message)
            }
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
