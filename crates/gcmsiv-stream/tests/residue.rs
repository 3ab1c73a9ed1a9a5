//! What deriving a file's keys leaves behind: after a writer or reader is made
//! (and used, and dropped), the stack its frames used holds no copy of HKDF's
//! PRK, of the header MAC key, or of the HMAC key blocks keyed by them (the key
//! XOR ipad/opad that HMAC hashes first), of the master key, or of the payload
//! key (the first round keys of its schedule); for files to recipients, of
//! the identity's private key and the file key either. The HMAC and
//! SHA-256 states wipe themselves on drop (the crates' `zeroize` features);
//! this finds them if they ever stop doing so.
//!
//! As in the core crate's residue test, the check is one of optimized builds
//! (`cargo test --release`; `scripts/test.sh` runs it so): unoptimized
//! builds pass values through the stack that an optimized build keeps in
//! registers, so there the test is ignored.

// The stack helpers are written for x86-64 and AArch64 (elsewhere
// `residue_elsewhere.rs` reports the check as ignored, not passed).
#![cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]

use std::io::Read;

use gcmsiv_stream::{Decryptor, Encryptor, Identity, MasterKey, Options, Secret};
use hkdf::Hkdf;
use sha2::Sha256;

const DEPTH: usize = 64 * 1024;

#[path = "../../gcmsiv/tests/stack/mod.rs"]
mod stack;

use stack::run_and_snapshot;

/// The secrets of a key-file mode file with this master key and header salt,
/// 16-byte prefixes of each: what the search looks for.
fn secrets(master: &[u8; 32], salt: &[u8]) -> Vec<(&'static str, [u8; 16])> {
    secrets_with(master, salt, b"gcmsiv v1 header key", b"gcmsiv v1 payload key")
}

/// The same for input keying material `master` (a version 2 file key) and the
/// version's labels.
fn secrets_with(
    master: &[u8; 32],
    salt: &[u8],
    header_label: &[u8],
    payload_label: &[u8],
) -> Vec<(&'static str, [u8; 16])> {
    let (prk, hkdf) = Hkdf::<Sha256>::extract(Some(salt), master);
    let mut header_key = [0u8; 32];
    hkdf.expand(header_label, &mut header_key).unwrap();
    // AES-256-GCM-SIV (the default): the payload key is its schedule's first
    // two round keys.
    let mut payload_key = [0u8; 32];
    hkdf.expand_multi_info(&[payload_label, &[31]], &mut payload_key).unwrap();
    let prefix = |bytes: &[u8]| -> [u8; 16] { bytes[..16].try_into().unwrap() };
    let pad = |key: &[u8], byte: u8| -> [u8; 16] { std::array::from_fn(|i| key[i] ^ byte) };
    vec![
        ("master key", prefix(master)),
        ("PRK", prefix(&prk)),
        ("PRK ^ ipad", pad(&prk, 0x36)),
        ("PRK ^ opad", pad(&prk, 0x5c)),
        ("header key", prefix(&header_key)),
        ("header key ^ ipad", pad(&header_key, 0x36)),
        ("header key ^ opad", pad(&header_key, 0x5c)),
        ("payload key", prefix(&payload_key)),
        ("payload key (second half)", prefix(&payload_key[16..])),
    ]
}

fn assert_absent(stack: &[u8], secrets: &[(&str, [u8; 16])], what: &str) {
    let found: Vec<&str> = secrets
        .iter()
        .filter(|(_, secret)| stack.windows(16).any(|w| w == secret))
        .map(|(name, _)| *name)
        .collect();
    assert!(found.is_empty(), "{what}: copies of {found:?} are left on the stack");
}

#[test]
#[cfg_attr(debug_assertions, ignore = "a property of optimized builds: run with --release")]
fn making_a_writer_or_a_reader_leaves_no_key_material_on_the_stack() {
    let master = [0x5au8; 32];
    let secret = Secret::Key(MasterKey::from_bytes(&master));
    let options = Options::new().parallel(false);
    let mut file = Vec::new();
    let mut stack = vec![0u8; DEPTH];
    run_and_snapshot(
        &mut || {
            let encryptor = Encryptor::new(Vec::new(), &secret, &options).unwrap();
            file = encryptor.finish().unwrap();
        },
        &mut stack,
    );
    let salt = &file[22..54];
    let secrets = secrets(&master, salt);
    assert_absent(&stack, &secrets, "Encryptor::new");

    run_and_snapshot(
        &mut || {
            let mut out = Vec::new();
            Decryptor::new(&file[..], &secret).unwrap().parallel(false).read_to_end(&mut out).unwrap();
        },
        &mut stack,
    );
    assert_absent(&stack, &secrets, "Decryptor::new");
}

/// The file key a stanza wraps, opened with HPKE directly (as docs/FORMAT.md says).
fn file_key_of(file: &[u8], identity_secret: &[u8; 32]) -> [u8; 32] {
    use hpke::aead::ChaCha20Poly1305;
    use hpke::kdf::HkdfSha256;
    use hpke::kem::{X25519HkdfSha256, XWing};
    use hpke::{Deserializable, Kem, OpModeR};
    fn open<K: Kem>(sk: &[u8], enc: &[u8], wrapped: &[u8], aad: &[u8]) -> Vec<u8> {
        let sk = K::PrivateKey::from_bytes(sk).unwrap();
        let enc = K::EncappedKey::from_bytes(enc).unwrap();
        hpke::single_shot_open::<ChaCha20Poly1305, HkdfSha256, K>(
            &OpModeR::Base,
            &sk,
            &enc,
            b"gcmsiv v2 file key",
            wrapped,
            aad,
        )
        .unwrap()
    }
    let aad = &file[..44];
    let key = match file[44] {
        1 => open::<X25519HkdfSha256>(identity_secret, &file[45..77], &file[77..125], aad),
        _ => open::<XWing>(identity_secret, &file[45..1165], &file[1165..1213], aad),
    };
    key.try_into().unwrap()
}

#[test]
#[cfg_attr(debug_assertions, ignore = "a property of optimized builds: run with --release")]
fn recipients_leave_no_identity_or_file_key_on_the_stack() {
    use bech32::{Bech32, Hrp};
    for hrp in ["gcmsiv-secret-key-", "gcmsiv-secret-key-pq-"] {
        let identity_secret = [0xa7u8; 32];
        let text = bech32::encode_upper::<Bech32>(Hrp::parse(hrp).unwrap(), &identity_secret).unwrap();
        let identity = Identity::parse(&text).unwrap();
        let to = Secret::Recipients(vec![identity.recipient()]);
        let with = Secret::Identities(vec![identity]);
        let options = Options::new().parallel(false);
        let mut file = Vec::new();
        let mut stack = vec![0u8; DEPTH];
        run_and_snapshot(
            &mut || {
                let encryptor = Encryptor::new(Vec::new(), &to, &options).unwrap();
                file = encryptor.finish().unwrap();
            },
            &mut stack,
        );
        let file_key = file_key_of(&file, &identity_secret);
        let mut secrets =
            secrets_with(&file_key, &file[10..42], b"gcmsiv v2 header key", b"gcmsiv v2 payload key");
        secrets[0].0 = "file key";
        secrets.push(("identity", identity_secret[..16].try_into().unwrap()));
        assert_absent(&stack, &secrets, &format!("Encryptor::new to {hrp}"));

        run_and_snapshot(
            &mut || {
                let mut out = Vec::new();
                Decryptor::new(&file[..], &with).unwrap().parallel(false).read_to_end(&mut out).unwrap();
            },
            &mut stack,
        );
        assert_absent(&stack, &secrets, &format!("Decryptor::new with {hrp}"));
    }
}
