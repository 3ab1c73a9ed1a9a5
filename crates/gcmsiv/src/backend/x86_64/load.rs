//! Moving blocks between memory and registers, the lowest layer of the
//! backend: loads and stores of a final partial block (fewer than 16 bytes)
//! without a call to `memcpy` (at these sizes the call costs more than the
//! copy; the loops run a fixed 16 times with the (public) length as a
//! condition, which the compiler does not turn back into a `memcpy` call),
//! loads the compiler cannot see through, and the byte-reversal mask.

use core::arch::x86_64::*;

/// The bytes of `src` (at most 16) in the low bytes of a block, zero-padded.
#[inline]
pub(super) fn load_partial(src: &[u8]) -> __m128i {
    debug_assert!(src.len() <= 16);
    let mut b = [0u8; 16];
    for (i, slot) in b.iter_mut().enumerate() {
        if let Some(&v) = src.get(i) {
            *slot = v;
        }
    }
    // SAFETY: 16 readable bytes; SSE2 is part of x86-64.
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// Writes the low `dst.len()` (at most 16) bytes of `x` to `dst`.
#[inline]
pub(super) fn store_partial(dst: &mut [u8], x: __m128i) {
    debug_assert!(dst.len() <= 16);
    let mut b = [0u8; 16];
    // SAFETY: 16 writable bytes; SSE2 is part of x86-64.
    unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x) };
    for (i, v) in b.iter().enumerate() {
        if let Some(slot) = dst.get_mut(i) {
            *slot = *v;
        }
    }
}

/// Up to 16 bytes of `data`: a plain load for a whole block, else zero-padded.
#[inline]
pub(super) fn load_padded(data: &[u8]) -> __m128i {
    if data.len() >= 16 {
        // SAFETY: 16 readable bytes; SSE2 is part of x86-64.
        unsafe { _mm_loadu_si128(data.as_ptr().cast()) }
    } else {
        load_partial(data)
    }
}

/// The block at `p`, loaded by an instruction the compiler cannot see
/// through: a value parked in a schedule across a call comes back from
/// there, so no register copy of it lives across the call (to be spilled).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn load_opaque(p: &__m128i) -> __m128i {
    let x: __m128i;
    // SAFETY: reads the 16 bytes of `p` (an aligned `__m128i`).
    unsafe {
        core::arch::asm!(
            "movdqa {x}, xmmword ptr [{p}]",
            x = out(xmm_reg) x,
            p = in(reg) p,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    x
}

/// [`load_opaque`] in the VEX form, for code compiled with AVX (see
/// `aes.rs`, `round_at_vex!`).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx")]
pub(super) fn load_opaque_vex(p: &__m128i) -> __m128i {
    let x: __m128i;
    // SAFETY: reads the 16 bytes of `p` (an aligned `__m128i`).
    unsafe {
        core::arch::asm!(
            "vmovdqa {x}, xmmword ptr [{p}]",
            x = out(xmm_reg) x,
            p = in(reg) p,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    x
}

/// [`load_opaque`] of a block of bytes (any alignment): a key read per call
/// from the long-lived object that holds it, so that the compiler cannot keep
/// the value from an earlier read in a register, or a spill slot, instead.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn loadu_opaque(b: &[u8; 16]) -> __m128i {
    let x: __m128i;
    // SAFETY: reads the 16 bytes of `b`.
    unsafe {
        core::arch::asm!(
            "movdqu {x}, xmmword ptr [{p}]",
            x = out(xmm_reg) x,
            p = in(reg) b.as_ptr(),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    x
}

/// Loads 16 bytes.
///
/// # Safety
/// `bytes` must hold at least 16 bytes; SSE2 (baseline on x86-64).
#[inline]
pub(super) unsafe fn load(bytes: &[u8]) -> __m128i {
    debug_assert!(bytes.len() >= 16);
    // SAFETY: the caller guarantees 16 readable bytes; loadu needs no alignment.
    unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
}

/// The `pshufb` mask that reverses the 16 bytes of a block.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn byte_reverse_mask() -> __m128i {
    _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
}
