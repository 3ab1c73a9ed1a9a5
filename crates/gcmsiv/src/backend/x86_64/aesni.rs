//! AES-128 and AES-256 with AES-NI: key expansion (also of per-nonce record
//! keys, in registers), eight blocks in flight for bulk work, and CTR with
//! GCM-SIV's 32-bit little-endian or GCM's big-endian counter.

use super::super::Block;
use super::clmul::Powers;
use super::group::LaneKeyMemory;
use super::partial::{load_partial, store_partial};
use super::short;
use super::stitched::Stitch;
use super::vaes::Keys512;
use super::{Features, Polyval, array};
use crate::backend::{LaneLimits, SHORT_MAX};
use core::arch::x86_64::*;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Blocks kept in flight: enough to cover the latency of `aesenc` on current cores.
const WIDTH: usize = 8;

/// AES-GCM's per-key table: the powers H^1..H^8 of the GHASH key, and where
/// the CPU has AVX-512 the round keys broadcast for the 512-bit stitched
/// pass ([`Keys512`]), both made once per key and wiped with it.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct GcmTable<const NR: usize> {
    pub(super) powers: Powers,
    keys: Option<Keys512<NR>>,
}

impl<const NR: usize> GcmTable<NR> {
    /// The table for `schedule`, whose GHASH key is `h`.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn new(schedule: &Schedule<NR>, h: __m128i) -> Self {
        // SAFETY (`Keys512::empty`): filled just below, before any pass.
        let mut table = GcmTable {
            powers: Powers::new(h),
            keys: schedule.features.zmm().then(|| unsafe { Keys512::empty() }),
        };
        if let Some(keys) = &mut table.keys {
            // SAFETY: `zmm` proves AVX-512 F, BW and VL, and VAES besides.
            unsafe { keys.fill(&schedule.rk) };
        }
        table
    }

    pub(super) fn keys(&self) -> Option<&Keys512<NR>> {
        self.keys.as_ref()
    }
}

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

/// The block at `p`, loaded by an instruction the compiler cannot see
/// through: a value parked in a schedule across a call comes back from
/// there, so no register copy of it lives across the call (to be spilled).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn load_opaque(p: &__m128i) -> __m128i {
    let x: __m128i;
    // SAFETY: reads the 16 bytes of `p` (an aligned `__m128i`).
    unsafe {
        core::arch::asm!(
            "movdqa {x}, xmmword ptr [{p}]",
            x = out(xmm_reg) x,
            p = in(reg) p,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    x
}

/// [`load_opaque`] of a block of bytes (any alignment): a key read per call
/// from the long-lived object that holds it, so that the compiler cannot keep
/// the value from an earlier read in a register, or a spill slot, instead.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn loadu_opaque(b: &[u8; 16]) -> __m128i {
    let x: __m128i;
    // SAFETY: reads the 16 bytes of `b`.
    unsafe {
        core::arch::asm!(
            "movdqu {x}, xmmword ptr [{p}]",
            x = out(xmm_reg) x,
            p = in(reg) b.as_ptr(),
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    x
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

/// Loads 16 bytes.
///
/// # Safety
/// `bytes` must hold at least 16 bytes; SSE2 (baseline on x86-64).
#[inline]
unsafe fn load(bytes: &[u8]) -> __m128i {
    debug_assert!(bytes.len() >= 16);
    // SAFETY: the caller guarantees 16 readable bytes; loadu needs no alignment.
    unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
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

    /// RFC 8452 section 4 in registers: the derivation blocks are encrypted
    /// together, and the record keys (the first halves, paired with
    /// `unpacklo_epi64`) go straight into key expansion and POLYVAL.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    fn derive<const N: usize, const M: usize>(&self, nonce: &[u8; 12]) -> (Schedule<M>, Polyval) {
        let mut b = derivation_blocks::<N>(nonce);
        self.encrypt_n(&mut b);
        let h = _mm_unpacklo_epi64(b[0], b[1]);
        let rk = match N {
            4 => expand128(_mm_unpacklo_epi64(b[2], b[3])),
            _ => expand256(_mm_unpacklo_epi64(b[2], b[3]), _mm_unpacklo_epi64(b[4], b[5])),
        };
        let hash = Polyval::from_register(self.features, h);
        b.zeroize();
        (Schedule { rk, features: self.features }, hash)
    }

    /// Encrypts eight blocks, their rounds kept together (see [`aesenc8`]).
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) fn encrypt8(&self, b: &mut [__m128i; 8]) {
        // The first and last rounds as plain intrinsics, which the compiler
        // interleaves with the blocks' other work (`xor8` and `aesenclast8`
        // here measured 1-3% slower in AES-256 batches). This is the
        // key-generating schedule, and `tests/residue.rs` finds no copy of it.
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
    unsafe fn encrypt_blocks(&self, blocks: &mut [Block]) {
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

    /// CTR over `data` with a 32-bit counter: little-endian in the first four
    /// bytes (GCM-SIV) or, if `BE`, big-endian in the last four (GCM).
    /// `PUBLIC` says the counter's value is public (GCM with a 96-bit IV),
    /// which lets the 512- and 256-bit passes branch on it (`vaes.rs`,
    /// `ChunkCounters`); a counter derived from the key (GCM's J0 for other
    /// IV lengths) must go without.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    pub(super) fn ctr32<const BE: bool, const PUBLIC: bool>(&self, counter: &Block, data: &mut [u8]) {
        if data.is_empty() {
            // The tail after a bulk pass that ended on a chunk boundary: the
            // calls below cost an 8 KiB open 20-30 cycles to do nothing.
            return;
        }
        if self.features.wide() {
            // SAFETY: `wide` proves AVX2 and VAES (`Features::detect_wide`).
            let done = unsafe { self.ctr32_vaes::<BE, PUBLIC>(counter, data) };
            if done > 0 {
                let step = (done / 16) as u32;
                let next = if BE {
                    crate::backend::counter_add_be32(counter, step)
                } else {
                    crate::backend::counter_add_le32(counter, step)
                };
                return self.ctr32_narrow::<BE>(&next, &mut data[done..]);
            }
        }
        self.ctr32_narrow::<BE>(counter, data)
    }

    /// [`Self::ctr32`] one block per instruction.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    fn ctr32_narrow<const BE: bool>(&self, counter: &Block, data: &mut [u8]) {
        // SAFETY: 16 readable bytes.
        let mut ctr0 = unsafe { _mm_loadu_si128(counter.as_ptr().cast()) };
        // Byte-reversed, GCM's big-endian counter becomes lane 0, little-endian.
        let reverse = byte_reverse_mask();
        if BE {
            ctr0 = _mm_shuffle_epi8(ctr0, reverse);
        }
        // `add_epi32` on lane 0 wraps the counter modulo 2^32 and leaves the
        // other 96 bits alone.
        let mut next = 0i32;
        let mut counters = || {
            let b: [__m128i; WIDTH] = array(|k| {
                let c = _mm_add_epi32(ctr0, _mm_setr_epi32(next.wrapping_add(k as i32), 0, 0, 0));
                if BE { _mm_shuffle_epi8(c, reverse) } else { c }
            });
            next = next.wrapping_add(WIDTH as i32);
            b
        };
        let rk = &self.rk;
        let mut chunks = data.chunks_exact_mut(16 * WIDTH);
        for chunk in &mut chunks {
            let mut b = counters();
            xor8(&mut b, &rk[0]);
            for key in &rk[1..NR] {
                aesenc8(&mut b, key);
            }
            aesenclast8(&mut b, &rk[NR]);
            for (k, x) in b.iter().enumerate() {
                let p = chunk[16 * k..].as_mut_ptr().cast::<__m128i>();
                // SAFETY: the chunk holds 16 * WIDTH bytes, so p..p+16 is in bounds.
                unsafe { _mm_storeu_si128(p, _mm_xor_si128(_mm_loadu_si128(p), *x)) };
            }
        }
        let tail = chunks.into_remainder();
        if !tail.is_empty() {
            // Latency, not throughput, bounds a short tail: a group of 4 costs
            // about what 1 does, 8 about what 5 does.
            let first = _mm_setr_epi32(next, 0, 0, 0);
            match tail.len().div_ceil(16) {
                1 => self.ctr_tail::<1, BE>(ctr0, first, reverse, tail),
                2 => self.ctr_tail::<2, BE>(ctr0, first, reverse, tail),
                3 | 4 => self.ctr_tail::<4, BE>(ctr0, first, reverse, tail),
                _ => self.ctr_tail::<8, BE>(ctr0, first, reverse, tail),
            }
        }
    }

    /// CTR over a tail of at most `N` blocks (the last may be partial), from
    /// counter `ctr0 + first` (in the little-endian lane; see [`Self::ctr32`]).
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    fn ctr_tail<const N: usize, const BE: bool>(
        &self,
        ctr0: __m128i,
        first: __m128i,
        reverse: __m128i,
        tail: &mut [u8],
    ) {
        let base = _mm_add_epi32(ctr0, first);
        let mut k: [__m128i; N] = array(|i| {
            let c = _mm_add_epi32(base, _mm_setr_epi32(i as i32, 0, 0, 0));
            if BE { _mm_shuffle_epi8(c, reverse) } else { c }
        });
        self.encrypt_n(&mut k);
        for (block, x) in tail.chunks_mut(16).zip(k) {
            if block.len() == 16 {
                // SAFETY: 16 readable and writable bytes.
                unsafe {
                    let p = block.as_mut_ptr().cast::<__m128i>();
                    _mm_storeu_si128(p, _mm_xor_si128(_mm_loadu_si128(p), x));
                }
            } else {
                store_partial(block, _mm_xor_si128(load_partial(block), x));
            }
        }
        k.zeroize();
    }

    /// GCM-SIV decryption in one pass: CTR with POLYVAL of the plaintext
    /// stitched in (see `stitched.rs`), then the partial tail.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn ctr32le_then_polyval(&self, counter: &Block, data: &mut [u8], hash: &mut Polyval) {
        let mut done = 0;
        if data.len() >= 16 * WIDTH {
            let powers = Powers::new(hash.key());
            // SAFETY: same features.
            done = unsafe {
                if self.features.wide() {
                    // `wide` proves AVX2, VAES and VPCLMULQDQ (`Features::detect_wide`).
                    self.ctr_stitched_wide::<false, false>(
                        counter,
                        data,
                        hash.state_mut(),
                        &powers,
                        Stitch::SivOpen,
                        None,
                        None,
                    )
                } else {
                    self.ctr_stitched::<false>(counter, data, hash.state_mut(), &powers, Stitch::SivOpen)
                }
            };
        }
        let tail_counter = crate::backend::counter_add_le32(counter, (done / 16) as u32);
        let tail = &mut data[done..];
        self.ctr32::<false, false>(&tail_counter, tail);
        crate::backend::Polyval::update_padded(hash, tail);
    }

    /// GCM in one pass: CTR with GHASH (POLYVAL of byte-reversed blocks) of the
    /// ciphertext stitched in, then the partial tail, hashed before its CTR
    /// when decrypting and after it when encrypting.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn ctr32be_ghash<const DECRYPT: bool>(
        &self,
        counter: &Block,
        data: &mut [u8],
        hash: &mut Polyval,
        table: &GcmTable<NR>,
    ) {
        let powers = &table.powers;
        let mode = if DECRYPT { Stitch::GcmOpen } else { Stitch::GcmSeal };
        // SAFETY: same features; `wide` proves AVX2, VAES and VPCLMULQDQ
        // besides (`Features::detect_wide`).
        let done = unsafe {
            if self.features.wide() {
                self.ctr_stitched_wide::<true, false>(
                    counter,
                    data,
                    hash.state_mut(),
                    powers,
                    mode,
                    table.keys(),
                    None,
                )
            } else {
                self.ctr_stitched::<true>(counter, data, hash.state_mut(), powers, mode)
            }
        };
        let tail_counter = crate::backend::counter_add_be32(counter, (done / 16) as u32);
        let tail = &mut data[done..];
        if DECRYPT {
            // SAFETY: same features.
            unsafe { hash.update_padded_blocks::<true>(tail, Some(powers)) };
        }
        self.ctr32::<true, false>(&tail_counter, tail);
        if !DECRYPT {
            // SAFETY: same features.
            unsafe { hash.update_padded_blocks::<true>(tail, Some(powers)) };
        }
    }
}

/// The longest message or AAD a batch's group kernel (`group.rs`) takes
/// when every lane has the same lengths, one lane per register / lanes in
/// pairs (`aesni-vaes`). Past these, one message at a time is faster: its
/// aggregated POLYVAL and 8-block CTR beat the lanes' Horner steps and
/// block-by-block CTR by more than the set-up the group saves (measured
/// crossovers, seal and open, both key sizes: about 300-470 bytes and
/// 730-990 bytes). At 200 bytes a group takes 0.47-0.93x the cycles of one
/// message at a time.
const LANES_MAX: usize = 256;
const WIDE_LANES_MAX: usize = 512;
/// The same where the CPU has AVX-512 and the group's POLYVAL runs four
/// lanes per instruction (`vaes.rs`, `QuadHash`): seals up to 1 KiB (768 B
/// 1.27x, 1 KiB 1.10-1.14x one message at a time in a quiet phase of a
/// shared host, 0.88-0.93x while a neighbour kept the core's vector units
/// busy; 1.5 KiB 0.90-0.97x), opens
/// still up to 512 B (a single open's stitched pass is the faster from 768
/// B: 0.99-1.03x there, 0.85-0.91x at 1 KiB).
const ZMM_SEAL_LANES_MAX: usize = 1024;

impl<const NR: usize> Schedule<NR> {
    /// [`Aes::lane_limits`](crate::backend::Aes::lane_limits) for this CPU.
    /// Lanes of unequal lengths each take the longest one's CTR steps, and
    /// past the short ones that waste costs more than the group saves (a
    /// 16-512-byte mix measured 0.73-0.83x one message at a time), so only
    /// groups of equal lengths go past [`SHORT_MAX`]. Short lanes of unequal
    /// lengths hash one lane per register in a loop of their own; without
    /// VAES that loop made AES-256 groups of a 16-128-byte mix 0.92-0.93x
    /// one message at a time (AES-128 1.00-1.05x), so they go one by one; and
    /// since the one-message kernels take AVX's forms, so do AES-128 seals of
    /// such a mix where the CPU has AVX (grouped, 0.93x; opens grouped 1.00x
    /// against 0.97x one by one, so they stay grouped).
    fn lane_limits(&self, seal: bool) -> LaneLimits {
        let equal_max = if self.features.zmm() && seal {
            ZMM_SEAL_LANES_MAX
        } else if self.features.wide() {
            WIDE_LANES_MAX
        } else {
            LANES_MAX
        };
        let mixed_short = self.features.wide() || (NR == 10 && !(seal && self.features.avx()));
        LaneLimits { equal_max, mixed_short }
    }
}

/// The `pshufb` mask that reverses the 16 bytes of a block.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
pub(super) fn byte_reverse_mask() -> __m128i {
    _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
}

macro_rules! aesni_aes {
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

        impl crate::backend::Aes for $name {
            const KEY_LEN: usize = $key_len;
            type Polyval = Polyval;

            fn rekey(&self, key: &[u8]) -> Self {
                let key: &[u8; $key_len] = key.try_into().expect("internal error: record key length");
                Self::new(self.features, key)
            }
            fn polyval(&self, h: &Block) -> Polyval {
                Polyval::new(self.features, h)
            }
            fn encrypt_blocks(&self, blocks: &mut [Block]) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.encrypt_blocks(blocks) }
            }
            fn ctr32le(&self, counter: &Block, data: &mut [u8]) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.ctr32::<false, false>(counter, data) }
            }
            fn ctr32be(&self, counter: &Block, data: &mut [u8]) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.ctr32::<true, false>(counter, data) }
            }
            type GhashTable = GcmTable<$nr>;
            fn ghash_table(&self, h: &Block) -> GcmTable<$nr> {
                // SAFETY: a schedule holds the Features proof; 16 readable bytes.
                unsafe { GcmTable::new(self, _mm_loadu_si128(h.as_ptr().cast())) }
            }
            fn ghash_update(table: &GcmTable<$nr>, hash: &mut Polyval, data: &[u8]) {
                // SAFETY: a Polyval holds the Features proof of CPU support.
                unsafe { hash.update_padded_blocks::<true>(data, Some(&table.powers)) }
            }
            fn ctr32be_then_ghash(
                &self,
                counter: &Block,
                data: &mut [u8],
                hash: &mut Polyval,
                table: &GcmTable<$nr>,
            ) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.ctr32be_ghash::<false>(counter, data, hash, table) }
            }
            fn ghash_then_ctr32be(
                &self,
                counter: &Block,
                data: &mut [u8],
                hash: &mut Polyval,
                table: &GcmTable<$nr>,
            ) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.ctr32be_ghash::<true>(counter, data, hash, table) }
            }
            fn ctr32le_then_polyval(&self, counter: &Block, data: &mut [u8], hash: &mut Polyval) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.ctr32le_then_polyval(counter, data, hash) }
            }
            fn wide_groups(&self) -> bool {
                // Sixteen lanes one per register too for AES-256, whose
                // derivation is 24 blocks per quad: seals 4-5% faster, opens
                // 1-3%; for AES-128 sixteen measured 6-16 cycles slower.
                self.features.wide() || $nr == 14
            }
            #[inline]
            fn seal_short(&self, nonce: &[u8; 12], aad: &[u8], data: &mut [u8]) -> Option<Block> {
                // SAFETY (both): a schedule holds the Features proof; lengths
                // checked for the short kernel.
                Some(if aad.len() <= SHORT_MAX && data.len() <= SHORT_MAX {
                    unsafe { short::seal_one::<$nr, { 2 + $key_len / 8 }>(self, nonce, aad, data) }
                } else {
                    unsafe { self.seal_long::<{ 2 + $key_len / 8 }>(nonce, aad, data) }
                })
            }
            #[inline]
            fn open_short(
                &self,
                nonce: &[u8; 12],
                aad: &[u8],
                data: &mut [u8],
                tag: &Block,
            ) -> Option<Block> {
                // SAFETY (both): as in `seal_short`.
                Some(if aad.len() <= SHORT_MAX && data.len() <= SHORT_MAX {
                    unsafe { short::open_one::<$nr, { 2 + $key_len / 8 }>(self, nonce, aad, data, tag) }
                } else {
                    unsafe { self.open_long::<{ 2 + $key_len / 8 }>(nonce, aad, data, tag) }
                })
            }
            #[inline]
            fn gcm_fused<const OPEN: bool>(
                &self,
                table: &GcmTable<$nr>,
                iv: &[u8; 12],
                aad: &[u8],
                data: &mut [u8],
            ) -> Option<Block> {
                // SAFETY (both): a schedule holds the Features proof; lengths
                // checked for the short kernel.
                Some(if aad.len() <= SHORT_MAX && data.len() <= SHORT_MAX {
                    unsafe { short::gcm_one::<$nr, OPEN>(self, &table.powers, iv, aad, data) }
                } else {
                    unsafe { self.gcm_long::<OPEN>(table, iv, aad, data) }
                })
            }
            fn lane_limits(&self, seal: bool) -> Option<LaneLimits> {
                Some(Schedule::lane_limits(self, seal))
            }
            type LaneKeys = LaneKeyMemory;
            fn seal_lanes<const L: usize>(
                &self,
                nonces: [&[u8; 12]; L],
                aads: [&[u8]; L],
                data: [&mut [u8]; L],
                keys: &mut LaneKeyMemory,
            ) -> Option<[Block; L]> {
                if L % 4 != 0 {
                    return None;
                }
                // SAFETY: a schedule holds the Features proof; a multiple of
                // 4 lanes (any lengths are correct; the caller keeps them
                // within `lane_limits`, where the group is the faster).
                Some(unsafe { self.seal_group::<{ 2 + $key_len / 8 }, L>(nonces, aads, data, keys) })
            }
            fn open_lanes<const L: usize>(
                &self,
                nonces: [&[u8; 12]; L],
                aads: [&[u8]; L],
                data: [&mut [u8]; L],
                tags: &[Block; L],
                keys: &mut LaneKeyMemory,
            ) -> Option<[Block; L]> {
                if L % 4 != 0 {
                    return None;
                }
                // SAFETY: as in `seal_lanes`.
                Some(unsafe { self.open_group::<{ 2 + $key_len / 8 }, L>(nonces, aads, data, tags, keys) })
            }
            fn derive_record_keys(&self, nonce: &[u8; 12]) -> (Self, Polyval) {
                // SAFETY: a schedule holds the Features proof of CPU support.
                unsafe { self.derive::<{ 2 + $key_len / 8 }, $nr>(nonce) }
            }
        }
    };
}

aesni_aes!(Aes128, 16, 10, expand_key128, "AES-128 with AES-NI.");
aesni_aes!(Aes256, 32, 14, expand_key256, "AES-256 with AES-NI.");
