//! `gcmsiv keyset`: a keyset made, rotated and used through the real binary,
//! encrypted under a key file or in the clear, and the keysets Tink made
//! (vectors/tink_keysets.json) read and their ciphertexts opened.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use common::{assert_fails, assert_ok, gcmsiv, run, run_with_input, stderr};
use tempfile::TempDir;

fn keyset(dir: &Path, access: &[&str], args: &[&str]) -> Output {
    let mut cmd = gcmsiv();
    cmd.current_dir(dir).arg("keyset").arg(args[0]).args(access).args(&args[1..]);
    run(cmd)
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Key ids from `keyset list`, with whether each is primary and its status.
fn listed(dir: &Path, access: &[&str], file: &str) -> Vec<(bool, u32, String)> {
    let out = keyset(dir, access, &["list", file]);
    assert_ok(&out);
    stdout(&out)
        .lines()
        .skip(2)
        .map(|line| {
            let primary = line.starts_with('*');
            let mut words = line.trim_start_matches('*').split_whitespace();
            let id = words.next().unwrap().parse().unwrap();
            (primary, id, words.next().unwrap().to_string())
        })
        .collect()
}

fn setup() -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_path_buf();
    let out = run({
        let mut c = gcmsiv();
        c.current_dir(&path).args(["keygen", "-o", "m.key"]);
        c
    });
    assert_ok(&out);
    fs::write(path.join("msg"), b"attack at dawn").unwrap();
    (dir, path)
}

#[test]
fn rotation_under_a_master_key() {
    let (_tmp, dir) = setup();
    let mk: &[&str] = &["--master-key", "m.key"];
    assert_ok(&keyset(&dir, mk, &["new", "-o", "ks.json"]));
    let text = fs::read_to_string(dir.join("ks.json")).unwrap();
    assert!(text.contains("encryptedKeyset") && !text.contains("keyData"), "{text}");
    assert_fails(&keyset(&dir, mk, &["new", "-o", "ks.json"]), 2, "already exists");
    let first = listed(&dir, mk, "ks.json")[0].1;

    assert_ok(&keyset(&dir, mk, &["encrypt", "ks.json", "msg", "-o", "old.bin", "--associated-data", "ctx"]));
    let out = keyset(&dir, mk, &["add", "ks.json", "--template", "AES128_GCM", "--prefix", "legacy"]);
    assert_ok(&out);
    let second: u32 = stdout(&out).trim().parse().unwrap();
    assert_eq!(
        listed(&dir, mk, "ks.json"),
        vec![(true, first, "enabled".to_string()), (false, second, "enabled".to_string())]
    );
    assert_ok(&keyset(&dir, mk, &["promote", "ks.json", &second.to_string()]));
    assert_ok(&keyset(&dir, mk, &["encrypt", "ks.json", "msg", "-o", "new.bin", "--associated-data", "ctx"]));
    let new = fs::read(dir.join("new.bin")).unwrap();
    assert_eq!(new[0], 0, "LEGACY prefix");
    assert_eq!(&new[1..5], &second.to_be_bytes());

    for file in ["old.bin", "new.bin"] {
        let out = keyset(&dir, mk, &["decrypt", "ks.json", file, "--associated-data", "ctx", "-o", "-"]);
        assert_ok(&out);
        assert_eq!(out.stdout, b"attack at dawn");
    }
    assert_fails(
        &keyset(&dir, mk, &["decrypt", "ks.json", "new.bin", "-o", "-"]),
        1,
        "authentication failed",
    );

    let first_s = first.to_string();
    assert_fails(&keyset(&dir, mk, &["disable", "ks.json", &second.to_string()]), 2, "primary");
    assert_ok(&keyset(&dir, mk, &["disable", "ks.json", &first_s]));
    let out = keyset(&dir, mk, &["decrypt", "ks.json", "old.bin", "--associated-data", "ctx", "-o", "-"]);
    assert_fails(&out, 1, &format!("names key {first} (TINK prefix), which is disabled"));
    assert!(out.stdout.is_empty());
    assert_ok(&keyset(&dir, mk, &["enable", "ks.json", &first_s]));
    assert_ok(&keyset(&dir, mk, &["destroy", "ks.json", &first_s]));
    let out = keyset(&dir, mk, &["decrypt", "ks.json", "old.bin", "--associated-data", "ctx", "-o", "-"]);
    assert_fails(&out, 1, "destroyed");
    assert_fails(&keyset(&dir, mk, &["enable", "ks.json", &first_s]), 2, "material is gone");
    assert_ok(&keyset(&dir, mk, &["delete", "ks.json", &first_s]));
    let out = keyset(&dir, mk, &["decrypt", "ks.json", "old.bin", "--associated-data", "ctx", "-o", "-"]);
    assert_fails(&out, 1, &format!("names key {first}, which this keyset does not hold"));
    assert_fails(&keyset(&dir, mk, &["promote", "ks.json", "12345"]), 2, "no key 12345");
    let out = keyset(&dir, mk, &["encrypt", "ks.json", "msg", "-o", "ks.json", "--force"]);
    assert_fails(&out, 2, "refusing to replace it");
    assert_eq!(listed(&dir, mk, "ks.json").len(), 1);
}

#[test]
fn the_wrong_secret_is_named() {
    let (_tmp, dir) = setup();
    assert_ok(&keyset(&dir, &["--master-key", "m.key"], &["new", "-o", "enc.json"]));
    assert_ok(&keyset(&dir, &["--cleartext"], &["new", "-o", "clear.json"]));
    assert_fails(&keyset(&dir, &["--cleartext"], &["list", "enc.json"]), 2, "give --master-key");
    assert_fails(&keyset(&dir, &["--master-key", "m.key"], &["list", "clear.json"]), 2, "--cleartext");
    assert_ok(&run({
        let mut c = gcmsiv();
        c.current_dir(&dir).args(["keygen", "-o", "other.key"]);
        c
    }));
    assert_fails(&keyset(&dir, &["--master-key", "other.key"], &["list", "enc.json"]), 2, "does not open");
    fs::write(dir.join("junk.json"), "{\"primaryKeyId\": 1, \"key\": []}").unwrap();
    assert_fails(
        &keyset(&dir, &["--cleartext"], &["list", "junk.json"]),
        2,
        "junk.json: the keyset holds no key",
    );
    fs::write(dir.join("junk.bin"), [0x12, 0xff]).unwrap();
    assert_fails(&keyset(&dir, &["--cleartext"], &["list", "junk.bin"]), 2, "malformed keyset");
}

#[test]
fn binary_keysets_stay_binary_and_stdin_works() {
    let (_tmp, dir) = setup();
    let clear: &[&str] = &["--cleartext"];
    assert_ok(&keyset(
        &dir,
        clear,
        &["new", "--format", "binary", "--template", "AES128_GCM_SIV", "-o", "ks.bin"],
    ));
    assert_ok(&keyset(&dir, clear, &["add", "ks.bin", "--prefix", "raw", "--promote"]));
    assert_ne!(fs::read(dir.join("ks.bin")).unwrap()[0], b'{');
    let mut cmd = gcmsiv();
    cmd.current_dir(&dir).args(["keyset", "encrypt", "--cleartext", "ks.bin"]);
    let sealed = run_with_input(cmd, b"from stdin");
    assert_ok(&sealed);
    assert_eq!(sealed.stdout.len(), 12 + 10 + 16, "RAW: no prefix");
    let mut cmd = gcmsiv();
    cmd.current_dir(&dir).args(["keyset", "decrypt", "--cleartext", "ks.bin", "-"]);
    let opened = run_with_input(cmd, &sealed.stdout);
    assert_ok(&opened);
    assert_eq!(opened.stdout, b"from stdin");
    let mut flipped = sealed.stdout.clone();
    flipped[20] ^= 1;
    let mut cmd = gcmsiv();
    cmd.current_dir(&dir).args(["keyset", "decrypt", "--cleartext", "ks.bin"]);
    let out = run_with_input(cmd, &flipped);
    assert_fails(&out, 1, "authentication failed");
    assert!(out.stdout.is_empty(), "{}", stderr(&out));
}

#[test]
fn tinks_keysets_and_ciphertexts() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../vectors");
    let vectors = std::env::var_os("GCMSIV_VECTORS").map(PathBuf::from).unwrap_or(root);
    let file: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(vectors.join("tink_keysets.json")).unwrap()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let mut opened = 0;
    for case in file["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        fs::write(dir.join("tink.keyset"), STANDARD.decode(case["keyset"].as_str().unwrap()).unwrap())
            .unwrap();
        assert_ok(&keyset(dir, &["--cleartext"], &["list", "tink.keyset"]));
        // One message per key (the library's tests open every one): each run of the
        // tool costs a process, under emulation too (scripts/test-cross.sh).
        for ct in case["ciphertexts"].as_array().unwrap().iter().filter(|ct| ct["pt"] == "YQ==") {
            let get = |k: &str| STANDARD.decode(ct[k].as_str().unwrap()).unwrap();
            fs::write(dir.join("ct"), get("ct")).unwrap();
            let ad = String::from_utf8(get("ad")).unwrap();
            let out = keyset(
                dir,
                &["--cleartext"],
                &["decrypt", "tink.keyset", "ct", "--associated-data", &ad, "-o", "-"],
            );
            assert_ok(&out);
            assert_eq!(out.stdout, get("pt"), "{name}");
            opened += 1;
        }
    }
    assert!(opened >= 48, "{opened}");
}
