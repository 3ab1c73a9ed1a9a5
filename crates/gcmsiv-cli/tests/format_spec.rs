//! An independent reader written from docs/FORMAT.md alone (it shares no code with
//! the tool), run on the committed vectors and on fresh files from the tool. If the
//! tool and the specification ever disagree, this fails.

mod common;

use gcmsiv::{Aes128GcmSiv, Aes256GcmSiv};
use hkdf::Hkdf;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use common::*;

enum Key<'a> {
    File(&'a str),
    Passphrase(&'a str),
}

/// What the header says, for checking against the manifest.
#[derive(Debug, PartialEq)]
struct Info {
    algorithm: &'static str,
    chunk_size: usize,
}

/// Decodes per the spec. Returns what it released, and the header info or the
/// reason it stopped.
fn decode(file: &[u8], key: Key<'_>) -> (Vec<u8>, Result<Info, String>) {
    let mut released = Vec::new();
    let result = decode_into(file, key, &mut released);
    (released, result)
}

fn decode_into(file: &[u8], key: Key<'_>, released: &mut Vec<u8>) -> Result<Info, String> {
    // Header checks, in the spec's order.
    if file.len() < 6 || &file[..6] != b"GCMSIV" {
        return Err("not a gcmsiv file".into());
    }
    if file.get(6) != Some(&1) {
        return Err("unsupported version".into());
    }
    if file.len() < 86 {
        return Err("truncated".into());
    }
    let (algorithm, key_len) = match file[7] {
        30 => ("aes128", 16),
        31 => ("aes256", 32),
        _ => return Err("corrupted header".into()),
    };
    let e = file[9];
    if !(10..=20).contains(&e) {
        return Err("corrupted header".into());
    }
    let chunk_size = 1usize << e;
    let u32_at = |at: usize| u32::from_be_bytes(file[at..at + 4].try_into().unwrap());
    let (m, t, p) = (u32_at(10), u32_at(14), u32_at(18));
    let salt = &file[22..54];
    let ikm: Vec<u8> = match (file[8], key) {
        (1, Key::File(text)) => {
            if (m, t, p) != (0, 0, 0) {
                return Err("corrupted header".into());
            }
            let line = text.lines().find(|l| !l.is_empty() && !l.starts_with('#')).unwrap();
            let hex = line.strip_prefix("gcmsiv-key-v1:").unwrap().trim_end();
            (0..32).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()).collect()
        }
        (2, Key::Passphrase(pass)) => {
            if t < 1 || !(1..=16).contains(&p) || m < 8 * p || m > 1 << 20 || t > 16 {
                return Err("cost out of bounds".into());
            }
            let params = argon2::Params::new(m, t, p, Some(32)).unwrap();
            let argon = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
            let mut out = vec![0u8; 32];
            argon.hash_password_into(pass.as_bytes(), salt, &mut out).unwrap();
            out
        }
        _ => return Err("key mode".into()),
    };
    let hkdf = Hkdf::<Sha256>::new(Some(salt), &ikm);
    let mut header_key = [0u8; 32];
    hkdf.expand(b"gcmsiv v1 header key", &mut header_key).unwrap();
    let mut info = b"gcmsiv v1 payload key".to_vec();
    info.push(file[7]);
    let mut payload_key = vec![0u8; key_len];
    hkdf.expand(&info, &mut payload_key).unwrap();
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&header_key).unwrap();
    mac.update(&file[..54]);
    mac.verify_slice(&file[54..86]).map_err(|_| "wrong key or corrupted header".to_string())?;

    // Chunks.
    let open = |nonce: &[u8; 12], aad: &[u8], sealed: &[u8]| match key_len {
        16 => Aes128GcmSiv::new_from_slice(&payload_key).unwrap().decrypt(nonce, aad, sealed),
        _ => Aes256GcmSiv::new_from_slice(&payload_key).unwrap().decrypt(nonce, aad, sealed),
    };
    let mut rest = &file[86..];
    for i in 0u64.. {
        if rest.len() < 4 {
            return Err("truncated".into());
        }
        let w = u32_at(file.len() - rest.len());
        let last = w >> 31 == 1;
        let len = (w & 0x7fff_ffff) as usize;
        let valid = if last { len <= chunk_size && (len > 0 || i == 0) } else { len == chunk_size };
        if !valid {
            return Err("bad chunk length".into());
        }
        if rest.len() < 4 + len + 16 {
            return Err("truncated".into());
        }
        let mut nonce = [0u8; 12];
        nonce[3..11].copy_from_slice(&i.to_be_bytes());
        nonce[11] = u8::from(last);
        let mut aad = file[54..86].to_vec();
        aad.extend_from_slice(&w.to_be_bytes());
        let plain = open(&nonce, &aad, &rest[4..4 + len + 16]).map_err(|_| format!("chunk {i} failed"))?;
        released.extend_from_slice(&plain);
        rest = &rest[4 + len + 16..];
        if last {
            return if rest.is_empty() {
                Ok(Info { algorithm, chunk_size })
            } else {
                Err("trailing data".into())
            };
        }
    }
    unreachable!()
}

#[test]
fn the_spec_reads_every_committed_vector() {
    for vector in manifest::load() {
        let key_text;
        let key = match (vector.get("key"), vector.get("passphrase")) {
            (Some(_), _) => {
                key_text = String::from_utf8(vector.read("key")).unwrap();
                Key::File(&key_text)
            }
            (_, Some(pass)) => Key::Passphrase(pass),
            _ => unreachable!(),
        };
        let (released, result) = decode(&vector.read("file"), key);
        match vector.get("error") {
            None => {
                let info = result.unwrap_or_else(|e| panic!("{}: {e}", vector.name()));
                assert_eq!(info.algorithm, vector.get("algorithm").unwrap(), "{}", vector.name());
                assert_eq!(
                    info.chunk_size.to_string(),
                    vector.get("chunk_size").unwrap(),
                    "{}",
                    vector.name()
                );
                assert!(released == vector.read("plaintext"), "{}", vector.name());
            }
            Some(_) => {
                assert!(result.is_err(), "{}: the spec accepts it", vector.name());
                assert!(released == vector.released(), "{}: released the wrong bytes", vector.name());
            }
        }
    }
}

#[test]
fn the_spec_reads_fresh_files_from_the_tool() {
    let scratch = Scratch::new();
    let key_text = std::fs::read_to_string(&scratch.key).unwrap();
    for (size, extra) in [
        (0, &[][..]),
        (1, &["--algorithm", "aes128"][..]),
        (70_000, &[][..]),
        (5000, &["--chunk-size-exp", "11"][..]),
    ] {
        let plain = data(size);
        let sealed = scratch.encrypt(&plain, scratch.secret(), extra);
        let (released, result) = decode(&sealed, Key::File(&key_text));
        assert!(result.is_ok(), "{size}: {result:?}");
        assert!(released == plain);
    }
    let plain = data(3000);
    let sealed = scratch.encrypt(&plain, Secret::Passphrase("pass phrase"), &["--chunk-size-exp", "10"]);
    let (released, result) = decode(&sealed, Key::Passphrase("pass phrase"));
    assert_eq!(result, Ok(Info { algorithm: "aes256", chunk_size: 1024 }));
    assert!(released == plain);
}
