//! AES-GCM-SIV (RFC 8452 section 4), written once over the [`Aes`] and
//! [`Polyval`] traits. No intrinsics here: the backend is a type parameter.

use crate::Error;
use crate::backend::{Aes, Block, InOut, Polyval};
use crate::limits::{GCM_SIV, NONCE_LEN};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

/// The per-nonce keys of RFC 8452 section 4, as bytes.
#[derive(Zeroize, ZeroizeOnDrop)]
pub(crate) struct RecordKeyBytes {
    /// message_authentication_key: the POLYVAL key H.
    pub(crate) authentication_key: Block,
    /// message_encryption_key; only the first `KEY_LEN` bytes are used.
    pub(crate) encryption_key: [u8; 32],
}

/// RFC 8452 section 4: encrypt LE32(i) || nonce for i = 0..(2 + KEY_LEN/8) under the
/// key-generating key and keep the first 8 bytes of each block. The blocks are
/// independent, so they go to the cipher together.
///
/// The byte-level reference: backends may derive in registers instead
/// ([`FusedKernels::derive_record_keys_fused`](crate::backend::FusedKernels::derive_record_keys_fused)); tests hold both to the RFC's values.
pub(crate) fn derive_record_key_bytes<A: Aes>(
    key_generating_key: &A,
    nonce: &[u8; NONCE_LEN],
) -> RecordKeyBytes {
    let n = 2 + A::KEY_LEN / 8;
    let mut blocks = Zeroizing::new([[0u8; 16]; 6]);
    for (i, b) in blocks[..n].iter_mut().enumerate() {
        b[..4].copy_from_slice(&(i as u32).to_le_bytes());
        b[4..].copy_from_slice(nonce);
    }
    key_generating_key.encrypt_blocks(&mut blocks[..n]);
    let mut keys = RecordKeyBytes { authentication_key: [0; 16], encryption_key: [0; 32] };
    keys.authentication_key[..8].copy_from_slice(&blocks[0][..8]);
    keys.authentication_key[8..].copy_from_slice(&blocks[1][..8]);
    for (dst, b) in keys.encryption_key.chunks_exact_mut(8).zip(&blocks[2..n]) {
        dst.copy_from_slice(&b[..8]);
    }
    keys
}

/// [`derive_record_key_bytes`], the keys made ready on the key-generating
/// key's backend. A function of its own: built in a closure for
/// `Option::unwrap_or_else`, the portable POLYVAL state (which holds H as
/// it is) would come back through a stack copy that nothing wipes
/// (`tests/residue.rs` checks).
fn record_keys_from_bytes<A: Aes>(key_generating_key: &A, nonce: &[u8; NONCE_LEN]) -> (A, A::Polyval) {
    let keys = derive_record_key_bytes(key_generating_key, nonce);
    (
        key_generating_key.rekey(&keys.encryption_key[..A::KEY_LEN]),
        key_generating_key.polyval(&keys.authentication_key),
    )
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

    pub(crate) fn key_generating_key(&self) -> &A {
        &self.key_generating_key
    }

    /// RFC 8452 section 4's record keys for `nonce`: the record encryption
    /// key on this key's backend, and POLYVAL keyed with the record
    /// authentication key. The backend's kernel where it has one, else the
    /// byte-level reference; the mode owns this fallback so that backends
    /// need not reach back into it.
    #[inline(always)]
    pub(crate) fn derive_record_keys(&self, nonce: &[u8; NONCE_LEN]) -> (A, A::Polyval) {
        match self.key_generating_key.derive_record_keys_fused(nonce) {
            Some(keys) => keys,
            None => record_keys_from_bytes(&self.key_generating_key, nonce),
        }
    }

    /// The record keys for `nonce` as bytes (hazmat and tests).
    pub(crate) fn record_key_bytes(&self, nonce: &[u8; NONCE_LEN]) -> RecordKeyBytes {
        derive_record_key_bytes(&self.key_generating_key, nonce)
    }

    /// Seals `buffer` in place and returns the tag.
    #[inline]
    pub(crate) fn seal_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: &mut [u8],
    ) -> Result<Block, Error> {
        self.seal(nonce, aad, InOut::in_place(buffer))
    }

    /// Seals `data`'s input into its output (one buffer, or two of one
    /// length) and returns the tag. Out of place, the backend's kernels
    /// read the plaintext and write the ciphertext in one pass where they
    /// can; the mode's steps take a copy.
    pub(crate) fn seal(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        mut data: InOut<'_>,
    ) -> Result<Block, Error> {
        GCM_SIV.check_seal(nonce.len(), aad.len(), data.len())?;
        if let Some(tag) = self.key_generating_key.seal_fused(nonce, aad, data.reborrow()) {
            return Ok(tag);
        }
        let buffer = data.into_in_place();
        // Kept as one value and used through its fields: destructuring would
        // copy the expanded key schedule.
        let mut keys = self.derive_record_keys(nonce);
        keys.1.update_padded(aad);
        keys.1.update_padded(buffer);
        let tag = finish_tag(&keys.0, &mut keys.1, aad.len(), buffer.len(), nonce);
        keys.0.ctr32le(&initial_counter(&tag), buffer);
        Ok(tag)
    }

    /// Opens `buffer` in place. On failure `buffer` holds the ciphertext
    /// again ([`Self::restore_ciphertext`]): unauthenticated plaintext never
    /// reaches the caller, and a caller who opens in place (trying one key
    /// after another, say) loses nothing.
    ///
    /// Always inlined: the failure path's closure would lead the compiler to
    /// make it a call of its own (seven arguments, two on the stack), which
    /// slows short opens (PERFORMANCE-HISTORY.md, `siv.rs`).
    #[inline(always)]
    pub(crate) fn open_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &Block,
    ) -> Result<(), Error> {
        self.open(nonce, aad, InOut::in_place(buffer), tag)
    }

    /// Opens `data`'s input into its output (one buffer, or two of one
    /// length; see [`Self::seal`]). On failure an output of its own is
    /// zeroed, and in place the buffer holds the ciphertext again
    /// ([`Self::open_in_place`]).
    #[inline(always)]
    pub(crate) fn open(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        mut data: InOut<'_>,
        tag: &Block,
    ) -> Result<(), Error> {
        GCM_SIV.check_open(nonce.len(), aad.len(), data.len())?;
        let in_place = data.is_in_place();
        if let Some(check) = self.key_generating_key.open_fused(nonce, aad, data.reborrow(), tag) {
            return crate::verify::release_if_tags_match(&check, tag, data.output(), |b| {
                if in_place { self.restore_ciphertext(nonce, tag, b) } else { b.zeroize() }
            });
        }
        let buffer = data.into_in_place();
        let mut keys = self.derive_record_keys(nonce);
        keys.1.update_padded(aad);
        keys.0.ctr32le_then_polyval(&initial_counter(tag), buffer, &mut keys.1);
        let expected = finish_tag(&keys.0, &mut keys.1, aad.len(), buffer.len(), nonce);
        crate::verify::release_if_tags_match(&expected, tag, buffer, |b| {
            if in_place { keys.0.ctr32le(&initial_counter(tag), b) } else { b.zeroize() }
        })
    }

    /// After a failed open of `buffer` under `nonce` and the received `tag`:
    /// encrypts the unauthenticated plaintext again with the key stream that
    /// decrypted it (CTR is its own inverse), which gives back exactly the
    /// ciphertext received. Only authentication failures, whose outcome is
    /// public, come here; the work is constant-time as every other pass.
    pub(crate) fn restore_ciphertext(&self, nonce: &[u8; NONCE_LEN], tag: &Block, buffer: &mut [u8]) {
        let keys = self.derive_record_keys(nonce);
        keys.0.ctr32le(&initial_counter(tag), buffer);
    }
}

/// The length block: LE64(bit length of AAD) || LE64(bit length of the message).
pub(crate) fn length_block(aad_len: usize, msg_len: usize) -> Block {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&(aad_len as u64 * 8).to_le_bytes());
    b[8..].copy_from_slice(&(msg_len as u64 * 8).to_le_bytes());
    b
}

/// Absorbs the length block, then: S_s ^ nonce, top bit cleared, encrypted.
pub(crate) fn finish_tag<A: Aes>(
    encryption_key: &A,
    hash: &mut A::Polyval,
    aad_len: usize,
    msg_len: usize,
    nonce: &[u8; NONCE_LEN],
) -> Block {
    hash.update_blocks(&length_block(aad_len, msg_len));
    let mut s = tag_input(hash.finalize(), nonce);
    encryption_key.encrypt_block(&mut s);
    s
}

/// The block the tag encrypts: S_s ^ nonce, top bit cleared.
pub(crate) fn tag_input(s: Block, nonce: &[u8; NONCE_LEN]) -> Block {
    let mut n = [0u8; 16];
    n[..NONCE_LEN].copy_from_slice(nonce);
    ((u128::from_le_bytes(s) ^ u128::from_le_bytes(n)) & !(1 << 127)).to_le_bytes()
}

/// The first counter block: the tag with its top bit set.
pub(crate) fn initial_counter(tag: &Block) -> Block {
    let mut c = *tag;
    c[15] |= 0x80;
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{boxed::Box, format, vec::Vec};

    /// Object-safe view of the internal steps, so one test body covers every backend.
    trait DynSiv {
        fn record_keys(&self, nonce: &[u8; 12]) -> (Block, [u8; 32]);
        fn tag(&self, nonce: &[u8; 12], aad: &[u8], msg: &[u8]) -> Block;
        fn ctr(&self, nonce: &[u8; 12], counter: &Block, data: &mut [u8]);
        fn encrypt_block(&self, nonce: &[u8; 12], block: &mut Block);
    }

    impl<A: Aes> DynSiv for GcmSiv<A> {
        fn record_keys(&self, nonce: &[u8; 12]) -> (Block, [u8; 32]) {
            let k = self.record_key_bytes(nonce);
            (k.authentication_key, k.encryption_key)
        }
        fn tag(&self, nonce: &[u8; 12], aad: &[u8], msg: &[u8]) -> Block {
            // The backend's own derivation, checked against the byte-level one.
            let (enc, mut h) = self.derive_record_keys(nonce);
            let bytes = self.record_key_bytes(nonce);
            let mut reference = enc.rekey(&bytes.encryption_key[..A::KEY_LEN]);
            let mut probe = [[0x33u8; 16]; 3];
            let mut expected = probe;
            enc.encrypt_blocks(&mut probe);
            reference.encrypt_blocks(&mut expected);
            assert_eq!(probe, expected, "backend record encryption key differs");
            reference.zeroize();
            h.update_padded(aad);
            h.update_padded(msg);
            finish_tag(&enc, &mut h, aad.len(), msg.len(), nonce)
        }
        fn ctr(&self, nonce: &[u8; 12], counter: &Block, data: &mut [u8]) {
            self.derive_record_keys(nonce).0.ctr32le(counter, data);
        }
        fn encrypt_block(&self, nonce: &[u8; 12], block: &mut Block) {
            self.derive_record_keys(nonce).0.encrypt_block(block);
        }
    }

    /// The mode on every backend this CPU runs, each built from the proof
    /// [`crate::Backend::proof`] gives.
    fn all(key: &[u8]) -> Vec<(&'static str, Box<dyn DynSiv>)> {
        let mut v: Vec<(&'static str, Box<dyn DynSiv>)> = Vec::new();
        struct Job;
        impl crate::backend::OnSchedule for Job {
            type Output = Box<dyn DynSiv>;
            fn run<A: Aes + Send + Sync + 'static>(self, schedule: A) -> Box<dyn DynSiv>
            where
                A::GhashTable: Send + Sync,
            {
                Box::new(GcmSiv::new(schedule))
            }
        }
        for backend in crate::Backend::available().into_iter().flatten() {
            let siv = backend.on_schedule(key, Job).unwrap();
            v.push((backend.name(), siv));
        }
        v
    }

    fn hex(v: &serde_json::Value) -> std::vec::Vec<u8> {
        hex::decode(v.as_str().unwrap()).unwrap()
    }

    #[test]
    fn rfc8452_intermediate_values_from_the_mode_steps() {
        let path = std::env::var("GCMSIV_VECTORS")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|_| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors"));
        let text = std::fs::read_to_string(path.join("rfc8452.json")).expect("rfc8452.json");
        let file: serde_json::Value = serde_json::from_str(&text).unwrap();
        let vectors = file["vectors"].as_array().unwrap();
        assert_eq!(vectors.len(), 50);
        for v in vectors {
            let key = hex(&v["key"]);
            let nonce: [u8; 12] = hex(&v["nonce"]).try_into().unwrap();
            let (aad, pt) = (hex(&v["aad"]), hex(&v["plaintext"]));
            for (name, c) in all(&key) {
                let id = format!("{} on {name}", v["id"]);
                let (auth, enc) = c.record_keys(&nonce);
                assert_eq!(auth.to_vec(), hex(&v["record_authentication_key"]), "{id}");
                assert_eq!(enc[..key.len()], hex(&v["record_encryption_key"]), "{id}");
                let tag = c.tag(&nonce, &aad, &pt);
                assert_eq!(tag.to_vec(), hex(&v["tag"]), "{id}");
                assert_eq!(initial_counter(&tag).to_vec(), hex(&v["initial_counter"]), "{id}");
                let mut masked: Block = hex(&v["polyval_result_xor_nonce_masked"]).try_into().unwrap();
                c.encrypt_block(&nonce, &mut masked);
                assert_eq!(masked, tag, "{id}");
            }
        }
    }

    #[test]
    fn ctr32le_wraps_modulo_2_32_and_keeps_the_upper_96_bits() {
        for key in [[9u8; 16].as_slice(), [9u8; 32].as_slice()] {
            for start in [0xffff_fff0u32, 0xffff_fffa, 0xffff_ffff, 0] {
                let mut counter = [0x5au8; 16];
                counter[..4].copy_from_slice(&start.to_le_bytes());
                for len in [1, 16, 100, 16 * 8, 16 * 8 + 1, 16 * 40 + 3] {
                    let mut outputs = std::vec::Vec::new();
                    for (name, c) in all(key) {
                        // Reference keystream, one block at a time.
                        let mut expected = std::vec![0u8; len];
                        for (i, chunk) in expected.chunks_mut(16).enumerate() {
                            let mut b = counter;
                            b[..4].copy_from_slice(&start.wrapping_add(i as u32).to_le_bytes());
                            c.encrypt_block(&[1; 12], &mut b);
                            chunk.copy_from_slice(&b[..chunk.len()]);
                        }
                        let mut data = std::vec![0u8; len];
                        c.ctr(&[1; 12], &counter, &mut data);
                        assert_eq!(data, expected, "{name} start {start:#x} len {len}");
                        outputs.push(data);
                    }
                    assert!(outputs.windows(2).all(|w| w[0] == w[1]));
                }
            }
        }
    }

    #[test]
    fn length_block_holds_bit_lengths() {
        assert_eq!(length_block(1, 2), [8, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0]);
    }
}
