//! Reading a passphrase: from the terminal (never echoed), from an environment
//! variable the user names, or from the first line of a file or an open file
//! descriptor (`--passphrase-file`, `--passphrase-fd`), for scripts and password
//! managers. The passphrase is never printed, and no error message quotes it.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

use zeroize::Zeroizing;

use crate::cli::PassphraseSource;
use crate::error::{Failure, io_reason};

/// Longest passphrase line read from a file or descriptor: far more than any
/// passphrase, little enough to hold at once.
const PASSPHRASE_READ_MAX: usize = 64 * 1024;

/// The passphrase from `source`; from the terminal it is asked twice when
/// `confirm` (encryption), so a typo does not lock the data away.
pub fn read(source: &PassphraseSource, confirm: bool) -> Result<Zeroizing<String>, Failure> {
    let passphrase = match source {
        PassphraseSource::Env(var) => from_env(var)?,
        PassphraseSource::File(path) => {
            let file = File::open(path).map_err(|e| Failure::io("cannot read passphrase file", path, e))?;
            let meta = file.metadata().map_err(|e| Failure::io("cannot read passphrase file", path, e))?;
            if meta.permissions().mode() & 0o077 != 0 {
                eprintln!(
                    "gcmsiv: warning: passphrase file {} is accessible by other users (chmod 600 it)",
                    path.display()
                );
            }
            first_line(file, &path.display().to_string())?
        }
        PassphraseSource::Fd(fd) => {
            // The descriptor through the file system's view of this process's
            // descriptors: no unsafe adoption of a raw descriptor.
            let path = PathBuf::from(format!("/dev/fd/{fd}"));
            let file = File::open(&path).map_err(|e| {
                Failure::usage(format!(
                    "cannot read the passphrase from file descriptor {fd}: {}",
                    io_reason(&e)
                ))
            })?;
            first_line(file, &format!("file descriptor {fd}"))?
        }
        PassphraseSource::Terminal => {
            let first = prompt("Passphrase: ")?;
            if confirm && *prompt("Confirm passphrase: ")? != *first {
                return Err(Failure::usage("the passphrases do not match"));
            }
            first
        }
    };
    if passphrase.is_empty() {
        return Err(Failure::usage("the passphrase is empty"));
    }
    Ok(passphrase)
}

/// The first line `file` holds, without its `\n` or `\r\n`, read a byte at a
/// time up to the line ending: nothing after it is consumed (a descriptor may
/// carry more), and a writer that keeps its end open does not block the read.
/// `name` names the source in errors.
fn first_line(mut file: File, name: &str) -> Result<Zeroizing<String>, Failure> {
    let failed = |e: std::io::Error| {
        Failure::usage(format!("cannot read the passphrase from {name}: {}", io_reason(&e)))
    };
    // Room for the whole line up front: no reallocation leaves a copy behind.
    let mut bytes = Zeroizing::new(Vec::with_capacity(PASSPHRASE_READ_MAX));
    let mut byte = Zeroizing::new([0u8; 1]);
    loop {
        match file.read(byte.as_mut_slice()) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) if bytes.len() == PASSPHRASE_READ_MAX => {
                return Err(Failure::usage(format!(
                    "{name} holds no line ending in its first {PASSPHRASE_READ_MAX} bytes: not a passphrase"
                )));
            }
            Ok(_) => bytes.push(byte[0]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(failed(e)),
        }
    }
    let line = bytes.strip_suffix(b"\r").unwrap_or(&bytes);
    let text = std::str::from_utf8(line)
        .map_err(|_| Failure::usage(format!("the passphrase from {name} is not valid UTF-8")))?;
    let mut passphrase = Zeroizing::new(String::with_capacity(text.len()));
    passphrase.push_str(text);
    Ok(passphrase)
}

fn from_env(var: &OsStr) -> Result<Zeroizing<String>, Failure> {
    let name = var.to_string_lossy();
    match std::env::var(var) {
        Ok(value) => Ok(Zeroizing::new(value)),
        Err(std::env::VarError::NotPresent) => {
            Err(Failure::usage(format!("environment variable {name} (from --passphrase-env) is not set")))
        }
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(Failure::usage(format!("environment variable {name} does not hold valid UTF-8")))
        }
    }
}

fn prompt(text: &str) -> Result<Zeroizing<String>, Failure> {
    rpassword::prompt_password(text).map(Zeroizing::new).map_err(|e| {
        Failure::usage(format!(
            "cannot read the passphrase from the terminal ({}); in scripts use --passphrase-file FILE, \
             --passphrase-fd N or --passphrase-env VAR",
            io_reason(&e)
        ))
    })
}
