//! A dudect-style timing test (Reparaz, Balasch, Verbauwhede, "Dude, is my code
//! constant time?", DATE 2017).
//!
//! Each measurement times one call on an input from one of two classes, the
//! class drawn at random per measurement so that both are interleaved and see
//! the same machine state. If the code's timing does not depend on the class,
//! the two timing distributions are the same; Welch's t statistic tells how
//! confidently they differ. As in dudect, the test is repeated on measurements
//! cropped at 100 percentile thresholds (timing noise is one-sided: interrupts
//! and cache misses only add time), plus a second-order test on the squared
//! centred times, and the largest |t| is reported. Statistics are kept online
//! (Welford's mean and variance), so memory does not grow with the run.

use crate::common::{Cipher, GcmCipher, Rng, backends, leaky_tag_eq};
use gcmsiv::{Aes128Gcm, Aes128GcmSiv, Aes256Gcm, Aes256GcmSiv, Backend, BatchItem};
use std::hint::black_box;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// |t| above this is the usual "suspicious" bound (dudect, TVLA).
pub const T_SUSPICIOUS: f64 = 4.5;
/// |t| above this: definitely not constant time (dudect's bound). Fails the run.
pub const T_LEAK: f64 = 10.0;

/// Crop thresholds, as in dudect.
const PERCENTILES: usize = 100;
/// Measurements per batch: inputs are prepared for a whole batch, then timed.
const BATCH: usize = 10_000;
/// The first measurements of every batch are dropped (dudect drops 10).
const DISCARD_PER_BATCH: usize = 10;
/// A test counts towards the maximum only once it has this many samples (dudect).
const ENOUGH_SAMPLES: f64 = 10_000.0;

/// Options of `ctcheck dudect`.
pub struct Options {
    /// Time budget of each test, shared by the backends it runs on.
    pub seconds: f64,
    /// Run only the deliberately leaky comparison.
    pub self_test_leak: bool,
    /// AES key size for all tests (AES-GCM-SIV, AES-GCM, batches): 128 or 256.
    pub key_bits: u32,
    /// Also fail on test (a), whose classes differ in the public outcome.
    pub strict: bool,
}

#[cfg(target_arch = "x86_64")]
const UNIT: &str = "cycles";
#[cfg(not(target_arch = "x86_64"))]
const UNIT: &str = "ns";

/// The time stamp counter, fenced so that the timed code can neither start
/// before the first read nor still be running at the second.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn now() -> u64 {
    use core::arch::x86_64::{_mm_lfence, _rdtsc};
    // SAFETY: LFENCE (SSE2) and RDTSC are part of the x86-64 baseline; neither
    // touches memory. (Newer compilers treat these intrinsics as safe; the block
    // keeps older supported compilers happy.)
    #[allow(unused_unsafe)]
    unsafe {
        _mm_lfence();
        let t = _rdtsc();
        _mm_lfence();
        t
    }
}

/// Elsewhere: nanoseconds from the monotonic clock (coarse, but portable).
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn now() -> u64 {
    static START: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// Welch's t-test between class 0 and class 1, with online mean and variance.
#[derive(Clone, Copy, Default)]
struct Welch {
    n: [f64; 2],
    mean: [f64; 2],
    m2: [f64; 2],
}

impl Welch {
    fn push(&mut self, x: f64, class: usize) {
        self.n[class] += 1.0;
        let delta = x - self.mean[class];
        self.mean[class] += delta / self.n[class];
        self.m2[class] += delta * (x - self.mean[class]);
    }

    fn samples(&self) -> f64 {
        self.n[0] + self.n[1]
    }

    fn t(&self) -> f64 {
        if self.n[0] < 2.0 || self.n[1] < 2.0 {
            return 0.0;
        }
        let var0 = self.m2[0] / (self.n[0] - 1.0);
        let var1 = self.m2[1] / (self.n[1] - 1.0);
        let den = (var0 / self.n[0] + var1 / self.n[1]).sqrt();
        if den == 0.0 { 0.0 } else { (self.mean[0] - self.mean[1]) / den }
    }
}

/// dudect's battery: one uncropped test, one per crop threshold, one second-order.
struct Battery {
    /// Crop thresholds, from the percentile batch.
    thresholds: [u64; PERCENTILES],
    /// `[0]`: all samples; `[1..=PERCENTILES]`: samples below `thresholds[i-1]`;
    /// `[PERCENTILES + 1]`: second order (squared distance to the class mean).
    tests: Vec<Welch>,
    /// Per-class median of the percentile batch, for the report.
    medians: [u64; 2],
}

impl Battery {
    fn new(times: &[u64], classes: &[u8]) -> Self {
        let mut sorted = times.to_vec();
        sorted.sort_unstable();
        let percentile = |q: f64| sorted[((q * sorted.len() as f64) as usize).min(sorted.len() - 1)];
        let thresholds = std::array::from_fn(|i| {
            percentile(1.0 - 0.5f64.powf(10.0 * (i + 1) as f64 / PERCENTILES as f64))
        });
        let medians = [0u8, 1].map(|c| {
            let mut v: Vec<u64> =
                times.iter().zip(classes).filter(|&(_, &k)| k == c).map(|(&t, _)| t).collect();
            v.sort_unstable();
            v.get(v.len() / 2).copied().unwrap_or(0)
        });
        Battery { thresholds, tests: vec![Welch::default(); PERCENTILES + 2], medians }
    }

    fn update(&mut self, times: &[u64], classes: &[u8]) {
        for (&t, &class) in times.iter().zip(classes).skip(DISCARD_PER_BATCH) {
            let class = usize::from(class);
            let x = t as f64;
            self.tests[0].push(x, class);
            for (test, &threshold) in self.tests[1..=PERCENTILES].iter_mut().zip(&self.thresholds) {
                if t < threshold {
                    test.push(x, class);
                }
            }
            if self.tests[0].samples() > ENOUGH_SAMPLES {
                let centred = x - self.tests[0].mean[class];
                self.tests[PERCENTILES + 1].push(centred * centred, class);
            }
        }
    }

    /// The test with the largest |t| among those with enough samples.
    fn worst(&self) -> (usize, f64) {
        self.tests
            .iter()
            .enumerate()
            .filter(|(_, w)| w.samples() > ENOUGH_SAMPLES)
            .map(|(i, w)| (i, w.t()))
            .fold((0, 0.0), |best, cur| if cur.1.abs() > best.1.abs() { cur } else { best })
    }

    fn describe(&self, index: usize) -> String {
        let n = self.tests[index].samples();
        match index {
            0 => format!("uncropped, n={n}"),
            i if i <= PERCENTILES => format!("crop {i} (< {} {UNIT}), n={n}", self.thresholds[i - 1]),
            _ => format!("2nd order, n={n}"),
        }
    }
}

/// The result of one test on one backend.
struct Report {
    test: String,
    backend: &'static str,
    samples: f64,
    max_t: f64,
    at: String,
    /// The effect size in the test with the largest |t|: class 0 minus class 1,
    /// of the mean ("dmean"), or for the 2nd-order test of the standard
    /// deviation ("dsd").
    delta: String,
    medians: [u64; 2],
    seconds: f64,
    /// Whether a leak here fails the run.
    gating: bool,
}

/// Times `op` on inputs made by `make` (given the class, 0 or 1) for about
/// `budget`: a warm-up batch (dropped), a batch that sets the crop thresholds
/// (dropped, as in dudect), then measured batches.
fn measure<I>(
    budget: Duration,
    rng: &mut Rng,
    mut make: impl FnMut(&mut Rng, usize) -> I,
    mut op: impl FnMut(&mut I),
) -> (Battery, f64) {
    let start = Instant::now();
    let mut classes = vec![0u8; BATCH];
    let mut inputs: Vec<I> = Vec::with_capacity(BATCH);
    let mut times = vec![0u64; BATCH];
    let mut battery: Option<Battery> = None;
    let mut batches = 0usize;
    loop {
        inputs.clear();
        for class in classes.iter_mut() {
            *class = (rng.next_u64() & 1) as u8;
            inputs.push(make(rng, usize::from(*class)));
        }
        for (input, time) in inputs.iter_mut().zip(times.iter_mut()) {
            let t0 = now();
            op(input);
            let t1 = now();
            *time = t1.wrapping_sub(t0);
        }
        batches += 1;
        if batches == 1 {
            continue; // warm-up: caches, branch predictors, clock frequency
        }
        let Some(b) = battery.as_mut() else {
            battery = Some(Battery::new(&times, &classes));
            continue;
        };
        b.update(&times, &classes);
        // Stop when the budget is spent, but not before the uncropped test counts.
        if start.elapsed() >= budget && b.tests[0].samples() > ENOUGH_SAMPLES {
            return (battery.unwrap(), start.elapsed().as_secs_f64());
        }
    }
}

fn report(test: &str, backend: &'static str, gating: bool, (battery, seconds): (Battery, f64)) -> Report {
    let (index, max_t) = battery.worst();
    let worst = &battery.tests[index];
    Report {
        test: test.to_string(),
        backend,
        samples: battery.tests[0].samples(),
        max_t,
        at: battery.describe(index),
        delta: if index == PERCENTILES + 1 {
            format!("dsd {:>+6.1}", worst.mean[0].sqrt() - worst.mean[1].sqrt())
        } else {
            format!("dmean {:>+6.1}", worst.mean[0] - worst.mean[1])
        },
        medians: battery.medians,
        seconds,
        gating,
    }
}

/// (a) Decryption with a valid vs an invalid (random) tag; empty plaintext, 32
/// bytes of associated data: the work differs only in the tag check and in
/// what follows from its (public) outcome: `Ok` vs putting back the (empty)
/// ciphertext, which derives the record keys again, and returning `Err`.
fn valid_vs_invalid_tag<C: Cipher>(backend: Backend, budget: Duration, rng: &mut Rng) -> (Battery, f64) {
    open_empty_message::<C>(backend, budget, rng, true)
}

/// (a') The control for (a): the same decryption with a fixed invalid tag vs
/// random invalid tags. Same outcome in both classes, so any difference would
/// come from the tag's value.
fn fixed_vs_random_invalid_tag<C: Cipher>(
    backend: Backend,
    budget: Duration,
    rng: &mut Rng,
) -> (Battery, f64) {
    open_empty_message::<C>(backend, budget, rng, false)
}

fn open_empty_message<C: Cipher>(
    backend: Backend,
    budget: Duration,
    rng: &mut Rng,
    valid_class: bool,
) -> (Battery, f64) {
    let cipher = C::with_backend(&random_vec(rng, C::KEY_LEN), backend).expect("backend is available");
    let nonce: [u8; 12] = rng.bytes();
    let aad: [u8; 32] = rng.bytes();
    let valid = cipher.seal(&nonce, &aad, &mut []).expect("empty message seals");
    assert!(cipher.open(&nonce, &aad, &mut [], &valid).is_ok());
    let fixed = if valid_class {
        valid
    } else {
        let mut bad = valid;
        bad[0] ^= 1;
        bad
    };
    measure(
        budget,
        rng,
        |rng, class| if class == 0 { fixed } else { rng.bytes::<16>() },
        |tag| {
            let _ = black_box(cipher.open(
                black_box(&nonce),
                black_box(&aad),
                black_box(&mut []),
                black_box(tag),
            ));
        },
    )
}

/// (b) Decryption of an `N`-byte message (64; 2048 in (g), through the bulk
/// passes) with invalid tags that differ from the right one in the first
/// byte vs in the last byte: an early-exit comparison would be faster for the
/// first class.
fn first_vs_last_byte<C: Cipher, const N: usize>(
    backend: Backend,
    budget: Duration,
    rng: &mut Rng,
) -> (Battery, f64) {
    let cipher = C::with_backend(&random_vec(rng, C::KEY_LEN), backend).expect("backend is available");
    let nonce: [u8; 12] = rng.bytes();
    let mut ciphertext: [u8; N] = rng.bytes();
    let tag = cipher.seal(&nonce, &[], &mut ciphertext).expect("seal");
    measure(
        budget,
        rng,
        |rng, class| {
            let mut bad = tag;
            bad[if class == 0 { 0 } else { 15 }] ^= rng.nonzero_byte();
            (ciphertext, bad)
        },
        |(buffer, bad)| {
            let _ =
                black_box(cipher.open(black_box(&nonce), black_box(&[]), black_box(buffer), black_box(bad)));
        },
    )
}

/// (c) Encryption of `N` bytes (64; 2048 in (h), through the bulk passes): a
/// fixed (all-zero) plaintext vs random ones, dudect's classic
/// fix-vs-random test.
fn fixed_vs_random_plaintext<C: Cipher, const N: usize>(
    backend: Backend,
    budget: Duration,
    rng: &mut Rng,
) -> (Battery, f64) {
    let cipher = C::with_backend(&random_vec(rng, C::KEY_LEN), backend).expect("backend is available");
    let nonce: [u8; 12] = rng.bytes();
    measure(
        budget,
        rng,
        |rng, class| if class == 0 { [0u8; N] } else { rng.bytes::<N>() },
        |buffer| {
            let _ = black_box(cipher.seal(black_box(&nonce), black_box(&[]), black_box(buffer)));
        },
    )
}

/// (d) AES-GCM's (b): decryption of a 64-byte message (12-byte IV, 16-byte
/// tags) with invalid tags wrong in the first vs the last byte.
fn gcm_first_vs_last_byte<G: GcmCipher>(backend: Backend, budget: Duration, rng: &mut Rng) -> (Battery, f64) {
    let cipher = G::with_backend(&random_vec(rng, G::KEY_LEN), 16, backend).expect("backend is available");
    let nonce: [u8; 12] = rng.bytes();
    let mut ciphertext: [u8; 64] = rng.bytes();
    let tag: [u8; 16] =
        cipher.seal(&nonce, &[], &mut ciphertext).expect("seal").as_bytes().try_into().expect("16-byte tag");
    measure(
        budget,
        rng,
        |rng, class| {
            let mut bad = tag;
            bad[if class == 0 { 0 } else { 15 }] ^= rng.nonzero_byte();
            (ciphertext, bad)
        },
        |(buffer, bad)| {
            let _ = black_box(cipher.open(
                black_box(&nonce),
                black_box(&[]),
                black_box(buffer),
                black_box(&bad[..]),
            ));
        },
    )
}

/// (e) AES-GCM's (c): encryption of 64 bytes, all-zero vs random plaintexts.
fn gcm_fixed_vs_random_plaintext<G: GcmCipher>(
    backend: Backend,
    budget: Duration,
    rng: &mut Rng,
) -> (Battery, f64) {
    let cipher = G::with_backend(&random_vec(rng, G::KEY_LEN), 16, backend).expect("backend is available");
    let nonce: [u8; 12] = rng.bytes();
    measure(
        budget,
        rng,
        |rng, class| if class == 0 { [0u8; 64] } else { rng.bytes::<64>() },
        |buffer| {
            let _ = black_box(cipher.seal(black_box(&nonce), black_box(&[]), black_box(buffer)));
        },
    )
}

/// GCM's hash key H = AES_K(0) for `key`, computed with the registry's
/// `aes`, not with the code under test.
fn gcm_hash_key(key: &[u8]) -> [u8; 16] {
    use aes::cipher::{BlockCipherEncrypt, KeyInit};
    let mut h = [0u8; 16];
    if key.len() == 16 {
        aes::Aes128::new_from_slice(key).expect("16-byte key").encrypt_block((&mut h).into());
    } else {
        aes::Aes256::new_from_slice(key).expect("32-byte key").encrypt_block((&mut h).into());
    }
    h
}

/// J0 for a 16-byte GCM IV under hash key `h` (SP 800-38D: GHASH of the IV
/// padded and its bit length), computed with the registry's `ghash`.
fn gcm_j0(h: &[u8; 16], iv: &[u8; 16]) -> [u8; 16] {
    use ghash::universal_hash::UniversalHash;
    let mut g = ghash::GHash::new(&(*h).into());
    g.update_padded(iv);
    let mut lengths = [0u8; 16];
    lengths[8..].copy_from_slice(&128u64.to_be_bytes());
    g.update_padded(&lengths);
    g.finalize().into()
}

/// (i) AES-GCM's seal of 8 KiB with 16-byte IVs (so J0 = GHASH(IV) under the
/// secret key, and the counter is secret), classes split by the first data
/// counter's lowest byte: a multiple of 16 or not. A pass that branched on
/// the counter's value to skip byte reversals (a shortcut that is fine for a
/// 96-bit IV, whose counter is public) takes different paths for the two
/// classes; one that does not, times the same.
fn gcm_secret_counter<G: GcmCipher>(backend: Backend, budget: Duration, rng: &mut Rng) -> (Battery, f64) {
    let key = random_vec(rng, G::KEY_LEN);
    let cipher = G::with_backend(&key, 16, backend).expect("backend is available");
    let h = gcm_hash_key(&key);
    let mut buffer = vec![0u8; 8192];
    measure(
        budget,
        rng,
        |rng, class| loop {
            let iv: [u8; 16] = rng.bytes();
            let first = gcm_j0(&h, &iv)[15].wrapping_add(1);
            if first.is_multiple_of(16) == (class == 0) {
                return iv;
            }
        },
        |iv| {
            let _ = black_box(cipher.seal(black_box(&iv[..]), black_box(&[]), black_box(&mut buffer)));
        },
    )
}

/// Items in the batch test: one group of the batch code's four lanes.
const BATCH_ITEMS: usize = 4;
/// The item whose tag is wrong in the batch test.
const BATCH_BAD_ITEM: usize = 1;

/// (f) An AES-GCM-SIV batch of four 32-byte messages (the interleaved path),
/// one of them (item 1) with a tag wrong in the first vs the last byte, the
/// others valid: the outcome (three `Ok`, one `Err`) is the same in both
/// classes.
fn batch_first_vs_last_byte<C: Cipher>(backend: Backend, budget: Duration, rng: &mut Rng) -> (Battery, f64) {
    let cipher = C::with_backend(&random_vec(rng, C::KEY_LEN), backend).expect("backend is available");
    let nonces: [[u8; 12]; BATCH_ITEMS] = std::array::from_fn(|_| rng.bytes());
    let mut ciphertexts: [[u8; 32]; BATCH_ITEMS] = std::array::from_fn(|_| rng.bytes());
    let tags: [[u8; 16]; BATCH_ITEMS] =
        std::array::from_fn(|i| cipher.seal(&nonces[i], &[], &mut ciphertexts[i]).expect("seal"));
    measure(
        budget,
        rng,
        |rng, class| {
            let mut bad = tags;
            bad[BATCH_BAD_ITEM][if class == 0 { 0 } else { 15 }] ^= rng.nonzero_byte();
            (ciphertexts, bad)
        },
        |(buffers, bad)| {
            let mut items: [BatchItem<'_>; BATCH_ITEMS] = {
                let mut buffers = buffers.iter_mut();
                std::array::from_fn(|i| {
                    let buffer = buffers.next().expect("one buffer per item");
                    BatchItem::with_tag(&nonces[i], &[], buffer, bad[i])
                })
            };
            let mut results = [Ok(()); BATCH_ITEMS];
            let _ = black_box(cipher.open_batch(black_box(&mut items), black_box(&mut results)));
            black_box(&results);
        },
    )
}

/// `--self-test-leak`: an early-exit tag comparison, tags differing from the
/// expected one in the first vs the last byte.
fn leaky_comparison(budget: Duration, rng: &mut Rng) -> (Battery, f64) {
    let expected: [u8; 16] = rng.bytes();
    measure(
        budget,
        rng,
        |rng, class| {
            let mut bad = expected;
            bad[if class == 0 { 0 } else { 15 }] ^= rng.nonzero_byte();
            bad
        },
        |tag| {
            black_box(leaky_tag_eq(black_box(&expected), black_box(tag)));
        },
    )
}

fn random_vec(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill(&mut v);
    v
}

type Test = fn(Backend, Duration, &mut Rng) -> (Battery, f64);

/// The tests for one key size, AES-GCM-SIV (`C`) then AES-GCM (`G`) then
/// AES-GCM-SIV batches: name, function, and whether the classes differ in the
/// public outcome (valid vs invalid), which makes a timing difference expected
/// rather than a leak.
fn tests<C: Cipher, G: GcmCipher>() -> [(String, Test, bool); 10] {
    [
        ("(a)  open 0 B + 32 B AAD: valid vs invalid tag".into(), valid_vs_invalid_tag::<C>, true),
        ("(a') open 0 B + 32 B AAD: fixed vs random bad tag".into(), fixed_vs_random_invalid_tag::<C>, false),
        ("(b)  open 64 B: bad tag byte 0 vs byte 15".into(), first_vs_last_byte::<C, 64>, false),
        ("(c)  seal 64 B: fixed vs random plaintext".into(), fixed_vs_random_plaintext::<C, 64>, false),
        ("(d)  GCM open 64 B: bad tag byte 0 vs byte 15".into(), gcm_first_vs_last_byte::<G>, false),
        ("(e)  GCM seal 64 B: fixed vs random plaintext".into(), gcm_fixed_vs_random_plaintext::<G>, false),
        ("(f)  batch open 4 x 32 B: bad tag byte 0 vs 15".into(), batch_first_vs_last_byte::<C>, false),
        ("(g)  open 2 KiB: bad tag byte 0 vs byte 15".into(), first_vs_last_byte::<C, 2048>, false),
        ("(h)  seal 2 KiB: fixed vs random plaintext".into(), fixed_vs_random_plaintext::<C, 2048>, false),
        (
            "(i)  GCM seal 8 KiB, 16-byte IV: counter byte % 16 == 0 vs not".into(),
            gcm_secret_counter::<G>,
            false,
        ),
    ]
}

/// `ctcheck dudect [--seconds N] [--key-bits 128|256] [--strict] [--self-test-leak]`.
pub fn run(options: &Options) -> ExitCode {
    let mut rng = Rng::from_entropy();
    let budget = options.seconds;
    println!(
        "dudect: Welch's t-test on {UNIT} per call, two classes interleaved at random; max |t| over \
         uncropped, {PERCENTILES} percentile crops and a 2nd-order test (each once it has > {ENOUGH_SAMPLES} \
         samples)."
    );
    println!(
        "dudect: |t| > {T_SUSPICIOUS}: suspicious (the usual bound); |t| > {T_LEAK}: definitely not \
         constant time (fails the run). Budget: {budget} s per test, shared by the backends."
    );
    println!(
        "dudect: dmean = mean {UNIT} of class 0 minus class 1 in the test with the largest |t| (dsd: \
         difference of standard deviations, when that is the 2nd-order test); median = per class."
    );
    let mut reports = Vec::new();
    if options.self_test_leak {
        println!("dudect: self-test: timing a deliberately variable-time (early-exit) tag comparison");
        let r = report(
            "self-test: early-exit compare, byte 0 vs 15",
            "-",
            true,
            leaky_comparison(secs(budget), &mut rng),
        );
        print_report(&r);
        reports.push(r);
    } else {
        let list = match options.key_bits {
            128 => tests::<Aes128GcmSiv, Aes128Gcm>(),
            _ => tests::<Aes256GcmSiv, Aes256Gcm>(),
        };
        let (siv, gcm) = if options.key_bits == 128 {
            (Aes128GcmSiv::NAME, <Aes128Gcm as GcmCipher>::NAME)
        } else {
            (Aes256GcmSiv::NAME, <Aes256Gcm as GcmCipher>::NAME)
        };
        println!(
            "dudect: (a)-(c) {siv}, (d)-(e) {gcm} (12-byte IV, 16-byte tag), (f) {siv} batch, \
             (g)-(h) {siv} through the bulk passes, (i) {gcm} with a secret counter (16-byte IV) \
             (--key-bits selects the key size)"
        );
        let backends = backends();
        let share = secs(budget / backends.len() as f64);
        for (name, test, public_outcome) in &list {
            for &backend in &backends {
                let gating = !public_outcome || options.strict;
                let r = report(name, backend.name(), gating, test(backend, share, &mut rng));
                print_report(&r);
                reports.push(r);
            }
        }
    }

    let leaks: Vec<&Report> = reports.iter().filter(|r| r.max_t.abs() > T_LEAK).collect();
    let failing = leaks.iter().filter(|r| r.gating).count();
    let suspicious =
        reports.iter().filter(|r| r.max_t.abs() > T_SUSPICIOUS && r.max_t.abs() <= T_LEAK).count();
    if leaks.iter().any(|r| !r.gating) {
        println!(
            "dudect: note: (a) compares a valid with an invalid tag, so its classes differ in the result \
             (Ok vs Err, which the caller sees anyway) and in the code that follows it; a difference \
             there reveals nothing the return value does not, and is reported, not failed (--strict \
             fails it too). (a') is its control with the same outcome in both classes."
        );
    }
    if suspicious > 0 {
        println!(
            "dudect: {suspicious} result(s) between {T_SUSPICIOUS} and {T_LEAK}: re-run, or run longer with \
             --seconds, to see whether it persists."
        );
    }
    let worst = reports.iter().filter(|r| r.gating).map(|r| r.max_t.abs()).fold(0.0, f64::max);
    if failing > 0 {
        println!(
            "dudect: FAIL: {failing} result(s) with |t| > {T_LEAK} (max {worst:.2}): timing depends on the class"
        );
        if options.self_test_leak {
            println!("dudect: (expected for --self-test-leak: the test detects the leak)");
        }
        ExitCode::FAILURE
    } else {
        println!("dudect: PASS: max |t| = {worst:.2} <= {T_LEAK} over the tests that gate");
        if options.self_test_leak {
            println!(
                "dudect: (the self-test did not detect its leak this time: timing is noisy; try --seconds 5)"
            );
        }
        ExitCode::SUCCESS
    }
}

fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s.max(0.0))
}

fn print_report(r: &Report) {
    let t = r.max_t.abs();
    let verdict = match (t > T_LEAK, t > T_SUSPICIOUS, r.gating) {
        (true, _, true) => "LEAK",
        (true, _, false) => "differs (public outcome, not failed)",
        (false, true, _) => "suspicious",
        _ => "ok",
    };
    println!(
        "  {:<50} {:<11} samples {:>8}  max|t| {:>7.2}  {}  [{}]  median {}/{}  {:.1} s  {verdict}",
        r.test, r.backend, r.samples, t, r.delta, r.at, r.medians[0], r.medians[1], r.seconds
    );
}

#[cfg(test)]
mod tests {
    use super::{gcm_hash_key, gcm_j0};
    use crate::common::GcmCipher;
    use gcmsiv::{Aes128Gcm, Aes256Gcm, Backend};

    /// The class split of test (i) computes J0 right: the first keystream
    /// block of a 16-byte-IV GCM seal is AES_K(inc32(J0)) (checked against the
    /// portable backend, which the vector files hold to SP 800-38D).
    #[test]
    fn j0_matches_the_cipher() {
        use aes::cipher::{BlockCipherEncrypt, KeyInit};
        for key_len in [16usize, 32] {
            let key: Vec<u8> = (0..key_len as u8).map(|i| i.wrapping_mul(29) ^ 0x5c).collect();
            let h = gcm_hash_key(&key);
            for seed in 0..8u8 {
                let iv: [u8; 16] = core::array::from_fn(|i| (i as u8).wrapping_mul(seed | 1) ^ seed);
                let mut counter = gcm_j0(&h, &iv);
                let low = u32::from_be_bytes(counter[12..].try_into().unwrap()).wrapping_add(1);
                counter[12..].copy_from_slice(&low.to_be_bytes());
                let mut expected = counter;
                if key_len == 16 {
                    aes::Aes128::new_from_slice(&key).unwrap().encrypt_block((&mut expected).into());
                } else {
                    aes::Aes256::new_from_slice(&key).unwrap().encrypt_block((&mut expected).into());
                }
                let mut zeros = [0u8; 16];
                if key_len == 16 {
                    let c = <Aes128Gcm as GcmCipher>::with_backend(&key, 16, Backend::Portable).unwrap();
                    c.seal(&iv, &[], &mut zeros).unwrap();
                } else {
                    let c = <Aes256Gcm as GcmCipher>::with_backend(&key, 16, Backend::Portable).unwrap();
                    c.seal(&iv, &[], &mut zeros).unwrap();
                }
                assert_eq!(zeros, expected, "key {key_len}, seed {seed}");
            }
        }
    }
}
