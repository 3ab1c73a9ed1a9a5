//! What the research tables time, behind the harness's one interface: the
//! seed variants, our AES-GCM and RFC 8452 keyed inside every call, and the
//! pieces the papers time alone (hashes, CTR, key expansions).

use crate::peers::{Impl, Op};
use gcmsiv::Backend;
use gcmsiv::research::{AesParts, SeedCipher, Variant};

pub const NONCE16: [u8; 16] = [7; 16];
pub const NONCE12: [u8; 12] = [7; 12];

/// One variant, keyed once ("No Init") or keyed inside every call ("Full").
struct Seed {
    variant: Variant,
    key: Vec<u8>,
    cipher: SeedCipher,
    full: bool,
    work: Vec<u8>,
    sealed: Vec<u8>,
    opening: Vec<u8>,
    name: &'static str,
}

pub fn seed(variant: Variant, key_len: usize, full: bool, name: &'static str) -> Box<dyn Impl> {
    let key = vec![0x42; key_len];
    let cipher = SeedCipher::with_backend(variant, &key, crate::backend()).unwrap();
    Box::new(Seed { variant, key, cipher, full, work: vec![], sealed: vec![], opening: vec![], name })
}

impl Seed {
    fn nonce(&self) -> &'static [u8] {
        if self.variant.nonce_len() == 12 { &NONCE12 } else { &NONCE16 }
    }
}

impl Impl for Seed {
    fn name(&self) -> &'static str {
        self.name
    }
    fn prepare(&mut self, _op: Op, size: usize) {
        self.work = vec![0x5a; size];
        self.sealed = self.cipher.seal(self.nonce(), b"", &self.work).unwrap();
        self.opening = self.sealed.clone();
    }
    fn run(&mut self, op: Op) {
        let fresh;
        let c = if self.full {
            fresh = SeedCipher::with_backend(self.variant, &self.key, crate::backend()).unwrap();
            &fresh
        } else {
            &self.cipher
        };
        let tag_len = self.variant.tag_len();
        let nonce = self.nonce();
        match op {
            Op::Seal => {
                std::hint::black_box(c.seal_in_place_detached(nonce, b"", &mut self.work).unwrap());
            }
            Op::Open => {
                self.opening.copy_from_slice(&self.sealed);
                let (ct, tag) = self.opening.split_at_mut(self.sealed.len() - tag_len);
                assert!(c.open_in_place_detached(nonce, b"", ct, tag).is_ok());
            }
        }
    }
}

/// Our AES-128-GCM or RFC 8452 keyed inside every call (000's "Full"), on
/// a given backend: the AES-GCM key set-up on `aesni-clmul` is what OpenSSL
/// 1.0.2's `EVP_EncryptInit` did on Haswell (the AES key schedule, H =
/// AES_K(0), and H's powers for 8-block aggregated GHASH), without its
/// context allocation and dispatch.
pub struct FullOurs {
    pub gcm: bool,
    pub backend: Backend,
    pub name: &'static str,
    pub work: Vec<u8>,
}

impl Impl for FullOurs {
    fn name(&self) -> &'static str {
        self.name
    }
    fn prepare(&mut self, _op: Op, size: usize) {
        self.work = vec![0x5a; size];
    }
    fn run(&mut self, _op: Op) {
        let key = [0x42u8; 16];
        if self.gcm {
            let c = gcmsiv::Aes128Gcm::with_backend(&key, 16, self.backend).unwrap();
            std::hint::black_box(c.encrypt_in_place_detached(&NONCE12, b"", &mut self.work).unwrap());
        } else {
            let c =
                gcmsiv::Aes128GcmSiv::with_backend(&key, self.backend).unwrap().with_parallel_threshold(None);
            std::hint::black_box(c.encrypt_in_place_detached(&NONCE12, b"", &mut self.work).unwrap());
        }
    }
}

/// The backend whose AES-GCM set-up matches OpenSSL 1.0.2's: the 128-bit
/// AES-NI path where the CPU has it, else ours.
pub fn openssl_like_backend() -> Backend {
    Backend::available().into_iter().flatten().find(|b| b.name() == "aesni-clmul").unwrap_or(crate::backend())
}

pub fn first(mut v: Vec<Box<dyn Impl>>) -> Box<dyn Impl> {
    v.truncate(1);
    v.pop().unwrap()
}

/// Our static-key CTR (`AesParts::ctr`): 002's "original" CTR and 000's
/// CTR_ENCRYPTION step, the counter layout of `ctr-derive-key` under a key
/// expanded once.
pub struct StaticCtr {
    parts: AesParts,
    work: Vec<u8>,
}

impl StaticCtr {
    pub fn boxed(key_len: usize) -> Box<dyn Impl> {
        let parts = AesParts::with_backend(&vec![0x42; key_len], crate::backend()).unwrap();
        Box::new(StaticCtr { parts, work: vec![] })
    }
}

impl Impl for StaticCtr {
    fn name(&self) -> &'static str {
        "CTR"
    }
    fn prepare(&mut self, _op: Op, size: usize) {
        self.work = vec![0x5a; size];
    }
    fn run(&mut self, _op: Op) {
        self.parts.ctr(&NONCE12, &mut self.work).unwrap();
        std::hint::black_box(&mut self.work);
    }
}

/// POLYVAL alone under a key made once (000's GHASH step in the POLYVAL
/// order its authors' code uses): the key's powers are the key's, as in
/// 000's static-key scheme.
pub struct PolyvalOnly {
    fresh: gcmsiv::hazmat::Polyval,
    data: Vec<u8>,
}

impl PolyvalOnly {
    pub fn boxed() -> Box<dyn Impl> {
        let fresh = gcmsiv::hazmat::Polyval::with_backend(&[0x42; 16], crate::backend()).unwrap();
        Box::new(PolyvalOnly { fresh, data: vec![] })
    }
}

impl Impl for PolyvalOnly {
    fn name(&self) -> &'static str {
        "POLYVAL"
    }
    fn prepare(&mut self, _op: Op, size: usize) {
        self.data = vec![0x5a; size];
    }
    fn run(&mut self, _op: Op) {
        let mut p = self.fresh.clone();
        p.update_padded(&self.data);
        std::hint::black_box(p.finalize());
    }
}

/// GHASH alone, as AES-GCM computes it: our GMAC over the data (GHASH of
/// the data and the length block, and one AES block for the mask).
pub struct GhashOnly {
    gmac: gcmsiv::Aes128Gmac,
    data: Vec<u8>,
}

impl GhashOnly {
    pub fn boxed() -> Box<dyn Impl> {
        let gcm = gcmsiv::Aes128Gcm::with_backend(&[0x42; 16], 16, crate::backend()).unwrap();
        Box::new(GhashOnly { gmac: gcmsiv::Aes128Gmac::from_gcm(gcm), data: vec![] })
    }
}

impl Impl for GhashOnly {
    fn name(&self) -> &'static str {
        "GHASH"
    }
    fn prepare(&mut self, _op: Op, size: usize) {
        self.data = vec![0x5a; size];
    }
    fn run(&mut self, _op: Op) {
        std::hint::black_box(self.gmac.compute(&NONCE12, &self.data).unwrap());
    }
}

/// RFC 8452 sealing `count` messages of the size in one batch call (000
/// Table 1's "multiple messages" rows measured several messages processed
/// together); one call's cycles are divided by `count` by the harness's
/// caller.
pub struct Rfc8452Batch {
    cipher: gcmsiv::Aes128GcmSiv,
    count: usize,
    bufs: Vec<Vec<u8>>,
    nonces: Vec<[u8; 12]>,
}

impl Rfc8452Batch {
    pub fn boxed(count: usize) -> Box<dyn Impl> {
        let cipher = gcmsiv::Aes128GcmSiv::with_backend(&[0x42; 16], crate::backend())
            .unwrap()
            .with_parallel_threshold(None);
        let nonces = (0..count).map(|i| [i as u8; 12]).collect();
        Box::new(Rfc8452Batch { cipher, count, bufs: vec![], nonces })
    }
}

impl Impl for Rfc8452Batch {
    fn name(&self) -> &'static str {
        "RFC 8452 batch"
    }
    fn prepare(&mut self, _op: Op, size: usize) {
        self.bufs = vec![vec![0x5a; size]; self.count];
    }
    fn run(&mut self, _op: Op) {
        let mut items: Vec<gcmsiv::BatchItem<'_>> =
            self.bufs.iter_mut().zip(&self.nonces).map(|(b, n)| gcmsiv::BatchItem::new(n, b"", b)).collect();
        self.cipher.encrypt_batch(&mut items).unwrap();
        std::hint::black_box(&mut items);
    }
}

/// 002's Table 1 as one call: a key expanded and `blocks` encrypted under
/// it. Chained, each key is the previous call's first ciphertext block (so
/// the calls' latencies add up, one expansion waiting for the last, as a
/// single message's would); otherwise the calls are independent and the
/// core overlaps them (throughput).
pub struct Expand {
    parts: AesParts,
    key: Vec<u8>,
    blocks: Vec<[u8; 16]>,
    chained: bool,
}

impl Expand {
    pub fn boxed(backend: Backend, key_len: usize, blocks: usize, chained: bool) -> Box<dyn Impl> {
        let parts = AesParts::with_backend(&vec![0x42; key_len], backend).unwrap();
        Box::new(Expand { parts, key: vec![0x24; key_len], blocks: vec![[0x5a; 16]; blocks], chained })
    }
}

impl Impl for Expand {
    fn name(&self) -> &'static str {
        "key expansion"
    }
    fn prepare(&mut self, _op: Op, _size: usize) {}
    fn run(&mut self, _op: Op) {
        if self.chained {
            let last = self.blocks[0];
            for chunk in self.key.chunks_mut(16) {
                chunk.copy_from_slice(&last);
            }
        }
        for (i, b) in self.blocks.iter_mut().enumerate() {
            *b = [i as u8; 16];
        }
        self.parts.expand_and_encrypt(&self.key, &mut self.blocks).unwrap();
        std::hint::black_box(&mut self.blocks);
    }
}

/// The whole of DeriveKey for one message: `ctr-derive-key` sealing an empty
/// message (the derivation's blocks, K2's expansion, and K1 made into a
/// POLYVAL key, which CTR does not use but the fused derivation makes).
pub struct DeriveOnly {
    cipher: SeedCipher,
}

impl DeriveOnly {
    pub fn boxed(backend: Backend, key_len: usize) -> Box<dyn Impl> {
        let cipher = SeedCipher::with_backend(Variant::CtrDeriveKey, &vec![0x42; key_len], backend).unwrap();
        Box::new(DeriveOnly { cipher })
    }
}

impl Impl for DeriveOnly {
    fn name(&self) -> &'static str {
        "DeriveKey"
    }
    fn prepare(&mut self, _op: Op, _size: usize) {}
    fn run(&mut self, _op: Op) {
        std::hint::black_box(self.cipher.seal_in_place_detached(&NONCE12, b"", &mut []).unwrap());
    }
}
