//! The 512-bit primitives of the `vaes512` tier (AVX-512 F, BW and VL with
//! VAES and VPCLMULQDQ): AES rounds on four blocks per instruction
//! ([`round4x4!`], under a [`ZmmKeys`]: the schedule itself, or GCM's
//! broadcast [`Keys512`]), the counters of a 256-byte chunk, POLYVAL's
//! sixteen-block step ([`Sixteen`]) and a batch group's POLYVAL four lanes
//! per instruction ([`QuadHash`]).
//!
//! Every function here carries the 256-bit set of target features and
//! AVX-512 F, BW and VL; callers reach it only through a key whose
//! [`Features`](super::super::Features) name the `vaes512` tier.

use super::super::aes::Schedule;
use super::super::array;
use super::super::clmul::{Powers, clmul_at_vex, reduce_karatsuba};
use super::super::lanes::LaneHash;
use super::super::load::byte_reverse_mask;
use super::super::vaes::{Keys512, counter_pair};
use crate::backend::{Block, WIDE_GROUP};
use core::arch::x86_64::*;
use zeroize::Zeroize;

/// One instruction (`$ins`: `vpxorq`, `vaesenc`, `vaesenclast`) on four
/// 512-bit registers (sixteen blocks) with the round key at `$key` broadcast
/// to all four lanes inside the block, as `rounds_x2!`; or, with `wide`
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

/// The message length from which an open builds a [`Keys512`] for its
/// stitched pass: each 256-byte chunk then saves a broadcast per round,
/// which from here outweighs building and wiping the table.
pub(super) const KEYS512_FROM: usize = 8 * 1024;

/// Where a 512-bit pass's rounds read their keys: a [`Schedule`] (each
/// key broadcast as it is used) or a [`Keys512`].
///
/// # Safety
/// Callers of the methods must run on a CPU with AVX-512 F and VAES.
pub(super) trait ZmmKeys {
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

/// [`counter_pair`] on four lanes: lane k is `counter` + k.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
pub(super) fn counter_quad<const BE: bool>(counter: &Block) -> __m512i {
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
pub(super) fn chunk_counters_zmm<const BE: bool>(base: __m512i, c: usize) -> [__m512i; 4] {
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
pub(super) struct ChunkCounters<const BE: bool, const PUBLIC: bool> {
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
    pub(super) fn new(base: __m512i) -> Self {
        let first_be =
            if BE { _mm512_shuffle_epi8(base, _mm512_broadcast_i32x4(byte_reverse_mask())) } else { base };
        ChunkCounters { base, c: 0, first_be }
    }

    /// The next chunk's four registers.
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    pub(super) fn next(&mut self) -> [__m512i; 4] {
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

/// The powers of H for the 512-bit passes: H^16..H^9 (built per pass, wiped
/// as it drops) beside the table's H^8..H^1, read four at a time.
pub(super) struct Sixteen<'a> {
    high: Powers,
    low: &'a Powers,
}

/// The sums of a 256-byte chunk's sixteen Karatsuba products, unreduced, in
/// four lanes each: `(lo, hi, mid)`.
pub(super) type Sums512 = (__m512i, __m512i, __m512i);

/// The four 128-bit lanes of `v` added together.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
pub(super) fn lanes(v: __m512i) -> __m128i {
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
    pub(super) fn new(low: &'a Powers) -> Self {
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
    pub(super) fn quads(p: &Powers) -> &[__m512i; 4] {
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
    pub(super) fn product(&self, x: __m512i, q: usize, sums: &mut Sums512) {
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
    pub(super) fn finish(&self, s: __m128i, (lo, hi, mid): Sums512) -> __m128i {
        let (h16, h16_xor) = (&self.high.h[0], &self.high.h_xor[0]);
        // VEX forms: legacy-SSE products beside the 512-bit state make the
        // CPU merge the registers' upper halves (`aes.rs`, `round_at_vex!`).
        let sl = clmul_at_vex::<0x00>(s, h16);
        let sh = clmul_at_vex::<0x11>(s, h16);
        let sm = clmul_at_vex::<0x00>(super::super::clmul::fold_halves(s), h16_xor);
        let (l, u, m) = (lanes(lo), lanes(hi), lanes(mid));
        reduce_karatsuba(_mm_xor_si128(l, sl), _mm_xor_si128(u, sh), _mm_xor_si128(m, sm))
    }

    /// The chunk's sums folded to 128 bits and reduced: the new S when the
    /// old one went in with the chunk's first block (the stitched pass).
    #[inline]
    #[target_feature(
        enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl"
    )]
    pub(super) fn reduce(&self, (lo, hi, mid): Sums512) -> __m128i {
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
    pub(super) unsafe fn absorb<const REVERSED: bool>(&self, s: __m128i, p: *const u8) -> __m128i {
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
    pub(super) fn absorb_final(&self, s: __m128i, mut x: [__m512i; 4], m: usize, len: __m128i) -> __m128i {
        debug_assert!((12..=16).contains(&m));
        x[0] = _mm512_xor_si512(x[0], _mm512_zextsi128_si512(s));
        if m == 16 {
            let mut sums = (_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512());
            for (q, &xq) in x.iter().enumerate() {
                self.product(xq, q, &mut sums);
            }
            return super::super::clmul::aggregate_vex(self.reduce(sums), &[len], self.low);
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

const _: () = assert!(size_of::<Powers>() == size_of::<[__m512i; 4]>());

// `clmul512_at` and `clmul256_at` (and `clmul.rs`'s `clmul_at_vex`) are one
// instruction at three widths: an `asm!` operand names its register class,
// so each width is a block of its own (kept apart on purpose).
/// `vpclmulqdq` of `a` with the 64 bytes at `b`, read by the instruction: a
/// power of H loaded as a value may be hoisted out of a loop and, short of
/// registers, spilled to the stack, where nothing wipes it
/// (`tests/residue.rs` found H^8..H^5 there in AES-256-GCM).
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
pub(super) fn clmul512_at<const IMM: u8>(a: __m512i, b: &__m512i) -> __m512i {
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

/// [`LaneHash`] for a batch group's `L` lanes (8 or 16) four lanes per
/// instruction, where the CPU has AVX-512: register `i` carries lanes `i`,
/// `i + L / 4`, `i + L / 2` and `i + 3 L / 4`. On Zen 4 a 512-bit
/// `vpclmulqdq` issues as often as a 256-bit one, so each Horner step costs
/// half the multiplier time of `PairHash`. The keys stay in this struct
/// (wiped on drop); the multiplications take them as values, with 32
/// vector registers to hold them (the residue test checks that no copy
/// reaches the stack).
pub(super) struct QuadHash<const L: usize> {
    /// `keys[i]`: the H of quad `i`; `keys[QUADS + i]`: its halves folded.
    keys: [__m512i; 2 * QUADS],
    s: [__m512i; QUADS],
}

/// Lane quads of a group of at most [`WIDE_GROUP`] lanes.
pub(super) const QUADS: usize = WIDE_GROUP / 4;

/// Four blocks in one register, `x0` lowest.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
pub(super) fn quad(x0: __m128i, x1: __m128i, x2: __m128i, x3: __m128i) -> __m512i {
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
/// group: the group kernels compiled with AVX-512 as a whole were slower.
///
/// # Safety
/// The CPU must support the enabled features (the `vaes512` tier's).
#[inline(never)]
#[target_feature(enable = "aes,pclmulqdq,ssse3,sse4.1,avx,avx2,vaes,vpclmulqdq,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn group_hash_zmm<const L: usize>(
    h: &[__m128i; L],
    aads: &[&[u8]; L],
    msgs: &[&mut [u8]; L],
) -> [__m128i; L] {
    // SAFETY: the caller's CPU has every feature enabled here.
    unsafe { super::super::lanes::GroupHash::<L, QuadHash<L>>::new(h, aads, msgs).finish() }
}

pub(super) use round4x4;
