//! Encrypted files and streams with AES-GCM-SIV (RFC 8452), in the gcmsiv file
//! format (docs/FORMAT.md): a key-committing header, then the plaintext in
//! chunks of a fixed size, each sealed with its position and a final-chunk
//! flag in the nonce (the STREAM construction), so that reordering, dropping,
//! truncating or appending is detected. Files of any size go through in
//! bounded memory; this is the library the `gcmsiv` tool is built on, and a
//! file one writes, the other reads.
//!
//! - [`Encryptor`]: a [`std::io::Write`] adapter (call [`Encryptor::finish`]);
//!   [`encrypt`] for a whole reader.
//! - [`Decryptor`]: a [`std::io::Read`] adapter that releases a chunk's
//!   plaintext only after it authenticated; [`decrypt`] for a whole file.
//! - [`SeekableDecryptor`]: random access (`Read + Seek`, `read_at`) into any
//!   `Read + Seek` source, authenticating only the chunks a read touches.
//! - [`pipeline`]: reading, sealing or opening on all cores, and writing
//!   overlapped in threads, for whole files (what the tool runs).
//! - Without I/O, for language bindings: [`SealStream`] and [`OpenStream`]
//!   (push bytes in, get bytes out), and [`RandomAccess`] (which bytes to read
//!   for a plaintext range, then open them).
//! - [`armor`]: ASCII armor (PEM-style Base64) for files that must travel as
//!   text; [`armor::MaybeArmored`] reads either kind.
//!
//! The secret is a 32-byte key ([`MasterKey`]: what a key file holds) or a
//! passphrase (stretched with Argon2id at a cost the header records, within
//! fixed caps so that a hostile file cannot exhaust memory); see [`Secret`].
//!
//! ```
//! use std::io::{Read, Seek, SeekFrom, Write};
//! use gcmsiv_stream::{Encryptor, MasterKey, Options, Secret, SeekableDecryptor};
//!
//! let secret = Secret::Key(MasterKey::generate()?);
//! let options = Options::new().chunk_size(1024)?;
//! let mut encryptor = Encryptor::new(Vec::new(), &secret, &options)?;
//! for i in 0..1000u32 {
//!     encryptor.write_all(&i.to_be_bytes())?;
//! }
//! let file = encryptor.finish()?;
//!
//! // Read four bytes at offset 2000, authenticating only the chunk they are in.
//! let mut reader = SeekableDecryptor::new(std::io::Cursor::new(file), &secret)?;
//! assert_eq!(reader.len(), 4000);
//! reader.seek(SeekFrom::Start(2000))?;
//! let mut word = [0u8; 4];
//! reader.read_exact(&mut word)?;
//! assert_eq!(u32::from_be_bytes(word), 500);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Modules are layered, each using only those above it in this list:
//! [`armor`] (which knows nothing of the format: it carries any bytes), `error`,
//! [`recipients`], [`format`](mod@format), `keys`, `session`, `chunks` (the batch of chunks every reader
//! and writer seals or opens: the format's mode logic, once), `write`, `read`,
//! `seek`, `push`, [`pipeline`].

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod armor;
mod error;
pub mod recipients;
pub mod format;
mod keys;
mod session;
mod chunks;
mod write;
mod read;
mod seek;
mod push;
pub mod pipeline;

pub use error::{DecodeError, Error};
pub use format::{Algorithm, Argon2Cost, Header, KeyMode, Stanza};
pub use keys::{KEY_FILE_MAX, KEY_LINE_PREFIX, MASTER_LEN, MasterKey, Secret};
pub use push::{OpenStream, SealStream};
pub use read::{Decryptor, decrypt};
pub use recipients::{Identity, Recipient, RecipientKind};
pub use seek::{RandomAccess, SeekableDecryptor, Span};
pub use session::Options;
pub use write::{Encryptor, encrypt};

/// The repository README's Rust examples (the core crate's and this one's),
/// compiled and run as doc tests (only in the repository: the published
/// package carries its own README, below).
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// This crate's README, as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeDoctests;
