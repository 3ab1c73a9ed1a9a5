//! The shapes every cipher type offers around its in-place primitives: keys
//! from slices, and sealing or opening into a caller's buffer.

use crate::Error;
use zeroize::Zeroize;

/// `key` as an array of the length the algorithm needs.
pub(crate) fn key_array<const N: usize>(key: &[u8]) -> Result<&[u8; N], Error> {
    key.try_into().map_err(|_| Error::InvalidKeyLength { expected: N, actual: key.len() })
}

/// Copies `plaintext` into `out`, seals it there with `seal` (which returns the
/// tag), appends the tag, and returns the bytes written. If `seal` refuses
/// (misuse: a nonce or AAD it does not take), the copy is zeroed: no
/// plaintext is left in what is usually the outgoing buffer.
pub(crate) fn seal_into<T: AsRef<[u8]>>(
    plaintext: &[u8],
    out: &mut [u8],
    tag_len: usize,
    seal: impl FnOnce(&mut [u8]) -> Result<T, Error>,
) -> Result<usize, Error> {
    let needed = plaintext.len().checked_add(tag_len).ok_or(Error::PlaintextTooLong)?;
    if out.len() < needed {
        return Err(Error::BufferTooSmall { needed, actual: out.len() });
    }
    let (body, rest) = out.split_at_mut(plaintext.len());
    body.copy_from_slice(plaintext);
    let tag = seal(body).inspect_err(|_| body.zeroize())?;
    rest[..tag_len].copy_from_slice(tag.as_ref());
    Ok(needed)
}

/// Copies `ciphertext` into `out` and opens it there with `open`; returns its
/// length. On failure (when `open` has put the ciphertext back) the bytes of
/// `out` it was given are zeroed: the input is intact, and the output holds
/// nothing.
pub(crate) fn open_into(
    ciphertext: &[u8],
    out: &mut [u8],
    open: impl FnOnce(&mut [u8]) -> Result<(), Error>,
) -> Result<usize, Error> {
    if out.len() < ciphertext.len() {
        return Err(Error::BufferTooSmall { needed: ciphertext.len(), actual: out.len() });
    }
    let body = &mut out[..ciphertext.len()];
    body.copy_from_slice(ciphertext);
    open(body).inspect_err(|_| body.zeroize())?;
    Ok(ciphertext.len())
}
