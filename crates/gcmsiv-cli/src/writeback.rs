//! Early writeback for file outputs. The kernel holds written data in memory and
//! starts writing it to disk only much later, so a final fsync of a large file
//! would wait for all of it at the end. A helper thread instead asks for writeback
//! (fdatasync) every [`WRITEBACK_EVERY`] bytes, while the output is still being
//! produced: the disk works during the run, and the final fsync has little to do.

use std::fs::File;
use std::io::{self, IoSlice, Write};
use std::sync::mpsc::{SyncSender, TrySendError, sync_channel};
use std::thread::{self, JoinHandle};

/// Bytes written between two writeback requests.
const WRITEBACK_EVERY: u64 = 32 << 20;

/// The output handle the pipeline writes to.
pub struct OutputWriter {
    file: File,
    kick: Option<SyncSender<()>>,
    unsynced: u64,
}

impl OutputWriter {
    /// Writes with no early writeback (standard output).
    pub fn plain(file: File) -> Self {
        OutputWriter { file, kick: None, unsynced: 0 }
    }

    /// Writes to `file` with a writeback thread; [`Writeback::finish`] reports
    /// its errors once this writer is dropped.
    pub fn with_writeback(file: File) -> io::Result<(Self, Writeback)> {
        let syncing = file.try_clone()?;
        // One pending request at most: requests made while one runs are merged.
        let (kick, requests) = sync_channel::<()>(1);
        let thread = thread::Builder::new().name("gcmsiv-writeback".into()).spawn(move || {
            for () in requests {
                syncing.sync_data()?;
            }
            Ok(())
        })?;
        Ok((OutputWriter { file, kick: Some(kick), unsynced: 0 }, Writeback(thread)))
    }

    fn wrote(&mut self, n: usize) {
        self.unsynced += n as u64;
        if self.unsynced >= WRITEBACK_EVERY {
            self.unsynced = 0;
            if let Some(kick) = &self.kick {
                match kick.try_send(()) {
                    Ok(()) | Err(TrySendError::Full(())) => {}
                    // The thread stopped on an error; `finish` reports it.
                    Err(TrySendError::Disconnected(())) => self.kick = None,
                }
            }
        }
    }
}

impl Write for OutputWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.file.write(buf)?;
        self.wrote(n);
        Ok(n)
    }

    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        let n = self.file.write_vectored(bufs)?;
        self.wrote(n);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.flush()
    }
}

/// The writeback thread of one output.
pub struct Writeback(JoinHandle<io::Result<()>>);

impl Writeback {
    /// Waits for the thread, which ends once its [`OutputWriter`] is dropped, and
    /// returns the first writeback error. Linux reports a write error to one fsync
    /// only, so an error seen here must fail the output even if a later fsync passes.
    pub fn finish(self) -> io::Result<()> {
        self.0.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }
}
