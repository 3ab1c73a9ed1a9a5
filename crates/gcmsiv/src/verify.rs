//! The single point where a constant-time tag comparison becomes a public
//! outcome. Every decryption path (GCM-SIV, GCM, batches) ends here, so the
//! one branch on verification is in one small function that the
//! constant-time check (`crates/ctcheck`) can name exactly.

use crate::Error;
use subtle::{Choice, ConstantTimeEq};
use zeroize::Zeroize;

/// `Ok(())` if `authentic`; otherwise zeroes `buffer` (no unauthenticated
/// plaintext is released) and returns the opaque [`Error::Authentication`].
///
/// Whether a message was authentic is public: it is the return value. Which
/// bytes of the tag differed is not, and never reaches this function.
#[inline]
pub(crate) fn outcome(authentic: Choice, buffer: &mut [u8]) -> Result<(), Error> {
    if release(authentic, buffer) { Ok(()) } else { Err(Error::Authentication) }
}

/// The branch on the comparison: true if `authentic`, else zeroes `buffer`
/// and returns false (constants either way, so the caller's use of the
/// result depends on no secret). Never inlined, so the constant-time check
/// (`crates/ctcheck`) sees it as its own frame. It returns a flag in a
/// register, not the `Result`: the 24-byte `Result` went back through
/// memory as an 8-byte store read by a 16-byte load, which cannot be
/// forwarded, and cost about 14 cycles per item of an opened batch.
#[inline(never)]
fn release(authentic: Choice, buffer: &mut [u8]) -> bool {
    if bool::from(authentic) {
        true
    } else {
        buffer.zeroize();
        false
    }
}

/// Whether two 16-byte tags are equal, in constant time.
#[inline]
pub(crate) fn tags_match(expected: &[u8; 16], received: &[u8; 16]) -> Choice {
    u128::from_le_bytes(*expected).ct_eq(&u128::from_le_bytes(*received))
}

/// [`release`] after comparing a full 16-byte tag in constant time.
pub(crate) fn release_if_tags_match(
    expected: &[u8; 16],
    received: &[u8; 16],
    buffer: &mut [u8],
) -> Result<(), Error> {
    outcome(tags_match(expected, received), buffer)
}
