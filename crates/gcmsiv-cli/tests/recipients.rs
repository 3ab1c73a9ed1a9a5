//! Public-key recipients end to end (format version 2): identities and their
//! recipients, encrypting to several of either kind, every way a header can be
//! wrong, and plaintext ranges.

mod common;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use common::*;

/// A new identity in the scratch directory: its path and its recipient.
fn identity(scratch: &Scratch, name: &str, post_quantum: bool) -> (PathBuf, String) {
    let path = scratch.path(name);
    let mut cmd = gcmsiv();
    cmd.args(["identity", "-o"]).arg(&path);
    if post_quantum {
        cmd.arg("--post-quantum");
    }
    let out = run(cmd);
    assert_ok(&out);
    let recipient = String::from_utf8(out.stdout).unwrap().trim().to_string();
    (path, recipient)
}

/// Decrypts `sealed` with the identities to a file; returns the output and the file's contents.
fn decrypt_with(
    scratch: &Scratch,
    sealed: &[u8],
    identities: &[&PathBuf],
) -> (std::process::Output, Option<Vec<u8>>) {
    let input = scratch.write("sealed.in", sealed);
    let output = scratch.path("plain.out");
    let _ = fs::remove_file(&output);
    let mut cmd = gcmsiv();
    cmd.args(["decrypt", "-q", "-o"]).arg(&output).arg(&input);
    for id in identities {
        cmd.arg("-i").arg(id);
    }
    let out = run(cmd);
    (out, fs::read(&output).ok())
}

#[test]
fn identities_are_private_files_and_print_their_recipient() {
    let scratch = Scratch::new();
    for pq in [false, true] {
        let name = if pq { "pq.id" } else { "x.id" };
        let (path, recipient) = identity(&scratch, name, pq);
        assert!(recipient.starts_with(if pq { "gcmsivpq1" } else { "gcmsiv1" }), "{recipient}");
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains(&format!("# recipient: {recipient}")));
        // `gcmsiv recipient` says the same, from a file or from standard input.
        let mut cmd = gcmsiv();
        cmd.arg("recipient").arg(&path);
        let out = run(cmd);
        assert_ok(&out);
        assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{recipient}\n"));
        let mut cmd = gcmsiv();
        cmd.args(["recipient", "-"]);
        let out = run_with_input(cmd, text.as_bytes());
        assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{recipient}\n"));
        // Never overwritten.
        let mut cmd = gcmsiv();
        cmd.args(["identity", "-o"]).arg(&path);
        assert_fails(&run(cmd), 2, "already exists");
        assert_eq!(fs::read_to_string(&path).unwrap(), text);
    }
    // To standard output: the identity there, the recipient on standard error.
    let out = run({
        let mut cmd = gcmsiv();
        cmd.arg("identity");
        cmd
    });
    assert_ok(&out);
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    assert!(text.lines().any(|l| l.starts_with("GCMSIV-SECRET-KEY-1")));
    assert!(stderr(&out).starts_with("Recipient: gcmsiv1"));
}

#[test]
fn every_kind_and_mix_of_recipients_round_trips() {
    let scratch = Scratch::new();
    let (alice, alice_r) = identity(&scratch, "alice.id", false);
    let (bob, bob_r) = identity(&scratch, "bob.id", true);
    let (carol, carol_r) = identity(&scratch, "carol.id", false);
    let list = scratch.write("team.txt", format!("# the team\n\n{bob_r}\n  {carol_r}  \n").as_bytes());
    let list = list.to_str().unwrap();
    let plain = data(200_000);
    let cases: Vec<(Vec<&str>, Vec<&PathBuf>)> = vec![
        (vec!["-r", &alice_r], vec![&alice]),
        (vec!["-r", &bob_r], vec![&bob]),
        (vec!["-r", &alice_r, "-r", &bob_r, "--allow-mixed-recipients"], vec![&alice, &bob]),
        (vec!["-R", list, "--allow-mixed-recipients"], vec![&bob, &carol]),
        (vec!["-r", &alice_r, "-r", &carol_r], vec![&alice, &carol]),
        (
            vec!["-r", &alice_r, "-R", list, "--algorithm", "aes128", "--allow-mixed-recipients"],
            vec![&alice, &bob, &carol],
        ),
        (vec!["-i", alice.to_str().unwrap()], vec![&alice]),
    ];
    for (args, openers) in cases {
        let sealed = scratch.encrypt_to(&plain, &args);
        let stanzas = u16::from_be_bytes([sealed[42], sealed[43]]);
        assert_eq!(usize::from(stanzas), openers.len(), "{args:?}");
        for id in &openers {
            let (out, written) = decrypt_with(&scratch, &sealed, &[id]);
            assert_ok(&out);
            assert!(written.unwrap() == plain, "{args:?}");
        }
        // Every other identity: no match, exit 1, nothing written.
        for id in [&alice, &bob, &carol].into_iter().filter(|id| !openers.contains(id)) {
            let (out, written) = decrypt_with(&scratch, &sealed, &[id]);
            assert_fails(&out, 1, "no identity matched");
            assert!(written.is_none());
        }
    }
}

#[test]
fn headers_that_were_tampered_with_fail_with_nothing_written() {
    let scratch = Scratch::new();
    let (alice, alice_r) = identity(&scratch, "alice.id", false);
    let (bob, bob_r) = identity(&scratch, "bob.id", true);
    let plain = data(5000);
    let both = ["-r", &alice_r, "-r", &bob_r, "--allow-mixed-recipients"];
    let sealed = scratch.encrypt_to(&plain, &both);
    let other = scratch.encrypt_to(&plain, &both);
    let (x, pq) = (81, 1169);
    let rejected = |bad: Vec<u8>, message: &str| {
        for id in [&alice, &bob] {
            let (out, written) = decrypt_with(&scratch, &bad, &[id]);
            assert_fails(&out, 1, message);
            assert!(written.is_none());
        }
    };
    // A stanza from another file for the same recipient.
    let mut spliced = sealed.clone();
    spliced[44..44 + x].copy_from_slice(&other[44..44 + x]);
    spliced[44 + x..44 + x + pq].copy_from_slice(&other[44 + x..44 + x + pq]);
    rejected(spliced, "no identity matched");
    // The stanzas swapped: each opens, the MAC does not.
    let mut swapped = sealed[..44].to_vec();
    swapped.extend_from_slice(&sealed[44 + x..44 + x + pq]);
    swapped.extend_from_slice(&sealed[44..44 + x]);
    swapped.extend_from_slice(&sealed[44 + x + pq..]);
    rejected(swapped, "the header MAC does not verify");
    // A stanza dropped (and the count fixed): the others no longer open.
    let mut dropped = sealed[..44 + x].to_vec();
    dropped[43] = 1;
    dropped.extend_from_slice(&sealed[44 + x + pq..]);
    let (out, _) = decrypt_with(&scratch, &dropped, &[&alice]);
    assert_fails(&out, 1, "no identity matched");
    // Truncated anywhere in the header.
    for cut in [7, 43, 44, 45, 44 + x, 44 + x + 500, 44 + x + pq + 31] {
        let (out, written) = decrypt_with(&scratch, &sealed[..cut], &[&alice, &bob]);
        assert_fails(&out, 1, "truncated");
        assert!(written.is_none());
    }
    // Any flipped header byte fails (what fails depends on the byte).
    for at in (0..44 + x + pq + 32).step_by(37) {
        let mut bad = sealed.clone();
        bad[at] ^= 0x20;
        let (out, written) = decrypt_with(&scratch, &bad, &[&alice, &bob]);
        assert_eq!(out.status.code(), Some(1), "byte {at}: {}", stderr(&out));
        assert!(written.is_none());
    }
}

#[test]
fn hostile_headers_are_refused_before_any_work() {
    let scratch = Scratch::new();
    let (alice, alice_r) = identity(&scratch, "alice.id", false);
    let sealed = scratch.encrypt_to(b"hello", &["-r", &alice_r]);
    let mut hostile = sealed[..44].to_vec();
    hostile[42..44].copy_from_slice(&65535u16.to_be_bytes());
    hostile.extend(std::iter::repeat_n(1u8, 81 * 300));
    let (out, written) = decrypt_with(&scratch, &hostile, &[&alice]);
    assert_fails(&out, 1, "it holds 65535 recipient stanzas (at most 256)");
    assert!(written.is_none());
}

#[test]
fn secrets_of_the_wrong_kind_say_which_to_give() {
    let scratch = Scratch::new();
    let (alice, alice_r) = identity(&scratch, "alice.id", false);
    let to_alice = scratch.encrypt_to(b"hello", &["-r", &alice_r]);
    let out = scratch.decrypt_stdout(&to_alice, scratch.secret());
    assert_fails(&out, 1, "decrypt it with -i/--identity");
    // Identities for a version 1 file: the file is not for identities, and
    // the message names the secret it needs.
    let with_key = scratch.encrypt(b"hello", scratch.secret(), &[]);
    let (out, _) = decrypt_with(&scratch, &with_key, &[&alice]);
    assert_fails(&out, 1, "encrypted with a key file, not to recipients: decrypt it with -k/--key-file");
    let with_passphrase = scratch.encrypt(b"hello", Secret::Passphrase("pw"), &[]);
    let (out, _) = decrypt_with(&scratch, &with_passphrase, &[&alice]);
    assert_fails(&out, 1, "encrypted with a passphrase, not to recipients: decrypt it with -p/--passphrase");
    // A recipient is not an identity, nor the other way round; neither is echoed.
    let input = scratch.write("in", b"x");
    let secret_line =
        fs::read_to_string(&alice).unwrap().lines().find(|l| l.starts_with("GCMSIV-")).unwrap().to_string();
    let mut cmd = gcmsiv();
    cmd.args(["encrypt", "-r", &secret_line, "-o"]).arg(scratch.path("out")).arg(&input);
    let out = run(cmd);
    assert_fails(&out, 2, "this is an identity (a private key), not a recipient");
    assert!(!stderr(&out).contains(&secret_line[20..]));
    let not_identity = scratch.write("r.id", format!("{alice_r}\n").as_bytes());
    let (out, _) = decrypt_with(&scratch, &to_alice, &[&not_identity]);
    assert_fails(&out, 2, "line 1: not a gcmsiv identity");
    // A typo in a recipient.
    let mut typo = alice_r.clone().into_bytes();
    typo[20] = if typo[20] == b'q' { b'p' } else { b'q' };
    let mut cmd = gcmsiv();
    cmd.args(["encrypt", "-r", std::str::from_utf8(&typo).unwrap(), "-o"])
        .arg(scratch.path("out"))
        .arg(&input);
    assert_fails(&run(cmd), 2, "not a valid Bech32 string");
    // Passphrases never mix with recipients.
    let mut cmd = gcmsiv();
    cmd.args(["encrypt", "-r", &alice_r, "--passphrase-env", PASS_VAR]).env(PASS_VAR, "pw").arg(&input);
    assert_fails(&run(cmd), 2, "cannot be used with");
    assert!(!scratch.path("out").exists());
}

#[test]
fn at_most_256_recipients() {
    let scratch = Scratch::new();
    let (_, alice_r) = identity(&scratch, "alice.id", false);
    let list = scratch.write("many.txt", format!("{alice_r}\n").repeat(257).as_bytes());
    let input = scratch.write("in", b"x");
    let mut cmd = gcmsiv();
    cmd.args(["encrypt", "-R"]).arg(&list).arg("-o").arg(scratch.path("out")).arg(&input);
    assert_fails(&run(cmd), 2, "at most 256");
    let list = scratch.write("many.txt", format!("{alice_r}\n").repeat(256).as_bytes());
    let mut cmd = gcmsiv();
    cmd.args(["encrypt", "-q", "-R"]).arg(&list).arg("-o").arg(scratch.path("out")).arg(&input);
    assert_ok(&run(cmd));
}

#[test]
fn ranges_read_only_what_they_need_and_match_the_plaintext() {
    let scratch = Scratch::new();
    let (alice, alice_r) = identity(&scratch, "alice.id", false);
    let plain = data(10_000);
    let to_alice = scratch.encrypt_to(&plain, &["-r", &alice_r, "--chunk-size-exp", "10"]);
    let with_key = scratch.encrypt(&plain, scratch.secret(), &["--chunk-size-exp", "10"]);
    let range = |sealed: &[u8], identity: bool, offset: u64, length: Option<u64>| {
        let input = scratch.write("range.in", sealed);
        let mut cmd = gcmsiv();
        cmd.args(["decrypt", "-q", "--offset", &offset.to_string()]);
        if let Some(length) = length {
            cmd.args(["--length", &length.to_string()]);
        }
        if identity {
            cmd.arg("-i").arg(&alice);
        } else {
            cmd.arg("-k").arg(&scratch.key);
        }
        cmd.arg(&input);
        run(cmd)
    };
    for (sealed, identity) in [(&to_alice, true), (&with_key, false)] {
        for (offset, length) in [
            (0, Some(1)),
            (1023, Some(2)),
            (1024, Some(1024)),
            (5000, Some(3000)),
            (9999, None),
            (10_000, None),
            (3, None),
            (9000, Some(5000)),
            (0, Some(0)),
        ] {
            let out = range(sealed, identity, offset, length);
            assert_ok(&out);
            let end = length.map_or(10_000, |l| (offset + l).min(10_000)) as usize;
            assert!(out.stdout == plain[offset as usize..end], "{offset} {length:?}");
        }
        // Past the end: nothing, as a seek past the end reads nothing.
        for (offset, length) in [(10_001, None), (u64::MAX, Some(5))] {
            let out = range(sealed, identity, offset, length);
            assert_ok(&out);
            assert!(out.stdout.is_empty());
        }
    }
    // A damaged chunk outside the range is never read; inside it, the range fails.
    let header_len = to_alice.len() - (10_000 + 10 * CHUNK_OVERHEAD);
    let mut damaged = to_alice.clone();
    damaged[header_len + 3 * (1024 + CHUNK_OVERHEAD) + 100] ^= 1;
    let out = range(&damaged, true, 6000, Some(100));
    assert_ok(&out);
    assert!(out.stdout == plain[6000..6100]);
    assert_fails(&range(&damaged, true, 3000, Some(200)), 1, "chunk 3 failed authentication");
    // With --verify-all, the damaged chunk outside the range fails the read, and
    // nothing of the range is written; an intact file gives the range.
    let verified = |sealed: &[u8]| {
        let input = scratch.write("range.in", sealed);
        let mut cmd = gcmsiv();
        cmd.args(["decrypt", "-q", "--offset", "6000", "--length", "100", "--verify-all", "-i"])
            .arg(&alice)
            .arg(&input);
        run(cmd)
    };
    let out = verified(&damaged);
    assert_fails(&out, 1, "chunk 3 failed authentication");
    assert!(out.stdout.is_empty());
    let out = verified(&to_alice);
    assert_ok(&out);
    assert!(out.stdout == plain[6000..6100]);
    // A file cut short fails even for a range at its start (the final chunk fixes the length).
    assert_fails(&range(&to_alice[..to_alice.len() - 5], true, 0, Some(10)), 1, "");
    // Standard input cannot be read at an offset.
    let mut cmd = gcmsiv();
    cmd.args(["decrypt", "--offset", "5", "-i"]).arg(&alice);
    let out = run_with_input(cmd, &to_alice);
    assert_fails(&out, 2, "read at any position");
}

#[test]
fn armored_and_binary_files_decrypt_to_the_same_bytes() {
    let scratch = Scratch::new();
    let (alice, alice_r) = identity(&scratch, "alice.id", true);
    for size in [0, 1, 47, 48, 49, 70_000] {
        let plain = data(size);
        let armored = scratch.encrypt_to(&plain, &["-a", "-r", &alice_r]);
        let text = std::str::from_utf8(&armored).unwrap();
        assert!(text.starts_with("-----BEGIN GCMSIV ENCRYPTED FILE-----\n"));
        assert!(text.ends_with("-----END GCMSIV ENCRYPTED FILE-----\n"));
        assert!(text.lines().all(|l| l.len() <= 64 || l.starts_with("-----")));
        let binary = scratch.encrypt_to(&plain, &["-r", &alice_r]);
        for sealed in [&armored, &binary] {
            let (out, written) = decrypt_with(&scratch, sealed, &[&alice]);
            assert_ok(&out);
            assert!(written.unwrap() == plain, "{size}");
        }
        // Armor with a key file too, and through standard input.
        let keyed = scratch.encrypt(&plain, scratch.secret(), &["--armor"]);
        let out = scratch.decrypt_stdout(&keyed, scratch.secret());
        assert_ok(&out);
        assert!(out.stdout == plain);
    }
    // Malformed armor: exit 1, nothing written.
    let plain = data(5000);
    let armored = String::from_utf8(scratch.encrypt_to(&plain, &["-a", "-r", &alice_r])).unwrap();
    let mut lines: Vec<String> = armored.lines().map(str::to_string).collect();
    let broken = [
        ("truncated", armored[..armored.len() / 2].to_string()),
        ("a bad character", armored.replacen('A', "*", 1)),
        ("longer than 64", {
            lines[2].push('A');
            lines.join("\n")
        }),
        ("the END line", armored.replace("-----END GCMSIV ENCRYPTED FILE-----", "-----END PGP MESSAGE-----")),
        ("after the END line", format!("{armored}trailing\n")),
    ];
    for (what, text) in broken {
        let (out, written) = decrypt_with(&scratch, text.as_bytes(), &[&alice]);
        assert_fails(&out, 1, "malformed armor");
        assert!(written.is_none(), "{what}");
    }
}

/// Recipient strings that decode but are no usable key: X25519 points of small
/// order (u = 0 and u = 1; for them Diffie-Hellman gives all zeros whatever the
/// ephemeral key). Encryption used to panic inside HPKE; now it stops with a
/// usage error before anything is written.
#[test]
fn small_order_recipients_are_refused_with_an_error() {
    let scratch = Scratch::new();
    let (_, alice_r) = identity(&scratch, "alice.id", false);
    let hrp = bech32::Hrp::parse("gcmsiv").unwrap();
    let mut one = [0u8; 32];
    one[0] = 1;
    for point in [[0u8; 32], one] {
        let text = bech32::encode_lower::<bech32::Bech32>(hrp, &point).unwrap();
        for args in [vec!["-r", text.as_str()], vec!["-r", &alice_r, "-r", text.as_str()]] {
            let input = scratch.write("plain.in", b"secret");
            let output = scratch.path("sealed.out");
            let mut cmd = gcmsiv();
            cmd.arg("encrypt").args(&args).arg("-q").arg("-o").arg(&output).arg(&input);
            let out = run(cmd);
            assert_fails(&out, 2, "not a valid public key");
            assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
            assert!(!output.exists());
        }
        // The same key in a recipients file.
        let list = scratch.write("bad.recipients", format!("{text}\n").as_bytes());
        let input = scratch.write("plain.in", b"secret");
        let output = scratch.path("sealed.out");
        let mut cmd = gcmsiv();
        cmd.arg("encrypt").arg("-R").arg(&list).arg("-q").arg("-o").arg(&output).arg(&input);
        let out = run(cmd);
        assert_fails(&out, 2, "line 1");
        assert!(!output.exists());
    }
}

/// Post-quantum and X25519 recipients in one file are refused unless the user
/// asks for it by name: the file key would be only as safe as X25519.
#[test]
fn mixing_post_quantum_and_x25519_recipients_needs_the_option() {
    let scratch = Scratch::new();
    let (_, alice_r) = identity(&scratch, "alice.id", false);
    let (bob, bob_r) = identity(&scratch, "bob.id", true);
    let list = scratch.write("team.txt", format!("{alice_r}\n{bob_r}\n").as_bytes());
    let bob_file = bob.to_str().unwrap();
    for args in [
        vec!["-r", &alice_r, "-r", &bob_r],
        vec!["-R", list.to_str().unwrap()],
        vec!["-r", &alice_r, "-i", bob_file],
    ] {
        let input = scratch.write("plain.in", b"secret");
        let output = scratch.path("sealed.out");
        let mut cmd = gcmsiv();
        cmd.arg("encrypt").args(&args).arg("-q").arg("-o").arg(&output).arg(&input);
        let out = run(cmd);
        assert_fails(&out, 2, "--allow-mixed-recipients");
        assert!(!output.exists(), "{args:?}");
        let mut with = args.clone();
        with.push("--allow-mixed-recipients");
        scratch.encrypt_to(b"secret", &with);
    }
}
