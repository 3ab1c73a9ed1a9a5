//! The hardware against the portable backend, primitive by primitive and
//! kernel by kernel, at the lengths where blocks, chunks of eight and
//! partial blocks meet, and across counter wraps.

use super::{Aes128, Aes256, Features, Polyval, detect};
use crate::backend::{Backend, BlockCipher, FromProof, Hashes, Polyval as _, soft};
use std::vec::Vec;

/// The lengths that cross every boundary the kernels have.
const LENGTHS: &[usize] = &[
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 31, 32, 33, 63, 64, 65, 112, 127, 128, 129,
    130, 131, 143, 144, 255, 256, 257, 8191, 8192, 8193, 8208,
];

fn proof() -> Option<Features> {
    detect(Backend::Armv8AesPmull)
}

/// Deterministic bytes.
fn bytes(len: usize, seed: u8) -> Vec<u8> {
    let mut x = 0x9e37_79b9u32 ^ u32::from(seed);
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

fn block(seed: u8) -> [u8; 16] {
    bytes(16, seed).try_into().unwrap()
}

/// Every comparison on one pair of schedules of the same key.
fn compare_schedules<H, S>(hw: &H, sw: &S)
where
    H: crate::backend::Aes,
    S: crate::backend::Aes,
{
    let counters = [
        block(1),
        // A wrap of GCM-SIV's counter (first word) and of GCM's (last word).
        [0xfe, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xfd],
        [0xff; 16],
    ];
    for &len in LENGTHS {
        let data = bytes(len, len as u8);
        for counter in &counters {
            let (mut a, mut b) = (data.clone(), data.clone());
            hw.ctr32le(counter, &mut a);
            sw.ctr32le(counter, &mut b);
            assert_eq!(a, b, "ctr32le, {len} bytes");
            let (mut a, mut b) = (data.clone(), data.clone());
            hw.ctr32be(counter, &mut a);
            sw.ctr32be(counter, &mut b);
            assert_eq!(a, b, "ctr32be, {len} bytes");
        }
        let mut blocks: Vec<[u8; 16]> = data.chunks_exact(16).map(|c| c.try_into().unwrap()).collect();
        let mut expected = blocks.clone();
        hw.encrypt_blocks(&mut blocks);
        sw.encrypt_blocks(&mut expected);
        assert_eq!(blocks, expected, "encrypt_blocks, {len} bytes");
    }
}

#[test]
fn aes_and_ctr_equal_the_portable_backend() {
    let Some(proof) = proof() else { return };
    for seed in 0..3 {
        let key: [u8; 16] = block(seed);
        compare_schedules(&Aes128::from_proof(proof, &key), &soft::Aes128::new(&key));
        let key: [u8; 32] = bytes(32, seed).try_into().unwrap();
        compare_schedules(&Aes256::from_proof(proof, &key), &soft::Aes256::new(&key));
    }
}

#[test]
fn fips_197_appendix_c_vectors() {
    let Some(proof) = proof() else { return };
    let plain: [u8; 16] = core::array::from_fn(|i| (i as u8) * 0x11);
    let key: [u8; 32] = core::array::from_fn(|i| i as u8);
    let mut b = plain;
    Aes128::from_proof(proof, key[..16].try_into().unwrap()).encrypt_block(&mut b);
    assert_eq!(hex(&b), "69c4e0d86a7b0430d8cdb78070b4c55a");
    let mut b = plain;
    Aes256::from_proof(proof, &key).encrypt_block(&mut b);
    assert_eq!(hex(&b), "8ea2b7ca516745bfeafc49904b496089");
}

fn hex(b: &[u8]) -> std::string::String {
    b.iter().map(|x| std::format!("{x:02x}")).collect()
}

#[test]
fn polyval_and_ghash_equal_the_portable_backend() {
    let Some(proof) = proof() else { return };
    for seed in 0..3 {
        let h = block(seed);
        let aes = Aes128::from_proof(proof, &block(seed + 10));
        let table = aes.ghash_table(&h);
        for &len in LENGTHS {
            let data = bytes(len, len as u8 ^ seed);
            let mut a = Polyval::from_proof(proof, &h);
            let mut b = soft::Polyval::new(&h);
            // Two calls, so that the state carries over.
            a.update_padded(&data[..len / 3]);
            b.update_padded(&data[..len / 3]);
            a.update_padded(&data[len / 3..]);
            b.update_padded(&data[len / 3..]);
            assert_eq!(a.finalize(), b.finalize(), "POLYVAL, {len} bytes");
            a.update_padded_reversed(&data);
            b.update_padded_reversed(&data);
            assert_eq!(a.finalize(), b.finalize(), "reversed, {len} bytes");
            Aes128::ghash_update(&table, &mut a, &data);
            b.update_padded_reversed(&data);
            assert_eq!(a.finalize(), b.finalize(), "GHASH with the table, {len} bytes");
        }
        let (x, y) = (block(seed + 20), block(seed + 30));
        let (a, b) = (Polyval::from_proof(proof, &h), soft::Polyval::new(&h));
        assert_eq!(a.dot(&x, &y), b.dot(&x, &y));
        assert_eq!(a.power(13), b.power(13));
    }
}

#[test]
fn rfc_8452_polyval_vector() {
    let Some(proof) = proof() else { return };
    // RFC 8452 Appendix A's POLYVAL example.
    let h = unhex("25629347589242761d31f826ba4b757b");
    let mut p = Polyval::from_proof(proof, &h);
    p.update_blocks(
        &[unhex("4f4f95668c83dfb6401762bb2d01a262"), unhex("d1a24ddd2721d006bbe45f20d3c9f362")].concat(),
    );
    assert_eq!(hex(&p.finalize()), "f7a3b47b846119fae5b7866cf5e5b77e");
}

fn unhex(s: &str) -> [u8; 16] {
    core::array::from_fn(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
}

/// The stitched passes against CTR and the hash run one after the other
/// on the portable backend.
fn compare_passes<H: crate::backend::Aes, S: crate::backend::Aes>(hw: &H, sw: &S) {
    let h = block(7);
    let (hw_table, sw_table) = (hw.ghash_table(&h), sw.ghash_table(&h));
    let counter = [0xfd, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xfa];
    for &len in LENGTHS {
        let data = bytes(len, len as u8 ^ 0x55);
        let (mut a, mut b) = (data.clone(), data.clone());
        let (mut ha, mut hb) = (hw.polyval(&h), sw.polyval(&h));
        ha.update_padded(&[3; 5]);
        hb.update_padded(&[3; 5]);
        hw.ctr32le_then_polyval(&counter, &mut a, &mut ha);
        sw.ctr32le_then_polyval(&counter, &mut b, &mut hb);
        assert_eq!((&a, ha.finalize()), (&b, hb.finalize()), "ctr32le_then_polyval, {len} bytes");
        hw.ctr32be_then_ghash(&counter, &mut a, &mut ha, &hw_table);
        sw.ctr32be_then_ghash(&counter, &mut b, &mut hb, &sw_table);
        assert_eq!((&a, ha.finalize()), (&b, hb.finalize()), "ctr32be_then_ghash, {len} bytes");
        hw.ghash_then_ctr32be(&counter, &mut a, &mut ha, &hw_table);
        sw.ghash_then_ctr32be(&counter, &mut b, &mut hb, &sw_table);
        assert_eq!((&a, ha.finalize()), (&b, hb.finalize()), "ghash_then_ctr32be, {len} bytes");
    }
}

#[test]
fn stitched_passes_equal_the_portable_backend() {
    let Some(proof) = proof() else { return };
    let key: [u8; 32] = bytes(32, 9).try_into().unwrap();
    compare_passes(
        &Aes128::from_proof(proof, key[..16].try_into().unwrap()),
        &soft::Aes128::new(key[..16].try_into().unwrap()),
    );
    compare_passes(&Aes256::from_proof(proof, &key), &soft::Aes256::new(&key));
}

// Whole messages (the fused seal, open and GCM kernels through the modes)
// are compared with the portable backend above this layer, in the crate's
// integration tests: tests/backends.rs at boundary lengths and
// misalignments, tests/differential.rs against RustCrypto, tests/vectors.rs.

#[test]
fn the_proof_is_exactly_this_backend() {
    for backend in Backend::ALL {
        if backend != Backend::Armv8AesPmull {
            assert!(detect(backend).is_none(), "{backend:?}");
        }
    }
    if let Some(proof) = proof() {
        assert_eq!(proof.register_bits(), 128);
    }
}
