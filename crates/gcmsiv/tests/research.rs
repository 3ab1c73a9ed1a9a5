//! The research module (feature `research`): every vector of
//! `seed_variants.json`, every field of it, on every backend; and the checks
//! of the seeds' SPEC.md section 6 that need no vectors: the reductions to
//! RFC 8452 and SP 800-38D parts, the exact relations between variants,
//! round trips and tampering, identical output across backends.
#![cfg(feature = "research")]

mod common;

use common::{Record, backends, load, pattern, records};
use gcmsiv::research::{Intermediates, SeedCipher, Variant};
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
    let prefix = if variant.key_lens()[0] == 32 && key.len() != 16 && has_hash_prefix(variant) { 16 } else { 0 };
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
        assert_eq!(c.open_in_place_detached(&nonce, &aad, &mut buffer, &forged), Err(Error::Authentication), "{id}");
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
        let key_bytes: Vec<usize> =
            meta.value("key_bytes").as_array().unwrap().iter().map(|v| v.as_u64().unwrap() as usize).collect();
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
                    let documented = documented.as_object().unwrap().keys().any(|d| d.contains(field.as_str()));
                    assert!(documented || VECTOR_FIELDS.contains(&field.as_str()), "{}: undocumented {field}", r.name);
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
