//! The few Valgrind client requests ctgrind needs, without C headers or a build
//! script: the amd64 "special instruction" sequence of `valgrind.h`, in `asm!`.
//!
//! Outside Valgrind the sequence does nothing (four rotations of `rdi` by 128
//! bits in total, then `xchg rbx, rbx`) and every request returns its default,
//! so the program runs normally. Under Valgrind the sequence is recognised and
//! the request is served. The request numbers are Valgrind's stable client ABI
//! (`valgrind.h`, `memcheck.h`).
//!
//! None of the requests used here changes program memory (except `GET_VBITS`,
//! which writes into a buffer the caller lends): marking bytes "undefined" only
//! changes Memcheck's shadow state. That is why the wrappers below are safe.

/// `VG_USERREQ__RUNNING_ON_VALGRIND` (core request).
const RUNNING_ON_VALGRIND: usize = 0x1001;
/// `VG_USERREQ__COUNT_ERRORS` (core request): errors reported so far, not
/// counting suppressed ones.
const COUNT_ERRORS: usize = 0x1201;
/// `VG_USERREQ_TOOL_BASE('M','C')`: first Memcheck request.
const MEMCHECK_BASE: usize = ((b'M' as usize) << 24) | ((b'C' as usize) << 16);
/// `VG_USERREQ__MAKE_MEM_UNDEFINED`.
const MAKE_MEM_UNDEFINED: usize = MEMCHECK_BASE + 1;
/// `VG_USERREQ__MAKE_MEM_DEFINED`.
const MAKE_MEM_DEFINED: usize = MEMCHECK_BASE + 2;
/// `VG_USERREQ__GET_VBITS`.
const GET_VBITS: usize = MEMCHECK_BASE + 8;

/// Whether client requests are implemented for this target. Elsewhere every
/// request returns its default, which would make ctgrind pass vacuously.
pub const SUPPORTED: bool = cfg!(target_arch = "x86_64");

/// Issues one client request and returns Valgrind's answer, or `default` when
/// not running under Valgrind.
///
/// # Safety
///
/// Every pointer among `args` must be valid for whatever the request does with
/// it under Valgrind: the Memcheck requests used here read or write shadow state
/// for `len` bytes at `addr`, and `GET_VBITS` also writes `len` bytes to its
/// second pointer, which must therefore be valid for writes of that many bytes
/// and not aliased by any live reference.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn client_request(default: usize, request: usize, args: [usize; 5]) -> usize {
    let block: [usize; 6] = [request, args[0], args[1], args[2], args[3], args[4]];
    let mut result = default;
    // SAFETY: on a CPU this is `rol rdi` by 3 + 13 + 61 + 51 = 128 bits (rdi ends
    // unchanged, only flags change, which `asm!` assumes clobbered) and an xchg of
    // rbx with itself: no effect. Under Valgrind the sequence is the client-request
    // trap: it reads the six words at rax (`block`, alive until after the asm) and
    // puts the answer in rdx. Memory effects of the request are covered by the
    // caller's contract; the block is not `nomem`, so the compiler assumes memory
    // reachable from exposed pointers may be read or written.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdx") result,
            in("rax") block.as_ptr(),
            options(nostack),
        );
    }
    result
}

/// Fallback for targets without an implementation: always the default.
///
/// # Safety
///
/// Always safe; `unsafe` only to match the x86-64 signature.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
unsafe fn client_request(default: usize, _request: usize, _args: [usize; 5]) -> usize {
    default
}

/// Nonzero when running under Valgrind (the nesting depth), zero otherwise.
pub fn running_on_valgrind() -> usize {
    // SAFETY: this request takes no pointer.
    unsafe { client_request(0, RUNNING_ON_VALGRIND, [0; 5]) }
}

/// Errors the tool has reported so far, suppressed ones excluded; zero when not
/// running under Valgrind.
pub fn count_errors() -> usize {
    // SAFETY: this request takes no pointer.
    unsafe { client_request(0, COUNT_ERRORS, [0; 5]) }
}

/// Marks every byte of `value` as undefined for Memcheck ("secret"): from now
/// on, a conditional jump, or a memory address, computed from these bytes is
/// reported. The bytes themselves are unchanged.
///
/// Takes `&mut` on purpose: the compiler must then assume the request may have
/// changed the bytes and reload them, rather than propagate values it knew.
pub fn mark_secret<T: ?Sized>(value: &mut T) {
    let len = size_of_val(value);
    let addr = (value as *mut T).cast::<u8>() as usize;
    // SAFETY: `addr..addr + len` is the memory of `value`, which is valid and
    // exclusively borrowed for the duration of the call; the request changes only
    // Memcheck's shadow state for it.
    unsafe { client_request(0, MAKE_MEM_UNDEFINED, [addr, len, 0, 0, 0]) };
}

/// Marks every byte of `value` as defined again ("declassify"): the harness
/// calls this before it compares or prints an output, so that its own checks
/// are not reported.
pub fn declassify<T: ?Sized>(value: &mut T) {
    let len = size_of_val(value);
    let addr = (value as *mut T).cast::<u8>() as usize;
    // SAFETY: as in `mark_secret`.
    unsafe { client_request(0, MAKE_MEM_DEFINED, [addr, len, 0, 0, 0]) };
}

/// Memcheck's validity bits for `bytes` (a set bit means "undefined"), or `None`
/// when not running under Memcheck.
pub fn undefined_bits(bytes: &[u8]) -> Option<Vec<u8>> {
    undefined_bits_of(bytes)
}

/// Memcheck's validity bits for the memory of `value`, byte by byte (a set bit
/// means "undefined"), or `None` when not running under Memcheck. Unlike
/// [`undefined_bits`] this takes any type: the request reads only Memcheck's
/// shadow state, never the bytes themselves, so padding does not matter.
pub fn undefined_bits_of<T: ?Sized>(value: &T) -> Option<Vec<u8>> {
    let len = size_of_val(value);
    let mut vbits = vec![0u8; len];
    // SAFETY: the request reads the shadow state of `value` (valid for `len`
    // bytes, borrowed for the call) and writes `len` bytes into `vbits`, a
    // separate allocation of exactly that length, exclusively owned here.
    let status = unsafe {
        client_request(
            0,
            GET_VBITS,
            [(value as *const T).cast::<u8>() as usize, vbits.as_mut_ptr() as usize, len, 0, 0],
        )
    };
    // 1: success; 0: not under Memcheck; 3: some byte not addressable.
    (status == 1).then_some(vbits)
}
