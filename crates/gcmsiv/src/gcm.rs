//! AES-GCM (NIST SP 800-38D), written once over the [`Aes`] and [`Polyval`]
//! traits, with GHASH computed by POLYVAL (RFC 8452 Appendix A):
//!
//! GHASH(H, X_1..X_n) = ByteReverse(POLYVAL(mulX_POLYVAL(ByteReverse(H)),
//! ByteReverse(X_1), ..., ByteReverse(X_n)))
//!
//! With a 96-bit IV, a backend may run the whole of
//! GCM-AE or GCM-AD in one fused kernel ([`FusedKernels::gcm_fused`](crate::backend::FusedKernels::gcm_fused)); the tag
//! comparison stays here either way.

use crate::Error;
use crate::backend::{Aes, Block, InOut, Polyval};
use crate::limits::GCM;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The IV length with the fast path (J0 = IV || 0^31 || 1), in bytes.
pub const GCM_FAST_IV_LEN: usize = 12;

/// mulX_POLYVAL (RFC 8452 Appendix A): multiply by x modulo
/// x^128 + x^127 + x^126 + x^121 + 1, on a little-endian block.
pub(crate) fn mul_x_polyval(block: &Block) -> Block {
    let v = u128::from_le_bytes(*block);
    let carry = v >> 127;
    // x^128 = x^127 + x^126 + x^121 + 1; selected by a mask, not a branch.
    let reduce = 0u128.wrapping_sub(carry) & 0xC200_0000_0000_0000_0000_0000_0000_0001;
    ((v << 1) ^ reduce).to_le_bytes()
}

pub(crate) fn byte_reverse(mut b: Block) -> Block {
    b.reverse();
    b
}

/// A GCM key: the block cipher, the POLYVAL key derived from H, and the tag length.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Gcm<A: Aes> {
    cipher: A,
    /// The POLYVAL key mulX_POLYVAL(ByteReverse(H)), H = AES_K(0^128), and what
    /// the backend precomputes for it.
    polyval_key: Block,
    table: A::GhashTable,
    #[zeroize(skip)]
    tag_len: usize,
}

impl<A: Aes> Gcm<A> {
    /// `tag_len` is checked by the public constructors.
    pub(crate) fn new(cipher: A, tag_len: usize) -> Self {
        let mut h = [0u8; 16];
        cipher.encrypt_block(&mut h);
        let gcm = Self::with_hash_key(cipher, &h, tag_len);
        h.zeroize();
        gcm
    }

    /// GCM with a GHASH key `h` given rather than AES_K(0^128): SP 800-38D's
    /// steps with another H (the research module's AES-GCM with 002's
    /// DeriveKey, whose H is the derived K1).
    pub(crate) fn with_hash_key(cipher: A, h: &Block, tag_len: usize) -> Self {
        let polyval_key = mul_x_polyval(&byte_reverse(*h));
        let table = cipher.ghash_table(&polyval_key);
        Gcm { cipher, polyval_key, table, tag_len }
    }

    pub(crate) fn tag_len(&self) -> usize {
        self.tag_len
    }

    /// A GHASH state under this key's H: POLYVAL under H's byte-reversed
    /// double, over byte-reversed blocks (RFC 8452 Appendix A).
    pub(crate) fn ghash(&self) -> A::Polyval {
        self.cipher.polyval(&self.polyval_key)
    }

    /// Absorbs `data` into a GHASH state from [`Gcm::ghash`], zero-padded
    /// to whole blocks.
    pub(crate) fn ghash_update(&self, hash: &mut A::Polyval, data: &[u8]) {
        A::ghash_update(&self.table, hash, data);
    }

    /// J0 (SP 800-38D section 7.1 step 2): IV || 0^31 || 1 for a 96-bit IV,
    /// otherwise GHASH(IV || 0^s || 0^64 || [len(IV)]_64).
    fn pre_counter_block(&self, iv: &[u8]) -> Block {
        if iv.len() == GCM_FAST_IV_LEN {
            let mut j0 = [0u8; 16];
            j0[..12].copy_from_slice(iv);
            j0[15] = 1;
            return j0;
        }
        let mut g = self.ghash();
        self.ghash_update(&mut g, iv);
        self.ghash_update(&mut g, &length_block(0, iv.len()));
        byte_reverse(g.finalize())
    }

    /// GCM-AE (SP 800-38D section 7.1): encrypts `buffer` in place and returns
    /// the full 16-byte tag; callers keep the first `tag_len` bytes.
    #[inline]
    pub(crate) fn seal_in_place(&self, iv: &[u8], aad: &[u8], buffer: &mut [u8]) -> Result<Block, Error> {
        self.seal(iv, aad, InOut::in_place(buffer))
    }

    /// [`Self::seal_in_place`] from `data`'s input into its output (one
    /// buffer, or two of one length: the fused kernels read and write in
    /// one pass, the mode's steps take a copy).
    #[inline]
    pub(crate) fn seal(&self, iv: &[u8], aad: &[u8], mut data: InOut<'_>) -> Result<Block, Error> {
        GCM.check_seal(iv.len(), aad.len(), data.len())?;
        if let Ok(iv) = <&[u8; GCM_FAST_IV_LEN]>::try_from(iv)
            && let Some(tag) = self.cipher.gcm_fused::<false>(&self.table, iv, aad, data.reborrow())
        {
            return Ok(tag);
        }
        let buffer = data.into_in_place();
        let j0 = self.pre_counter_block(iv);
        let mask = self.tag_mask(&j0);
        let mut g = self.ghash();
        self.ghash_update(&mut g, aad);
        self.cipher.ctr32be_then_ghash(&inc32(&j0), buffer, &mut g, &self.table);
        Ok(self.finish_tag(&mask, &mut g, aad.len(), buffer.len()))
    }

    /// GCM-AD (SP 800-38D section 7.2): decrypts `buffer` in place if the first
    /// `tag_len` bytes of the tag match; otherwise puts the ciphertext back.
    #[inline]
    pub(crate) fn open_in_place(
        &self,
        iv: &[u8],
        aad: &[u8],
        buffer: &mut [u8],
        tag: &[u8],
    ) -> Result<(), Error> {
        self.open(iv, aad, InOut::in_place(buffer), tag)
    }

    /// [`Self::open_in_place`] from `data`'s input into its output (see
    /// [`Self::seal`]); on failure an output of its own is zeroed.
    #[inline]
    pub(crate) fn open(&self, iv: &[u8], aad: &[u8], mut data: InOut<'_>, tag: &[u8]) -> Result<(), Error> {
        GCM.check_open(iv.len(), aad.len(), data.len())?;
        if tag.len() != self.tag_len {
            return Err(Error::InvalidTagLength { expected: self.tag_len, actual: tag.len() });
        }
        let in_place = data.is_in_place();
        let fused = match <&[u8; GCM_FAST_IV_LEN]>::try_from(iv) {
            Ok(iv) => self.cipher.gcm_fused::<true>(&self.table, iv, aad, data.reborrow()),
            Err(_) => None,
        };
        let buffer = match fused {
            Some(_) => data.output(),
            None => data.into_in_place(),
        };
        let expected = match fused {
            Some(expected) => expected,
            None => {
                let j0 = self.pre_counter_block(iv);
                let mask = self.tag_mask(&j0);
                let mut g = self.ghash();
                self.ghash_update(&mut g, aad);
                self.cipher.ghash_then_ctr32be(&inc32(&j0), buffer, &mut g, &self.table);
                self.finish_tag(&mask, &mut g, aad.len(), buffer.len())
            }
        };
        let mut received = [0u8; 16];
        received[..tag.len()].copy_from_slice(tag);
        // Compare the first tag_len bytes (a public length) in constant time.
        let mask = u128::MAX >> (8 * (16 - self.tag_len));
        let diff = (u128::from_le_bytes(expected) ^ u128::from_le_bytes(received)) & mask;
        // A failure (public) puts the ciphertext back in place (CTR again
        // from J0 + 1) and zeroes an output of its own.
        crate::verify::release(diff.ct_eq(&0), buffer, |b| {
            if in_place { self.cipher.ctr32be(&inc32(&self.pre_counter_block(iv)), b) } else { b.zeroize() }
        })
    }

    /// E(J0), the block that masks GHASH into the tag. Computed first: it
    /// depends on nothing else, so it runs alongside CTR and GHASH instead of
    /// adding its latency at the end.
    fn tag_mask(&self, j0: &Block) -> Block {
        let mut t = *j0;
        self.cipher.encrypt_block(&mut t);
        t
    }

    /// S = GHASH(A || C || [len(A)]_64 || [len(C)]_64); T = E(J0) ^ S.
    ///
    /// The hash by reference: moved in by value, it left a copy of its key in
    /// the caller's frame, which the drop here did not reach. The caller's
    /// value is wiped when it goes out of scope.
    fn finish_tag(&self, mask: &Block, g: &mut A::Polyval, aad_len: usize, msg_len: usize) -> Block {
        self.ghash_update(g, &length_block(aad_len, msg_len));
        let s = byte_reverse(g.finalize());
        (u128::from_le_bytes(*mask) ^ u128::from_le_bytes(s)).to_le_bytes()
    }
}

/// [len(A)]_64 || [len(C)]_64: big-endian bit lengths.
pub(crate) fn length_block(aad_len: usize, msg_len: usize) -> Block {
    let mut b = [0u8; 16];
    b[..8].copy_from_slice(&(aad_len as u64 * 8).to_be_bytes());
    b[8..].copy_from_slice(&(msg_len as u64 * 8).to_be_bytes());
    b
}

/// inc32: the last 32 bits, big-endian, plus one modulo 2^32.
fn inc32(block: &Block) -> Block {
    crate::backend::counter_add_be32(block, 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_x_polyval_matches_rfc8452_appendix_a() {
        let x: Block = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        let mut expected = [0u8; 16];
        expected[0] = 2;
        assert_eq!(mul_x_polyval(&x), expected);
        // The example of RFC 8452 Appendix A. Its printed result ends in f2; the
        // top bit of d8 shifts out and brings in the reduction terms, so the
        // last byte is (d8 << 1) ^ c2 = 72 (the GHASH vectors, which go through
        // this function, agree).
        let x = hex16("9c98c04df9387ded828175a92ba652d8");
        assert_eq!(mul_x_polyval(&x), hex16("3931819bf271fada0503eb52574ca572"));
    }

    fn hex16(s: &str) -> Block {
        core::array::from_fn(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
    }

    /// H, J0 and GHASH(H, A, C) of the gcm-spec cases, from the mode's own
    /// steps on every backend.
    #[test]
    fn gcm_spec_intermediate_values() {
        let dir = std::env::var("GCMSIV_VECTORS")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|_| std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors"));
        let text = std::fs::read_to_string(dir.join("gcm_nist.json")).expect("gcm_nist.json");
        let file: serde_json::Value = serde_json::from_str(&text).unwrap();
        let hex = |v: &serde_json::Value| hex::decode(v.as_str().unwrap()).unwrap();
        let mut checked = 0;
        for v in file["vectors"].as_array().unwrap() {
            if v.get("h").is_none() || v["key_bits"] == 192 {
                continue;
            }
            let (key, iv, aad, ct) = (hex(&v["key"]), hex(&v["iv"]), hex(&v["aad"]), hex(&v["ciphertext"]));
            /// H, J0 and GHASH(H, A, C) from the mode's own steps.
            struct Job<'a> {
                iv: &'a [u8],
                aad: &'a [u8],
                ct: &'a [u8],
            }
            impl crate::backend::OnSchedule for Job<'_> {
                type Output = [Block; 3];
                fn run<A: Aes + Send + Sync + 'static>(self, aes: A) -> [Block; 3]
                where
                    A::GhashTable: Send + Sync,
                {
                    let g = Gcm::new(aes, 16);
                    let mut h = g.ghash();
                    g.ghash_update(&mut h, self.aad);
                    g.ghash_update(&mut h, self.ct);
                    g.ghash_update(&mut h, &length_block(self.aad.len(), self.ct.len()));
                    let mut zero = [0; 16];
                    g.cipher.encrypt_block(&mut zero);
                    [zero, g.pre_counter_block(self.iv), byte_reverse(h.finalize())]
                }
            }
            for backend in crate::Backend::available().into_iter().flatten() {
                let [h, j0, ghash] = backend.on_schedule(&key, Job { iv: &iv, aad: &aad, ct: &ct }).unwrap();
                assert_eq!(h.to_vec(), hex(&v["h"]), "H of {} on {backend}", v["id"]);
                assert_eq!(j0.to_vec(), hex(&v["j0"]), "J0 of {} on {backend}", v["id"]);
                assert_eq!(ghash.to_vec(), hex(&v["ghash"]), "GHASH of {} on {backend}", v["id"]);
            }
            checked += 1;
        }
        assert_eq!(checked, 12);
    }

    #[test]
    fn inc32_wraps_the_last_32_bits() {
        assert_eq!(inc32(&[0xff; 16])[12..], [0, 0, 0, 0]);
        assert_eq!(inc32(&[0xff; 16])[..12], [0xff; 12]);
    }
}
