//! What a message costs besides its bytes, and what that means for the goal
//! "open within 5% of the limit loop at 8 KiB and above".
//!
//! - Dependent chains, timed for latency rather than throughput: one AES
//!   block (the record-key derivation is such a chain), one key expansion
//!   (each key the previous one's last round key), one POLYVAL step (product
//!   and reduction, each step's input the previous step's output).
//! - A line fitted to the fastest calls of ours and of aws-lc-rs at 8-24 KiB:
//!   its intercept is what each message costs besides its bytes, its slope
//!   what each byte costs. The open harness's copy (ciphertext into the
//!   buffer, `peers::CopyOnly`) is fitted too and taken out of the opens.
//! - The 5% budget at 8, 16 and 24 KiB (5% of the pipelined limit loop's
//!   cycles for that many bytes) beside a serial-latency estimate of what an open pays
//!   on top of the loop: the record key must be derived and expanded before
//!   any keystream block can take its last round, and the verdict waits for
//!   the last block's POLYVAL step; the limit loop pays none of these. It is
//!   an estimate, not a proven bound: the chains are timed one at a time,
//!   and back-to-back calls may overlap one call's derivation with the end of
//!   the one before. Where our open runs below the loop (`aesni-clmul`), the
//!   loop is no limit.

use crate::limits;
use crate::peers::{self, Impl, Op};
use core::arch::x86_64::*;

/// Sizes of the fitted line: where an open runs one 512-bit pass with
/// broadcast round keys (from 8 KiB, `KEYS512_FROM` in the library) and
/// takes a misaligned buffer's first block apart (from 8 KiB as well,
/// `ALIGN_FROM`), so that every point takes the same code path.
const FIT_SIZES: [usize; 5] = [8192, 12288, 16384, 20480, 24576];

/// Samples per size and implementation; each the mean of `CALLS` calls.
const SAMPLES: usize = 301;
const CALLS: usize = 8;

/// Least-squares line through the points: (intercept, slope).
fn fit(xs: &[f64], ys: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let slope = sxy / sxx;
    (my - slope * mx, slope)
}

/// The fewest TSC cycles per call of each implementation at `size`: the
/// smallest mean of `CALLS` calls over `SAMPLES` samples, the implementations
/// taking turns sample by sample. The fastest calls are the ones the host's
/// noise left alone, which is what a fixed cost should be read from.
fn fastest(impls: &mut [Box<dyn Impl>], op: Op, size: usize) -> Vec<f64> {
    let mut best = vec![f64::MAX; impls.len()];
    for imp in impls.iter_mut() {
        imp.prepare(op, size);
        imp.run(op);
    }
    for _ in 0..SAMPLES {
        for (imp, b) in impls.iter_mut().zip(best.iter_mut()) {
            let t = crate::tsc();
            for _ in 0..CALLS {
                imp.run(op);
            }
            *b = b.min((crate::tsc() - t) as f64 / CALLS as f64);
        }
    }
    best
}

/// Fewest TSC cycles per iteration of `f` (which runs `n` dependent steps).
fn per_step(n: usize, mut f: impl FnMut() -> __m128i) -> f64 {
    (0..41)
        .map(|_| {
            let t = crate::tsc();
            std::hint::black_box(f());
            (crate::tsc() - t) as f64 / n as f64
        })
        .fold(f64::MAX, f64::min)
}

/// `n` AES encryptions, each of the previous one's output.
///
/// # Safety
/// The CPU must have AES-NI.
#[target_feature(enable = "aes,sse2")]
unsafe fn aes_chain(rounds: usize, n: usize) -> __m128i {
    let keys = limits::round_keys();
    let mut x = _mm_setzero_si128();
    for _ in 0..n {
        x = _mm_xor_si128(x, keys[0]);
        for k in &keys[1..rounds] {
            x = _mm_aesenc_si128(x, *k);
        }
        x = _mm_aesenclast_si128(x, keys[rounds]);
    }
    x
}

/// w0 ^ w1 ^ ... in each 32-bit word of `x` (FIPS 197's running XOR).
#[inline]
#[target_feature(enable = "sse2")]
fn prefix(x: __m128i) -> __m128i {
    let x = _mm_xor_si128(x, _mm_slli_si128::<4>(x));
    _mm_xor_si128(x, _mm_slli_si128::<8>(x))
}

/// One AES-128 key-schedule step (RotWord, SubWord, Rcon from the
/// `aeskeygenassist` of the previous round key).
#[inline]
#[target_feature(enable = "aes,sse2")]
fn step128<const RCON: i32>(k: __m128i) -> __m128i {
    _mm_xor_si128(prefix(k), _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<RCON>(k)))
}

/// `n` AES-128 key expansions, each of the previous one's last round key.
///
/// # Safety
/// The CPU must have AES-NI.
#[target_feature(enable = "aes,sse2")]
unsafe fn expansion128_chain(n: usize) -> __m128i {
    let mut k = limits::round_keys()[1];
    for _ in 0..n {
        k = step128::<0x01>(k);
        k = step128::<0x02>(k);
        k = step128::<0x04>(k);
        k = step128::<0x08>(k);
        k = step128::<0x10>(k);
        k = step128::<0x20>(k);
        k = step128::<0x40>(k);
        k = step128::<0x80>(k);
        k = step128::<0x1b>(k);
        k = step128::<0x36>(k);
    }
    k
}

/// The AES-256 schedule's two kinds of step: round key `a` (two before) run
/// through the XOR and `b` (the one before) through SubWord(RotWord) with
/// Rcon, or SubWord alone.
#[inline]
#[target_feature(enable = "aes,sse2")]
fn step256<const RCON: i32>(a: __m128i, b: __m128i) -> __m128i {
    _mm_xor_si128(prefix(a), _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<RCON>(b)))
}
#[inline]
#[target_feature(enable = "aes,sse2")]
fn step256_sub(a: __m128i, b: __m128i) -> __m128i {
    _mm_xor_si128(prefix(a), _mm_shuffle_epi32::<0xaa>(_mm_aeskeygenassist_si128::<0>(b)))
}

/// `n` AES-256 key expansions (round keys 2..14), each of the previous one's
/// last two round keys.
///
/// # Safety
/// The CPU must have AES-NI.
#[target_feature(enable = "aes,sse2")]
unsafe fn expansion256_chain(n: usize) -> __m128i {
    let keys = limits::round_keys();
    let (mut a, mut b) = (keys[1], keys[2]);
    for _ in 0..n {
        a = step256::<0x01>(a, b);
        b = step256_sub(b, a);
        a = step256::<0x02>(a, b);
        b = step256_sub(b, a);
        a = step256::<0x04>(a, b);
        b = step256_sub(b, a);
        a = step256::<0x08>(a, b);
        b = step256_sub(b, a);
        a = step256::<0x10>(a, b);
        b = step256_sub(b, a);
        a = step256::<0x20>(a, b);
        b = step256_sub(b, a);
        a = step256::<0x40>(a, b);
        // (a, b) = (round key 14, round key 13): the next expansion starts
        // from (13, 14), in the schedule's order.
        core::mem::swap(&mut a, &mut b);
    }
    _mm_xor_si128(a, b)
}

/// `n` POLYVAL steps S = (S ^ X) * H * x^-128, Karatsuba and the two-fold
/// reduction, each on the previous step's output.
///
/// # Safety
/// The CPU must have PCLMULQDQ.
#[target_feature(enable = "pclmulqdq,sse2")]
unsafe fn polyval_chain(n: usize) -> __m128i {
    let keys = limits::round_keys();
    let (h, x) = (keys[3], keys[4]);
    let hx = _mm_xor_si128(h, _mm_shuffle_epi32::<0x4e>(h));
    let poly = _mm_set_epi64x(0, 0xc200_0000_0000_0000u64 as i64);
    let mut s = _mm_setzero_si128();
    for _ in 0..n {
        let a = _mm_xor_si128(s, x);
        let lo = _mm_clmulepi64_si128::<0x00>(a, h);
        let hi = _mm_clmulepi64_si128::<0x11>(a, h);
        let ax = _mm_xor_si128(a, _mm_shuffle_epi32::<0x4e>(a));
        let mid = _mm_xor_si128(_mm_clmulepi64_si128::<0x00>(ax, hx), _mm_xor_si128(lo, hi));
        let mut lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(mid));
        let hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(mid));
        for _ in 0..2 {
            lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), _mm_clmulepi64_si128::<0x00>(lo, poly));
        }
        s = _mm_xor_si128(hi, lo);
    }
    s
}

pub fn print() {
    if !(std::arch::is_x86_feature_detected!("aes") && std::arch::is_x86_feature_detected!("pclmulqdq")) {
        return;
    }
    const N: usize = 1000;
    // SAFETY (all five): feature presence checked above.
    let chains = [
        ("AES-128 block (whitening, 10 rounds)", per_step(N, || unsafe { aes_chain(10, N) })),
        ("AES-256 block (whitening, 14 rounds)", per_step(N, || unsafe { aes_chain(14, N) })),
        ("AES-128 key expansion (10 steps)", per_step(N, || unsafe { expansion128_chain(N) })),
        ("AES-256 key expansion (13 steps)", per_step(N, || unsafe { expansion256_chain(N) })),
        ("POLYVAL step (Karatsuba product, two-fold reduction)", per_step(N, || unsafe { polyval_chain(N) })),
    ];
    println!("\n## Fixed cost per message");
    println!("\nDependent chains (latency: each step waits for the one before), TSC cycles:\n");
    println!("| chain | cycles |\n|---|---|");
    for (name, c) in &chains {
        println!("| {name} | {c:.1} |");
    }

    println!(
        "\nLines fitted to the fastest calls (mean of {CALLS} calls, best of {SAMPLES}) at {} bytes:",
        FIT_SIZES.map(|s| s.to_string()).join(", ")
    );
    println!("TSC cycles per message besides its bytes, and per byte (opens net of the harness copy).\n");
    println!(
        "| key | op | gcmsiv fixed | gcmsiv c/B | aws-lc-rs fixed | aws-lc-rs c/B |\n|---|---|---|---|---|---|"
    );
    let xs = FIT_SIZES.map(|s| s as f64);
    let mut budget = Vec::new();
    for key_bits in [128, 256] {
        for op in [Op::Seal, Op::Open] {
            let mut impls = peers::gcm_siv(key_bits);
            impls.truncate(2);
            let limit = match op {
                Op::Open => limits::pipelined_limit(key_bits),
                Op::Seal => None,
            };
            let limit_name = limit.as_ref().map(|l| l.1);
            if op == Op::Open {
                impls.push(Box::new(peers::CopyOnly::default()));
                if let Some((pass, _)) = limit {
                    impls.push(Box::new(LimitLoop { pass, data: Vec::new(), size: 0 }));
                }
            }
            let mut ys = vec![Vec::new(); impls.len()];
            for size in FIT_SIZES {
                for (y, c) in ys.iter_mut().zip(fastest(&mut impls, op, size)) {
                    y.push(c);
                }
            }
            if op == Op::Open {
                // Ours and aws-lc-rs net of the copy, size by size.
                let copy = ys[2].clone();
                for y in &mut ys[..2] {
                    for (c, k) in y.iter_mut().zip(&copy) {
                        *c -= k;
                    }
                }
            }
            let (ours, aws) = (fit(&xs, &ys[0]), fit(&xs, &ys[1]));
            println!(
                "| AES-{key_bits} | {op:?} | {:.0} | {:.4} | {:.0} | {:.4} |",
                ours.0, ours.1, aws.0, aws.1
            );
            if let (Some(name), Some(limit)) = (limit_name, ys.get(3)) {
                for (i, &bytes) in
                    FIT_SIZES.iter().enumerate().filter(|(_, b)| [8192, 16384, 24576].contains(*b))
                {
                    budget.push((key_bits, bytes, name, limit[i], ys[0][i]));
                }
            }
        }
    }

    if budget.is_empty() {
        return;
    }
    println!("\nThe goal's 5% from 8 KiB, against the floor (TSC cycles; the same fastest calls).");
    println!("Floor: derivation (one AES block) + key expansion + one POLYVAL step, the chains above:");
    println!("a serial-latency estimate of what an open pays on top of the loop, not a proven bound.\n");
    println!("| key | bytes | limit loop | 5% of it | floor | ours less copy | ours over the limit |");
    println!("|---|---|---|---|---|---|---|");
    for (key_bits, bytes, name, limit, ours) in budget {
        let floor =
            if key_bits == 128 { chains[0].1 + chains[2].1 } else { chains[1].1 + chains[3].1 } + chains[4].1;
        println!(
            "| AES-{key_bits} | {bytes} | {limit:.0} ({name}) | {:.0} | {floor:.0} | {ours:.0} | {:.0} ({:+.1}%) |",
            0.05 * limit,
            ours - limit,
            100.0 * (ours - limit) / limit
        );
    }
}

/// The pipelined limit loop as an implementation to time beside the others
/// (it opens nothing: one pass over a buffer of the size, 64-byte aligned:
/// its best case, so that the loop stays a limit; PERFORMANCE-HISTORY.md,
/// `crates/bench`).
struct LimitLoop {
    pass: limits::Pass,
    data: Vec<u8>,
    size: usize,
}

impl Impl for LimitLoop {
    fn name(&self) -> &'static str {
        "limit loop"
    }
    fn prepare(&mut self, _op: Op, size: usize) {
        self.data = vec![0x5a; size + 64];
        self.size = size;
    }
    fn run(&mut self, _op: Op) {
        let skip = self.data.as_ptr().align_offset(64);
        (self.pass)(&mut self.data[skip..skip + self.size]);
    }
}
