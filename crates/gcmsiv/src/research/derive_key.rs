//! 002's nonce-based key derivation applied to CTR and to AES-GCM (its
//! Table 3's "with DeriveKey" rows). DeriveKey is RFC 8452 section 4 exactly
//! (SPEC 3.1), so the derivation is the crate's own, in the backend's fused
//! kernel where it has one; the modes after it are the crate's CTR and its
//! GCM (`gcm.rs`, fused where the RFC path is).

use super::{CTR_DERIVE_KEY, Intermediates, ctr_counter};
use crate::Error;
use crate::backend::{Aes, Block, Polyval};
use crate::gcm::Gcm;
use crate::limits::{GCM_A_MAX, GCM_P_MAX, Limits, NONCE_LEN};
use crate::siv::GcmSiv;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// AES-GCM with 002's DeriveKey: SP 800-38D's limits with the 12-byte nonce
/// DeriveKey takes.
const GCM_DERIVE_KEY: Limits = Limits {
    nonce_min: NONCE_LEN,
    nonce_max: NONCE_LEN as u64,
    aad_max: GCM_A_MAX,
    plaintext_max: GCM_P_MAX,
    ciphertext_max: GCM_P_MAX,
};

/// GHASH(H, A || C || [len(A)]_64 || [len(C)]_64): the S that E(J0) masks
/// into the tag, for the intermediates (the seal computes it inside its
/// fused pass and never returns it).
fn ghash_with_lengths<A: Aes>(gcm: &Gcm<A>, aad: &[u8], ciphertext: &[u8]) -> Block {
    let mut g = gcm.ghash();
    gcm.ghash_update(&mut g, aad);
    gcm.ghash_update(&mut g, ciphertext);
    gcm.ghash_update(&mut g, &crate::gcm::length_block(aad.len(), ciphertext.len()));
    crate::gcm::byte_reverse(g.finalize())
}

/// What runs under the derived keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scheme {
    /// CTR under K2 from the counter N || BE32(0); no AAD, no tag.
    Ctr,
    /// AES-GCM under K2 with the GHASH key H = K1 (002 section 4's words).
    GcmA,
    /// Plain AES-GCM under K2, H = AES_K2(0^128) (002 Appendix B's analysis).
    GcmB,
}

/// The master key (as RFC 8452's key-generating key) and the scheme.
#[derive(Zeroize, ZeroizeOnDrop)]
pub(crate) struct DeriveKeyMode<A: Aes> {
    master: GcmSiv<A>,
    #[zeroize(skip)]
    scheme: Scheme,
}

impl<A: Aes> DeriveKeyMode<A> {
    pub(crate) fn new(master: A, scheme: Scheme) -> Self {
        DeriveKeyMode { master: GcmSiv::new(master), scheme }
    }

    /// This message's GCM: K2 for AES, and H = K1 (reading a) or AES_K2(0)
    /// (reading b). The derivation's POLYVAL state is keyed with K1 as it
    /// is, so its key is K1's bytes.
    fn gcm(&self, nonce: &[u8; NONCE_LEN]) -> Gcm<A> {
        let (k2, k1_hash) = self.master.derive_record_keys(nonce);
        match self.scheme {
            Scheme::GcmA => {
                let mut k1 = k1_hash.key();
                let gcm = Gcm::with_hash_key(k2, &k1, 16);
                k1.zeroize();
                gcm
            }
            _ => Gcm::new(k2, 16),
        }
    }

    /// Seals in place; the tag (all zeros, and not part of the output, for CTR).
    pub(crate) fn seal_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: &mut [u8],
    ) -> Result<Block, Error> {
        if self.scheme == Scheme::Ctr {
            CTR_DERIVE_KEY.check_seal(nonce.len(), aad.len(), buffer.len())?;
            self.master.derive_record_keys(nonce).0.ctr32be(&ctr_counter(nonce), buffer);
            return Ok([0; 16]);
        }
        GCM_DERIVE_KEY.check_seal(nonce.len(), aad.len(), buffer.len())?;
        self.gcm(nonce).seal_in_place(nonce, aad, buffer)
    }

    /// Opens in place (CTR: decrypts, there is nothing to verify).
    pub(crate) fn open_in_place(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &Block,
    ) -> Result<(), Error> {
        if self.scheme == Scheme::Ctr {
            CTR_DERIVE_KEY.check_open(nonce.len(), aad.len(), buffer.len())?;
            self.master.derive_record_keys(nonce).0.ctr32be(&ctr_counter(nonce), buffer);
            return Ok(());
        }
        GCM_DERIVE_KEY.check_open(nonce.len(), aad.len(), buffer.len())?;
        self.gcm(nonce).open_in_place(nonce, aad, buffer, tag)
    }

    /// DeriveKey's output as bytes, the hash key, S, and the first counter;
    /// the ciphertext (for S) and the tag from a seal.
    pub(crate) fn intermediates(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        msg: &[u8],
    ) -> Result<Intermediates, Error> {
        let mut ct = alloc::vec::Vec::from(msg);
        let tag = self.seal_in_place(nonce, aad, &mut ct)?;
        let bytes = self.master.record_key_bytes(nonce);
        let k2 = self.master.key_generating_key().rekey(&bytes.encryption_key[..A::KEY_LEN]);
        let mut initial_counter = ctr_counter(nonce);
        let mut v = Intermediates {
            derived_k1: Some(bytes.authentication_key.to_vec()),
            derived_k2: Some(bytes.encryption_key[..A::KEY_LEN].to_vec()),
            ..Intermediates::default()
        };
        if self.scheme != Scheme::Ctr {
            initial_counter = crate::backend::counter_add_be32(&initial_counter, 2);
            let mut h = [0u8; 16];
            match self.scheme {
                Scheme::GcmA => h = bytes.authentication_key,
                _ => k2.encrypt_block(&mut h),
            }
            let gcm = Gcm::with_hash_key(k2.rekey(&bytes.encryption_key[..A::KEY_LEN]), &h, 16);
            v.hash_key = Some(h.to_vec());
            v.length_block = Some(crate::gcm::length_block(aad.len(), ct.len()));
            v.hash_result = Some(ghash_with_lengths(&gcm, aad, &ct));
            v.tag = Some(tag);
        }
        v.initial_counter = initial_counter;
        v.first_keystream_block = initial_counter;
        k2.encrypt_block(&mut v.first_keystream_block);
        Ok(v)
    }
}
