//! The subcommands, each in the order that keeps the user's data safe: check
//! every argument and file first, then ask for secrets, then do the work, then make
//! the output final.

use std::fs::File;
use std::io::{self, IsTerminal, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use zeroize::Zeroizing;

use gcmsiv_stream::armor::{ArmorError, ArmoredWriter, MaybeArmored};
use gcmsiv_stream::{
    Algorithm, Argon2Cost, DecodeError, Decryptor, Encryptor, Header, Identity, KEY_FILE_MAX, KeyMode,
    MasterKey, Options, Recipient, RecipientKind, Secret, SeekableDecryptor,
};

use crate::cli::{
    AlgorithmArg, Common, DecryptArgs, EncryptArgs, IdentityArgs, KeygenArgs, PassphraseSource,
    RecipientArgs, Secret as Secret_,
};
use crate::error::{Failure, io_reason};
use crate::output::{Destination, sync_parent_dir, temp_beside};
use crate::{passphrase, progress};

const TO_TERMINAL_HINT: &str = "use -o FILE or redirect standard output";

/// `gcmsiv info`: the version, the backend files are encrypted on, and the
/// others this CPU could run, each with its register width.
pub fn info() -> Result<(), Failure> {
    let available: Vec<String> =
        gcmsiv::Backend::available().into_iter().flatten().map(|b| b.to_string()).collect();
    println!("gcmsiv {}", env!("CARGO_PKG_VERSION"));
    println!("backend: {}", gcmsiv::Backend::select());
    println!("available: {}", available.join(", "));
    println!("threads: {}", std::thread::available_parallelism().map_or(1, |n| n.get()));
    Ok(())
}

pub fn keygen(args: KeygenArgs) -> Result<(), Failure> {
    let key = MasterKey::generate()
        .map_err(|e| Failure::usage(format!("cannot get random bytes from the operating system: {e}")))?;
    let text = key.to_key_file();
    match args.output.filter(|p| p != Path::new("-")) {
        Some(path) => write_secret_file(&path, text.as_bytes(), "key file"),
        None => write_stdout(text.as_bytes()),
    }
}

/// `gcmsiv identity`: a new identity, and its recipient on standard output
/// (standard error when the identity itself goes to standard output).
pub fn identity(args: IdentityArgs) -> Result<(), Failure> {
    let kind = if args.post_quantum { RecipientKind::Hybrid } else { RecipientKind::X25519 };
    let identity = Identity::generate(kind)
        .map_err(|e| Failure::usage(format!("cannot get random bytes from the operating system: {e}")))?;
    let text = identity.to_identity_file();
    let recipient = identity.recipient().to_string();
    match args.output.filter(|p| p != Path::new("-")) {
        Some(path) => {
            write_secret_file(&path, text.as_bytes(), "identity file")?;
            write_stdout(format!("{recipient}\n").as_bytes())
        }
        None => {
            write_stdout(text.as_bytes())?;
            eprintln!("Recipient: {recipient}");
            Ok(())
        }
    }
}

/// `gcmsiv recipient`: the recipient of each identity in a file, one a line.
pub fn recipient(args: RecipientArgs) -> Result<(), Failure> {
    let identities = read_identities(&args.identity)?;
    let mut out = String::new();
    for identity in identities {
        out.push_str(&identity.recipient().to_string());
        out.push('\n');
    }
    write_stdout(out.as_bytes())
}

pub(crate) fn write_stdout(bytes: &[u8]) -> Result<(), Failure> {
    io::stdout()
        .write_all(bytes)
        .map_err(|e| Failure::usage(format!("cannot write standard output: {}", io_reason(&e))))
}

/// Creates a file that holds a secret: mode 0600 from the start, never over an
/// existing file, synced with its directory (a key whose backups were made must
/// not vanish in a power loss).
pub(crate) fn write_secret_file(path: &Path, bytes: &[u8], what: &str) -> Result<(), Failure> {
    let exists =
        || Failure::usage(format!("{} already exists: refusing to overwrite a {what}", path.display()));
    if path.symlink_metadata().is_ok() {
        return Err(exists());
    }
    // Temporary files are created with mode 0600, so the secret is never readable by others.
    let mut temp = temp_beside(path)?;
    temp.write_all(bytes)
        .and_then(|()| temp.as_file().sync_all())
        .map_err(|e| Failure::io("cannot write", path, e))?;
    temp.persist_noclobber(path).map_err(|e| match e.error.kind() {
        io::ErrorKind::AlreadyExists => exists(),
        _ => Failure::io("cannot create", path, e.error),
    })?;
    sync_parent_dir(path);
    Ok(())
}

pub fn encrypt(args: EncryptArgs) -> Result<(), Failure> {
    let input = Input::open(args.common.input.as_deref())?;
    let destination = input.destination(&args.common, args.secret.key_file.as_deref())?;
    let algorithm = match args.algorithm {
        AlgorithmArg::Aes128 => Algorithm::Aes128GcmSiv,
        AlgorithmArg::Aes256 => Algorithm::Aes256GcmSiv,
    };
    let chunk_size = 1usize << args.chunk_size_exp;
    let mut options = Options::new().algorithm(algorithm).chunk_size(chunk_size).map_err(usage)?;
    let to_recipients = !args.recipient.is_empty() || !args.recipients_file.is_empty();
    let secret = match &args.secret.key_file {
        Some(path) => Secret::Key(read_key_file(path)?),
        None if to_recipients || !args.secret.identity.is_empty() => {
            let recipients = collect_recipients(&args)?;
            let kinds = |kind| recipients.iter().any(|r: &Recipient| r.kind() == kind);
            let mixed = kinds(RecipientKind::X25519) && kinds(RecipientKind::Hybrid);
            match (mixed, args.allow_mixed_recipients) {
                (true, false) => {
                    return Err(Failure::usage(
                        "post-quantum (gcmsivpq1...) and X25519 (gcmsiv1...) recipients in one file: it \
                         would be only as safe as X25519 against a quantum computer; use one kind \
                         (--allow-mixed-recipients to write it anyway)",
                    ));
                }
                (true, true) => Secret::MixedRecipients(recipients),
                (false, _) => Secret::Recipients(recipients),
            }
        }
        None => {
            let cost = args.argon2_cost();
            options = options.argon2_cost(cost).map_err(usage)?;
            if !args.allow_weak_argon2 && !meets_owasp_minimum(cost) {
                eprintln!(
                    "gcmsiv: warning: Argon2id with {} KiB and {} pass(es) is below OWASP's minimum \
                     (19 MiB with 2 passes, or an equivalent): a weak passphrase is cheap to guess \
                     (--allow-weak-argon2 to accept it)",
                    cost.memory_kib, cost.iterations
                );
            }
            let source = passphrase_source(&args.secret, &input)?;
            let passphrase = passphrase::read(&source, true)?;
            Secret::passphrase(passphrase.as_bytes())
        }
    };

    let (file, sink) = destination.open()?;
    let progress = progress::bar(input.size, args.common.quiet);
    let names = Names { input: input.name, output: sink.name() };
    let bar = progress.clone();
    if args.armor {
        let encryptor =
            Encryptor::new(ArmoredWriter::new(file), &secret, &options).map_err(|e| names.failure(e))?;
        drop(secret);
        let armored = encryptor
            .encrypt_from_pipelined(input.file, move |n| bar.inc(n))
            .map_err(|e| names.failure(e))?;
        let file = armored.finish().map_err(|e| names.failure(gcmsiv_stream::Error::Write(e)))?;
        drop(file);
    } else {
        let encryptor = Encryptor::new(file, &secret, &options).map_err(|e| names.failure(e))?;
        drop(secret);
        let file = encryptor
            .encrypt_from_pipelined(input.file, move |n| bar.inc(n))
            .map_err(|e| names.failure(e))?;
        drop(file);
    }
    progress.finish_and_clear();
    sink.commit()
}

pub fn decrypt(args: DecryptArgs) -> Result<(), Failure> {
    let input = Input::open(args.common.input.as_deref())?;
    let destination = input.destination(&args.common, args.secret.key_file.as_deref())?;
    // Armor is recognized by its first bytes; the range reader needs the binary file.
    let file = input.file.try_clone().map_err(|e| input.read_failure(&e))?;
    let mut source = MaybeArmored::new(file).map_err(|e| input.input_failure(e))?;
    if source.is_armored() && (args.offset.is_some() || args.length.is_some()) {
        return Err(Failure::usage(
            "--offset and --length need a binary file: decrypt an armored file whole",
        ));
    }
    // The header says which kind of secret to ask for; the decryptor reads it again.
    let head = read_header(&mut source, &input)?;
    let (header, _) = Header::parse(&head)?;
    let secret = match (header.key_mode, &args.secret) {
        (KeyMode::KeyFile, Secret_ { key_file: Some(path), .. }) => Secret::Key(read_key_file(path)?),
        (KeyMode::Recipients, Secret_ { identity, .. }) if !identity.is_empty() => {
            let mut all = Vec::new();
            for path in identity {
                all.extend(read_identities(path)?);
            }
            Secret::Identities(all)
        }
        (KeyMode::Passphrase(_), Secret_ { key_file: None, identity, .. }) if identity.is_empty() => {
            let source = passphrase_source(&args.secret, &input)?;
            let passphrase = passphrase::read(&source, false)?;
            Secret::passphrase(passphrase.as_bytes())
        }
        (KeyMode::Recipients, _) => return Err(DecodeError::NeedsIdentity.into()),
        (mode, Secret_ { identity, .. }) if !identity.is_empty() => {
            let file_uses_passphrase = matches!(mode, KeyMode::Passphrase(_));
            return Err(DecodeError::NotForIdentities { file_uses_passphrase }.into());
        }
        (mode, _) => {
            let file_uses_passphrase = matches!(mode, KeyMode::Passphrase(_));
            return Err(DecodeError::WrongKeyMode { file_uses_passphrase }.into());
        }
    };
    let names = Names { input: input.name.clone(), output: String::new() };
    if args.offset.is_some() || args.length.is_some() {
        return decrypt_range(args, input, destination, &secret, names);
    }
    if args.verify_all {
        return Err(Failure::usage(
            "--verify-all is for --offset/--length: a whole decryption checks every chunk",
        ));
    }
    let decryptor =
        Decryptor::new(io::Cursor::new(head).chain(source), &secret).map_err(|e| names.failure(e))?;
    drop(secret);

    let (file, sink) = destination.open()?;
    let progress = progress::bar(input.size, args.common.quiet);
    let names = Names { input: input.name, output: sink.name() };
    let bar = progress.clone();
    let file = decryptor.decrypt_to_pipelined(file, move |n| bar.inc(n)).map_err(|e| names.failure(e))?;
    drop(file);
    progress.finish_and_clear();
    sink.commit()
}

/// `decrypt --offset N --length M`: only the chunks that hold the range are
/// read and authenticated (the final chunk too, which fixes the length).
fn decrypt_range(
    args: DecryptArgs,
    input: Input,
    destination: Destination,
    secret: &Secret,
    names: Names,
) -> Result<(), Failure> {
    if !input.meta.is_file() {
        return Err(Failure::usage(format!(
            "--offset and --length need a file that can be read at any position; {} cannot",
            input.name
        )));
    }
    let mut reader = SeekableDecryptor::new(input.file, secret).map_err(|e| names.failure(e))?;
    // Like a slice, or a seek past the end: a range beyond the plaintext is empty.
    let offset = args.offset.unwrap_or(0).min(reader.len());
    let length = args.length.unwrap_or(u64::MAX).min(reader.len() - offset);
    let (mut file, sink) = destination.open()?;
    let names = Names { input: input.name, output: sink.name() };
    let mut buf = vec![0u8; 1 << 20];
    let read_failure = |e: io::Error, names: &Names| match DecodeError::from_io(&e) {
        Some(err) => Failure::Data(err.clone()),
        None => names.failure(gcmsiv_stream::Error::Read(e)),
    };
    if args.verify_all {
        // Every chunk authenticated (and its plaintext dropped) before any
        // byte of the range is written.
        let mut at = 0;
        while at < reader.len() {
            let got = reader.read_at(at, &mut buf).map_err(|e| read_failure(e, &names))?;
            if got == 0 {
                break;
            }
            at += got as u64;
        }
        buf.fill(0);
    }
    let mut at = offset;
    while at < offset + length {
        let want = usize::try_from((offset + length - at).min(buf.len() as u64)).unwrap_or(buf.len());
        let got = reader.read_at(at, &mut buf[..want]).map_err(|e| read_failure(e, &names))?;
        if got == 0 {
            break;
        }
        file.write_all(&buf[..got]).map_err(|e| names.failure(gcmsiv_stream::Error::Write(e)))?;
        at += got as u64;
    }
    drop(file);
    sink.commit()
}

/// Reads the whole header from the input (as long as the header says it is,
/// within the format's limits) without looking further.
fn read_header(source: &mut impl Read, input: &Input) -> Result<Vec<u8>, Failure> {
    let mut head = Vec::with_capacity(gcmsiv_stream::format::HEADER_LEN);
    loop {
        let need = Header::needed(&head)?;
        if need <= head.len() {
            return Ok(head);
        }
        let have = head.len();
        head.resize(need, 0);
        let got = read_full(source, &mut head[have..]).map_err(|e| input.input_failure(e))?;
        if got < need - have {
            head.truncate(have + got);
            return Ok(head);
        }
    }
}

/// Every recipient of `-r`, `-R` and `-i` (an identity's own recipient), in order.
fn collect_recipients(args: &EncryptArgs) -> Result<Vec<Recipient>, Failure> {
    let mut recipients = Vec::new();
    for text in &args.recipient {
        let recipient = Recipient::parse(text).map_err(|why| {
            // Never echo what may be an identity pasted by mistake.
            let shown = if text.len() > 24 {
                format!("{}...", text.chars().take(16).collect::<String>())
            } else {
                text.clone()
            };
            Failure::usage(format!("-r {shown}: {why}"))
        })?;
        recipients.push(recipient);
    }
    for path in &args.recipients_file {
        let list =
            Recipient::load_list(path).map_err(|e| Failure::usage(format!("{}: {e}", path.display())))?;
        if list.is_empty() {
            return Err(Failure::usage(format!("{} lists no recipient", path.display())));
        }
        recipients.extend(list);
    }
    for path in &args.secret.identity {
        recipients.extend(read_identities(path)?.iter().map(Identity::recipient));
    }
    if recipients.len() > gcmsiv_stream::format::MAX_STANZAS {
        return Err(Failure::usage(format!(
            "{} recipients: a file can be encrypted to at most {}",
            recipients.len(),
            gcmsiv_stream::format::MAX_STANZAS
        )));
    }
    Ok(recipients)
}

/// Reads an identity file ("-": standard input); warns if others can read it.
fn read_identities(path: &Path) -> Result<Vec<Identity>, Failure> {
    let not_identity =
        |why: String| Failure::usage(format!("{} is not a gcmsiv identity file: {why}", path.display()));
    // Room for the most that is read, so the buffer never grows (a growing
    // buffer frees its old copy of the identities unwiped).
    let mut bytes = Zeroizing::new(Vec::with_capacity(IDENTITY_READ_LIMIT as usize));
    if path == Path::new("-") {
        io::stdin()
            .take(IDENTITY_READ_LIMIT)
            .read_to_end(&mut bytes)
            .map_err(|e| Failure::usage(format!("cannot read standard input: {}", io_reason(&e))))?;
    } else {
        let file = File::open(path).map_err(|e| Failure::io("cannot read identity file", path, e))?;
        let meta = file.metadata().map_err(|e| Failure::io("cannot read identity file", path, e))?;
        if meta.permissions().mode() & 0o077 != 0 {
            eprintln!(
                "gcmsiv: warning: identity file {} is accessible by other users (chmod 600 it)",
                path.display()
            );
        }
        file.take(IDENTITY_READ_LIMIT)
            .read_to_end(&mut bytes)
            .map_err(|e| Failure::io("cannot read identity file", path, e))?;
    }
    if bytes.len() as u64 > gcmsiv_stream::recipients::IDENTITY_FILE_MAX {
        return Err(not_identity("it is over 64 KiB".into()));
    }
    let text = std::str::from_utf8(&bytes).map_err(|_| not_identity("it is not text".into()))?;
    Identity::parse_list(text).map_err(not_identity)
}

/// Bytes read of an identity file: one more than it may hold, so that a larger one is seen.
const IDENTITY_READ_LIMIT: u64 = gcmsiv_stream::recipients::IDENTITY_FILE_MAX + 1;

/// How messages name the input and the output.
struct Names {
    input: String,
    output: String,
}

impl Names {
    /// The failure to report for a library error.
    fn failure(&self, err: gcmsiv_stream::Error) -> Failure {
        match err {
            gcmsiv_stream::Error::Decode(err) => Failure::Data(err),
            gcmsiv_stream::Error::Read(e) => match ArmorError::from_io(&e) {
                Some(armor) => Failure::Armor(armor.to_string()),
                None => Failure::usage(format!("cannot read {}: {}", self.input, io_reason(&e))),
            },
            gcmsiv_stream::Error::Write(e) => {
                Failure::usage(format!("cannot write {}: {}", self.output, io_reason(&e)))
            }
            other => Failure::usage(other.to_string()),
        }
    }
}

fn usage(err: gcmsiv_stream::Error) -> Failure {
    Failure::usage(err.to_string())
}

/// The input: a named file or a duplicate of standard input.
struct Input {
    file: File,
    /// Bytes, if the input is a regular file.
    size: Option<u64>,
    name: String,
    meta: std::fs::Metadata,
    /// Whether the input is standard input.
    is_stdin: bool,
}

impl Input {
    fn open(path: Option<&Path>) -> Result<Self, Failure> {
        let (file, name, is_stdin) = match path {
            Some(path) if path != Path::new("-") => {
                let file = File::open(path).map_err(|e| Failure::io("cannot open", path, e))?;
                (file, path.display().to_string(), false)
            }
            _ => {
                if path.is_none() && io::stdin().is_terminal() {
                    return Err(Failure::usage(
                        "no input: name a file, or pipe data to standard input (use - to type it)",
                    ));
                }
                // A duplicate of fd 0 as a plain file: unbuffered, so large reads go straight in.
                let fd = io::stdin()
                    .as_fd()
                    .try_clone_to_owned()
                    .map_err(|e| Failure::usage(format!("cannot use standard input: {}", io_reason(&e))))?;
                (File::from(fd), "standard input".to_string(), true)
            }
        };
        let meta =
            file.metadata().map_err(|e| Failure::usage(format!("cannot read {name}: {}", io_reason(&e))))?;
        if meta.is_dir() {
            return Err(Failure::usage(format!("{name} is a directory")));
        }
        let size = meta.is_file().then_some(meta.len());
        Ok(Input { file, size, name, meta, is_stdin })
    }

    /// Where the output of this input goes ([`Destination::plan`]), refusing standard
    /// output redirected onto the input file (`>> f`, `1<> f`: the output would be
    /// read back as input) or onto the key file.
    fn destination(&self, common: &Common, key_file: Option<&Path>) -> Result<Destination, Failure> {
        let destination =
            Destination::plan(common.output.as_deref(), common.force, TO_TERMINAL_HINT, key_file)?;
        if matches!(destination, Destination::Stdout) {
            if self.meta.is_file() && crate::output::stdout_is(&self.meta) {
                return Err(Failure::usage(format!("standard output is the input file, {}", self.name)));
            }
            let key = key_file.and_then(|k| std::fs::metadata(k).ok());
            if key.is_some_and(|key| crate::output::stdout_is(&key)) {
                return Err(Failure::usage(
                    "standard output is the key file: refusing to write over the key",
                ));
            }
        }
        Ok(destination)
    }

    /// A failure reading the input: malformed armor is the data's fault (exit 1).
    fn input_failure(&self, err: io::Error) -> Failure {
        match ArmorError::from_io(&err) {
            Some(armor) => Failure::Armor(armor.to_string()),
            None => self.read_failure(&err),
        }
    }

    fn read_failure(&self, err: &io::Error) -> Failure {
        Failure::usage(format!("cannot read {}: {}", self.name, io_reason(err)))
    }
}

/// Fills `buf` from `input` until it is full or the input ends; returns the count.
fn read_full(input: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// OWASP's minimum Argon2id configurations (Password Storage Cheat Sheet):
/// memory in KiB and passes, each as strong as the others; one lane.
const OWASP_ARGON2ID: [(u32, u32); 5] = [(47_104, 1), (19_456, 2), (12_288, 3), (9_216, 4), (7_168, 5)];

/// Whether `cost` is at least one of OWASP's minimum configurations.
fn meets_owasp_minimum(cost: Argon2Cost) -> bool {
    OWASP_ARGON2ID.iter().any(|&(memory, passes)| cost.memory_kib >= memory && cost.iterations >= passes)
}

/// Where the passphrase comes from; refuses descriptor 0 when the input is
/// standard input (the passphrase would be taken from the data's stream).
fn passphrase_source(secret: &Secret_, input: &Input) -> Result<PassphraseSource, Failure> {
    let source = secret.passphrase_source();
    if source == PassphraseSource::Fd(0) && input.is_stdin {
        return Err(Failure::usage(
            "--passphrase-fd 0 reads standard input, which is also the input: name the input file",
        ));
    }
    Ok(source)
}

/// Reads and parses a key file; warns if others can read it (also with `-q`:
/// an exposed key is not noise).
pub(crate) fn read_key_file(path: &Path) -> Result<MasterKey, Failure> {
    let file = File::open(path).map_err(|e| Failure::io("cannot read key file", path, e))?;
    let meta = file.metadata().map_err(|e| Failure::io("cannot read key file", path, e))?;
    if meta.permissions().mode() & 0o077 != 0 {
        eprintln!("gcmsiv: warning: key file {} is accessible by other users (chmod 600 it)", path.display());
    }
    // Room for the whole read up front: no reallocation leaves a copy behind.
    let mut bytes = Zeroizing::new(Vec::with_capacity(KEY_FILE_MAX as usize + 64));
    file.take(KEY_FILE_MAX)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::io("cannot read key file", path, e))?;
    let not_a_key = |why: &str| Failure::usage(format!("{} is not a gcmsiv key file: {why}", path.display()));
    let text = std::str::from_utf8(&bytes).map_err(|_| not_a_key("it is not text"))?;
    MasterKey::from_key_file(text).map_err(not_a_key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owasp_minimum_argon2id() {
        let cost = |memory_kib, iterations| Argon2Cost { memory_kib, iterations, lanes: 1 };
        assert!(meets_owasp_minimum(Argon2Cost::DEFAULT));
        assert!(meets_owasp_minimum(cost(19_456, 2)));
        assert!(meets_owasp_minimum(cost(47_104, 1)));
        assert!(meets_owasp_minimum(cost(7_168, 5)));
        assert!(!meets_owasp_minimum(cost(19_455, 2)));
        assert!(!meets_owasp_minimum(cost(19_456, 1)));
        assert!(!meets_owasp_minimum(cost(7_167, 16)));
        assert!(!meets_owasp_minimum(cost(64, 1)));
    }
}
