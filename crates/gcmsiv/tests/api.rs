//! The public API's promises: misuse errors, nonce-misuse resistance, buffers,
//! and no key material in `Debug`.

mod common;

use common::{Siv, backends, pattern};
use gcmsiv::{Aes128GcmSiv, Aes256GcmSiv, Error};

#[test]
fn wrong_key_and_nonce_lengths_are_descriptive_errors() {
    for len in [0, 15, 17, 24, 32] {
        assert_eq!(
            Aes128GcmSiv::new_from_slice(&vec![0; len]).unwrap_err(),
            Error::InvalidKeyLength { expected: 16, actual: len }
        );
    }
    for len in [0, 16, 31, 33] {
        assert_eq!(
            Aes256GcmSiv::new_from_slice(&vec![0; len]).unwrap_err(),
            Error::InvalidKeyLength { expected: 32, actual: len }
        );
    }
    assert!(Aes128GcmSiv::new_from_slice(&[0; 16]).is_ok());
    for len in [0, 8, 11, 13, 16] {
        assert_eq!(
            gcmsiv::nonce_from_slice(&vec![0; len]).unwrap_err(),
            Error::InvalidNonceLength { expected: 12, actual: len }
        );
    }
    let msg = Error::InvalidKeyLength { expected: 16, actual: 3 }.to_string();
    assert_eq!(msg, "invalid key length: expected 16 bytes, got 3");
}

#[test]
fn short_ciphertext_and_small_buffers_are_misuse_not_authentication() {
    for backend in backends() {
        let c = Siv::new(&[1; 16], backend);
        for len in 0..16 {
            assert_eq!(c.decrypt(&[0; 12], b"", &vec![0; len]), Err(Error::CiphertextTooShort));
        }
        let mut out = [0u8; 20];
        assert_eq!(
            c.encrypt_into(&[0; 12], b"", &[0; 5], &mut out),
            Err(Error::BufferTooSmall { needed: 21, actual: 20 })
        );
        assert_eq!(c.encrypt_into(&[0; 12], b"", &[0; 4], &mut out), Ok(20));
        let sealed = c.encrypt(&[0; 12], b"", &[9; 10]).unwrap();
        assert_eq!(
            c.decrypt_into(&[0; 12], b"", &sealed, &mut [0u8; 9]),
            Err(Error::BufferTooSmall { needed: 10, actual: 9 })
        );
        let mut out = [0u8; 10];
        assert_eq!(c.decrypt_into(&[0; 12], b"", &sealed, &mut out), Ok(10));
        assert_eq!(out, [9; 10]);
    }
}

#[test]
fn nonce_misuse_reveals_only_equality() {
    for backend in backends() {
        let c = Siv::new(&pattern(32, 1), backend);
        let nonce = [7u8; 12];
        let a = c.encrypt(&nonce, b"", &[0u8; 64]).unwrap();
        assert_eq!(a, c.encrypt(&nonce, b"", &[0u8; 64]).unwrap(), "deterministic");
        let mut other = [0u8; 64];
        other[63] = 1;
        let b = c.encrypt(&nonce, b"", &other).unwrap();
        // A one-bit change anywhere gives an unrelated tag, hence an unrelated
        // keystream: no block of the ciphertexts matches (unlike GCM, where all
        // but the last would be equal).
        for (x, y) in a.chunks(16).zip(b.chunks(16)) {
            assert_ne!(x, y);
        }
    }
}

#[test]
fn all_apis_agree() {
    for backend in backends() {
        for key_len in [16, 32] {
            let c = Siv::new(&pattern(key_len, 2), backend);
            for len in [0, 1, 33, 300] {
                let pt = pattern(len, 5);
                let sealed = c.encrypt(&[3; 12], b"ad", &pt).unwrap();
                let mut buf = pt.clone();
                let tag = c.encrypt_in_place_detached(&[3; 12], b"ad", &mut buf).unwrap();
                assert_eq!([buf.as_slice(), &tag].concat(), sealed);
                let mut out = vec![0; len + 16];
                assert_eq!(c.encrypt_into(&[3; 12], b"ad", &pt, &mut out), Ok(len + 16));
                assert_eq!(out, sealed);
                let mut back = vec![0; len];
                assert_eq!(c.decrypt_into(&[3; 12], b"ad", &sealed, &mut back), Ok(len));
                assert_eq!(back, pt);
            }
        }
    }
}

#[test]
fn debug_prints_no_key_material() {
    let key = [0xABu8; 16];
    let c = Aes128GcmSiv::new(&key);
    let s = format!("{c:?}");
    assert!(s.starts_with("Aes128GcmSiv"), "{s}");
    assert!(!s.to_lowercase().contains("ab, ") && !s.contains("171"), "{s}");
    let c = Aes256GcmSiv::new(&[0x11; 32]);
    assert!(!format!("{c:?}").contains("17"));
    use gcmsiv::hazmat::DeriveRecordKeys;
    let keys = c.derive_record_keys(&[0; 12]);
    assert_eq!(format!("{keys:?}"), "RecordKeys { .. }");
    let p = gcmsiv::hazmat::Polyval::new(&key);
    assert_eq!(format!("{p:?}"), "Polyval { .. }");
}

#[test]
fn errors_are_std_errors() {
    fn takes(_: &dyn std::error::Error) {}
    takes(&Error::Authentication);
    assert_eq!(Error::Authentication.to_string(), "authentication failed");
}
