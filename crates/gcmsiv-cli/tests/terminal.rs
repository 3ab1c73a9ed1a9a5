//! Behaviour on a terminal, run under a pseudo-terminal from `script` (util-linux):
//! ciphertext is never written to a terminal, and large inputs get a progress bar.

mod common;

use std::process::Command;

use common::*;

/// Runs `args` on a pseudo-terminal; returns what the terminal showed and the exit
/// status, or None where `script` is missing.
fn on_terminal(scratch: &Scratch, args: &str) -> Option<(String, Option<i32>)> {
    let line = format!("'{}' {args}", env!("CARGO_BIN_EXE_gcmsiv"));
    let out = Command::new("script")
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .current_dir(scratch.dir.path())
        .output()
        .ok()?;
    Some((String::from_utf8_lossy(&out.stdout).into_owned(), out.status.code()))
}

#[test]
fn ciphertext_is_never_written_to_a_terminal() {
    let scratch = Scratch::new();
    scratch.write("in.txt", b"hello");
    let Some((screen, code)) = on_terminal(&scratch, "encrypt -k test.key in.txt") else {
        eprintln!("script(1) not found: skipped");
        return;
    };
    assert!(screen.contains("refusing to write to a terminal"), "{screen}");
    assert_eq!(code, Some(2));
}

#[test]
fn large_inputs_show_progress_unless_quiet() {
    let scratch = Scratch::new();
    scratch.write("big.bin", &data(9 << 20));
    let Some((screen, code)) = on_terminal(&scratch, "encrypt -k test.key -o big.gcmsiv big.bin") else {
        eprintln!("script(1) not found: skipped");
        return;
    };
    assert_eq!(code, Some(0), "{screen}");
    assert!(screen.contains("MiB"), "no progress bar: {screen:?}");
    let (screen, code) = on_terminal(&scratch, "decrypt -q -k test.key -o big.out big.gcmsiv").unwrap();
    assert_eq!(code, Some(0), "{screen}");
    assert!(!screen.contains("MiB"), "-q still drew a bar: {screen:?}");
    assert!(std::fs::read(scratch.path("big.out")).unwrap() == data(9 << 20));
}
