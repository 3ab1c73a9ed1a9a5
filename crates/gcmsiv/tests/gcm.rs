//! AES-GCM: differential tests against the RustCrypto `aes-gcm` crate (an
//! oracle only), API promises, and hardware vs portable agreement.

mod common;

use aes_gcm::aead::{Aead, KeyInit, Payload};
use common::{Gcm, backends, pattern};
use gcmsiv::{Aes128Gcm, Aes256Gcm, Error};
use proptest::prelude::*;

fn oracle_seal(key: &[u8], nonce: &[u8; 12], aad: &[u8], msg: &[u8]) -> Vec<u8> {
    let nonce = aes_gcm::Nonce::from(*nonce);
    let payload = Payload { msg, aad };
    match key.len() {
        16 => aes_gcm::Aes128Gcm::new_from_slice(key).unwrap().encrypt(&nonce, payload),
        _ => aes_gcm::Aes256Gcm::new_from_slice(key).unwrap().encrypt(&nonce, payload),
    }
    .unwrap()
}

fn length() -> impl Strategy<Value = usize> {
    prop_oneof![3 => 0usize..300, 1 => (2u32..15, 0usize..3).prop_map(|(k, d)| (1usize << k) + d - 1)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn seal_and_open_match_the_oracle(
        key in prop_oneof![prop::collection::vec(any::<u8>(), 16), prop::collection::vec(any::<u8>(), 32)],
        nonce in any::<[u8; 12]>(),
        aad_len in length(),
        msg_len in length(),
        seed in any::<u8>(),
    ) {
        let aad = pattern(aad_len, seed);
        let msg = pattern(msg_len, seed.wrapping_add(1));
        let expected = oracle_seal(&key, &nonce, &aad, &msg);
        for backend in backends() {
            let c = Gcm::new(&key, 16, backend);
            prop_assert_eq!(&c.encrypt(&nonce, &aad, &msg).unwrap(), &expected, "{:?}", backend);
            prop_assert_eq!(c.decrypt(&nonce, &aad, &expected).unwrap(), msg.clone());
        }
    }

    #[test]
    fn any_iv_length_agrees_across_backends_and_round_trips(
        key in prop::collection::vec(any::<u8>(), 16),
        iv in prop::collection::vec(any::<u8>(), 1..80),
        msg_len in length(),
    ) {
        let msg = pattern(msg_len, 3);
        let outputs: Vec<Vec<u8>> = backends().into_iter().map(|b| {
            let c = Gcm::new(&key, 16, b);
            let sealed = c.encrypt(&iv, b"ad", &msg).unwrap();
            assert_eq!(c.decrypt(&iv, b"ad", &sealed).unwrap(), msg);
            sealed
        }).collect();
        prop_assert!(outputs.windows(2).all(|w| w[0] == w[1]));
    }

    #[test]
    fn any_single_bit_flip_is_rejected(
        key in prop::collection::vec(any::<u8>(), 32),
        msg in prop::collection::vec(any::<u8>(), 0..80),
        bit in any::<prop::sample::Index>(),
    ) {
        for backend in backends() {
            let c = Gcm::new(&key, 16, backend);
            let mut sealed = c.encrypt(&[9; 12], b"", &msg).unwrap();
            let i = bit.index(sealed.len() * 8);
            sealed[i / 8] ^= 1 << (i % 8);
            prop_assert_eq!(c.decrypt(&[9; 12], b"", &sealed), Err(Error::Authentication));
        }
    }
}

#[test]
fn backends_agree_at_boundary_lengths_and_misalignments() {
    let lengths = [0, 1, 15, 16, 17, 127, 128, 129, 130, 131, 8191, 8192, 8193, 8208];
    for key_len in [16, 32] {
        let key = pattern(key_len, 1);
        for &len in &lengths {
            for misalign in 0..4 {
                let mut buf = vec![0u8; len + misalign];
                buf[misalign..].copy_from_slice(&pattern(len, 2));
                let pt = &buf[misalign..];
                let reference = oracle_seal(&key, &[4; 12], b"aad", pt);
                for backend in backends() {
                    let c = Gcm::new(&key, 16, backend);
                    assert_eq!(c.encrypt(&[4; 12], b"aad", pt).unwrap(), reference, "{backend:?} len {len}");
                    let mut work = vec![0u8; len + misalign];
                    work[misalign..].copy_from_slice(&reference[..len]);
                    let r = c.decrypt_in_place_detached(
                        &[4; 12],
                        b"aad",
                        &mut work[misalign..],
                        &reference[len..],
                    );
                    assert_eq!(r, Ok(()));
                    assert_eq!(&work[misalign..], pt);
                }
            }
        }
    }
}

/// Where the CPU has AVX-512, a message of 1 KiB or more ends inside the
/// 512-bit pass (a tail of more than 176 bytes as one more chunk under a
/// mask, see `backends.rs`): [`common::wide_tail_lengths`], seal and open
/// against the oracle.
#[test]
fn backends_agree_at_every_tail_of_the_wide_passes() {
    let lengths = common::wide_tail_lengths();
    for key_len in [16, 32] {
        let key = pattern(key_len, 7);
        for &len in &lengths {
            for aad in [&b""[..], b"seventeen bytes.."] {
                let msg = pattern(len, len as u8);
                let nonce = [len as u8; 12];
                let expected = oracle_seal(&key, &nonce, aad, &msg);
                for backend in backends() {
                    let c = Gcm::new(&key, 16, backend);
                    assert_eq!(c.encrypt(&nonce, aad, &msg).unwrap(), expected, "{backend:?} {len}");
                    assert_eq!(c.decrypt(&nonce, aad, &expected).unwrap(), msg, "{backend:?} {len}");
                }
            }
        }
    }
}

/// Associated data through the widest pass, as the message (GHASH's byte
/// order): AAD lengths ending inside the wide passes beside no message, a
/// short one and a long one, seal and open against the oracle.
#[test]
fn associated_data_through_the_wide_passes() {
    let mut aad_lengths = common::wide_tail_lengths();
    aad_lengths.extend([129, 255, 256, 257, 383, 384, 385, 511, 512, 513]);
    for key_len in [16, 32] {
        let key = pattern(key_len, 9);
        for &aad_len in &aad_lengths {
            for len in [0, 17, 300] {
                let (aad, msg) = (pattern(aad_len, aad_len as u8), pattern(len, 3));
                let nonce = [aad_len as u8; 12];
                let expected = oracle_seal(&key, &nonce, &aad, &msg);
                for backend in backends() {
                    let c = Gcm::new(&key, 16, backend);
                    assert_eq!(
                        c.encrypt(&nonce, &aad, &msg).unwrap(),
                        expected,
                        "{backend:?} {aad_len} {len}"
                    );
                    assert_eq!(
                        c.decrypt(&nonce, &aad, &expected).unwrap(),
                        msg,
                        "{backend:?} {aad_len} {len}"
                    );
                }
            }
        }
    }
}

/// Large messages at every 16-byte offset from a 64-byte boundary, and one
/// odd offset (the wide passes take the first block on its own 16 bytes
/// past a 32-byte boundary), against the oracle: seal, and open in place.
#[test]
fn backends_agree_at_every_offset_of_large_messages() {
    for key_len in [16, 32] {
        let key = pattern(key_len, 3);
        for len in [8176, 8192, 8208, 8432, 32768, 32784, 33008, 65636] {
            let pt = pattern(len, 5);
            let reference = oracle_seal(&key, &[6; 12], b"ad", &pt);
            for backend in backends() {
                let c = Gcm::new(&key, 16, backend);
                let mut store = vec![0u8; len + 128];
                for offset in [0, 5, 16, 32, 48] {
                    let start = store.as_ptr().align_offset(64) + offset;
                    let buf = &mut store[start..start + len];
                    buf.copy_from_slice(&pt);
                    let tag = c.encrypt_in_place_detached(&[6; 12], b"ad", buf).unwrap();
                    let what = format!("{backend:?} key {key_len} len {len} offset {offset}");
                    assert!(buf[..] == reference[..len], "{what}: ciphertext");
                    assert_eq!(tag, reference[len..], "{what}: tag");
                    assert_eq!(c.decrypt_in_place_detached(&[6; 12], b"ad", buf, &tag), Ok(()), "{what}");
                    assert!(buf[..] == pt[..], "{what}: plaintext");
                }
            }
        }
    }
}

/// Every message length the x86-64 short kernel takes (up to 128 bytes) and
/// just past it, with AAD around the block and kernel boundaries, 96-bit IV:
/// seal and open against the oracle, and a flipped tag bit rejected, on every
/// backend.
#[test]
fn short_messages_at_every_length_match_the_oracle() {
    for key_len in [16, 32] {
        let key = pattern(key_len, 5);
        for aad_len in [0, 1, 15, 16, 17, 64, 127, 128, 129] {
            let aad = pattern(aad_len, 6);
            for len in 0..=131 {
                let msg = pattern(len, len as u8);
                let nonce = [len as u8; 12];
                let expected = oracle_seal(&key, &nonce, &aad, &msg);
                for backend in backends() {
                    let c = Gcm::new(&key, 16, backend);
                    assert_eq!(
                        c.encrypt(&nonce, &aad, &msg).unwrap(),
                        expected,
                        "{backend:?} {aad_len} {len}"
                    );
                    assert_eq!(
                        c.decrypt(&nonce, &aad, &expected).unwrap(),
                        msg,
                        "{backend:?} {aad_len} {len}"
                    );
                    let mut forged = expected.clone();
                    forged[len + (len % 16)] ^= 0x80;
                    assert_eq!(c.decrypt(&nonce, &aad, &forged), Err(Error::Authentication));
                }
            }
        }
    }
}

#[test]
fn every_backend_restores_the_ciphertext_on_failure() {
    for backend in backends() {
        let c = Gcm::new(&[5; 16], 16, backend);
        for len in [1, 16, 200, 8193] {
            let sealed = c.encrypt(&[1; 12], b"", &pattern(len, 6)).unwrap();
            let mut buf = sealed[..len].to_vec();
            let mut tag = sealed[len..].to_vec();
            tag[15] ^= 1;
            assert_eq!(
                c.decrypt_in_place_detached(&[1; 12], b"", &mut buf, &tag),
                Err(Error::Authentication)
            );
            assert_eq!(buf, sealed[..len], "{backend:?} len {len}");
        }
    }
}

#[test]
fn truncated_tags() {
    let key = [3u8; 16];
    let full = Aes128Gcm::new(&key).encrypt(&[1; 12], b"a", b"message").unwrap();
    for tag_len in 12..=16 {
        let c = Aes128Gcm::with_tag_len(&key, tag_len).unwrap();
        let sealed = c.encrypt(&[1; 12], b"a", b"message").unwrap();
        assert_eq!(sealed, full[..7 + tag_len], "a truncated tag is a prefix of the full one");
        assert_eq!(c.decrypt(&[1; 12], b"a", &sealed).unwrap(), b"message");
        // A full-length tag is not accepted by a truncating key: lengths must match.
        let mut buf = full[..7].to_vec();
        if tag_len != 16 {
            assert_eq!(
                c.decrypt_in_place_detached(&[1; 12], b"a", &mut buf, &full[7..]),
                Err(Error::InvalidTagLength { expected: tag_len, actual: 16 })
            );
        }
    }
    for bad in [0, 1, 4, 8, 11, 17] {
        assert!(Aes128Gcm::with_tag_len(&key, bad).is_err(), "{bad}");
        // Short tags only through a constructor named hazardous, on any backend.
        assert!(Aes128Gcm::with_backend(&key, bad, gcmsiv::Backend::Portable).is_err(), "{bad}");
    }
    for bad in [0, 12, 16] {
        assert!(Aes128Gcm::with_backend_short_tag_hazardous(&key, bad, gcmsiv::Backend::Portable).is_err());
    }
    for short in [4, 8] {
        let c = Aes256Gcm::with_short_tag_hazardous(&[1; 32], short).unwrap();
        assert_eq!(c.encrypt(&[0; 12], b"", b"x").unwrap().len(), 1 + short);
    }
    assert!(Aes256Gcm::with_short_tag_hazardous(&[1; 32], 12).is_err());
}

#[test]
fn gmac_is_gcm_without_plaintext() {
    let mac = gcmsiv::Aes256Gmac::new(&[2; 32]);
    let tag = mac.compute(&[1; 12], b"data").unwrap();
    assert_eq!(tag.as_bytes(), Aes256Gcm::new(&[2; 32]).encrypt(&[1; 12], b"data", b"").unwrap());
    assert_eq!(mac.verify(&[1; 12], b"data", tag.as_bytes()), Ok(()));
    assert_eq!(mac.verify(&[2; 12], b"data", tag.as_bytes()), Err(Error::Authentication));
}

#[test]
fn misuse_errors() {
    assert_eq!(
        Aes128Gcm::new_from_slice(&[0; 15]).unwrap_err(),
        Error::InvalidKeyLength { expected: 16, actual: 15 }
    );
    let c = Aes128Gcm::new(&[0; 16]);
    assert_eq!(c.encrypt(&[], b"", b"x"), Err(Error::InvalidNonceLength { expected: 1, actual: 0 }));
    assert_eq!(c.decrypt(&[0; 12], b"", &[0; 15]), Err(Error::CiphertextTooShort));
    // A refused seal into a caller's buffer leaves no plaintext there.
    let mut out = [0xEEu8; 26];
    assert_eq!(
        c.encrypt_into(&[], b"", b"top secret", &mut out),
        Err(Error::InvalidNonceLength { expected: 1, actual: 0 })
    );
    assert!(out[..10].iter().all(|&b| b == 0), "{out:?}");
    assert!(!format!("{c:?}").contains("0, 0"));
}
