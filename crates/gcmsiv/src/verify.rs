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
    release(authentic, buffer)
}

/// The outcome of a comparison as `release` returns it: a constant for
/// each side, so nothing the caller does with it depends on a secret.
pub(crate) trait Verdict {
    const AUTHENTIC: Self;
    const FORGED: Self;
}

impl Verdict for Result<(), Error> {
    const AUTHENTIC: Self = Ok(());
    const FORGED: Self = Err(Error::Authentication);
}

/// As a flag in a register, for batches: a `Result` came back through
/// memory as an 8-byte store that the copy into the caller's array read as
/// a 16-byte load, which cannot be forwarded (about 14 cycles per opened
/// item). One message at a time the `Result` is written in place and is
/// the faster of the two (2-6 cycles per call on this host).
impl Verdict for bool {
    const AUTHENTIC: Self = true;
    const FORGED: Self = false;
}

/// The branch on the comparison: [`Verdict::AUTHENTIC`] if `authentic`,
/// else zeroes `buffer` and returns [`Verdict::FORGED`]. Never inlined, so
/// the constant-time check (`crates/ctcheck`) sees it as its own frame
/// (each instance is named `gcmsiv::verify::release`).
#[inline(never)]
pub(crate) fn release<V: Verdict>(authentic: Choice, buffer: &mut [u8]) -> V {
    if bool::from(authentic) {
        V::AUTHENTIC
    } else {
        buffer.zeroize();
        V::FORGED
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
