//! `gcmsiv`: encrypt and decrypt files with AES-GCM-SIV in the chunked format of
//! docs/FORMAT.md, on all cores, without ever leaving a partial output file.

#![deny(unsafe_code)]

mod cli;
mod commands;
mod error;
mod keyset;
mod output;
mod passphrase;
mod progress;
mod writeback;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command, Common};
use crate::error::Failure;

fn main() -> ExitCode {
    // Usage errors exit with 2 here, --help and --version with 0.
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Keygen(args) => commands::keygen(args),
        Command::Identity(args) => commands::identity(args),
        Command::Recipient(args) => commands::recipient(args),
        Command::Encrypt(args) => start_pool(&args.common).and_then(|()| commands::encrypt(args)),
        Command::Decrypt(args) => start_pool(&args.common).and_then(|()| commands::decrypt(args)),
        Command::Info => commands::info(),
        Command::Keyset(args) => keyset::run(args.command),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("gcmsiv: {failure}");
            ExitCode::from(failure.exit_code())
        }
    }
}

/// The worker pool that seals and opens chunks (and runs Argon2id's lanes).
fn start_pool(common: &Common) -> Result<(), Failure> {
    let mut builder = rayon::ThreadPoolBuilder::new().thread_name(|i| format!("gcmsiv-worker-{i}"));
    if let Some(threads) = common.threads {
        builder = builder.num_threads(usize::from(threads));
    }
    builder.build_global().map_err(|e| Failure::Usage(format!("cannot start worker threads: {e}")))?;
    Ok(())
}
