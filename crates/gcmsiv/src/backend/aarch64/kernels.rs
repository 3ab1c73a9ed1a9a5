//! Whole messages: RFC 8452 section 4's record keys in registers, GCM-SIV's
//! seal and open, and GCM-AE and GCM-AD with a 96-bit IV, each in one call.
//! The record keys and the powers of H are made here and never leave the
//! kernel's frame other than in types that wipe them.

use super::Polyval;
use super::aes::{Counter, Schedule, derivation_blocks, expand128, expand256};
use super::passes::ctr_hash;
use super::polyval::{Powers, absorb_padded, byte_reverse};
use super::{V, load, store};
use crate::backend::Block;
use core::arch::aarch64::*;
use zeroize::Zeroize;

/// The 64-bit low halves of `a` and `b`, as one block (a || b's first
/// eight bytes each: how RFC 8452 section 4 joins the derivation blocks).
#[inline]
#[target_feature(enable = "aes,neon")]
fn low_halves(a: V, b: V) -> V {
    vreinterpretq_u8_u64(vzip1q_u64(vreinterpretq_u64_u8(a), vreinterpretq_u64_u8(b)))
}

/// RFC 8452 section 4 in registers, `kgk` the key-generating key and `N`
/// its derivation blocks (4 for AES-128, 6 for AES-256): the blocks are
/// encrypted together, and their first halves go straight into key
/// expansion, in place in `enc` (a schedule returned by value would be a
/// copy left behind), and POLYVAL.
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) fn derive_into<const NR: usize, const N: usize>(
    kgk: &Schedule<NR>,
    nonce: &[u8; 12],
    enc: &mut Schedule<NR>,
) -> Polyval {
    let mut b = derivation_blocks::<N>(nonce);
    kgk.encrypt_n(&mut b);
    let h = low_halves(b[0], b[1]);
    match N {
        4 => expand128(low_halves(b[2], b[3]), &mut enc.rk),
        _ => expand256(low_halves(b[2], b[3]), low_halves(b[4], b[5]), &mut enc.rk),
    }
    let hash = Polyval::from_register(kgk.features, h);
    b.zeroize();
    hash
}

/// [`derive_into`] for the backend's contract, which returns the record
/// keys (into the caller's key object).
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) fn derive<const NR: usize, const N: usize>(
    kgk: &Schedule<NR>,
    nonce: &[u8; 12],
) -> (Schedule<NR>, Polyval) {
    let mut enc = Schedule::zeroed(kgk.features);
    let hash = derive_into::<NR, N>(kgk, nonce, &mut enc);
    (enc, hash)
}

/// The number of blocks `len` bytes pad to.
fn blocks(len: usize) -> usize {
    len.div_ceil(16)
}

/// A block made of two little-endian 64-bit words.
#[inline]
#[target_feature(enable = "aes,neon")]
fn words(lo: u64, hi: u64) -> V {
    vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(lo), vcreate_u64(hi)))
}

/// GCM-SIV's length block: LE64(bit length of the AAD) || LE64(bit length
/// of the message).
#[inline]
#[target_feature(enable = "aes,neon")]
fn siv_length_block(aad_len: usize, msg_len: usize) -> V {
    words(aad_len as u64 * 8, msg_len as u64 * 8)
}

/// S_s ^ nonce with the top bit cleared, encrypted under the record key:
/// the tag (RFC 8452 section 4).
#[inline]
#[target_feature(enable = "aes,neon")]
fn siv_tag<const NR: usize>(enc: &Schedule<NR>, s: V, nonce: &[u8; 12]) -> V {
    let mut n = [0u8; 16];
    n[..12].copy_from_slice(nonce);
    let top_cleared = words(u64::MAX, u64::MAX >> 1);
    enc.encrypt1(vandq_u8(veorq_u8(s, load(&n)), top_cleared))
}

/// The tag with its top bit set: the first counter block.
#[inline]
#[target_feature(enable = "aes,neon")]
fn siv_counter(tag: V) -> V {
    vorrq_u8(tag, words(0, 1 << 63))
}

/// RFC 8452 section 4's encryption of `data` in place, `kgk` the
/// key-generating key with `N` derivation blocks: the tag.
#[target_feature(enable = "aes,neon")]
pub(super) fn seal<const NR: usize, const N: usize>(
    kgk: &Schedule<NR>,
    nonce: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
) -> Block {
    let mut enc = Schedule::zeroed(kgk.features);
    let hash = derive_into::<NR, N>(kgk, nonce, &mut enc);
    let mut powers = Powers::zeroed();
    powers.fill(hash.h, blocks(aad.len()) + blocks(data.len()) + 1);
    let s = absorb_padded::<false>(hash.s, &powers, aad, None);
    let s = absorb_padded::<false>(s, &powers, data, Some(siv_length_block(aad.len(), data.len())));
    let tag = siv_tag(&enc, s, nonce);
    enc.ctr32::<false>(siv_counter(tag), data);
    let mut out = [0u8; 16];
    store(&mut out, tag);
    out
}

/// RFC 8452 section 5's decryption of `data` in place under the received
/// `tag`: the tag the plaintext should have (the caller compares, and puts
/// the ciphertext back on a mismatch).
#[target_feature(enable = "aes,neon")]
pub(super) fn open<const NR: usize, const N: usize>(
    kgk: &Schedule<NR>,
    nonce: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
    tag: &Block,
) -> Block {
    let mut enc = Schedule::zeroed(kgk.features);
    let hash = derive_into::<NR, N>(kgk, nonce, &mut enc);
    let mut powers = Powers::zeroed();
    powers.fill(hash.h, blocks(aad.len()) + blocks(data.len()) + 1);
    let s = absorb_padded::<false>(hash.s, &powers, aad, None);
    let length = siv_length_block(aad.len(), data.len());
    let s = ctr_hash::<NR, false, true, false>(&enc, siv_counter(load(tag)), data, s, &powers, Some(length));
    let mut out = [0u8; 16];
    store(&mut out, siv_tag(&enc, s, nonce));
    out
}

/// SP 800-38D with a 96-bit IV: GCM-AE of `data` in place, or with `OPEN`
/// GCM-AD; the full tag (for an open, the one the ciphertext should have).
/// `table` holds the powers of the POLYVAL key mulX(ByteReverse(H)), and
/// GHASH is POLYVAL over byte-reversed blocks (RFC 8452 Appendix A).
#[target_feature(enable = "aes,neon")]
pub(super) fn gcm<const NR: usize, const OPEN: bool>(
    aes: &Schedule<NR>,
    table: &Powers,
    iv: &[u8; 12],
    aad: &[u8],
    data: &mut [u8],
) -> Block {
    let mut j0 = [0u8; 16];
    j0[..12].copy_from_slice(iv);
    j0[15] = 1;
    let j0 = load(&j0);
    let mask = aes.encrypt1(j0);
    let s = absorb_padded::<true>(vdupq_n_u8(0), table, aad, None);
    // [len(A)]_64 || [len(C)]_64, big-endian, byte-reversed as a whole.
    let length = words(data.len() as u64 * 8, aad.len() as u64 * 8);
    let first = Counter::<true>::new(j0).block(1);
    // GCM-AD hashes the ciphertext it is given, GCM-AE the one it makes.
    let s = if OPEN {
        ctr_hash::<NR, true, false, true>(aes, first, data, s, table, Some(length))
    } else {
        ctr_hash::<NR, true, true, true>(aes, first, data, s, table, Some(length))
    };
    let mut out = [0u8; 16];
    store(&mut out, veorq_u8(byte_reverse(s), mask));
    out
}
