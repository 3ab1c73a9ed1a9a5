//! Keysets and ciphertexts made by Tink itself (vectors/tink_keysets.json, see
//! vectors/README.md): each keyset is read, each ciphertext opens, and the
//! keyset written back reads the same. scripts/test-keyset-tink.sh runs Tink
//! live, both ways; this keeps the known answers in every `cargo test`.

use std::path::PathBuf;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use gcmsiv_keyset::{Format, Keyset};

fn vectors_dir() -> PathBuf {
    std::env::var_os("GCMSIV_VECTORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors"))
}

fn b64(value: &serde_json::Value) -> Vec<u8> {
    STANDARD.decode(value.as_str().expect("a Base64 string")).expect("Base64")
}

#[test]
fn tink_keysets_and_ciphertexts() {
    let text = std::fs::read_to_string(vectors_dir().join("tink_keysets.json")).unwrap();
    let file: serde_json::Value = serde_json::from_str(&text).unwrap();
    let cases = file["cases"].as_array().unwrap();
    assert!(cases.len() >= 17, "every algorithm and prefix, and the keyset of all");
    let mut opened = 0;
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let format = if case["format"] == "json" { Format::Json } else { Format::Binary };
        let bytes = b64(&case["keyset"]);
        assert_eq!(Format::detect(&bytes), format, "{name}");
        let keyset = Keyset::from_cleartext(&bytes, format).unwrap_or_else(|e| panic!("{name}: {e}"));
        let again = Keyset::from_cleartext(&keyset.to_cleartext(format), format).unwrap();
        assert_eq!(keyset.keys(), again.keys(), "{name}");
        if format == Format::Binary {
            assert_eq!(&keyset.to_cleartext(format)[..], &bytes[..], "{name}: Tink's bytes, written back");
        }
        for ct in case["ciphertexts"].as_array().unwrap() {
            let plaintext =
                keyset.decrypt(&b64(&ct["ct"]), &b64(&ct["ad"])).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(plaintext, b64(&ct["pt"]), "{name}");
            opened += 1;
        }
    }
    assert!(opened >= 50, "{opened} ciphertexts");
}
