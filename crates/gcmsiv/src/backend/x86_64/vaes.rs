//! The bulk passes on 256-bit registers, two blocks per instruction, for CPUs
//! with VAES, VPCLMULQDQ and AVX2 (the `aesni-vaes` backend): CTR with VAES,
//! POLYVAL's eight-block aggregated step with VPCLMULQDQ, and the two
//! stitched in one pass (GCM-SIV decryption, GCM both ways).
//!
//! The batch groups run here too, with lanes in pairs (two messages per
//! instruction) from derivation to CTR: [`PairSchedules`] and
//! [`PairHash`] (POLYVAL), driven by `group.rs`'s steps.
//!
//! Everything else (key expansion, the fused one-message kernels, partial
//! chunks, tails) is the `aesni-clmul` code: this file takes over only the
//! whole 128-byte chunks of the bulk passes and the batch groups. On CPUs
//! with AVX-512 as well, the hash of long inputs (1 KiB and more) runs on
//! 512-bit registers, sixteen blocks per reduction: POLYVAL's aggregated step
//! ([`polyval_chunks_zmm`]) and the stitched pass's
//! ([`Schedule::ctr_stitched_wide`]), since on Zen 4 a 512-bit `vpclmulqdq`
//! issues as often as a 128- or 256-bit one; and CTR, there and in its own
//! pass, runs four blocks per `vaesenc` (a 512-bit `vaesenc` takes two issue
//! slots, the same rate per block, but fewer instructions let the AES and
//! the multiplications overlap better). On a Zen 4 core, microbenchmarks of
//! the chunk loops: CTR 0.13 cycles per byte against 0.23 one block per
//! instruction, POLYVAL 0.17 against 0.29 (with 512-bit registers 0.12 and
//! 0.12).
//!
//! As in the rest of the backend, round keys and powers of H are read from
//! memory that is wiped (the schedule, and the [`Powers`] table read as
//! [`Pairs`]) by the instructions that use them, so no copy is left on the
//! stack (`tests/residue.rs`). Written with intrinsics and register-resident keys
//! the stitched pass measured 30% slower here, and left copies.
//!
//! Every function here carries `#[target_feature(enable = "aes,pclmulqdq,
//! ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]`; callers reach it only through a
//! [`Features`] whose `wide` flag says detection found them.

use super::aesni::{Schedule, byte_reverse_mask};
use super::clmul::{Powers, reduce_karatsuba};
use super::group::{LaneHash, LaneKeyMemory, LaneKeys, Words, expand_transposed, sub_word_mask, xor_block};
use super::stitched::Stitch;
use super::{Features, array};
use crate::backend::{Block, WIDE_GROUP};
use core::arch::x86_64::*;
use core::mem::MaybeUninit;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Blocks per chunk: four registers of two blocks.
const CHUNK_BLOCKS: usize = 8;

/// One instruction (`$ins`: `vpxor`, `vaesenc`, `vaesenclast`) on the 256-bit
/// registers `$b` (an array) with the round key at `$key` broadcast to both
/// lanes inside the block. One `asm!` block so the registers stay side by
/// side, and the round key never sits in a register the compiler could spill
/// to the stack (see `round8!` in `aesni.rs`).
macro_rules! rounds_x2 {
    ($ins:literal, $b:expr, $key:expr; $($i:literal),+) => {{
        let b: &mut [__m256i; [$($i),+].len()] = $b;
        let key: &__m128i = $key;
        // SAFETY: reads the 16 bytes of `key` (an aligned `__m128i`);
        // registers otherwise; every caller enables AVX2 and VAES.
        unsafe {
            core::arch::asm!(
                "vbroadcasti128 {k}, xmmword ptr [{key}]",
                $(concat!($ins, " {", $i, "}, {", $i, "}, {k}"),)+
                $(inout(ymm_reg) b[$i],)+
                key = in(reg) key,
                k = out(ymm_reg) _,
                options(readonly, nostack, preserves_flags),
            );
        }
    }};
}

/// [`rounds_x2!`] on four registers (a 128-byte chunk).
macro_rules! round4x2 {
    ($ins:literal, $b:expr, $key:expr) => {
        rounds_x2!($ins, $b, $key; 0, 1, 2, 3)
    };
}

/// One instruction (`$ins`: `vpxorq`, `vaesenc`, `vaesenclast`) on four
/// 512-bit registers (sixteen blocks) with the round key at `$key` broadcast
/// to all four lanes inside the block, as [`rounds_x2!`]; or, with `wide`
/// first, the key already broadcast (a [`Keys512`] entry, loaded as it is).
/// The registers are named (zmm0-zmm4): an operand the compiler allocated
/// above zmm15 was printed under a wrong name in some builds.
macro_rules! round4x4 {
    ($ins:literal, $b:expr, $key:expr) => {{
        let key: &__m128i = $key;
        round4x4!(@load "vbroadcasti32x4 zmm4, xmmword ptr [{key}]", $ins, $b, key)
    }};
    (wide $ins:literal, $b:expr, $key:expr) => {{
        let key: &__m512i = $key;
        round4x4!(@load "vmovdqa64 zmm4, zmmword ptr [{key}]", $ins, $b, key)
    }};
    (@load $load:literal, $ins:literal, $b:expr, $key:expr) => {{
        let b: &mut [__m512i; 4] = $b;
        // SAFETY: reads the key (an aligned `__m128i` or `__m512i`, as the
        // load says); registers otherwise; every caller enables AVX-512 F
        // and VAES.
        unsafe {
            core::arch::asm!(
                $load,
                concat!($ins, " zmm0, zmm0, zmm4"),
                concat!($ins, " zmm1, zmm1, zmm4"),
                concat!($ins, " zmm2, zmm2, zmm4"),
                concat!($ins, " zmm3, zmm3, zmm4"),
                key = in(reg) $key,
                inout("zmm0") b[0],
                inout("zmm1") b[1],
                inout("zmm2") b[2],
                inout("zmm3") b[3],
                out("zmm4") _,
                options(readonly, nostack, preserves_flags),
            );
        }
    }};
}

/// The eight counter blocks of chunk `c` in four registers, from `base` (the
/// pass's first counter in the low lane, one more in the high lane): the
/// chunk's first pair once, then each register's offset as a constant
/// operand (building each offset from a general register took three vector
/// operations, one of them a lane insert). Byte-reversed back for GCM: with
/// `PUBLIC` (see [`ChunkCounters`]), one shuffle per chunk where no counter
/// carries out of its lowest byte; otherwise one per register.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn chunk_counters<const BE: bool, const PUBLIC: bool>(
    base: __m256i,
    c: usize,
    reverse2: __m256i,
) -> [__m256i; 4] {
    let n = (c * CHUNK_BLOCKS) as i32;
    let first = _mm256_add_epi32(base, _mm256_setr_epi32(n, 0, 0, 0, n, 0, 0, 0));
    if BE && PUBLIC && _mm_cvtsi128_si32(_mm256_castsi256_si128(first)) as u8 as usize <= 256 - CHUNK_BLOCKS {
        let f = _mm256_shuffle_epi8(first, reverse2);
        return array(|k| {
            let d = (2 * k as i32) << 24;
            if k == 0 { f } else { _mm256_add_epi32(f, _mm256_setr_epi32(0, 0, 0, d, 0, 0, 0, d)) }
        });
    }
    array(|k| {
        let x = if k == 0 {
            first
        } else {
            let d = 2 * k as i32;
            _mm256_add_epi32(first, _mm256_setr_epi32(d, 0, 0, 0, d, 0, 0, 0))
        };
        if BE { _mm256_shuffle_epi8(x, reverse2) } else { x }
    })
}

/// The round keys of a schedule each broadcast to a 512-bit register's four
/// lanes, for the 512-bit stitched pass: a round then reads its key with one
/// load instead of a load and a broadcast, which shares the shuffle unit
/// with the hash (AES-128-GCM seals of 64 KiB 6% fewer cycles, GCM-SIV opens
/// 3%). AES-GCM keeps one per key; a GCM-SIV open of [`KEYS512_FROM`] bytes
/// or more builds one for the call. [`Self::fill`] writes every entry once
/// (round keys 0..=NR, zeros past NR: no stack garbage travels with a table
/// that is moved), and drop and `zeroize` wipe the round keys. (Zeroing all
/// fifteen before `fill` wrote them again, and wiping all fifteen, cost an
/// open fifteen 512-bit stores more for AES-128.)
#[derive(Clone)]
pub(super) struct Keys512<const NR: usize> {
    rk: [MaybeUninit<__m512i>; 15],
}

/// The message length from which an open builds a [`Keys512`] for its
/// stitched pass: each 256-byte chunk then saves about 2.5 cycles. Building
/// and wiping one cost about 70 while all fifteen entries were zeroed first
/// and wiped after, and the threshold was 16 KiB; with each entry written
/// once and only the round keys wiped, from 8 KiB: 8 KiB opens about 2%
/// (AES-128, within the spread of runs) to 3% (AES-256) fewer cycles
/// (`--only fixed`, medians of eight alternating runs: +17.9% over the limit
/// loop to +15.9%, and +14.1% to +11.0%), 16 KiB about 1%; at 4 KiB building
/// one measured within noise.
const KEYS512_FROM: usize = 8 * 1024;

impl<const NR: usize> Keys512<NR> {
    /// Room for the keys, unwritten: [`Self::fill`] writes them where they
    /// will stay (a filled one returned by value could leave a copy in the
    /// frame it came from).
    ///
    /// # Safety
    /// [`Self::fill`] must run before the value is used in a pass (which
    /// reads the keys).
    pub(super) unsafe fn empty() -> Self {
        Keys512 { rk: [MaybeUninit::uninit(); 15] }
    }

    /// `rk`'s round keys, broadcast, in place. (Outside code that enables
    /// AVX-512 F, a call is `unsafe`: the CPU must have it.)
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    pub(super) fn fill(&mut self, rk: &[__m128i; 15]) {
        for (slot, key) in self.rk[..=NR].iter_mut().zip(rk) {
            slot.write(_mm512_broadcast_i32x4(*key));
        }
        for slot in &mut self.rk[NR + 1..] {
            slot.write(_mm512_setzero_si512());
        }
    }

    /// Round key `r` (at most NR), in all four lanes.
    #[inline]
    fn get(&self, r: usize) -> &__m512i {
        // SAFETY: entries 0..=NR are written by `fill` before any read
        // (`empty`'s contract).
        unsafe { self.rk[..=NR][r].assume_init_ref() }
    }
}

impl<const NR: usize> Zeroize for Keys512<NR> {
    fn zeroize(&mut self) {
        // The round keys (`fill` left zeros past NR).
        self.rk[..=NR].zeroize();
    }
}

impl<const NR: usize> Drop for Keys512<NR> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl<const NR: usize> ZeroizeOnDrop for Keys512<NR> {}

/// Where a 512-bit pass's rounds read their keys: a [`Schedule`] (each
/// key broadcast as it is used) or a [`Keys512`].
///
/// # Safety
/// Callers of the methods must run on a CPU with AVX-512 F and VAES.
trait ZmmKeys {
    unsafe fn first(&self, b: &mut [__m512i; 4]);
    unsafe fn middle(&self, b: &mut [__m512i; 4], r: usize);
    unsafe fn last(&self, b: &mut [__m512i; 4]);
}

impl<const NR: usize> ZmmKeys for Schedule<NR> {
    #[inline]
    #[target_feature(enable = "avx,avx2,vaes,avx512f,avx512bw,avx512vl")]
    unsafe fn first(&self, b: &mut [__m512i; 4]) {
        round4x4!("vpxorq", b, &self.rk[0]);
    }
    #[inline]
    #[target_feature(enable = "avx,avx2,vaes,avx512f,avx512bw,avx512vl")]
    unsafe fn middle(&self, b: &mut [__m512i; 4], r: usize) {
        round4x4!("vaesenc", b, &self.rk[r]);
    }
    #[inline]
    #[target_feature(enable = "avx,avx2,vaes,avx512f,avx512bw,avx512vl")]
    unsafe fn last(&self, b: &mut [__m512i; 4]) {
        round4x4!("vaesenclast", b, &self.rk[NR]);
    }
}

impl<const NR: usize> ZmmKeys for Keys512<NR> {
    #[inline]
    #[target_feature(enable = "avx,avx2,vaes,avx512f,avx512bw,avx512vl")]
    unsafe fn first(&self, b: &mut [__m512i; 4]) {
        round4x4!(wide "vpxorq", b, self.get(0));
    }
    #[inline]
    #[target_feature(enable = "avx,avx2,vaes,avx512f,avx512bw,avx512vl")]
    unsafe fn middle(&self, b: &mut [__m512i; 4], r: usize) {
        round4x4!(wide "vaesenc", b, self.get(r));
    }
    #[inline]
    #[target_feature(enable = "avx,avx2,vaes,avx512f,avx512bw,avx512vl")]
    unsafe fn last(&self, b: &mut [__m512i; 4]) {
        round4x4!(wide "vaesenclast", b, self.get(NR));
    }
}

/// All the rounds of AES on a chunk's registers `$b` with the round keys
/// `$rk` (0..=`$nr`), one `$round!` instruction per round (`$xor`, the
/// width's XOR, for round 0).
macro_rules! encrypt_chunk {
    ($round:ident, $xor:literal, $b:expr, $rk:expr, $nr:expr) => {{
        let b = $b;
        $round!($xor, &mut *b, &$rk[0]);
        for r in 1..$nr {
            $round!("vaesenc", &mut *b, &$rk[r]);
        }
        $round!("vaesenclast", &mut *b, &$rk[$nr]);
    }};
}

/// A pass's first two counter blocks in one register, for [`chunk_counters`]:
/// `counter` in the low lane (byte-reversed for GCM's big-endian counter, so
/// that in either mode the 32-bit counter is lane 0 of each half), one more in
/// the high lane. `add_epi32` on lane 0 of each half wraps modulo 2^32 and
/// leaves the other 96 bits alone.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn counter_pair<const BE: bool>(counter: &Block) -> __m256i {
    // SAFETY: 16 readable bytes.
    let mut ctr0 = unsafe { _mm_loadu_si128(counter.as_ptr().cast()) };
    if BE {
        ctr0 = _mm_shuffle_epi8(ctr0, byte_reverse_mask());
    }
    _mm256_add_epi32(_mm256_broadcastsi128_si256(ctr0), _mm256_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0))
}

impl<const NR: usize> Schedule<NR> {
    /// CTR over the whole 128-byte chunks of `data` from `counter` (as
    /// [`Schedule::ctr32`]: little-endian in the first four bytes, or with
    /// `BE` GCM's big-endian last four); returns the bytes processed. The
    /// caller runs the rest from counter + bytes / 16. Where the CPU has
    /// AVX-512, the 256-byte chunks run four blocks per instruction first
    /// ([`Self::ctr32_zmm`]).
    ///
    /// # Safety
    /// The CPU must support the enabled features (AVX2 and VAES besides the
    /// baseline set).
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
    pub(super) unsafe fn ctr32_vaes<const BE: bool, const PUBLIC: bool>(
        &self,
        counter: &Block,
        data: &mut [u8],
    ) -> usize {
        let (done, next) = if self.features.zmm() {
            // SAFETY: `zmm` proves AVX-512 F, BW and VL besides.
            let done = unsafe { self.ctr32_zmm::<BE, PUBLIC>(counter, data) };
            (done, counter_after::<BE>(counter, done))
        } else {
            (0, *counter)
        };
        let data = &mut data[done..];
        let chunks = data.len() / (16 * CHUNK_BLOCKS);
        if chunks == 0 {
            return done;
        }
        let base = counter_pair::<BE>(&next);
        let reverse2 = _mm256_broadcastsi128_si256(byte_reverse_mask());
        let p = data.as_mut_ptr();
        for c in 0..chunks {
            let mut b = chunk_counters::<BE, PUBLIC>(base, c, reverse2);
            encrypt_chunk!(round4x2, "vpxor", &mut b, &self.rk, NR);
            for (k, x) in b.iter().enumerate() {
                // SAFETY: chunk c's register k covers bytes 128 c + 32 k
                // .. + 32, inside `data` (c < chunks).
                unsafe {
                    let q = p.add(16 * CHUNK_BLOCKS * c + 32 * k).cast::<__m256i>();
                    _mm256_storeu_si256(q, _mm256_xor_si256(_mm256_loadu_si256(q), *x));
                }
            }
        }
        done + chunks * 16 * CHUNK_BLOCKS
    }

    /// [`Self::ctr32_vaes`] over whole 256-byte chunks, four registers of
    /// four blocks (limits table: 0.117 against 0.120 c/B for AES-128, 0.163
    /// against 0.173 for AES-256). Returns the bytes processed.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    unsafe fn ctr32_zmm<const BE: bool, const PUBLIC: bool>(
        &self,
        counter: &Block,
        data: &mut [u8],
    ) -> usize {
        let chunks = data.len() / 256;
        let mut counters = ChunkCounters::<BE, PUBLIC>::new(counter_quad::<BE>(counter));
        let p = data.as_mut_ptr();
        for c in 0..chunks {
            let mut b = counters.next();
            encrypt_chunk!(round4x4, "vpxorq", &mut b, &self.rk, NR);
            for (k, x) in b.iter().enumerate() {
                // SAFETY: register k of chunk c, inside `data` (c < chunks).
                unsafe {
                    let q = p.add(256 * c + 64 * k);
                    _mm512_storeu_si512(q.cast(), _mm512_xor_si512(_mm512_loadu_si512(q.cast()), *x));
                }
            }
        }
        chunks * 256
    }
}

/// `counter` advanced past `bytes` (whole blocks) of CTR, in the counter's
/// own convention.
#[inline]
pub(super) fn counter_after<const BE: bool>(counter: &Block, bytes: usize) -> Block {
    let n = (bytes / 16) as u32;
    if BE {
        crate::backend::counter_add_be32(counter, n)
    } else {
        crate::backend::counter_add_le32(counter, n)
    }
}

/// [`counter_pair`] on four lanes: lane k is `counter` + k.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
fn counter_quad<const BE: bool>(counter: &Block) -> __m512i {
    let pair = counter_pair::<BE>(counter);
    _mm512_add_epi32(
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(pair), pair),
        _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0),
    )
}

/// The sixteen counter blocks of 256-byte chunk `c` in four registers, from
/// [`counter_quad`]'s `base`; byte-reversed back for GCM, one shuffle per
/// register (the passes take them through [`ChunkCounters`], which mostly
/// needs none).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
fn chunk_counters_zmm<const BE: bool>(base: __m512i, c: usize) -> [__m512i; 4] {
    let reverse4 = _mm512_broadcast_i32x4(byte_reverse_mask());
    let first = _mm512_add_epi32(base, _mm512_set4_epi32(0, 0, 0, (16 * c) as i32));
    array(|k| {
        let x = _mm512_add_epi32(first, _mm512_set4_epi32(0, 0, 0, 4 * k as i32));
        if BE { _mm512_shuffle_epi8(x, reverse4) } else { x }
    })
}

/// The counter blocks of a 512-bit pass's 256-byte chunks in order
/// ([`chunk_counters_zmm`]). GCM's counter ends in its lowest byte, the
/// block's last: while a chunk's sixteen counters do not carry out of that
/// byte (fifteen chunks in sixteen), each register is the chunk's first one
/// byte-reversed plus 4k in its last byte, and that first register is kept
/// byte-reversed from one chunk to the next (a constant added to its last
/// byte), so such a chunk costs no shuffle at all.
///
/// That shortcut branches on the counter's value, so it is taken only with
/// `PUBLIC`: GCM with a 96-bit IV, whose counter is the IV itself. For
/// other IV lengths the counter J0 is GHASH of the IV under the secret key,
/// and which chunks took the shortcut would leak bits of it through timing
/// (bits linear in H, given the IV); without `PUBLIC` every chunk takes the
/// shuffles, whatever its counter. (GCM-SIV's little-endian counter needs
/// no shuffle, so no branch either.)
struct ChunkCounters<const BE: bool, const PUBLIC: bool> {
    base: __m512i,
    c: usize,
    /// With `BE`: chunk `c`'s first register, byte-reversed.
    first_be: __m512i,
}

impl<const BE: bool, const PUBLIC: bool> ChunkCounters<BE, PUBLIC> {
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    fn new(base: __m512i) -> Self {
        let first_be =
            if BE { _mm512_shuffle_epi8(base, _mm512_broadcast_i32x4(byte_reverse_mask())) } else { base };
        ChunkCounters { base, c: 0, first_be }
    }

    /// The next chunk's four registers.
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    fn next(&mut self) -> [__m512i; 4] {
        let c = self.c;
        self.c += 1;
        if !BE {
            return chunk_counters_zmm::<false>(self.base, c);
        }
        if !PUBLIC {
            return chunk_counters_zmm::<true>(self.base, c);
        }
        let first = _mm512_add_epi32(self.base, _mm512_set4_epi32(0, 0, 0, (16 * c) as i32));
        let low = _mm_cvtsi128_si32(_mm512_castsi512_si128(first)) as u8 as usize;
        let out = if low <= 256 - 16 {
            let f = self.first_be;
            array(|k| {
                if k == 0 { f } else { _mm512_add_epi32(f, _mm512_set4_epi32((4 * k as i32) << 24, 0, 0, 0)) }
            })
        } else {
            chunk_counters_zmm::<true>(self.base, c)
        };
        // The next chunk's first counters: sixteen more in the last byte
        // while that does not carry (a chunk past 240 takes the slow path
        // above and does not read it), else reversed afresh.
        self.first_be = if low + 16 < 256 {
            _mm512_add_epi32(self.first_be, _mm512_set4_epi32(16 << 24, 0, 0, 0))
        } else {
            let next = _mm512_add_epi32(self.base, _mm512_set4_epi32(0, 0, 0, (16 * (c + 1)) as i32));
            _mm512_shuffle_epi8(next, _mm512_broadcast_i32x4(byte_reverse_mask()))
        };
        out
    }
}

/// POLYVAL's aggregated step over the whole 128-byte chunks of `blocks`,
/// from `s`: per chunk, S = dot(S ^ X_1, H^8) ^ dot(X_2, H^7) ^ ... ^
/// dot(X_8, H), as [`super::clmul::aggregate`], with two Karatsuba products
/// per instruction and one reduction. Returns S and the bytes absorbed.
/// Long inputs, where `features` has AVX-512, take [`polyval_chunks_zmm`]
/// for their 256-byte chunks first.
///
/// The powers are read as [`pairs`] of the table, in the lane order of the
/// block pairs as they lie in memory (swapping each pair's lanes instead cost
/// 5% in the stitched pass).
///
/// # Safety
/// The CPU must support the enabled features (AVX2 and VPCLMULQDQ besides
/// the baseline set).
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) unsafe fn polyval_chunks_wide<const REVERSED: bool>(
    features: Features,
    s: __m128i,
    powers: &Powers,
    blocks: &[u8],
) -> (__m128i, usize) {
    let (s, done) = if features.zmm() && blocks.len() >= ZMM_FROM {
        // SAFETY: `zmm` proves AVX-512 F, BW and VL besides (`Features::detect_wide`).
        unsafe { polyval_chunks_zmm::<REVERSED>(s, powers, blocks) }
    } else {
        (s, 0)
    };
    // SAFETY: same features.
    let (s, more) = unsafe { polyval_chunks_with::<REVERSED>(s, pairs(powers), &blocks[done..]) };
    (s, done + more)
}

/// Inputs at least this long take the 512-bit hash ([`polyval_chunks_zmm`],
/// [`Schedule::ctr_stitched_wide`]) where the CPU can. Below it, building
/// H^9..H^16 costs more than the wider pass saves. With H^9..H^16 built as
/// eight products one instruction at a time, the break-even lay between 2
/// and 4 KiB; built four per instruction, against 4 KiB: 1-1.5 KiB 0-8%
/// fewer cycles, 2-3 KiB 3-13% (seals, opens, GCM); 512 B even.
const ZMM_FROM: usize = 1024;

/// Inputs at least this long take their first block on its own when that
/// puts the rest of a stitched pass on 32-byte boundaries
/// ([`Schedule::ctr_stitched_wide`]). A heap buffer starts on a 16-byte
/// boundary, and half of them 16 bytes past a 32-byte one (every buffer of
/// 128 KiB or more does: the allocator's header before a mapped block);
/// there the passes ran 2-5% slower than aligned (cycles 16 or 48 bytes off
/// against 0 or 32 bytes off, best of 300-3000 calls, medians of four
/// alternating runs, at 64 KiB and 1 MiB: GCM seal 1.05 -> 1.00-1.01,
/// GCM-SIV open 1.02-1.03 -> 1.00-1.01, GCM open 1.02-1.03 -> 1.00-1.01).
/// The first block apart leaves a tail of 240 bytes past the last whole
/// chunk, which since the 512-bit pass finishes such tails as one masked
/// chunk costs less than the misalignment from 8 KiB: on buffers 16 or 48
/// bytes off a 64-byte boundary, 16 KiB GCM-SIV opens 3-5% and GCM seals 5-6%
/// fewer cycles than with the earlier 32 KiB, 8 KiB 0-5% (GCM opens the same
/// within 2%); at 4 KiB it cost up to 1% more.
const ALIGN_FROM: usize = 8 * 1024;

/// A 512-bit pass that finishes a message (see [`Schedule::ctr_stitched_wide`])
/// takes a tail longer than this as one more chunk under a mask. Shorter
/// tails take a 128-byte chunk of the 256-bit pass (from 128 bytes) and
/// then `short.rs`'s `stitched_tail`, which run AES on the blocks there
/// are rather than on sixteen: as a masked chunk, tails of 128 and 144-152
/// bytes took 2-7% more cycles, 176 about as many, 192-255 3-15% fewer.
const FINAL_CHUNK_FROM: usize = 176;

/// [`polyval_chunks_wide`] four blocks per instruction (512-bit registers),
/// sixteen blocks per reduction. Each 256-byte chunk's blocks are multiplied
/// by H^16..H^1 without the running sum S, whose product S H^16 is taken
/// apart (one 128-bit Karatsuba product) and added before the reduction:
/// the chain from one chunk's S to the next is then that product and the
/// reduction, not the sixteen-block sum and its 512-to-128-bit folding
/// (0.126 c/B at 16 KiB against 0.139 with S in the first block). The
/// stitched pass, whose chunks take longer, adds S to the first block
/// instead: three products fewer per chunk.
/// Returns S and the bytes absorbed (whole 256-byte chunks).
///
/// # Safety
/// The CPU must support the enabled features (AVX-512 F, BW and VL besides).
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn polyval_chunks_zmm<const REVERSED: bool>(
    mut s: __m128i,
    powers: &Powers,
    blocks: &[u8],
) -> (__m128i, usize) {
    let chunks = blocks.len() / 256;
    if chunks == 0 {
        return (s, 0);
    }
    let p = blocks.as_ptr();
    let sixteen = Sixteen::new(powers);
    for c in 0..chunks {
        // SAFETY: chunk c lies inside `blocks` (c < chunks).
        s = unsafe { sixteen.absorb::<REVERSED>(s, p.add(256 * c)) };
    }
    (s, chunks * 256)
}

/// The powers of H for the 512-bit passes: H^16..H^9 (built per pass, wiped
/// as it drops) beside the table's H^8..H^1, read four at a time.
struct Sixteen<'a> {
    high: Powers,
    low: &'a Powers,
}

/// The sums of a 256-byte chunk's sixteen Karatsuba products, unreduced, in
/// four lanes each: `(lo, hi, mid)`.
type Sums512 = (__m512i, __m512i, __m512i);

/// The four 128-bit lanes of `v` added together.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
fn lanes(v: __m512i) -> __m128i {
    let v = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v));
    _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v))
}

impl<'a> Sixteen<'a> {
    /// H^16..H^9: H^8 times the table's H^8..H^1, one level of independent
    /// products, four per instruction (schoolbook, then both quads reduced
    /// four lanes at a time): twelve 512-bit `vpclmulqdq` where eight
    /// 128-bit products took forty.
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    fn new(low: &'a Powers) -> Self {
        let t = Self::quads(low);
        let b = _mm512_broadcast_i32x4(low.h[0]);
        let poly = _mm512_broadcast_i32x4(_mm_set_epi64x(0, 0xc200_0000_0000_0000u64 as i64));
        let times_h8 = |a: __m512i| {
            let lo = _mm512_clmulepi64_epi128::<0x00>(a, b);
            let hi = _mm512_clmulepi64_epi128::<0x11>(a, b);
            let mid = _mm512_xor_si512(
                _mm512_clmulepi64_epi128::<0x01>(a, b),
                _mm512_clmulepi64_epi128::<0x10>(a, b),
            );
            let mut lo = _mm512_xor_si512(lo, _mm512_bslli_epi128::<8>(mid));
            let hi = _mm512_xor_si512(hi, _mm512_bsrli_epi128::<8>(mid));
            // `reduce`, lane by lane.
            for _ in 0..2 {
                let r = _mm512_clmulepi64_epi128::<0x00>(lo, poly);
                lo = _mm512_xor_si512(_mm512_shuffle_epi32::<0x4e>(lo), r);
            }
            _mm512_xor_si512(hi, lo)
        };
        let (q0, q1) = (times_h8(t[0]), times_h8(t[1]));
        let fold = |q: __m512i| _mm512_xor_si512(q, _mm512_shuffle_epi32::<0x4e>(q));
        let mut high = Powers { h: [_mm_setzero_si128(); 8], h_xor: [_mm_setzero_si128(); 8] };
        // SAFETY: `Powers` is four quads (asserted below), borrowed mutably.
        unsafe { *(&mut high as *mut Powers).cast::<[__m512i; 4]>() = [q0, q1, fold(q0), fold(q1)] };
        Sixteen { high, low }
    }

    /// The table `p` as four quads: H powers in 0 and 1, folded halves in
    /// 2 and 3.
    #[inline]
    fn quads(p: &Powers) -> &[__m512i; 4] {
        // SAFETY: `Powers` is 256 bytes, aligned for `__m512i` (asserted
        // below): four quads, borrowed for as long as `p`.
        unsafe { &*(p as *const Powers).cast::<[__m512i; 4]>() }
    }

    /// Quad `q` (blocks 4q+1..4q+4 of a chunk, as loaded) times
    /// H^(16-4q)..H^(13-4q), Karatsuba's three products added to `sums`.
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    fn product(&self, x: __m512i, q: usize, sums: &mut Sums512) {
        let t = if q < 2 { Self::quads(&self.high) } else { Self::quads(self.low) };
        let (key, folded) = (&t[q % 2], &t[2 + q % 2]);
        // The powers as memory operands (see [`clmul512_at`]).
        sums.0 = _mm512_xor_si512(sums.0, clmul512_at::<0x00>(x, key));
        sums.1 = _mm512_xor_si512(sums.1, clmul512_at::<0x11>(x, key));
        let f = _mm512_xor_si512(x, _mm512_shuffle_epi32::<0x4e>(x));
        sums.2 = _mm512_xor_si512(sums.2, clmul512_at::<0x00>(f, folded));
    }

    /// The chunk's sums folded to 128 bits, S H^16 added (taken apart from
    /// the chunk's products so that the chain from one chunk's S to the
    /// next is this product and the reduction), and the one reduction: the
    /// new S.
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    fn finish(&self, s: __m128i, (lo, hi, mid): Sums512) -> __m128i {
        let (h16, h16_xor) = (&self.high.h[0], &self.high.h_xor[0]);
        let sl = super::clmul::clmul_at::<0x00>(s, h16);
        let sh = super::clmul::clmul_at::<0x11>(s, h16);
        let sm = super::clmul::clmul_at::<0x00>(super::clmul::fold_halves(s), h16_xor);
        let (l, u, m) = (lanes(lo), lanes(hi), lanes(mid));
        reduce_karatsuba(_mm_xor_si128(l, sl), _mm_xor_si128(u, sh), _mm_xor_si128(m, sm))
    }

    /// The chunk's sums folded to 128 bits and reduced: the new S when the
    /// old one went in with the chunk's first block (the stitched pass).
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    fn reduce(&self, (lo, hi, mid): Sums512) -> __m128i {
        reduce_karatsuba(lanes(lo), lanes(hi), lanes(mid))
    }

    /// The 256-byte chunk at `p` absorbed into `s` (byte-reversed first if
    /// `REVERSED`).
    ///
    /// # Safety
    /// `p` must point to 256 readable bytes.
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    unsafe fn absorb<const REVERSED: bool>(&self, s: __m128i, p: *const u8) -> __m128i {
        let reverse4 = _mm512_broadcast_i32x4(byte_reverse_mask());
        let mut sums = (_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512());
        for q in 0..4 {
            // SAFETY: quad q of the chunk (caller's contract).
            let x = unsafe { _mm512_loadu_si512(p.add(64 * q).cast()) };
            let x = if REVERSED { _mm512_shuffle_epi8(x, reverse4) } else { x };
            self.product(x, q, &mut sums);
        }
        self.finish(s, sums)
    }

    /// A message's last `m` blocks (12 to 16, in `x` from its first lane,
    /// zero after them) and then the length block `len` absorbed into `s`,
    /// in one sixteen-block step when they fit (`m` < 16): the blocks moved
    /// up by 15 - `m` lanes so that the length block is the last one, where
    /// H^1 meets it, and every block meets its power as in a whole chunk.
    /// With sixteen blocks, the length block is a step of its own.
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    fn absorb_final(&self, s: __m128i, mut x: [__m512i; 4], m: usize, len: __m128i) -> __m128i {
        debug_assert!((12..=16).contains(&m));
        x[0] = _mm512_xor_si512(x[0], _mm512_zextsi128_si512(s));
        if m == 16 {
            let mut sums = (_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512());
            for (q, &xq) in x.iter().enumerate() {
                self.product(xq, q, &mut sums);
            }
            return super::clmul::aggregate(self.reduce(sums), &[len], self.low);
        }
        // The length block after the last one (lane m, zero until now), in
        // the last register. `m` is the message's length in blocks: public,
        // as every branch here.
        x[3] = _mm512_mask_broadcast_i32x4(x[3], 0xf << (4 * (m % 4)), len);
        // Each register takes the top 15 - m lanes of the one below (the
        // lanes pushed out of the top are zero).
        let below = |j: usize| if j == 0 { _mm512_setzero_si512() } else { x[j - 1] };
        let y: [__m512i; 4] = array(|j| match 15 - m {
            0 => x[j],
            1 => _mm512_alignr_epi64::<6>(x[j], below(j)),
            2 => _mm512_alignr_epi64::<4>(x[j], below(j)),
            _ => _mm512_alignr_epi64::<2>(x[j], below(j)),
        });
        let mut sums = (_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512());
        for (q, &yq) in y.iter().enumerate() {
            self.product(yq, q, &mut sums);
        }
        self.reduce(sums)
    }
}

/// [`polyval_chunks_wide`] on the table's [`pairs`].
///
/// # Safety
/// As there.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
unsafe fn polyval_chunks_with<const REVERSED: bool>(
    mut s: __m128i,
    table: &Pairs,
    blocks: &[u8],
) -> (__m128i, usize) {
    let chunks = blocks.len() / (16 * CHUNK_BLOCKS);
    let p = blocks.as_ptr();
    let reverse2 = _mm256_broadcastsi128_si256(byte_reverse_mask());
    for c in 0..chunks {
        let (mut lo, mut hi, mut mid) =
            (_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256());
        for j in 0..CHUNK_BLOCKS / 2 {
            // SAFETY: pair j of chunk c, inside `blocks` (c < chunks).
            let x = unsafe { _mm256_loadu_si256(p.add(16 * CHUNK_BLOCKS * c + 32 * j).cast()) };
            let x = if REVERSED { _mm256_shuffle_epi8(x, reverse2) } else { x };
            pair_product_table(x, j, s, table, &mut lo, &mut hi, &mut mid);
        }
        s = finish(lo, hi, mid);
    }
    (s, chunks * 16 * CHUNK_BLOCKS)
}

/// The powers of H as the 256-bit products read them: entry j holds
/// (H^(8-2j), H^(7-2j)) and entry 4 + j their folded halves, for block pair j
/// as it lies in memory.
type Pairs = [__m256i; 8];

// `pairs` relies on this layout: two arrays of eight blocks, no padding,
// 32-byte aligned.
const _: () = assert!(size_of::<Powers>() == size_of::<Pairs>() && align_of::<Powers>() == 64);
const _: () = assert!(size_of::<Powers>() == size_of::<[__m512i; 4]>());

/// The table of powers, highest first, seen as [`Pairs`]: the same bytes,
/// nothing copied (so nothing more to wipe).
#[inline]
fn pairs(powers: &Powers) -> &Pairs {
    // SAFETY: `Powers` is `repr(C, align(32))` with two `[__m128i; 8]` fields
    // and no padding (asserted above): 256 initialized bytes, aligned for
    // `__m256i`, borrowed for as long as `powers`.
    unsafe { &*(powers as *const Powers).cast::<Pairs>() }
}

/// Block pair `j` (X_2j+1, X_2j+2, as loaded) of a chunk multiplied by
/// (H^(8-2j), H^(7-2j)) from the table, Karatsuba's three products added to
/// `lo`, `hi` and `mid`; pair 0 takes the state `s` into its first block.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn pair_product_table(
    x: __m256i,
    j: usize,
    s: __m128i,
    table: &Pairs,
    lo: &mut __m256i,
    hi: &mut __m256i,
    mid: &mut __m256i,
) {
    let a = if j == 0 { _mm256_xor_si256(x, _mm256_zextsi128_si256(s)) } else { x };
    *lo = _mm256_xor_si256(*lo, clmul256_at::<0x00>(a, &table[j]));
    *hi = _mm256_xor_si256(*hi, clmul256_at::<0x11>(a, &table[j]));
    let folded = _mm256_xor_si256(a, _mm256_shuffle_epi32::<0x4e>(a));
    *mid = _mm256_xor_si256(*mid, clmul256_at::<0x00>(folded, &table[4 + j]));
}

/// `vpclmulqdq` of `a` with the 64 bytes at `b`, read by the instruction: a
/// power of H loaded as a value may be hoisted out of a loop and, short of
/// registers, spilled to the stack, where nothing wipes it
/// (`tests/residue.rs` found H^8..H^5 there in AES-256-GCM).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
fn clmul512_at<const IMM: u8>(a: __m512i, b: &__m512i) -> __m512i {
    let out: __m512i;
    // SAFETY: reads the 64 bytes of `b` (an aligned `__m512i`); registers
    // otherwise; the caller enables AVX-512 F and VPCLMULQDQ.
    unsafe {
        core::arch::asm!(
            "vpclmulqdq {out}, {a}, zmmword ptr [{b}], {imm}",
            out = lateout(zmm_reg) out,
            a = in(zmm_reg) a,
            b = in(reg) b,
            imm = const IMM,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    out
}

/// `vpclmulqdq` of `a` with the 32 bytes at `b`, read by the instruction.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn clmul256_at<const IMM: u8>(a: __m256i, b: &__m256i) -> __m256i {
    let out: __m256i;
    // SAFETY: reads the 32 bytes of `b` (an aligned `__m256i`); registers
    // otherwise; the caller enables VPCLMULQDQ.
    unsafe {
        core::arch::asm!(
            "vpclmulqdq {out}, {a}, ymmword ptr [{b}], {imm}",
            out = lateout(ymm_reg) out,
            a = in(ymm_reg) a,
            b = in(reg) b,
            imm = const IMM,
            options(pure, readonly, nostack, preserves_flags),
        );
    }
    out
}

/// `vpclmulqdq` of two registers.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn clmul256<const IMM: i32>(a: __m256i, b: __m256i) -> __m256i {
    _mm256_clmulepi64_epi128::<IMM>(a, b)
}

/// The two lanes of the unreduced sums added together, Karatsuba's middle
/// term folded in, and the one reduction: the chunk's new state.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn finish(lo: __m256i, hi: __m256i, mid: __m256i) -> __m128i {
    let lanes = |v: __m256i| _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    reduce_karatsuba(lanes(lo), lanes(hi), lanes(mid))
}

/// [`LaneHash`] for a batch group's `L` lanes (8 or 16) two lanes per
/// instruction: register `i` carries lanes `i` and `i + L / 2` (the pairs of
/// [`pack`]), so each Horner step of Karatsuba's three products and the
/// two-step reduction costs five `vpclmulqdq` for two lanes, where one block
/// per instruction takes five for one (on Zen 4 both widths issue at the
/// same rate). Each pair's H and folded H sit in a table read by the
/// multiplications as memory operands and wiped on drop, so no copy reaches
/// the stack.
pub(super) struct PairHash<const L: usize> {
    /// `keys[i]`: the H of pair `i`; `keys[PAIRS + i]`: its halves folded.
    keys: [__m256i; 2 * PAIRS],
    s: [__m256i; PAIRS],
}

impl<const L: usize> LaneHash<L> for PairHash<L> {
    #[inline(always)]
    unsafe fn new(h: &[__m128i; L]) -> Self {
        debug_assert!(L.is_multiple_of(8) && L <= WIDE_GROUP);
        // SAFETY: the caller enables AVX2.
        unsafe {
            let mut keys = [_mm256_setzero_si256(); 2 * PAIRS];
            let packed = pack(h);
            for i in 0..L / 2 {
                keys[i] = packed[i];
                keys[PAIRS + i] = _mm256_xor_si256(packed[i], _mm256_shuffle_epi32::<0x4e>(packed[i]));
            }
            Self { keys, s: [_mm256_setzero_si256(); PAIRS] }
        }
    }

    #[inline(always)]
    unsafe fn absorb(&mut self, x: impl Fn(usize) -> __m128i) {
        // SAFETY: the caller enables AVX2 and VPCLMULQDQ.
        unsafe {
            let poly = _mm256_set1_epi64x(0xc200_0000_0000_0000u64 as i64);
            for p in 0..L / 2 {
                let (key, folded) = (&self.keys[p], &self.keys[PAIRS + p]);
                let a = _mm256_xor_si256(self.s[p], _mm256_set_m128i(x(p + L / 2), x(p)));
                let lo = clmul256_at::<0x00>(a, key);
                let hi = clmul256_at::<0x11>(a, key);
                let f = _mm256_xor_si256(a, _mm256_shuffle_epi32::<0x4e>(a));
                let mid = _mm256_xor_si256(clmul256_at::<0x00>(f, folded), _mm256_xor_si256(lo, hi));
                // As `reduce` (clmul.rs), in each lane.
                let mut lo = _mm256_xor_si256(lo, _mm256_slli_si256::<8>(mid));
                let hi = _mm256_xor_si256(hi, _mm256_srli_si256::<8>(mid));
                for _ in 0..2 {
                    let t = clmul256::<0x00>(lo, poly);
                    lo = _mm256_xor_si256(_mm256_shuffle_epi32::<0x4e>(lo), t);
                }
                self.s[p] = _mm256_xor_si256(hi, lo);
            }
        }
    }

    #[inline(always)]
    unsafe fn sums(&self) -> [__m128i; L] {
        // SAFETY: the caller enables AVX2.
        unsafe { unpack(&self.s) }
    }
}

impl<const L: usize> Drop for PairHash<L> {
    fn drop(&mut self) {
        self.keys.zeroize();
    }
}

/// [`LaneHash`] for a batch group's `L` lanes (8 or 16) four lanes per
/// instruction, where the CPU has AVX-512: register `i` carries lanes `i`,
/// `i + L / 4`, `i + L / 2` and `i + 3 L / 4`. On Zen 4 a 512-bit
/// `vpclmulqdq` issues as often as a 256-bit one, so each Horner step costs
/// half the multiplier time of [`PairHash`]. The keys stay in this struct
/// (wiped on drop); the multiplications take them as values, with 32
/// vector registers to hold them (the residue test checks that no copy
/// reaches the stack).
pub(super) struct QuadHash<const L: usize> {
    /// `keys[i]`: the H of quad `i`; `keys[QUADS + i]`: its halves folded.
    keys: [__m512i; 2 * QUADS],
    s: [__m512i; QUADS],
}

/// Lane quads of a group of at most [`WIDE_GROUP`] lanes.
const QUADS: usize = WIDE_GROUP / 4;

/// Four blocks in one register, `x0` lowest.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
fn quad(x0: __m128i, x1: __m128i, x2: __m128i, x3: __m128i) -> __m512i {
    _mm512_inserti64x4::<1>(_mm512_castsi256_si512(_mm256_set_m128i(x1, x0)), _mm256_set_m128i(x3, x2))
}

impl<const L: usize> LaneHash<L> for QuadHash<L> {
    #[inline(always)]
    unsafe fn new(h: &[__m128i; L]) -> Self {
        debug_assert!(L.is_multiple_of(8) && L <= WIDE_GROUP);
        // SAFETY: the caller enables AVX-512 F.
        unsafe {
            let mut keys = [_mm512_setzero_si512(); 2 * QUADS];
            let n = L / 4;
            for i in 0..n {
                let k = quad(h[i], h[i + n], h[i + 2 * n], h[i + 3 * n]);
                keys[i] = k;
                keys[QUADS + i] = _mm512_xor_si512(k, _mm512_shuffle_epi32::<0x4e>(k));
            }
            Self { keys, s: [_mm512_setzero_si512(); QUADS] }
        }
    }

    #[inline(always)]
    unsafe fn absorb(&mut self, x: impl Fn(usize) -> __m128i) {
        // SAFETY: the caller enables AVX-512 F and VPCLMULQDQ.
        unsafe {
            let poly = _mm512_set1_epi64(0xc200_0000_0000_0000u64 as i64);
            let n = L / 4;
            for q in 0..n {
                let (key, folded) = (self.keys[q], self.keys[QUADS + q]);
                let a = _mm512_xor_si512(self.s[q], quad(x(q), x(q + n), x(q + 2 * n), x(q + 3 * n)));
                let lo = _mm512_clmulepi64_epi128::<0x00>(a, key);
                let hi = _mm512_clmulepi64_epi128::<0x11>(a, key);
                let f = _mm512_xor_si512(a, _mm512_shuffle_epi32::<0x4e>(a));
                let mid =
                    _mm512_xor_si512(_mm512_clmulepi64_epi128::<0x00>(f, folded), _mm512_xor_si512(lo, hi));
                // As `reduce` (clmul.rs), in each lane.
                let mut lo = _mm512_xor_si512(lo, _mm512_bslli_epi128::<8>(mid));
                let hi = _mm512_xor_si512(hi, _mm512_bsrli_epi128::<8>(mid));
                for _ in 0..2 {
                    let t = _mm512_clmulepi64_epi128::<0x00>(lo, poly);
                    lo = _mm512_xor_si512(_mm512_shuffle_epi32::<0x4e>(lo), t);
                }
                self.s[q] = _mm512_xor_si512(hi, lo);
            }
        }
    }

    #[inline(always)]
    unsafe fn sums(&self) -> [__m128i; L] {
        // SAFETY: the caller enables AVX-512 F.
        unsafe {
            let n = L / 4;
            array(|l| {
                let v = self.s[l % n];
                match l / n {
                    0 => _mm512_castsi512_si128(v),
                    1 => _mm512_extracti32x4_epi32::<1>(v),
                    2 => _mm512_extracti32x4_epi32::<2>(v),
                    _ => _mm512_extracti32x4_epi32::<3>(v),
                }
            })
        }
    }
}

impl<const L: usize> Drop for QuadHash<L> {
    fn drop(&mut self) {
        self.keys.zeroize();
    }
}

/// POLYVAL of a batch group's lanes with [`QuadHash`] (four lanes per
/// instruction; lanes of unequal lengths take `group.rs`'s one-lane loop as
/// with pairs). Its own function, compiled with AVX-512, called once per
/// group: compiled with AVX-512 as a whole, the group kernels ran 10-20%
/// slower.
///
/// # Safety
/// The CPU must support the enabled features (`Features::zmm`).
#[inline(never)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn group_hash_zmm<const L: usize>(
    h: &[__m128i; L],
    aads: &[&[u8]; L],
    msgs: &[&mut [u8]; L],
) -> [__m128i; L] {
    // SAFETY: the caller's CPU has every feature enabled here.
    unsafe { super::group::GroupHash::<L, QuadHash<L>>::new(h, aads, msgs).finish() }
}

/// Lane pairs of a group of at most [`WIDE_GROUP`] lanes.
const PAIRS: usize = WIDE_GROUP / 2;

/// A batch group's round keys with its `L` lanes in pairs: entry `[i][r]`
/// holds round key `r` of lanes `i` and `i + L / 2` (the pairs of
/// [`pack`], as in [`PairHash`]), so the group's tags and CTR run two
/// lanes per `vaesenc` with the keys as memory operands. Rows past `L / 2`
/// and entries past NR unused and left unwritten, as in `group.rs`.
pub(super) type PairSchedules = [[MaybeUninit<__m256i>; 15]; PAIRS];

/// One AES instruction (`vpxor` for round 0, `vaesenc`, `vaesenclast`) on
/// four registers of lane pairs, register `i` under pair `i`'s round key at
/// `480 i` bytes past `$key` (each pair's row is 15 keys of 32 bytes).
macro_rules! pairs4 {
    ($ins:literal, $b:expr, $key:expr) => {{
        let b: &mut [__m256i; 4] = $b;
        let key: &MaybeUninit<__m256i> = $key;
        // SAFETY: reads 32 bytes at 0, 480, 960 and 1440 bytes from `key`,
        // inside the four rows of the `PairSchedules` it points into (every
        // caller passes an entry of row 0), written by key expansion before
        // any round runs; registers otherwise; every caller enables VAES.
        unsafe {
            core::arch::asm!(
                concat!($ins, " {b0}, {b0}, ymmword ptr [{k}]"),
                concat!($ins, " {b1}, {b1}, ymmword ptr [{k} + 480]"),
                concat!($ins, " {b2}, {b2}, ymmword ptr [{k} + 960]"),
                concat!($ins, " {b3}, {b3}, ymmword ptr [{k} + 1440]"),
                k = in(reg) key.as_ptr(),
                b0 = inout(ymm_reg) b[0],
                b1 = inout(ymm_reg) b[1],
                b2 = inout(ymm_reg) b[2],
                b3 = inout(ymm_reg) b[3],
                options(readonly, nostack, preserves_flags),
            )
        }
    }};
}

/// `vaesenclast` of two registers.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn aesenclast256(a: __m256i, key: __m256i) -> __m256i {
    _mm256_aesenclast_epi128(a, key)
}

/// `group.rs`'s transpose in both 128-bit lanes at once.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn transpose2(x: [__m256i; 4]) -> [__m256i; 4] {
    let t0 = _mm256_unpacklo_epi32(x[0], x[1]);
    let t1 = _mm256_unpacklo_epi32(x[2], x[3]);
    let t2 = _mm256_unpackhi_epi32(x[0], x[1]);
    let t3 = _mm256_unpackhi_epi32(x[2], x[3]);
    [
        _mm256_unpacklo_epi64(t0, t1),
        _mm256_unpackhi_epi64(t0, t1),
        _mm256_unpacklo_epi64(t2, t3),
        _mm256_unpackhi_epi64(t2, t3),
    ]
}

/// Lanes `i` and `i + L / 2` of `x` as register `i` (registers past `L / 2`
/// zero).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn pack<const L: usize>(x: &[__m128i; L]) -> [__m256i; PAIRS] {
    array(|i| {
        if i < L / 2 {
            _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(x[i]), x[i + L / 2])
        } else {
            _mm256_setzero_si256()
        }
    })
}

/// The inverse of [`pack`].
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn unpack<const L: usize>(y: &[__m256i; PAIRS]) -> [__m128i; L] {
    let lane = |l: usize| {
        if l < L / 2 { _mm256_castsi256_si128(y[l]) } else { _mm256_extracti128_si256::<1>(y[l - L / 2]) }
    };
    array(lane)
}

/// AES of the `L / 2` registers of lane pairs under `rk`, four at a time
/// side by side in each round.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
#[allow(clippy::needless_range_loop, reason = "round r of several rows")]
fn encrypt_pairs<const NR: usize, const L: usize>(y: &mut [__m256i; PAIRS], rk: &PairSchedules) {
    for r in 0..=NR {
        for q in 0..L / 8 {
            let b: &mut [__m256i; 4] = (&mut y[4 * q..4 * q + 4]).try_into().expect("four registers");
            let key = &rk[4 * q][r];
            if r == 0 {
                pairs4!("vpxor", b, key);
            } else if r < NR {
                pairs4!("vaesenc", b, key);
            } else {
                pairs4!("vaesenclast", b, key);
            }
        }
    }
}

// SAFETY: an array of `MaybeUninit`.
unsafe impl<const NR: usize, const L: usize> LaneKeys<NR, L> for PairSchedules {
    type Hash = PairHash<L>;
    const QUADS: bool = true;

    /// `group.rs`'s transposed expansion with two quads in one register:
    /// word `j` of four lanes in the low half and of their pair partners in
    /// the high half, so one `vaesenclast` does SubWord for eight lanes, and
    /// the transpose back yields the pairs as [`PairSchedules`] holds them.
    #[inline(always)]
    unsafe fn expand(&mut self, k: &[[__m128i; 2]; L]) {
        debug_assert!(L.is_multiple_of(8) && L <= WIDE_GROUP);
        // SAFETY: the caller's CPU supports AVX2 and VAES.
        unsafe { expand_pairs::<NR, L>(k, self) }
    }

    #[inline(always)]
    unsafe fn encrypt(&self, x: &mut [__m128i; L]) {
        // SAFETY (all three): as in `expand`.
        let mut y = unsafe { pack(x) };
        unsafe { encrypt_pairs::<NR, L>(&mut y, self) };
        *x = unsafe { unpack(&y) };
    }

    #[inline(always)]
    unsafe fn ctr(&self, ctr0: &[__m128i; L], data: &mut [&mut [u8]; L]) {
        // SAFETY: as in `expand`.
        unsafe { ctr_pairs::<NR, L>(self, ctr0, data) }
    }
}

/// [`LaneKeys::expand`] for [`PairSchedules`]: quad `q` holds lanes
/// `4q..4q+4` in the low halves and their pair partners in the high halves,
/// and its round keys are pair rows `4q..4q+4`.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn expand_pairs<const NR: usize, const L: usize>(k: &[[__m128i; 2]; L], rk: &mut PairSchedules) {
    const MAX_QUADS: usize = PAIRS / 4;
    let half = |h: usize| -> [__m128i; L] { array(|l| k[l][h]) };
    let quads = |y: [__m256i; PAIRS]| -> [[__m256i; 4]; MAX_QUADS] { array(|q| array(|j| y[4 * q + j])) };
    let (k0, k1) = (quads(pack(&half(0))), quads(pack(&half(1))));
    let put = |q: usize, r: usize, keys: [__m256i; 4]| {
        for (row, key) in rk[4 * q..4 * q + 4].iter_mut().zip(keys) {
            row[r].write(key);
        }
    };
    // SAFETY: this function enables AVX2 and VAES.
    unsafe { expand_transposed::<__m256i, NR, MAX_QUADS>(L / 8, &k0, &k1, put) }
}

impl Words for __m256i {
    #[inline(always)]
    fn zero() -> Self {
        // SAFETY: only called where AVX is enabled (see `Words`).
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: the caller enables AVX2.
        unsafe { _mm256_xor_si256(self, other) }
    }
    #[inline(always)]
    unsafe fn sub_word(self, rotate: bool, rcon: i32) -> Self {
        // SAFETY: 16 readable bytes; the caller enables AVX2 and VAES.
        unsafe {
            let mask = _mm256_broadcastsi128_si256(_mm_loadu_si128(sub_word_mask(rotate).as_ptr().cast()));
            aesenclast256(_mm256_shuffle_epi8(self, mask), _mm256_set1_epi32(rcon))
        }
    }
    #[inline(always)]
    unsafe fn transpose(x: [Self; 4]) -> [Self; 4] {
        // SAFETY: the caller enables AVX2.
        unsafe { transpose2(x) }
    }
}

/// [`LaneKeys::ctr`] for [`PairSchedules`]: block `j` of every lane at once,
/// two lanes per register.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
fn ctr_pairs<const NR: usize, const L: usize>(
    rk: &PairSchedules,
    ctr0: &[__m128i; L],
    data: &mut [&mut [u8]; L],
) {
    let blocks = data.iter().map(|d| d.len().div_ceil(16)).max().unwrap_or(0);
    let base = pack(ctr0);
    for j in 0..blocks {
        let n = j as i32;
        let step = _mm256_setr_epi32(n, 0, 0, 0, n, 0, 0, 0);
        let mut ks: [__m256i; PAIRS] = array(|q| _mm256_add_epi32(base[q], step));
        encrypt_pairs::<NR, L>(&mut ks, rk);
        let ks: [__m128i; L] = unpack(&ks);
        for (d, k) in data.iter_mut().zip(&ks) {
            xor_block(d, j, *k);
        }
    }
}

impl<const NR: usize> Schedule<NR> {
    /// Record-key derivation (RFC 8452 section 4) for four nonces under this
    /// (key-generating) schedule, two blocks per instruction: each nonce's
    /// `NB` derivation blocks as `NB / 2` registers of adjacent counters, so
    /// that a register's two outputs are the two halves of one derived key
    /// (their low 64 bits, joined by one lane permute). Writes each nonce's H
    /// and encryption key (one or two blocks) to `h` and `k`.
    ///
    /// # Safety
    /// The CPU must support the enabled features; `nonces`, `h` and `k` hold
    /// four entries each.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
    pub(super) unsafe fn derive_quad_wide<const NB: usize>(
        &self,
        nonces: &[&[u8; 12]],
        h: &mut [__m128i],
        k: &mut [[__m128i; 2]],
    ) {
        debug_assert!((NB == 4 || NB == 6) && nonces.len() == 4 && h.len() == 4 && k.len() == 4);
        let per = NB / 2;
        // Registers 4 g .. 4 g + 4 form group g: two (AES-128) or three
        // (AES-256) groups of four, all in flight.
        let mut y = [_mm256_setzero_si256(); 12];
        for (m, nonce) in nonces.iter().enumerate() {
            let base = _mm256_broadcastsi128_si256(super::aesni::derivation_blocks::<1>(nonce)[0]);
            for q in 0..per {
                let i = 2 * q as i32;
                y[per * m + q] = _mm256_add_epi32(base, _mm256_setr_epi32(i, 0, 0, 0, i + 1, 0, 0, 0));
            }
        }
        let groups = 4 * per / 4;
        for g in 0..groups {
            let b: &mut [__m256i; 4] = (&mut y[4 * g..4 * g + 4]).try_into().expect("four registers");
            round4x2!("vpxor", b, &self.rk[0]);
        }
        for r in 1..NR {
            for g in 0..groups {
                let b: &mut [__m256i; 4] = (&mut y[4 * g..4 * g + 4]).try_into().expect("four registers");
                round4x2!("vaesenc", b, &self.rk[r]);
            }
        }
        for g in 0..groups {
            let b: &mut [__m256i; 4] = (&mut y[4 * g..4 * g + 4]).try_into().expect("four registers");
            round4x2!("vaesenclast", b, &self.rk[NR]);
        }
        // The low 64 bits of each lane, side by side: one derived key.
        let halves = |v: __m256i| _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0b00_00_10_00>(v));
        for m in 0..4 {
            h[m] = halves(y[per * m]);
            k[m] =
                [halves(y[per * m + 1]), if NB == 6 { halves(y[per * m + 2]) } else { _mm_setzero_si128() }];
        }
    }

    /// `group.rs`'s `seal_group` with the lanes in pairs.
    ///
    /// # Safety
    /// As `seal_group`; the CPU supports the enabled features; `L` is 8.
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
    pub(super) unsafe fn seal_group_wide<const NB: usize, const L: usize>(
        &self,
        nonces: [&[u8; 12]; L],
        aads: [&[u8]; L],
        data: [&mut [u8]; L],
        keys: &mut LaneKeyMemory,
    ) -> [Block; L] {
        // SAFETY: as the caller's.
        unsafe { self.seal_with::<NB, L, PairSchedules>(nonces, aads, data, keys) }
    }

    /// `group.rs`'s `open_group` with the lanes in pairs.
    ///
    /// # Safety
    /// As [`Self::seal_group_wide`].
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
    pub(super) unsafe fn open_group_wide<const NB: usize, const L: usize>(
        &self,
        nonces: [&[u8; 12]; L],
        aads: [&[u8]; L],
        data: [&mut [u8]; L],
        tags: &[Block; L],
        keys: &mut LaneKeyMemory,
    ) -> [Block; L] {
        // SAFETY: as the caller's.
        unsafe { self.open_with::<NB, L, PairSchedules>(nonces, aads, data, tags, keys) }
    }

    /// One block of a stitched pass on its own: CTR under `counter` and the
    /// hash step of the block the mode hashes (Horner's rule, H from the
    /// table).
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1")]
    unsafe fn stitched_block(
        &self,
        counter: &Block,
        block: &mut [u8],
        state: &mut __m128i,
        powers: &Powers,
        mode: Stitch,
    ) {
        debug_assert_eq!(block.len(), 16);
        let p = block.as_mut_ptr().cast::<__m128i>();
        // SAFETY (the loads and the store): 16 bytes each; AES-NI enabled.
        unsafe {
            let input = _mm_loadu_si128(p);
            let mut keystream = [_mm_loadu_si128(counter.as_ptr().cast())];
            super::short::encrypt::<NR, 1>(&mut keystream, &self.rk);
            let output = _mm_xor_si128(input, keystream[0]);
            _mm_storeu_si128(p, output);
            let hashed = if mode.hashes_output() { output } else { input };
            let hashed = if mode.reversed() { _mm_shuffle_epi8(hashed, byte_reverse_mask()) } else { hashed };
            *state = super::clmul::dot(_mm_xor_si128(*state, hashed), powers.h[super::clmul::WIDTH - 1]);
        }
    }

    /// [`Schedule::ctr_stitched`] two blocks per instruction: CTR of each
    /// chunk in four 256-bit registers with, between its first rounds, the
    /// four pair products of the hash (the output of two chunks before when
    /// hashing output, this chunk's input otherwise). Where the CPU has
    /// AVX-512 and the data is at least [`ZMM_FROM`] bytes, the 256-byte
    /// chunks go first through [`Self::ctr_stitched_zmm`] (the hash four
    /// blocks per instruction: opens of 8-16 KiB 7-10% fewer cycles for
    /// AES-128, 3-6% for AES-256; GCM 4-16%). Returns the bytes processed
    /// (whole chunks, and the first block if it went on its own: from
    /// [`ALIGN_FROM`] bytes, when `data` starts 16 bytes past a 32-byte
    /// boundary, as large heap buffers do, so that the chunks' 256- and
    /// 512-bit loads and stores fall on 32-byte boundaries); the caller does
    /// the tail. `PUBLIC`: the counter's value is public, as in
    /// [`Self::ctr32`].
    ///
    /// With `lengths` (the message's length block), the pass finishes the
    /// message: it takes the tail too, hashes the length block last, and
    /// returns `data.len()`. Where the 512-bit pass ran, a tail of more than
    /// [`FINAL_CHUNK_FROM`] bytes goes through one more 256-byte chunk under
    /// a mask ([`Self::final_ctr_zmm`], [`Sixteen::absorb_final`]) rather
    /// than a 128-byte chunk of the 256-bit pass and then `short.rs`'s
    /// `stitched_tail`: one chain of AES rounds and one reduction where
    /// there were two of each.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
    pub(super) unsafe fn ctr_stitched_wide<const BE: bool, const PUBLIC: bool>(
        &self,
        counter: &Block,
        data: &mut [u8],
        state: &mut __m128i,
        powers: &Powers,
        mode: Stitch,
        keys: Option<&Keys512<NR>>,
        lengths: Option<__m128i>,
    ) -> usize {
        if data.len() >= ALIGN_FROM && data.as_ptr() as usize % 32 == 16 {
            let (first, rest) = data.split_at_mut(16);
            // SAFETY (both): same features (AES-NI and PCLMULQDQ among them).
            // `rest` starts on a 32-byte boundary: nothing goes apart again.
            unsafe { self.stitched_block(counter, first, state, powers, mode) };
            let next = counter_after::<BE>(counter, 16);
            return 16
                + unsafe {
                    self.ctr_stitched_wide::<BE, PUBLIC>(&next, rest, state, powers, mode, keys, lengths)
                };
        }
        let mut done = 0;
        let mut next = *counter;
        if self.features.zmm() && data.len() >= ZMM_FROM {
            // SAFETY: `zmm` proves AVX-512 F, BW and VL besides.
            let finished;
            (done, finished) = unsafe {
                self.ctr_stitched_zmm::<BE, PUBLIC>(counter, data, state, powers, mode, keys, lengths)
            };
            if finished {
                return done;
            }
            next = counter_after::<BE>(counter, done);
        }
        // SAFETY: same features.
        done += unsafe { self.ctr_stitched_ymm::<BE, PUBLIC>(&next, &mut data[done..], state, powers, mode) };
        if let Some(len) = lengths {
            let c = counter_after::<BE>(counter, done);
            // SAFETY: same features; 16 readable bytes in the counter.
            *state = unsafe {
                let c = _mm_loadu_si128(c.as_ptr().cast());
                super::short::stitched_tail::<NR>(&self.rk, c, &mut data[done..], *state, powers, len, mode)
            };
            done = data.len();
        }
        done
    }

    /// [`Self::ctr_stitched_wide`] on 256-bit registers.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
    unsafe fn ctr_stitched_ymm<const BE: bool, const PUBLIC: bool>(
        &self,
        counter: &Block,
        data: &mut [u8],
        state: &mut __m128i,
        powers: &Powers,
        mode: Stitch,
    ) -> usize {
        let chunks = data.len() / (16 * CHUNK_BLOCKS);
        if chunks == 0 {
            return 0;
        }
        let hash_output = mode.hashes_output();
        let reversed = mode.reversed();
        let base = counter_pair::<BE>(counter);
        let p = data.as_mut_ptr();
        let mut s = *state;
        let table = pairs(powers);
        // A pass that hashes its output hashes two chunks behind CTR (the
        // first two have nothing to hash beside them): the hash then reads
        // output stored an iteration earlier rather than the stores just
        // made. One chunk behind, an open's loop ran 3% (AES-128) and 6%
        // (AES-256) more cycles per byte; three or four behind gain nothing
        // more.
        let lag = if hash_output { chunks.min(2) } else { 0 };
        for c in 0..lag {
            // SAFETY: c < chunks: the chunk lies inside `data`.
            unsafe {
                let chunk = p.add(16 * CHUNK_BLOCKS * c);
                self.stitched_chunk_wide::<BE, PUBLIC, false>(base, c, chunk, chunk, s, table, reversed);
            }
        }
        for c in lag..chunks {
            // SAFETY: c < chunks, so the chunk lies inside `data`; so does
            // the one `lag` before it.
            unsafe {
                let chunk = p.add(16 * CHUNK_BLOCKS * c);
                let src = if hash_output { chunk.sub(16 * CHUNK_BLOCKS * lag) } else { chunk };
                s = self.stitched_chunk_wide::<BE, PUBLIC, true>(base, c, chunk, src, s, table, reversed);
            }
        }
        if hash_output {
            // The last `lag` chunks' output, not yet hashed.
            let last = &data[16 * CHUNK_BLOCKS * (chunks - lag)..16 * CHUNK_BLOCKS * chunks];
            // SAFETY: same features.
            s = unsafe {
                if reversed {
                    polyval_chunks_with::<true>(s, table, last).0
                } else {
                    polyval_chunks_with::<false>(s, table, last).0
                }
            };
        }
        *state = s;
        chunks * 16 * CHUNK_BLOCKS
    }

    /// [`Self::ctr_stitched_wide`] over whole 256-byte chunks with 512-bit
    /// registers, for CPUs with AVX-512: CTR of sixteen blocks in four
    /// registers ([`round4x4!`]) and POLYVAL's sixteen-block step as in
    /// [`polyval_chunks_zmm`] (four blocks per `vpclmulqdq`, which on Zen 4
    /// issues as often as a 256-bit one), the four products between the
    /// first rounds. A pass that hashes its output hashes one chunk (256
    /// bytes) behind CTR. Returns the bytes processed, and whether the pass
    /// finished the message (with `lengths`, when its tail was long enough
    /// for [`Self::final_ctr_zmm`]: the length block absorbed too);
    /// otherwise the caller goes on from counter + bytes / 16.
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    unsafe fn ctr_stitched_zmm<const BE: bool, const PUBLIC: bool>(
        &self,
        counter: &Block,
        data: &mut [u8],
        state: &mut __m128i,
        powers: &Powers,
        mode: Stitch,
        keys: Option<&Keys512<NR>>,
        lengths: Option<__m128i>,
    ) -> (usize, bool) {
        let chunks = data.len() / 256;
        if chunks == 0 {
            return (0, false);
        }
        let mut built;
        let keys = match keys {
            Some(keys) => Some(keys),
            None if data.len() >= KEYS512_FROM => {
                // SAFETY: filled on the next line.
                built = unsafe { Keys512::<NR>::empty() };
                built.fill(&self.rk);
                Some(&built)
            }
            None => None,
        };
        // SAFETY (both): as this function's contract.
        unsafe {
            match keys {
                Some(keys) => self
                    .stitched_zmm_chunks::<BE, PUBLIC, _>(keys, counter, data, state, powers, mode, lengths),
                None => self
                    .stitched_zmm_chunks::<BE, PUBLIC, _>(self, counter, data, state, powers, mode, lengths),
            }
        }
    }

    /// [`Self::ctr_stitched_zmm`]'s loop over the whole chunks, the round
    /// keys read from `keys`; with `lengths`, the message's tail and its
    /// length block as well when the tail is long enough (see
    /// [`Self::ctr_stitched_zmm`]).
    ///
    /// # Safety
    /// The CPU must support the enabled features.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    unsafe fn stitched_zmm_chunks<const BE: bool, const PUBLIC: bool, K: ZmmKeys>(
        &self,
        keys: &K,
        counter: &Block,
        data: &mut [u8],
        state: &mut __m128i,
        powers: &Powers,
        mode: Stitch,
        lengths: Option<__m128i>,
    ) -> (usize, bool) {
        let chunks = data.len() / 256;
        let hash_output = mode.hashes_output();
        let reversed = mode.reversed();
        let mut counters = ChunkCounters::<BE, PUBLIC>::new(counter_quad::<BE>(counter));
        let sixteen = Sixteen::new(powers);
        let p = data.as_mut_ptr();
        let mut s = *state;
        let lag = usize::from(hash_output);
        for c in 0..chunks {
            let b = counters.next();
            // SAFETY: c < chunks: the chunk lies inside `data`, and so does
            // the one `lag` before it when c >= lag.
            unsafe {
                let chunk = p.add(256 * c);
                s = if c < lag {
                    self.stitched_chunk_zmm::<false, K>(keys, b, chunk, chunk, s, &sixteen, reversed)
                } else {
                    let src = chunk.sub(256 * lag);
                    self.stitched_chunk_zmm::<true, K>(keys, b, chunk, src, s, &sixteen, reversed)
                };
            }
        }
        // A tail past FINAL_CHUNK_FROM, when finishing: its CTR first,
        // which does not wait for the hash below.
        let rest = data.len() - 256 * chunks;
        let last = match lengths {
            // SAFETY: the `rest` bytes after the whole chunks lie inside `data`.
            Some(_) if rest > FINAL_CHUNK_FROM => {
                Some(unsafe { self.final_ctr_zmm(keys, counters.next(), p.add(256 * chunks), rest, mode) })
            }
            _ => None,
        };
        if hash_output && chunks > 0 {
            // SAFETY: the last chunk, not yet hashed, lies inside `data`.
            s = unsafe {
                let last = p.add(256 * (chunks - 1));
                if reversed { sixteen.absorb::<true>(s, last) } else { sixteen.absorb::<false>(s, last) }
            };
        }
        let (Some(len), Some(x)) = (lengths, last) else {
            *state = s;
            return (chunks * 256, false);
        };
        *state = sixteen.absorb_final(s, x, rest.div_ceil(16), len);
        (data.len(), true)
    }

    /// CTR of the last `n` bytes of a message (177 to 255) at `p`, in place,
    /// as one 256-byte chunk under a mask (counter blocks `b`): the bytes
    /// past `n` are neither read nor written. Returns the blocks the pass
    /// hashes (output or input, by `mode`; byte-reversed for GCM), zero past
    /// `n` as POLYVAL pads them, for [`Sixteen::absorb_final`].
    ///
    /// # Safety
    /// `p` must point to `n` bytes that may be read and written; the CPU
    /// must support the enabled features.
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    unsafe fn final_ctr_zmm<K: ZmmKeys>(
        &self,
        keys: &K,
        mut b: [__m512i; 4],
        p: *mut u8,
        n: usize,
        mode: Stitch,
    ) -> [__m512i; 4] {
        debug_assert!((FINAL_CHUNK_FROM + 1..256).contains(&n));
        // Register q's bytes inside the message.
        let mask = |q: usize| -> __mmask64 {
            match n.saturating_sub(64 * q) {
                0 => 0,
                have if have >= 64 => !0,
                have => (1 << have) - 1,
            }
        };
        // A masked load or store touches only the bytes its mask selects (the
        // others may lie past the end of the buffer: the address is formed
        // with `wrapping_add` and never used for them).
        // SAFETY: the selected bytes lie inside the `n` bytes at `p`.
        let input: [__m512i; 4] =
            array(|q| unsafe { _mm512_maskz_loadu_epi8(mask(q), p.wrapping_add(64 * q).cast()) });
        // SAFETY (the three): this function enables AVX-512 F and VAES.
        unsafe { keys.first(&mut b) };
        for r in 1..NR {
            unsafe { keys.middle(&mut b, r) };
        }
        unsafe { keys.last(&mut b) };
        let reverse4 = _mm512_broadcast_i32x4(byte_reverse_mask());
        array(|q| {
            // The key stream past `n` never leaves the register: zeroed here.
            let out = _mm512_maskz_mov_epi8(mask(q), _mm512_xor_si512(b[q], input[q]));
            // SAFETY: as the loads. (A masked store costs more than a plain
            // one: registers wholly inside the tail take a plain one.)
            unsafe {
                match mask(q) {
                    0 => {}
                    m if m == !0 => _mm512_storeu_si512(p.add(64 * q).cast(), out),
                    m => _mm512_mask_storeu_epi8(p.wrapping_add(64 * q).cast(), m, out),
                }
            }
            let x = if mode.hashes_output() { out } else { input[q] };
            if mode.reversed() { _mm512_shuffle_epi8(x, reverse4) } else { x }
        })
    }

    /// CTR of the 256-byte chunk at `chunk` (in place; counter blocks `b`,
    /// from [`ChunkCounters`]) with, if `HASH`,
    /// the chunk at `src` absorbed into `s`, one quad product after each of
    /// the first four rounds. Returns the new `s`.
    ///
    /// S goes in with the chunk's first block, as in the 256-bit pass, not
    /// as a product of its own as in [`polyval_chunks_zmm`]: a chunk here is
    /// long enough (the AES rounds) to hide the longer chain from one S to
    /// the next, and the three products saved are 7% of the chunk's
    /// multiplier work (GCM seals of 16 KiB 4-5% fewer cycles, GCM-SIV
    /// opens 2-3%).
    ///
    /// # Safety
    /// `chunk` and `src` must each point to a whole chunk inside the data;
    /// the CPU must support the enabled features.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    unsafe fn stitched_chunk_zmm<const HASH: bool, K: ZmmKeys>(
        &self,
        keys: &K,
        mut b: [__m512i; 4],
        chunk: *mut u8,
        src: *const u8,
        s: __m128i,
        sixteen: &Sixteen,
        reversed: bool,
    ) -> __m128i {
        let reverse4 = _mm512_broadcast_i32x4(byte_reverse_mask());
        // SAFETY (the three): this function enables AVX-512 F and VAES.
        unsafe { keys.first(&mut b) };
        let mut sums = (_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512());
        for r in 1..NR {
            unsafe { keys.middle(&mut b, r) };
            if HASH && r <= 4 {
                // Quads 1, 2, 3, then 0, which carries S: three rounds more
                // for the previous chunk's reduction to finish.
                let q = r % 4;
                // SAFETY: quad q of the chunk at `src` (caller's contract).
                let x = unsafe { _mm512_loadu_si512(src.add(64 * q).cast()) };
                let x = if reversed { _mm512_shuffle_epi8(x, reverse4) } else { x };
                let x = if q == 0 { _mm512_xor_si512(x, _mm512_zextsi128_si512(s)) } else { x };
                sixteen.product(x, q, &mut sums);
            }
        }
        unsafe { keys.last(&mut b) };
        // `b` ends up holding this pass's output, already in the data: no
        // keystream is left behind.
        for (k, x) in b.iter_mut().enumerate() {
            // SAFETY: register k of this chunk (caller's contract).
            unsafe {
                let q = chunk.add(64 * k);
                *x = _mm512_xor_si512(*x, _mm512_loadu_si512(q.cast()));
                _mm512_storeu_si512(q.cast(), *x);
            }
        }
        if HASH { sixteen.reduce(sums) } else { s }
    }

    /// CTR of chunk `c` at `chunk` (in place) with, if `HASH`, the chunk at
    /// `src` absorbed into `s`, one pair product after each of the first four
    /// rounds. Returns the new `s`.
    ///
    /// # Safety
    /// `chunk` and `src` must each point to a whole chunk inside the data;
    /// the CPU must support the enabled features.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    #[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
    unsafe fn stitched_chunk_wide<const BE: bool, const PUBLIC: bool, const HASH: bool>(
        &self,
        base: __m256i,
        c: usize,
        chunk: *mut u8,
        src: *const u8,
        s: __m128i,
        table: &Pairs,
        reversed: bool,
    ) -> __m128i {
        let reverse2 = _mm256_broadcastsi128_si256(byte_reverse_mask());
        let mut b = chunk_counters::<BE, PUBLIC>(base, c, reverse2);
        round4x2!("vpxor", &mut b, &self.rk[0]);
        let (mut lo, mut hi, mut mid) =
            (_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256());
        for r in 1..NR {
            round4x2!("vaesenc", &mut b, &self.rk[r]);
            if HASH && r <= CHUNK_BLOCKS / 2 {
                let j = r - 1;
                // SAFETY: pair j of the chunk at `src` (caller's contract).
                let x = unsafe { _mm256_loadu_si256(src.add(32 * j).cast()) };
                let x = if reversed { _mm256_shuffle_epi8(x, reverse2) } else { x };
                pair_product_table(x, j, s, table, &mut lo, &mut hi, &mut mid);
            }
        }
        round4x2!("vaesenclast", &mut b, &self.rk[NR]);
        // `b` ends up holding this pass's output, already in the data: no
        // keystream is left behind.
        for (k, x) in b.iter_mut().enumerate() {
            // SAFETY: register k of this chunk (caller's contract).
            unsafe {
                let q = chunk.add(32 * k).cast::<__m256i>();
                *x = _mm256_xor_si256(*x, _mm256_loadu_si256(q));
                _mm256_storeu_si256(q, *x);
            }
        }
        if HASH { finish(lo, hi, mid) } else { s }
    }
}

#[cfg(test)]
mod tests {
    use super::super::aesni::Schedule;
    use super::super::clmul::{Powers, absorb_padded};
    use super::super::{Aes128, Aes256, Features};
    use super::polyval_chunks_wide;
    use crate::backend::Aes;
    use core::arch::x86_64::*;

    /// POLYVAL two blocks per instruction (and, where the CPU has AVX-512,
    /// four, from [`super::ZMM_FROM`] bytes) equals POLYVAL one block per
    /// instruction, with and without a length block, from a nonzero state.
    #[test]
    fn wide_polyval_equals_narrow_polyval() {
        let Some(detected) = Features::detect_widest() else {
            return; // this CPU has no VPCLMULQDQ: nothing to compare
        };
        let data: std::vec::Vec<u8> = (0..9000u32).map(|i| (i * 11 + 5) as u8).collect();
        for seed in 1..4u8 {
            let h: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(seed).wrapping_add(seed * 29));
            // SAFETY: `detect_wide` found every feature these functions enable.
            let outs = unsafe {
                let powers = Powers::new(_mm_loadu_si128(h.as_ptr().cast()));
                let start = _mm_set_epi64x(seed as i64 * 77, 12345);
                let lengths = _mm_set_epi64x(8 * 1100, 8 * seed as i64);
                let mut outs = std::vec::Vec::new();
                let lens = [
                    0, 15, 16, 127, 128, 129, 255, 256, 257, 1023, 1024, 1100, 1280, 4095, 4096, 4097, 4224,
                    4352, 8321, 9000,
                ];
                for len in lens {
                    for last in [None, Some(lengths)] {
                        let a = absorb_padded(start, &powers, &data[..len], last);
                        for features in [Features { zmm: false, ..detected }, detected] {
                            let (t, done) =
                                polyval_chunks_wide::<false>(features, start, &powers, &data[..len]);
                            let b = absorb_padded(t, &powers, &data[done..len], last);
                            let (mut x, mut y) = ([0u8; 16], [0u8; 16]);
                            _mm_storeu_si128(x.as_mut_ptr().cast(), a);
                            _mm_storeu_si128(y.as_mut_ptr().cast(), b);
                            outs.push((len, last.is_some(), x, y));
                        }
                    }
                }
                // GHASH's byte order: four blocks per instruction against two.
                if detected.zmm() {
                    for len in [256, 512, 4096, 4224, 8960] {
                        let a =
                            super::polyval_chunks_with::<true>(start, super::pairs(&powers), &data[..len]);
                        let (t, done) = super::polyval_chunks_zmm::<true>(start, &powers, &data[..len]);
                        let b =
                            super::polyval_chunks_with::<true>(t, super::pairs(&powers), &data[done..len]);
                        assert_eq!(a.1, len);
                        assert_eq!(done + b.1, len);
                        let (mut x, mut y) = ([0u8; 16], [0u8; 16]);
                        _mm_storeu_si128(x.as_mut_ptr().cast(), a.0);
                        _mm_storeu_si128(y.as_mut_ptr().cast(), b.0);
                        outs.push((len, true, x, y));
                    }
                }
                outs
            };
            for (len, last, x, y) in outs {
                assert_eq!(x, y, "POLYVAL, seed {seed}, len {len}, length block {last}");
            }
        }
    }

    /// The narrow pass with `n` and the wide one with `w` (the same key), on
    /// `data.0` and `data.1`, from the states `s.0` and `s.1`: the bytes each
    /// processed.
    #[allow(clippy::too_many_arguments)]
    unsafe fn both<const NR: usize>(
        n: &Schedule<NR>,
        w: &Schedule<NR>,
        counter: &[u8; 16],
        data: (&mut [u8], &mut [u8]),
        s: (&mut __m128i, &mut __m128i),
        powers: &Powers,
        mode: super::super::stitched::Stitch,
        public: bool,
    ) -> (usize, usize) {
        // SAFETY: the caller found every feature these enable.
        unsafe {
            if mode == super::super::stitched::Stitch::SivOpen {
                (
                    n.ctr_stitched::<false>(counter, data.0, s.0, powers, mode),
                    w.ctr_stitched_wide::<false, false>(counter, data.1, s.1, powers, mode, None, None),
                )
            } else if public {
                // As AES-GCM runs it: with the key's broadcast round keys
                // where the CPU has AVX-512.
                // SAFETY (`empty`): filled just below.
                let mut keys = w.features.zmm().then(|| super::Keys512::<NR>::empty());
                if let Some(keys) = &mut keys {
                    keys.fill(&w.rk);
                }
                (
                    n.ctr_stitched::<true>(counter, data.0, s.0, powers, mode),
                    w.ctr_stitched_wide::<true, true>(
                        counter,
                        data.1,
                        s.1,
                        powers,
                        mode,
                        keys.as_ref(),
                        None,
                    ),
                )
            } else {
                (
                    n.ctr_stitched::<true>(counter, data.0, s.0, powers, mode),
                    w.ctr_stitched_wide::<true, false>(counter, data.1, s.1, powers, mode, None, None),
                )
            }
        }
    }

    /// The stitched CTR+hash pass two blocks per instruction equals the one
    /// block per instruction pass, in every mode (GCM-SIV open, GCM seal and
    /// open), for both key sizes, counters that wrap, and several lengths
    /// (from 16 KiB, an open builds its broadcast round keys for the call;
    /// GCM with a public counter passes the key's own).
    #[test]
    fn wide_stitched_equals_narrow_stitched() {
        use super::super::stitched::Stitch;
        let (Some(narrow), Some(wide)) = (Features::detect(), Features::detect_widest()) else {
            return; // this CPU has no VAES: nothing to compare
        };
        let data: std::vec::Vec<u8> = (0..17000u32).map(|i| (i * 5 + 1) as u8).collect();
        // Both 32-bit counters near 2^32; then GCM's lowest counter byte where
        // its chunks' counters start just below, at and just past the values
        // whose chunk does not carry out of it (the 512-bit pass keeps the
        // next chunk's counters byte-reversed only while none does).
        let counters: [[u8; 16]; 6] = [
            [0xfd, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xfc],
            [2, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 2],
            [0xe0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0xff, 0xe0],
            [0xe1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0xff, 0xe1],
            [0xf0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0xff, 0xf0],
            [0xf1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0xff, 0xf1],
        ];
        // With AVX-512, both the 512-bit pass and the 256-bit one alone.
        let widths = [Features { zmm: false, ..wide }, wide];
        for (mode, wide, counter) in [Stitch::SivOpen, Stitch::GcmSeal, Stitch::GcmOpen]
            .into_iter()
            .flat_map(|m| widths.map(|w| (m, w)))
            .flat_map(|(m, w)| counters.iter().map(move |c| (m, w, c)))
        {
            // GCM's counter both as a public one (96-bit IV: the shortcut)
            // and as a secret one (no branch on its value).
            let publics: &[bool] = if mode == Stitch::SivOpen { &[false] } else { &[true, false] };
            for (key_len, &public) in
                [16usize, 32].into_iter().flat_map(|k| publics.iter().map(move |p| (k, p)))
            {
                let key: std::vec::Vec<u8> = (0..key_len as u8).map(|i| i ^ 0x33).collect();
                for len in [
                    0, 127, 128, 129, 256, 300, 1023, 1024, 1100, 1280, 1536, 4095, 4096, 4097, 4224, 4352,
                    4480, 5000, 8191, 9000, 16384, 17000,
                ] {
                    // 16 bytes past a 64-byte boundary below `ALIGN_FROM`, on
                    // one from it: there the wide pass takes a buffer 16
                    // bytes off apart and so processes other bytes than the
                    // narrow one (the offset tests in `tests/backends.rs` and
                    // `tests/gcm.rs` cover that path, whole messages against
                    // other backends).
                    let off = if len < super::ALIGN_FROM { 16 } else { 0 };
                    let (mut store_a, mut store_b) = (std::vec![0u8; len + 80], std::vec![0u8; len + 80]);
                    let oa = store_a.as_ptr().align_offset(64) + off;
                    let ob = store_b.as_ptr().align_offset(64) + off;
                    let (a, b) = (&mut store_a[oa..oa + len], &mut store_b[ob..ob + len]);
                    a.copy_from_slice(&data[..len]);
                    b.copy_from_slice(&data[..len]);
                    // SAFETY: `detect_wide` found every feature these enable.
                    let (sa, sb, da, db) = unsafe {
                        let powers =
                            Powers::new(_mm_set_epi64x(0x0123_4567_89ab_cdef, 0x7766_5544_3322_1100));
                        let (mut sa, mut sb) = (_mm_set_epi64x(5, 9), _mm_set_epi64x(5, 9));
                        let (da, db) = if key_len == 16 {
                            let k: &[u8; 16] = key[..].try_into().unwrap();
                            both(
                                &Aes128::new(narrow, k),
                                &Aes128::new(wide, k),
                                counter,
                                (&mut *a, &mut *b),
                                (&mut sa, &mut sb),
                                &powers,
                                mode,
                                public,
                            )
                        } else {
                            let k: &[u8; 32] = key[..].try_into().unwrap();
                            both(
                                &Aes256::new(narrow, k),
                                &Aes256::new(wide, k),
                                counter,
                                (&mut *a, &mut *b),
                                (&mut sa, &mut sb),
                                &powers,
                                mode,
                                public,
                            )
                        };
                        let (mut x, mut y) = ([0u8; 16], [0u8; 16]);
                        _mm_storeu_si128(x.as_mut_ptr().cast(), sa);
                        _mm_storeu_si128(y.as_mut_ptr().cast(), sb);
                        (x, y, da, db)
                    };
                    let what = std::format!("{mode:?}, key {key_len}, public {public}, len {len}, {wide:?}");
                    assert_eq!(da, db, "{what}: bytes processed");
                    assert_eq!(a, b, "{what}: output");
                    assert_eq!(sa, sb, "{what}: hash state");
                }
            }
        }
    }

    /// CTR two blocks per instruction equals CTR one block per instruction,
    /// for both counters (GCM-SIV's little-endian one and GCM's big-endian
    /// one), at lengths around the chunk size and with counters about to wrap.
    #[test]
    fn wide_ctr_equals_narrow_ctr() {
        let (Some(narrow), Some(wide)) = (Features::detect(), Features::detect_widest()) else {
            return; // this CPU has no VAES: nothing to compare
        };
        let counters: [[u8; 16]; 7] = [
            [0; 16],
            core::array::from_fn(|i| (i as u8).wrapping_mul(37) | 0x80),
            // Both 32-bit counters near 2^32: the first chunk wraps them.
            [0xfb, 0xff, 0xff, 0xff, 5, 6, 7, 8, 9, 10, 11, 12, 0xff, 0xff, 0xff, 0xfa],
            // GCM's lowest counter byte at the last value whose 512-bit
            // chunk (sixteen blocks), then 256-bit chunk (eight), does not
            // carry out of it, and one past: the one-shuffle case's edges.
            [0xf0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10, 0xff, 0xf0],
            [0xf1, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10, 0xff, 0xf1],
            [0xf8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10, 0xfe, 0xf8],
            [0xf9, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0x10, 0xfe, 0xf9],
        ];
        let data: std::vec::Vec<u8> = (0..1100u32).map(|i| (i * 7 + 3) as u8).collect();
        // With AVX-512, both the 512-bit pass and the 256-bit one alone.
        for (key_len, wide) in
            [16usize, 32].into_iter().flat_map(|k| [(k, Features { zmm: false, ..wide }), (k, wide)])
        {
            let key: std::vec::Vec<u8> = (0..key_len as u8).collect();
            for counter in &counters {
                for len in [0, 1, 15, 16, 127, 128, 129, 255, 256, 257, 383, 384, 511, 512, 640, 1024, 1100] {
                    let mut a = data[..len].to_vec();
                    let mut b = data[..len].to_vec();
                    let mut c = data[..len].to_vec();
                    let mut d = data[..len].to_vec();
                    let mut e = data[..len].to_vec();
                    if key_len == 16 {
                        let (n, w) = (
                            Aes128::new(narrow, key[..].try_into().unwrap()),
                            Aes128::new(wide, key[..].try_into().unwrap()),
                        );
                        n.ctr32le(counter, &mut a);
                        w.ctr32le(counter, &mut b);
                        n.ctr32be(counter, &mut c);
                        w.ctr32be(counter, &mut d);
                        // SAFETY: `detect_wide` found every feature it enables.
                        unsafe { w.ctr32::<true, true>(counter, &mut e) };
                    } else {
                        let (n, w) = (
                            Aes256::new(narrow, key[..].try_into().unwrap()),
                            Aes256::new(wide, key[..].try_into().unwrap()),
                        );
                        n.ctr32le(counter, &mut a);
                        w.ctr32le(counter, &mut b);
                        n.ctr32be(counter, &mut c);
                        w.ctr32be(counter, &mut d);
                        // SAFETY: `detect_wide` found every feature it enables.
                        unsafe { w.ctr32::<true, true>(counter, &mut e) };
                    }
                    assert_eq!(
                        a, b,
                        "little-endian counter, key {key_len}, len {len}, counter {counter:02x?}, {wide:?}"
                    );
                    assert_eq!(
                        c, d,
                        "big-endian counter, key {key_len}, len {len}, counter {counter:02x?}, {wide:?}"
                    );
                    assert_eq!(
                        c, e,
                        "public big-endian counter, key {key_len}, len {len}, counter {counter:02x?}, {wide:?}"
                    );
                    if len > 0 {
                        assert_ne!(a, data[..len], "CTR changed nothing");
                    }
                }
            }
        }
    }

    /// A batch group's seal and open (sixteen lanes and eight) agree between
    /// the narrow kernel (one lane per register), lanes in pairs with their
    /// POLYVAL in pairs (no AVX-512), and lanes in pairs with POLYVAL four
    /// lanes per instruction (AVX-512): equal lengths around the block and
    /// group limits, and short lanes of unequal lengths.
    #[test]
    fn group_kernels_agree_with_and_without_avx512() {
        use super::super::group::LaneKeyMemory;
        let (Some(narrow), Some(wide)) = (Features::detect(), Features::detect_widest()) else {
            return; // this CPU has no VAES: nothing to compare
        };
        let widths = [narrow, Features { zmm: false, ..wide }, wide];
        let cases: std::vec::Vec<std::vec::Vec<(usize, usize)>> =
            [0usize, 1, 16, 17, 64, 100, 128, 200, 256, 512, 1024]
                .into_iter()
                .map(|m| std::vec![(m % 33, m); 16])
                .chain([(0..16).map(|l| (l * 7 % 40, l * 13 % 129)).collect()])
                .collect();
        macro_rules! run {
            ($aes:ty, $key:expr, $L:literal) => {{
                for lens in &cases {
                    let mut outputs = std::vec::Vec::new();
                    for features in widths {
                        let aes = <$aes>::new(features, $key);
                        let nonces: [[u8; 12]; $L] = core::array::from_fn(|l| [l as u8 ^ 0x5a; 12]);
                        let aads: std::vec::Vec<std::vec::Vec<u8>> =
                            (0..$L).map(|l| (0..lens[l].0).map(|i| (i * 3 + l) as u8).collect()).collect();
                        let mut bufs: std::vec::Vec<std::vec::Vec<u8>> =
                            (0..$L).map(|l| (0..lens[l].1).map(|i| (i * 5 + l) as u8).collect()).collect();
                        let mut keys = LaneKeyMemory::default();
                        let mut it = bufs.iter_mut();
                        let Some(tags) = aes.seal_lanes::<$L>(
                            core::array::from_fn(|l| &nonces[l]),
                            core::array::from_fn(|l| &aads[l][..]),
                            core::array::from_fn(|_| &mut it.next().unwrap()[..]),
                            &mut keys,
                        ) else {
                            continue; // no group kernel for this many lanes
                        };
                        let sealed = bufs.clone();
                        // Each lane as one message sealed alone.
                        for l in 0..$L {
                            let mut one: std::vec::Vec<u8> =
                                (0..lens[l].1).map(|i| (i * 5 + l) as u8).collect();
                            let tag = aes.seal_short(&nonces[l], &aads[l], &mut one).unwrap();
                            assert_eq!(
                                (tag, &one),
                                (tags[l], &sealed[l]),
                                "lane {l}, {features:?}, {lens:?}"
                            );
                        }
                        let mut it = bufs.iter_mut();
                        // (Every length is correct; `lane_limits` only says where it pays.)
                        if let Some(expected) = aes.open_lanes::<$L>(
                            core::array::from_fn(|l| &nonces[l]),
                            core::array::from_fn(|l| &aads[l][..]),
                            core::array::from_fn(|_| &mut it.next().unwrap()[..]),
                            &tags,
                            &mut keys,
                        ) {
                            assert_eq!(expected, tags, "open's tags, {features:?}, {lens:?}");
                            for (l, b) in bufs.iter().enumerate() {
                                assert_eq!(
                                    b,
                                    &(0..lens[l].1).map(|i| (i * 5 + l) as u8).collect::<std::vec::Vec<u8>>()
                                );
                            }
                        }
                        outputs.push((tags, sealed));
                    }
                    assert!(outputs.windows(2).all(|w| w[0] == w[1]), "widths disagree, {lens:?}");
                }
            }};
        }
        let key: [u8; 32] = core::array::from_fn(|i| (i * 9 + 1) as u8);
        run!(Aes128, key[..16].try_into().unwrap(), 16);
        run!(Aes128, key[..16].try_into().unwrap(), 8);
        run!(Aes256, &key, 16);
        run!(Aes256, &key, 8);
    }
}
