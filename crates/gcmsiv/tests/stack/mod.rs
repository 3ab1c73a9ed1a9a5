//! Reading and clearing the dead stack below the caller, for the residue
//! tests (this crate's and gcmsiv-stream's, which includes this file by path).
//! x86-64 and AArch64: the copies are byte loops from the stack pointer, in
//! assembly so that to Rust they are opaque (`rep movsb` / `rep stosb` on
//! x86-64).

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
    #[cfg(target_arch = "x86_64")]
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
    // SAFETY: as above (AArch64 Linux has no red zone, and the bytes below
    // the stack pointer are the dead frames of earlier calls).
    #[cfg(target_arch = "aarch64")]
    unsafe {
        core::arch::asm!(
            "mov {src}, sp",
            "sub {src}, {src}, {len}",
            "2:",
            "cbz {len}, 3f",
            "ldrb {byte:w}, [{src}], #1",
            "strb {byte:w}, [{dst}], #1",
            "sub {len}, {len}, #1",
            "b 2b",
            "3:",
            len = inout(reg) out.len() => _,
            dst = inout(reg) out.as_mut_ptr() => _,
            src = out(reg) _,
            byte = out(reg) _,
        );
    }
}

/// Zeroes the `len` bytes below this function's stack pointer: what earlier
/// calls (the test's own set-up among them) left there.
#[inline(never)]
pub fn clear_stack(len: usize) {
    // SAFETY: writes the dead stack below the stack pointer (mapped, as
    // `snapshot_stack` reads it); nothing live is there.
    #[cfg(target_arch = "x86_64")]
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
    // SAFETY: as above.
    #[cfg(target_arch = "aarch64")]
    unsafe {
        core::arch::asm!(
            "mov {dst}, sp",
            "sub {dst}, {dst}, {len}",
            "2:",
            "cbz {len}, 3f",
            "strb wzr, [{dst}], #1",
            "sub {len}, {len}, #1",
            "b 2b",
            "3:",
            len = inout(reg) len => _,
            dst = out(reg) _,
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
