//! Short messages in one kernel: RFC 8452 section 4 for `L` messages (one, or
//! a batch's group) of at most [`SHORT_MAX`] bytes with at most as much AAD.
//!
//! A short message costs its set-up, and the set-up is a chain of dependent AES
//! rounds: derivation, key expansion, tag, first counter blocks. Run as the
//! mode's separate steps, each step stores its result and the next reloads it,
//! and the core never sees the chain whole. Here the record keys stay in
//! registers, the tag's rounds run as the key expansion produces each round key
//! (seal), or the CTR rounds do (open: the counter is the received tag), and
//! with `L > 1` several messages' chains overlap. This is the one place outside
//! `siv.rs` that spells out the mode's steps, for speed alone: the tests hold
//! it to the step-by-step path at every length up to [`SHORT_MAX`], on both
//! sides, and to every vector file.

use super::aesni::{RCON, Schedule, derivation_blocks, prefix_xor, sub_rot_word, sub_word};
use super::clmul::dot;
use super::partial::{load_padded, load_partial, store_partial};
use crate::backend::{Block, SHORT_MAX};
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// CTR blocks of the longest short message.
const MAX_CTR: usize = SHORT_MAX / 16;

/// Round keys of each lane (entries past NR unused).
type Schedules<const L: usize> = [[__m128i; 15]; L];

/// XORs `data` (at most `B` blocks; the last may be partial) with `keystream`.
///
/// # Safety
/// The CPU must support the enabled features.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn xor_into<const B: usize>(data: &mut [u8], keystream: &[__m128i; B]) {
    for (chunk, k) in data.chunks_mut(16).zip(keystream) {
        if chunk.len() == 16 {
            let p = chunk.as_mut_ptr().cast::<__m128i>();
            // SAFETY: 16 readable and writable bytes.
            unsafe { _mm_storeu_si128(p, _mm_xor_si128(_mm_loadu_si128(p), *k)) };
        } else {
            store_partial(chunk, _mm_xor_si128(load_partial(chunk), *k));
        }
    }
}

/// Makes `x` exist at this point of the program. Without it the compiler
/// sinks the derivation of the encryption key below the POLYVAL that needs
/// only H, and the two chains, which should overlap, run one after the other.
#[inline]
fn here(x: &mut __m128i) {
    // SAFETY: an empty instruction string: no memory, stack or flags touched.
    // Not `pure`, so it keeps its place among the other side effects.
    unsafe { core::arch::asm!("/* {0} */", inout(xmm_reg) * x, options(nomem, nostack, preserves_flags)) };
}

/// Round `r` of AES on `B` blocks of each lane, each lane under its own
/// schedule. Every caller passes a constant `r` (the rounds are unrolled), so
/// the choice of instruction folds away.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn round<const NR: usize, const L: usize, const B: usize>(
    x: &mut [[__m128i; B]; L],
    rk: &Schedules<L>,
    r: usize,
) {
    for (lane, keys) in x.iter_mut().zip(rk) {
        for b in lane.iter_mut() {
            *b = if r == 0 {
                _mm_xor_si128(*b, keys[0])
            } else if r == NR {
                _mm_aesenclast_si128(*b, keys[r])
            } else {
                _mm_aesenc_si128(*b, keys[r])
            };
        }
    }
}

/// Repeats `$body` with `$i` bound to each constant in turn: unrolled for
/// certain, so every round index is a constant.
macro_rules! unroll {
    ($i:ident in [$($n:literal),*] $body:block) => {
        $({
            const $i: usize = $n;
            $body
        })*
    };
}

/// All rounds of AES on `B` blocks of each lane under its own schedule.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn encrypt<const NR: usize, const L: usize, const B: usize>(x: &mut [[__m128i; B]; L], rk: &Schedules<L>) {
    round::<NR, L, B>(x, rk, 0);
    unroll!(R in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] {
        if R <= NR {
            round::<NR, L, B>(x, rk, R);
        }
    });
}

/// Key expansion of each lane's record key (`k[l]`: one block for AES-128,
/// two for AES-256) into `rk`, with `riders[l]` encrypted under lane `l`'s
/// schedule, each round as soon as its round key exists.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn expand_riding<const NR: usize, const L: usize, const B: usize>(
    k: &[[__m128i; 2]; L],
    rk: &mut Schedules<L>,
    riders: &mut [[__m128i; B]; L],
) {
    for (keys, k) in rk.iter_mut().zip(k) {
        keys[0] = k[0];
        keys[1] = k[1];
    }
    round::<NR, L, B>(riders, rk, 0);
    if NR == 10 {
        unroll!(I in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9] {
            for keys in rk.iter_mut() {
                keys[I + 1] = _mm_xor_si128(prefix_xor(keys[I]), sub_rot_word(keys[I], RCON[I]));
            }
            round::<NR, L, B>(riders, rk, I + 1);
        });
    } else {
        round::<NR, L, B>(riders, rk, 1);
        unroll!(R in [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14] {
            for keys in rk.iter_mut() {
                // FIPS 197 for Nk = 8: SubWord(RotWord) with Rcon for even
                // round keys, SubWord alone for odd ones.
                let sub = if R % 2 == 0 { sub_rot_word(keys[R - 1], RCON[R / 2 - 1]) } else { sub_word(keys[R - 1]) };
                keys[R] = _mm_xor_si128(prefix_xor(keys[R - 2]), sub);
            }
            round::<NR, L, B>(riders, rk, R);
        });
    }
}

/// POLYVAL(H_l, AAD_l padded, message_l padded, length block_l) for each lane by
/// Horner's rule, the lanes' multiplications interleaved. Shorter lanes are
/// padded with leading zero blocks, which leave the accumulator at zero, so
/// every lane takes the same steps.
///
/// # Safety
/// The CPU must support the enabled features.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) unsafe fn polyval_short<const L: usize>(
    h: &[__m128i; L],
    aads: &[&[u8]; L],
    msgs: &[&[u8]; L],
) -> [__m128i; L] {
    if L == 1 {
        // SAFETY: same features.
        return [unsafe { polyval_one(h[0], aads[0], msgs[0]) }; L];
    }
    let bits = |n: usize| (n as u64 * 8) as i64;
    let mut s = [_mm_setzero_si128(); L];
    let aad_blocks: [usize; L] = core::array::from_fn(|l| aads[l].len().div_ceil(16));
    let counts: [usize; L] = core::array::from_fn(|l| aad_blocks[l] + msgs[l].len().div_ceil(16) + 1);
    let most = counts.iter().copied().max().unwrap_or(0);
    for j in 0..most {
        for l in 0..L {
            let Some(i) = (j + counts[l]).checked_sub(most) else { continue };
            let x = if i < aad_blocks[l] {
                load_padded(&aads[l][16 * i..aads[l].len().min(16 * i + 16)])
            } else if i + 1 < counts[l] {
                let m = 16 * (i - aad_blocks[l]);
                load_padded(&msgs[l][m..msgs[l].len().min(m + 16)])
            } else {
                _mm_set_epi64x(bits(msgs[l].len()), bits(aads[l].len()))
            };
            s[l] = dot(_mm_xor_si128(s[l], x), h[l]);
        }
    }
    s
}

/// [`polyval_short`] for one message: Horner's rule straight through.
///
/// # Safety
/// The CPU must support the enabled features.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn polyval_one(h: __m128i, aad: &[u8], msg: &[u8]) -> __m128i {
    let mut s = _mm_setzero_si128();
    for chunk in aad.chunks(16) {
        s = dot(_mm_xor_si128(s, load_padded(chunk)), h);
    }
    for chunk in msg.chunks(16) {
        s = dot(_mm_xor_si128(s, load_padded(chunk)), h);
    }
    let bits = |n: usize| (n as u64 * 8) as i64;
    dot(_mm_xor_si128(s, _mm_set_epi64x(bits(msg.len()), bits(aad.len()))), h)
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

/// `B` counter blocks from `tag` with its top bit set, the first 32 bits a
/// little-endian counter (wrapping modulo 2^32).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
fn counters<const B: usize>(tag: __m128i) -> [__m128i; B] {
    let ctr0 = counter0(tag);
    core::array::from_fn(|j| _mm_add_epi32(ctr0, _mm_setr_epi32(j as i32, 0, 0, 0)))
}

/// The tag with its top bit set: the first counter block.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn counter0(tag: __m128i) -> __m128i {
    _mm_or_si128(tag, _mm_set_epi32(i32::MIN, 0, 0, 0))
}

pub(super) fn to_block(x: __m128i) -> Block {
    let mut b = [0u8; 16];
    // SAFETY: 16 writable bytes; SSE2 is part of x86-64.
    unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), x) };
    b
}

impl<const NR: usize> Schedule<NR> {
    /// Record-key derivation (RFC 8452 section 4) for `L` nonces, with this
    /// schedule as the key-generating key: `L * NB` blocks, round by round.
    /// Returns each lane's H and encryption key (one or two blocks).
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    fn derive_short<const NB: usize, const L: usize>(
        &self,
        nonces: &[&[u8; 12]; L],
    ) -> ([__m128i; L], [[__m128i; 2]; L]) {
        let mut b: [[__m128i; NB]; L] = nonces.map(|n| derivation_blocks::<NB>(n));
        // The same schedule for every lane: the derivations' blocks are all
        // encrypted under the key-generating key.
        encrypt::<NR, L, NB>(&mut b, &[self.rk; L]);
        let pair = |l: &[__m128i; NB], i: usize| _mm_unpacklo_epi64(l[i], l[i + 1]);
        let mut h: [__m128i; L] = core::array::from_fn(|l| pair(&b[l], 0));
        let mut k = core::array::from_fn(|l| {
            [pair(&b[l], 2), if NB == 6 { pair(&b[l], 4) } else { _mm_setzero_si128() }]
        });
        b.zeroize();
        for (h, k) in h.iter_mut().zip(&mut k) {
            here(h);
            here(&mut k[0]);
            here(&mut k[1]);
        }
        (h, k)
    }

    /// Seals `L` short messages in place and returns their tags.
    ///
    /// # Safety
    /// The CPU must support the enabled features; every message and AAD at
    /// most `SHORT_MAX` bytes.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn seal_short<const NB: usize, const L: usize>(
        &self,
        nonces: [&[u8; 12]; L],
        aads: [&[u8]; L],
        mut data: [&mut [u8]; L],
    ) -> [Block; L] {
        let (h, k) = self.derive_short::<NB, L>(&nonces);
        // SAFETY: same features; the caller bounds the lengths.
        let s = unsafe { polyval_short(&h, &aads, &core::array::from_fn(|l| &*data[l])) };
        let mut t: [[__m128i; 1]; L] = core::array::from_fn(|l| [tag_input(s[l], nonces[l])]);
        let mut rk = [[_mm_setzero_si128(); 15]; L];
        expand_riding::<NR, L, 1>(&k, &mut rk, &mut t);
        let blocks = data.iter().map(|d| d.len().div_ceil(16)).max().unwrap_or(0);
        // SAFETY (each arm): same features.
        match blocks {
            0 => {}
            1 => unsafe { ctr_short::<NR, L, 1>(&rk, &t, &mut data) },
            2 => unsafe { ctr_short::<NR, L, 2>(&rk, &t, &mut data) },
            3 => unsafe { ctr_short::<NR, L, 3>(&rk, &t, &mut data) },
            4 => unsafe { ctr_short::<NR, L, 4>(&rk, &t, &mut data) },
            _ => unsafe { ctr_short::<NR, L, MAX_CTR>(&rk, &t, &mut data) },
        }
        rk.zeroize();
        t.map(|t| to_block(t[0]))
    }

    /// Opens `L` short messages in place (CTR from the received `tags`) and
    /// returns the tags their plaintexts should have; the caller compares.
    ///
    /// # Safety
    /// As [`Self::seal_short`].
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn open_short<const NB: usize, const L: usize>(
        &self,
        nonces: [&[u8; 12]; L],
        aads: [&[u8]; L],
        mut data: [&mut [u8]; L],
        tags: &[Block; L],
    ) -> [Block; L] {
        let (h, k) = self.derive_short::<NB, L>(&nonces);
        // SAFETY: 16 readable bytes each.
        let received: [[__m128i; 1]; L] =
            tags.each_ref().map(|t| [unsafe { _mm_loadu_si128(t.as_ptr().cast()) }]);
        let blocks = data.iter().map(|d| d.len().div_ceil(16)).max().unwrap_or(0);
        // SAFETY (each arm): same features.
        let mut rk = [[_mm_setzero_si128(); 15]; L];
        match blocks {
            0 => expand_riding::<NR, L, 0>(&k, &mut rk, &mut [[]; L]),
            1 => unsafe { open_ctr::<NR, L, 1>(&k, &mut rk, &received, &mut data) },
            2 => unsafe { open_ctr::<NR, L, 2>(&k, &mut rk, &received, &mut data) },
            3 => unsafe { open_ctr::<NR, L, 3>(&k, &mut rk, &received, &mut data) },
            4 => unsafe { open_ctr::<NR, L, 4>(&k, &mut rk, &received, &mut data) },
            _ => unsafe { open_ctr::<NR, L, MAX_CTR>(&k, &mut rk, &received, &mut data) },
        }
        // SAFETY: same features; the caller bounds the lengths.
        let s = unsafe { polyval_short(&h, &aads, &core::array::from_fn(|l| &*data[l])) };
        let mut t: [[__m128i; 1]; L] = core::array::from_fn(|l| [tag_input(s[l], nonces[l])]);
        encrypt::<NR, L, 1>(&mut t, &rk);
        rk.zeroize();
        t.map(|t| to_block(t[0]))
    }
}

/// CTR over each lane's data (at most `B` blocks) from its tag, under its schedule.
///
/// # Safety
/// The CPU must support the enabled features.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn ctr_short<const NR: usize, const L: usize, const B: usize>(
    rk: &Schedules<L>,
    tags: &[[__m128i; 1]; L],
    data: &mut [&mut [u8]; L],
) {
    let mut ks: [[__m128i; B]; L] = core::array::from_fn(|l| counters::<B>(tags[l][0]));
    encrypt::<NR, L, B>(&mut ks, rk);
    for (d, k) in data.iter_mut().zip(&ks) {
        // SAFETY: same features.
        unsafe { xor_into(d, k) };
    }
    ks.zeroize();
}

/// Decryption's CTR with the key expansion: the counters come from the received
/// tags, so their rounds run as the round keys appear; the schedules go to `rk`.
///
/// # Safety
/// The CPU must support the enabled features.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
unsafe fn open_ctr<const NR: usize, const L: usize, const B: usize>(
    k: &[[__m128i; 2]; L],
    rk: &mut Schedules<L>,
    received: &[[__m128i; 1]; L],
    data: &mut [&mut [u8]; L],
) {
    let mut ks: [[__m128i; B]; L] = core::array::from_fn(|l| counters::<B>(received[l][0]));
    expand_riding::<NR, L, B>(k, rk, &mut ks);
    for (d, k) in data.iter_mut().zip(&ks) {
        // SAFETY: same features.
        unsafe { xor_into(d, k) };
    }
    ks.zeroize();
}
