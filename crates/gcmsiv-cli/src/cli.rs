//! The command line: subcommands, options and the help text with examples.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand, ValueEnum};

use gcmsiv_stream::Argon2Cost;
use gcmsiv_stream::format::{CHUNK_EXP_DEFAULT, CHUNK_EXP_MAX, CHUNK_EXP_MIN};

const MAIN_EXAMPLES: &str = "\
Examples:
  gcmsiv identity -o me.id           # prints your recipient: give it to senders
  gcmsiv encrypt -r gcmsiv1... -o report.pdf.gcmsiv report.pdf
  gcmsiv decrypt -i me.id -o report.pdf report.pdf.gcmsiv
  gcmsiv keygen -o backup.key
  gcmsiv encrypt -k backup.key -o backup.tar.gcmsiv backup.tar
  gcmsiv decrypt -k backup.key -o backup.tar backup.tar.gcmsiv
  tar c data/ | gcmsiv encrypt -p > data.tar.gcmsiv
  set -o pipefail
  gcmsiv decrypt --passphrase-file pass.txt data.tar.gcmsiv | tar x

Exit status: 0 success; 1 the input failed authentication or is not a gcmsiv file
(wrong key, corrupted, truncated); 2 usage error, unusable file or I/O failure;
130 interrupted (the unfinished output is removed).
Decrypting to standard output writes each chunk once it is authenticated: a
truncated or corrupted input leaves a correct prefix there and exit status 1. In a
pipeline, `set -o pipefail` (bash, zsh, ksh) makes that status the pipeline's.
The file format is specified in docs/FORMAT.md.";

const KEYGEN_EXAMPLES: &str = "\
Examples:
  gcmsiv keygen -o backup.key        # new key file, mode 0600; never overwrites
  gcmsiv keygen                      # print a key (store it with mode 0600 yourself)";

const IDENTITY_EXAMPLES: &str = "\
Examples:
  gcmsiv identity -o me.id                   # X25519; prints the recipient
  gcmsiv identity --post-quantum -o me.id    # ML-KEM-768 + X25519 hybrid
  gcmsiv identity > me.id                    # identity on stdout, recipient on stderr";

const RECIPIENT_EXAMPLES: &str = "\
Examples:
  gcmsiv recipient me.id
  gcmsiv recipient me.id >> team.recipients";

const ENCRYPT_EXAMPLES: &str = "\
Examples:
  gcmsiv encrypt -r gcmsiv1... -r gcmsivpq1... -o plan.txt.gcmsiv plan.txt
  gcmsiv encrypt -R team.recipients -a -o plan.txt.asc plan.txt   # ASCII armor
  tar c data/ | gcmsiv encrypt -R backup.recipients > data.tar.gcmsiv
  gcmsiv encrypt -k backup.key -o secrets.env.gcmsiv secrets.env
  gcmsiv encrypt -k backup.key --algorithm aes128 big.iso > big.iso.gcmsiv
  tar c data/ | gcmsiv encrypt -p -o data.tar.gcmsiv
  gcmsiv encrypt --passphrase-file pass.txt -o out.gcmsiv in.bin
  gcmsiv encrypt --passphrase-fd 3 -o out.gcmsiv in.bin 3< pass.txt
  GCMSIV_PASS=... gcmsiv encrypt --passphrase-env GCMSIV_PASS -o out.gcmsiv in.bin";

const DECRYPT_EXAMPLES: &str = "\
Examples:
  gcmsiv decrypt -i me.id -o plan.txt plan.txt.gcmsiv
  gcmsiv decrypt -i me.id --offset 1048576 --length 4096 big.gcmsiv > part.bin
  gcmsiv decrypt -k backup.key -o secrets.env secrets.env.gcmsiv
  set -o pipefail
  gcmsiv decrypt -k backup.key backup.tar.gcmsiv | tar x
  gcmsiv decrypt -p --force -o data.tar data.tar.gcmsiv

To standard output, each chunk is written once it is authenticated: if the input
turns out truncated or corrupted, what was written is a correct prefix and the exit
status is 1. Without `set -o pipefail` a pipeline's status is its last command's
(`tar x` may succeed on a prefix that ends between two files): set it. With -o, the
file appears only if everything decrypted. Armored files (-a) are recognized
without an option. --offset and --length read a range of a (binary) file,
authenticating only the chunks that hold it and the final chunk: exit status 0 then
says the range is authentic, not that the rest of the file is intact (add
--verify-all for that).";

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
    /// Write a new identity (private key) and print its recipient (public key)
    #[command(after_help = IDENTITY_EXAMPLES)]
    Identity(IdentityArgs),
    /// Print the recipient (public key) of each identity in a file
    #[command(after_help = RECIPIENT_EXAMPLES)]
    Recipient(RecipientArgs),
    /// Encrypt a file or standard input
    #[command(after_help = ENCRYPT_EXAMPLES)]
    Encrypt(EncryptArgs),
    /// Decrypt a file or standard input
    #[command(after_help = DECRYPT_EXAMPLES)]
    Decrypt(DecryptArgs),
    /// Show the version, and which AES code this CPU runs (backend and register width)
    Info,
    /// Tink keysets: make and rotate them, and encrypt or decrypt a message with one
    #[command(after_help = KEYSET_EXAMPLES)]
    Keyset(KeysetArgs),
}

const KEYSET_EXAMPLES: &str = "\
Examples:
  gcmsiv keygen -o master.key
  gcmsiv keyset new --master-key master.key -o keys.json          # AES256_GCM_SIV
  gcmsiv keyset add --master-key master.key keys.json             # prints the new key id
  gcmsiv keyset promote --master-key master.key keys.json 1234567
  gcmsiv keyset encrypt --master-key master.key keys.json -o msg.bin msg.txt
  gcmsiv keyset disable --master-key master.key keys.json 7654321
  gcmsiv keyset list --cleartext tink-keyset.json                 # a cleartext Tink keyset

Keysets are Tink's (JSON or binary protobuf, written back in the format they were
read in), encrypted as Tink's EncryptedKeyset under a key derived from the key file
given with --master-key; --cleartext reads and writes them unencrypted (anyone who can
read such a file has the keys). Ciphertexts are Tink's: any Tink AEAD with the same
keyset opens them, and this opens Tink's.";

#[derive(Debug, Args)]
pub struct KeysetArgs {
    #[command(subcommand)]
    pub command: KeysetCommand,
}

/// How the keyset file is protected: exactly one of the two.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub struct KeysetAccess {
    /// The keyset is encrypted under a key derived from this key file (`gcmsiv keygen`)
    #[arg(long, value_name = "FILE")]
    pub master_key: Option<PathBuf>,
    /// The keyset is not encrypted: its keys are in the file in the clear
    #[arg(long)]
    pub cleartext: bool,
}

/// A keyset file to change in place, and how it is protected.
#[derive(Debug, Args)]
pub struct KeysetFile {
    #[command(flatten)]
    pub access: KeysetAccess,
    /// The keyset file (Tink's JSON or binary; rewritten in place, in its format)
    #[arg(value_name = "KEYSET")]
    pub keyset: PathBuf,
}

/// A keyset file and one of its key ids.
#[derive(Debug, Args)]
pub struct KeysetKey {
    #[command(flatten)]
    pub file: KeysetFile,
    /// The key's id, as `gcmsiv keyset list` shows it
    #[arg(value_name = "KEY_ID")]
    pub key_id: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TemplateArg {
    #[value(name = "AES256_GCM_SIV")]
    Aes256GcmSiv,
    #[value(name = "AES128_GCM_SIV")]
    Aes128GcmSiv,
    #[value(name = "AES256_GCM")]
    Aes256Gcm,
    #[value(name = "AES128_GCM")]
    Aes128Gcm,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PrefixArg {
    /// 0x01 and the key id (Tink's default)
    Tink,
    /// 0x00 and the key id
    Legacy,
    /// 0x00 and the key id
    Crunchy,
    /// None: the key is found by trial decryption
    Raw,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum KeysetFormatArg {
    /// Tink's JSON
    Json,
    /// Tink's binary protobuf
    Binary,
}

/// The kind of a new key.
#[derive(Debug, Args)]
pub struct KeyTemplate {
    /// The key's algorithm (Tink's template name)
    #[arg(long, value_enum, default_value_t = TemplateArg::Aes256GcmSiv)]
    pub template: TemplateArg,
    /// What its ciphertexts start with
    #[arg(long, value_enum, default_value_t = PrefixArg::Tink)]
    pub prefix: PrefixArg,
}

/// A message to encrypt or decrypt with a keyset.
#[derive(Debug, Args)]
pub struct KeysetMessage {
    #[command(flatten)]
    pub access: KeysetAccess,
    /// The keyset file
    #[arg(value_name = "KEYSET")]
    pub keyset: PathBuf,
    /// Input file; standard input if absent or "-" (read whole: a message, not a
    /// stream; for large files use `gcmsiv encrypt`)
    #[arg(value_name = "INPUT")]
    pub input: Option<PathBuf>,
    /// Output file; standard output if absent or "-" (refused if it is a terminal)
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace the output file if it exists
    #[arg(short, long)]
    pub force: bool,
    /// Associated data: authenticated with the message, not encrypted, and needed
    /// again (the same) to decrypt
    #[arg(long, value_name = "TEXT", default_value = "")]
    pub associated_data: String,
}

#[derive(Debug, Subcommand)]
pub enum KeysetCommand {
    /// Write a new keyset of one key, its primary
    New {
        #[command(flatten)]
        access: KeysetAccess,
        #[command(flatten)]
        template: KeyTemplate,
        /// The keyset file's format
        #[arg(long, value_enum, default_value_t = KeysetFormatArg::Json)]
        format: KeysetFormatArg,
        /// Write the keyset to FILE (created with mode 0600; an existing file is
        /// never replaced) instead of standard output
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Add a new enabled key (not primary unless --promote) and print its id
    Add {
        #[command(flatten)]
        file: KeysetFile,
        #[command(flatten)]
        template: KeyTemplate,
        /// Make the new key the primary at once
        #[arg(long)]
        promote: bool,
    },
    /// Make a key the primary: it encrypts from now on
    Promote(KeysetKey),
    /// Stop using a key (its ciphertexts no longer decrypt) but keep it
    Disable(KeysetKey),
    /// Use a disabled key again
    Enable(KeysetKey),
    /// Destroy a key's material, keeping its id (its ciphertexts are lost for good)
    Destroy(KeysetKey),
    /// Remove a key and its id from the keyset
    Delete(KeysetKey),
    /// List the keys: id, status, prefix, algorithm, which one is primary
    List {
        #[command(flatten)]
        file: KeysetFile,
    },
    /// Encrypt a message with the primary key (Tink's ciphertext format)
    Encrypt(KeysetMessage),
    /// Decrypt a message made with any enabled key of the keyset (or by Tink)
    Decrypt(KeysetMessage),
}

#[derive(Debug, Args)]
pub struct KeygenArgs {
    /// Write the key to FILE (created with mode 0600; an existing file is never replaced)
    /// instead of standard output
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct IdentityArgs {
    /// Write the identity to FILE (created with mode 0600; an existing file is never
    /// replaced) and its recipient to standard output; without it, the identity goes
    /// to standard output and the recipient to standard error
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// A post-quantum hybrid identity (ML-KEM-768 with X25519): files to it stay
    /// secret if either holds. Its recipient is about 1950 characters long
    #[arg(long)]
    pub post_quantum: bool,
}

#[derive(Debug, Args)]
pub struct RecipientArgs {
    /// Identity file ("-" for standard input)
    #[arg(value_name = "IDENTITY_FILE")]
    pub identity: PathBuf,
}

/// The user's secret: a key file, a passphrase, or identities (private keys).
/// Which of them may be given is the subcommand's `secret` group.
#[derive(Debug, Args)]
pub struct Secret {
    /// Key file made by `gcmsiv keygen`
    #[arg(short, long, value_name = "FILE",
          conflicts_with_all = ["passphrase", "passphrase_env", "passphrase_file", "passphrase_fd", "identity"])]
    pub key_file: Option<PathBuf>,
    /// Identity file made by `gcmsiv identity` (repeatable): decrypt with it, or
    /// encrypt to its recipient
    #[arg(short, long, value_name = "FILE",
          conflicts_with_all = ["passphrase", "passphrase_env", "passphrase_file", "passphrase_fd"])]
    pub identity: Vec<PathBuf>,
    /// Use a passphrase, read from the terminal (stretched with Argon2id)
    #[arg(short, long)]
    pub passphrase: bool,
    /// Use a passphrase, read from the environment variable VAR (for scripts)
    #[arg(long, value_name = "VAR", conflicts_with_all = ["passphrase_file", "passphrase_fd"])]
    pub passphrase_env: Option<OsString>,
    /// Use a passphrase, read from FILE: its first line, without the line ending
    #[arg(long, value_name = "FILE", conflicts_with = "passphrase_fd")]
    pub passphrase_file: Option<PathBuf>,
    /// Use a passphrase, read from the open file descriptor N (a pipe from a
    /// password manager, say): its first line, without the line ending
    #[arg(long, value_name = "N")]
    pub passphrase_fd: Option<i32>,
}

impl Secret {
    /// Where the passphrase comes from (when no key file is given).
    pub fn passphrase_source(&self) -> PassphraseSource {
        if let Some(var) = &self.passphrase_env {
            PassphraseSource::Env(var.clone())
        } else if let Some(path) = &self.passphrase_file {
            PassphraseSource::File(path.clone())
        } else if let Some(fd) = self.passphrase_fd {
            PassphraseSource::Fd(fd)
        } else {
            PassphraseSource::Terminal
        }
    }
}

/// Where a passphrase is read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PassphraseSource {
    /// The terminal, never echoed.
    Terminal,
    /// An environment variable.
    Env(OsString),
    /// A file's first line.
    File(PathBuf),
    /// An open file descriptor's first line.
    Fd(i32),
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
    /// No progress bar (warnings about weak or exposed secrets are still shown)
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
#[command(group(ArgGroup::new("secret").required(true).multiple(true)
    .args(["key_file", "passphrase", "passphrase_env", "passphrase_file", "passphrase_fd",
           "identity", "recipient", "recipients_file"])))]
pub struct EncryptArgs {
    #[command(flatten)]
    pub secret: Secret,
    /// Encrypt to this recipient (public key: gcmsiv1... or gcmsivpq1...; repeatable).
    /// Never with a passphrase: anyone can encrypt to a recipient, so a file that
    /// also opened with a passphrase would no longer prove that whoever wrote it
    /// knew the passphrase
    #[arg(short, long, value_name = "RECIPIENT",
          conflicts_with_all = ["key_file", "passphrase", "passphrase_env", "passphrase_file", "passphrase_fd"])]
    pub recipient: Vec<String>,
    /// Encrypt to the recipients listed in FILE (one a line, # comments; repeatable)
    #[arg(short = 'R', long, value_name = "FILE",
          conflicts_with_all = ["key_file", "passphrase", "passphrase_env", "passphrase_file", "passphrase_fd"])]
    pub recipients_file: Vec<PathBuf>,
    /// Allow post-quantum (gcmsivpq1...) and X25519 (gcmsiv1...) recipients in
    /// one file, which is then only as safe as X25519 against a quantum computer
    #[arg(long)]
    pub allow_mixed_recipients: bool,
    #[command(flatten)]
    pub common: Common,
    /// Write ASCII armor (PEM-style Base64) instead of binary
    #[arg(short, long)]
    pub armor: bool,
    /// Cipher, recorded in the file's header
    #[arg(long, value_enum, default_value_t = AlgorithmArg::Aes256)]
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
    /// Accept Argon2id costs below OWASP's minimum (19 MiB with 2 passes, or its
    /// equivalents) without a warning: for tests, or for a passphrase with the
    /// strength of a key
    #[arg(long, conflicts_with = "key_file", help_heading = "Passphrase cost")]
    pub allow_weak_argon2: bool,
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
#[command(group(ArgGroup::new("secret").required(true).multiple(true)
    .args(["key_file", "passphrase", "passphrase_env", "passphrase_file", "passphrase_fd", "identity"])))]
pub struct DecryptArgs {
    #[command(flatten)]
    pub secret: Secret,
    #[command(flatten)]
    pub common: Common,
    /// Write only the plaintext from byte N on (a seekable binary input; only the
    /// chunks the range touches are read and authenticated)
    #[arg(long, value_name = "N")]
    pub offset: Option<u64>,
    /// Write at most M bytes of plaintext (to the end if fewer remain; nothing past it)
    #[arg(long, value_name = "M")]
    pub length: Option<u64>,
    /// With --offset/--length: authenticate every chunk of the file before writing
    /// the range, so that exit status 0 means the whole file is intact (without it,
    /// only the chunks the range touches and the final chunk are checked)
    #[arg(long)]
    pub verify_all: bool,
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
    fn keysets_need_a_master_key_or_cleartext() {
        let parse = |args: &[&str]| Cli::try_parse_from(args.iter().copied());
        assert!(parse(&["gcmsiv", "keyset", "list", "--cleartext", "k.json"]).is_ok());
        assert!(parse(&["gcmsiv", "keyset", "list", "--master-key", "m.key", "k.json"]).is_ok());
        assert!(parse(&["gcmsiv", "keyset", "list", "k.json"]).is_err());
        assert!(parse(&["gcmsiv", "keyset", "list", "--cleartext", "--master-key", "m", "k.json"]).is_err());
        assert!(parse(&["gcmsiv", "keyset", "new", "--cleartext", "--template", "AES128_GCM"]).is_ok());
        assert!(parse(&["gcmsiv", "keyset", "new", "--cleartext", "--template", "AES192_GCM"]).is_err());
        assert!(parse(&["gcmsiv", "keyset", "promote", "--cleartext", "k.json", "12"]).is_ok());
        assert!(parse(&["gcmsiv", "keyset", "promote", "--cleartext", "k.json", "-1"]).is_err());
        assert!(parse(&["gcmsiv", "keyset", "encrypt", "--cleartext", "k.json", "in", "-o", "out"]).is_ok());
    }

    #[test]
    fn exactly_one_kind_of_secret() {
        let parse = |args: &[&str]| Cli::try_parse_from(args.iter().copied());
        assert!(parse(&["gcmsiv", "encrypt", "-k", "k", "in"]).is_ok());
        assert!(parse(&["gcmsiv", "encrypt", "-p", "in"]).is_ok());
        assert!(parse(&["gcmsiv", "encrypt", "--passphrase-env", "V", "in"]).is_ok());
        assert!(parse(&["gcmsiv", "encrypt", "-p", "--passphrase-env", "V", "in"]).is_ok());
        assert!(parse(&["gcmsiv", "encrypt", "--passphrase-file", "f", "in"]).is_ok());
        assert!(parse(&["gcmsiv", "decrypt", "--passphrase-fd", "3", "in"]).is_ok());
        assert!(
            parse(&["gcmsiv", "encrypt", "--passphrase-file", "f", "--passphrase-fd", "3", "in"]).is_err()
        );
        assert!(
            parse(&["gcmsiv", "encrypt", "--passphrase-env", "V", "--passphrase-fd", "3", "in"]).is_err()
        );
        assert!(parse(&["gcmsiv", "encrypt", "-k", "k", "--passphrase-file", "f", "in"]).is_err());
        assert!(parse(&["gcmsiv", "encrypt", "in"]).is_err());
        assert!(parse(&["gcmsiv", "encrypt", "-k", "k", "-p", "in"]).is_err());
        assert!(parse(&["gcmsiv", "encrypt", "-k", "k", "--argon2-memory", "8", "in"]).is_err());
        assert!(parse(&["gcmsiv", "encrypt", "-k", "k", "--chunk-size-exp", "9", "in"]).is_err());
        assert!(parse(&["gcmsiv", "decrypt", "-k", "k", "--algorithm", "aes128", "in"]).is_err());
        assert!(parse(&["gcmsiv", "encrypt", "-r", "r", "-r", "s", "-R", "f", "-i", "me.id", "in"]).is_ok());
        assert!(parse(&["gcmsiv", "encrypt", "-a", "-R", "f", "in"]).is_ok());
        assert!(parse(&["gcmsiv", "encrypt", "-r", "r", "-p", "in"]).is_err());
        assert!(parse(&["gcmsiv", "encrypt", "-R", "f", "--passphrase-env", "V", "in"]).is_err());
        assert!(parse(&["gcmsiv", "encrypt", "-i", "me.id", "--passphrase-fd", "3", "in"]).is_err());
        assert!(parse(&["gcmsiv", "encrypt", "-r", "r", "-k", "k", "in"]).is_err());
        assert!(parse(&["gcmsiv", "decrypt", "-i", "a.id", "-i", "b.id", "in"]).is_ok());
        assert!(parse(&["gcmsiv", "decrypt", "-i", "a.id", "--offset", "5", "--length", "9", "in"]).is_ok());
        assert!(parse(&["gcmsiv", "decrypt", "-r", "r", "in"]).is_err());
        assert!(parse(&["gcmsiv", "decrypt", "-i", "a.id", "-p", "in"]).is_err());
    }
}
