//! The C ABI, called as C calls it: every vector file through the combined,
//! detached, in-place and batch calls, on every backend, and the contract's
//! misuse cases (lengths, NULL, overlap, wiping, statuses).

#[path = "../../gcmsiv/tests/common/mod.rs"]
mod common;

use common::{Record, backends, load, records};
use core::ffi::CStr;
use core::ptr::{null, null_mut};
use gcmsiv::Backend;
use gcmsiv_c::*;

/// A key made through the ABI, freed on drop.
struct Key(*mut GcmsivKey);

impl Key {
    fn new(algorithm: i32, key: &[u8], tag_len: usize, backend: Backend) -> Result<Key, i32> {
        let mut k = null_mut();
        let code = unsafe {
            gcmsiv_key_new_ex(&mut k, algorithm, key.as_ptr(), key.len(), tag_len, code_of(backend))
        };
        if code == GCMSIV_OK { Ok(Key(k)) } else { Err(code) }
    }

    fn siv(key: &[u8], backend: Backend) -> Key {
        let alg = if key.len() == 16 { GCMSIV_AES_128_GCM_SIV } else { GCMSIV_AES_256_GCM_SIV };
        Key::new(alg, key, 0, backend).unwrap()
    }

    fn gcm(key: &[u8], tag_len: usize, backend: Backend) -> Key {
        let alg = if key.len() == 16 { GCMSIV_AES_128_GCM } else { GCMSIV_AES_256_GCM };
        if tag_len >= 12 {
            return Key::new(alg, key, tag_len, backend).unwrap();
        }
        let mut k = null_mut();
        let code = unsafe {
            gcmsiv_key_new_gcm_short_tag_hazardous(
                &mut k,
                alg,
                key.as_ptr(),
                key.len(),
                tag_len,
                code_of(backend),
            )
        };
        assert_eq!(code, GCMSIV_OK);
        Key(k)
    }

    fn tag_len(&self) -> usize {
        unsafe { gcmsiv_key_tag_bytes(self.0) }
    }

    /// Combined encryption into a separate buffer, then in place; both must agree.
    fn seal(&self, nonce: &[u8], ad: &[u8], m: &[u8]) -> Result<Vec<u8>, i32> {
        let mut c = vec![0xa5; m.len() + self.tag_len()];
        let mut c_len = usize::MAX;
        let code = unsafe {
            gcmsiv_encrypt(
                c.as_mut_ptr(),
                c.len(),
                &mut c_len,
                m.as_ptr(),
                m.len(),
                ad.as_ptr(),
                ad.len(),
                nonce.as_ptr(),
                nonce.len(),
                self.0,
            )
        };
        if code != GCMSIV_OK {
            assert_eq!(c_len, 0);
            return Err(code);
        }
        assert_eq!(c_len, c.len());
        let mut inplace = m.to_vec();
        inplace.resize(c.len(), 0);
        let code = unsafe {
            let p = inplace.as_mut_ptr();
            gcmsiv_encrypt(
                p,
                inplace.len(),
                null_mut(),
                p,
                m.len(),
                ad.as_ptr(),
                ad.len(),
                nonce.as_ptr(),
                nonce.len(),
                self.0,
            )
        };
        assert_eq!((code, &inplace), (GCMSIV_OK, &c), "in place");
        // Detached, separate buffers.
        let (mut body, mut tag) = (vec![0u8; m.len()], vec![0u8; self.tag_len()]);
        let code = unsafe {
            gcmsiv_encrypt_detached(
                body.as_mut_ptr(),
                tag.as_mut_ptr(),
                tag.len(),
                m.as_ptr(),
                m.len(),
                ad.as_ptr(),
                ad.len(),
                nonce.as_ptr(),
                nonce.len(),
                self.0,
            )
        };
        assert_eq!(code, GCMSIV_OK);
        assert_eq!([body, tag].concat(), c, "detached");
        Ok(c)
    }

    /// Combined decryption into a separate buffer, in place, and detached:
    /// all must agree; on failure no plaintext anywhere.
    fn open(&self, nonce: &[u8], ad: &[u8], c: &[u8]) -> Result<Vec<u8>, i32> {
        let body_len = c.len().saturating_sub(self.tag_len());
        let mut m = vec![0xa5; body_len.max(1)];
        let mut m_len = usize::MAX;
        let code = unsafe {
            gcmsiv_decrypt(
                m.as_mut_ptr(),
                m.len(),
                &mut m_len,
                c.as_ptr(),
                c.len(),
                ad.as_ptr(),
                ad.len(),
                nonce.as_ptr(),
                nonce.len(),
                self.0,
            )
        };
        let mut inplace = c.to_vec();
        let code_inplace = unsafe {
            let p = inplace.as_mut_ptr();
            gcmsiv_decrypt(
                p,
                inplace.len(),
                null_mut(),
                p,
                c.len(),
                ad.as_ptr(),
                ad.len(),
                nonce.as_ptr(),
                nonce.len(),
                self.0,
            )
        };
        assert_eq!(code, code_inplace);
        if code != GCMSIV_OK {
            assert_eq!(m_len, 0);
            if code == GCMSIV_ERR_AUTHENTICATION {
                assert!(m[..body_len].iter().all(|&b| b == 0), "a failed open wipes its output");
            } else {
                assert!(m.iter().all(|&b| b == 0xa5), "misuse is refused before any work");
            }
            assert_eq!(inplace, c, "a failed open in place leaves (or puts back) the ciphertext");
            return Err(code);
        }
        assert_eq!(m_len, body_len);
        m.truncate(body_len);
        assert_eq!(&inplace[..body_len], &m[..], "in place");
        let (body, tag) = c.split_at(body_len);
        let mut out = vec![0u8; body_len];
        let code = unsafe {
            gcmsiv_decrypt_detached(
                out.as_mut_ptr(),
                body.as_ptr(),
                body.len(),
                tag.as_ptr(),
                tag.len(),
                ad.as_ptr(),
                ad.len(),
                nonce.as_ptr(),
                nonce.len(),
                self.0,
            )
        };
        assert_eq!((code, &out), (GCMSIV_OK, &m), "detached");
        Ok(m)
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        unsafe { gcmsiv_key_free(self.0) }
    }
}

fn code_of(backend: Backend) -> i32 {
    match backend {
        Backend::Portable => GCMSIV_BACKEND_PORTABLE,
        Backend::AesNiClmul => GCMSIV_BACKEND_AESNI_CLMUL,
        Backend::AesNiVaes => GCMSIV_BACKEND_AESNI_VAES,
        Backend::Armv8AesPmull => GCMSIV_BACKEND_ARMV8_AES_PMULL,
        _ => panic!("a backend the ABI does not know"),
    }
}

/// An AES-GCM-SIV vector with the RFC's schema.
fn check_siv(r: &Record, backend: Backend) {
    r.ignore(&["id", "section", "note", "source", "rfc8452_id", "algorithm", "key_bits", "tag", "result"]);
    r.ignore(&[
        "record_authentication_key",
        "record_encryption_key",
        "polyval_input",
        "polyval_result",
        "polyval_result_xor_nonce",
        "polyval_result_xor_nonce_masked",
        "initial_counter",
    ]);
    let (key, nonce, aad, pt, ct) =
        (r.hex("key"), r.hex("nonce"), r.hex("aad"), r.hex("plaintext"), r.hex("ciphertext"));
    let k = Key::siv(&key, backend);
    assert_eq!(k.seal(&nonce, &aad, &pt).unwrap(), ct, "{}", r.name);
    assert_eq!(k.open(&nonce, &aad, &ct).unwrap(), pt, "{}", r.name);
    let mut bad = ct.clone();
    bad[0] ^= 1;
    assert_eq!(k.open(&nonce, &aad, &bad), Err(GCMSIV_ERR_AUTHENTICATION), "{}", r.name);
}

#[test]
fn rfc8452_and_boringssl_vectors() {
    let rfc = load("rfc8452.json");
    let boring = load("boringssl_gcm_siv.json");
    for backend in backends() {
        let mut n = 0;
        for field in ["vectors", "additional_vectors"] {
            for r in records(&rfc, field, "id") {
                check_siv(&r, backend);
                n += 1;
            }
        }
        for r in records(&boring, "vectors", "id") {
            check_siv(&r, backend);
            n += 1;
        }
        assert_eq!(n, 51 + 179);
    }
}

#[test]
fn wycheproof_aes_gcm_siv() {
    let file = load("wycheproof_aes_gcm_siv.json");
    for backend in backends() {
        let mut seen = 0;
        for group in file["testGroups"].as_array().unwrap() {
            for t in records(group, "tests", "tcId") {
                seen += 1;
                t.ignore(&["tcId", "comment", "flags"]);
                let (key, iv, aad, msg, ct, tag) =
                    (t.hex("key"), t.hex("iv"), t.hex("aad"), t.hex("msg"), t.hex("ct"), t.hex("tag"));
                let sealed = [ct, tag].concat();
                let k = Key::siv(&key, backend);
                match t.str("result").as_str() {
                    "valid" => {
                        assert_eq!(k.seal(&iv, &aad, &msg).unwrap(), sealed, "{}", t.name);
                        assert_eq!(k.open(&iv, &aad, &sealed).unwrap(), msg, "{}", t.name);
                    }
                    _ => assert_eq!(k.open(&iv, &aad, &sealed), Err(GCMSIV_ERR_AUTHENTICATION), "{}", t.name),
                }
            }
        }
        assert_eq!(seen, 202);
    }
}

#[test]
fn nist_and_wycheproof_aes_gcm() {
    let nist = load("gcm_nist.json");
    let wycheproof = load("wycheproof_aes_gcm.json");
    for backend in backends() {
        let (mut run, mut skipped_192) = (0, 0);
        for r in records(&nist, "vectors", "id") {
            r.ignore(&["id", "source", "h", "j0", "ghash", "iv_bits", "tag_bits", "direction"]);
            let (key, iv, aad, ct, tag) =
                (r.hex("key"), r.hex("iv"), r.hex("aad"), r.hex("ciphertext"), r.hex("tag"));
            let (pt, result) = (r.opt_hex("plaintext"), r.str("result"));
            if r.u64("key_bits") == 192 {
                skipped_192 += 1;
                continue;
            }
            let k = Key::gcm(&key, tag.len(), backend);
            let sealed = [ct, tag].concat();
            match (result.as_str(), pt) {
                ("valid", Some(pt)) => {
                    assert_eq!(k.seal(&iv, &aad, &pt).unwrap(), sealed, "{}", r.name);
                    assert_eq!(k.open(&iv, &aad, &sealed).unwrap(), pt, "{}", r.name);
                }
                _ => assert_eq!(k.open(&iv, &aad, &sealed), Err(GCMSIV_ERR_AUTHENTICATION), "{}", r.name),
            }
            run += 1;
        }
        for group in wycheproof["testGroups"].as_array().unwrap() {
            let key_bits = group["keySize"].as_u64().unwrap();
            for t in records(group, "tests", "tcId") {
                t.ignore(&["tcId", "comment", "flags"]);
                let (key, iv, aad, msg, ct, tag) =
                    (t.hex("key"), t.hex("iv"), t.hex("aad"), t.hex("msg"), t.hex("ct"), t.hex("tag"));
                let result = t.str("result");
                if key_bits == 192 {
                    skipped_192 += 1;
                    continue;
                }
                let k = Key::gcm(&key, 16, backend);
                let sealed = [ct, tag].concat();
                match result.as_str() {
                    "valid" => {
                        assert_eq!(k.seal(&iv, &aad, &msg).unwrap(), sealed, "{}", t.name);
                        assert_eq!(k.open(&iv, &aad, &sealed).unwrap(), msg, "{}", t.name);
                    }
                    _ if iv.is_empty() => {
                        assert_eq!(k.seal(&iv, &aad, &msg), Err(GCMSIV_ERR_NONCE_LENGTH), "{}", t.name);
                        assert_eq!(k.open(&iv, &aad, &sealed), Err(GCMSIV_ERR_NONCE_LENGTH), "{}", t.name);
                    }
                    _ => assert_eq!(k.open(&iv, &aad, &sealed), Err(GCMSIV_ERR_AUTHENTICATION), "{}", t.name),
                }
                run += 1;
            }
        }
        assert_eq!(run + skipped_192, 146 + 316);
    }
}

/// Calls as misuse makes them: every one refused with its status, before any
/// work, and nothing released.
#[test]
fn misuse_is_refused() {
    let key = [7u8; 16];
    let k = Key::siv(&key, Backend::select());
    let nonce = [1u8; 12];
    // Keys.
    let mut out = null_mut();
    unsafe {
        assert_eq!(gcmsiv_key_new(&mut out, GCMSIV_AES_256_GCM_SIV, key.as_ptr(), 16), GCMSIV_ERR_KEY_LENGTH);
        assert!(out.is_null());
        assert_eq!(gcmsiv_key_new(&mut out, 99, key.as_ptr(), 16), GCMSIV_ERR_ALGORITHM);
        assert_eq!(gcmsiv_key_new(&mut out, GCMSIV_AES_128_GCM_SIV, null(), 16), GCMSIV_ERR_NULL_POINTER);
        assert_eq!(
            gcmsiv_key_new(null_mut(), GCMSIV_AES_128_GCM_SIV, key.as_ptr(), 16),
            GCMSIV_ERR_NULL_POINTER
        );
        assert_eq!(
            gcmsiv_key_new_ex(&mut out, GCMSIV_AES_128_GCM_SIV, key.as_ptr(), 16, 12, 0),
            GCMSIV_ERR_TAG_LENGTH
        );
        assert_eq!(
            gcmsiv_key_new_ex(&mut out, GCMSIV_AES_128_GCM, key.as_ptr(), 16, 11, 0),
            GCMSIV_ERR_TAG_LENGTH
        );
        assert_eq!(
            gcmsiv_key_new_ex(&mut out, GCMSIV_AES_128_GCM, key.as_ptr(), 16, 0, 42),
            GCMSIV_ERR_BACKEND_UNAVAILABLE
        );
        assert!(out.is_null());
        gcmsiv_key_free(null_mut());
    }
    // Nonces, buffers, NULLs.
    assert_eq!(k.seal(&[0; 11], b"", b"x"), Err(GCMSIV_ERR_NONCE_LENGTH));
    assert_eq!(k.open(&nonce, b"", &[0; 15]), Err(GCMSIV_ERR_TOO_SHORT));
    let msg = *b"sixteen byte msg";
    let mut c = [0u8; 31];
    let mut c_len = 5;
    unsafe {
        let code = gcmsiv_encrypt(
            c.as_mut_ptr(),
            c.len(),
            &mut c_len,
            msg.as_ptr(),
            16,
            null(),
            0,
            nonce.as_ptr(),
            12,
            k.0,
        );
        assert_eq!((code, c_len), (GCMSIV_ERR_BUFFER_TOO_SMALL, 0));
        let code =
            gcmsiv_encrypt(c.as_mut_ptr(), 32, null_mut(), null(), 16, null(), 0, nonce.as_ptr(), 12, k.0);
        assert_eq!(code, GCMSIV_ERR_NULL_POINTER);
        let code = gcmsiv_encrypt(
            c.as_mut_ptr(),
            32,
            null_mut(),
            msg.as_ptr(),
            16,
            null(),
            3,
            nonce.as_ptr(),
            12,
            k.0,
        );
        assert_eq!(code, GCMSIV_ERR_NULL_POINTER);
        let code = gcmsiv_encrypt(
            c.as_mut_ptr(),
            32,
            null_mut(),
            msg.as_ptr(),
            16,
            null(),
            0,
            nonce.as_ptr(),
            12,
            null(),
        );
        assert_eq!(code, GCMSIV_ERR_NULL_POINTER);
    }
    // Empty inputs may be NULL.
    let mut tag_only = [0u8; 16];
    let mut n = 0;
    unsafe {
        let code =
            gcmsiv_encrypt(tag_only.as_mut_ptr(), 16, &mut n, null(), 0, null(), 0, nonce.as_ptr(), 12, k.0);
        assert_eq!((code, n), (GCMSIV_OK, 16));
        let code =
            gcmsiv_decrypt(null_mut(), 0, &mut n, tag_only.as_ptr(), 16, null(), 0, nonce.as_ptr(), 12, k.0);
        assert_eq!((code, n), (GCMSIV_OK, 0));
    }
    // Overlap other than exact is refused, and touches nothing.
    let mut buf = [3u8; 64];
    let snapshot = buf;
    unsafe {
        let p = buf.as_mut_ptr();
        let code = gcmsiv_encrypt(p.add(1), 63, null_mut(), p, 16, null(), 0, nonce.as_ptr(), 12, k.0);
        assert_eq!(code, GCMSIV_ERR_OVERLAP);
        let code = gcmsiv_decrypt(p.add(8), 56, null_mut(), p, 32, null(), 0, nonce.as_ptr(), 12, k.0);
        assert_eq!(code, GCMSIV_ERR_OVERLAP);
        let code = gcmsiv_encrypt_detached(p, p.add(8), 16, p, 16, null(), 0, nonce.as_ptr(), 12, k.0);
        assert_eq!(code, GCMSIV_ERR_OVERLAP);
    }
    assert_eq!(buf, snapshot);
    // Misuse found after nothing was written: the output is as it was.
    let mut out = [0x5au8; 64];
    unsafe {
        let code = gcmsiv_encrypt(
            out.as_mut_ptr(),
            64,
            null_mut(),
            msg.as_ptr(),
            16,
            null(),
            0,
            nonce.as_ptr(),
            11,
            k.0,
        );
        assert_eq!(code, GCMSIV_ERR_NONCE_LENGTH);
        let code = gcmsiv_encrypt_detached(
            out.as_mut_ptr(),
            null_mut(),
            16,
            msg.as_ptr(),
            16,
            null(),
            0,
            nonce.as_ptr(),
            12,
            k.0,
        );
        assert_eq!(code, GCMSIV_ERR_NULL_POINTER);
    }
    assert_eq!(out, [0x5a; 64], "no plaintext copied into the output of a refused call");
    // Associated data or nonce inside the output is refused (read-only
    // inputs may share bytes with each other).
    let mut buf = [3u8; 64];
    unsafe {
        let p = buf.as_mut_ptr();
        assert_eq!(
            gcmsiv_encrypt(p, 64, null_mut(), msg.as_ptr(), 16, p.add(20), 4, nonce.as_ptr(), 12, k.0),
            GCMSIV_ERR_OVERLAP
        );
        assert_eq!(
            gcmsiv_encrypt(p, 64, null_mut(), msg.as_ptr(), 16, null(), 0, p.add(30), 12, k.0),
            GCMSIV_ERR_OVERLAP
        );
        let sealed32 = [0u8; 32];
        assert_eq!(
            gcmsiv_decrypt(p, 64, null_mut(), sealed32.as_ptr(), 32, p, 4, nonce.as_ptr(), 12, k.0),
            GCMSIV_ERR_OVERLAP
        );
        assert_eq!(
            gcmsiv_decrypt_detached(p, msg.as_ptr(), 16, p.add(8), 16, null(), 0, nonce.as_ptr(), 12, k.0),
            GCMSIV_ERR_OVERLAP
        );
        assert_eq!(
            gcmsiv_encrypt(p, 64, null_mut(), msg.as_ptr(), 16, nonce.as_ptr(), 12, nonce.as_ptr(), 12, k.0),
            GCMSIV_OK
        );
    }
    // A failed detached open wipes a separate output.
    let mut sealed = [0u8; 16];
    let mut mac = [0u8; 16];
    unsafe {
        let code = gcmsiv_encrypt_detached(
            sealed.as_mut_ptr(),
            mac.as_mut_ptr(),
            16,
            msg.as_ptr(),
            16,
            null(),
            0,
            nonce.as_ptr(),
            12,
            k.0,
        );
        assert_eq!(code, GCMSIV_OK);
        mac[15] ^= 1;
        let mut opened = [0xa5u8; 16];
        let code = gcmsiv_decrypt_detached(
            opened.as_mut_ptr(),
            sealed.as_ptr(),
            16,
            mac.as_ptr(),
            16,
            null(),
            0,
            nonce.as_ptr(),
            12,
            k.0,
        );
        assert_eq!((code, opened), (GCMSIV_ERR_AUTHENTICATION, [0; 16]));
    }
    // Detached tags of the wrong length.
    let mut tag = [0u8; 16];
    unsafe {
        let code = gcmsiv_encrypt_detached(
            buf.as_mut_ptr(),
            tag.as_mut_ptr(),
            12,
            msg.as_ptr(),
            16,
            null(),
            0,
            nonce.as_ptr(),
            12,
            k.0,
        );
        assert_eq!(code, GCMSIV_ERR_TAG_LENGTH);
        let code = gcmsiv_decrypt_detached(
            buf.as_mut_ptr(),
            msg.as_ptr(),
            16,
            tag.as_ptr(),
            15,
            null(),
            0,
            nonce.as_ptr(),
            12,
            k.0,
        );
        assert_eq!(code, GCMSIV_ERR_TAG_LENGTH);
    }
}

#[test]
fn sizes_and_names() {
    assert_eq!(gcmsiv_keybytes(GCMSIV_AES_128_GCM_SIV), 16);
    assert_eq!(gcmsiv_keybytes(GCMSIV_AES_256_GCM), 32);
    assert_eq!(gcmsiv_keybytes(0), 0);
    assert_eq!(gcmsiv_npubbytes(GCMSIV_AES_256_GCM_SIV), 12);
    assert_eq!(gcmsiv_abytes(), 16);
    assert_eq!(gcmsiv_messagebytes_max(GCMSIV_AES_128_GCM_SIV), 1 << 36);
    assert_eq!(gcmsiv_messagebytes_max(GCMSIV_AES_128_GCM), (1 << 36) - 32);
    assert_eq!(gcmsiv_backend_available(GCMSIV_BACKEND_PORTABLE), 1);
    let text = |p: *const core::ffi::c_char| unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_owned();
    assert_eq!(text(gcmsiv_strerror(GCMSIV_ERR_AUTHENTICATION)), "authentication failed");
    assert_eq!(text(gcmsiv_version()), env!("CARGO_PKG_VERSION"));
    for backend in backends() {
        let k = Key::siv(&[1; 32], backend);
        assert_eq!(text(unsafe { gcmsiv_key_backend(k.0) }), backend.name());
        assert_eq!(unsafe { gcmsiv_key_backend_bits(k.0) } as u32, backend.register_bits());
        assert_eq!(gcmsiv_backend_available(code_of(backend)), 1);
    }
    // The list bindings read: every backend the core knows, by number, name and width.
    assert_eq!(gcmsiv_backend_count() as usize, Backend::ALL.len());
    for (number, backend) in (1..).zip(Backend::ALL) {
        assert_eq!(code_of(backend), number);
        assert_eq!(text(gcmsiv_backend_name(number)), backend.name());
        assert_eq!(gcmsiv_backend_bits(number) as u32, backend.register_bits());
        assert_eq!(gcmsiv_backend_available(number), i32::from(backend.if_supported().is_some()));
    }
    assert_eq!(text(gcmsiv_backend_name(GCMSIV_BACKEND_AUTO)), Backend::select().name());
    for unknown in [-1, gcmsiv_backend_count() + 1] {
        assert_eq!((text(gcmsiv_backend_name(unknown)), gcmsiv_backend_bits(unknown)), (String::new(), 0));
    }
    for code in 0..=12 {
        assert_ne!(text(gcmsiv_strerror(-code)), "unknown status code");
    }
}

/// Batches: the same bytes as one call each, one bad tag fails only its item
/// (which holds its ciphertext again), misuse fails the call before any item.
#[test]
fn batches() {
    let lengths = [0usize, 1, 16, 17, 64, 100, 128, 129, 300, 1024];
    for backend in backends() {
        for (alg, key_len, tag_len) in [
            (GCMSIV_AES_128_GCM_SIV, 16, 16),
            (GCMSIV_AES_256_GCM_SIV, 32, 16),
            (GCMSIV_AES_128_GCM, 16, 16),
            (GCMSIV_AES_256_GCM, 32, 12),
        ] {
            let key = vec![9u8; key_len];
            let k = Key::new(alg, &key, tag_len, backend).unwrap();
            let nonces: Vec<[u8; 12]> = (0..40u8).map(|i| [i; 12]).collect();
            let ads: Vec<Vec<u8>> = (0..40).map(|i| vec![i as u8; i % 5]).collect();
            let plain: Vec<Vec<u8>> =
                (0..40).map(|i| vec![(i * 7) as u8; lengths[i % lengths.len()]]).collect();
            let mut data = plain.clone();
            let mut items: Vec<GcmsivBatchItem> = data
                .iter_mut()
                .enumerate()
                .map(|(i, d)| GcmsivBatchItem {
                    npub: nonces[i].as_ptr(),
                    npub_len: 12,
                    ad: ads[i].as_ptr(),
                    ad_len: ads[i].len(),
                    data: d.as_mut_ptr(),
                    data_len: d.len(),
                    tag: [0; 16],
                    status: 99,
                })
                .collect();
            assert_eq!(unsafe { gcmsiv_encrypt_batch(items.as_mut_ptr(), items.len(), k.0) }, GCMSIV_OK);
            for (i, item) in items.iter().enumerate() {
                let one = k.seal(&nonces[i], &ads[i], &plain[i]).unwrap();
                let sealed = unsafe { core::slice::from_raw_parts(item.data, item.data_len) };
                assert_eq!([sealed, &item.tag[..tag_len]].concat(), one, "item {i} on {backend:?}");
            }
            let ciphertexts: Vec<Vec<u8>> = items
                .iter()
                .map(|it| unsafe { core::slice::from_raw_parts(it.data, it.data_len) }.to_vec())
                .collect();
            items[3].tag[0] ^= 1;
            assert_eq!(unsafe { gcmsiv_decrypt_batch(items.as_mut_ptr(), items.len(), k.0) }, GCMSIV_OK);
            for (i, item) in items.iter().enumerate() {
                let now = unsafe { core::slice::from_raw_parts(item.data, item.data_len) };
                if i == 3 {
                    assert_eq!(item.status, GCMSIV_ERR_AUTHENTICATION);
                    assert_eq!(now, &ciphertexts[3][..], "the failed item holds its ciphertext again");
                } else {
                    assert_eq!((item.status, now), (GCMSIV_OK, &plain[i][..]), "item {i}");
                }
            }
            // Misuse: a bad nonce length in the last item; nothing is touched.
            let before: Vec<Vec<u8>> = items
                .iter()
                .map(|it| unsafe { core::slice::from_raw_parts(it.data, it.data_len) }.to_vec())
                .collect();
            items[39].npub_len = 0;
            assert_eq!(
                unsafe { gcmsiv_encrypt_batch(items.as_mut_ptr(), items.len(), k.0) },
                GCMSIV_ERR_NONCE_LENGTH
            );
            let after: Vec<Vec<u8>> = items
                .iter()
                .map(|it| unsafe { core::slice::from_raw_parts(it.data, it.data_len) }.to_vec())
                .collect();
            assert_eq!(before, after);
            // Two items sharing a buffer.
            items[39].npub_len = 12;
            items[1].data = items[2].data;
            items[1].data_len = items[2].data_len;
            assert_eq!(
                unsafe { gcmsiv_encrypt_batch(items.as_mut_ptr(), items.len(), k.0) },
                GCMSIV_ERR_OVERLAP
            );
        }
    }
}
