//! Reading and clearing the dead stack below the caller, for the residue
//! tests (this crate's and gcmsiv-stream's, which includes this file by path).
//! x86-64 only: the copies are `rep movsb` / `rep stosb` from the stack pointer.

#![allow(dead_code)]

/// Copies the `out.len()` bytes below this function's stack pointer into `out`.
/// Never inlined, so that called from the frame that made the call under test,
/// it sees that call's dead frames.
#[inline(never)]
pub fn snapshot_stack(out: &mut [u8]) {
    // SAFETY: reads the stack below the stack pointer, memory of this thread's
    // stack that earlier calls have used (and so is mapped), and writes the
    // `out.len()` bytes of `out`. The asm reads it itself: to Rust it is an
    // opaque copy into `out`.
    unsafe {
        core::arch::asm!(
            "mov rsi, rsp",
            "sub rsi, rcx",
            "cld",
            "rep movsb",
            inout("rcx") out.len() => _,
            inout("rdi") out.as_mut_ptr() => _,
            out("rsi") _,
        );
    }
}

/// Zeroes the `len` bytes below this function's stack pointer: what earlier
/// calls (the test's own set-up among them) left there.
#[inline(never)]
pub fn clear_stack(len: usize) {
    // SAFETY: writes the dead stack below the stack pointer (mapped, as
    // `snapshot_stack` reads it); nothing live is there.
    unsafe {
        core::arch::asm!(
            "mov rdi, rsp",
            "sub rdi, rcx",
            "xor eax, eax",
            "cld",
            "rep stosb",
            inout("rcx") len => _,
            out("rdi") _,
            out("rax") _,
        );
    }
}

/// Clears the stack below, runs `f`, then snapshots the stack its frames used.
#[inline(never)]
pub fn run_and_snapshot(f: &mut dyn FnMut(), out: &mut [u8]) {
    clear_stack(out.len());
    f();
    snapshot_stack(out);
}
