//! An independent reader written from docs/FORMAT.md alone (it shares no code with
//! the tool), run on the committed vectors and on fresh files from the tool. If the
//! tool and the specification ever disagree, this fails.

mod common;

use bech32::primitives::checksum::Checksum;
use bech32::primitives::decode::CheckedHrpstring;
use gcmsiv::{Aes128GcmSiv, Aes256GcmSiv};
use hkdf::Hkdf;
use hmac::{Hmac, KeyInit, Mac};
use hpke::aead::ChaCha20Poly1305;
use hpke::kdf::HkdfSha256;
use hpke::kem::{X25519HkdfSha256, XWing};
use hpke::{Deserializable, Kem};
use sha2::Sha256;

use common::*;

enum Key<'a> {
    File(&'a str),
    Passphrase(&'a str),
    /// Identity files' text.
    Identities(Vec<String>),
}

/// BIP 173's checksum without its length limit, as the spec says.
enum LongBech32 {}

impl Checksum for LongBech32 {
    type MidstateRepr = u32;
    type CorrectionField = bech32::primitives::gf32_ext::Fe1024;
    const ROOT_GENERATOR: Self::CorrectionField = bech32::primitives::gf32_ext::Fe1024::new([
        bech32::primitives::gf32::Fe32::P,
        bech32::primitives::gf32::Fe32::X,
    ]);
    const ROOT_EXPONENTS: core::ops::RangeInclusive<usize> = 24..=26;
    const CODE_LENGTH: usize = 1 << 20;
    const CHECKSUM_LENGTH: usize = 6;
    const GENERATOR_SH: [u32; 5] = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
    const TARGET_RESIDUE: u32 = 1;
}

/// The (type, private key) of every identity line in identity files.
fn identities(texts: &[String]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    for line in texts.iter().flat_map(|t| t.lines()) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let checked = CheckedHrpstring::new::<LongBech32>(line).unwrap();
        let kind = match checked.hrp().to_lowercase().as_str() {
            "gcmsiv-secret-key-" => 1,
            "gcmsiv-secret-key-pq-" => 2,
            other => panic!("not an identity: {other}"),
        };
        out.push((kind, checked.byte_iter().collect()));
    }
    out
}

/// HPKE OpenBase of one stanza's `wrapped` with one private key.
fn hpke_open<K: Kem>(sk: &[u8], enc: &[u8], wrapped: &[u8], aad: &[u8]) -> Option<Vec<u8>> {
    let sk = K::PrivateKey::from_bytes(sk).ok()?;
    let enc = K::EncappedKey::from_bytes(enc).ok()?;
    hpke::single_shot_open::<ChaCha20Poly1305, HkdfSha256, K>(
        &hpke::OpModeR::Base,
        &sk,
        &enc,
        b"gcmsiv v2 file key",
        wrapped,
        aad,
    )
    .ok()
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
    let version = match file.get(6) {
        Some(&v @ (1 | 2)) => v,
        _ => return Err("unsupported version".into()),
    };
    let fixed_len = if version == 1 { 86 } else { 44 };
    if file.len() < fixed_len {
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
    let (ikm, salt, header_len, labels): (Vec<u8>, &[u8], usize, [&[u8]; 2]) = if version == 1 {
        let (m, t, p) = (u32_at(10), u32_at(14), u32_at(18));
        let salt = &file[22..54];
        let ikm = match (file[8], key) {
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
        (ikm, salt, 86, [b"gcmsiv v1 header key", b"gcmsiv v1 payload key"])
    } else {
        // Version 2: the stanzas, then the file key from the first that opens.
        let n = usize::from(u16::from_be_bytes([file[42], file[43]]));
        if n == 0 || n > 256 {
            return Err("stanza count".into());
        }
        let mut stanzas = Vec::new();
        let mut at = 44;
        for _ in 0..n {
            let enc_len = match file.get(at) {
                None => return Err("truncated".into()),
                Some(1) => 32,
                Some(2) => 1120,
                Some(_) => return Err("unknown stanza type".into()),
            };
            let end = at + 1 + enc_len + 48;
            if file.len() < end {
                return Err("truncated".into());
            }
            stanzas.push((file[at], &file[at + 1..at + 1 + enc_len], &file[at + 1 + enc_len..end]));
            at = end;
        }
        if file.len() < at + 32 {
            return Err("truncated".into());
        }
        if file[8] != 3 {
            return Err("corrupted header".into());
        }
        let Key::Identities(texts) = key else { return Err("key mode".into()) };
        let ids = identities(&texts);
        let aad = &file[..44];
        let file_key = stanzas
            .iter()
            .find_map(|&(kind, enc, wrapped)| {
                ids.iter().filter(|(k, _)| *k == kind).find_map(|(_, sk)| match kind {
                    1 => hpke_open::<X25519HkdfSha256>(sk, enc, wrapped, aad),
                    _ => hpke_open::<XWing>(sk, enc, wrapped, aad),
                })
            })
            .ok_or_else(|| "no identity matched".to_string())?;
        assert_eq!(file_key.len(), 32);
        (file_key, &file[10..42], at + 32, [b"gcmsiv v2 header key", b"gcmsiv v2 payload key"])
    };
    let hkdf = Hkdf::<Sha256>::new(Some(salt), &ikm);
    let mut header_key = [0u8; 32];
    hkdf.expand(labels[0], &mut header_key).unwrap();
    let mut info = labels[1].to_vec();
    info.push(file[7]);
    let mut payload_key = vec![0u8; key_len];
    hkdf.expand(&info, &mut payload_key).unwrap();
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&header_key).unwrap();
    let mac_at = header_len - 32;
    mac.update(&file[..mac_at]);
    mac.verify_slice(&file[mac_at..header_len]).map_err(|_| "wrong key or corrupted header".to_string())?;

    // Chunks.
    let open = |nonce: &[u8; 12], aad: &[u8], sealed: &[u8]| match key_len {
        16 => Aes128GcmSiv::new_from_slice(&payload_key).unwrap().decrypt(nonce, aad, sealed),
        _ => Aes256GcmSiv::new_from_slice(&payload_key).unwrap().decrypt(nonce, aad, sealed),
    };
    let mut rest = &file[header_len..];
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
        let mut aad = file[mac_at..header_len].to_vec();
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
        check_vector(&vector);
    }
}

#[test]
fn the_spec_reads_every_committed_version_2_and_armored_vector() {
    for vector in manifest::load_recipients() {
        check_vector(&vector);
    }
}

/// The binary file inside ASCII armor (docs/FORMAT.md, "ASCII armor"), or the
/// file itself; `None` for malformed armor.
fn unarmor(file: &[u8]) -> Option<Vec<u8>> {
    use base64::Engine;
    let text = std::str::from_utf8(file).ok().filter(|t| t.trim_start().starts_with("-----BEGIN"));
    let Some(text) = text else { return Some(file.to_vec()) };
    let lines: Vec<&str> = text.trim().lines().collect();
    let (first, last) = (lines.first()?, lines.last()?);
    if *first != "-----BEGIN GCMSIV ENCRYPTED FILE-----" || *last != "-----END GCMSIV ENCRYPTED FILE-----" {
        return None;
    }
    let body = &lines[1..lines.len() - 1];
    let shapes_ok = body
        .iter()
        .enumerate()
        .all(|(i, l)| if i + 1 < body.len() { l.len() == 64 } else { (1..=64).contains(&l.len()) });
    if !shapes_ok {
        return None;
    }
    base64::engine::general_purpose::STANDARD.decode(body.concat()).ok()
}

fn check_vector(vector: &manifest::Vector) {
    let key_text;
    let key = match (vector.get("key"), vector.get("passphrase"), vector.get("identity")) {
        (Some(_), _, _) => {
            key_text = String::from_utf8(vector.read("key")).unwrap();
            Key::File(&key_text)
        }
        (_, Some(pass), _) => Key::Passphrase(pass),
        (_, _, Some(files)) => Key::Identities(
            files.split(',').map(|f| std::fs::read_to_string(manifest::dir().join(f)).unwrap()).collect(),
        ),
        _ => unreachable!(),
    };
    let (released, result) = match unarmor(&vector.read("file")) {
        Some(file) => decode(&file, key),
        None => (Vec::new(), Err("malformed armor".to_string())),
    };
    match vector.get("error") {
        None => {
            let info = result.unwrap_or_else(|e| panic!("{}: {e}", vector.name()));
            assert_eq!(info.algorithm, vector.get("algorithm").unwrap(), "{}", vector.name());
            assert_eq!(info.chunk_size.to_string(), vector.get("chunk_size").unwrap(), "{}", vector.name());
            assert!(released == vector.read("plaintext"), "{}", vector.name());
        }
        Some(_) => {
            assert!(result.is_err(), "{}: the spec accepts it", vector.name());
            assert!(released == vector.released(), "{}: released the wrong bytes", vector.name());
        }
    }
}

#[test]
fn the_spec_reads_fresh_version_2_files_from_the_tool() {
    let scratch = Scratch::new();
    let mut ids = Vec::new();
    let mut recipients = Vec::new();
    for (name, pq) in [("a.id", false), ("b.id", true), ("c.id", false)] {
        let mut cmd = gcmsiv();
        cmd.args(["identity", "-o"]).arg(scratch.path(name));
        if pq {
            cmd.arg("--post-quantum");
        }
        let out = run(cmd);
        assert_ok(&out);
        recipients.push(String::from_utf8(out.stdout).unwrap().trim().to_string());
        ids.push(std::fs::read_to_string(scratch.path(name)).unwrap());
    }
    let plain = data(5000);
    let args: Vec<&str> = recipients.iter().flat_map(|r| ["-r", r.as_str()]).collect();
    let mut extra = args.clone();
    extra.extend(["--chunk-size-exp", "10", "--allow-mixed-recipients"]);
    let sealed = scratch.encrypt_to(&plain, &extra);
    for id in &ids {
        let (released, result) = decode(&sealed, Key::Identities(vec![id.clone()]));
        assert_eq!(result, Ok(Info { algorithm: "aes256", chunk_size: 1024 }));
        assert!(released == plain);
    }
    let other = Scratch::new();
    let mut cmd = gcmsiv();
    cmd.args(["identity", "-o"]).arg(other.path("x.id"));
    assert_ok(&run(cmd));
    let stranger = std::fs::read_to_string(other.path("x.id")).unwrap();
    let (released, result) = decode(&sealed, Key::Identities(vec![stranger]));
    assert_eq!(result, Err("no identity matched".to_string()));
    assert!(released.is_empty());
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
