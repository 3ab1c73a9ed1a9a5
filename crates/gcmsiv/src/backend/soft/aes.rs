//! Bitsliced, constant-time AES encryption (FIPS 197), four blocks at a time.
//!
//! State layout: eight 64-bit "planes"; plane `j` holds bit `j` of every byte, and
//! byte `i` of block `b` sits at bit position `16 * b + i`. Byte permutations
//! (ShiftRows, the column rotations of MixColumns) are then shifts and masks inside
//! 16-bit lanes, and SubBytes is arithmetic on planes: the inverse in GF(2^8) as
//! x^254 by an addition chain (4 multiplications, 7 squarings), then the affine map.
//! Every operation is a fixed sequence of AND/XOR/shift: no secret-dependent
//! branch or memory index anywhere.

use super::super::Block;
use super::Polyval;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Eight bit planes of four AES states.
type State = [u64; 8];

/// Bit `j` of each byte of `x`, gathered into byte `j` (an 8x8 bit-matrix transpose).
#[inline(always)]
fn transpose8(mut x: u64) -> u64 {
    let mut t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^= t ^ (t << 28);
    x
}

/// Loads up to four blocks (missing ones are zero) into bit planes.
#[inline(always)]
fn pack(blocks: &[Block]) -> State {
    let mut s = [0u64; 8];
    for (b, block) in blocks.iter().enumerate() {
        let lo = transpose8(u64::from_le_bytes(block[..8].try_into().unwrap()));
        let hi = transpose8(u64::from_le_bytes(block[8..].try_into().unwrap()));
        for (j, plane) in s.iter_mut().enumerate() {
            let lane = ((lo >> (8 * j)) & 0xff) | (((hi >> (8 * j)) & 0xff) << 8);
            *plane |= lane << (16 * b);
        }
    }
    s
}

/// The inverse of [`pack`] for the first `blocks.len()` lanes.
#[inline(always)]
fn unpack(s: &State, blocks: &mut [Block]) {
    for (b, block) in blocks.iter_mut().enumerate() {
        let (mut lo, mut hi) = (0u64, 0u64);
        for (j, plane) in s.iter().enumerate() {
            let lane = plane >> (16 * b);
            lo |= (lane & 0xff) << (8 * j);
            hi |= ((lane >> 8) & 0xff) << (8 * j);
        }
        block[..8].copy_from_slice(&transpose8(lo).to_le_bytes());
        block[8..].copy_from_slice(&transpose8(hi).to_le_bytes());
    }
}

/// Product in GF(2^8) = GF(2)\[x\]/(x^8 + x^4 + x^3 + x + 1), 64 lanes at once.
#[inline(always)]
fn gf_mul(a: &State, b: &State) -> State {
    let mut c = [0u64; 15];
    for i in 0..8 {
        for j in 0..8 {
            c[i + j] ^= a[i] & b[j];
        }
    }
    reduce(c)
}

/// Square in GF(2^8): a linear map, so no multiplications.
#[inline(always)]
fn gf_square(a: &State) -> State {
    let mut c = [0u64; 15];
    for i in 0..8 {
        c[2 * i] = a[i];
    }
    reduce(c)
}

/// Reduces a degree-14 product using x^8 = x^4 + x^3 + x + 1.
#[inline(always)]
fn reduce(mut c: [u64; 15]) -> State {
    for k in (8..15).rev() {
        c[k - 4] ^= c[k];
        c[k - 5] ^= c[k];
        c[k - 7] ^= c[k];
        c[k - 8] ^= c[k];
    }
    let mut out = [0u64; 8];
    out.copy_from_slice(&c[..8]);
    out
}

/// The AES S-box on every byte: affine(x^254), with 0 mapping to 0x63.
#[inline(always)]
fn sub_bytes(x: &State) -> State {
    let x2 = gf_square(x);
    let x3 = gf_mul(&x2, x);
    let x12 = gf_square(&gf_square(&x3));
    let x15 = gf_mul(&x12, &x3);
    let x14 = gf_mul(&x12, &x2);
    let mut x240 = x15;
    for _ in 0..4 {
        x240 = gf_square(&x240);
    }
    let inv = gf_mul(&x240, &x14);
    // b'_i = b_i ^ b_(i+4) ^ b_(i+5) ^ b_(i+6) ^ b_(i+7) ^ c_i with c = 0x63.
    let mut out = [0u64; 8];
    for (i, o) in out.iter_mut().enumerate() {
        *o = inv[i] ^ inv[(i + 4) % 8] ^ inv[(i + 5) % 8] ^ inv[(i + 6) % 8] ^ inv[(i + 7) % 8];
        *o ^= 0u64.wrapping_sub((0x63 >> i) & 1);
    }
    out
}

/// Per-lane mask of row `r` (bits r, r+4, r+8, r+12 of each 16-bit lane).
const fn row_mask(r: u32) -> u64 {
    0x1111_1111_1111_1111 << r
}

/// Per-lane mask of the bits at or above `from` within each 16-bit lane.
const fn lane_high(from: u32) -> u64 {
    let lane = (0xffffu64 << from) & 0xffff;
    lane * 0x0001_0001_0001_0001
}

/// ShiftRows: row r of each lane rotates left by r columns, i.e. the bits of
/// row r move right by 4r positions inside their 16-bit lane.
#[inline(always)]
fn shift_rows(s: &mut State) {
    for p in s.iter_mut() {
        let mut out = *p & row_mask(0);
        for r in 1..4u32 {
            let k = 4 * r;
            let row = *p & row_mask(r);
            out |= ((row >> k) & !lane_high(16 - k)) | ((row << (16 - k)) & lane_high(16 - k));
        }
        *p = out;
    }
}

/// Moves byte (r + 1) % 4 of each column to row r.
#[inline(always)]
fn rot_rows1(x: u64) -> u64 {
    ((x >> 1) & 0x7777_7777_7777_7777) | ((x << 3) & 0x8888_8888_8888_8888)
}

/// Moves byte (r + 2) % 4 of each column to row r.
#[inline(always)]
fn rot_rows2(x: u64) -> u64 {
    ((x >> 2) & 0x3333_3333_3333_3333) | ((x << 2) & 0xCCCC_CCCC_CCCC_CCCC)
}

/// MixColumns: out_r = 2(a_r ^ a_(r+1)) ^ a_(r+1) ^ a_(r+2) ^ a_(r+3).
#[inline(always)]
fn mix_columns(s: &mut State) {
    let mut a1 = [0u64; 8];
    let mut t = [0u64; 8];
    for j in 0..8 {
        a1[j] = rot_rows1(s[j]);
        t[j] = s[j] ^ a1[j];
    }
    // xtime(t): multiply by x, reducing with 0x1b (bits 0, 1, 3, 4).
    let top = t[7];
    let xt = [top, t[0] ^ top, t[1], t[2] ^ top, t[3] ^ top, t[4], t[5], t[6]];
    for j in 0..8 {
        s[j] = xt[j] ^ a1[j] ^ rot_rows2(t[j]);
    }
}

#[inline(always)]
fn add_round_key(s: &mut State, rk: &State) {
    for (p, k) in s.iter_mut().zip(rk) {
        *p ^= k;
    }
}

/// SubWord of the key schedule: the S-box on the four bytes of a word.
fn sub_word(w: [u8; 4]) -> [u8; 4] {
    let mut block = [0u8; 16];
    block[..4].copy_from_slice(&w);
    let mut s = pack(core::slice::from_ref(&block));
    s = sub_bytes(&s);
    unpack(&s, core::slice::from_mut(&mut block));
    let out = [block[0], block[1], block[2], block[3]];
    block.zeroize();
    out
}

/// An expanded key: `NR + 1` round keys, each broadcast to all four lanes.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Schedule<const NR: usize> {
    /// Round keys 0..NR-1; the last one is kept apart for the final round.
    round_keys: [State; NR],
    last: State,
}

impl<const NR: usize> Schedule<NR> {
    /// FIPS 197 section 5.2 KeyExpansion, with Nk = key.len() / 4.
    fn expand(key: &[u8]) -> Self {
        let nk = key.len() / 4;
        let total = 4 * (NR + 1);
        let mut w = [[0u8; 4]; 60];
        for (i, word) in key.chunks_exact(4).enumerate() {
            w[i].copy_from_slice(word);
        }
        let mut rcon = 1u8;
        for i in nk..total {
            let mut temp = w[i - 1];
            if i % nk == 0 {
                temp = sub_word([temp[1], temp[2], temp[3], temp[0]]);
                temp[0] ^= rcon;
                // Public constant: the round counter, not key material.
                rcon = (rcon << 1) ^ (if rcon & 0x80 != 0 { 0x1b } else { 0 });
            } else if nk > 6 && i % nk == 4 {
                temp = sub_word(temp);
            }
            for k in 0..4 {
                w[i][k] = w[i - nk][k] ^ temp[k];
            }
        }
        let mut sched = Schedule { round_keys: [[0u64; 8]; NR], last: [0u64; 8] };
        for r in 0..=NR {
            let mut rk = [0u8; 16];
            for c in 0..4 {
                rk[4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c]);
            }
            let four = [rk; 4];
            let planes = pack(&four);
            if r < NR {
                sched.round_keys[r] = planes;
            } else {
                sched.last = planes;
            }
            rk.zeroize();
        }
        w.zeroize();
        sched
    }

    /// Encrypts four blocks' worth of bit planes.
    #[inline(always)]
    fn encrypt_state(&self, s: &mut State) {
        add_round_key(s, &self.round_keys[0]);
        for r in 1..NR {
            *s = sub_bytes(s);
            shift_rows(s);
            mix_columns(s);
            add_round_key(s, &self.round_keys[r]);
        }
        *s = sub_bytes(s);
        shift_rows(s);
        add_round_key(s, &self.last);
    }

    fn encrypt_blocks(&self, blocks: &mut [Block]) {
        for chunk in blocks.chunks_mut(4) {
            let mut s = pack(chunk);
            self.encrypt_state(&mut s);
            unpack(&s, chunk);
            s.zeroize();
        }
    }

    /// CTR with a 32-bit counter at bytes `at..at + 4`, read with `read` and
    /// written with `write` (little-endian for GCM-SIV, big-endian for GCM).
    fn ctr32(
        &self,
        counter: &Block,
        data: &mut [u8],
        at: usize,
        read: fn([u8; 4]) -> u32,
        write: fn(u32) -> [u8; 4],
    ) {
        let ctr0 = read(counter[at..at + 4].try_into().unwrap());
        let mut block_index = 0u32;
        let mut ks = [[0u8; 16]; 4];
        for chunk in data.chunks_mut(64) {
            let n = chunk.len().div_ceil(16);
            for (k, b) in ks[..n].iter_mut().enumerate() {
                *b = *counter;
                let c = ctr0.wrapping_add(block_index.wrapping_add(k as u32));
                b[at..at + 4].copy_from_slice(&write(c));
            }
            self.encrypt_blocks(&mut ks[..n]);
            for (d, k) in chunk.iter_mut().zip(ks.iter().flatten()) {
                *d ^= k;
            }
            block_index = block_index.wrapping_add(4);
        }
        ks.zeroize();
    }
}

macro_rules! portable_aes {
    ($name:ident, $key_len:literal, $nr:literal, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Zeroize, ZeroizeOnDrop)]
        pub(crate) struct $name(Schedule<$nr>);

        impl $name {
            pub(crate) fn new(key: &[u8; $key_len]) -> Self {
                $name(Schedule::expand(key))
            }
        }

        impl crate::backend::BlockCipher for $name {
            const KEY_LEN: usize = $key_len;

            fn rekey(&self, key: &[u8]) -> Self {
                $name(Schedule::expand(&key[..$key_len]))
            }
            fn encrypt_blocks(&self, blocks: &mut [Block]) {
                self.0.encrypt_blocks(blocks)
            }
            fn ctr32le(&self, counter: &Block, data: &mut [u8]) {
                self.0.ctr32(counter, data, 0, u32::from_le_bytes, u32::to_le_bytes)
            }
            fn ctr32be(&self, counter: &Block, data: &mut [u8]) {
                self.0.ctr32(counter, data, 12, u32::from_be_bytes, u32::to_be_bytes)
            }
        }

        impl crate::backend::Hashes for $name {
            type Polyval = Polyval;
            fn polyval(&self, h: &Block) -> Polyval {
                Polyval::new(h)
            }
            /// The portable hash needs no table.
            type GhashTable = ();
            fn ghash_table(&self, _h: &Block) {}
        }

        /// No fused kernels: the modes run their steps one by one.
        impl crate::backend::FusedKernels for $name {}

        /// No batch groups: batches run one message at a time.
        impl crate::backend::BatchKernels for $name {
            type LaneKeys = ();
        }
    };
}

portable_aes!(Aes128, 16, 10, "AES-128, bitsliced and constant-time.");
portable_aes!(Aes256, 32, 14, "AES-256, bitsliced and constant-time.");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::BlockCipher as _;

    fn hex16(s: &str) -> Block {
        let mut b = [0u8; 16];
        for i in 0..16 {
            b[i] = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        b
    }

    #[test]
    fn sbox_matches_fips197_examples() {
        // FIPS 197 figure 7: S(0x00) = 0x63, S(0x53) = 0xed, S(0xff) = 0x16.
        assert_eq!(sub_word([0x00, 0x53, 0xff, 0x01]), [0x63, 0xed, 0x16, 0x7c]);
    }

    #[test]
    fn pack_unpack_round_trip() {
        let blocks: [Block; 4] = core::array::from_fn(|b| core::array::from_fn(|i| (b * 37 + i * 11) as u8));
        let mut out = [[0u8; 16]; 4];
        unpack(&pack(&blocks), &mut out);
        assert_eq!(blocks, out);
    }

    #[test]
    fn fips197_appendix_c() {
        let pt = hex16("00112233445566778899aabbccddeeff");
        let k128: [u8; 16] = core::array::from_fn(|i| i as u8);
        let mut b = [pt; 5];
        Aes128::new(&k128).encrypt_blocks(&mut b);
        for x in b {
            assert_eq!(x, hex16("69c4e0d86a7b0430d8cdb78070b4c55a"));
        }
        let k256: [u8; 32] = core::array::from_fn(|i| i as u8);
        let mut b = pt;
        Aes256::new(&k256).encrypt_block(&mut b);
        assert_eq!(b, hex16("8ea2b7ca516745bfeafc49904b496089"));
    }
}
