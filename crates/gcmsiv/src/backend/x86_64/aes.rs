//! AES-128 and AES-256 with AES-NI: key expansion (also of per-nonce record
//! keys, in registers), eight blocks in flight for bulk work, and CTR with
//! GCM-SIV's 32-bit little-endian or GCM's big-endian counter.

use super::load::load;
use super::{Features, array};
use crate::backend::Block;
use core::arch::x86_64::*;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Blocks kept in flight: enough to cover the latency of `aesenc` on current cores.
const WIDTH: usize = 8;

/// An expanded key: round keys 0..=NR (unused tail entries stay zero).
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Schedule<const NR: usize> {
    pub(super) rk: [__m128i; 15],
    #[zeroize(skip)]
    pub(super) features: Features,
}

/// The running XOR of the previous round key's words, (w0, w0^w1, w0^w1^w2,
/// w0^w1^w2^w3), as FIPS 197 KeyExpansion chains them: a prefix sum by
/// doubling, in two shift-and-XOR steps.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn prefix_xor(mut k: __m128i) -> __m128i {
    k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    _mm_xor_si128(k, _mm_slli_si128::<8>(k))
}

/// SubWord(RotWord(word 3 of `k`)) ^ `rcon` in all four words: the word is
/// broadcast by a byte shuffle (rotated) and put through `aesenclast`, whose
/// ShiftRows is a no-op on four equal columns. Faster than `aeskeygenassist`
/// on current cores.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn sub_rot_word(k: __m128i, rcon: i32) -> __m128i {
    let rotate_broadcast = _mm_setr_epi8(13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12);
    _mm_aesenclast_si128(_mm_shuffle_epi8(k, rotate_broadcast), _mm_set1_epi32(rcon))
}

/// SubWord(word 3 of `k`) in all four words (no rotation, no Rcon).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn sub_word(k: __m128i) -> __m128i {
    let broadcast = _mm_setr_epi8(12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15);
    _mm_aesenclast_si128(_mm_shuffle_epi8(k, broadcast), _mm_setzero_si128())
}

/// One instruction (`$ins`: `pxor` for round 0, `aesenc`, `aesenclast`) on
/// eight blocks with the same round key, in this order, the key loaded from
/// `$key` (a schedule's entry) inside the block.
///
/// One `asm!` block because the compiler's scheduler otherwise regroups the
/// rounds block by block (to save registers), which leaves the core with one
/// dependent chain at a time instead of eight independent ones: CTR then ran
/// at half the AES units' throughput. The key is loaded inside the block, not
/// passed in a register: given the keys as values, the compiler hoisted the
/// schedule out of the CTR loops and, short of registers, copied it to the
/// stack on every call, where nothing wiped it (and the copy cost a store per
/// round key).
// `lanes.rs`'s `blocks16!` is the same shape for sixteen blocks with one
// key each: an `asm!` block's operand count is fixed, so each count is a
// block of its own (kept apart on purpose).
macro_rules! round8 {
    ($ins:literal, $b:expr, $key:expr) => {{
        let b: &mut [__m128i; 8] = $b;
        let key: &__m128i = $key;
        // SAFETY: reads the 16 bytes of `key` (an aligned `__m128i`);
        // registers otherwise; no stack, no flags; every caller enables AES-NI.
        unsafe {
            core::arch::asm!(
                "movdqa {k}, xmmword ptr [{key}]",
                concat!($ins, " {b0}, {k}"),
                concat!($ins, " {b1}, {k}"),
                concat!($ins, " {b2}, {k}"),
                concat!($ins, " {b3}, {k}"),
                concat!($ins, " {b4}, {k}"),
                concat!($ins, " {b5}, {k}"),
                concat!($ins, " {b6}, {k}"),
                concat!($ins, " {b7}, {k}"),
                key = in(reg) key,
                k = out(xmm_reg) _,
                b0 = inout(xmm_reg) b[0],
                b1 = inout(xmm_reg) b[1],
                b2 = inout(xmm_reg) b[2],
                b3 = inout(xmm_reg) b[3],
                b4 = inout(xmm_reg) b[4],
                b5 = inout(xmm_reg) b[5],
                b6 = inout(xmm_reg) b[6],
                b7 = inout(xmm_reg) b[7],
                options(readonly, nostack, preserves_flags),
            );
        }
    }};
}

/// AddRoundKey (round 0) of eight blocks with the round key at `key`.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn xor8(b: &mut [__m128i; 8], key: &__m128i) {
    round8!("pxor", b, key);
}

/// One middle AES round of eight blocks under the round key at `key`.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn aesenc8(b: &mut [__m128i; 8], key: &__m128i) {
    round8!("aesenc", b, key);
}

/// The last AES round of eight blocks under the round key at `key`.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn aesenclast8(b: &mut [__m128i; 8], key: &__m128i) {
    round8!("aesenclast", b, key);
}

/// One instruction (`$ins`: `pxor`, `aesenc` or `aesenclast`) on one block
/// with the round key at `$key`, read by the instruction itself: the round
/// key stays in its schedule, where it is wiped, rather than in a register
/// the compiler may spill to a stack slot nothing wipes.
macro_rules! round_at {
    ($ins:literal, $x:expr, $key:expr) => {{
        let mut x: __m128i = $x;
        let key: &__m128i = $key;
        // SAFETY: reads the 16 bytes of `key` (an aligned `__m128i`);
        // registers otherwise; every caller enables AES-NI.
        unsafe {
            core::arch::asm!(
                concat!($ins, " {x}, xmmword ptr [{key}]"),
                x = inout(xmm_reg) x,
                key = in(reg) key,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        x
    }};
}

/// AddRoundKey with the round key at `key` (see [`round_at!`]).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn xor_at(x: __m128i, key: &__m128i) -> __m128i {
    round_at!("pxor", x, key)
}

/// A middle AES round under the round key at `key` (see [`round_at!`]).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn aesenc_at(x: __m128i, key: &__m128i) -> __m128i {
    round_at!("aesenc", x, key)
}

/// The last AES round under the round key at `key` (see [`round_at!`]).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn aesenclast_at(x: __m128i, key: &__m128i) -> __m128i {
    round_at!("aesenclast", x, key)
}

/// A middle round of FIPS 197's equivalent inverse cipher: `aesdec` under
/// InvMixColumns of the encryption round key at `key`. The decryption round
/// key is made by `aesimc` in a scratch register inside the block and dies
/// there: it never becomes a value the compiler could spill.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn aesdec_imc_at(mut x: __m128i, key: &__m128i) -> __m128i {
    // SAFETY: reads the 16 bytes of `key` (an aligned `__m128i`); registers
    // otherwise; this function enables AES-NI.
    unsafe {
        core::arch::asm!(
            "aesimc {t}, xmmword ptr [{key}]",
            "aesdec {x}, {t}",
            x = inout(xmm_reg) x,
            t = out(xmm_reg) _,
            key = in(reg) key,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    x
}

/// The last round of the inverse cipher under the round key at `key` (see
/// [`round_at!`]).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn aesdeclast_at(x: __m128i, key: &__m128i) -> __m128i {
    round_at!("aesdeclast", x, key)
}

/// [`round_at!`] in the VEX form (`v` + `$ins`, three operands), for code
/// compiled with AVX: a legacy-SSE instruction in a function that has
/// written a 256- or 512-bit register makes the CPU merge the registers'
/// upper halves around each one (docs/PERFORMANCE-HISTORY.md has what it
/// cost the 512-bit passes). `scripts/check-vex.py`
/// holds every function that touches those registers to VEX forms only.
macro_rules! round_at_vex {
    ($ins:literal, $x:expr, $key:expr) => {{
        let mut x: __m128i = $x;
        let key: &__m128i = $key;
        // SAFETY: reads the 16 bytes of `key` (an aligned `__m128i`);
        // registers otherwise; every caller enables AES-NI and AVX.
        unsafe {
            core::arch::asm!(
                concat!("v", $ins, " {x}, {x}, xmmword ptr [{key}]"),
                x = inout(xmm_reg) x,
                key = in(reg) key,
                options(pure, readonly, nostack, preserves_flags),
            );
        }
        x
    }};
}

/// [`xor_at`] in the VEX form (see [`round_at_vex!`]).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx")]
pub(super) fn xor_at_vex(x: __m128i, key: &__m128i) -> __m128i {
    round_at_vex!("pxor", x, key)
}

/// [`aesenc_at`] in the VEX form.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx")]
pub(super) fn aesenc_at_vex(x: __m128i, key: &__m128i) -> __m128i {
    round_at_vex!("aesenc", x, key)
}

/// [`aesenclast_at`] in the VEX form.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx")]
pub(super) fn aesenclast_at_vex(x: __m128i, key: &__m128i) -> __m128i {
    round_at_vex!("aesenclast", x, key)
}

/// [`aesdec_imc_at`] in the VEX form.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx")]
pub(super) fn aesdec_imc_at_vex(mut x: __m128i, key: &__m128i) -> __m128i {
    // SAFETY: reads the 16 bytes of `key` (an aligned `__m128i`); registers
    // otherwise; this function enables AES-NI and AVX.
    unsafe {
        core::arch::asm!(
            "vaesimc {t}, xmmword ptr [{key}]",
            "vaesdec {x}, {x}, {t}",
            x = inout(xmm_reg) x,
            t = out(xmm_reg) _,
            key = in(reg) key,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    x
}

/// [`aesdeclast_at`] in the VEX form.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx")]
pub(super) fn aesdeclast_at_vex(x: __m128i, key: &__m128i) -> __m128i {
    round_at_vex!("aesdeclast", x, key)
}

/// FIPS 197 Rcon values for the rounds that use one.
pub(super) const RCON: [i32; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

/// AES-128 KeyExpansion of the key in `k`.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn expand128(mut k: __m128i) -> [__m128i; 15] {
    let mut rk = [_mm_setzero_si128(); 15];
    rk[0] = k;
    for (i, &rcon) in RCON.iter().enumerate() {
        k = _mm_xor_si128(prefix_xor(k), sub_rot_word(k, rcon));
        rk[i + 1] = k;
    }
    rk
}

/// AES-256 KeyExpansion of the key in `k0` || `k1`.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn expand256(mut k0: __m128i, mut k1: __m128i) -> [__m128i; 15] {
    let mut rk = [_mm_setzero_si128(); 15];
    rk[0] = k0;
    rk[1] = k1;
    for (i, &rcon) in RCON[..7].iter().enumerate() {
        // Even round keys: SubWord(RotWord) of k1's last word, with Rcon.
        k0 = _mm_xor_si128(prefix_xor(k0), sub_rot_word(k1, rcon));
        rk[2 * i + 2] = k0;
        if i < 6 {
            // Odd round keys: SubWord alone, FIPS 197's "i mod Nk = 4" case for Nk = 8.
            k1 = _mm_xor_si128(prefix_xor(k1), sub_word(k0));
            rk[2 * i + 3] = k1;
        }
    }
    rk
}

/// The blocks LE32(i) || nonce of RFC 8452 section 4's key derivation.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn derivation_blocks<const N: usize>(nonce: &[u8; 12]) -> [__m128i; N] {
    let mut b = [0u8; 16];
    b[4..].copy_from_slice(nonce);
    // SAFETY: b is 16 bytes.
    let base = unsafe { load(&b) };
    array(|i| _mm_insert_epi32::<0>(base, i as i32))
}

impl<const NR: usize> Schedule<NR> {
    /// Encrypts `N` independent blocks, interleaving their rounds.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) fn encrypt_n<const N: usize>(&self, b: &mut [__m128i; N]) {
        for x in b.iter_mut() {
            *x = _mm_xor_si128(*x, self.rk[0]);
        }
        for r in 1..NR {
            for x in b.iter_mut() {
                *x = _mm_aesenc_si128(*x, self.rk[r]);
            }
        }
        for x in b.iter_mut() {
            *x = _mm_aesenclast_si128(*x, self.rk[NR]);
        }
    }

    /// Encrypts eight blocks, their rounds kept together (see [`aesenc8`]).
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) fn encrypt8(&self, b: &mut [__m128i; 8]) {
        // The first and last rounds as plain intrinsics, which the compiler
        // interleaves with the blocks' other work (`xor8` and `aesenclast8`
        // here were slower in AES-256 batches). This is the key-generating
        // schedule, and `tests/residue.rs` finds no copy of it.
        for x in b.iter_mut() {
            *x = _mm_xor_si128(*x, self.rk[0]);
        }
        for key in &self.rk[1..NR] {
            aesenc8(b, key);
        }
        for x in b.iter_mut() {
            *x = _mm_aesenclast_si128(*x, self.rk[NR]);
        }
    }

    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) unsafe fn encrypt_blocks(&self, blocks: &mut [Block]) {
        let mut chunks = blocks.chunks_exact_mut(WIDTH);
        for chunk in &mut chunks {
            // SAFETY: each block is 16 readable and writable bytes.
            let mut b: [__m128i; WIDTH] = array(|i| unsafe { _mm_loadu_si128(chunk[i].as_ptr().cast()) });
            self.encrypt_n(&mut b);
            for (out, x) in chunk.iter_mut().zip(b) {
                // SAFETY: as above.
                unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), x) };
            }
        }
        let mut rest = chunks.into_remainder();
        // Independent blocks stay in flight together: 4, then 2, then 1.
        macro_rules! group {
            ($n:literal) => {
                if rest.len() >= $n {
                    let (now, later) = rest.split_at_mut($n);
                    // SAFETY: each block is 16 readable and writable bytes.
                    let mut b: [__m128i; $n] = array(|i| unsafe { _mm_loadu_si128(now[i].as_ptr().cast()) });
                    self.encrypt_n(&mut b);
                    for (out, x) in now.iter_mut().zip(b) {
                        // SAFETY: as above.
                        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), x) };
                    }
                    rest = later;
                }
            };
        }
        group!(4);
        group!(2);
        group!(1);
        debug_assert!(rest.is_empty());
    }
}

/// A key schedule from a key, on the CPU `features` proves.
macro_rules! key_schedule {
    ($name:ident, $key_len:literal, $nr:literal, $expand:ident, $doc:literal) => {
        #[doc = $doc]
        pub(crate) type $name = Schedule<$nr>;

        impl Schedule<$nr> {
            pub(crate) fn new(features: Features, key: &[u8; $key_len]) -> Self {
                // SAFETY: `features` proves CPU support; the key has $key_len bytes.
                let rk = unsafe { $expand(key) };
                Schedule { rk, features }
            }
        }

        /// # Safety
        /// The CPU must support the enabled features.
        #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
        unsafe fn $expand(key: &[u8; $key_len]) -> [__m128i; 15] {
            // SAFETY: the key holds $key_len >= 16 bytes.
            let k0 = unsafe { load(key) };
            if $key_len == 16 {
                expand128(k0)
            } else {
                // SAFETY: a 32-byte key has 16 bytes at offset 16.
                expand256(k0, unsafe { load(&key[16..]) })
            }
        }
    };
}

key_schedule!(Aes128, 16, 10, expand_key128, "AES-128 with AES-NI.");
key_schedule!(Aes256, 32, 14, expand_key256, "AES-256 with AES-NI.");
