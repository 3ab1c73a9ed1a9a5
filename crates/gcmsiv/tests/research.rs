//! The research module (feature `research`): every vector of
//! `seed_variants.json`, every field of it, on every backend; and the checks
//! of the seeds' SPEC.md section 6 that need no vectors: the reductions to
//! RFC 8452 and SP 800-38D parts, the exact relations between variants,
//! round trips and tampering, identical output across backends.
#![cfg(feature = "research")]

mod common;

use common::{Record, backends, load, pattern, records};
use gcmsiv::research::{AesParts, Intermediates, SeedCipher, Variant};
use gcmsiv::{Backend, Error};

fn cipher(variant: Variant, key: &[u8], backend: Backend) -> SeedCipher {
    SeedCipher::with_backend(variant, key, backend).unwrap()
}

/// AES of one block under `key`, from another implementation (RustCrypto's).
fn aes_block(key: &[u8], block: [u8; 16]) -> [u8; 16] {
    use aes_gcm::aes::cipher::{BlockCipherEncrypt, KeyInit};
    let mut b = block.into();
    match key.len() {
        16 => aes_gcm::aes::Aes128::new_from_slice(key).unwrap().encrypt_block(&mut b),
        _ => aes_gcm::aes::Aes256::new_from_slice(key).unwrap().encrypt_block(&mut b),
    }
    b.into()
}

/// A 16-byte field as an array.
fn block(v: Vec<u8>) -> [u8; 16] {
    v.try_into().unwrap()
}

/// Each intermediate a vector lists, against ours. The hash fields come as
/// `polyval_*` or `ghash_*`, by the variant's order: exactly one of the two.
fn check_intermediates(r: &Record, ours: &Intermediates, tag: &[u8]) {
    let id = &r.name;
    let opt = |field: &str| r.has(field).then(|| r.hex(field));
    if let Some(v) = opt("hash_key") {
        assert_eq!(Some(v), ours.hash_key, "{id} hash_key");
    }
    if let Some(v) = opt("aes_key") {
        assert_eq!(Some(v), ours.aes_key, "{id} aes_key");
    }
    if let Some(v) = opt("record_encryption_key") {
        assert_eq!(Some(v), ours.record_encryption_key, "{id} record_encryption_key");
    }
    if let Some(v) = opt("length_block") {
        assert_eq!(Some(block(v)), ours.length_block, "{id} length_block");
    }
    if let Some(v) = opt("polyval_input") {
        assert_eq!(Some(v), ours.hash_input, "{id} polyval_input");
    }
    let (polyval, ghash) = (r.has("polyval_result"), r.has("ghash_result"));
    assert!(!(polyval && ghash), "{id}: both hash orders");
    for prefix in ["polyval", "ghash"] {
        if let Some(v) = opt(&format!("{prefix}_result")) {
            assert_eq!(Some(block(v)), ours.hash_result, "{id} {prefix}_result");
        }
        if let Some(v) = opt(&format!("{prefix}_result_xor_nonce")) {
            assert_eq!(Some(block(v)), ours.hash_result_xor_nonce, "{id} {prefix}_result_xor_nonce");
        }
    }
    if let Some(v) = opt("tag_input") {
        assert_eq!(Some(block(v)), ours.tag_input, "{id} tag_input");
        // The tag is the encryption of that block under the message's AES key.
        let key = ours.record_encryption_key.as_ref().or(ours.aes_key.as_ref()).unwrap();
        assert_eq!(aes_block(key, ours.tag_input.unwrap()).to_vec(), tag, "{id} AES(tag_input)");
    }
    if let Some(v) = opt("initial_counter") {
        assert_eq!(block(v), ours.initial_counter, "{id} initial_counter");
    }
    if let Some(v) = opt("first_keystream_block") {
        assert_eq!(block(v), ours.first_keystream_block, "{id} first_keystream_block");
    }
    if let Some(v) = opt("derived_k1") {
        assert_eq!(Some(v), ours.derived_k1, "{id} derived_k1");
    }
    if let Some(v) = opt("derived_k2") {
        assert_eq!(Some(v), ours.derived_k2, "{id} derived_k2");
    }
    if !tag.is_empty() {
        assert_eq!(ours.tag.map(|t| t.to_vec()), Some(tag.to_vec()), "{id} intermediates' tag");
    }
    if r.has("note") {
        // A source defect; where it concerns the counter, the field is left out.
        let note = r.str("note");
        assert!(!note.is_empty(), "{id}");
        if note.contains("counter line") {
            assert!(!r.has("initial_counter"), "{id}: a defective counter kept");
        }
    }
}

/// One vector on one backend: seal, open, intermediates, and a forged tag.
fn check_vector(variant: Variant, r: &Record, backend: Backend) {
    let id = format!("{} on {}", r.name, backend.name());
    let (key, nonce, aad, msg) = (r.hex("key"), r.hex("nonce"), r.hex("aad"), r.hex("msg"));
    let (ct, tag) = (r.hex("ct"), r.hex("tag"));
    assert!(r.str("id").starts_with(variant.name()), "{id}");
    let prefix =
        if variant.key_lens()[0] == 32 && key.len() != 16 && has_hash_prefix(variant) { 16 } else { 0 };
    assert_eq!(r.u64("key_bits") as usize, (key.len() - prefix) * 8, "{id} key_bits");
    assert_eq!(tag.len(), variant.tag_len(), "{id}");
    let c = cipher(variant, &key, backend);
    let sealed = [ct.as_slice(), &tag].concat();
    assert_eq!(c.seal(&nonce, &aad, &msg).unwrap(), sealed, "{id} seal");
    assert_eq!(c.open(&nonce, &aad, &sealed).unwrap(), msg, "{id} open");
    check_intermediates(r, &c.intermediates(&nonce, &aad, &msg).unwrap(), &tag);
    if !tag.is_empty() {
        let mut forged = tag.clone();
        forged[0] ^= 1;
        let mut buffer = ct.clone();
        assert_eq!(
            c.open_in_place_detached(&nonce, &aad, &mut buffer, &forged),
            Err(Error::Authentication),
            "{id}"
        );
        assert_eq!(buffer, ct, "{id}: a failed open must put the ciphertext back");
    }
}

fn has_hash_prefix(variant: Variant) -> bool {
    matches!(
        variant,
        Variant::GcmSiv2015TwoKey
            | Variant::GcmSiv2015TwoKeyPaper
            | Variant::DraftGueron00
            | Variant::DraftIrtf01
            | Variant::GcmSivPlus
    )
}

/// The fields every vector has, described in the file's header prose rather
/// than its `fields` table.
const VECTOR_FIELDS: [&str; 9] = ["id", "key_bits", "key", "nonce", "aad", "msg", "ct", "tag", "note"];

/// The one runner: every variant, group and vector of the file, every field
/// consumed (a field never checked fails the test), on every backend.
#[test]
fn seed_variants_json_every_field_on_every_backend() {
    let file = load("seed_variants.json");
    let top = Record::new("seed_variants.json", &file);
    assert!(top.str("title").contains("GCM-SIV"));
    assert!(top.str("encoding").contains("lowercase hex"));
    assert!(top.str("byte_order").contains("memory order"));
    // Every field a vector may carry is documented at the top.
    let documented = top.value("fields");
    let variants = top.value("variants");
    let mut seen = std::collections::HashSet::new();
    let mut count = 0;
    for (name, spec) in variants.as_object().unwrap() {
        let variant = Variant::from_name(name).unwrap_or_else(|| panic!("unknown variant {name}"));
        seen.insert(variant);
        let meta = Record::new(name.as_str(), spec);
        let status = meta.str("status");
        assert!(status == "published" || status == "computed", "{name}: {status}");
        assert!(!meta.str("description").is_empty() && !meta.str("key_layout").is_empty());
        let key_bytes: Vec<usize> = meta
            .value("key_bytes")
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(key_bytes, variant.key_lens(), "{name} key_bytes");
        assert_eq!(meta.u64("nonce_bytes") as usize, variant.nonce_len(), "{name} nonce_bytes");
        assert_eq!(meta.u64("tag_bytes") as usize, variant.tag_len(), "{name} tag_bytes");
        meta.value("groups");
        for g in spec["groups"].as_array().unwrap() {
            let group = Record::new(format!("{name} group"), g);
            assert!(group.str("id").starts_with(name.as_str()));
            let provenance = group.value("provenance");
            if status == "published" {
                let commit = provenance["commit"].as_str().unwrap();
                assert!(commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()), "{name} commit");
                assert!(provenance["repository"].is_string() && provenance["path"].is_string());
            } else {
                assert!(provenance["computed"].is_string(), "{name}: computed provenance");
            }
            for also in group.value("also_published_in").as_array().unwrap() {
                assert_eq!(also["commit"].as_str().unwrap().len(), 40, "{name} also_published_in");
            }
            group.value("vectors");
            for (raw, r) in g["vectors"].as_array().unwrap().iter().zip(records(g, "vectors", "id")) {
                for field in raw.as_object().unwrap().keys() {
                    let documented =
                        documented.as_object().unwrap().keys().any(|d| d.contains(field.as_str()));
                    assert!(
                        documented || VECTOR_FIELDS.contains(&field.as_str()),
                        "{}: undocumented {field}",
                        r.name
                    );
                }
                for backend in backends() {
                    check_vector(variant, &r, backend);
                }
                count += 1;
            }
        }
    }
    assert_eq!(count, 206, "158 published and 48 computed vectors");
    assert_eq!(seen.len(), 11, "every variant of SPEC.md has vectors (GCM-SIV+ has none)");
}

/// A key and nonce of the right lengths for `variant` (the first key length).
fn inputs(variant: Variant, key_len: usize) -> (Vec<u8>, Vec<u8>) {
    (pattern(key_len, 0x11), pattern(variant.nonce_len(), 0x22))
}

/// SPEC 6.2: 002's DeriveKey is RFC 8452 section 4: K1 and K2 equal the
/// record keys of all 50 RFC vectors.
#[test]
fn derive_key_is_rfc8452_record_key_derivation() {
    let file = load("rfc8452.json");
    for v in file["vectors"].as_array().unwrap() {
        let hex = |f: &str| hex::decode(v[f].as_str().unwrap()).unwrap();
        for variant in [Variant::CtrDeriveKey, Variant::GcmDeriveKeyA, Variant::GcmDeriveKeyB] {
            let c = SeedCipher::new(variant, &hex("key")).unwrap();
            let i = c.intermediates(&hex("nonce"), b"", b"").unwrap();
            assert_eq!(i.derived_k1, Some(hex("record_authentication_key")), "{}", v["id"]);
            assert_eq!(i.derived_k2, Some(hex("record_encryption_key")), "{}", v["id"]);
        }
    }
}

/// SPEC 6.2: AES-GCM-DK reading (b) is the crate's AES-GCM under K2, bit for
/// bit; reading (a) has the same ciphertext and another tag (only H differs).
#[test]
fn gcm_derive_key_reductions_to_aes_gcm() {
    for backend in backends() {
        for key_len in [16, 32] {
            let (key, nonce) = inputs(Variant::GcmDeriveKeyB, key_len);
            let b = cipher(Variant::GcmDeriveKeyB, &key, backend);
            let a = cipher(Variant::GcmDeriveKeyA, &key, backend);
            let k2 = b.intermediates(&nonce, b"", b"").unwrap().derived_k2.unwrap();
            for len in [0, 1, 16, 17, 128, 129, 1000, 8193] {
                let (aad, msg) = (pattern(len % 37 + 1, 3), pattern(len, 4));
                let gcm = common::Gcm::new(&k2, 16, backend).encrypt(&nonce, &aad, &msg).unwrap();
                let (sb, sa) = (b.seal(&nonce, &aad, &msg).unwrap(), a.seal(&nonce, &aad, &msg).unwrap());
                assert_eq!(sb, gcm, "reading b = AES-GCM under K2, {len} bytes on {backend}");
                assert_eq!(sa[..len], sb[..len], "same ciphertext, {len} bytes on {backend}");
                assert_ne!(sa[len..], sb[len..], "another tag, {len} bytes on {backend}");
            }
        }
    }
}

/// SPEC 6.2: CTR with DeriveKey is GCM-DK's keystream from counter 0 rather
/// than 2: its ciphertext's blocks from the third on are GCM-DK's from the first.
#[test]
fn ctr_derive_key_is_gcm_derive_key_keystream_shifted_by_two_blocks() {
    for backend in backends() {
        for key_len in [16, 32] {
            let (key, nonce) = inputs(Variant::CtrDeriveKey, key_len);
            // Zeros, so that each ciphertext is its keystream.
            let msg = vec![0; 16 * 40 + 5];
            let ctr = cipher(Variant::CtrDeriveKey, &key, backend).seal(&nonce, b"", &msg).unwrap();
            let gcm = cipher(Variant::GcmDeriveKeyB, &key, backend).seal(&nonce, b"", &msg).unwrap();
            assert_eq!(ctr.len(), msg.len(), "no tag");
            assert_eq!(ctr[32..], gcm[..msg.len() - 32], "on {backend}");
        }
    }
}

/// SPEC 6.2: 000 one-key's K1 is AES-GCM's H of K0 (the `h` of gcm_nist.json).
#[test]
fn one_key_2015_hash_key_is_aes_gcm_h() {
    let file = load("gcm_nist.json");
    let mut checked = 0;
    for v in file["vectors"].as_array().unwrap() {
        if v.get("h").is_none() || v["key_bits"] != 128 {
            continue;
        }
        let k0 = hex::decode(v["key"].as_str().unwrap()).unwrap();
        let h = hex::decode(v["h"].as_str().unwrap()).unwrap();
        for variant in
            [Variant::GcmSiv2015OneKey, Variant::GcmSiv2015OneKeyPaper, Variant::DraftGueron00OneKey]
        {
            let i = SeedCipher::new(variant, &k0).unwrap().intermediates(&[0; 16], b"", b"").unwrap();
            assert_eq!(i.hash_key, Some(h.clone()), "{variant} of {}", v["id"]);
        }
        checked += 1;
    }
    assert!(checked >= 6);
}

/// SPEC 6.2: 000's paper reading with empty A and M: GHASH of the one zero
/// length block is 0, so T = AES_K2(N with its GCM-leftmost bit cleared).
#[test]
fn paper_2015_empty_message_tag_is_aes_of_the_masked_nonce() {
    for backend in backends() {
        let (key, mut nonce) = inputs(Variant::GcmSiv2015TwoKeyPaper, 32);
        nonce[0] |= 0x80;
        let tag = cipher(Variant::GcmSiv2015TwoKeyPaper, &key, backend).seal(&nonce, b"", b"").unwrap();
        let mut masked: [u8; 16] = nonce.clone().try_into().unwrap();
        masked[0] &= 0x7f;
        assert_eq!(tag, aes_block(&key[16..], masked), "on {backend}");
    }
}

/// SPEC 6.3: the exact relations between variants.
#[test]
fn relations_between_variants() {
    for backend in backends() {
        for len in [0, 1, 15, 16, 17, 255, 256, 8193] {
            let (aad, msg) = (pattern(len % 23, 5), pattern(len, 6));
            let nonce = pattern(16, 7);
            for key_len in [32, 48] {
                let key = pattern(key_len, 8);
                // draft-gueron-00 and draft-irtf-01 share the AES-128 tag; the
                // first counters differ only in bytes 0..4 (zero in -00).
                let g00 = cipher(Variant::DraftGueron00, &key, backend);
                let i01 = cipher(Variant::DraftIrtf01, &key, backend);
                let (a, b) = (
                    g00.intermediates(&nonce, &aad, &msg).unwrap(),
                    i01.intermediates(&nonce, &aad, &msg).unwrap(),
                );
                assert_eq!(a.initial_counter[..4], [0; 4]);
                if key_len == 32 {
                    assert_eq!(a.tag, b.tag, "{len} on {backend}");
                    assert_eq!(a.initial_counter[4..], b.initial_counter[4..]);
                }
                // GCM-SIV+ is draft-irtf-01 with the record key as its static key.
                let plus_key = [&key[..16], b.record_encryption_key.as_ref().unwrap()].concat();
                let plus = cipher(Variant::GcmSivPlus, &plus_key, backend);
                assert_eq!(
                    plus.seal(&nonce, &aad, &msg).unwrap(),
                    i01.seal(&nonce, &aad, &msg).unwrap(),
                    "GCM-SIV+ = -01 with RK = K, {len} on {backend}"
                );
            }
            for (one, two, k0_len) in [
                (Variant::GcmSiv2015OneKey, Variant::GcmSiv2015TwoKey, 16),
                (Variant::GcmSiv2015OneKeyPaper, Variant::GcmSiv2015TwoKeyPaper, 16),
                (Variant::DraftGueron00OneKey, Variant::DraftGueron00, 16),
                (Variant::DraftGueron00OneKey, Variant::DraftGueron00, 32),
            ] {
                // A one-key form is its two-key form under the derived keys.
                let one = cipher(one, &pattern(k0_len, 9), backend);
                let i = one.intermediates(&nonce, &aad, &msg).unwrap();
                let two = cipher(two, &[i.hash_key.unwrap(), i.aes_key.unwrap()].concat(), backend);
                assert_eq!(one.seal(&nonce, &aad, &msg).unwrap(), two.seal(&nonce, &aad, &msg).unwrap());
            }
        }
    }
}

/// Each variant's key lengths (the first and last).
fn key_lens(variant: Variant) -> [usize; 2] {
    let lens = variant.key_lens();
    [lens[0], lens[lens.len() - 1]]
}

/// SPEC 6.5: round trips at the listed lengths, determinism, every
/// single-bit flip of N, A, C and T refused with nothing released (but the
/// bit the 2015 variants and GCM-SIV+ mask off the nonce, which they
/// ignore: A4).
#[test]
fn round_trips_and_tampering_on_every_backend() {
    for backend in backends() {
        for variant in Variant::ALL {
            for key_len in key_lens(variant) {
                let (key, nonce) = inputs(variant, key_len);
                let c = cipher(variant, &key, backend);
                for len in [0, 1, 15, 16, 17, 255, 256, 8192, 8193] {
                    let aad =
                        if variant == Variant::CtrDeriveKey { vec![] } else { pattern(len % 19 + 1, 1) };
                    let msg = pattern(len, 2);
                    let sealed = c.seal(&nonce, &aad, &msg).unwrap();
                    assert_eq!(sealed, c.seal(&nonce, &aad, &msg).unwrap(), "deterministic");
                    assert_eq!(c.open(&nonce, &aad, &sealed).unwrap(), msg, "{variant} {len} on {backend}");
                    if variant.tag_len() == 0 {
                        continue;
                    }
                    tamper(&c, &nonce, &aad, &sealed, len);
                }
            }
        }
    }
}

/// Every bit of N and A (up to 256-byte messages; a spread of them past
/// that), and of C and T (every bit up to 17-byte messages; the first and
/// last 16 and a spread of the rest past that).
fn tamper(c: &SeedCipher, nonce: &[u8], aad: &[u8], sealed: &[u8], len: usize) {
    let every_bit = len <= 17;
    let spread = if len <= 256 { 1 } else { 29 };
    let id = format!("{} on {}", c.variant(), c.backend());
    let ignored_nonce_bit = match c.variant() {
        // GCM-SIV+ too: no record key uses the nonce's bit 127 either.
        Variant::GcmSiv2015TwoKey | Variant::GcmSiv2015OneKey | Variant::GcmSivPlus => Some(15 * 8 + 7),
        Variant::GcmSiv2015TwoKeyPaper | Variant::GcmSiv2015OneKeyPaper => Some(7),
        _ => None,
    };
    for bit in (0..nonce.len() * 8).step_by(spread) {
        let mut n = nonce.to_vec();
        n[bit / 8] ^= 1 << (bit % 8);
        if Some(bit) == ignored_nonce_bit {
            assert_eq!(
                c.seal(&n, aad, &sealed[..0]).unwrap(),
                c.seal(nonce, aad, &sealed[..0]).unwrap(),
                "{id}"
            );
            continue;
        }
        assert_eq!(c.open(&n, aad, sealed), Err(Error::Authentication), "{id} nonce bit {bit}");
    }
    for bit in (0..aad.len() * 8).step_by(spread) {
        let mut a = aad.to_vec();
        a[bit / 8] ^= 1 << (bit % 8);
        assert_eq!(c.open(nonce, &a, sealed), Err(Error::Authentication), "{id} aad bit {bit}");
    }
    let bits = sealed.len() * 8;
    let chosen: Vec<usize> = if every_bit {
        (0..bits).collect()
    } else {
        (0..16).chain((16..bits - 16).step_by(1999)).chain(bits - 16..bits).collect()
    };
    for bit in chosen {
        let mut s = sealed.to_vec();
        s[bit / 8] ^= 1 << (bit % 8);
        let (ct, tag) = s.split_at(s.len() - 16);
        let mut buffer = ct.to_vec();
        assert_eq!(
            c.open_in_place_detached(nonce, aad, &mut buffer, tag),
            Err(Error::Authentication),
            "{id} bit {bit}"
        );
        assert_eq!(buffer, ct, "{id}: nothing released, the ciphertext put back");
    }
}

/// SPEC 6.5 and STYLE 7: every hardware backend gives the portable one's
/// output, at the lengths where the kernels change and at misalignments 0-3.
#[test]
fn identical_output_across_backends() {
    let all = backends();
    // Every length the short kernels take (up to 128 bytes), and past them.
    let lengths: Vec<usize> = (0..=131).chain(8191..=8193).chain([8208]).collect();
    for variant in Variant::ALL {
        for key_len in key_lens(variant) {
            let (key, nonce) = inputs(variant, key_len);
            let ciphers: Vec<SeedCipher> = all.iter().map(|&b| cipher(variant, &key, b)).collect();
            for &len in &lengths {
                // AAD of 0 to 149 bytes: within the short kernels' 128 and past.
                let aad = if variant == Variant::CtrDeriveKey { vec![] } else { pattern(len * 7 % 150, 3) };
                let msg = pattern(len, 4);
                let expected = ciphers[0].seal(&nonce, &aad, &msg).unwrap();
                for c in &ciphers[1..] {
                    for offset in 0..4 {
                        let mut storage = vec![0u8; len + 4];
                        let buffer = &mut storage[offset..offset + len];
                        buffer.copy_from_slice(&msg);
                        let tag = c.seal_in_place_detached(&nonce, &aad, buffer).unwrap();
                        assert_eq!(
                            [&*buffer, tag.as_bytes()].concat(),
                            expected,
                            "{variant} {len}+{offset} on {}",
                            c.backend()
                        );
                        c.open_in_place_detached(&nonce, &aad, buffer, tag.as_bytes()).unwrap();
                        assert_eq!(buffer, msg.as_slice());
                    }
                }
            }
        }
    }
}

/// Misuse is refused before any work, with the error the contract names.
#[test]
fn misuse_errors() {
    for variant in Variant::ALL {
        let (key, nonce) = inputs(variant, variant.key_lens()[0]);
        assert!(matches!(SeedCipher::new(variant, &key[..7]), Err(Error::InvalidKeyLength { .. })));
        let c = SeedCipher::new(variant, &key).unwrap();
        assert!(matches!(
            c.seal(&nonce[..nonce.len() - 1], b"", b"x"),
            Err(Error::InvalidNonceLength { .. })
        ));
        assert!(matches!(
            c.open(&[nonce.clone(), vec![0]].concat(), b"", &[0; 16]),
            Err(Error::InvalidNonceLength { .. })
        ));
        if variant.tag_len() == 16 {
            assert_eq!(c.open(&nonce, b"", &[0; 15]), Err(Error::CiphertextTooShort));
        }
    }
    let c = SeedCipher::new(Variant::CtrDeriveKey, &[1; 16]).unwrap();
    assert_eq!(c.seal(&[0; 12], b"a", b"x"), Err(Error::AadTooLong));
    assert!(matches!(
        c.open_in_place_detached(&[0; 12], b"", &mut [0; 4], &[0; 16]),
        Err(Error::InvalidTagLength { .. })
    ));
    assert_eq!(Variant::from_name("rfc8452"), None);
    assert!(Variant::ALL.iter().all(|v| Variant::from_name(v.name()) == Some(*v)));
    let debug = format!("{:?}", SeedCipher::new(Variant::DraftIrtf02, &[0xab; 16]).unwrap());
    assert!(
        // "abab": two key bytes in hex ("ab" alone is in "Portable").
        debug.contains("DraftIrtf02") && !debug.contains("171, 171") && !debug.contains("abab"),
        "Debug prints no key: {debug}"
    );
}

/// 002's Table 1 pieces: a key expanded on each backend encrypts as
/// RustCrypto's AES does (FIPS 197's example keys and random ones), for 0 to
/// 9 blocks, under both key sizes.
#[test]
fn aes_parts_expand_and_encrypt_match_another_aes() {
    for backend in backends() {
        for key_len in [16, 32] {
            let parts = AesParts::with_backend(&pattern(key_len, 9), backend).unwrap();
            for (k, key) in
                [(0u8..key_len as u8).collect::<Vec<_>>(), pattern(key_len, 0x5c)].iter().enumerate()
            {
                for count in 0..10 {
                    let mut blocks: Vec<[u8; 16]> =
                        (0..count).map(|i| block(pattern(16, (i * 17 + k) as u8))).collect();
                    let expected: Vec<[u8; 16]> = blocks.iter().map(|b| aes_block(key, *b)).collect();
                    parts.expand_and_encrypt(key, &mut blocks).unwrap();
                    assert_eq!(blocks, expected, "{count} blocks, {key_len}-byte key on {backend}");
                }
            }
            assert!(matches!(
                parts.expand_and_encrypt(&[0; 24], &mut []),
                Err(Error::InvalidKeyLength { expected, actual: 24 }) if expected == key_len
            ));
        }
    }
    // FIPS 197 Appendix C.1.
    let parts = AesParts::with_backend(&[0; 16], Backend::Portable).unwrap();
    let mut b = [block(hex::decode("00112233445566778899aabbccddeeff").unwrap())];
    parts.expand_and_encrypt(&(0u8..16).collect::<Vec<_>>(), &mut b).unwrap();
    assert_eq!(b[0].to_vec(), hex::decode("69c4e0d86a7b0430d8cdb78070b4c55a").unwrap());
}

/// 002's Table 3 baseline: static-key CTR under CTR-DK's derived K2 is
/// CTR-DK's output, at lengths around block and kernel boundaries.
#[test]
fn aes_parts_ctr_under_k2_is_ctr_derive_key() {
    for backend in backends() {
        for key_len in [16, 32] {
            let (key, nonce) = inputs(Variant::CtrDeriveKey, key_len);
            let dk = cipher(Variant::CtrDeriveKey, &key, backend);
            let k2 = dk.intermediates(&nonce, b"", b"").unwrap().derived_k2.unwrap();
            let parts = AesParts::with_backend(&k2, backend).unwrap();
            for len in [0, 1, 15, 16, 17, 127, 128, 129, 255, 256, 8193] {
                let msg = pattern(len, 6);
                let mut ours = msg.clone();
                parts.ctr(&nonce, &mut ours).unwrap();
                assert_eq!(ours, dk.seal(&nonce, b"", &msg).unwrap(), "{len} bytes on {backend}");
                parts.ctr(&nonce, &mut ours).unwrap();
                assert_eq!(ours, msg, "CTR is its own inverse");
            }
            assert!(matches!(parts.ctr(&nonce[..11], &mut [0; 4]), Err(Error::InvalidNonceLength { .. })));
        }
    }
    assert!(matches!(
        AesParts::with_backend(&[0; 24], Backend::Portable),
        Err(Error::InvalidKeyLength { .. })
    ));
    let debug = format!("{:?}", AesParts::with_backend(&[0xab; 16], Backend::Portable).unwrap());
    assert!(debug.contains("128") && !debug.contains("171") && !debug.contains("abab"), "{debug}");
}
