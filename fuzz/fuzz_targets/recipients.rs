//! Recipient and identity parsing, and encryption to what parses
//! (docs/FORMAT.md, "Recipient and identity strings"):
//!
//! - no parser panics on any text (strings, recipients files, identity
//!   files), and an error never quotes an identity line;
//! - every recipient that parses can be encrypted to (a key of small order
//!   must be refused when parsed, never reach HPKE), alone or in a list of
//!   up to 256, all of one kind or, by name, mixed; mixing without the name
//!   is refused;
//! - every identity that parses opens what is encrypted to its recipient,
//!   and prints back to a string that parses to the same identity.
//!
//! The first input byte chooses what the rest is parsed as.

#![no_main]

use std::io::Read;

use gcmsiv_stream::{Decryptor, Encryptor, Identity, Options, Recipient, Secret};
use libfuzzer_sys::fuzz_target;

const PLAINTEXT: &[u8] = b"fuzzed recipients";

fn seal(secret: &Secret) -> Result<Vec<u8>, gcmsiv_stream::Error> {
    let options = Options::new().chunk_size(1024).expect("a valid chunk size");
    let mut encryptor = Encryptor::new(Vec::new(), secret, &options)?;
    std::io::Write::write_all(&mut encryptor, PLAINTEXT).expect("writing to memory");
    Ok(encryptor.finish().expect("finishing into memory"))
}

fn open(file: &[u8], identities: Vec<Identity>) -> Vec<u8> {
    let mut out = Vec::new();
    Decryptor::new(file, &Secret::Identities(identities))
        .expect("a file to these identities opens")
        .read_to_end(&mut out)
        .expect("and decrypts");
    out
}

/// Encrypts to `recipients` as the library's rules say it must go.
fn encrypt_to(recipients: Vec<Recipient>) -> Option<Vec<u8>> {
    if recipients.is_empty() || recipients.len() > gcmsiv_stream::format::MAX_STANZAS {
        assert!(seal(&Secret::Recipients(recipients)).is_err(), "0 or over 256 recipients must be refused");
        return None;
    }
    let mixed = recipients.iter().any(|r| r.kind() != recipients[0].kind());
    if mixed {
        assert!(seal(&Secret::Recipients(recipients.clone())).is_err(), "mixed kinds must be refused");
        return Some(seal(&Secret::MixedRecipients(recipients)).expect("mixed by name encrypts"));
    }
    Some(seal(&Secret::Recipients(recipients)).expect("every parsed recipient encrypts"))
}

fn check_identities(identities: Vec<Identity>) {
    for identity in &identities {
        let again = Identity::parse(&identity.to_secret_string()).expect("a printed identity parses");
        assert!(again.recipient() == identity.recipient());
    }
    let recipients: Vec<Recipient> = identities.iter().take(8).map(Identity::recipient).collect();
    if let Some(file) = encrypt_to(recipients) {
        assert_eq!(open(&file, identities.into_iter().take(8).collect()), PLAINTEXT);
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&choice, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    match choice % 4 {
        0 => {
            if let Ok(recipient) = Recipient::parse(&text) {
                assert!(Recipient::parse(&recipient.to_string()).as_ref() == Ok(&recipient));
                encrypt_to(vec![recipient]);
            }
        }
        1 => {
            if let Ok(identity) = Identity::parse(&text) {
                check_identities(vec![identity]);
            }
        }
        2 => match Recipient::parse_list(&text) {
            Ok(list) => {
                encrypt_to(list);
            }
            Err(why) => assert!(why.starts_with("line "), "{why}"),
        },
        _ => match Identity::parse_list(&text) {
            Ok(list) => check_identities(list),
            Err(why) => {
                // The reason names the line and never quotes it.
                let secret_lines = text
                    .lines()
                    .map(str::trim)
                    .filter(|l| l.len() > 20 && l.as_bytes()[..18].eq_ignore_ascii_case(b"gcmsiv-secret-key-"));
                for line in secret_lines {
                    assert!(!why.contains(line), "an identity error quoted its input");
                }
            }
        },
    }
});
