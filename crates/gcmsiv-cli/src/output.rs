//! Where results go, so that nothing is lost: a file output is written to a
//! temporary file beside it (`.NAME.gcmsiv-tmp-XXXXXX`, mode 0600), fsynced, and
//! renamed into place only once everything succeeded; without `--force` the rename
//! refuses to replace a file, even one created meanwhile. A failure, Ctrl-C or
//! SIGTERM removes the temporary file; only SIGKILL or a crash can leave one.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, IsTerminal};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

use tempfile::NamedTempFile;

use crate::error::{Failure, io_reason};
use crate::writeback::{OutputWriter, Writeback};

/// The temporary file to remove if the process is interrupted.
static PENDING: Mutex<Option<PathBuf>> = Mutex::new(None);
static HANDLER: Once = Once::new();

/// Where a command's output goes, checked before any work is done.
pub enum Destination {
    Stdout,
    File { path: PathBuf, force: bool },
}

impl Destination {
    /// Checks `-o`/`--force` before any work: standard output must not be a terminal
    /// (`terminal_hint` says what to do instead), an existing file needs `--force`
    /// and must not be `key_file` (which `--force` would replace with the output,
    /// losing the key), and the directory must accept a new file.
    pub fn plan(
        output: Option<&Path>,
        force: bool,
        terminal_hint: &str,
        key_file: Option<&Path>,
    ) -> Result<Self, Failure> {
        let path = match output {
            None => None,
            Some(p) if p == Path::new("-") => None,
            Some(p) => Some(p),
        };
        let Some(path) = path else {
            if io::stdout().is_terminal() {
                return Err(Failure::usage(format!("refusing to write to a terminal: {terminal_hint}")));
            }
            return Ok(Destination::Stdout);
        };
        match path.symlink_metadata() {
            Ok(meta) if meta.is_dir() => {
                return Err(Failure::usage(format!("{} is a directory", path.display())));
            }
            Ok(_) if !force => {
                return Err(Failure::usage(format!(
                    "{} already exists: use --force to replace it",
                    path.display()
                )));
            }
            Ok(meta) => {
                let key = key_file.and_then(|k| std::fs::metadata(k).ok());
                if key.is_some_and(|key| same_file(&meta, &key)) {
                    return Err(Failure::usage(format!(
                        "{} is the key file: refusing to replace it with the output",
                        path.display()
                    )));
                }
            }
            _ => {}
        }
        // Probe the directory now, so a bad -o fails before a passphrase prompt.
        drop(temp_beside(path)?);
        Ok(Destination::File { path: path.to_path_buf(), force })
    }

    /// Opens the output: the handle to write to, and the sink that makes it final.
    pub fn open(self) -> Result<(OutputWriter, Sink), Failure> {
        match self {
            Destination::Stdout => {
                // A duplicate of fd 1 as a plain file: no line buffering, no lock.
                let fd = io::stdout()
                    .as_fd()
                    .try_clone_to_owned()
                    .map_err(|e| Failure::usage(format!("cannot use standard output: {}", io_reason(&e))))?;
                Ok((OutputWriter::plain(File::from(fd)), Sink { temp: None }))
            }
            Destination::File { path, force } => {
                let temp = temp_beside(&path)?;
                let (writer, writeback) = temp
                    .as_file()
                    .try_clone()
                    .and_then(OutputWriter::with_writeback)
                    .map_err(|e| Failure::io("cannot write", temp.path(), e))?;
                watch_interrupts();
                *lock_pending() = Some(temp.path().to_path_buf());
                Ok((writer, Sink { temp: Some(Pending { temp, writeback, path, force }) }))
            }
        }
    }
}

/// An open output. Dropping it without [`Sink::commit`] removes a temporary file.
pub struct Sink {
    temp: Option<Pending>,
}

struct Pending {
    temp: NamedTempFile,
    writeback: Writeback,
    path: PathBuf,
    force: bool,
}

impl Sink {
    /// How messages name the output.
    pub fn name(&self) -> String {
        match &self.temp {
            Some(pending) => pending.path.display().to_string(),
            None => "standard output".to_string(),
        }
    }

    /// Makes the output final, once its writer is dropped: fsync, then rename into
    /// place (no-clobber unless `--force`), then fsync the directory so the rename
    /// survives a crash.
    pub fn commit(mut self) -> Result<(), Failure> {
        let Some(Pending { temp, writeback, path, force }) = self.temp.take() else {
            return Ok(());
        };
        writeback
            .finish()
            .and_then(|()| temp.as_file().sync_all())
            .map_err(|e| Failure::io("cannot write", &path, e))?;
        // Holding the lock keeps an interrupt from removing the file mid-rename.
        let mut pending = lock_pending();
        let persisted = if force { temp.persist(&path) } else { temp.persist_noclobber(&path) };
        *pending = None;
        drop(pending);
        if let Err(err) = persisted {
            // The temporary file is removed when `err.file` drops.
            if err.error.kind() == io::ErrorKind::AlreadyExists {
                return Err(Failure::usage(format!(
                    "{} already exists: use --force to replace it",
                    path.display()
                )));
            }
            return Err(Failure::io("cannot create", &path, err.error));
        }
        sync_parent_dir(&path);
        Ok(())
    }
}

/// Fsyncs the directory holding `path`, just renamed into place, so that the
/// rename survives a crash or power loss. The file is in place by then: a
/// failure is a warning, not an error (an error would say it was not made).
pub fn sync_parent_dir(path: &Path) {
    if let Err(e) = File::open(parent_dir(path)).and_then(|dir| dir.sync_all()) {
        eprintln!(
            "gcmsiv: warning: {} is complete, but syncing its directory failed ({}): \
             after a crash the file may be missing",
            path.display(),
            io_reason(&e)
        );
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        if self.temp.is_some() {
            *lock_pending() = None;
        }
    }
}

/// A new temporary file in `path`'s directory, named after it.
pub fn temp_beside(path: &Path) -> Result<NamedTempFile, Failure> {
    let dir = parent_dir(path);
    let mut prefix = OsString::from(".");
    prefix.push(path.file_name().unwrap_or_default());
    prefix.push(".gcmsiv-tmp-");
    tempfile::Builder::new()
        .prefix(&prefix)
        .rand_bytes(6)
        .tempfile_in(dir)
        .map_err(|e| Failure::io("cannot create a file in", parent_dir(path), e))
}

/// Whether two metadata describe the same file (device and inode).
pub fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

/// Whether standard output is the file `input` describes (`gcmsiv encrypt f >> f`
/// would read its own output and never end).
pub fn stdout_is(input: &std::fs::Metadata) -> bool {
    let Ok(fd) = io::stdout().as_fd().try_clone_to_owned() else { return false };
    File::from(fd).metadata().is_ok_and(|out| out.is_file() && same_file(&out, input))
}

fn parent_dir(path: &Path) -> &Path {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    }
}

fn lock_pending() -> std::sync::MutexGuard<'static, Option<PathBuf>> {
    PENDING.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// On SIGINT, SIGTERM or SIGHUP: remove the temporary file and exit with 130.
fn watch_interrupts() {
    HANDLER.call_once(|| {
        // If the handler cannot be set, interrupts keep their default action and
        // may leave a temporary file, as SIGKILL does.
        let _ = ctrlc::set_handler(|| {
            match lock_pending().take() {
                Some(path) if std::fs::remove_file(&path).is_ok() => {
                    eprintln!("gcmsiv: interrupted; the unfinished output was removed");
                }
                _ => eprintln!("gcmsiv: interrupted"),
            }
            std::process::exit(130);
        });
    });
}
