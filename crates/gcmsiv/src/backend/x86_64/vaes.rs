//! The VAES primitives both VAES tiers (`vaes256/`, `vaes512/`) build on,
//! for CPUs with VAES, VPCLMULQDQ and AVX2: AES rounds on two blocks per
//! instruction with the round key read from memory, the counters of a
//! chunk, carry-less products two per instruction over the [`Powers`] table
//! read as [`Pairs`], and the batch groups' lanes in pairs
//! ([`PairSchedules`], [`PairHash`]); and [`Keys512`], the storage of the
//! round keys broadcast for 512-bit registers that AES-GCM's per-key table
//! keeps (one table type at every tier), which only `vaes512/` fills and
//! reads. The passes built from them are in `pass256.rs`, the batch kernel
//! that drives the lanes in `group.rs`.
//!
//! As in the rest of the backend, round keys and powers of H are read from
//! memory that is wiped (the schedule, and the [`Powers`] table read as
//! [`Pairs`]) by the instructions that use them, so no copy is left on the
//! stack (`tests/residue.rs`); register-resident keys left copies.
//!
//! Every function here carries `#[target_feature(enable = "aes,pclmulqdq,
//! ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]` (with `avx512f,avx512bw,avx512vl`
//! for [`Keys512::fill`]); callers reach it only through a key whose
//! [`Features`](super::Features) name a VAES tier.

use super::array;
use super::clmul::{Powers, reduce_karatsuba};
use super::lanes::{LaneHash, LaneKeys, Words, expand_transposed, sub_word_mask, xor_block};
use super::load::byte_reverse_mask;
use crate::backend::{Block, WIDE_GROUP};
use core::arch::x86_64::*;
use core::mem::MaybeUninit;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// Blocks per chunk: four registers of two blocks.
pub(super) const CHUNK_BLOCKS: usize = 8;

/// One instruction (`$ins`: `vpxor`, `vaesenc`, `vaesenclast`) on the 256-bit
/// registers `$b` (an array) with the round key at `$key` broadcast to both
/// lanes inside the block. One `asm!` block so the registers stay side by
/// side, and the round key never sits in a register the compiler could spill
/// to the stack (see `round8!` in `aes.rs`).
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

/// The eight counter blocks of chunk `c` in four registers, from `base` (the
/// pass's first counter in the low lane, one more in the high lane): the
/// chunk's first pair once, then each register's offset as a constant
/// operand (building each offset from a general register took three vector
/// operations, one of them a lane insert). Byte-reversed back for GCM: with
/// `PUBLIC` (see `ChunkCounters`), one shuffle per chunk where no counter
/// carries out of its lowest byte; otherwise one per register.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) fn chunk_counters<const BE: bool, const PUBLIC: bool>(
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
/// with the hash. AES-GCM keeps one per key; a long GCM-SIV open builds one
/// for the call (`vaes512/`'s `KEYS512_FROM`). [`Self::fill`] writes every
/// entry once (round keys 0..=NR, zeros past NR: no stack garbage travels
/// with a table that is moved), and drop and `zeroize` wipe the round keys
/// only (no zeroing before `fill`, no wiping of the unused entries: stores
/// an open would pay for).
#[derive(Clone)]
pub(super) struct Keys512<const NR: usize> {
    rk: [MaybeUninit<__m512i>; 15],
}

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
    pub(super) fn get(&self, r: usize) -> &__m512i {
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
pub(super) fn counter_pair<const BE: bool>(counter: &Block) -> __m256i {
    // SAFETY: 16 readable bytes.
    let mut ctr0 = unsafe { _mm_loadu_si128(counter.as_ptr().cast()) };
    if BE {
        ctr0 = _mm_shuffle_epi8(ctr0, byte_reverse_mask());
    }
    _mm256_add_epi32(_mm256_broadcastsi128_si256(ctr0), _mm256_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0))
}

/// The powers of H as the 256-bit products read them: entry j holds
/// (H^(8-2j), H^(7-2j)) and entry 4 + j their folded halves, for block pair j
/// as it lies in memory.
pub(super) type Pairs = [__m256i; 8];

// `pairs` relies on this layout: two arrays of eight blocks, no padding,
// 32-byte aligned.
const _: () = assert!(size_of::<Powers>() == size_of::<Pairs>() && align_of::<Powers>() == 64);

/// The table of powers, highest first, seen as [`Pairs`]: the same bytes,
/// nothing copied (so nothing more to wipe).
#[inline]
pub(super) fn pairs(powers: &Powers) -> &Pairs {
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
pub(super) fn pair_product_table(
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

/// `vpclmulqdq` of `a` with the 32 bytes at `b`, read by the instruction.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) fn clmul256_at<const IMM: u8>(a: __m256i, b: &__m256i) -> __m256i {
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
pub(super) fn clmul256<const IMM: i32>(a: __m256i, b: __m256i) -> __m256i {
    _mm256_clmulepi64_epi128::<IMM>(a, b)
}

/// The two lanes of the unreduced sums added together, Karatsuba's middle
/// term folded in, and the one reduction: the chunk's new state.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) fn finish(lo: __m256i, hi: __m256i, mid: __m256i) -> __m128i {
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

/// Lane pairs of a group of at most [`WIDE_GROUP`] lanes.
pub(super) const PAIRS: usize = WIDE_GROUP / 2;

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
pub(super) fn aesenclast256(a: __m256i, key: __m256i) -> __m256i {
    _mm256_aesenclast_epi128(a, key)
}

/// `group.rs`'s transpose in both 128-bit lanes at once.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq")]
pub(super) fn transpose2(x: [__m256i; 4]) -> [__m256i; 4] {
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
pub(super) fn pack<const L: usize>(x: &[__m128i; L]) -> [__m256i; PAIRS] {
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
pub(super) fn unpack<const L: usize>(y: &[__m256i; PAIRS]) -> [__m128i; L] {
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
pub(super) fn encrypt_pairs<const NR: usize, const L: usize>(y: &mut [__m256i; PAIRS], rk: &PairSchedules) {
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
pub(super) fn expand_pairs<const NR: usize, const L: usize>(k: &[[__m128i; 2]; L], rk: &mut PairSchedules) {
    pub(super) const MAX_QUADS: usize = PAIRS / 4;
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
pub(super) fn ctr_pairs<const NR: usize, const L: usize>(
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

pub(super) use {encrypt_chunk, round4x2, rounds_x2};
