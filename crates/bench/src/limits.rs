//! What this CPU can do at best: minimal loops with no API around them, to
//! tell how close the real code comes.
//!
//! - AES: 8 independent blocks in flight (AES-128, 10 rounds; AES-256, 14).
//! - POLYVAL: 8 blocks per step, Karatsuba, one reduction (our hazmat kernel).
//! - CTR + POLYVAL: both in one loop, as decryption needs them.
//! - The same three with VAES and VPCLMULQDQ on 256-bit registers (two blocks
//!   per instruction), where the CPU has them: the limits of the `aesni-vaes`
//!   backend.
//! - The same on 512-bit registers (POLYVAL sixteen blocks per reduction),
//!   where the CPU has AVX-512 too: the limits of `aesni-vaes` on such CPUs
//!   for inputs of 1 KiB and more.
//!
//! The keys pass through `black_box` and the counter blocks advance with each
//! chunk, as in real CTR: with constant keys and counters the compiler hoists
//! the AES rounds out of the loop and the "limit" measures only the XOR.

use core::arch::x86_64::*;

const BYTES: usize = 16 * 1024;

fn tsc() -> u64 {
    // SAFETY: RDTSC exists on every x86-64 CPU and touches no memory.
    unsafe { _rdtsc() }
}

/// Median cycles per byte of `f` over `BYTES`.
fn cpb(mut f: impl FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..41)
        .map(|_| {
            let t = tsc();
            for _ in 0..4 {
                f();
            }
            (tsc() - t) as f64 / (4 * BYTES) as f64
        })
        .collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Round keys the compiler cannot see through.
#[target_feature(enable = "sse2")]
pub(crate) fn round_keys() -> [__m128i; 15] {
    std::hint::black_box(core::array::from_fn(|i| _mm_set1_epi32(i as i32 * 0x0101_0101)))
}

/// The next eight counter blocks (the counter in the first 32-bit lane).
#[inline]
#[target_feature(enable = "sse2")]
fn counters(ctr: &mut __m128i) -> [__m128i; 8] {
    let b = core::array::from_fn(|i| _mm_add_epi32(*ctr, _mm_setr_epi32(i as i32, 0, 0, 0)));
    *ctr = _mm_add_epi32(*ctr, _mm_setr_epi32(8, 0, 0, 0));
    b
}

/// # Safety
/// The CPU must have AES-NI.
#[target_feature(enable = "aes,sse2")]
unsafe fn aes_x8(rounds: usize, data: &mut [u8]) {
    let keys = round_keys();
    let mut ctr = _mm_setr_epi32(0, 1, 2, 3);
    for chunk in data.chunks_exact_mut(128) {
        let mut b = counters(&mut ctr);
        for x in b.iter_mut() {
            *x = _mm_xor_si128(*x, keys[0]);
        }
        for k in &keys[1..rounds] {
            for x in b.iter_mut() {
                *x = _mm_aesenc_si128(*x, *k);
            }
        }
        for (i, x) in b.iter().enumerate() {
            let p = chunk[16 * i..].as_mut_ptr().cast::<__m128i>();
            // SAFETY: 16 bytes inside the chunk.
            unsafe {
                _mm_storeu_si128(p, _mm_xor_si128(_mm_loadu_si128(p), _mm_aesenclast_si128(*x, keys[rounds])))
            };
        }
    }
}

/// # Safety
/// The CPU must have AES-NI and PCLMULQDQ.
#[target_feature(enable = "aes,pclmulqdq,sse2")]
unsafe fn ctr_polyval(rounds: usize, data: &mut [u8]) -> __m128i {
    let keys = round_keys();
    let mut ctr = _mm_setr_epi32(0, 1, 2, 3);
    let h: [__m128i; 8] = core::array::from_fn(|i| _mm_set1_epi32(0x1234567 * (i as i32 + 1)));
    let hx: [__m128i; 8] = h.map(|x| _mm_xor_si128(x, _mm_shuffle_epi32::<0x4e>(x)));
    let poly = _mm_set_epi64x(0, 0xc200_0000_0000_0000u64 as i64);
    let mut s = _mm_setzero_si128();
    for chunk in data.chunks_exact_mut(128) {
        let mut b = counters(&mut ctr);
        for x in b.iter_mut() {
            *x = _mm_xor_si128(*x, keys[0]);
        }
        for k in &keys[1..rounds] {
            for x in b.iter_mut() {
                *x = _mm_aesenc_si128(*x, *k);
            }
        }
        let (mut lo, mut hi, mut mid) = (_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128());
        for (i, x) in b.iter().enumerate() {
            let p = chunk[16 * i..].as_mut_ptr().cast::<__m128i>();
            // SAFETY: 16 bytes inside the chunk.
            let pt = unsafe { _mm_xor_si128(_mm_loadu_si128(p), _mm_aesenclast_si128(*x, keys[rounds])) };
            // SAFETY: as above.
            unsafe { _mm_storeu_si128(p, pt) };
            let a = if i == 0 { _mm_xor_si128(pt, s) } else { pt };
            lo = _mm_xor_si128(lo, _mm_clmulepi64_si128::<0x00>(a, h[7 - i]));
            hi = _mm_xor_si128(hi, _mm_clmulepi64_si128::<0x11>(a, h[7 - i]));
            let ax = _mm_xor_si128(a, _mm_shuffle_epi32::<0x4e>(a));
            mid = _mm_xor_si128(mid, _mm_clmulepi64_si128::<0x00>(ax, hx[7 - i]));
        }
        mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
        lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(mid));
        hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(mid));
        for _ in 0..2 {
            lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), _mm_clmulepi64_si128::<0x00>(lo, poly));
        }
        s = _mm_xor_si128(hi, lo);
    }
    s
}

/// CTR of chunk c with POLYVAL of chunk c - 1 between its rounds (one block
/// per round, reloaded from memory): the two have no dependency inside an
/// iteration, so the AES and carry-less-multiply units can overlap. (The
/// loop above hashes the chunk it has just made, which puts the whole AES
/// latency in front of the multiplications of every iteration.) The product
/// and reduction steps are written out as in the loop above, not shared: a
/// limit loop is meant to be exactly what it reads as, and helpers change
/// what the compiler makes of it (PERFORMANCE-HISTORY.md, `crates/bench`).
///
/// # Safety
/// The CPU must have AES-NI and PCLMULQDQ.
#[target_feature(enable = "aes,pclmulqdq,sse2")]
unsafe fn ctr_polyval_pipelined(rounds: usize, data: &mut [u8]) -> __m128i {
    let keys = round_keys();
    let mut ctr = _mm_setr_epi32(0, 1, 2, 3);
    let h: [__m128i; 8] = core::array::from_fn(|i| _mm_set1_epi32(0x1234567 * (i as i32 + 1)));
    let hx: [__m128i; 8] = h.map(|x| _mm_xor_si128(x, _mm_shuffle_epi32::<0x4e>(x)));
    let poly = _mm_set_epi64x(0, 0xc200_0000_0000_0000u64 as i64);
    let mut s = _mm_setzero_si128();
    let base = data.as_mut_ptr();
    for c in 0..data.len() / 128 {
        // SAFETY: chunk c (and c - 1 when c > 0) lies inside `data`.
        let (chunk, prev) = unsafe { (base.add(128 * c), base.add(128 * c.saturating_sub(1))) };
        let mut b = counters(&mut ctr);
        for x in b.iter_mut() {
            *x = _mm_xor_si128(*x, keys[0]);
        }
        let (mut lo, mut hi, mut mid) = (_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128());
        for (r, k) in keys[1..rounds].iter().enumerate() {
            for x in b.iter_mut() {
                *x = _mm_aesenc_si128(*x, *k);
            }
            if c > 0 && r < 8 {
                // SAFETY: block r of the previous chunk.
                let x = unsafe { _mm_loadu_si128(prev.add(16 * r).cast()) };
                let a = if r == 0 { _mm_xor_si128(x, s) } else { x };
                lo = _mm_xor_si128(lo, _mm_clmulepi64_si128::<0x00>(a, h[7 - r]));
                hi = _mm_xor_si128(hi, _mm_clmulepi64_si128::<0x11>(a, h[7 - r]));
                let ax = _mm_xor_si128(a, _mm_shuffle_epi32::<0x4e>(a));
                mid = _mm_xor_si128(mid, _mm_clmulepi64_si128::<0x00>(ax, hx[7 - r]));
            }
        }
        for (i, x) in b.iter().enumerate() {
            // SAFETY: block i of this chunk.
            unsafe {
                let p = chunk.add(16 * i).cast::<__m128i>();
                _mm_storeu_si128(
                    p,
                    _mm_xor_si128(_mm_loadu_si128(p), _mm_aesenclast_si128(*x, keys[rounds])),
                );
            }
        }
        if c > 0 {
            mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
            lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(mid));
            hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(mid));
            for _ in 0..2 {
                lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), _mm_clmulepi64_si128::<0x00>(lo, poly));
            }
            s = _mm_xor_si128(hi, lo);
        }
    }
    s
}

/// Eight independent `aesenc` chains (if `AES`) beside four `pclmulqdq`
/// chains, in registers only, with `XORS` vector XORs (independent of both) per
/// iteration: whether the two units overlap on this core, and what the
/// plain vector operations every real loop needs take from them.
///
/// # Safety
/// The CPU must have AES-NI and PCLMULQDQ.
#[target_feature(enable = "aes,pclmulqdq,sse2")]
unsafe fn units_together<const AES: bool, const XORS: usize>(n: usize) -> __m128i {
    let k: [__m128i; 3] =
        std::hint::black_box(core::array::from_fn(|i| _mm_set1_epi32(0x1234567 + i as i32)));
    let mut a: [__m128i; 8] = core::array::from_fn(|i| _mm_set1_epi32(i as i32));
    let mut m: [__m128i; 4] = core::array::from_fn(|i| _mm_set1_epi32(i as i32 + 8));
    let mut x: [__m128i; 4] = core::array::from_fn(|i| _mm_set1_epi32(i as i32 + 12));
    for _ in 0..n {
        if AES {
            for v in a.iter_mut() {
                *v = _mm_aesenc_si128(*v, k[0]);
            }
        }
        for v in m.iter_mut() {
            *v = _mm_clmulepi64_si128::<0x00>(*v, k[0]);
        }
        for i in 0..XORS {
            // Three keys in turn: no pair of XORs cancels.
            x[i % 4] = _mm_xor_si128(x[i % 4], k[i % 3]);
        }
    }
    a.iter().chain(&m).chain(&x).fold(_mm_setzero_si128(), |r, v| _mm_xor_si128(r, *v))
}

/// Round keys broadcast to both 128-bit lanes, opaque to the compiler.
#[target_feature(enable = "avx2")]
fn round_keys_wide() -> [__m256i; 15] {
    let k = round_keys();
    std::hint::black_box(k.map(|x| _mm256_broadcastsi128_si256(x)))
}

/// The next eight counter blocks in four registers of two.
#[inline]
#[target_feature(enable = "avx2")]
fn counters_wide(ctr: &mut __m256i) -> [__m256i; 4] {
    let b = core::array::from_fn(|i| {
        let n = 2 * i as i32;
        _mm256_add_epi32(*ctr, _mm256_setr_epi32(n, 0, 0, 0, n + 1, 0, 0, 0))
    });
    *ctr = _mm256_add_epi32(*ctr, _mm256_setr_epi32(8, 0, 0, 0, 8, 0, 0, 0));
    b
}

/// One 256-bit Karatsuba step: block pair `a` against power pair `h` (and its
/// folded halves `hx`), added to the unreduced sums.
#[inline]
#[target_feature(enable = "avx2,vpclmulqdq")]
fn karatsuba2(a: __m256i, h: __m256i, hx: __m256i, lo: &mut __m256i, hi: &mut __m256i, mid: &mut __m256i) {
    *lo = _mm256_xor_si256(*lo, _mm256_clmulepi64_epi128::<0x00>(a, h));
    *hi = _mm256_xor_si256(*hi, _mm256_clmulepi64_epi128::<0x11>(a, h));
    let f = _mm256_xor_si256(a, _mm256_shuffle_epi32::<0x4e>(a));
    *mid = _mm256_xor_si256(*mid, _mm256_clmulepi64_epi128::<0x00>(f, hx));
}

/// The two lanes of the sums added, the middle term folded in, one reduction.
#[inline]
#[target_feature(enable = "pclmulqdq,avx2")]
fn reduce2(lo: __m256i, hi: __m256i, mid: __m256i) -> __m128i {
    let poly = _mm_set_epi64x(0, 0xc200_0000_0000_0000u64 as i64);
    let lanes = |v: __m256i| _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let (l, u) = (lanes(lo), lanes(hi));
    let m = _mm_xor_si128(lanes(mid), _mm_xor_si128(l, u));
    let mut l = _mm_xor_si128(l, _mm_slli_si128::<8>(m));
    for _ in 0..2 {
        l = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(l), _mm_clmulepi64_si128::<0x00>(l, poly));
    }
    _mm_xor_si128(_mm_xor_si128(u, _mm_srli_si128::<8>(m)), l)
}

/// CTR over `data` with VAES, eight blocks (four registers) in flight; with
/// `HASH`, a POLYVAL step (four 256-bit Karatsuba products, one reduction)
/// between the rounds, of the chunk itself or, with `PREVIOUS`, of the chunk
/// before (whose output GCM-SIV decryption hashes).
///
/// # Safety
/// The CPU must have AVX2, VAES and VPCLMULQDQ.
#[target_feature(enable = "aes,pclmulqdq,avx2,vaes,vpclmulqdq")]
unsafe fn wide<const HASH: bool, const PREVIOUS: bool>(rounds: usize, data: &mut [u8]) -> __m128i {
    let keys = round_keys_wide();
    let h: [__m256i; 4] =
        std::hint::black_box(core::array::from_fn(|i| _mm256_set1_epi64x(i as i64 * 0x1234_5678 + 1)));
    let hx: [__m256i; 4] = h.map(|x| _mm256_xor_si256(x, _mm256_shuffle_epi32::<0x4e>(x)));
    let mut ctr = _mm256_setzero_si256();
    let mut s = _mm_setzero_si128();
    let base = data.as_mut_ptr();
    for (c, chunk) in data.chunks_exact_mut(128).enumerate() {
        // The chunk hashed: this one, or the one before (the first chunk
        // hashes itself, once; it is one of 128).
        let src =
            if PREVIOUS && c > 0 { base.wrapping_add(128 * (c - 1)).cast_const() } else { chunk.as_ptr() };
        let mut b = counters_wide(&mut ctr);
        for x in b.iter_mut() {
            *x = _mm256_xor_si256(*x, keys[0]);
        }
        let (mut lo, mut hi, mut mid) =
            (_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256());
        for (r, k) in keys[1..rounds].iter().enumerate() {
            for x in b.iter_mut() {
                *x = _mm256_aesenc_epi128(*x, *k);
            }
            if HASH && r < 4 {
                // SAFETY: 32 bytes inside the chunk hashed.
                let mut a = unsafe { _mm256_loadu_si256(src.add(32 * r).cast()) };
                if r == 0 {
                    a = _mm256_xor_si256(a, _mm256_castsi128_si256(s));
                }
                karatsuba2(a, h[r], hx[r], &mut lo, &mut hi, &mut mid);
            }
        }
        for (i, x) in b.iter().enumerate() {
            let p = chunk[32 * i..].as_mut_ptr().cast::<__m256i>();
            // SAFETY: 32 bytes inside the chunk.
            unsafe {
                _mm256_storeu_si256(
                    p,
                    _mm256_xor_si256(_mm256_loadu_si256(p), _mm256_aesenclast_epi128(*x, keys[rounds])),
                )
            };
        }
        if HASH {
            s = reduce2(lo, hi, mid);
        }
    }
    s
}

/// POLYVAL alone with VPCLMULQDQ: four 256-bit Karatsuba products and one
/// reduction per 128-byte chunk.
///
/// # Safety
/// The CPU must have AVX2 and VPCLMULQDQ.
#[target_feature(enable = "pclmulqdq,avx2,vpclmulqdq")]
unsafe fn polyval_wide(data: &[u8]) -> __m128i {
    let h: [__m256i; 4] =
        std::hint::black_box(core::array::from_fn(|i| _mm256_set1_epi64x(i as i64 * 0x1234_5678 + 1)));
    let hx: [__m256i; 4] = h.map(|x| _mm256_xor_si256(x, _mm256_shuffle_epi32::<0x4e>(x)));
    let mut s = _mm_setzero_si128();
    for chunk in data.chunks_exact(128) {
        let (mut lo, mut hi, mut mid) =
            (_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256());
        for r in 0..4 {
            // SAFETY: 32 bytes inside the chunk.
            let mut a = unsafe { _mm256_loadu_si256(chunk[32 * r..].as_ptr().cast()) };
            if r == 0 {
                a = _mm256_xor_si256(a, _mm256_castsi128_si256(s));
            }
            karatsuba2(a, h[r], hx[r], &mut lo, &mut hi, &mut mid);
        }
        s = reduce2(lo, hi, mid);
    }
    s
}

/// One 256-byte chunk on 512-bit registers, what `aesni-vaes` runs on CPUs
/// with AVX-512: with `ROUNDS` > 0, CTR of the chunk at `dst` (four
/// registers of four blocks); with `HASH`, the chunk at `src` hashed (four
/// Karatsuba products of four blocks against `h`/`hx`, between the first
/// rounds), the running sum S added to the first block (with CTR) or its
/// product with H^16 taken apart (POLYVAL alone), one reduction.
///
/// # Safety
/// The CPU must have AVX-512 F, VAES and VPCLMULQDQ; 256 bytes at `src` and
/// at `dst`.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,avx2,vaes,vpclmulqdq,avx512f")]
#[allow(clippy::too_many_arguments, clippy::needless_range_loop)]
unsafe fn chunk512<const ROUNDS: usize, const HASH: bool>(
    keys: &[__m512i; 15],
    ctr: &mut __m512i,
    dst: *mut u8,
    src: *const u8,
    s: __m128i,
    h: &[__m512i; 4],
    hx: &[__m512i; 4],
    h16: __m128i,
) -> __m128i {
    let mut b: [__m512i; 4] = core::array::from_fn(|i| {
        let n = 4 * i as i32;
        _mm512_xor_si512(_mm512_add_epi32(*ctr, _mm512_set4_epi32(0, 0, 0, n)), keys[0])
    });
    *ctr = _mm512_add_epi32(*ctr, _mm512_set4_epi32(0, 0, 0, 16));
    let (mut lo, mut hi, mut mid) = (_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512());
    for r in 1..ROUNDS.max(5) {
        if r < ROUNDS {
            // As `aesni-vaes` runs it: the round key broadcast from its
            // 16 bytes by the block, not kept broadcast in registers: the
            // choice moves the loops' speed either way, so the limit follows
            // the backend (PERFORMANCE-HISTORY.md, `crates/bench`).
            let key = &keys[r];
            // SAFETY: reads 16 bytes of `key`; registers otherwise.
            unsafe {
                core::arch::asm!(
                    "vbroadcasti32x4 zmm4, xmmword ptr [{key}]",
                    "vaesenc zmm0, zmm0, zmm4",
                    "vaesenc zmm1, zmm1, zmm4",
                    "vaesenc zmm2, zmm2, zmm4",
                    "vaesenc zmm3, zmm3, zmm4",
                    key = in(reg) key,
                    inout("zmm0") b[0],
                    inout("zmm1") b[1],
                    inout("zmm2") b[2],
                    inout("zmm3") b[3],
                    out("zmm4") _,
                    options(readonly, nostack, preserves_flags),
                );
            }
        }
        if HASH && r <= 4 {
            // With CTR, as the stitched pass: quads 1, 2, 3, then 0 with S
            // added to its first block. Alone, as POLYVAL's pass: in order,
            // S H^16 taken apart below.
            let q = if ROUNDS > 0 { r % 4 } else { r - 1 };
            // SAFETY: 64 bytes inside the chunk hashed.
            let a = unsafe { _mm512_loadu_si512(src.add(64 * q).cast()) };
            let a = if ROUNDS > 0 && q == 0 { _mm512_xor_si512(a, _mm512_zextsi128_si512(s)) } else { a };
            lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128::<0x00>(a, h[q]));
            hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128::<0x11>(a, h[q]));
            let f = _mm512_xor_si512(a, _mm512_shuffle_epi32::<0x4e>(a));
            mid = _mm512_xor_si512(mid, _mm512_clmulepi64_epi128::<0x00>(f, hx[q]));
        }
    }
    if ROUNDS > 0 {
        for (i, x) in b.iter().enumerate() {
            // SAFETY: 64 bytes inside the chunk written.
            unsafe {
                let p = dst.add(64 * i).cast::<__m512i>();
                let k = _mm512_xor_si512(
                    _mm512_loadu_si512(p.cast()),
                    _mm512_aesenclast_epi128(*x, keys[ROUNDS]),
                );
                _mm512_storeu_si512(p.cast(), k);
            }
        }
    }
    if !HASH {
        return s;
    }
    let (l, u, m) = (half(lo), half(hi), half(mid));
    if ROUNDS > 0 {
        return reduce2(l, u, m);
    }
    // S H^16 in the low lane, Karatsuba.
    let sl = _mm_clmulepi64_si128::<0x00>(s, h16);
    let sh = _mm_clmulepi64_si128::<0x11>(s, h16);
    let fs = _mm_xor_si128(s, _mm_shuffle_epi32::<0x4e>(s));
    let fh = _mm_xor_si128(h16, _mm_shuffle_epi32::<0x4e>(h16));
    let sm = _mm_clmulepi64_si128::<0x00>(fs, fh);
    reduce2(
        _mm256_xor_si256(l, _mm256_zextsi128_si256(sl)),
        _mm256_xor_si256(u, _mm256_zextsi128_si256(sh)),
        _mm256_xor_si256(m, _mm256_zextsi128_si256(sm)),
    )
}

/// The two 256-bit halves of `v` added.
#[inline]
#[target_feature(enable = "avx2,avx512f")]
fn half(v: __m512i) -> __m256i {
    _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64::<1>(v))
}

/// [`chunk512`] over `data`; the chunk hashed is `LAG` chunks behind the one
/// encrypted (GCM-SIV decryption hashes its output: 1), the first ones
/// hashing themselves.
///
/// # Safety
/// The CPU must have AVX-512 F, VAES and VPCLMULQDQ.
#[target_feature(enable = "aes,pclmulqdq,avx2,vaes,vpclmulqdq,avx512f")]
unsafe fn wide512<const ROUNDS: usize, const HASH: bool, const LAG: usize>(data: &mut [u8]) -> __m128i {
    let keys = std::hint::black_box(round_keys().map(|k| _mm512_broadcast_i32x4(k)));
    let h: [__m512i; 4] =
        std::hint::black_box(core::array::from_fn(|i| _mm512_set1_epi64(i as i64 * 0x1234_5678 + 1)));
    let hx: [__m512i; 4] = h.map(|x| _mm512_xor_si512(x, _mm512_shuffle_epi32::<0x4e>(x)));
    let h16 = std::hint::black_box(_mm_set_epi64x(0x0f0e_0d0c, 0x0b0a_0908));
    let mut ctr = _mm512_setr_epi32(0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0);
    let mut s = _mm_setzero_si128();
    let base = data.as_mut_ptr();
    for c in 0..data.len() / 256 {
        let dst = base.wrapping_add(256 * c);
        let src = if c >= LAG { dst.wrapping_sub(256 * LAG) } else { dst }.cast_const();
        // SAFETY: both chunks inside `data`; the caller's features.
        s = unsafe { chunk512::<ROUNDS, HASH>(&keys, &mut ctr, dst, src, s, &h, &hx, h16) };
    }
    s
}

/// A pass over a buffer (a multiple of 256 bytes).
pub(crate) type Pass = Box<dyn Fn(&mut [u8])>;

/// The pipelined CTR + POLYVAL limit loop on the registers our backend's
/// open uses from 1 KiB, and which registers those are; `None` on the
/// portable backend.
pub(crate) fn pipelined_limit(key_bits: usize) -> Option<(Pass, &'static str)> {
    let aes128 = key_bits == 128;
    // The width our backend runs, not merely what the CPU has (Ice Lake keeps
    // to 256 bits, and so does a capped build).
    let zmm = crate::backend().register_bits() >= 512;
    // SAFETY (all three): the backend in use proves the features of its loop
    // (`aesni-vaes`: AVX2, VAES, VPCLMULQDQ, and AVX-512 where `zmm`).
    let pass: (Pass, &str) = match crate::backend() {
        gcmsiv::Backend::AesNiVaes if zmm => (
            Box::new(move |d| {
                std::hint::black_box(unsafe {
                    if aes128 { wide512::<10, true, 1>(d) } else { wide512::<14, true, 1>(d) }
                });
            }),
            "512-bit",
        ),
        gcmsiv::Backend::AesNiVaes => (
            Box::new(move |d| {
                std::hint::black_box(unsafe { wide::<true, true>(if aes128 { 10 } else { 14 }, d) });
            }),
            "256-bit",
        ),
        gcmsiv::Backend::AesNiClmul => (
            Box::new(move |d| {
                std::hint::black_box(unsafe { ctr_polyval_pipelined(if aes128 { 10 } else { 14 }, d) });
            }),
            "128-bit",
        ),
        _ => return None,
    };
    Some(pass)
}

/// The rows for 512-bit VAES and VPCLMULQDQ, where the CPU has AVX-512 and
/// the measured backend may use it.
fn print_512(data: &mut [u8], line: &dyn Fn(&str, f64)) {
    if crate::backend().register_bits() < 512
        || !(std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("vaes")
            && std::arch::is_x86_feature_detected!("vpclmulqdq"))
    {
        return;
    }
    type Loop = unsafe fn(&mut [u8]) -> __m128i;
    let rows: [(&str, Loop); 7] = [
        ("AES-128 x16, VAES (4 x 512-bit)", wide512::<10, false, 0>),
        ("AES-256 x16, VAES (4 x 512-bit)", wide512::<14, false, 0>),
        ("POLYVAL x16, VPCLMULQDQ (4 x 512-bit Karatsuba)", wide512::<0, true, 0>),
        ("CTR + POLYVAL interleaved, AES-128, 512-bit", wide512::<10, true, 0>),
        ("CTR + POLYVAL interleaved, AES-256, 512-bit", wide512::<14, true, 0>),
        ("CTR + POLYVAL pipelined (previous chunk hashed), AES-128, 512-bit", wide512::<10, true, 1>),
        ("CTR + POLYVAL pipelined (previous chunk hashed), AES-256, 512-bit", wide512::<14, true, 1>),
    ];
    for (name, f) in rows {
        line(
            name,
            cpb(|| {
                // SAFETY: feature presence checked above.
                std::hint::black_box(unsafe { f(data) });
            }),
        );
    }
}

/// The rows for 256-bit VAES and VPCLMULQDQ, where the CPU has them and the
/// measured backend may use them.
fn print_wide(data: &mut [u8], line: &dyn Fn(&str, f64)) {
    if crate::backend().register_bits() < 256
        || !(std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("vaes")
            && std::arch::is_x86_feature_detected!("vpclmulqdq"))
    {
        return;
    }
    for (name, rounds) in [("AES-128", 10), ("AES-256", 14)] {
        // SAFETY: feature presence checked above.
        line(
            &format!("{name} x8, VAES (4 x 256-bit)"),
            cpb(|| {
                std::hint::black_box(unsafe { wide::<false, false>(rounds, data) });
            }),
        );
    }
    // SAFETY: as above.
    line(
        "POLYVAL x8, VPCLMULQDQ (4 x 256-bit Karatsuba)",
        cpb(|| {
            std::hint::black_box(unsafe { polyval_wide(data) });
        }),
    );
    for (name, rounds) in [("AES-128", 10), ("AES-256", 14)] {
        // SAFETY: as above.
        line(
            &format!("CTR + POLYVAL interleaved, {name}, 256-bit"),
            cpb(|| {
                std::hint::black_box(unsafe { wide::<true, false>(rounds, data) });
            }),
        );
    }
    for (name, rounds) in [("AES-128", 10), ("AES-256", 14)] {
        // SAFETY: as above.
        line(
            &format!("CTR + POLYVAL pipelined (previous chunk hashed), {name}, 256-bit"),
            cpb(|| {
                std::hint::black_box(unsafe { wide::<true, true>(rounds, data) });
            }),
        );
    }
}

pub fn print(ghz: f64) {
    if !(std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("pclmulqdq")) {
        return;
    }
    let mut data = vec![0u8; BYTES];
    println!("\n## Limits of this CPU (16 KiB, c/B; GB/s at {ghz:.2} GHz)");
    println!("| kernel | c/B | GB/s |\n|---|---|---|");
    let line = |name: &str, c: f64| println!("| {name} | {c:.3} | {:.2} |", ghz / c);
    // SAFETY: feature presence checked above.
    line("AES-128 x8 (CTR keystream)", cpb(|| unsafe { aes_x8(10, &mut data) }));
    // SAFETY: as above.
    line("AES-256 x8 (CTR keystream)", cpb(|| unsafe { aes_x8(14, &mut data) }));
    let mut p =
        gcmsiv::hazmat::Polyval::with_backend(&[7; 16], crate::backend()).expect("an available backend");
    line("POLYVAL, ours (hazmat: the widest pass our backend runs)", cpb(|| p.update_padded(&data)));
    std::hint::black_box(p.finalize());
    // SAFETY: as above.
    line(
        "CTR + POLYVAL interleaved, AES-128",
        cpb(|| {
            std::hint::black_box(unsafe { ctr_polyval(10, &mut data) });
        }),
    );
    // SAFETY: as above.
    line(
        "CTR + POLYVAL interleaved, AES-256",
        cpb(|| {
            std::hint::black_box(unsafe { ctr_polyval(14, &mut data) });
        }),
    );
    // SAFETY: as above.
    line(
        "CTR + POLYVAL pipelined (previous chunk hashed), AES-128",
        cpb(|| {
            std::hint::black_box(unsafe { ctr_polyval_pipelined(10, &mut data) });
        }),
    );
    // SAFETY: as above.
    line(
        "CTR + POLYVAL pipelined (previous chunk hashed), AES-256",
        cpb(|| {
            std::hint::black_box(unsafe { ctr_polyval_pipelined(14, &mut data) });
        }),
    );
    print_wide(&mut data, &line);
    print_512(&mut data, &line);
    // Iterations of 8 aesenc + 4 pclmulqdq, per byte of the 128 bytes such an
    // iteration would cover, beside 4 pclmulqdq alone: equal if the units
    // overlap. The last line shows what 8 XORs beside them cost.
    let iterations = BYTES / 128;
    // SAFETY: as above.
    line(
        "4 pclmulqdq per 128 B, registers only",
        cpb(|| {
            std::hint::black_box(unsafe { units_together::<false, 0>(iterations) });
        }),
    );
    // SAFETY: as above.
    line(
        "8 aesenc + 4 pclmulqdq per 128 B, registers only",
        cpb(|| {
            std::hint::black_box(unsafe { units_together::<true, 0>(iterations) });
        }),
    );
    // SAFETY: as above.
    line(
        "the same + 8 pxor",
        cpb(|| {
            std::hint::black_box(unsafe { units_together::<true, 8>(iterations) });
        }),
    );
}
