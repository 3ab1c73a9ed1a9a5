//! AES-GCM-SIV (RFC 8452): authenticated encryption that survives nonce reuse.
//!
//! With AES-GCM, encrypting two messages under the same key and nonce leaks
//! their XOR and lets an attacker forge. With AES-GCM-SIV, it reveals only
//! whether the two (nonce, associated data, plaintext) triples were identical;
//! everything else stays secure. Pick it when nonces come from a source you
//! cannot fully trust to never repeat (random nonces on many machines, counters
//! that may be reset, deterministic key wrapping).
//!
//! ```
//! use gcmsiv::Aes256GcmSiv;
//!
//! let key = [7u8; 32]; // in practice: 32 random bytes kept secret
//! let cipher = Aes256GcmSiv::new(&key);
//! let nonce = [1u8; 12]; // should be unique; a repeat leaks only equality
//!
//! let sealed = cipher.encrypt(&nonce, b"associated data", b"plaintext").unwrap();
//! // Deterministic: same inputs, same output.
//! assert_eq!(sealed, cipher.encrypt(&nonce, b"associated data", b"plaintext").unwrap());
//!
//! let opened = cipher.decrypt(&nonce, b"associated data", &sealed).unwrap();
//! assert_eq!(opened, b"plaintext");
//!
//! let mut tampered = sealed.clone();
//! tampered[0] ^= 1;
//! assert_eq!(cipher.decrypt(&nonce, b"associated data", &tampered), Err(gcmsiv::Error::Authentication));
//! ```
//!
//! # Many short messages, and very large ones
//!
//! - **Batches**: [`Aes128GcmSiv::encrypt_batch`] and [`Aes128GcmSiv::decrypt_batch`]
//!   take many independent messages (each with its own nonce, AAD and buffer;
//!   see [`BatchItem`]) and run the per-message set-up of a group side by side
//!   (sixteen messages where the CPU has VAES; eight with AES-128, sixteen
//!   with AES-256, without): messages of up to 128 bytes, and groups of equal
//!   lengths up to 512 bytes (256 without VAES; seals up to 1 KiB with
//!   AVX-512), 16- to 64-byte messages at about twice the rate of one call
//!   each with VAES (less without). Groups are consecutive items: short
//!   messages of mixed lengths gain less, so keep records of equal length
//!   together when you can. Use them for key
//!   wrapping, many small records, or any queue of short messages under one
//!   key. Opening gives a result per message: one forgery does not fail or
//!   leak the others.
//! - **All cores for one message** (feature `parallel`, a default feature;
//!   it needs `std`):
//!   messages from 4 MiB up are sealed and opened on rayon's thread pool, and
//!   from 1 MiB up in a burst of such calls (less than 1 ms apart, or while a
//!   pool thread is still awake from the last one), with output identical to
//!   the one-core result. The calling thread starts at once
//!   and pool threads join as they wake, so a call is never held up by a busy or
//!   sleeping pool; a helper stays awake for 1 ms after a call, so calls in a
//!   stream find it ready. Tune or disable it per key with
//!   [`Aes128GcmSiv::with_parallel_threshold`]: `None` for latency-sensitive
//!   servers that already use every core, a lower value for bulk jobs.
//!
//! ```
//! use gcmsiv::{Aes256GcmSiv, BatchItem};
//! let cipher = Aes256GcmSiv::new(&[9; 32]);
//! let nonces = [[1u8; 12], [2u8; 12], [3u8; 12]];
//! let mut records = [*b"first record", *b"second recrd", *b"third record"];
//! let mut items: Vec<BatchItem> = nonces.iter().zip(records.iter_mut())
//!     .map(|(n, r)| BatchItem::new(n, b"table:users", r))
//!     .collect();
//! cipher.encrypt_batch(&mut items)?;
//! let tags: Vec<[u8; 16]> = items.iter().map(|it| it.tag).collect();
//! drop(items);
//! // Each record now holds ciphertext; its tag is in `tags`.
//! let mut results = [Ok(()), Ok(()), Ok(())];
//! let mut items: Vec<BatchItem> = nonces.iter().zip(records.iter_mut()).zip(&tags)
//!     .map(|((n, r), t)| BatchItem::with_tag(n, b"table:users", r, *t))
//!     .collect();
//! cipher.decrypt_batch(&mut items, &mut results)?;
//! assert!(results.iter().all(|r| r.is_ok()));
//! assert_eq!(&records[1], b"second recrd");
//! # Ok::<(), gcmsiv::Error>(())
//! ```
//!
//! # AES-GCM too
//!
//! [`Aes128Gcm`] and [`Aes256Gcm`] (and GMAC: [`Aes128Gmac`], [`Aes256Gmac`]) implement
//! NIST SP 800-38D from the same building blocks, with the same API shape. Use
//! them to interoperate with existing GCM data. For anything new, prefer
//! GCM-SIV: with GCM a repeated nonce is a break, with GCM-SIV it reveals only
//! equality of messages. GCM takes nonces of any length (12 bytes is the fast
//! path) and tags of 12 to 16 bytes (4 and 8 through a constructor named as the
//! hazard it is).
//!
//! # Backends
//!
//! Each key picks its backend once, when it is made ([`Backend::select`]):
//! `aesni-vaes` on x86-64 CPUs with VAES, VPCLMULQDQ and AVX2 (two blocks per
//! instruction, four with AVX-512), else `aesni-clmul` where they have AES-NI
//! and PCLMULQDQ, otherwise a portable constant-time implementation
//! (bitsliced AES, multiply-based carry-less multiplication). With the
//! `force-portable` feature [`Backend::select`] picks the portable one;
//! `with_backend` can still choose any backend the CPU has.
//!
//! # Limits
//!
//! One message: plaintext and associated data up to [`P_MAX`] = [`A_MAX`] =
//! 2^36 bytes (RFC 8452 section 6); longer inputs are refused before any work.
//! One key (RFC 8452 section 9; attacker advantage at most 2^-32): random 96-bit
//! nonces are safe (2^62 messages of up to 64 KiB, 2^53 of up to 16 MiB, 2^37
//! of up to 4 GiB, plaintext and associated data together:
//! [`random_nonce_messages_log2`] derives the figure). With no nonce used more
//! than 256 times, a key may protect 2^60 messages of up to 16 KiB, 2^48 of up
//! to 1 MiB, 2^34 of up to 128 MiB, or 2^28 of up to 1 GiB. Every figure comes
//! from [`messages_per_key_log2`], whose module [`usage`] has each theorem's
//! whole sum and its assumptions. The crate README has the full table.
//!
//! # Features
//!
//! - `std` (default), `alloc`: the `Vec`-returning [`Aes128GcmSiv::encrypt`] and
//!   [`Aes128GcmSiv::decrypt`]. Everything else works in `no_std` without allocation.
//! - `aead`: the RustCrypto [`aead`](https://docs.rs/aead) traits (`KeyInit`,
//!   `AeadInOut`, and through them `Aead`), so this crate drops in for `aes-gcm-siv`.
//! - `parallel` (default; needs `std`): one large message on all cores (above).
//! - `getrandom` (default): AEADs that pick their own nonces
//!   ([`Aes256GcmSiv::encrypt_random_nonce`] and the rest; see [`random_nonce`]).
//! - `force-portable`: [`Backend::select`] (and so `new`) picks the portable
//!   backend even where hardware support exists.
//! - `research` (needs `alloc`): [`research`], the seed papers' historical
//!   variants (GCM-SIV of 2015, the 2016 drafts, 002's DeriveKey for CTR and
//!   AES-GCM), for checking the papers' claims; not for production.

#![no_std]
#![deny(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(any(feature = "std", test))]
extern crate std;

// The layers, lowest first: each module uses only those above it in this
// list (scripts/check-layers.py checks; docs/ARCHITECTURE.md draws them).
mod error;
mod limits;
#[allow(unsafe_code)] // Slices back from an input's and an output's pointers; see its module docs.
mod inout;
mod buffers;
mod backend;
mod dispatch;
mod verify;
mod siv;
mod gcm;
mod batch;
#[cfg(feature = "parallel")]
#[allow(unsafe_code)] // A lifetime erasure for pool helpers; see its module docs.
mod pieces;
#[cfg(feature = "parallel")]
mod parallel;
pub mod hazmat;
mod aes_gcm_siv;
mod aes_gcm;
mod cipher;
#[cfg(feature = "getrandom")]
pub mod random_nonce;
#[cfg(feature = "aead")]
mod aead_traits;
#[cfg(feature = "research")]
pub mod research;

pub use aes_gcm::{Aes128Gcm, Aes128Gmac, Aes256Gcm, Aes256Gmac, Tag};
pub use aes_gcm_siv::{Aes128GcmSiv, Aes256GcmSiv, nonce_from_slice};
pub use backend::Backend;
pub use batch::BatchItem;
pub use buffers::scrubbed;
pub use cipher::{Algorithm, Cipher};
pub use error::Error;
pub use gcm::GCM_FAST_IV_LEN;
pub use limits::usage::{NonceUse, messages_per_key_log2};
pub use limits::{
    A_MAX, C_MAX, GCM_A_MAX, GCM_IV_MAX, GCM_IV_MIN, GCM_P_MAX, NONCE_LEN, P_MAX, TAG_LEN,
    random_nonce_messages_log2, single_nonce_messages_log2, usage,
};
