//! Helpers shared by the end-to-end tests: they run the real `gcmsiv` binary.

#![allow(dead_code)] // each test file uses a different subset

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

/// Header bytes (docs/FORMAT.md).
pub const HEADER_LEN: usize = 86;
/// Bytes a chunk adds to its plaintext: the length word and the tag.
pub const CHUNK_OVERHEAD: usize = 4 + 16;
/// Low Argon2id cost for tests (the documented override flags), without the
/// warning such a cost earns otherwise.
pub const CHEAP_ARGON2: [&str; 7] =
    ["--argon2-memory", "64", "--argon2-iterations", "1", "--argon2-lanes", "1", "--allow-weak-argon2"];
/// The variable the tests pass passphrases in.
pub const PASS_VAR: &str = "GCMSIV_TEST_PASSPHRASE";

/// The binary under test, with a clean environment for passphrases.
pub fn gcmsiv() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gcmsiv"));
    cmd.env_remove(PASS_VAR).stdin(Stdio::null());
    cmd
}

/// Runs `cmd` with `stdin` as its standard input.
pub fn run_with_input(mut cmd: Command, stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        // The tool may stop reading early (e.g. on a bad header); that is not an error here.
        let _ = pipe.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

pub fn run(mut cmd: Command) -> Output {
    cmd.output().unwrap()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Asserts the exit status and that standard error contains `message`.
#[track_caller]
pub fn assert_fails(out: &Output, code: i32, message: &str) {
    assert_eq!(out.status.code(), Some(code), "stderr: {}", stderr(out));
    assert!(stderr(out).contains(message), "expected {message:?} in stderr: {}", stderr(out));
}

#[track_caller]
pub fn assert_ok(out: &Output) {
    assert!(out.status.success(), "status {:?}, stderr: {}", out.status, stderr(out));
}

/// Deterministic, non-repeating test data.
pub fn data(len: usize) -> Vec<u8> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ len as u64;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

/// How the secret is given.
#[derive(Clone, Copy, Debug)]
pub enum Secret<'a> {
    KeyFile(&'a Path),
    Passphrase(&'a str),
}

impl Secret<'_> {
    pub fn apply(self, cmd: &mut Command) {
        match self {
            Secret::KeyFile(path) => {
                cmd.arg("-k").arg(path);
            }
            Secret::Passphrase(pass) => {
                cmd.args(["--passphrase-env", PASS_VAR]).env(PASS_VAR, pass);
            }
        }
    }
}

/// A scratch directory with a fresh key file.
pub struct Scratch {
    pub dir: TempDir,
    pub key: PathBuf,
}

impl Scratch {
    pub fn new() -> Self {
        let dir = TempDir::new().unwrap();
        let key = dir.path().join("test.key");
        assert_ok(&run({
            let mut c = gcmsiv();
            c.arg("keygen").arg("-o").arg(&key);
            c
        }));
        Scratch { dir, key }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let path = self.path(name);
        fs::write(&path, bytes).unwrap();
        path
    }

    /// Names in the directory, sorted.
    pub fn listing(&self) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    pub fn secret(&self) -> Secret<'_> {
        Secret::KeyFile(&self.key)
    }

    /// Encrypts `plaintext` (through files) with extra arguments; returns the ciphertext.
    pub fn encrypt(&self, plaintext: &[u8], secret: Secret<'_>, extra: &[&str]) -> Vec<u8> {
        let input = self.write("plain.in", plaintext);
        let output = self.path("sealed.out");
        let _ = fs::remove_file(&output);
        let mut cmd = gcmsiv();
        cmd.arg("encrypt").args(extra).arg("-q").arg("-o").arg(&output).arg(&input);
        if matches!(secret, Secret::Passphrase(_)) {
            cmd.args(CHEAP_ARGON2);
        }
        secret.apply(&mut cmd);
        assert_ok(&run(cmd));
        let sealed = fs::read(&output).unwrap();
        fs::remove_file(&output).unwrap();
        sealed
    }

    /// Encrypts `plaintext` with only the options in `extra` (recipients, say).
    #[allow(dead_code)]
    pub fn encrypt_to(&self, plaintext: &[u8], extra: &[&str]) -> Vec<u8> {
        let input = self.write("plain.in", plaintext);
        let output = self.path("sealed.out");
        let _ = fs::remove_file(&output);
        let mut cmd = gcmsiv();
        cmd.arg("encrypt").args(extra).arg("-q").arg("-o").arg(&output).arg(&input);
        assert_ok(&run(cmd));
        let sealed = fs::read(&output).unwrap();
        fs::remove_file(&output).unwrap();
        sealed
    }

    /// Decrypts `sealed` from standard input to standard output.
    pub fn decrypt_stdout(&self, sealed: &[u8], secret: Secret<'_>) -> Output {
        let mut cmd = gcmsiv();
        cmd.args(["decrypt", "-q", "-j", "1"]);
        secret.apply(&mut cmd);
        run_with_input(cmd, sealed)
    }
}

/// Splits a sealed file into its header and its stored chunks (docs/FORMAT.md).
pub fn split_chunks(sealed: &[u8]) -> (Vec<u8>, Vec<Vec<u8>>) {
    let (header, mut rest) = sealed.split_at(HEADER_LEN);
    let mut chunks = Vec::new();
    while !rest.is_empty() {
        let word = u32::from_be_bytes(rest[..4].try_into().unwrap());
        let len = (word & 0x7fff_ffff) as usize + CHUNK_OVERHEAD;
        chunks.push(rest[..len].to_vec());
        rest = &rest[len..];
    }
    (header.to_vec(), chunks)
}

pub fn join_chunks(header: &[u8], chunks: &[Vec<u8>]) -> Vec<u8> {
    let mut out = header.to_vec();
    for chunk in chunks {
        out.extend_from_slice(chunk);
    }
    out
}

pub mod emulation;
pub mod manifest;
