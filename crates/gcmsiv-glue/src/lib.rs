//! What gcmsiv's language bindings share, so that each is written once.
//!
//! Every binding sits on one Rust layer, [`gcmsiv::Cipher`]: the C ABI
//! (`crates/gcmsiv-c`, which the Go binding wraps through cgo), Node.js
//! (`bindings/node`), Java (`bindings/java`) and Python (`bindings/python`).
//! Between `Cipher` and each binding's framework (the C ABI's pointers,
//! napi, jni, pyo3) sits this crate, with what they would otherwise each
//! write again, and nothing of any framework:
//!
//! - [`guard()`] (`guard.rs`): the one panic guard, for native code that no
//!   framework wraps: the C ABI's calls, every JNI call, Node's work on
//!   libuv's pool threads. (napi's `catch_unwind` wraps Node's calls, and
//!   pyo3's trampolines Python's, a panic across `py.detach` included.)
//! - [`Failure`] (`failure.rs`): the one mapping of [`gcmsiv::Error`] to what
//!   a binding raises: a [`Kind`] with a stable code, the message, and its
//!   [`Class`] (authentication failure, misuse, internal). Each binding turns
//!   it into its own exception or status code.
//! - [`with_scratch`] and [`wipe`] (`scratch.rs`): a thread's scratch buffer
//!   for decryptions that must not run where other threads can read, wiped
//!   after each use.
//! - [`seal_batch`] and [`open_batch`] (`batch.rs`): many messages in one
//!   call, AES-GCM-SIV through `Cipher`'s batch path.
//! - [`backend_named`] and [`backend_numbered`] (`backend.rs`): the backend
//!   a caller asks for, by name or by number.
//!
//! Each module uses only those listed before it.

#![forbid(unsafe_code)]

mod failure;
mod guard;
mod scratch;
mod batch;
mod backend;

pub use backend::{backend_named, backend_names, backend_number, backend_numbered};
pub use batch::{Message, open_batch, seal_batch};
pub use failure::{Class, Failure, Kind};
pub use guard::guard;
pub use scratch::{SCRATCH_KEEP, wipe, with_scratch};
