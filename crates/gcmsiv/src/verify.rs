//! The single point where a constant-time tag comparison becomes a public
//! outcome. Every decryption path (GCM-SIV, GCM, batches) ends here, so the
//! one branch on verification is in one small function that the
//! constant-time check (`crates/ctcheck`) can name exactly.

use crate::Error;
use subtle::{Choice, ConstantTimeEq};

/// The branch on the comparison: `Ok(())` if `authentic`; otherwise
/// `restore` puts the ciphertext back into `buffer` (the unauthenticated
/// plaintext encrypted again with the same key stream), so none of it is
/// released and an in-place call loses nothing, and the result is the
/// opaque [`Error::Authentication`].
///
/// Whether a message was authentic is public: it is the return value. Which
/// bytes of the tag differed is not, and never reaches this function. Never
/// inlined, so the constant-time check (`crates/ctcheck`) sees it as its
/// own frame (named `gcmsiv::verify::release`).
#[inline(never)]
pub(crate) fn release(
    authentic: Choice,
    buffer: &mut [u8],
    restore: impl FnOnce(&mut [u8]),
) -> Result<(), Error> {
    if bool::from(authentic) {
        Ok(())
    } else {
        restore(buffer);
        Err(Error::Authentication)
    }
}

/// [`release`] for a group of a batch: bit `i` of the result is set if
/// `authentic[i]`; otherwise `restore(i)` puts message `i`'s ciphertext
/// back (as [`release`]). One call, and one branch per message, for the
/// whole group, the verdicts as bits in a register: a call per message
/// costs a few cycles per message, and verdicts as `Result`s would come back
/// through memory as 8-byte stores that the copy into the caller's array
/// reads as 16-byte loads, which cannot be forwarded
/// (PERFORMANCE-HISTORY.md, `verify.rs`). Never inlined, as [`release`].
///
/// `restore` must only touch the buffer it is given the index of (it runs
/// inside this frame, where the constant-time check allows the one branch).
#[inline(never)]
pub(crate) fn release_group<const N: usize>(authentic: &[Choice; N], mut restore: impl FnMut(usize)) -> u64 {
    const { assert!(N <= 64) };
    let mut mask = 0;
    for (i, a) in authentic.iter().enumerate() {
        if bool::from(*a) {
            mask |= 1 << i;
        } else {
            restore(i);
        }
    }
    mask
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
    restore: impl FnOnce(&mut [u8]),
) -> Result<(), Error> {
    release(tags_match(expected, received), buffer, restore)
}
