//! Keysets: the wire format of each prefix, rotation, both serializations in the
//! clear and encrypted, and every malformed keyset refused with its reason.

use gcmsiv::{Aes256GcmSiv, Algorithm};
use gcmsiv_keyset::{Error, Format, KeyStatus, Keyset, OutputPrefix, Template};

const ALGORITHMS: [Algorithm; 4] =
    [Algorithm::Aes128GcmSiv, Algorithm::Aes256GcmSiv, Algorithm::Aes128Gcm, Algorithm::Aes256Gcm];
const PREFIXES: [OutputPrefix; 4] =
    [OutputPrefix::Tink, OutputPrefix::Legacy, OutputPrefix::Crunchy, OutputPrefix::Raw];

#[test]
fn ciphertexts_are_prefix_nonce_ciphertext_tag() {
    for algorithm in ALGORITHMS {
        for prefix in PREFIXES {
            let keyset = Keyset::generate(Template::new(algorithm, prefix)).unwrap();
            let id = keyset.primary_key_id();
            let sealed = keyset.encrypt(b"hello", b"ad").unwrap();
            let head: Vec<u8> = match prefix {
                OutputPrefix::Tink => [&[1u8][..], &id.to_be_bytes()].concat(),
                OutputPrefix::Legacy | OutputPrefix::Crunchy => [&[0u8][..], &id.to_be_bytes()].concat(),
                OutputPrefix::Raw => vec![],
            };
            assert_eq!(&sealed[..head.len()], &head[..], "{algorithm:?} {prefix}");
            assert_eq!(sealed.len(), head.len() + 12 + 5 + 16);
            assert_eq!(keyset.decrypt(&sealed, b"ad").unwrap(), b"hello");
            assert!(matches!(keyset.decrypt(&sealed, b"other"), Err(Error::Authentication)));
            assert!(keyset.id_below_2_31());
        }
    }
}

trait IdCheck {
    fn id_below_2_31(&self) -> bool;
}
impl IdCheck for Keyset {
    fn id_below_2_31(&self) -> bool {
        self.keys().iter().all(|k| k.key_id != 0 && k.key_id < 1 << 31)
    }
}

#[test]
fn rotation() {
    let mut keyset = Keyset::generate(Template::AES128_GCM_SIV).unwrap();
    let first = keyset.primary_key_id();
    let old = keyset.encrypt(b"old", b"").unwrap();
    let second = keyset.add(Template::AES256_GCM_SIV).unwrap();
    assert_eq!(keyset.primary_key_id(), first, "a new key is not primary");
    keyset.set_primary(second).unwrap();
    let new = keyset.encrypt(b"new", b"").unwrap();
    assert_eq!(&new[1..5], &second.to_be_bytes());
    assert_eq!(keyset.decrypt(&old, b"").unwrap(), b"old");

    keyset.disable(first).unwrap();
    let err = keyset.decrypt(&old, b"").unwrap_err();
    assert!(
        matches!(err, Error::KeyNotEnabled { key_id, status: KeyStatus::Disabled, .. } if key_id == first)
    );
    assert!(err.to_string().contains(&first.to_string()), "{err}");
    keyset.enable(first).unwrap();
    assert_eq!(keyset.decrypt(&old, b"").unwrap(), b"old");

    keyset.destroy(first).unwrap();
    let err = keyset.decrypt(&old, b"").unwrap_err();
    assert!(matches!(err, Error::KeyNotEnabled { status: KeyStatus::Destroyed, .. }), "{err}");
    assert!(matches!(keyset.enable(first), Err(Error::Refused { .. })));
    let json = keyset.to_cleartext_json();
    let reread = Keyset::from_cleartext_json(&json).unwrap();
    let info = reread.keys();
    assert_eq!(info[0].status, KeyStatus::Destroyed);
    assert_eq!(info[0].algorithm, None, "no material is written for a destroyed key");
    assert_eq!(json.matches("keyData").count(), 1);

    keyset.delete(first).unwrap();
    let err = keyset.decrypt(&old, b"").unwrap_err();
    assert!(matches!(err, Error::KeyNotFound { key_id } if key_id == first), "{err}");
    assert_eq!(keyset.decrypt(&new, b"").unwrap(), b"new");
}

#[test]
fn the_primary_is_protected() {
    let mut keyset = Keyset::generate(Template::AES256_GCM).unwrap();
    let primary = keyset.primary_key_id();
    let other = keyset.add(Template::AES256_GCM).unwrap();
    for result in [keyset.disable(primary), keyset.destroy(primary), keyset.delete(primary)] {
        assert!(matches!(result, Err(Error::Refused { key_id, .. }) if key_id == primary));
    }
    keyset.disable(other).unwrap();
    assert!(matches!(keyset.set_primary(other), Err(Error::Refused { .. })));
    assert!(matches!(keyset.set_primary(7), Err(Error::UnknownKeyId(7))));
    assert!(matches!(keyset.destroy(7), Err(Error::UnknownKeyId(7))));
    keyset.destroy(other).unwrap();
    assert!(matches!(keyset.disable(other), Err(Error::Refused { .. })));
}

#[test]
fn raw_keys_are_tried_after_the_prefix() {
    let mut keyset = Keyset::generate(Template::AES128_GCM_RAW).unwrap();
    let raw = keyset.primary_key_id();
    let from_raw = keyset.encrypt(b"raw", b"x").unwrap();
    let tink = keyset.add(Template::AES128_GCM_SIV).unwrap();
    keyset.set_primary(tink).unwrap();
    assert_eq!(keyset.decrypt(&from_raw, b"x").unwrap(), b"raw");
    // A prefix naming no key, with a RAW key present: only "authentication failed".
    let mut unknown = keyset.encrypt(b"m", b"").unwrap();
    unknown[1..5].copy_from_slice(&(tink ^ 1).to_be_bytes());
    assert!(matches!(keyset.decrypt(&unknown, b""), Err(Error::Authentication)));
    keyset.disable(raw).unwrap();
    assert!(matches!(keyset.decrypt(&from_raw, b"x"), Err(Error::Authentication)));
    for short in [&[][..], &[1, 0, 0, 0][..], &[1; 5][..], &[1; 20][..]] {
        assert!(keyset.decrypt(short, b"").is_err());
    }
}

fn round_trip(keyset: &Keyset, reread: &Keyset, sealed: &[Vec<u8>]) {
    assert_eq!(keyset.keys(), reread.keys());
    assert_eq!(keyset.primary_key_id(), reread.primary_key_id());
    for s in sealed {
        assert_eq!(reread.decrypt(s, b"ad").unwrap(), b"msg");
    }
}

fn mixed() -> (Keyset, Vec<Vec<u8>>) {
    let mut keyset = Keyset::generate(Template::AES128_GCM_SIV).unwrap();
    let mut sealed = vec![keyset.encrypt(b"msg", b"ad").unwrap()];
    for algorithm in ALGORITHMS {
        for prefix in PREFIXES {
            let id = keyset.add(Template::new(algorithm, prefix)).unwrap();
            keyset.set_primary(id).unwrap();
            sealed.push(keyset.encrypt(b"msg", b"ad").unwrap());
        }
    }
    let spare = keyset.add(Template::AES256_GCM_SIV).unwrap();
    keyset.disable(spare).unwrap();
    let gone = keyset.add(Template::AES256_GCM_SIV).unwrap();
    keyset.destroy(gone).unwrap();
    (keyset, sealed)
}

#[test]
fn cleartext_round_trips() {
    let (keyset, sealed) = mixed();
    round_trip(&keyset, &Keyset::from_cleartext_json(&keyset.to_cleartext_json()).unwrap(), &sealed);
    round_trip(&keyset, &Keyset::from_cleartext_binary(&keyset.to_cleartext_binary()).unwrap(), &sealed);
    for format in [Format::Json, Format::Binary] {
        let bytes = keyset.to_cleartext(format);
        assert_eq!(Format::detect(&bytes), format);
        round_trip(&keyset, &Keyset::from_cleartext(&bytes, format).unwrap(), &sealed);
    }
}

#[test]
fn encrypted_round_trips() {
    let (keyset, sealed) = mixed();
    let kek = Aes256GcmSiv::new(&[9; 32]);
    let json = keyset.to_encrypted_json(&kek).unwrap();
    assert!(json.contains("\"encryptedKeyset\"") && json.contains("\"keysetInfo\""));
    assert!(!json.contains("keyData"));
    round_trip(&keyset, &Keyset::from_encrypted_json(&json, &kek).unwrap(), &sealed);
    let binary = keyset.to_encrypted_binary(&kek).unwrap();
    round_trip(&keyset, &Keyset::from_encrypted_binary(&binary, &kek).unwrap(), &sealed);
    let with_ad = keyset.to_encrypted(Format::Binary, &kek, b"context").unwrap();
    round_trip(
        &keyset,
        &Keyset::from_encrypted(&with_ad, Format::Binary, &kek, b"context").unwrap(),
        &sealed,
    );
    assert!(matches!(Keyset::from_encrypted_binary(&with_ad, &kek), Err(Error::KeyEncryption(_))));

    let wrong = Aes256GcmSiv::new(&[8; 32]);
    assert!(matches!(Keyset::from_encrypted_json(&json, &wrong), Err(Error::KeyEncryption(_))));
    // A keyset can seal another, as Tink's keyset AEADs do.
    let outer = Keyset::generate(Template::AES256_GCM_SIV).unwrap();
    let sealed_by_keyset = keyset.to_encrypted_json(&outer).unwrap();
    round_trip(&keyset, &Keyset::from_encrypted_json(&sealed_by_keyset, &outer).unwrap(), &sealed);
    // Cleartext and encrypted are not confused.
    assert!(matches!(
        Keyset::from_encrypted_json(&keyset.to_cleartext_json(), &kek),
        Err(Error::Malformed(_))
    ));
    let err = Keyset::from_cleartext_json(&json).unwrap_err();
    assert!(err.to_string().contains("encrypted keyset"), "{err}");
}

#[test]
fn key_file_kek_is_hkdf_of_the_secret() {
    let kek = gcmsiv_keyset::key_file_kek(&[1; 32]);
    let other = gcmsiv_keyset::key_file_kek(&[2; 32]);
    let sealed = gcmsiv_keyset::KeyEncryption::encrypt(&kek, b"keyset", b"").unwrap();
    assert!(gcmsiv_keyset::KeyEncryption::decrypt(&other, &sealed, b"").is_err());
    let direct = Aes256GcmSiv::new(&[1; 32]);
    assert!(
        gcmsiv_keyset::KeyEncryption::decrypt(&direct, &sealed, b"").is_err(),
        "derived, not the secret itself"
    );
    assert_eq!(&*gcmsiv_keyset::KeyEncryption::decrypt(&kek, &sealed, b"").unwrap(), b"keyset");
}

#[test]
fn debug_shows_no_key_material() {
    let keyset = Keyset::generate(Template::AES256_GCM_SIV).unwrap();
    let json = keyset.to_cleartext_json();
    let value_start = json.find("\"value\": \"").unwrap() + 10;
    let value = &json[value_start..value_start + 20];
    let debug = format!("{keyset:?}");
    assert!(!debug.contains(value), "{debug}");
    assert!(debug.contains(&keyset.primary_key_id().to_string()));
}

/// A keyset in Tink's JSON with one key of the given fields.
fn one_key(type_url: &str, value: &str, status: &str, prefix: &str, id: u32, primary: u32) -> String {
    format!(
        r#"{{"primaryKeyId": {primary}, "key": [{{"keyData": {{"typeUrl": "{type_url}", "value": "{value}",
        "keyMaterialType": "SYMMETRIC"}}, "status": "{status}", "keyId": {id}, "outputPrefixType": "{prefix}"}}]}}"#
    )
}

/// Base64 of a serialized `AesGcmSivKey`/`AesGcmKey` {version, key_value of n bytes}.
fn key_value(version: u8, n: usize) -> String {
    use base64::Engine;
    let mut bytes = vec![];
    if version != 0 {
        bytes.extend([0x08, version]);
    }
    bytes.extend([0x1a, n as u8]);
    bytes.extend(std::iter::repeat_n(7u8, n));
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

const SIV: &str = "type.googleapis.com/google.crypto.tink.AesGcmSivKey";
const GCM: &str = "type.googleapis.com/google.crypto.tink.AesGcmKey";

#[test]
fn malformed_keysets_are_refused_with_their_reason() {
    let good = one_key(SIV, &key_value(0, 16), "ENABLED", "TINK", 5, 5);
    Keyset::from_cleartext_json(&good).unwrap();
    let cases: Vec<(String, &str)> = vec![
        (
            one_key(
                "type.googleapis.com/google.crypto.tink.HmacKey",
                &key_value(0, 16),
                "ENABLED",
                "TINK",
                5,
                5,
            ),
            "HmacKey",
        ),
        (one_key(SIV, &key_value(0, 24), "ENABLED", "TINK", 5, 5), "24-byte"),
        (one_key(GCM, &key_value(0, 15), "ENABLED", "TINK", 5, 5), "15-byte"),
        (one_key(GCM, &key_value(1, 16), "ENABLED", "TINK", 5, 5), "version 1"),
        (one_key(SIV, &key_value(0, 16), "ENABLED", "TINK", 5, 6), "primary key id 6"),
        (one_key(SIV, &key_value(0, 16), "ENABLED", "TINK", 5, 0), "primary key id 0"),
        (one_key(SIV, &key_value(0, 16), "DISABLED", "TINK", 5, 5), "primary key 5 is disabled"),
        (one_key(SIV, &key_value(0, 16), "DESTROYED", "TINK", 5, 5), "no key that is not destroyed"),
        (one_key(SIV, &key_value(0, 16), "UNKNOWN_STATUS", "TINK", 5, 5), "status"),
        (one_key(SIV, &key_value(0, 16), "ENABLED", "UNKNOWN_PREFIX", 5, 5), "prefix"),
        (one_key(SIV, &key_value(0, 16), "ENABLED", "SOMETHING", 5, 5), "SOMETHING"),
        (one_key(SIV, "***", "ENABLED", "TINK", 5, 5), "Base64"),
        (one_key(SIV, "AAAA", "ENABLED", "TINK", 5, 5), "key 5"),
        (good.replace("SYMMETRIC", "REMOTE"), "material type"),
        (r#"{"primaryKeyId": 1, "key": []}"#.to_string(), "no key"),
        (
            r#"{"primaryKeyId": 1, "key": [{"status": "ENABLED", "keyId": 1, "outputPrefixType": "TINK"}]}"#
                .to_string(),
            "no key data",
        ),
        ("not json".to_string(), "JSON"),
        ("[1, 2]".to_string(), "JSON"),
        (r#"{"primaryKeyId": "x"}"#.to_string(), "number"),
        (r#"{"primaryKeyId": 99999999999}"#.to_string(), "range"),
    ];
    for (json, reason) in cases {
        let err = Keyset::from_cleartext_json(&json).expect_err(&json);
        assert!(err.to_string().contains(reason), "{json}: {err} (expected {reason:?})");
    }
    let twice = r#"{"primaryKeyId": 5, "key": [@, @]}"#.replace(
        '@',
        &format!(
            r#"{{"keyData": {{"typeUrl": "{SIV}", "value": "{}", "keyMaterialType": "SYMMETRIC"}}, "status": "ENABLED", "keyId": 5, "outputPrefixType": "RAW"}}"#,
            key_value(0, 32)
        ),
    );
    assert!(matches!(Keyset::from_cleartext_json(&twice), Err(Error::DuplicateKeyId(5))));

    for bytes in [&b"\xff\xff\xff"[..], b"\x12\x05\x0a", b"\x08", &[0x12, 0x80, 0x80, 0x80, 0x80, 0x10]] {
        let err = Keyset::from_cleartext_binary(bytes).unwrap_err();
        assert!(matches!(err, Error::Malformed(_)), "{err}");
    }
    assert!(matches!(Keyset::from_cleartext_binary(b""), Err(Error::Empty)));
}

#[test]
fn what_protobuf_json_allows_is_read() {
    // snake_case names, enums as numbers, ids as strings, URL-safe unpadded Base64,
    // and an id above 2^31 written as a negative Java int.
    let value = key_value(0, 32).replace('+', "-").replace('/', "_").trim_end_matches('=').to_string();
    let json = format!(
        r#"{{"primary_key_id": -2, "key": [{{"key_data": {{"type_url": "{GCM}", "value": "{value}",
        "key_material_type": 1}}, "status": 1, "key_id": "4294967294", "output_prefix_type": 3}}]}}"#
    );
    let keyset = Keyset::from_cleartext_json(&json).unwrap();
    assert_eq!(keyset.primary_key_id(), 0xffff_fffe);
    assert_eq!(keyset.keys()[0].algorithm, Some(Algorithm::Aes256Gcm));
    assert_eq!(keyset.keys()[0].prefix, OutputPrefix::Raw);
}
