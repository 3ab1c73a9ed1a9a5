//! Loads and stores of a final partial block (fewer than 16 bytes) without a
//! call to `memcpy`: at these sizes the call costs more than the copy. The
//! loops run a fixed 16 times with the (public) length as a condition, which
//! the compiler does not turn back into a `memcpy` call.

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
