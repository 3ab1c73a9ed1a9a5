//! Fewer cases under emulation. `GCMSIV_EMULATED=1`, which `scripts/test-cross.sh`
//! sets, says the tests run under qemu, where a case costs tens of times more (and,
//! for the tool's tests, each case is a process start). There the loops over every
//! byte or bit of a file take a sample, which keeps the cases that differ in kind
//! (every byte of the header, every chunk boundary); the host runs every case. A
//! thinned loop says how many cases it ran, on standard error (scripts/test-cross.sh
//! passes `--show-output`, which prints it).

#![allow(dead_code)] // each test file uses a different subset

/// Whether the tests run under an emulator (see the module's comment).
pub fn emulated() -> bool {
    std::env::var_os("GCMSIV_EMULATED").is_some_and(|v| v == "1")
}

/// `cases`, or under emulation those `keep` picks, every `stride`-th of the others and
/// the last one. `what` names the loop in the line that says how many ran.
pub fn thin<T: Clone>(what: &str, cases: Vec<T>, stride: usize, keep: impl Fn(&T) -> bool) -> Vec<T> {
    if !emulated() || stride < 2 {
        return cases;
    }
    let total = cases.len();
    let kept: Vec<T> = cases
        .iter()
        .enumerate()
        .filter(|&(i, case)| keep(case) || i % stride == 0 || i + 1 == total)
        .map(|(_, case)| case.clone())
        .collect();
    eprintln!("{what}: {} of {total} cases under emulation (GCMSIV_EMULATED=1)", kept.len());
    kept
}
