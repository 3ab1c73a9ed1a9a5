//! The command line: subcommands, options and the help text with examples.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};

use gcmsiv_stream::Argon2Cost;
use gcmsiv_stream::format::{CHUNK_EXP_DEFAULT, CHUNK_EXP_MAX, CHUNK_EXP_MIN};

const MAIN_EXAMPLES: &str = "\
Examples:
  gcmsiv keygen -o backup.key
  gcmsiv encrypt -k backup.key -o backup.tar.gcmsiv backup.tar
  gcmsiv decrypt -k backup.key -o backup.tar backup.tar.gcmsiv
  tar c data/ | gcmsiv encrypt -p > data.tar.gcmsiv
  GCMSIV_PASS=... gcmsiv decrypt --passphrase-env GCMSIV_PASS data.tar.gcmsiv | tar x

Exit status: 0 success; 1 the input failed authentication or is not a gcmsiv file
(wrong key, corrupted, truncated); 2 usage error, unusable file or I/O failure;
130 interrupted (the unfinished output is removed).
The file format is specified in docs/FORMAT.md.";

const KEYGEN_EXAMPLES: &str = "\
Examples:
  gcmsiv keygen -o backup.key        # new key file, mode 0600; never overwrites
  gcmsiv keygen                      # print a key (store it with mode 0600 yourself)";

const ENCRYPT_EXAMPLES: &str = "\
Examples:
  gcmsiv encrypt -k backup.key -o secrets.env.gcmsiv secrets.env
  gcmsiv encrypt -k backup.key --algorithm aes128 big.iso > big.iso.gcmsiv
  tar c data/ | gcmsiv encrypt -p -o data.tar.gcmsiv
  GCMSIV_PASS=... gcmsiv encrypt --passphrase-env GCMSIV_PASS -o out.gcmsiv in.bin";

const DECRYPT_EXAMPLES: &str = "\
Examples:
  gcmsiv decrypt -k backup.key -o secrets.env secrets.env.gcmsiv
  gcmsiv decrypt -k backup.key backup.tar.gcmsiv | tar x
  gcmsiv decrypt -p --force -o data.tar data.tar.gcmsiv

To standard output, each chunk is written once it is authenticated: if the input
turns out truncated or corrupted, what was written is a correct prefix and the exit
status is 1. With -o, the file appears only if everything decrypted.";

/// Encrypt files with AES-GCM-SIV (RFC 8452): chunked, authenticated, on all cores.
#[derive(Debug, Parser)]
#[command(name = "gcmsiv", version, after_help = MAIN_EXAMPLES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write a new random key file
    #[command(after_help = KEYGEN_EXAMPLES)]
    Keygen(KeygenArgs),
    /// Encrypt a file or standard input
    #[command(after_help = ENCRYPT_EXAMPLES)]
    Encrypt(EncryptArgs),
    /// Decrypt a file or standard input
    #[command(after_help = DECRYPT_EXAMPLES)]
    Decrypt(DecryptArgs),
    /// Show the version, and which AES code this CPU runs (backend and register width)
    Info,
}

#[derive(Debug, Args)]
pub struct KeygenArgs {
    /// Write the key to FILE (created with mode 0600; an existing file is never replaced)
    /// instead of standard output
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// The user's secret: a key file or a passphrase.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("secret").required(true).multiple(true)
    .args(["key_file", "passphrase", "passphrase_env"])))]
pub struct Secret {
    /// Key file made by `gcmsiv keygen`
    #[arg(short, long, value_name = "FILE", conflicts_with_all = ["passphrase", "passphrase_env"])]
    pub key_file: Option<PathBuf>,
    /// Use a passphrase, read from the terminal (stretched with Argon2id)
    #[arg(short, long)]
    pub passphrase: bool,
    /// Use a passphrase, read from the environment variable VAR (for scripts)
    #[arg(long, value_name = "VAR")]
    pub passphrase_env: Option<OsString>,
}

/// Options shared by encrypt and decrypt.
#[derive(Debug, Args)]
pub struct Common {
    /// Input file; standard input if absent or "-"
    #[arg(value_name = "INPUT")]
    pub input: Option<PathBuf>,
    /// Output file; standard output if absent or "-" (refused if it is a terminal)
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace the output file if it exists
    #[arg(short, long)]
    pub force: bool,
    /// No progress bar and no warnings
    #[arg(short, long)]
    pub quiet: bool,
    /// Worker threads for sealing and opening chunks [default: one per core]
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub threads: Option<u16>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AlgorithmArg {
    /// AES-256-GCM-SIV
    Aes256,
    /// AES-128-GCM-SIV
    Aes128,
}

#[derive(Debug, Args)]
pub struct EncryptArgs {
    #[command(flatten)]
    pub secret: Secret,
    #[command(flatten)]
    pub common: Common,
    /// Cipher, recorded in the file's header
    #[arg(short, long, value_enum, default_value_t = AlgorithmArg::Aes256)]
    pub algorithm: AlgorithmArg,
    /// Argon2id memory in KiB, for -p (lower values only for tests)
    #[arg(long, value_name = "KIB", default_value_t = Argon2Cost::DEFAULT.memory_kib,
          conflicts_with = "key_file", help_heading = "Passphrase cost")]
    pub argon2_memory: u32,
    /// Argon2id passes over memory, for -p
    #[arg(long, value_name = "N", default_value_t = Argon2Cost::DEFAULT.iterations,
          conflicts_with = "key_file", help_heading = "Passphrase cost")]
    pub argon2_iterations: u32,
    /// Argon2id lanes, for -p
    #[arg(long, value_name = "N", default_value_t = Argon2Cost::DEFAULT.lanes,
          conflicts_with = "key_file", help_heading = "Passphrase cost")]
    pub argon2_lanes: u32,
    /// Chunk size as a power of two (for tests and experiments; 16 = 64 KiB)
    #[arg(long, value_name = "EXP", hide = true, default_value_t = CHUNK_EXP_DEFAULT,
          value_parser = clap::value_parser!(u8).range(i64::from(CHUNK_EXP_MIN)..=i64::from(CHUNK_EXP_MAX)))]
    pub chunk_size_exp: u8,
}

impl EncryptArgs {
    pub fn argon2_cost(&self) -> Argon2Cost {
        Argon2Cost {
            memory_kib: self.argon2_memory,
            iterations: self.argon2_iterations,
            lanes: self.argon2_lanes,
        }
    }
}

#[derive(Debug, Args)]
pub struct DecryptArgs {
    #[command(flatten)]
    pub secret: Secret,
    #[command(flatten)]
    pub common: Common,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn exactly_one_kind_of_secret() {
        let parse = |args: &[&str]| Cli::try_parse_from(args.iter().copied());
        assert!(parse(&["gcmsiv", "encrypt", "-k", "k", "in"]).is_ok());
        assert!(parse(&["gcmsiv", "encrypt", "-p", "in"]).is_ok());
        assert!(parse(&["gcmsiv", "encrypt", "--passphrase-env", "V", "in"]).is_ok());
        assert!(parse(&["gcmsiv", "encrypt", "-p", "--passphrase-env", "V", "in"]).is_ok());
        assert!(parse(&["gcmsiv", "encrypt", "in"]).is_err());
        assert!(parse(&["gcmsiv", "encrypt", "-k", "k", "-p", "in"]).is_err());
        assert!(parse(&["gcmsiv", "encrypt", "-k", "k", "--argon2-memory", "8", "in"]).is_err());
        assert!(parse(&["gcmsiv", "encrypt", "-k", "k", "--chunk-size-exp", "9", "in"]).is_err());
        assert!(parse(&["gcmsiv", "decrypt", "-k", "k", "--algorithm", "aes128", "in"]).is_err());
    }
}
