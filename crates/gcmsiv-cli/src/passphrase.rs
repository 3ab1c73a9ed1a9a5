//! Reading a passphrase: from the terminal (never echoed), or from an environment
//! variable the user names, for scripts.

use std::ffi::OsStr;

use zeroize::Zeroizing;

use crate::error::{Failure, io_reason};

/// The passphrase from `env_var` if given, else from the terminal; asked twice when
/// `confirm` (encryption), so a typo does not lock the data away.
pub fn read(env_var: Option<&OsStr>, confirm: bool) -> Result<Zeroizing<String>, Failure> {
    let passphrase = match env_var {
        Some(var) => from_env(var)?,
        None => {
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
            "cannot read the passphrase from the terminal ({}); in scripts use --passphrase-env VAR",
            io_reason(&e)
        ))
    })
}
