//! AES-128 and AES-256 with AESE/AESMC: key expansion (also of per-nonce
//! record keys, in registers), up to eight blocks in flight, and CTR with
//! GCM-SIV's 32-bit little-endian or GCM's big-endian counter.
//!
//! AESE is AddRoundKey, ShiftRows and SubBytes, in that order, and AESMC is
//! MixColumns; so round r of FIPS 197 is AESMC(AESE(x, rk[r-1])) shifted by
//! one key, and the last round is AESE(x, rk[NR-1]) ^ rk[NR].

use super::{Features, V, load, load_padded, store, store_partial};
use crate::backend::{Block, array};
use core::arch::aarch64::*;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Blocks kept in flight: enough to cover the latency of AESE/AESMC pairs
/// on current cores, and what the stitched passes hash per reduction.
pub(super) const WIDTH: usize = 8;

/// An expanded key: round keys 0..=NR (unused tail entries stay zero).
/// No `Debug`: nothing here may be printed.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Schedule<const NR: usize> {
    pub(super) rk: [V; 15],
    #[zeroize(skip)]
    pub(super) features: Features,
}

/// AES-128 with the ARMv8 Cryptographic Extension.
pub(crate) type Aes128 = Schedule<10>;
/// AES-256 with the ARMv8 Cryptographic Extension.
pub(crate) type Aes256 = Schedule<14>;

/// FIPS 197 Rcon values for the rounds that use one.
const RCON: [u32; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

/// The running XOR of the previous round key's words, (w0, w0^w1,
/// w0^w1^w2, w0^w1^w2^w3), as FIPS 197 KeyExpansion chains them: a prefix
/// sum by doubling, in two shift-and-XOR steps (`ext` with zero moves the
/// bytes up by one and two words).
#[inline]
#[target_feature(enable = "aes,neon")]
fn prefix_xor(k: V) -> V {
    let zero = vdupq_n_u8(0);
    let k = veorq_u8(k, vextq_u8::<12>(zero, k));
    veorq_u8(k, vextq_u8::<8>(zero, k))
}

/// SubWord(word 3 of `k`) in all four words: the word is broadcast and put
/// through AESE with a zero round key, whose ShiftRows moves nothing when
/// the four columns are equal. No table: the S-box is the instruction's.
#[inline]
#[target_feature(enable = "aes,neon")]
fn sub_word(k: V) -> V {
    let w = vdupq_laneq_u32::<3>(vreinterpretq_u32_u8(k));
    vaeseq_u8(vreinterpretq_u8_u32(w), vdupq_n_u8(0))
}

/// SubWord(RotWord(word 3 of `k`)) ^ `rcon` in all four words. RotWord
/// takes bytes (a0, a1, a2, a3) to (a1, a2, a3, a0): a rotation right by 8
/// of the little-endian word, done after SubWord (they commute).
#[inline]
#[target_feature(enable = "aes,neon")]
fn sub_rot_word(k: V, rcon: u32) -> V {
    let s = vreinterpretq_u32_u8(sub_word(k));
    let r = vsliq_n_u32::<24>(vshrq_n_u32::<8>(s), s);
    vreinterpretq_u8_u32(veorq_u32(r, vdupq_n_u32(rcon)))
}

/// AES-128 KeyExpansion of the key in `k`, into `rk` in place (returned
/// by value, the round keys would be one more copy on the stack).
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) fn expand128(mut k: V, rk: &mut [V; 15]) {
    rk[0] = k;
    for (i, &rcon) in RCON.iter().enumerate() {
        k = veorq_u8(prefix_xor(k), sub_rot_word(k, rcon));
        rk[i + 1] = k;
    }
}

/// AES-256 KeyExpansion of the key in `k0` || `k1`, into `rk` in place.
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) fn expand256(mut k0: V, mut k1: V, rk: &mut [V; 15]) {
    rk[0] = k0;
    rk[1] = k1;
    for (i, &rcon) in RCON[..7].iter().enumerate() {
        // Even round keys: SubWord(RotWord) of k1's last word, with Rcon.
        k0 = veorq_u8(prefix_xor(k0), sub_rot_word(k1, rcon));
        rk[2 * i + 2] = k0;
        if i < 6 {
            // Odd round keys: SubWord alone, FIPS 197's "i mod Nk = 4" case for Nk = 8.
            k1 = veorq_u8(prefix_xor(k1), sub_word(k0));
            rk[2 * i + 3] = k1;
        }
    }
}

/// GCM-SIV's or GCM's counter, kept so that block `i` after it is one vector
/// addition away. With `BE`, the bytes of every word are kept reversed, so
/// that the big-endian last word is a native one; `block` reverses them
/// back (the other words twice, which leaves them as they were).
#[derive(Clone, Copy)]
pub(super) struct Counter<const BE: bool> {
    base: uint32x4_t,
}

impl<const BE: bool> Counter<BE> {
    #[inline]
    #[target_feature(enable = "aes,neon")]
    pub(super) fn new(counter: V) -> Self {
        let c = if BE { vrev32q_u8(counter) } else { counter };
        Counter { base: vreinterpretq_u32_u8(c) }
    }

    /// `i` in the counter's word, zero elsewhere.
    #[inline]
    #[target_feature(enable = "aes,neon")]
    fn step(i: u32) -> uint32x4_t {
        let zero = vdupq_n_u32(0);
        if BE { vsetq_lane_u32::<3>(i, zero) } else { vsetq_lane_u32::<0>(i, zero) }
    }

    /// The counter block `i` blocks on, its 32-bit counter modulo 2^32.
    #[inline]
    #[target_feature(enable = "aes,neon")]
    pub(super) fn block(&self, i: u32) -> V {
        let c = vreinterpretq_u8_u32(vaddq_u32(self.base, Self::step(i)));
        if BE { vrev32q_u8(c) } else { c }
    }

    /// The next `N` counter blocks; the counter moves on by `N`.
    #[inline]
    #[target_feature(enable = "aes,neon")]
    pub(super) fn take<const N: usize>(&mut self) -> [V; N] {
        let b = array(|i| self.block(i as u32));
        self.base = vaddq_u32(self.base, Self::step(N as u32));
        b
    }
}

/// AESE and AESMC of eight blocks under the round key at `key`, block after
/// block in this order, each AESMC right after its AESE (the pair cores
/// fuse).
///
/// One `asm!` block because the compiler otherwise regroups the rounds
/// block by block, and, the whole encryption then being too large to
/// inline, made it a call with the blocks passed through memory: a core
/// that does not reorder far (Cortex-A53, A55) then had one dependent chain
/// at a time instead of eight. The round key is loaded inside the block,
/// into a scratch register, rather than passed in: passed in, the loads
/// are loop-invariant, the compiler hoists all of them out of the bulk
/// loops, and, with eight blocks in flight, keeps some in stack slots,
/// copies of the round keys that outlive the call.
#[inline]
#[target_feature(enable = "aes,neon")]
fn round8(b: &mut [V; 8], key: &V) {
    // SAFETY: reads the 16 bytes of `key`, a valid reference; no stack, no
    // flags; this function enables AES, which every caller proves.
    unsafe {
        core::arch::asm!(
            "ldr {k:q}, [{key}]",
            "aese {b0:v}.16b, {k:v}.16b",
            "aesmc {b0:v}.16b, {b0:v}.16b",
            "aese {b1:v}.16b, {k:v}.16b",
            "aesmc {b1:v}.16b, {b1:v}.16b",
            "aese {b2:v}.16b, {k:v}.16b",
            "aesmc {b2:v}.16b, {b2:v}.16b",
            "aese {b3:v}.16b, {k:v}.16b",
            "aesmc {b3:v}.16b, {b3:v}.16b",
            "aese {b4:v}.16b, {k:v}.16b",
            "aesmc {b4:v}.16b, {b4:v}.16b",
            "aese {b5:v}.16b, {k:v}.16b",
            "aesmc {b5:v}.16b, {b5:v}.16b",
            "aese {b6:v}.16b, {k:v}.16b",
            "aesmc {b6:v}.16b, {b6:v}.16b",
            "aese {b7:v}.16b, {k:v}.16b",
            "aesmc {b7:v}.16b, {b7:v}.16b",
            key = in(reg) key,
            k = out(vreg) _,
            b0 = inout(vreg) b[0],
            b1 = inout(vreg) b[1],
            b2 = inout(vreg) b[2],
            b3 = inout(vreg) b[3],
            b4 = inout(vreg) b[4],
            b5 = inout(vreg) b[5],
            b6 = inout(vreg) b[6],
            b7 = inout(vreg) b[7],
            options(pure, readonly, nostack, preserves_flags),
        );
    }
}

/// The last round of eight blocks: AESE under the round key at `key`, then
/// XOR with the one at `last`, both loaded inside the block (see
/// [`round8`]).
#[inline]
#[target_feature(enable = "aes,neon")]
fn final8(b: &mut [V; 8], key: &V, last: &V) {
    // SAFETY: reads the 16 bytes of `key` and of `last`, valid references;
    // no stack, no flags; this function enables AES, which every caller
    // proves.
    unsafe {
        core::arch::asm!(
            "ldr {k:q}, [{key}]",
            "ldr {l:q}, [{last}]",
            "aese {b0:v}.16b, {k:v}.16b",
            "eor {b0:v}.16b, {b0:v}.16b, {l:v}.16b",
            "aese {b1:v}.16b, {k:v}.16b",
            "eor {b1:v}.16b, {b1:v}.16b, {l:v}.16b",
            "aese {b2:v}.16b, {k:v}.16b",
            "eor {b2:v}.16b, {b2:v}.16b, {l:v}.16b",
            "aese {b3:v}.16b, {k:v}.16b",
            "eor {b3:v}.16b, {b3:v}.16b, {l:v}.16b",
            "aese {b4:v}.16b, {k:v}.16b",
            "eor {b4:v}.16b, {b4:v}.16b, {l:v}.16b",
            "aese {b5:v}.16b, {k:v}.16b",
            "eor {b5:v}.16b, {b5:v}.16b, {l:v}.16b",
            "aese {b6:v}.16b, {k:v}.16b",
            "eor {b6:v}.16b, {b6:v}.16b, {l:v}.16b",
            "aese {b7:v}.16b, {k:v}.16b",
            "eor {b7:v}.16b, {b7:v}.16b, {l:v}.16b",
            key = in(reg) key,
            last = in(reg) last,
            k = out(vreg) _,
            l = out(vreg) _,
            b0 = inout(vreg) b[0],
            b1 = inout(vreg) b[1],
            b2 = inout(vreg) b[2],
            b3 = inout(vreg) b[3],
            b4 = inout(vreg) b[4],
            b5 = inout(vreg) b[5],
            b6 = inout(vreg) b[6],
            b7 = inout(vreg) b[7],
            options(pure, readonly, nostack, preserves_flags),
        );
    }
}

/// AESE and AESMC of one block under the round key at `key`, loaded inside
/// the `asm!` block (see [`round8`]): the short paths' rounds, which the
/// compiler would otherwise hoist out of loops as [`round8`]'s.
#[inline]
#[target_feature(enable = "aes,neon")]
fn round1(x: &mut V, key: &V) {
    // SAFETY: reads the 16 bytes of `key`, a valid reference; no stack, no
    // flags; this function enables AES, which every caller proves.
    unsafe {
        core::arch::asm!(
            "ldr {k:q}, [{key}]",
            "aese {x:v}.16b, {k:v}.16b",
            "aesmc {x:v}.16b, {x:v}.16b",
            key = in(reg) key,
            k = out(vreg) _,
            x = inout(vreg) *x,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
}

/// The last round of one block (see [`final8`]).
#[inline]
#[target_feature(enable = "aes,neon")]
fn final1(x: &mut V, key: &V, last: &V) {
    // SAFETY: reads the 16 bytes of `key` and of `last`, valid references;
    // no stack, no flags; this function enables AES, which every caller
    // proves.
    unsafe {
        core::arch::asm!(
            "ldr {k:q}, [{key}]",
            "ldr {l:q}, [{last}]",
            "aese {x:v}.16b, {k:v}.16b",
            "eor {x:v}.16b, {x:v}.16b, {l:v}.16b",
            key = in(reg) key,
            last = in(reg) last,
            k = out(vreg) _,
            l = out(vreg) _,
            x = inout(vreg) *x,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
}

impl<const NR: usize> Schedule<NR> {
    /// An all-zero schedule, for a kernel to expand a record key into in
    /// place.
    #[inline]
    #[target_feature(enable = "aes,neon")]
    pub(super) fn zeroed(features: Features) -> Self {
        Schedule { rk: [vdupq_n_u8(0); 15], features }
    }

    /// Encrypts `N` independent blocks, their rounds interleaved (round by
    /// round, every block), so that `N` chains are in flight. Each round key
    /// is loaded where it is used (see [`round1`]).
    #[inline]
    #[target_feature(enable = "aes,neon")]
    pub(super) fn encrypt_n<const N: usize>(&self, b: &mut [V; N]) {
        for key in &self.rk[..NR - 1] {
            for x in b.iter_mut() {
                round1(x, key);
            }
        }
        for x in b.iter_mut() {
            final1(x, &self.rk[NR - 1], &self.rk[NR]);
        }
    }

    /// Encrypts eight blocks, their rounds kept together (see [`round8`]):
    /// the bulk passes' AES.
    #[inline]
    #[target_feature(enable = "aes,neon")]
    pub(super) fn encrypt8(&self, b: &mut [V; 8]) {
        for key in &self.rk[..NR - 1] {
            round8(b, key);
        }
        final8(b, &self.rk[NR - 1], &self.rk[NR]);
    }

    /// Encrypts one block.
    #[inline]
    #[target_feature(enable = "aes,neon")]
    pub(super) fn encrypt1(&self, x: V) -> V {
        let mut b = [x];
        self.encrypt_n(&mut b);
        b[0]
    }

    /// Encrypts each block of `blocks` in place, eight in flight.
    #[target_feature(enable = "aes,neon")]
    pub(super) fn encrypt_blocks(&self, blocks: &mut [Block]) {
        let mut chunks = blocks.chunks_exact_mut(WIDTH);
        for chunk in &mut chunks {
            let mut b: [V; WIDTH] = array(|i| load(&chunk[i]));
            self.encrypt8(&mut b);
            for (out, x) in chunk.iter_mut().zip(b) {
                store(out, x);
            }
        }
        for block in chunks.into_remainder() {
            store(block, self.encrypt1(load(block)));
        }
    }

    /// XORs `data` with the key stream from `counter` (GCM's counter if
    /// `BE`, GCM-SIV's otherwise): eight blocks at a time, then the rest.
    #[target_feature(enable = "aes,neon")]
    pub(super) fn ctr32<const BE: bool>(&self, counter: V, data: &mut [u8]) {
        let mut ctr = Counter::<BE>::new(counter);
        let mut chunks = data.chunks_exact_mut(16 * WIDTH);
        for chunk in &mut chunks {
            let mut b = ctr.take::<WIDTH>();
            self.encrypt8(&mut b);
            for (k, x) in b.iter().enumerate() {
                let block: &mut Block = (&mut chunk[16 * k..16 * k + 16]).try_into().unwrap();
                store(block, veorq_u8(load(block), *x));
            }
        }
        let rest = chunks.into_remainder();
        if !rest.is_empty() {
            by_blocks!(rest.len(), B => self.ctr_rest::<BE, B>(&mut ctr, rest));
        }
    }

    /// The last `B` blocks of a CTR pass (`rest`, 16 * (B - 1) < its length
    /// <= 16 * B), their key stream made side by side.
    #[inline]
    #[target_feature(enable = "aes,neon")]
    pub(super) fn ctr_rest<const BE: bool, const B: usize>(&self, ctr: &mut Counter<BE>, rest: &mut [u8]) {
        let mut b = ctr.take::<B>();
        self.encrypt_n(&mut b);
        xor_rest(&b, rest);
    }
}

/// XORs `rest` (at most `B` blocks, the last possibly partial) with the
/// blocks of `ks`.
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) fn xor_rest<const B: usize>(ks: &[V; B], rest: &mut [u8]) {
    for (x, chunk) in ks.iter().zip(rest.chunks_mut(16)) {
        store_partial(chunk, veorq_u8(load_padded(chunk), *x));
    }
}

/// The blocks LE32(i) || nonce, i = 0..N, of RFC 8452 section 4's key
/// derivation.
#[inline]
#[target_feature(enable = "aes,neon")]
pub(super) fn derivation_blocks<const N: usize>(nonce: &[u8; 12]) -> [V; N] {
    let mut b = [0u8; 16];
    b[4..].copy_from_slice(nonce);
    let base = vreinterpretq_u32_u8(load(&b));
    array(|i| vreinterpretq_u8_u32(vsetq_lane_u32::<0>(i as u32, base)))
}

/// A key schedule from a key, on the CPU `features` proves.
macro_rules! key_schedule {
    ($nr:literal, $key_len:literal) => {
        impl Schedule<$nr> {
            pub(crate) fn new(features: Features, key: &[u8; $key_len]) -> Self {
                // SAFETY: `features` proves the CPU has AES and NEON.
                unsafe {
                    let mut s = Self::zeroed(features);
                    Self::expand(key, &mut s.rk);
                    s
                }
            }

            /// # Safety
            /// The CPU must support the enabled features (AES and NEON).
            #[target_feature(enable = "aes,neon")]
            unsafe fn expand(key: &[u8; $key_len], rk: &mut [V; 15]) {
                let k0 = load(key[..16].try_into().unwrap());
                if $key_len == 16 {
                    expand128(k0, rk)
                } else {
                    expand256(k0, load(key[16..].try_into().unwrap()), rk)
                }
            }
        }
    };
}

key_schedule!(10, 16);
key_schedule!(14, 32);
