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
#[inline(never)]
pub(crate) fn release(authentic: Choice, buffer: &mut [u8]) -> Result<(), Error> {
    if bool::from(authentic) {
        Ok(())
    } else {
        buffer.zeroize();
        Err(Error::Authentication)
    }
}

/// [`release`] after comparing a full 16-byte tag in constant time.
pub(crate) fn release_if_tags_match(
    expected: &[u8; 16],
    received: &[u8; 16],
    buffer: &mut [u8],
) -> Result<(), Error> {
    release(u128::from_le_bytes(*expected).ct_eq(&u128::from_le_bytes(*received)), buffer)
}
