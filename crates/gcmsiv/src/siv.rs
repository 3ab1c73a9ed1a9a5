//! AES-GCM-SIV (RFC 8452 section 4), written once over the [`Aes`] and
//! [`Polyval`] traits. No intrinsics here: the backend is a type parameter.

use crate::backend::{Aes, Block, Polyval};
use crate::Error;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// Nonce length in bytes (RFC 8452 section 4: N_MIN = N_MAX = 12).
pub const NONCE_LEN: usize = 12;
/// Tag length in bytes (RFC 8452 section 4).
pub const TAG_LEN: usize = 16;
/// Longest plaintext, in bytes: P_MAX = 2^36 (RFC 8452 section 6).
pub const P_MAX: u64 = 1 << 36;
/// Longest associated data, in bytes: A_MAX = 2^36 (RFC 8452 section 6).
pub const A_MAX: u64 = 1 << 36;
/// Longest ciphertext including the tag, in bytes: C_MAX = 2^36 + 16 (RFC 8452 section 6).
pub const C_MAX: u64 = (1 << 36) + 16;

/// The per-nonce keys of RFC 8452 section 4.
#[derive(ZeroizeOnDrop)]
pub(crate) struct RecordKeys<A: Aes> {
    /// message_authentication_key: the POLYVAL key H.
    pub(crate) authentication_key: Block,
    /// message_encryption_key, raw (for hazmat and tests) and expanded.
    pub(crate) encryption_key_bytes: [u8; 32],
    pub(crate) encryption_key: A,
}

impl<A: Aes> Zeroize for RecordKeys<A> {
    fn zeroize(&mut self) {
        self.authentication_key.zeroize();
        self.encryption_key_bytes.zeroize();
        self.encryption_key.zeroize();
    }
}

/// A key-generating key and the mode's steps, each a small named helper.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct GcmSiv<A: Aes> {
    key_generating_key: A,
}

impl<A: Aes> GcmSiv<A> {
    pub(crate) fn new(key_generating_key: A) -> Self {
        GcmSiv { key_generating_key }
    }

    /// RFC 8452 section 4: encrypt LE32(i) || nonce for i = 0..(2 + KEY_LEN/8) and
    /// keep the first 8 bytes of each block. The blocks are independent, so they
    /// go to the cipher together.
    pub(crate) fn derive_record_keys(&self, nonce: &[u8; NONCE_LEN]) -> RecordKeys<A> {
        let n = 2 + A::KEY_LEN / 8;
        let mut blocks = Zeroizing::new([[0u8; 16]; 6]);
        for (i, b) in blocks[..n].iter_mut().enumerate() {
            b[..4].copy_from_slice(&(i as u32).to_le_bytes());
            b[4..].copy_from_slice(nonce);
        }
        self.key_generating_key.encrypt_blocks(&mut blocks[..n]);
        let mut authentication_key = [0u8; 16];
        authentication_key[..8].copy_from_slice(&blocks[0][..8]);
        authentication_key[8..].copy_from_slice(&blocks[1][..8]);
        let mut encryption_key_bytes = [0u8; 32];
        for (dst, b) in encryption_key_bytes.chunks_exact_mut(8).zip(&blocks[2..n]) {
            dst.copy_from_slice(&b[..8]);
        }
        let encryption_key = self.key_generating_key.rekey(&encryption_key_bytes[..A::KEY_LEN]);
        RecordKeys { authentication_key, encryption_key_bytes, encryption_key }
    }

    /// Seals `buffer` in place and returns the tag.
    pub(crate) fn seal_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: &mut [u8],
    ) -> Result<Block, Error> {
        check_lengths(aad.len(), buffer.len(), P_MAX, Error::PlaintextTooLong)?;
        let keys = self.derive_record_keys(nonce);
        let mut hash = keys.encryption_key.polyval(&keys.authentication_key);
        hash.update_padded(aad);
        hash.update_padded(buffer);
        let tag = finish_tag(&keys.encryption_key, hash, aad.len(), buffer.len(), nonce);
        keys.encryption_key.ctr32le(&initial_counter(&tag), buffer);
        Ok(tag)
    }

    /// Opens `buffer` in place. On failure every byte of `buffer` is zero:
    /// unauthenticated plaintext never reaches the caller.
    pub(crate) fn open_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &Block,
    ) -> Result<(), Error> {
        check_lengths(aad.len(), buffer.len(), C_MAX - TAG_LEN as u64, Error::CiphertextTooLong)?;
        let keys = self.derive_record_keys(nonce);
        let mut hash = keys.encryption_key.polyval(&keys.authentication_key);
        hash.update_padded(aad);
        keys.encryption_key.ctr32le_then_polyval(&initial_counter(tag), buffer, &mut hash);
        let expected = finish_tag(&keys.encryption_key, hash, aad.len(), buffer.len(), nonce);
        // Whether the tag matched is public (it is the result); which bytes
        // differed is not, hence the constant-time comparison.
        if bool::from(expected.ct_eq(tag)) {
            Ok(())
        } else {
            buffer.zeroize();
            Err(Error::Authentication)
        }
    }
}

/// RFC 8452 section 6 limits, checked before any work.
fn check_lengths(aad_len: usize, msg_len: usize, msg_max: u64, too_long: Error) -> Result<(), Error> {
    if aad_len as u64 > A_MAX {
        return Err(Error::AadTooLong);
    }
    if msg_len as u64 > msg_max {
        return Err(too_long);
    }
    Ok(())
}

/// The length block: LE64(bit length of AAD) || LE64(bit length of the message).
pub(crate) fn length_block(aad_len: usize, msg_len: usize) -> Block {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&(aad_len as u64 * 8).to_le_bytes());
    b[8..].copy_from_slice(&(msg_len as u64 * 8).to_le_bytes());
    b
}

/// Absorbs the length block, then: S_s ^ nonce, top bit cleared, encrypted.
fn finish_tag<A: Aes>(
    encryption_key: &A,
    mut hash: A::Polyval,
    aad_len: usize,
    msg_len: usize,
    nonce: &[u8; NONCE_LEN],
) -> Block {
    hash.update_blocks(&length_block(aad_len, msg_len));
    let mut s = hash.finalize();
    hash.zeroize();
    for (b, n) in s.iter_mut().zip(nonce) {
        *b ^= n;
    }
    s[15] &= 0x7f;
    encryption_key.encrypt_block(&mut s);
    s
}

/// The first counter block: the tag with its top bit set.
pub(crate) fn initial_counter(tag: &Block) -> Block {
    let mut c = *tag;
    c[15] |= 0x80;
    c
}
