//! Out-of-place calls (`encrypt_detached`, `decrypt_detached`, `*_into` and
//! the calls that return a new buffer) against the in-place ones, on every
//! backend, for every algorithm: the same bytes at every length where the
//! kernels change hands (the short kernel, the 128-, 256- and 512-bit
//! chunks and their tails, the first block taken apart to align the rest),
//! at misaligned input and output addresses, and the same refusals: a failed
//! open leaves zeroes in the output and the input untouched.

mod common;

use common::{backends, pattern};
use gcmsiv::{Algorithm, Cipher, Error};

const ALGORITHMS: [Algorithm; 4] =
    [Algorithm::Aes128GcmSiv, Algorithm::Aes256GcmSiv, Algorithm::Aes128Gcm, Algorithm::Aes256Gcm];

/// Lengths on both sides of every boundary of the kernels.
fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=40).collect();
    v.extend([127, 128, 129, 255, 256, 257, 383, 384, 511, 512, 513, 1000]);
    v.extend(common::wide_tail_lengths().into_iter().step_by(7));
    v.extend([8191, 8192, 8193, 8192 + 16, 8192 + 200]);
    v
}

/// A buffer of `len` bytes starting `offset` bytes past a 64-byte boundary.
fn at_offset(len: usize, offset: usize) -> (Vec<u8>, usize) {
    let mut v = vec![0u8; len + offset + 64];
    let skip = (64 - v.as_ptr() as usize % 64) % 64 + offset;
    v.truncate(skip + len);
    (v, skip)
}

#[test]
fn out_of_place_equals_in_place_on_every_backend() {
    for algorithm in ALGORITHMS {
        for backend in backends() {
            let key = pattern(algorithm.key_len(), 3);
            // One core: the all-cores path takes its own (in-place) route.
            let c = Cipher::new(algorithm, &key, 16, backend).unwrap().with_parallel_threshold(None);
            for len in lengths() {
                for (aad_len, in_off, out_off) in [(0, 0, 0), (13, 16, 48), (300, 1, 7)] {
                    let nonce = pattern(12, len as u8);
                    let aad = pattern(aad_len, 5);
                    let pt = pattern(len, len as u8 ^ 0x5a);
                    let what =
                        format!("{algorithm:?} {backend:?} len {len} aad {aad_len} at {in_off}/{out_off}");

                    let mut in_place = pt.clone();
                    let mut tag = [0u8; 16];
                    c.encrypt_in_place_detached(&nonce, &aad, &mut in_place, &mut tag).unwrap();

                    let (mut input, i) = at_offset(len, in_off);
                    input[i..].copy_from_slice(&pt);
                    let (mut output, o) = at_offset(len, out_off);
                    let mut tag2 = [0u8; 16];
                    c.encrypt_detached(&nonce, &aad, &input[i..], &mut output[o..], &mut tag2).unwrap();
                    assert_eq!((&output[o..], tag2), (&in_place[..], tag), "seal {what}");
                    assert_eq!(&input[i..], &pt[..], "the seal's input is untouched: {what}");

                    let (mut opened, p) = at_offset(len, in_off ^ 16);
                    c.decrypt_detached(&nonce, &aad, &output[o..], &tag, &mut opened[p..]).unwrap();
                    assert_eq!(&opened[p..], &pt[..], "open {what}");

                    // A forged tag: the output holds zeroes, the input stays.
                    let mut bad = tag;
                    bad[len % 16] ^= 0x80;
                    opened[p..].fill(0xee);
                    let err = c.decrypt_detached(&nonce, &aad, &output[o..], &bad, &mut opened[p..]);
                    assert_eq!(err, Err(Error::Authentication), "{what}");
                    assert!(opened[p..].iter().all(|&b| b == 0), "zeroed after a failure: {what}");
                    assert_eq!(&output[o..], &in_place[..], "the open's input is untouched: {what}");
                }
            }
        }
    }
}

/// The typed keys' calls that return a new buffer and write into the
/// caller's, which run out of place, give what the in-place call gives.
#[test]
fn typed_calls_out_of_place() {
    for backend in backends() {
        let siv = gcmsiv::Aes256GcmSiv::with_backend(&[7; 32], backend).unwrap();
        let gcm = gcmsiv::Aes128Gcm::with_backend(&[7; 16], 16, backend).unwrap();
        for len in [0, 1, 100, 128, 129, 1024, 4096 + 33] {
            let pt = pattern(len, 1);
            let nonce = [9u8; 12];
            let mut buf = pt.clone();
            let tag = siv.encrypt_in_place_detached(&nonce, b"ad", &mut buf).unwrap();
            let sealed = siv.encrypt(&nonce, b"ad", &pt).unwrap();
            assert_eq!(sealed, [&buf[..], &tag].concat(), "{backend:?} {len}");
            let mut ct = vec![0u8; len];
            assert_eq!(siv.encrypt_detached(&nonce, b"ad", &pt, &mut ct).unwrap(), tag);
            assert_eq!(ct, buf);
            assert_eq!(siv.decrypt(&nonce, b"ad", &sealed).unwrap(), pt);
            let mut back = vec![0u8; len];
            siv.decrypt_detached(&nonce, b"ad", &ct, &tag, &mut back).unwrap();
            assert_eq!(back, pt);
            // Too short an output: refused before anything is written.
            if len > 0 {
                let mut short = vec![0u8; len - 1];
                assert!(matches!(
                    siv.encrypt_detached(&nonce, b"ad", &pt, &mut short),
                    Err(Error::BufferTooSmall { .. })
                ));
            }

            let mut buf = pt.clone();
            let tag = gcm.encrypt_in_place_detached(&nonce, b"ad", &mut buf).unwrap();
            let sealed = gcm.encrypt(&nonce, b"ad", &pt).unwrap();
            assert_eq!(sealed, [&buf[..], tag.as_bytes()].concat(), "{backend:?} {len}");
            assert_eq!(gcm.decrypt(&nonce, b"ad", &sealed).unwrap(), pt);
            let mut ct = vec![0u8; len];
            assert_eq!(gcm.encrypt_detached(&nonce, b"ad", &pt, &mut ct).unwrap().as_bytes(), tag.as_bytes());
            assert_eq!(ct, buf);
        }
    }
}
