//! Tink keysets (crates/gcmsiv-keyset) on arbitrary input:
//!
//! - no reader panics on any bytes: cleartext JSON and binary, encrypted JSON
//!   and binary (under a fixed key-encryption key, so that sealed inputs in the
//!   seeds reach the keyset parser);
//! - every keyset that is accepted writes back, in both formats, to a keyset
//!   with the same keys, and what its primary encrypts, it decrypts;
//! - decryption of arbitrary bytes by a keyset with a key of every prefix type
//!   (RAW among them) ends in an error, never a panic.
//!
//! The first input byte chooses what the rest is read as.

#![no_main]

use std::sync::OnceLock;

use gcmsiv::{Aes256GcmSiv, Algorithm};
use gcmsiv_keyset::{Format, Keyset, OutputPrefix, Template};
use libfuzzer_sys::fuzz_target;

fn kek() -> Aes256GcmSiv {
    Aes256GcmSiv::new(&[0x4b; 32])
}

/// A keyset with a key of each prefix type, made once per process.
fn mixed() -> &'static Keyset {
    static KEYSET: OnceLock<Keyset> = OnceLock::new();
    KEYSET.get_or_init(|| {
        let mut keyset = Keyset::generate(Template::AES128_GCM_SIV).expect("a keyset");
        for prefix in [OutputPrefix::Legacy, OutputPrefix::Crunchy, OutputPrefix::Raw] {
            keyset.add(Template::new(Algorithm::Aes256Gcm, prefix)).expect("a key");
        }
        keyset
    })
}

fn check(keyset: &Keyset) {
    for format in [Format::Json, Format::Binary] {
        let again =
            Keyset::from_cleartext(&keyset.to_cleartext(format), format).expect("written back, read back");
        assert_eq!(again.keys(), keyset.keys());
        assert_eq!(again.primary_key_id(), keyset.primary_key_id());
    }
    let sealed = keyset.encrypt(b"fuzz", b"ad").expect("the primary encrypts");
    assert_eq!(keyset.decrypt(&sealed, b"ad").expect("and decrypts"), b"fuzz");
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    let read = match mode % 5 {
        0 => Keyset::from_cleartext(rest, Format::Json),
        1 => Keyset::from_cleartext(rest, Format::Binary),
        2 => Keyset::from_encrypted(rest, Format::Json, &kek(), b""),
        3 => Keyset::from_encrypted(rest, Format::Binary, &kek(), b""),
        _ => {
            let _ = mixed().decrypt(rest, b"");
            return;
        }
    };
    if let Ok(keyset) = read {
        check(&keyset);
    }
});
