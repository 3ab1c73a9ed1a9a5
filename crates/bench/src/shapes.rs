//! Calls the single-message tables leave out: associated data (alone and
//! beside a message) and out-of-place calls (the input and the output in
//! different buffers), ours beside the peers that take the same call.
//!
//! Every figure is TSC cycles per byte of input, associated data included
//! (a call of 16 KiB of associated data and no message is 16 KiB of work),
//! the median of interleaved rounds as in [`crate::measure`].

use crate::peers::{Impl, Op};
use aes_gcm_siv::aead::{AeadInOut, KeyInit};

const NONCE: [u8; 12] = [7; 12];

/// The associated-data sizes of the tables.
const AAD_SIZES: &[usize] = &[0, 13, 1024, 16384];

/// The message sizes beside each associated-data size (0: associated data
/// alone, as a protocol that authenticates a header and sends no body).
const MSG_SIZES: &[usize] = &[0, 64, 1024, 16384];

/// The message sizes of the in-place against out-of-place table.
const PLACEMENT_SIZES: &[usize] = &[16, 64, 256, 1024, 4096, 16384, 65536];

/// One key of ours, of either size (unboxed: the timed calls reach it
/// without an indirection).
#[allow(clippy::large_enum_variant)]
enum Ours {
    A128(gcmsiv::Aes128GcmSiv),
    A256(gcmsiv::Aes256GcmSiv),
}

impl Ours {
    fn new(key_bits: usize) -> Self {
        let key = [0x42u8; 32];
        match key_bits {
            128 => Ours::A128(
                gcmsiv::Aes128GcmSiv::with_backend(key[..16].try_into().unwrap(), crate::backend())
                    .unwrap()
                    .with_parallel_threshold(None),
            ),
            _ => Ours::A256(
                gcmsiv::Aes256GcmSiv::with_backend(&key, crate::backend())
                    .unwrap()
                    .with_parallel_threshold(None),
            ),
        }
    }

    fn seal(&self, aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        match self {
            Ours::A128(c) => c.encrypt_in_place_detached(&NONCE, aad, buf).unwrap(),
            Ours::A256(c) => c.encrypt_in_place_detached(&NONCE, aad, buf).unwrap(),
        }
    }

    fn open(&self, aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
        match self {
            Ours::A128(c) => c.decrypt_in_place_detached(&NONCE, aad, buf, tag).is_ok(),
            Ours::A256(c) => c.decrypt_in_place_detached(&NONCE, aad, buf, tag).is_ok(),
        }
    }

    fn seal_into(&self, aad: &[u8], input: &[u8], out: &mut [u8]) -> usize {
        match self {
            Ours::A128(c) => c.encrypt_into(&NONCE, aad, input, out).unwrap(),
            Ours::A256(c) => c.encrypt_into(&NONCE, aad, input, out).unwrap(),
        }
    }

    fn open_into(&self, aad: &[u8], sealed: &[u8], out: &mut [u8]) -> bool {
        match self {
            Ours::A128(c) => c.decrypt_into(&NONCE, aad, sealed, out).is_ok(),
            Ours::A256(c) => c.decrypt_into(&NONCE, aad, sealed, out).is_ok(),
        }
    }
}

/// One call shape: `aad` bytes of associated data and a message of
/// `msg_len` bytes, sealed or opened through `call`.
struct Shape<K> {
    name: &'static str,
    key: K,
    aad: Vec<u8>,
    /// The plaintext (sealed in place, or the input of an out-of-place seal).
    plain: Vec<u8>,
    /// Ciphertext || tag of `plain`.
    sealed: Vec<u8>,
    /// The buffer an open works on (in place: refilled from `sealed` first)
    /// or an out-of-place call writes.
    out: Vec<u8>,
    call: fn(&K, Op, &mut Buffers) -> bool,
}

/// What a call reads and writes.
struct Buffers<'a> {
    aad: &'a [u8],
    plain: &'a mut [u8],
    sealed: &'a [u8],
    out: &'a mut [u8],
}

impl<K> Shape<K> {
    fn new(
        name: &'static str,
        key: K,
        aad_len: usize,
        msg_len: usize,
        seal: impl Fn(&K, &[u8], &mut [u8]) -> [u8; 16],
        call: fn(&K, Op, &mut Buffers) -> bool,
    ) -> Self {
        let aad = vec![0xa5; aad_len];
        let plain = vec![0x5a; msg_len];
        let mut ct = plain.clone();
        let tag = seal(&key, &aad, &mut ct);
        let sealed = [ct.as_slice(), &tag].concat();
        let out = vec![0; msg_len + 16];
        Shape { name, key, aad, plain, sealed, out, call }
    }
}

impl<K> Impl for Shape<K> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn prepare(&mut self, _op: Op, _size: usize) {}
    fn run(&mut self, op: Op) {
        let mut b =
            Buffers { aad: &self.aad, plain: &mut self.plain, sealed: &self.sealed, out: &mut self.out };
        let ok = (self.call)(&self.key, op, &mut b);
        assert!(ok, "{} failed", self.name);
        std::hint::black_box(&mut self.out);
    }
}

/// Ours in place: a seal encrypts the plaintext buffer again and again (the
/// bytes change, the work does not); an open first refills its buffer.
fn ours_in_place(k: &Ours, op: Op, b: &mut Buffers) -> bool {
    match op {
        Op::Seal => {
            std::hint::black_box(k.seal(b.aad, b.plain));
            true
        }
        Op::Open => {
            let n = b.sealed.len() - 16;
            b.out[..n].copy_from_slice(&b.sealed[..n]);
            let tag: [u8; 16] = b.sealed[n..].try_into().unwrap();
            k.open(b.aad, &mut b.out[..n], &tag)
        }
    }
}

/// Ours out of place: `encrypt_into` and `decrypt_into`.
fn ours_out_of_place(k: &Ours, op: Op, b: &mut Buffers) -> bool {
    match op {
        Op::Seal => k.seal_into(b.aad, b.plain, b.out) == b.plain.len() + 16,
        Op::Open => k.open_into(b.aad, b.sealed, b.out),
    }
}

fn aws_call(k: &aws_lc_rs::aead::LessSafeKey, op: Op, b: &mut Buffers) -> bool {
    let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(NONCE);
    let aad = aws_lc_rs::aead::Aad::from(b.aad);
    match op {
        Op::Seal => k.seal_in_place_separate_tag(nonce, aad, b.plain).is_ok(),
        Op::Open => {
            let n = b.sealed.len();
            b.out[..n].copy_from_slice(b.sealed);
            k.open_in_place(nonce, aad, &mut b.out[..n]).is_ok()
        }
    }
}

fn rust_crypto_call(k: &RcKey, op: Op, b: &mut Buffers) -> bool {
    let nonce = aes_gcm_siv::Nonce::from(NONCE);
    match op {
        Op::Seal => match k {
            RcKey::A128(c) => c.encrypt_inout_detached(&nonce, b.aad, (&mut *b.plain).into()).is_ok(),
            RcKey::A256(c) => c.encrypt_inout_detached(&nonce, b.aad, (&mut *b.plain).into()).is_ok(),
        },
        Op::Open => {
            let n = b.sealed.len() - 16;
            b.out[..n].copy_from_slice(&b.sealed[..n]);
            let tag = aes_gcm_siv::Tag::from(<[u8; 16]>::try_from(&b.sealed[n..]).unwrap());
            let buf = (&mut b.out[..n]).into();
            match k {
                RcKey::A128(c) => c.decrypt_inout_detached(&nonce, b.aad, buf, &tag).is_ok(),
                RcKey::A256(c) => c.decrypt_inout_detached(&nonce, b.aad, buf, &tag).is_ok(),
            }
        }
    }
}

#[allow(clippy::large_enum_variant)]
enum RcKey {
    A128(aes_gcm_siv::Aes128GcmSiv),
    A256(aes_gcm_siv::Aes256GcmSiv),
}

/// Ours, aws-lc-rs and RustCrypto for one shape.
fn aad_impls(key_bits: usize, aad_len: usize, msg_len: usize) -> Vec<Box<dyn Impl>> {
    let key = [0x42u8; 32];
    let alg =
        if key_bits == 128 { &aws_lc_rs::aead::AES_128_GCM_SIV } else { &aws_lc_rs::aead::AES_256_GCM_SIV };
    let aws = aws_lc_rs::aead::LessSafeKey::new(
        aws_lc_rs::aead::UnboundKey::new(alg, &key[..key_bits / 8]).unwrap(),
    );
    let rc = match key_bits {
        128 => RcKey::A128(aes_gcm_siv::Aes128GcmSiv::new_from_slice(&key[..16]).unwrap()),
        _ => RcKey::A256(aes_gcm_siv::Aes256GcmSiv::new_from_slice(&key).unwrap()),
    };
    let seal_ours = |k: &Ours, a: &[u8], m: &mut [u8]| k.seal(a, m);
    vec![
        Box::new(Shape::new("gcmsiv", Ours::new(key_bits), aad_len, msg_len, seal_ours, ours_in_place)),
        Box::new(Shape::new(
            "aws-lc-rs",
            aws,
            aad_len,
            msg_len,
            |k, a, m| {
                let nonce = aws_lc_rs::aead::Nonce::assume_unique_for_key(NONCE);
                let tag = k.seal_in_place_separate_tag(nonce, aws_lc_rs::aead::Aad::from(a), m).unwrap();
                <[u8; 16]>::try_from(tag.as_ref()).unwrap()
            },
            aws_call,
        )),
        Box::new(Shape::new(
            "aes-gcm-siv",
            rc,
            aad_len,
            msg_len,
            |k, a, m| {
                let nonce = aes_gcm_siv::Nonce::from(NONCE);
                match k {
                    RcKey::A128(c) => c.encrypt_inout_detached(&nonce, a, m.into()).unwrap().0,
                    RcKey::A256(c) => c.encrypt_inout_detached(&nonce, a, m.into()).unwrap().0,
                }
            },
            rust_crypto_call,
        )),
    ]
}

/// The associated-data tables: every AAD size beside every message size,
/// seal and open, ours against aws-lc-rs and RustCrypto.
pub fn print_aad(key_sizes: &[usize], rounds: usize) {
    for &key_bits in key_sizes {
        for op in [Op::Seal, Op::Open] {
            println!(
                "\n## AES-{key_bits}-GCM-SIV {op:?} with associated data: TSC cycles per byte of AAD and message"
            );
            println!(
                "| AAD bytes | message bytes | gcmsiv | aws-lc-rs | aes-gcm-siv | vs aws-lc-rs | vs aes-gcm-siv |"
            );
            println!("|---|---|---|---|---|---|---|");
            for &aad in AAD_SIZES {
                for &msg in MSG_SIZES {
                    if aad + msg == 0 {
                        continue;
                    }
                    let mut impls = aad_impls(key_bits, aad, msg);
                    let c = crate::measure(&mut impls, op, aad + msg, rounds);
                    println!(
                        "| {aad} | {msg} | {:.3} | {:.3} | {:.3} | {:.2}x | {:.2}x |",
                        c[0],
                        c[1],
                        c[2],
                        c[1] / c[0],
                        c[2] / c[0]
                    );
                }
            }
        }
    }
}

/// Ours in place against ours out of place (`encrypt_into`,
/// `decrypt_into`), empty associated data. An in-place open first copies
/// the ciphertext into its buffer (an open in place consumes its input);
/// that copy is timed beside it, alone, and the in-place column is net of
/// it. The out-of-place open reads the sealed bytes where they are.
pub fn print_placement(key_sizes: &[usize], rounds: usize) {
    for &key_bits in key_sizes {
        for op in [Op::Seal, Op::Open] {
            println!("\n## AES-{key_bits}-GCM-SIV {op:?}, in place and out of place: TSC cycles per byte");
            println!("| bytes | in place | out of place | out of place / in place |");
            println!("|---|---|---|---|");
            for &size in PLACEMENT_SIZES {
                let seal = |k: &Ours, a: &[u8], m: &mut [u8]| k.seal(a, m);
                let mut impls: Vec<Box<dyn Impl>> = vec![
                    Box::new(Shape::new("in place", Ours::new(key_bits), 0, size, seal, ours_in_place)),
                    Box::new(Shape::new(
                        "out of place",
                        Ours::new(key_bits),
                        0,
                        size,
                        seal,
                        ours_out_of_place,
                    )),
                ];
                if op == Op::Open {
                    impls.push(Box::new(crate::peers::CopyOnly::default()));
                }
                let c = crate::measure(&mut impls, op, size, rounds);
                let in_place = if op == Op::Open { c[0] - c[2] } else { c[0] };
                println!("| {size} | {in_place:.3} | {:.3} | {:.3} |", c[1], c[1] / in_place);
            }
        }
    }
}
