//! `gcmsiv keyset`: Tink keysets made, rotated and used (gcmsiv-keyset). A
//! keyset file is changed by writing the new keyset beside it and renaming it
//! into place, so an interruption leaves the old keyset or the new one, never
//! half of either.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;

use zeroize::Zeroizing;

use gcmsiv::Aes256GcmSiv;
use gcmsiv_keyset::{Algorithm, Format, KeyStatus, Keyset, OutputPrefix, Template};

use crate::cli::{
    KeyTemplate, KeysetAccess, KeysetCommand, KeysetFile, KeysetFormatArg, KeysetKey, KeysetMessage,
    PrefixArg, TemplateArg,
};
use crate::commands::{read_key_file, write_secret_file, write_stdout};
use crate::error::{Failure, io_reason};
use crate::output::{Destination, sync_parent_dir, temp_beside};

/// Largest keyset file read: thousands of keys.
const KEYSET_FILE_MAX: u64 = 4 << 20;

pub fn run(command: KeysetCommand) -> Result<(), Failure> {
    match command {
        KeysetCommand::New { access, template, format, output } => new(&access, &template, format, output),
        KeysetCommand::Add { file, template, promote } => change(&file, |keyset| {
            let id = keyset.add(template_of(&template))?;
            if promote {
                keyset.set_primary(id)?;
            }
            Ok(Some(id))
        }),
        KeysetCommand::Promote(key) => change_key(&key, Keyset::set_primary),
        KeysetCommand::Disable(key) => change_key(&key, Keyset::disable),
        KeysetCommand::Enable(key) => change_key(&key, Keyset::enable),
        KeysetCommand::Destroy(key) => change_key(&key, Keyset::destroy),
        KeysetCommand::Delete(key) => change_key(&key, Keyset::delete),
        KeysetCommand::List { file } => list(&file),
        KeysetCommand::Encrypt(message) => seal_or_open(&message, true),
        KeysetCommand::Decrypt(message) => seal_or_open(&message, false),
    }
}

fn template_of(t: &KeyTemplate) -> Template {
    let algorithm = match t.template {
        TemplateArg::Aes256GcmSiv => Algorithm::Aes256GcmSiv,
        TemplateArg::Aes128GcmSiv => Algorithm::Aes128GcmSiv,
        TemplateArg::Aes256Gcm => Algorithm::Aes256Gcm,
        TemplateArg::Aes128Gcm => Algorithm::Aes128Gcm,
    };
    let prefix = match t.prefix {
        PrefixArg::Tink => OutputPrefix::Tink,
        PrefixArg::Legacy => OutputPrefix::Legacy,
        PrefixArg::Crunchy => OutputPrefix::Crunchy,
        PrefixArg::Raw => OutputPrefix::Raw,
    };
    Template::new(algorithm, prefix)
}

fn tink_name(algorithm: Option<Algorithm>) -> &'static str {
    match algorithm {
        Some(Algorithm::Aes128GcmSiv) => "AES128_GCM_SIV",
        Some(Algorithm::Aes256GcmSiv) => "AES256_GCM_SIV",
        Some(Algorithm::Aes128Gcm) => "AES128_GCM",
        Some(Algorithm::Aes256Gcm) => "AES256_GCM",
        None => "-",
    }
}

/// The key-encryption key of `--master-key`, or `None` for `--cleartext`.
fn kek(access: &KeysetAccess) -> Result<Option<Aes256GcmSiv>, Failure> {
    match &access.master_key {
        Some(path) => Ok(Some(gcmsiv_keyset::key_file_kek(read_key_file(path)?.as_bytes()))),
        None => Ok(None),
    }
}

fn keyset_failure(path: &Path, err: gcmsiv_keyset::Error) -> Failure {
    Failure::usage(format!("{}: {err}", path.display()))
}

/// Reads a keyset file: its keyset and format.
fn read(path: &Path, kek: Option<&Aes256GcmSiv>) -> Result<(Keyset, Format), Failure> {
    let file = File::open(path).map_err(|e| Failure::io("cannot read keyset", path, e))?;
    // Room for the whole read up front: no reallocation leaves a copy behind.
    let size = file.metadata().map(|m| m.len()).unwrap_or(0).min(KEYSET_FILE_MAX);
    let mut bytes = Zeroizing::new(Vec::with_capacity(size as usize + 1));
    file.take(KEYSET_FILE_MAX + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::io("cannot read keyset", path, e))?;
    if bytes.len() as u64 > KEYSET_FILE_MAX {
        return Err(Failure::usage(format!("{} is larger than any keyset (4 MiB)", path.display())));
    }
    let format = Format::detect(&bytes);
    let keyset = match kek {
        Some(kek) => Keyset::from_encrypted(&bytes, format, kek, b"").map_err(|e| match e {
            _ if Keyset::from_cleartext(&bytes, format).is_ok() => Failure::usage(format!(
                "{} is a cleartext keyset: give --cleartext instead of --master-key",
                path.display()
            )),
            gcmsiv_keyset::Error::KeyEncryption(_) => Failure::usage(format!(
                "{}: the keyset does not open with this master key (it was encrypted under another key file)",
                path.display()
            )),
            e => keyset_failure(path, e),
        })?,
        None => Keyset::from_cleartext(&bytes, format).map_err(|e| match e {
            _ if is_encrypted_json(&bytes) => Failure::usage(format!(
                "{} is an encrypted keyset: give --master-key FILE instead of --cleartext",
                path.display()
            )),
            e => keyset_failure(path, e),
        })?,
    };
    Ok((keyset, format))
}

fn is_encrypted_json(bytes: &[u8]) -> bool {
    Format::detect(bytes) == Format::Json && bytes.windows(17).any(|w| w == b"\"encryptedKeyset\"")
}

/// The bytes of a keyset file: encrypted under `kek`, or in the clear.
fn serialize(
    keyset: &Keyset,
    format: Format,
    kek: Option<&Aes256GcmSiv>,
) -> Result<Zeroizing<Vec<u8>>, Failure> {
    match kek {
        Some(kek) => keyset
            .to_encrypted(format, kek, b"")
            .map(Zeroizing::new)
            .map_err(|e| Failure::usage(format!("cannot encrypt the keyset: {e}"))),
        None => Ok(keyset.to_cleartext(format)),
    }
}

fn new(
    access: &KeysetAccess,
    template: &KeyTemplate,
    format: KeysetFormatArg,
    output: Option<std::path::PathBuf>,
) -> Result<(), Failure> {
    let kek = kek(access)?;
    let keyset = Keyset::generate(template_of(template)).map_err(|e| Failure::usage(e.to_string()))?;
    let format = match format {
        KeysetFormatArg::Json => Format::Json,
        KeysetFormatArg::Binary => Format::Binary,
    };
    let bytes = serialize(&keyset, format, kek.as_ref())?;
    match output.filter(|p| p != Path::new("-")) {
        Some(path) => write_secret_file(&path, &bytes, "keyset"),
        None => {
            if format == Format::Binary && io::IsTerminal::is_terminal(&io::stdout()) {
                return Err(Failure::usage("refusing to write a binary keyset to a terminal: use -o FILE"));
            }
            write_stdout(&bytes)
        }
    }
}

/// Reads the keyset, applies `step`, and writes it back in place (printing the
/// id `step` returns, if any).
fn change(
    file: &KeysetFile,
    step: impl FnOnce(&mut Keyset) -> Result<Option<u32>, gcmsiv_keyset::Error>,
) -> Result<(), Failure> {
    let kek = kek(&file.access)?;
    let path = &file.keyset;
    let (mut keyset, format) = read(path, kek.as_ref())?;
    let printed = step(&mut keyset).map_err(|e| keyset_failure(path, e))?;
    let bytes = serialize(&keyset, format, kek.as_ref())?;
    replace(path, &bytes)?;
    if let Some(id) = printed {
        write_stdout(format!("{id}\n").as_bytes())?;
    }
    Ok(())
}

fn change_key(
    key: &KeysetKey,
    step: impl FnOnce(&mut Keyset, u32) -> Result<(), gcmsiv_keyset::Error>,
) -> Result<(), Failure> {
    change(&key.file, |keyset| step(keyset, key.key_id).map(|()| None))
}

/// Replaces a keyset file: a temporary file beside it (mode 0600), synced, renamed over it.
fn replace(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let mut temp = temp_beside(path)?;
    temp.write_all(bytes)
        .and_then(|()| temp.as_file().sync_all())
        .map_err(|e| Failure::io("cannot write", path, e))?;
    temp.persist(path).map_err(|e| Failure::io("cannot replace", path, e.error))?;
    sync_parent_dir(path);
    Ok(())
}

fn list(file: &KeysetFile) -> Result<(), Failure> {
    let kek = kek(&file.access)?;
    let (keyset, format) = read(&file.keyset, kek.as_ref())?;
    let mut out = format!(
        "keyset: {} keys, {}, {}\nprimary  key id      status     prefix   algorithm\n",
        keyset.keys().len(),
        if format == Format::Json { "JSON" } else { "binary" },
        if kek.is_some() { "encrypted" } else { "cleartext" },
    );
    for key in keyset.keys() {
        let status = match key.status {
            KeyStatus::Enabled => "enabled",
            KeyStatus::Disabled => "disabled",
            KeyStatus::Destroyed => "destroyed",
        };
        out.push_str(&format!(
            "{:<8} {:<12} {:<10} {:<8} {}\n",
            if key.is_primary { "*" } else { "" },
            key.key_id,
            status,
            key.prefix.tink_name(),
            tink_name(key.algorithm),
        ));
    }
    write_stdout(out.as_bytes())
}

fn seal_or_open(message: &KeysetMessage, encrypt: bool) -> Result<(), Failure> {
    let input_path = message.input.as_deref().filter(|p| *p != Path::new("-"));
    let hint = "use -o FILE or redirect standard output";
    // The keyset is the file `--force` must never replace with the output.
    let destination =
        Destination::plan(message.output.as_deref(), message.force, hint, Some(&message.keyset))?;
    let kek = kek(&message.access)?;
    let (keyset, _) = read(&message.keyset, kek.as_ref())?;
    let input = read_input(input_path)?;
    let ad = message.associated_data.as_bytes();
    let output = if encrypt {
        keyset.encrypt(&input, ad).map_err(|e| Failure::usage(format!("cannot encrypt: {e}")))?
    } else {
        keyset.decrypt(&input, ad).map_err(|e| Failure::Rejected(e.to_string()))?
    };
    let output = Zeroizing::new(output);
    let (mut writer, sink) = destination.open()?;
    writer
        .write_all(&output)
        .map_err(|e| Failure::usage(format!("cannot write {}: {}", sink.name(), io_reason(&e))))?;
    drop(writer);
    sink.commit()
}

fn read_input(path: Option<&Path>) -> Result<Zeroizing<Vec<u8>>, Failure> {
    let mut bytes = Zeroizing::new(Vec::new());
    match path {
        Some(path) => {
            let mut file = File::open(path).map_err(|e| Failure::io("cannot read", path, e))?;
            let size = file.metadata().map(|m| m.len()).unwrap_or(0);
            bytes.reserve_exact(usize::try_from(size).unwrap_or(0));
            file.read_to_end(&mut bytes).map_err(|e| Failure::io("cannot read", path, e))?;
        }
        None => {
            io::stdin()
                .read_to_end(&mut bytes)
                .map_err(|e| Failure::usage(format!("cannot read standard input: {}", io_reason(&e))))?;
        }
    }
    Ok(bytes)
}
