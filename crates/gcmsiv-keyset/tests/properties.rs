//! Properties: any plaintext and associated data round-trip through any
//! template; any bytes given as a keyset or a ciphertext give an error or a
//! result, never a panic.

use gcmsiv::{Aes128GcmSiv, Algorithm};
use gcmsiv_keyset::{Format, Keyset, OutputPrefix, Template};
use proptest::prelude::*;

fn template() -> impl Strategy<Value = Template> {
    let algorithm = prop_oneof![
        Just(Algorithm::Aes128GcmSiv),
        Just(Algorithm::Aes256GcmSiv),
        Just(Algorithm::Aes128Gcm),
        Just(Algorithm::Aes256Gcm)
    ];
    let prefix = prop_oneof![
        Just(OutputPrefix::Tink),
        Just(OutputPrefix::Legacy),
        Just(OutputPrefix::Crunchy),
        Just(OutputPrefix::Raw)
    ];
    (algorithm, prefix).prop_map(|(a, p)| Template::new(a, p))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn round_trip(templates in proptest::collection::vec(template(), 1..5),
                  plaintext in proptest::collection::vec(any::<u8>(), 0..300),
                  ad in proptest::collection::vec(any::<u8>(), 0..40)) {
        let mut keyset = Keyset::generate(templates[0]).unwrap();
        let mut sealed = vec![keyset.encrypt(&plaintext, &ad).unwrap()];
        for t in &templates[1..] {
            let id = keyset.add(*t).unwrap();
            keyset.set_primary(id).unwrap();
            sealed.push(keyset.encrypt(&plaintext, &ad).unwrap());
        }
        let reread = Keyset::from_cleartext_binary(&keyset.to_cleartext_binary()).unwrap();
        for s in &sealed {
            prop_assert_eq!(&reread.decrypt(s, &ad).unwrap(), &plaintext);
            let mut flipped = s.clone();
            let last = flipped.len() - 1;
            flipped[last] ^= 1;
            prop_assert!(reread.decrypt(&flipped, &ad).is_err());
        }
    }

    #[test]
    fn any_bytes_as_a_keyset(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let _ = Keyset::from_cleartext_binary(&bytes);
        let _ = Keyset::from_cleartext(&bytes, Format::Json);
        let kek = Aes128GcmSiv::new(&[1; 16]);
        let _ = Keyset::from_encrypted_binary(&bytes, &kek);
        let _ = Keyset::from_encrypted(&bytes, Format::Json, &kek, b"");
    }

    #[test]
    fn any_bytes_as_a_ciphertext(bytes in proptest::collection::vec(any::<u8>(), 0..80), t in template()) {
        let keyset = Keyset::generate(t).unwrap();
        prop_assert!(keyset.decrypt(&bytes, b"").is_err());
    }

    /// A Tink keyset with one field changed anywhere: an error or a valid keyset.
    #[test]
    fn mutated_keysets(position in any::<prop::sample::Index>(), byte in any::<u8>(), t in template()) {
        let keyset = Keyset::generate(t).unwrap();
        let mut bytes = keyset.to_cleartext_binary().to_vec();
        let i = position.index(bytes.len());
        bytes[i] = byte;
        if let Ok(k) = Keyset::from_cleartext_binary(&bytes) {
            let sealed = k.encrypt(b"m", b"").unwrap();
            prop_assert_eq!(k.decrypt(&sealed, b"").unwrap(), b"m");
        }
        let mut json = keyset.to_cleartext_json().as_bytes().to_vec();
        let i = position.index(json.len());
        json[i] = byte;
        let _ = Keyset::from_cleartext(&json, Format::Json);
    }
}
