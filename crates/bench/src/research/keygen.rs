//! 002 Table 1's three ways of making an AES key schedule, written here the
//! way the paper describes them so that all three are timed alike: with
//! `aeskeygenassist`, with the AES round function (`aesenclast` on a
//! broadcast word, the crate's method), and with the round function
//! interleaved with the encryption of x blocks, each round key used as soon
//! as it exists. The crate has no `aeskeygenassist` expansion (the round
//! function is faster) and no interleaved one (it expands, then encrypts,
//! and leaves the overlap to the core): these are benchmark baselines, never
//! used for data, and checked against the crate's AES on every run.
//!
//! The bench runs on x86-64 only (it reads the TSC); these need AES-NI and
//! SSSE3, which `Keygen::boxed` checks before any is called.

use crate::peers::{Impl, Op};
use core::arch::x86_64::*;

/// `k` with each 32-bit word XORed with all the words below it: the
/// schedule's running XOR.
#[target_feature(enable = "sse2")]
fn prefix_xor(mut k: __m128i) -> __m128i {
    k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    k = _mm_xor_si128(k, _mm_slli_si128::<8>(k));
    k
}

/// SubWord(RotWord(w3)) ^ rcon in all four words, by the round function.
#[target_feature(enable = "aes,ssse3")]
fn sub_rot(k: __m128i, rcon: i32) -> __m128i {
    let rot = _mm_set_epi8(12, 15, 14, 13, 12, 15, 14, 13, 12, 15, 14, 13, 12, 15, 14, 13);
    _mm_aesenclast_si128(_mm_shuffle_epi8(k, rot), _mm_set1_epi32(rcon))
}

/// SubWord(w3) in all four words (AES-256's odd steps), by the round function.
#[target_feature(enable = "aes,ssse3")]
fn sub(k: __m128i) -> __m128i {
    let bc = _mm_set_epi8(15, 14, 13, 12, 15, 14, 13, 12, 15, 14, 13, 12, 15, 14, 13, 12);
    _mm_aesenclast_si128(_mm_shuffle_epi8(k, bc), _mm_setzero_si128())
}

/// The same two with `aeskeygenassist`, whose immediate is the round constant.
macro_rules! assist_rot {
    ($k:expr, $rcon:literal) => {
        _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>($k))
    };
}
macro_rules! assist_sub {
    ($k:expr) => {
        _mm_shuffle_epi32::<0xaa>(_mm_aeskeygenassist_si128::<0>($k))
    };
}

/// How a schedule is made.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Method {
    Assist,
    RoundFunction,
}

/// The AES-128 schedule of `key`, then `blocks` encrypted under it; with
/// `interleave`, each block's round r runs as soon as round key r exists.
#[target_feature(enable = "aes,sse2,ssse3")]
fn aes128(key: &[u8; 16], method: Method, interleave: bool, blocks: &mut [[u8; 16]]) {
    const RCON: [i32; 10] = [1, 2, 4, 8, 16, 32, 64, 128, 0x1b, 0x36];
    let mut b: [__m128i; 4] = [_mm_setzero_si128(); 4];
    let n = blocks.len();
    // SAFETY: 16 readable bytes each.
    let mut k = unsafe { _mm_loadu_si128(key.as_ptr().cast()) };
    for (x, blk) in b.iter_mut().zip(blocks.iter()) {
        // SAFETY: 16 readable bytes.
        *x = _mm_xor_si128(unsafe { _mm_loadu_si128(blk.as_ptr().cast()) }, k);
    }
    let mut rk = [k; 11];
    for r in 1..=10 {
        let t = match method {
            Method::RoundFunction => sub_rot(k, RCON[r - 1]),
            Method::Assist => match r {
                1 => assist_rot!(k, 0x01),
                2 => assist_rot!(k, 0x02),
                3 => assist_rot!(k, 0x04),
                4 => assist_rot!(k, 0x08),
                5 => assist_rot!(k, 0x10),
                6 => assist_rot!(k, 0x20),
                7 => assist_rot!(k, 0x40),
                8 => assist_rot!(k, 0x80),
                9 => assist_rot!(k, 0x1b),
                _ => assist_rot!(k, 0x36),
            },
        };
        k = _mm_xor_si128(prefix_xor(k), t);
        rk[r] = k;
        if interleave {
            for x in &mut b[..n] {
                *x = if r < 10 { _mm_aesenc_si128(*x, k) } else { _mm_aesenclast_si128(*x, k) };
            }
        }
    }
    if !interleave {
        for x in &mut b[..n] {
            for key in &rk[1..10] {
                *x = _mm_aesenc_si128(*x, *key);
            }
            *x = _mm_aesenclast_si128(*x, rk[10]);
        }
    }
    for (x, blk) in b.iter().zip(blocks.iter_mut()) {
        // SAFETY: 16 writable bytes.
        unsafe { _mm_storeu_si128(blk.as_mut_ptr().cast(), *x) };
    }
}

/// The AES-256 schedule of `key`, then `blocks` encrypted, as [`aes128`].
#[target_feature(enable = "aes,sse2,ssse3")]
fn aes256(key: &[u8; 32], method: Method, interleave: bool, blocks: &mut [[u8; 16]]) {
    const RCON: [i32; 7] = [1, 2, 4, 8, 16, 32, 64];
    let n = blocks.len();
    // SAFETY: 32 readable bytes.
    let (mut k0, mut k1) =
        unsafe { (_mm_loadu_si128(key.as_ptr().cast()), _mm_loadu_si128(key[16..].as_ptr().cast())) };
    let mut b: [__m128i; 4] = [_mm_setzero_si128(); 4];
    for (x, blk) in b.iter_mut().zip(blocks.iter()) {
        // SAFETY: 16 readable bytes.
        *x = _mm_xor_si128(unsafe { _mm_loadu_si128(blk.as_ptr().cast()) }, k0);
    }
    let mut rk = [k0; 15];
    rk[1] = k1;
    // One round of every block under `key`.
    macro_rules! step {
        ($b:expr, $key:expr, $last:expr) => {
            for x in $b.iter_mut() {
                *x = if $last { _mm_aesenclast_si128(*x, $key) } else { _mm_aesenc_si128(*x, $key) };
            }
        };
    }
    if interleave {
        step!(b[..n], k1, false);
    }
    for i in 1..=7 {
        let t = match method {
            Method::RoundFunction => sub_rot(k1, RCON[i - 1]),
            Method::Assist => match i {
                1 => assist_rot!(k1, 0x01),
                2 => assist_rot!(k1, 0x02),
                3 => assist_rot!(k1, 0x04),
                4 => assist_rot!(k1, 0x08),
                5 => assist_rot!(k1, 0x10),
                6 => assist_rot!(k1, 0x20),
                _ => assist_rot!(k1, 0x40),
            },
        };
        k0 = _mm_xor_si128(prefix_xor(k0), t);
        rk[2 * i] = k0;
        if interleave {
            step!(b[..n], k0, i == 7);
        }
        if i < 7 {
            let t = match method {
                Method::RoundFunction => sub(k0),
                Method::Assist => assist_sub!(k0),
            };
            k1 = _mm_xor_si128(prefix_xor(k1), t);
            rk[2 * i + 1] = k1;
            if interleave {
                step!(b[..n], k1, false);
            }
        }
    }
    if !interleave {
        for x in &mut b[..n] {
            for key in &rk[1..14] {
                *x = _mm_aesenc_si128(*x, *key);
            }
            *x = _mm_aesenclast_si128(*x, rk[14]);
        }
    }
    for (x, blk) in b.iter().zip(blocks.iter_mut()) {
        // SAFETY: 16 writable bytes.
        unsafe { _mm_storeu_si128(blk.as_mut_ptr().cast(), *x) };
    }
}

/// One of 002 Table 1's cells: a key expanded by `method` and `blocks`
/// (0 to 4) encrypted, interleaved or not; each call's key is fresh from
/// the last call's output when `chained` (latency), else the same key.
pub struct Keygen {
    key: [u8; 32],
    key_len: usize,
    method: Method,
    interleave: bool,
    blocks: Vec<[u8; 16]>,
}

impl Keygen {
    /// None where the CPU lacks AES-NI or SSSE3.
    pub fn boxed(key_len: usize, method: Method, interleave: bool, blocks: usize) -> Option<Box<dyn Impl>> {
        if !(is_x86_feature_detected!("aes") && is_x86_feature_detected!("ssse3")) {
            return None;
        }
        Some(Box::new(Keygen {
            key: [0x24; 32],
            key_len,
            method,
            interleave,
            blocks: vec![[0x5a; 16]; blocks],
        }))
    }

    /// Encrypts `blocks` under `key` (16 or 32 bytes).
    fn run_once(&mut self) {
        let blocks = &mut self.blocks[..];
        // SAFETY: `boxed` checked AES-NI and SSSE3 (SSE2 is x86-64's baseline).
        unsafe {
            if self.key_len == 16 {
                aes128(self.key[..16].try_into().unwrap(), self.method, self.interleave, blocks);
            } else {
                aes256(&self.key, self.method, self.interleave, blocks);
            }
        }
    }
}

impl Impl for Keygen {
    fn name(&self) -> &'static str {
        "key schedule"
    }
    fn prepare(&mut self, _op: Op, _size: usize) {}
    fn run(&mut self, _op: Op) {
        for (i, b) in self.blocks.iter_mut().enumerate() {
            *b = [i as u8; 16];
        }
        self.run_once();
        std::hint::black_box(&mut self.blocks);
    }
}

/// Each method's output against the crate's AES, for both key sizes and
/// 1 to 4 blocks: a baseline that computed something else would time
/// something else.
pub fn check(backend: gcmsiv::Backend) {
    for key_len in [16, 32] {
        let key: Vec<u8> = (0..key_len as u8).collect();
        let parts = gcmsiv::research::AesParts::with_backend(&key, backend).unwrap();
        for n in 1..=4 {
            let mut want: Vec<[u8; 16]> = (0..n).map(|i| [i as u8 * 17; 16]).collect();
            parts.expand_and_encrypt(&key, &mut want).unwrap();
            for method in [Method::Assist, Method::RoundFunction] {
                for interleave in [false, true] {
                    let mut k = Keygen { key: [0; 32], key_len, method, interleave, blocks: vec![] };
                    k.key[..key_len].copy_from_slice(&key);
                    k.blocks = (0..n).map(|i| [i as u8 * 17; 16]).collect();
                    k.run_once();
                    assert_eq!(
                        k.blocks, want,
                        "{key_len}-byte key, {method:?}, interleave {interleave}, {n} blocks"
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fips197_appendix_c() {
        if !(is_x86_feature_detected!("aes") && is_x86_feature_detected!("ssse3")) {
            return;
        }
        let pt: [u8; 16] = core::array::from_fn(|i| (i as u8) * 0x11);
        for (key_len, ct) in
            [(16, "69c4e0d86a7b0430d8cdb78070b4c55a"), (32, "8ea2b7ca516745bfeafc49904b496089")]
        {
            for method in [Method::Assist, Method::RoundFunction] {
                for interleave in [false, true] {
                    let mut k = Keygen {
                        key: core::array::from_fn(|i| i as u8),
                        key_len,
                        method,
                        interleave,
                        blocks: vec![pt],
                    };
                    k.run_once();
                    let hex: String = k.blocks[0].iter().map(|b| format!("{b:02x}")).collect();
                    assert_eq!(hex, ct, "{key_len} {method:?} {interleave}");
                }
            }
        }
    }
}
