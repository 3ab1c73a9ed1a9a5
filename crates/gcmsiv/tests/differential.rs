//! Differential tests against the RustCrypto `aes-gcm-siv` crate, used only as
//! an oracle: random keys, nonces, AAD and plaintexts, on every backend.

mod common;

use aes_gcm_siv::aead::{Aead, KeyInit, Payload};
use common::{Siv, backends};
use proptest::prelude::*;

fn oracle_seal(key: &[u8], nonce: &[u8; 12], aad: &[u8], msg: &[u8]) -> Vec<u8> {
    let nonce = aes_gcm_siv::Nonce::from(*nonce);
    let payload = Payload { msg, aad };
    match key.len() {
        16 => aes_gcm_siv::Aes128GcmSiv::new_from_slice(key).unwrap().encrypt(&nonce, payload),
        _ => aes_gcm_siv::Aes256GcmSiv::new_from_slice(key).unwrap().encrypt(&nonce, payload),
    }
    .unwrap()
}

/// Lengths 0..300, plus 2^k - 1, 2^k, 2^k + 1 up to 2^14 + 1.
fn length() -> impl Strategy<Value = usize> {
    prop_oneof![
        3 => 0usize..300,
        1 => (2u32..15, 0usize..3).prop_map(|(k, d)| (1usize << k) + d - 1),
    ]
}

fn key() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![prop::collection::vec(any::<u8>(), 16), prop::collection::vec(any::<u8>(), 32)]
}

fn check(key: &[u8], nonce: [u8; 12], aad: &[u8], msg: &[u8]) -> Result<(), TestCaseError> {
    let expected = oracle_seal(key, &nonce, aad, msg);
    for backend in backends() {
        for (how, c) in Siv::variants(key, backend) {
            let sealed = c.encrypt(&nonce, aad, msg).unwrap();
            prop_assert_eq!(&sealed, &expected, "seal on {}", how);
            prop_assert_eq!(c.decrypt(&nonce, aad, &sealed).unwrap(), msg, "open on {}", how);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn seal_and_open_match_the_oracle(
        key in key(),
        nonce in any::<[u8; 12]>(),
        aad_len in length(),
        msg_len in length(),
        seed in any::<u64>(),
    ) {
        let mut state = seed | 1;
        let mut next = || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state as u8 };
        let aad: Vec<u8> = (0..aad_len).map(|_| next()).collect();
        let msg: Vec<u8> = (0..msg_len).map(|_| next()).collect();
        check(&key, nonce, &aad, &msg)?;
    }

    #[test]
    fn any_single_bit_flip_is_rejected(
        key in key(),
        nonce in any::<[u8; 12]>(),
        msg in prop::collection::vec(any::<u8>(), 0..80),
        aad in prop::collection::vec(any::<u8>(), 0..40),
        bit in any::<prop::sample::Index>(),
    ) {
        for backend in backends() {
            let c = Siv::new(&key, backend);
            let mut sealed = c.encrypt(&nonce, &aad, &msg).unwrap();
            let i = bit.index(sealed.len() * 8);
            sealed[i / 8] ^= 1 << (i % 8);
            prop_assert_eq!(c.decrypt(&nonce, &aad, &sealed), Err(gcmsiv::Error::Authentication));
        }
    }
}

#[test]
fn long_messages_match_the_oracle() {
    let key = [0x24u8; 32];
    for len in [65_535, 65_536, 65_537, 1 << 20] {
        let msg: Vec<u8> = (0..len).map(|i| (i * 7 + i / 251) as u8).collect();
        check(&key, [1; 12], b"aad", &msg).unwrap();
        check(&key[..16], [2; 12], &msg[..1000], &msg).unwrap();
    }
}
