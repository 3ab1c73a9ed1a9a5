//! `ctcheck`: constant-time evidence for the gcmsiv crate.
//!
//! - `ctcheck ctgrind [--self-test-leak]`: secrets marked undefined for
//!   Valgrind's Memcheck (run it under Valgrind; see the crate README).
//! - `ctcheck dudect [--seconds N] [--key-bits 128|256] [--strict] [--self-test-leak]`: a
//!   dudect-style statistical timing test.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks, missing_docs)]

mod common;
mod ctgrind;
mod dudect;
mod valgrind;

use std::process::ExitCode;

const USAGE: &str = "\
usage:
  ctcheck ctgrind [--self-test-leak]
      Constant-time check with Valgrind's Memcheck. One command (builds, runs,
      checks the suppressed count): crates/ctcheck/ctgrind.sh
      By hand, after building with debug line tables (see crates/ctcheck/README.md):
        valgrind --error-exitcode=1 --suppressions=crates/ctcheck/ctgrind.supp \\
          target/release/ctcheck ctgrind
      --self-test-leak  branch on and index with a secret instead: Valgrind must fail.

  ctcheck dudect [--seconds N] [--key-bits 128|256] [--strict] [--self-test-leak]
      dudect-style timing test (Welch's t-test on TSC cycle counts). Exits 1 if
      |t| > 10 (4.5 is the usual \"suspicious\" bound).
      --seconds N       time budget per test, shared by the backends (default 1.5)
      --key-bits B      AES key size for the tests (default 128)
      --strict          also fail on test (a), valid vs invalid tag, whose classes
                        differ in the public outcome
      --self-test-leak  time a deliberately early-exit tag comparison instead
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match parse(&args) {
        Ok(Command::Ctgrind { self_test_leak }) => ctgrind::run(self_test_leak),
        Ok(Command::Dudect(options)) => dudect::run(&options),
        Ok(Command::Help) => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("ctcheck: {e}\n\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

enum Command {
    Ctgrind { self_test_leak: bool },
    Dudect(dudect::Options),
    Help,
}

fn parse(args: &[String]) -> Result<Command, String> {
    let Some((command, rest)) = args.split_first() else {
        return Err("missing command".into());
    };
    match command.as_str() {
        "ctgrind" => match rest {
            [] => Ok(Command::Ctgrind { self_test_leak: false }),
            [flag] if flag == "--self-test-leak" => Ok(Command::Ctgrind { self_test_leak: true }),
            _ => Err(format!("unexpected arguments for ctgrind: {rest:?}")),
        },
        "dudect" => {
            let mut options =
                dudect::Options { seconds: 1.5, self_test_leak: false, key_bits: 128, strict: false };
            let mut it = rest.iter();
            while let Some(arg) = it.next() {
                match arg.as_str() {
                    "--self-test-leak" => options.self_test_leak = true,
                    "--strict" => options.strict = true,
                    "--seconds" => {
                        let value = it.next().ok_or("--seconds needs a value")?;
                        options.seconds = value
                            .parse()
                            .ok()
                            .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s <= 86_400.0)
                            .ok_or_else(|| format!("--seconds: not a positive number of seconds: {value}"))?;
                    }
                    "--key-bits" => {
                        let value = it.next().ok_or("--key-bits needs a value")?;
                        options.key_bits = match value.as_str() {
                            "128" => 128,
                            "256" => 256,
                            _ => return Err(format!("--key-bits: expected 128 or 256, got {value}")),
                        };
                    }
                    _ => return Err(format!("unexpected argument for dudect: {arg}")),
                }
            }
            Ok(Command::Dudect(options))
        }
        "help" | "--help" | "-h" => Ok(Command::Help),
        _ => Err(format!("unknown command: {command}")),
    }
}
