//! Differential fuzzing of AES-GCM-SIV and AES-GCM against RustCrypto
//! (`aes-gcm-siv`, `aes-gcm`) and aws-lc-rs (feature `aws-lc`), on every backend this build and
//! CPU reach (the register width is the build's: `--cfg gcmsiv_max_width`),
//! on arbitrary keys, nonces, associated data and messages:
//!
//! - one message: our seal equals the oracles', and opens again;
//! - an arbitrary (forged) ciphertext and tag: our verdict and plaintext equal
//!   the oracles', and a failed open leaves the ciphertext in place;
//! - a sealed message with one bit flipped fails;
//! - a batch (AES-GCM-SIV): each item as one call seals it, and each
//!   item's open (some tags flipped) as one call opens it;
//! - the all-cores path, with the threshold lowered to the message's length.

#![no_main]

use aes_gcm::aead::consts::U16;
use aes_gcm::aead::{Aead, KeyInit, Payload};
use arbitrary::Arbitrary;
use gcmsiv::{Aes128GcmSiv, Aes256GcmSiv, Algorithm, Backend, BatchItem, Cipher, Error};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Low two bits: the algorithm.
    algorithm: u8,
    key: [u8; 32],
    /// AES-GCM: the IV's length is `1 + gcm_iv_len % 32` (12 and 16 have
    /// oracles); AES-GCM-SIV: the first 12 bytes.
    nonce: [u8; 32],
    gcm_iv_len: u8,
    aad: Vec<u8>,
    message: Vec<u8>,
    /// An arbitrary ciphertext || tag to open.
    forged: Vec<u8>,
    /// The bit flipped in the sealed message.
    flip: u32,
    /// Batch: each item's length, taken from the message in turn; bit 15
    /// flips that item's tag before the open.
    batch: Vec<u16>,
}

fn algorithm(byte: u8) -> Algorithm {
    [Algorithm::Aes128GcmSiv, Algorithm::Aes256GcmSiv, Algorithm::Aes128Gcm, Algorithm::Aes256Gcm]
        [usize::from(byte & 3)]
}

/// RustCrypto's seal, or `None` where it has no type for this IV length.
fn rustcrypto_seal(alg: Algorithm, key: &[u8], nonce: &[u8], aad: &[u8], msg: &[u8]) -> Option<Vec<u8>> {
    let payload = Payload { msg, aad };
    Some(
        match (alg, nonce.len()) {
            (Algorithm::Aes128GcmSiv, _) => aes_gcm_siv::Aes128GcmSiv::new_from_slice(key)
                .unwrap()
                .encrypt(&aes_gcm_siv::Nonce::try_from(nonce).unwrap(), payload),
            (Algorithm::Aes256GcmSiv, _) => aes_gcm_siv::Aes256GcmSiv::new_from_slice(key)
                .unwrap()
                .encrypt(&aes_gcm_siv::Nonce::try_from(nonce).unwrap(), payload),
            (Algorithm::Aes128Gcm, 12) => aes_gcm::Aes128Gcm::new_from_slice(key)
                .unwrap()
                .encrypt(&aes_gcm::Nonce::try_from(nonce).unwrap(), payload),
            (Algorithm::Aes256Gcm, 12) => aes_gcm::Aes256Gcm::new_from_slice(key)
                .unwrap()
                .encrypt(&aes_gcm::Nonce::try_from(nonce).unwrap(), payload),
            (Algorithm::Aes128Gcm, 16) => aes_gcm::AesGcm::<aes::Aes128, U16>::new_from_slice(key)
                .unwrap()
                .encrypt(&aes_gcm::Nonce::<U16>::try_from(nonce).unwrap(), payload),
            (Algorithm::Aes256Gcm, 16) => aes_gcm::AesGcm::<aes::Aes256, U16>::new_from_slice(key)
                .unwrap()
                .encrypt(&aes_gcm::Nonce::<U16>::try_from(nonce).unwrap(), payload),
            _ => return None,
        }
        .expect("RustCrypto seals any length fuzzed here"),
    )
}

/// RustCrypto's open: `Some(verdict)`, or `None` where it has no type.
fn rustcrypto_open(
    alg: Algorithm,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    msg: &[u8],
) -> Option<Option<Vec<u8>>> {
    let payload = Payload { msg, aad };
    Some(
        match (alg, nonce.len()) {
            (Algorithm::Aes128GcmSiv, _) => aes_gcm_siv::Aes128GcmSiv::new_from_slice(key)
                .unwrap()
                .decrypt(&aes_gcm_siv::Nonce::try_from(nonce).unwrap(), payload),
            (Algorithm::Aes256GcmSiv, _) => aes_gcm_siv::Aes256GcmSiv::new_from_slice(key)
                .unwrap()
                .decrypt(&aes_gcm_siv::Nonce::try_from(nonce).unwrap(), payload),
            (Algorithm::Aes128Gcm, 12) => aes_gcm::Aes128Gcm::new_from_slice(key)
                .unwrap()
                .decrypt(&aes_gcm::Nonce::try_from(nonce).unwrap(), payload),
            (Algorithm::Aes256Gcm, 12) => aes_gcm::Aes256Gcm::new_from_slice(key)
                .unwrap()
                .decrypt(&aes_gcm::Nonce::try_from(nonce).unwrap(), payload),
            (Algorithm::Aes128Gcm, 16) => aes_gcm::AesGcm::<aes::Aes128, U16>::new_from_slice(key)
                .unwrap()
                .decrypt(&aes_gcm::Nonce::<U16>::try_from(nonce).unwrap(), payload),
            (Algorithm::Aes256Gcm, 16) => aes_gcm::AesGcm::<aes::Aes256, U16>::new_from_slice(key)
                .unwrap()
                .decrypt(&aes_gcm::Nonce::<U16>::try_from(nonce).unwrap(), payload),
            _ => return None,
        }
        .ok(),
    )
}

/// aws-lc-rs (12-byte nonces only): the seal, and the open of `forged`.
#[cfg(feature = "aws-lc")]
fn aws_lc(
    alg: Algorithm,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    msg: &[u8],
    forged: &[u8],
) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    use aws_lc_rs::aead::{
        AES_128_GCM, AES_128_GCM_SIV, AES_256_GCM, AES_256_GCM_SIV, Aad, LessSafeKey, Nonce, UnboundKey,
    };
    if nonce.len() != 12 {
        return None;
    }
    let which = match alg {
        Algorithm::Aes128GcmSiv => &AES_128_GCM_SIV,
        Algorithm::Aes256GcmSiv => &AES_256_GCM_SIV,
        Algorithm::Aes128Gcm => &AES_128_GCM,
        Algorithm::Aes256Gcm => &AES_256_GCM,
    };
    let k = LessSafeKey::new(UnboundKey::new(which, key).unwrap());
    let n = || Nonce::try_assume_unique_for_key(nonce).unwrap();
    let mut sealed = msg.to_vec();
    k.seal_in_place_append_tag(n(), Aad::from(aad), &mut sealed).unwrap();
    let mut opened = forged.to_vec();
    let verdict = k.open_in_place(n(), Aad::from(aad), &mut opened).ok().map(|p| p.to_vec());
    Some((sealed, verdict))
}

#[cfg(not(feature = "aws-lc"))]
fn aws_lc(
    _: Algorithm,
    _: &[u8],
    _: &[u8],
    _: &[u8],
    _: &[u8],
    _: &[u8],
) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    None
}

/// Our seal, combined (ciphertext || tag).
fn seal(c: &Cipher, nonce: &[u8], aad: &[u8], msg: &[u8]) -> Vec<u8> {
    let mut out = msg.to_vec();
    let mut tag = [0u8; 16];
    c.encrypt_in_place_detached(nonce, aad, &mut out, &mut tag).unwrap();
    out.extend_from_slice(&tag);
    out
}

/// Our open of ciphertext || tag: the plaintext, or `None` (and then the
/// buffer holds the ciphertext again).
fn open(c: &Cipher, nonce: &[u8], aad: &[u8], sealed: &[u8]) -> Option<Vec<u8>> {
    let Some(body_len) = sealed.len().checked_sub(16) else {
        assert_eq!(c.check_open_lengths(nonce.len(), aad.len(), 0), Ok(()));
        return None;
    };
    let (body, tag) = sealed.split_at(body_len);
    let mut buf = body.to_vec();
    match c.decrypt_in_place_detached(nonce, aad, &mut buf, tag) {
        Ok(()) => Some(buf),
        Err(Error::Authentication) => {
            assert_eq!(buf, body, "a failed open must put the ciphertext back");
            None
        }
        Err(e) => panic!("unexpected error {e:?}"),
    }
}

fuzz_target!(|input: Input| {
    let alg = algorithm(input.algorithm);
    let key = &input.key[..alg.key_len()];
    let nonce = if alg.is_nonce_misuse_resistant() {
        &input.nonce[..12]
    } else {
        &input.nonce[..1 + usize::from(input.gcm_iv_len) % 32]
    };
    let (aad, msg, forged) = (&input.aad[..], &input.message[..], &input.forged[..]);

    let oracle = rustcrypto_seal(alg, key, nonce, aad, msg);
    let oracle_verdict = rustcrypto_open(alg, key, nonce, aad, forged);
    if let Some((sealed, verdict)) = aws_lc(alg, key, nonce, aad, msg, forged) {
        assert_eq!(Some(&sealed), oracle.as_ref(), "aws-lc-rs and RustCrypto seal differently");
        assert_eq!(Some(&verdict), oracle_verdict.as_ref(), "aws-lc-rs and RustCrypto open differently");
    }

    let mut first: Option<Vec<u8>> = None;
    for backend in Backend::available().into_iter().flatten() {
        let c = Cipher::new(alg, key, 16, backend).unwrap();
        let sealed = seal(&c, nonce, aad, msg);
        if let Some(expected) = &oracle {
            assert_eq!(&sealed, expected, "seal on {backend}");
        }
        // Backends agree where no oracle has the IV length.
        let reference = first.get_or_insert_with(|| sealed.clone());
        assert_eq!(&sealed, reference, "seal on {backend} differs from the first backend");
        assert_eq!(open(&c, nonce, aad, &sealed).as_deref(), Some(msg), "open on {backend}");

        let verdict = open(&c, nonce, aad, forged);
        if let Some(expected) = &oracle_verdict {
            assert_eq!(&verdict, expected, "forged open on {backend}");
        } else if let Some(plain) = &verdict {
            // No oracle: an authentic forgery must be what our seal makes.
            assert_eq!(&seal(&c, nonce, aad, plain), forged, "open on {backend} accepted a non-seal");
        }

        let mut flipped = sealed.clone();
        let bit = input.flip as usize % (8 * flipped.len());
        flipped[bit / 8] ^= 1 << (bit % 8);
        assert_eq!(open(&c, nonce, aad, &flipped), None, "bit {bit} flipped, opened on {backend}");

        if alg.is_nonce_misuse_resistant() {
            batch(&c, &input, backend);
            all_cores(alg, key, nonce, aad, msg, &sealed, backend);
        }
    }
});

/// The message cut into the batch's lengths, each item its own nonce (the
/// nonce with the item's index in its last byte) and the associated data.
fn batch(c: &Cipher, input: &Input, backend: Backend) {
    let nonce: [u8; 12] = input.nonce[..12].try_into().unwrap();
    let mut rest = &input.message[..];
    let mut parts = Vec::new();
    for (i, &len) in input.batch.iter().take(40).enumerate() {
        let take = usize::from(len & 0x7fff).min(rest.len());
        let (part, tail) = rest.split_at(take);
        rest = tail;
        let mut n = nonce;
        n[11] ^= i as u8;
        parts.push((n, part.to_vec(), len & 0x8000 != 0));
    }
    let nonces: Vec<[u8; 12]> = parts.iter().map(|p| p.0).collect();
    let mut bufs: Vec<Vec<u8>> = parts.iter().map(|p| p.1.clone()).collect();
    let mut items: Vec<BatchItem<'_>> =
        nonces.iter().zip(&mut bufs).map(|(n, b)| BatchItem::new(n, &input.aad, b)).collect();
    c.encrypt_batch(&mut items).unwrap();
    for (i, item) in items.iter_mut().enumerate() {
        let one = seal(c, &nonces[i], &input.aad, &parts[i].1);
        assert_eq!([&item.buffer[..], &item.tag[..]].concat(), one, "batch item {i} on {backend}");
        if parts[i].2 {
            item.tag[0] ^= 0x80;
        }
    }
    let mut results = vec![Ok(()); items.len()];
    c.decrypt_batch(&mut items, &mut results).unwrap();
    for (i, (item, result)) in items.iter().zip(&results).enumerate() {
        if parts[i].2 {
            assert_eq!(*result, Err(Error::Authentication), "forged batch item {i} on {backend}");
            let one = seal(c, &nonces[i], &input.aad, &parts[i].1);
            assert_eq!(&item.buffer[..], &one[..parts[i].1.len()], "a failed item holds its ciphertext");
        } else {
            assert_eq!(*result, Ok(()), "batch item {i} on {backend}");
            assert_eq!(&item.buffer[..], &parts[i].1[..], "batch item {i} on {backend}");
        }
    }
}

/// The all-cores path, its threshold lowered to the message's length: the
/// same ciphertext, and the same open.
fn all_cores(
    alg: Algorithm,
    key: &[u8],
    nonce: &[u8],
    aad: &[u8],
    msg: &[u8],
    sealed: &[u8],
    backend: Backend,
) {
    let nonce: &[u8; 12] = nonce.try_into().unwrap();
    let threshold = Some(msg.len());
    let (ours, opened, forged) = match alg {
        Algorithm::Aes128GcmSiv => {
            let c = Aes128GcmSiv::with_backend(key.try_into().unwrap(), backend)
                .unwrap()
                .with_parallel_threshold(threshold);
            let mut forged = sealed.to_vec();
            forged[0] ^= 1;
            (
                c.encrypt(nonce, aad, msg).unwrap(),
                c.decrypt(nonce, aad, sealed),
                c.decrypt(nonce, aad, &forged),
            )
        }
        _ => {
            let c = Aes256GcmSiv::with_backend(key.try_into().unwrap(), backend)
                .unwrap()
                .with_parallel_threshold(threshold);
            let mut forged = sealed.to_vec();
            forged[0] ^= 1;
            (
                c.encrypt(nonce, aad, msg).unwrap(),
                c.decrypt(nonce, aad, sealed),
                c.decrypt(nonce, aad, &forged),
            )
        }
    };
    assert_eq!(ours, sealed, "all-cores seal on {backend}");
    assert_eq!(opened.as_deref(), Ok(msg), "all-cores open on {backend}");
    assert_eq!(forged, Err(Error::Authentication), "all-cores forged open on {backend}");
}
