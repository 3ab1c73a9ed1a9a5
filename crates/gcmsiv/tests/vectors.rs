//! Every applicable vector file in the shared vector folder, on every backend.

mod common;

use common::{Record, Siv, backends, load, records};
use gcmsiv::hazmat::{DeriveRecordKeys, Polyval};
use gcmsiv::{Aes128GcmSiv, Aes256GcmSiv, Backend};

/// Checks one AEAD vector: sealing gives the expected bytes, opening gives the
/// plaintext back, and a flipped tag bit is rejected with the ciphertext put back.
fn check_aead(r: &Record, backend: Backend) {
    let key = r.hex("key");
    let nonce: [u8; 12] = r.hex("nonce").try_into().unwrap();
    let aad = r.hex("aad");
    let pt = r.hex("plaintext");
    let ct = r.hex("ciphertext");
    assert_eq!(r.str("result"), "valid", "{}", r.name);
    assert_eq!(r.u64("key_bits") as usize, key.len() * 8);
    let algorithm = r.str("algorithm");
    assert_eq!(algorithm, format!("AEAD_AES_{}_GCM_SIV", key.len() * 8));
    if r.has("tag") {
        assert_eq!(r.hex("tag"), ct[ct.len() - 16..], "{}", r.name);
    }
    for (how, c) in Siv::variants(&key, backend) {
        assert_eq!(c.encrypt(&nonce, &aad, &pt).unwrap(), ct, "{} seal on {how}", r.name);
        assert_eq!(c.decrypt(&nonce, &aad, &ct).unwrap(), pt, "{} open on {how}", r.name);
        let mut bad = ct.clone();
        *bad.last_mut().unwrap() ^= 0x80;
        assert_eq!(c.decrypt(&nonce, &aad, &bad), Err(gcmsiv::Error::Authentication));
        let (body, tag) = bad.split_at_mut(ct.len() - 16);
        let tag: [u8; 16] = (&*tag).try_into().unwrap();
        let res = c.decrypt_in_place_detached(&nonce, &aad, body, &tag);
        assert_eq!(res, Err(gcmsiv::Error::Authentication));
        assert_eq!(body, &ct[..ct.len() - 16], "{} on {how}: the ciphertext again", r.name);
    }
}

fn derive(key: &[u8], nonce: &[u8; 12], backend: Backend) -> (Vec<u8>, Vec<u8>) {
    match key.len() {
        16 => {
            let k = Aes128GcmSiv::with_backend(key.try_into().unwrap(), backend)
                .unwrap()
                .derive_record_keys(nonce);
            (k.authentication_key().to_vec(), k.encryption_key().to_vec())
        }
        _ => {
            let k = Aes256GcmSiv::with_backend(key.try_into().unwrap(), backend)
                .unwrap()
                .derive_record_keys(nonce);
            (k.authentication_key().to_vec(), k.encryption_key().to_vec())
        }
    }
}

fn polyval(h: &[u8], input: &[u8], backend: Backend) -> Vec<u8> {
    assert_eq!(input.len() % 16, 0);
    let mut p = Polyval::with_backend(h.try_into().unwrap(), backend).unwrap();
    p.update_padded(input);
    p.finalize().to_vec()
}

/// pad(AAD) || pad(plaintext) || LE64(bits of AAD) || LE64(bits of plaintext).
fn spec_polyval_input(aad: &[u8], pt: &[u8]) -> Vec<u8> {
    let mut v = Vec::new();
    for part in [aad, pt] {
        v.extend_from_slice(part);
        v.resize(v.len().next_multiple_of(16), 0);
    }
    v.extend_from_slice(&(aad.len() as u64 * 8).to_le_bytes());
    v.extend_from_slice(&(pt.len() as u64 * 8).to_le_bytes());
    v
}

#[test]
fn rfc8452_appendix_c_with_intermediates() {
    let file = load("rfc8452.json");
    let all = records(&file, "vectors", "id");
    assert_eq!(all.len(), 50);
    for backend in backends() {
        for r in &all {
            check_aead(r, backend);
            r.ignore(&["id", "section"]);
            let key = r.hex("key");
            let nonce: [u8; 12] = r.hex("nonce").try_into().unwrap();
            let (aad, pt, ct) = (r.hex("aad"), r.hex("plaintext"), r.hex("ciphertext"));
            let (auth, enc) = derive(&key, &nonce, backend);
            assert_eq!(auth, r.hex("record_authentication_key"), "{}", r.name);
            assert_eq!(enc, r.hex("record_encryption_key"), "{}", r.name);
            let input = r.hex("polyval_input");
            assert_eq!(input, spec_polyval_input(&aad, &pt), "{}", r.name);
            let s = polyval(&auth, &input, backend);
            assert_eq!(s, r.hex("polyval_result"), "{}", r.name);
            let mut x = s.clone();
            for (a, b) in x.iter_mut().zip(&nonce) {
                *a ^= b;
            }
            assert_eq!(x, r.hex("polyval_result_xor_nonce"));
            x[15] &= 0x7f;
            assert_eq!(x, r.hex("polyval_result_xor_nonce_masked"));
            let tag = r.hex("tag");
            assert_eq!(tag, ct[ct.len() - 16..]);
            let mut counter = tag.clone();
            counter[15] |= 0x80;
            assert_eq!(counter, r.hex("initial_counter"));
        }
    }
    // The library's own tag and counter steps are checked against these fields in
    // the unit tests of the mode (src/siv.rs), which can reach them.
}

#[test]
fn rfc8452_section8_example() {
    let file = load("rfc8452.json");
    for backend in backends() {
        for r in records(&file, "additional_vectors", "id") {
            r.ignore(&["id", "section", "note"]);
            check_aead(&r, backend);
        }
    }
}

#[test]
fn boringssl_vectors() {
    let file = load("boringssl_gcm_siv.json");
    let all = records(&file, "vectors", "id");
    assert_eq!(all.len(), 179);
    for backend in backends() {
        for r in &all {
            r.ignore(&["id", "source", "rfc8452_id"]);
            check_aead(r, backend);
        }
    }
}

#[test]
fn wycheproof_aes_gcm_siv() {
    let file = load("wycheproof_aes_gcm_siv.json");
    let mut seen = 0;
    for backend in backends() {
        seen = 0;
        for group in file["testGroups"].as_array().unwrap() {
            let g = Record::new("group", group);
            g.ignore(&["type", "source", "tests"]);
            let key_bits = g.u64("keySize") as usize;
            assert_eq!(g.u64("ivSize"), 96);
            assert_eq!(g.u64("tagSize"), 128);
            for t in records(group, "tests", "tcId") {
                seen += 1;
                t.ignore(&["tcId", "comment", "flags"]);
                let key = t.hex("key");
                assert_eq!(key.len() * 8, key_bits);
                let iv = t.hex("iv");
                let (aad, msg, ct, tag) = (t.hex("aad"), t.hex("msg"), t.hex("ct"), t.hex("tag"));
                let mut sealed = ct.clone();
                sealed.extend_from_slice(&tag);
                let nonce = gcmsiv::nonce_from_slice(&iv).unwrap();
                let result = t.str("result");
                for (how, c) in Siv::variants(&key, backend) {
                    match result.as_str() {
                        "valid" => {
                            assert_eq!(c.encrypt(nonce, &aad, &msg).unwrap(), sealed, "{} on {how}", t.name);
                            assert_eq!(c.decrypt(nonce, &aad, &sealed).unwrap(), msg, "{} on {how}", t.name);
                        }
                        "invalid" => {
                            let mut buf = ct.clone();
                            let tag: [u8; 16] = tag.clone().try_into().unwrap();
                            let res = c.decrypt_in_place_detached(nonce, &aad, &mut buf, &tag);
                            assert_eq!(res, Err(gcmsiv::Error::Authentication), "{} on {how}", t.name);
                            assert_eq!(buf, ct, "{}: not the ciphertext again", t.name);
                            assert!(c.decrypt(nonce, &aad, &sealed).is_err());
                        }
                        other => panic!("{}: unexpected result {other}", t.name),
                    }
                }
            }
        }
    }
    assert_eq!(seen, 202);
}

#[test]
fn polyval_vectors() {
    let file = load("polyval.json");
    for backend in backends() {
        let all = records(&file, "polyval_vectors", "id");
        assert_eq!(all.len(), 51);
        for r in all {
            r.ignore(&["id", "source"]);
            assert_eq!(polyval(&r.hex("h"), &r.hex("input"), backend), r.hex("result"), "{}", r.name);
        }

        let a = Record::new("appendix_a", &file["rfc8452_appendix_a"]);
        let mut input = a.hex("x_1");
        input.extend(a.hex("x_2"));
        assert_eq!(polyval(&a.hex("h"), &input, backend), a.hex("polyval_h_x1_x2"));
        // GHASH (and its mulX relation) belongs to the AES-GCM side of the library.
        a.ignore(&["ghash_h_x1_x2", "mulx_ghash_bytereverse_h", "mulx_ghash_examples"]);

        let f = Record::new("section7", &file["rfc8452_section7_field_example"]);
        // POLYVAL(b, a) = dot(a, b) = a * b * x^-128, and dot(a * b, 1) is the same.
        let dot = f.hex("dot_a_b");
        assert_eq!(polyval(&f.hex("b"), &f.hex("a"), backend), dot);
        let mut one = [0u8; 16];
        one[0] = 1;
        assert_eq!(polyval(&one, &f.hex("a_times_b"), backend), dot);
    }
}
