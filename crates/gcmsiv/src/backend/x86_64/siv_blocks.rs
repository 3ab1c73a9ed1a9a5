//! The blocks of RFC 8452 section 4's steps, in registers: the length block,
//! the block the tag encrypts, and the first counter. Shared by the kernels
//! for one message and for batches (and inlined into the AVX forms of the
//! former, where they take AVX's encodings).

use core::arch::x86_64::*;

/// The length block: the bit lengths of the AAD and the message.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn lengths(aad: usize, msg: usize) -> __m128i {
    let bits = |n: usize| (n as u64 * 8) as i64;
    _mm_set_epi64x(bits(msg), bits(aad))
}

/// S_s ^ nonce with the top bit cleared: the block the tag encrypts.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn tag_input(s: __m128i, nonce: &[u8; 12]) -> __m128i {
    // Loaded as 8 + 4 bytes into registers: a copy to a zeroed stack block
    // and a 16-byte load would stall on store forwarding, on the tag's chain.
    let lo = u64::from_le_bytes(nonce[..8].try_into().expect("8 bytes")) as i64;
    let hi = u32::from_le_bytes(nonce[8..].try_into().expect("4 bytes")) as i64;
    let n = _mm_set_epi64x(hi, lo);
    _mm_and_si128(_mm_xor_si128(s, n), _mm_set_epi32(0x7fff_ffff, -1, -1, -1))
}

/// The tag with its top bit set: the first counter block.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn counter0(tag: __m128i) -> __m128i {
    _mm_or_si128(tag, _mm_set_epi32(i32::MIN, 0, 0, 0))
}
