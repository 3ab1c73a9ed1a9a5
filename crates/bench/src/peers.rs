//! The implementations under test behind one interface.

use aes_gcm_siv::aead::{AeadInOut, KeyInit};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Seal,
    Open,
}

/// One implementation: `prepare` builds the key and buffers outside the timed
/// region; `run` does one seal (in place) or one open (copy in, open in place:
/// every implementation pays the same copy).
pub trait Impl {
    fn name(&self) -> &'static str;
    fn prepare(&mut self, op: Op, size: usize);
    fn run(&mut self, op: Op);
}

const NONCE: [u8; 12] = [7; 12];

/// Buffers of every implementation's harness: `work` is sealed in place;
/// `opening` receives ciphertext || tag before each open.
#[derive(Default)]
struct Buffers {
    work: Vec<u8>,
    sealed: Vec<u8>,
    opening: Vec<u8>,
}

impl Buffers {
    fn prepare(&mut self, size: usize, seal: impl FnOnce(&mut [u8]) -> [u8; 16]) {
        self.work = vec![0x5a; size];
        let tag = seal(&mut self.work);
        self.sealed = [self.work.as_slice(), &tag].concat();
        self.opening = self.sealed.clone();
    }
}

/// Splits ciphertext || tag.
fn split(buf: &mut [u8]) -> (&mut [u8], &[u8; 16]) {
    let n = buf.len() - 16;
    let (ct, tag) = buf.split_at_mut(n);
    (ct, (&*tag).try_into().unwrap())
}

macro_rules! harness {
    ($ty:ident, $name:literal, $key:ty, |$k:ident, $buf:ident| seal $seal:expr, |$k2:ident, $b2:ident| open $open:expr) => {
        pub struct $ty {
            key: $key,
            bufs: Buffers,
        }
        impl Impl for $ty {
            fn name(&self) -> &'static str {
                $name
            }
            fn prepare(&mut self, _op: Op, size: usize) {
                let $k = &self.key;
                self.bufs.prepare(size, |$buf| $seal);
            }
            fn run(&mut self, op: Op) {
                match op {
                    Op::Seal => {
                        let $k = &self.key;
                        let $buf = &mut self.bufs.work[..];
                        std::hint::black_box($seal);
                    }
                    Op::Open => {
                        self.bufs.opening.copy_from_slice(&self.bufs.sealed);
                        let $k2 = &self.key;
                        let $b2 = &mut self.bufs.opening[..];
                        assert!($open, "open failed");
                    }
                }
            }
        }
    };
}

// Unboxed on purpose: the timed calls reach the key without an indirection.
#[allow(clippy::large_enum_variant)]
pub enum OursKey {
    A128(gcmsiv::Aes128GcmSiv),
    A256(gcmsiv::Aes256GcmSiv),
}

harness!(Ours, "gcmsiv", OursKey,
    |k, buf| seal match k {
        OursKey::A128(c) => c.encrypt_in_place_detached(&NONCE, b"", buf).unwrap(),
        OursKey::A256(c) => c.encrypt_in_place_detached(&NONCE, b"", buf).unwrap(),
    },
    |k, sealed| open {
        let (buf, tag) = split(sealed);
        match k {
            OursKey::A128(c) => c.decrypt_in_place_detached(&NONCE, b"", buf, tag).is_ok(),
            OursKey::A256(c) => c.decrypt_in_place_detached(&NONCE, b"", buf, tag).is_ok(),
        }
    }
);

harness!(AwsLc, "aws-lc-rs", aws_lc_rs::aead::LessSafeKey,
    |k, buf| seal {
        let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(NONCE);
        let tag = k.seal_in_place_separate_tag(nonce, aws_lc_rs::aead::Aad::empty(), buf).unwrap();
        <[u8; 16]>::try_from(tag.as_ref()).unwrap()
    },
    |k, sealed| open {
        let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(NONCE);
        k.open_in_place(nonce, aws_lc_rs::aead::Aad::empty(), sealed).is_ok()
    }
);

// Unboxed on purpose: the timed calls reach the key without an indirection.
#[allow(clippy::large_enum_variant)]
pub enum RcKey {
    A128(aes_gcm_siv::Aes128GcmSiv),
    A256(aes_gcm_siv::Aes256GcmSiv),
}

harness!(RustCrypto, "aes-gcm-siv", RcKey,
    |k, buf| seal {
        let nonce = aes_gcm_siv::Nonce::from(NONCE);
        let tag = match k {
            RcKey::A128(c) => c.encrypt_inout_detached(&nonce, b"", buf.into()).unwrap(),
            RcKey::A256(c) => c.encrypt_inout_detached(&nonce, b"", buf.into()).unwrap(),
        };
        tag.0
    },
    |k, sealed| open {
        let (buf, tag) = split(sealed);
        let nonce = aes_gcm_siv::Nonce::from(NONCE);
        let tag = aes_gcm_siv::Tag::from(*tag);
        match k {
            RcKey::A128(c) => c.decrypt_inout_detached(&nonce, b"", buf.into(), &tag).is_ok(),
            RcKey::A256(c) => c.decrypt_inout_detached(&nonce, b"", buf.into(), &tag).is_ok(),
        }
    }
);

// Unboxed on purpose: the timed calls reach the key without an indirection.
#[allow(clippy::large_enum_variant)]
pub enum OursGcmKey {
    A128(gcmsiv::Aes128Gcm),
    A256(gcmsiv::Aes256Gcm),
}

harness!(OursGcm, "gcmsiv", OursGcmKey,
    |k, buf| seal {
        let tag = match k {
            OursGcmKey::A128(c) => c.encrypt_in_place_detached(&NONCE, b"", buf).unwrap(),
            OursGcmKey::A256(c) => c.encrypt_in_place_detached(&NONCE, b"", buf).unwrap(),
        };
        <[u8; 16]>::try_from(tag.as_bytes()).unwrap()
    },
    |k, sealed| open {
        let (buf, tag) = split(sealed);
        match k {
            OursGcmKey::A128(c) => c.decrypt_in_place_detached(&NONCE, b"", buf, tag).is_ok(),
            OursGcmKey::A256(c) => c.decrypt_in_place_detached(&NONCE, b"", buf, tag).is_ok(),
        }
    }
);

harness!(Ring, "ring", ring::aead::LessSafeKey,
    |k, buf| seal {
        let nonce = ring::aead::Nonce::assume_unique_for_key(NONCE);
        let tag = k.seal_in_place_separate_tag(nonce, ring::aead::Aad::empty(), buf).unwrap();
        <[u8; 16]>::try_from(tag.as_ref()).unwrap()
    },
    |k, sealed| open {
        let nonce = ring::aead::Nonce::assume_unique_for_key(NONCE);
        k.open_in_place(nonce, ring::aead::Aad::empty(), sealed).is_ok()
    }
);

/// The AES-GCM implementations for one key size, ours first.
pub fn gcm(key_bits: usize) -> Vec<Box<dyn Impl>> {
    let key = [0x42u8; 32];
    let k = &key[..key_bits / 8];
    let ours = match key_bits {
        128 => OursGcmKey::A128(
            gcmsiv::Aes128Gcm::with_backend(k.try_into().unwrap(), 16, crate::backend()).unwrap(),
        ),
        _ => OursGcmKey::A256(
            gcmsiv::Aes256Gcm::with_backend(k.try_into().unwrap(), 16, crate::backend()).unwrap(),
        ),
    };
    let (aws_alg, ring_alg) = match key_bits {
        128 => (&aws_lc_rs::aead::AES_128_GCM, &ring::aead::AES_128_GCM),
        _ => (&aws_lc_rs::aead::AES_256_GCM, &ring::aead::AES_256_GCM),
    };
    let aws = aws_lc_rs::aead::LessSafeKey::new(aws_lc_rs::aead::UnboundKey::new(aws_alg, k).unwrap());
    let ring = ring::aead::LessSafeKey::new(ring::aead::UnboundKey::new(ring_alg, k).unwrap());
    vec![
        Box::new(OursGcm { key: ours, bufs: Buffers::default() }),
        Box::new(AwsLc { key: aws, bufs: Buffers::default() }),
        Box::new(Ring { key: ring, bufs: Buffers::default() }),
    ]
}

/// Our GCM-SIV and our GCM, for the GCM-SIV paper's ratios.
pub fn ours_siv_and_gcm(key_bits: usize) -> Vec<Box<dyn Impl>> {
    let mut v = gcm_siv(key_bits);
    v.truncate(1);
    let mut g = gcm(key_bits);
    g.truncate(1);
    v.extend(g);
    v
}

/// The GCM-SIV implementations for one key size, ours first.
pub fn gcm_siv(key_bits: usize) -> Vec<Box<dyn Impl>> {
    let key = [0x42u8; 32];
    let (ours, aws_alg, rc) = match key_bits {
        128 => (
            // One core, like the peers; the all-cores path has its own table.
            OursKey::A128(
                gcmsiv::Aes128GcmSiv::with_backend(key[..16].try_into().unwrap(), crate::backend())
                    .unwrap()
                    .with_parallel_threshold(None),
            ),
            &aws_lc_rs::aead::AES_128_GCM_SIV,
            RcKey::A128(aes_gcm_siv::Aes128GcmSiv::new_from_slice(&key[..16]).unwrap()),
        ),
        _ => (
            OursKey::A256(
                gcmsiv::Aes256GcmSiv::with_backend(&key, crate::backend())
                    .unwrap()
                    .with_parallel_threshold(None),
            ),
            &aws_lc_rs::aead::AES_256_GCM_SIV,
            RcKey::A256(aes_gcm_siv::Aes256GcmSiv::new_from_slice(&key).unwrap()),
        ),
    };
    let aws = aws_lc_rs::aead::LessSafeKey::new(
        aws_lc_rs::aead::UnboundKey::new(aws_alg, &key[..key_bits / 8]).unwrap(),
    );
    vec![
        Box::new(Ours { key: ours, bufs: Buffers::default() }),
        Box::new(AwsLc { key: aws, bufs: Buffers::default() }),
        Box::new(RustCrypto { key: rc, bufs: Buffers::default() }),
    ]
}

/// The open harness's copy alone (ciphertext || tag into the buffer, the
/// same sizes): timed beside the opens so that each open can be read net of
/// it, which is how an open compares with the limit loops.
#[derive(Default)]
pub struct CopyOnly {
    bufs: Buffers,
}

impl Impl for CopyOnly {
    fn name(&self) -> &'static str {
        "harness copy"
    }
    fn prepare(&mut self, _op: Op, size: usize) {
        self.bufs.prepare(size, |_| [0; 16]);
    }
    fn run(&mut self, _op: Op) {
        self.bufs.opening.copy_from_slice(&self.bufs.sealed);
        std::hint::black_box(&mut self.bufs.opening);
    }
}
