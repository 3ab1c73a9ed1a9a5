//! One misuse, one error: a wrong nonce length or an over-long input gets the
//! same error from `Cipher` (its calls and its checks) as from the typed
//! ciphers, sealing and opening, combined, detached and into a buffer.
//!
//! Over-long inputs cannot be allocated (2^36 bytes and more), so they go
//! through `Cipher`'s checks, the same function every call runs first; the
//! crate's own tests hold that function to the limits.

mod common;

use common::{Gcm, Siv, backends};
use gcmsiv::{Algorithm, Backend, Cipher, Error};

const SIV_ALGORITHMS: [(Algorithm, usize); 2] =
    [(Algorithm::Aes128GcmSiv, 16), (Algorithm::Aes256GcmSiv, 32)];
const GCM_ALGORITHMS: [(Algorithm, usize); 2] = [(Algorithm::Aes128Gcm, 16), (Algorithm::Aes256Gcm, 32)];

fn nonce_error(expected: usize, actual: usize) -> Error {
    Error::InvalidNonceLength { expected, actual }
}

/// What `Cipher` says of a call with `nonce` (its other inputs valid): its
/// checks, both detached calls, and both again with a wrong tag length,
/// which is checked after the lengths.
fn cipher_results(c: &Cipher, nonce: &[u8]) -> Vec<Result<(), Error>> {
    let tag = vec![0u8; c.tag_len()];
    vec![
        c.check_lengths(nonce.len(), 2, 16),
        c.check_open_lengths(nonce.len(), 2, 16),
        c.encrypt_in_place_detached(nonce, b"ad", &mut [0; 16], &mut tag.clone()),
        c.decrypt_in_place_detached(nonce, b"ad", &mut [0; 16], &tag),
        c.encrypt_in_place_detached(nonce, b"ad", &mut [0; 16], &mut [0; 3]),
        c.decrypt_in_place_detached(nonce, b"ad", &mut [0; 16], &[0; 3]),
    ]
}

/// Every call of a typed AES-GCM-SIV cipher, its nonce given as a slice
/// (which reaches the typed calls through `nonce_from_slice`).
fn siv_results(c: &Siv, nonce: &[u8]) -> Vec<Result<(), Error>> {
    let n = || gcmsiv::nonce_from_slice(nonce);
    let sealed = [0u8; 32];
    vec![
        n().and_then(|n| c.encrypt(n, b"ad", &[0; 16]).map(drop)),
        n().and_then(|n| c.decrypt(n, b"ad", &sealed).map(drop)),
        n().and_then(|n| c.encrypt_in_place_detached(n, b"ad", &mut [0; 16]).map(drop)),
        n().and_then(|n| c.decrypt_in_place_detached(n, b"ad", &mut [0; 16], &[0; 16])),
        n().and_then(|n| c.encrypt_into(n, b"ad", &[0; 16], &mut [0; 32]).map(drop)),
        n().and_then(|n| c.decrypt_into(n, b"ad", &sealed, &mut [0; 16]).map(drop)),
    ]
}

/// Every call of a typed AES-GCM cipher, the detached open also with a
/// wrong tag length.
fn gcm_results(c: &Gcm, nonce: &[u8]) -> Vec<Result<(), Error>> {
    let sealed = [0u8; 32];
    vec![
        c.encrypt(nonce, b"ad", &[0; 16]).map(drop),
        c.decrypt(nonce, b"ad", &sealed).map(drop),
        c.encrypt_in_place_detached(nonce, b"ad", &mut [0; 16]).map(drop),
        c.decrypt_in_place_detached(nonce, b"ad", &mut [0; 16], &[0; 16]),
        c.decrypt_in_place_detached(nonce, b"ad", &mut [0; 16], &[0; 3]),
        c.encrypt_into(nonce, b"ad", &[0; 16], &mut [0; 32]).map(drop),
        c.decrypt_into(nonce, b"ad", &sealed, &mut [0; 16]).map(drop),
    ]
}

#[test]
fn wrong_nonce_lengths_get_one_error_everywhere() {
    for backend in backends() {
        for (algorithm, key_len) in SIV_ALGORITHMS {
            let key = vec![7u8; key_len];
            let cipher = Cipher::new(algorithm, &key, 16, backend).unwrap();
            let typed = Siv::new(&key, backend);
            for len in [0, 11, 13] {
                let nonce = vec![0u8; len];
                let expected = Err(nonce_error(12, len));
                for (i, got) in cipher_results(&cipher, &nonce).into_iter().enumerate() {
                    assert_eq!(
                        got, expected,
                        "{algorithm:?} on {backend:?}, Cipher call {i}, nonce of {len}"
                    );
                }
                for (i, got) in siv_results(&typed, &nonce).into_iter().enumerate() {
                    assert_eq!(got, expected, "{algorithm:?} on {backend:?}, typed call {i}, nonce of {len}");
                }
            }
        }
        for (algorithm, key_len) in GCM_ALGORITHMS {
            let key = vec![7u8; key_len];
            let cipher = Cipher::new(algorithm, &key, 16, backend).unwrap();
            let typed = Gcm::new(&key, 16, backend);
            // The nearest IV length allowed, not the 12 to prefer.
            let expected = Err(nonce_error(1, 0));
            for (i, got) in cipher_results(&cipher, &[]).into_iter().enumerate() {
                assert_eq!(got, expected, "{algorithm:?} on {backend:?}, Cipher call {i}");
            }
            for (i, got) in gcm_results(&typed, &[]).into_iter().enumerate() {
                assert_eq!(got, expected, "{algorithm:?} on {backend:?}, typed call {i}");
            }
            let gmac = match algorithm {
                Algorithm::Aes128Gcm => {
                    let key = key[..].try_into().unwrap();
                    let m = gcmsiv::Aes128Gmac::from_gcm(
                        gcmsiv::Aes128Gcm::with_backend(key, 16, backend).unwrap(),
                    );
                    [m.compute(&[], b"ad").map(drop), m.verify(&[], b"ad", &[0; 16])]
                }
                _ => {
                    let key = key[..].try_into().unwrap();
                    let m = gcmsiv::Aes256Gmac::from_gcm(
                        gcmsiv::Aes256Gcm::with_backend(key, 16, backend).unwrap(),
                    );
                    [m.compute(&[], b"ad").map(drop), m.verify(&[], b"ad", &[0; 16])]
                }
            };
            assert_eq!(gmac, [expected, expected], "GMAC with {algorithm:?} on {backend:?}");
        }
    }
}

/// The limits of one algorithm, in bytes: associated data, plaintext,
/// ciphertext without its tag.
fn limits(algorithm: Algorithm) -> (u64, u64, u64) {
    if algorithm.is_nonce_misuse_resistant() {
        (gcmsiv::A_MAX, gcmsiv::P_MAX, gcmsiv::C_MAX - gcmsiv::TAG_LEN as u64)
    } else {
        (gcmsiv::GCM_A_MAX, gcmsiv::GCM_P_MAX, gcmsiv::GCM_P_MAX)
    }
}

/// On 32-bit targets no slice reaches a limit (2^36 bytes and more): every
/// length a `usize` holds passes the checks.
#[test]
#[cfg(not(target_pointer_width = "64"))]
fn no_length_a_32_bit_slice_has_is_over_a_limit() {
    for (algorithm, key_len) in SIV_ALGORITHMS.into_iter().chain(GCM_ALGORITHMS) {
        let c = Cipher::new(algorithm, &vec![1; key_len], 16, Backend::Portable).unwrap();
        let (a_max, p_max, c_max) = limits(algorithm);
        assert!([a_max, p_max, c_max].iter().all(|&max| max > usize::MAX as u64));
        assert_eq!(c.check_lengths(12, usize::MAX, usize::MAX), Ok(()), "{algorithm:?}");
        assert_eq!(c.check_open_lengths(12, usize::MAX, usize::MAX), Ok(()), "{algorithm:?}");
    }
    let gcm = Cipher::new(Algorithm::Aes128Gcm, &[1; 16], 16, Backend::Portable).unwrap();
    assert!(gcmsiv::GCM_IV_MAX > usize::MAX as u64);
    assert_eq!(gcm.check_lengths(usize::MAX, 0, 0), Ok(()));
}

#[test]
#[cfg(target_pointer_width = "64")]
fn over_long_inputs_get_one_error_per_direction() {
    for (algorithm, key_len) in SIV_ALGORITHMS.into_iter().chain(GCM_ALGORITHMS) {
        let c = Cipher::new(algorithm, &vec![1; key_len], 16, Backend::Portable).unwrap();
        let (a_max, p_max, c_max) = limits(algorithm);
        let (a_max, p_max, c_max) = (a_max as usize, p_max as usize, c_max as usize);
        let id = format!("{algorithm:?}");
        assert_eq!(c.check_lengths(12, a_max, p_max), Ok(()), "{id}");
        assert_eq!(c.check_open_lengths(12, a_max, c_max), Ok(()), "{id}");
        assert_eq!(c.check_lengths(12, 0, p_max + 1), Err(Error::PlaintextTooLong), "{id}");
        assert_eq!(c.check_open_lengths(12, 0, c_max + 1), Err(Error::CiphertextTooLong), "{id}");
        assert_eq!(c.check_lengths(12, a_max + 1, 0), Err(Error::AadTooLong), "{id}");
        assert_eq!(c.check_open_lengths(12, a_max + 1, 0), Err(Error::AadTooLong), "{id}");
        // One order: the nonce, then the associated data, then the text.
        let bad_nonce = if algorithm.is_nonce_misuse_resistant() { 13 } else { 0 };
        let expected = if bad_nonce == 0 { nonce_error(1, 0) } else { nonce_error(12, 13) };
        assert_eq!(c.check_lengths(bad_nonce, a_max + 1, p_max + 1), Err(expected), "{id}");
        assert_eq!(c.check_open_lengths(bad_nonce, a_max + 1, c_max + 1), Err(expected), "{id}");
        assert_eq!(c.check_lengths(12, a_max + 1, p_max + 1), Err(Error::AadTooLong), "{id}");
        assert_eq!(c.check_open_lengths(12, a_max + 1, c_max + 1), Err(Error::AadTooLong), "{id}");
    }
    // An AES-GCM IV past the longest allowed: that longest, the nearest.
    let gcm = Cipher::new(Algorithm::Aes128Gcm, &[1; 16], 16, Backend::Portable).unwrap();
    let iv_max = gcmsiv::GCM_IV_MAX as usize;
    assert_eq!(gcm.check_lengths(iv_max, 0, 0), Ok(()));
    assert_eq!(gcm.check_lengths(iv_max + 1, 0, 0), Err(nonce_error(iv_max, iv_max + 1)));
    assert_eq!(gcm.check_open_lengths(iv_max + 1, 0, 0), Err(nonce_error(iv_max, iv_max + 1)));
}
