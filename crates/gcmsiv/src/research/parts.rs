//! The two pieces 002 times on their own, on the crate's own AES: key
//! expansion followed by a few blocks (its Table 1), and CTR under a static
//! key (the "original" CTR row of its Table 3, which [`Variant::CtrDeriveKey`]
//! is measured against). Research only, as the rest of the module.
//!
//! [`Variant::CtrDeriveKey`]: super::Variant::CtrDeriveKey

use super::CTR_DERIVE_KEY;
use crate::Error;
use crate::backend::{Aes, Backend, Block, OnSchedule};
use crate::limits::NONCE_LEN;
use alloc::boxed::Box;
use core::fmt;

/// The pieces over one backend and key size.
trait Pieces: Send + Sync {
    fn expand_and_encrypt(&self, key: &[u8], blocks: &mut [Block]);
    fn ctr(&self, counter: &Block, data: &mut [u8]);
}

impl<A: Aes + Send + Sync> Pieces for A {
    fn expand_and_encrypt(&self, key: &[u8], blocks: &mut [Block]) {
        // The schedule is wiped when it drops, as a record key's is.
        self.rekey(key).encrypt_blocks(blocks);
    }
    fn ctr(&self, counter: &Block, data: &mut [u8]) {
        self.ctr32be(counter, data);
    }
}

/// AES-128 or AES-256 on one backend, keyed once, with the two operations
/// 002 measures apart from any mode: **for research and benchmarks, not for
/// production** (CTR here authenticates nothing).
///
/// The key's backend is chosen once, when it is made; the key schedule is
/// wiped on drop, and `Debug` prints only the key size and the backend.
pub struct AesParts {
    key_len: usize,
    backend: Backend,
    pieces: Box<dyn Pieces>,
}

impl fmt::Debug for AesParts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AesParts")
            .field("key_bits", &(self.key_len * 8))
            .field("backend", &self.backend)
            .finish()
    }
}

impl AesParts {
    /// AES under `key` (16 or 32 bytes) on `backend`;
    /// [`Error::BackendUnavailable`] if the CPU lacks it.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self, Error> {
        struct Job;
        impl OnSchedule for Job {
            type Output = Box<dyn Pieces>;
            fn run<A: Aes + Send + Sync + 'static>(self, schedule: A) -> Box<dyn Pieces>
            where
                A::GhashTable: Send + Sync,
            {
                Box::new(schedule)
            }
        }
        let pieces = backend.on_schedule(key, Job)?;
        Ok(AesParts { key_len: key.len(), backend, pieces })
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// 002's Table 1: expands `key` (as long as this one's) on this
    /// backend, the way every per-nonce key of the crate is expanded, and
    /// encrypts `blocks` in place under it (none: the expansion alone). The
    /// expanded schedule is wiped before returning. This key only picks the
    /// backend and key size.
    pub fn expand_and_encrypt(&self, key: &[u8], blocks: &mut [[u8; 16]]) -> Result<(), Error> {
        if key.len() != self.key_len {
            return Err(Error::InvalidKeyLength { expected: self.key_len, actual: key.len() });
        }
        self.pieces.expand_and_encrypt(key, blocks);
        Ok(())
    }

    /// CTR under this (static) key with the counter layout of
    /// [`Variant::CtrDeriveKey`](super::Variant::CtrDeriveKey): the keystream
    /// AES_K(N || BE32(j)) from j = 0, XORed into `data` (encryption and
    /// decryption alike). 002's "original" CTR; under that variant's derived
    /// K2 it gives that variant's output.
    pub fn ctr(&self, nonce: &[u8], data: &mut [u8]) -> Result<(), Error> {
        let nonce: &[u8; NONCE_LEN] = nonce
            .try_into()
            .map_err(|_| Error::InvalidNonceLength { expected: NONCE_LEN, actual: nonce.len() })?;
        CTR_DERIVE_KEY.check_seal(nonce.len(), 0, data.len())?;
        self.pieces.ctr(&super::ctr_counter(nonce), data);
        Ok(())
    }
}
