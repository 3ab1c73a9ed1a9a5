//! Nothing is lost: outputs appear whole or not at all, existing files are kept
//! unless --force, a killed run leaves the original untouched; plus usage errors
//! (exit 2), key files and help text.

mod common;

use std::fs;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::*;

/// A recognisable temporary file for `name`, as the tool names them.
fn is_temp_for(entry: &str, name: &str) -> bool {
    entry.starts_with(&format!(".{name}.gcmsiv-tmp-"))
}

#[test]
fn existing_output_needs_force() {
    let scratch = Scratch::new();
    let input = scratch.write("in.txt", b"new contents");
    let out = scratch.write("out.gcmsiv", b"old contents");
    let mut cmd = gcmsiv();
    cmd.args(["encrypt", "-k"]).arg(&scratch.key).arg("-o").arg(&out).arg(&input);
    assert_fails(&run(cmd), 2, "already exists: use --force");
    assert_eq!(fs::read(&out).unwrap(), b"old contents");

    let mut cmd = gcmsiv();
    cmd.args(["encrypt", "--force", "-k"]).arg(&scratch.key).arg("-o").arg(&out).arg(&input);
    assert_ok(&run(cmd));
    let out = scratch.decrypt_stdout(&fs::read(&out).unwrap(), scratch.secret());
    assert_eq!(out.stdout, b"new contents");
    assert_eq!(scratch.listing(), ["in.txt", "out.gcmsiv", "test.key"]);
}

/// `-o` naming the key file is refused even with --force (the rename would
/// replace the only copy of the key with the output); so is standard output
/// redirected onto the input file (the tool would read its own output) or
/// onto the key file.
#[test]
fn the_key_file_and_the_input_are_never_outputs() {
    let scratch = Scratch::new();
    let input = scratch.write("in.txt", b"contents");
    let key_before = fs::read(&scratch.key).unwrap();
    for command in ["encrypt", "decrypt"] {
        let mut cmd = gcmsiv();
        cmd.args([command, "--force", "-k"]).arg(&scratch.key).arg("-o").arg(&scratch.key).arg(&input);
        assert_fails(&run(cmd), 2, "is the key file");
        assert_eq!(fs::read(&scratch.key).unwrap(), key_before, "{command}");
    }
    for command in ["encrypt", "decrypt"] {
        let appended = fs::OpenOptions::new().append(true).open(&input).unwrap();
        let mut cmd = gcmsiv();
        cmd.args([command, "-k"]).arg(&scratch.key).arg(&input).stdout(appended);
        assert_fails(&run(cmd), 2, "standard output is the input file");
        assert_eq!(fs::read(&input).unwrap(), b"contents", "{command}");
        let appended = fs::OpenOptions::new().append(true).open(&scratch.key).unwrap();
        let mut cmd = gcmsiv();
        cmd.args([command, "-k"]).arg(&scratch.key).arg(&input).stdout(appended);
        assert_fails(&run(cmd), 2, "standard output is the key file");
        assert_eq!(fs::read(&scratch.key).unwrap(), key_before, "{command}");
    }
    assert_eq!(scratch.listing(), ["in.txt", "test.key"]);
}

#[test]
fn unwritable_or_missing_output_directory_is_a_usage_error() {
    let scratch = Scratch::new();
    let input = scratch.write("in.txt", b"data");
    let not_a_dir = scratch.write("plainfile", b"");
    for target in [scratch.path("missing-dir/out"), not_a_dir.join("out")] {
        let mut cmd = gcmsiv();
        cmd.args(["encrypt", "-k"]).arg(&scratch.key).arg("-o").arg(&target).arg(&input);
        assert_fails(&run(cmd), 2, "cannot create a file in");
    }
    // A read-only directory (only meaningful when not running as root).
    let locked = scratch.path("locked");
    fs::create_dir(&locked).unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o555)).unwrap();
    let root_bypasses = fs::write(locked.join("probe"), b"").is_ok();
    if !root_bypasses {
        let mut cmd = gcmsiv();
        cmd.args(["encrypt", "-k"]).arg(&scratch.key).arg("-o").arg(locked.join("out")).arg(&input);
        assert_fails(&run(cmd), 2, "cannot create a file in");
    }
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn usage_errors_exit_2() {
    let scratch = Scratch::new();
    let input = scratch.write("in.txt", b"data");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["encrypt"], "required"),
        (vec!["encrypt", "-k", "nope.key", "in.txt"], "cannot read key file nope.key"),
        (vec!["encrypt", "-k", "in.txt", "in.txt"], "in.txt is not a gcmsiv key file"),
        (vec!["encrypt", "-k", "test.key", "missing.txt"], "cannot open missing.txt"),
        (vec!["encrypt", "--passphrase-env", "GCMSIV_UNSET_VAR", "in.txt"], "GCMSIV_UNSET_VAR"),
        (vec!["encrypt", "-k", "test.key", "-o", ".", "in.txt"], "is a directory"),
        (vec!["encrypt", "-k", "test.key", "--argon2-memory", "64", "in.txt"], "cannot be used with"),
        (vec!["encrypt", "-p", "--argon2-memory", "4", "in.txt"], "Argon2id cost out of range"),
        (vec!["decrypt", "-k", "test.key", "-p", "in.txt"], "cannot be used with"),
        (vec!["frobnicate"], "unrecognized subcommand"),
    ];
    for (args, message) in cases {
        let mut cmd = gcmsiv();
        cmd.current_dir(scratch.dir.path()).args(&args);
        assert_fails(&run(cmd), 2, message);
    }
    // A terminal passphrase without a terminal: a pointer to --passphrase-env.
    let mut cmd = gcmsiv();
    cmd.args(["encrypt", "-p", "-o"]).arg(scratch.path("o")).arg(&input);
    let out = run_detached(cmd);
    assert_fails(&out, 2, "--passphrase-env");
    assert!(!scratch.path("o").exists());
}

/// Runs in a new session (`setsid -w`), without a controlling terminal, so that
/// /dev/tty cannot be opened even when the tests run from one.
fn run_detached(cmd: std::process::Command) -> std::process::Output {
    let mut setsid = std::process::Command::new("setsid");
    setsid.arg("-w").arg(cmd.get_program()).args(cmd.get_args());
    for (key, value) in cmd.get_envs() {
        match value {
            Some(v) => setsid.env(key, v),
            None => setsid.env_remove(key),
        };
    }
    setsid.stdin(Stdio::null()).output().unwrap()
}

#[test]
fn keygen_writes_a_private_key_and_never_overwrites() {
    let scratch = Scratch::new();
    let key = fs::read_to_string(&scratch.key).unwrap();
    let line = key.lines().find(|l| !l.starts_with('#')).unwrap();
    assert!(line.starts_with("gcmsiv-key-v1:") && line.len() == 14 + 64);
    assert_eq!(fs::metadata(&scratch.key).unwrap().permissions().mode() & 0o777, 0o600);

    let mut cmd = gcmsiv();
    cmd.args(["keygen", "-o"]).arg(&scratch.key);
    assert_fails(&run(cmd), 2, "refusing to overwrite");
    assert_eq!(fs::read_to_string(&scratch.key).unwrap(), key);

    let out = run({
        let mut c = gcmsiv();
        c.arg("keygen");
        c
    });
    assert_ok(&out);
    assert_ne!(out.stdout, key.as_bytes(), "keys are random");
    // Key material never reaches standard error, even on failure.
    let garbled = scratch.write("garbled.key", line.replace("gcmsiv-key-v1:", "gcmsiv-key-v2:").as_bytes());
    let mut cmd = gcmsiv();
    cmd.args(["decrypt", "-k"]).arg(&garbled);
    let out = run_with_input(cmd, b"");
    assert_fails(&out, 1, "not a gcmsiv file");
    let mut cmd = gcmsiv();
    cmd.args(["encrypt", "-k"]).arg(&garbled).arg(&scratch.key);
    let out = run(cmd);
    assert_fails(&out, 2, "not a gcmsiv key file");
    assert!(!stderr(&out).contains(&line[14..30]));
    assert_eq!(scratch.listing(), ["garbled.key", "test.key"]);
}

#[test]
fn help_has_examples() {
    for args in [&["--help"][..], &["keygen", "--help"], &["encrypt", "--help"], &["decrypt", "--help"]] {
        let mut cmd = gcmsiv();
        cmd.args(args);
        let out = run(cmd);
        assert_ok(&out);
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("Examples:\n  gcmsiv "), "{args:?}");
    }
}

#[test]
fn info_names_the_backend_and_its_width() {
    let out = run({
        let mut cmd = gcmsiv();
        cmd.arg("info");
        cmd
    });
    assert_ok(&out);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with(&format!("gcmsiv {}\n", env!("CARGO_PKG_VERSION"))), "{text}");
    // The tool's backend is the library's choice, printed with its width.
    let chosen = gcmsiv::Backend::select();
    assert!(
        text.contains(&format!("\nbackend: {} ({}-bit)\n", chosen.name(), chosen.register_bits())),
        "{text}"
    );
    assert!(text.contains("available: portable (64-bit)"), "{text}");
}

/// Starts an encryption fed slowly through a pipe, with --force over an existing
/// output; waits until its temporary file has data; then signals it.
fn interrupted_encryption(signal: &str) -> (Scratch, std::process::ExitStatus) {
    let scratch = Scratch::new();
    let original = data(3 << 20);
    let source = scratch.write("source.bin", &original);
    scratch.write("out.gcmsiv", b"the previous version");
    let mut child = gcmsiv()
        .args(["encrypt", "--force", "-q", "-k"])
        .arg(&scratch.key)
        .arg("-o")
        .arg(scratch.path("out.gcmsiv"))
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut fed = 0;
    let temp_has_data = |scratch: &Scratch| {
        scratch.listing().iter().any(|e| {
            is_temp_for(e, "out.gcmsiv")
                && fs::metadata(scratch.path(e)).map(|m| m.len() > 0).unwrap_or(false)
        })
    };
    while !temp_has_data(&scratch) {
        assert!(Instant::now() < deadline, "no temporary output appeared");
        if fed < original.len() / 2 {
            pipe.write_all(&original[fed..fed + 256 * 1024]).unwrap();
            fed += 256 * 1024;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    if signal == "KILL" {
        child.kill().unwrap();
    } else {
        let kill = format!("kill -{signal} {}", child.id());
        assert!(std::process::Command::new("sh").args(["-c", &kill]).status().unwrap().success());
    }
    let status = child.wait().unwrap();
    drop(pipe);
    assert_eq!(fs::read(&source).unwrap(), original, "the input is untouched");
    assert_eq!(
        fs::read(scratch.path("out.gcmsiv")).unwrap(),
        b"the previous version",
        "the old output is untouched"
    );
    (scratch, status)
}

#[test]
fn killed_encryption_leaves_no_partial_output_and_the_original_untouched() {
    let (scratch, status) = interrupted_encryption("KILL");
    assert!(!status.success());
    // SIGKILL cannot be caught: the recognisable temporary file may remain, nothing else.
    for entry in scratch.listing() {
        assert!(
            ["out.gcmsiv", "source.bin", "test.key"].contains(&entry.as_str())
                || is_temp_for(&entry, "out.gcmsiv"),
            "unexpected file {entry}"
        );
    }
}

#[test]
fn terminated_encryption_removes_its_temporary_file() {
    for signal in ["TERM", "INT"] {
        let (scratch, status) = interrupted_encryption(signal);
        assert_eq!(status.code(), Some(130), "{signal}");
        assert_eq!(scratch.listing(), ["out.gcmsiv", "source.bin", "test.key"], "{signal}");
    }
}
