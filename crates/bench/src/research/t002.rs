//! 002 (nonce-based key derivation, 2017): Table 3 (each scheme without
//! and with DeriveKey) and Table 1 (key expansion alone and with a few
//! blocks). Its Table 2 is in `bounds.rs`.

use super::impls::{DeriveOnly, Expand, StaticCtr, first, seed};
use super::keygen::{Keygen, Method};
use super::{Fig, Report, Sampler, md};
use crate::peers::{self, Impl, Op};
use gcmsiv::Backend;
use gcmsiv::research::Variant;
use std::fmt::Write as _;

/// A table row's name, and the two implementations it divides.
type Pair = (&'static str, Box<dyn Impl>, Box<dyn Impl>);

/// 002's Table 3: original c/B, with DeriveKey, and the ratio, per scheme
/// and size.
const PAPER_3: [[(f64, f64, f64); 4]; 3] = [
    [(0.69, 2.04, 2.96), (0.63, 0.71, 1.13), (0.63, 0.65, 1.03), (0.63, 0.64, 1.02)],
    [(2.96, 3.95, 1.34), (0.84, 0.90, 1.07), (0.68, 0.70, 1.02), (0.66, 0.67, 1.01)],
    [(4.53, 5.67, 1.25), (1.25, 1.37, 1.10), (1.01, 1.04, 1.03), (0.97, 0.98, 1.01)],
];

/// Why our DeriveKey overhead differs from the paper's, per scheme.
const BECAUSE_3: [&str; 3] = [
    "our static-key CTR is about five times cheaper per byte than the paper's, so DeriveKey's fixed cost weighs more",
    "our AES-GCM keeps per-key tables (H's powers, wide round keys) that DeriveKey forces per message; OpenSSL 1.0.2k built less",
    "",
];

pub fn table_3(r: &mut Report, sm: Sampler) {
    md!(r, "\n## 002 Table 3: AES-128 seal c/B, without and with DeriveKey\n");
    md!(
        r,
        "Paper: Skylake, Turbo and HT off, OpenSSL 1.0.2k (AES-GCM, CTR) and the authors' code (GCM-SIV+; \
         with DeriveKey = AES-GCM-SIV). Ours on `{}`: CTR = our static-key CTR against `ctr-derive-key`; \
         AES-GCM = ours against `gcm-derive-key-a`; GCM-SIV+ against our RFC 8452.\n",
        crate::backend()
    );
    md!(
        r,
        "| scheme | bytes | original | with DeriveKey | ratio | paper original | paper with DeriveKey | paper ratio |"
    );
    md!(r, "|---|---|---|---|---|---|---|---|");
    let pairs: [Pair; 3] = [
        ("CTR", StaticCtr::boxed(16), seed(Variant::CtrDeriveKey, 16, false, "ctr-dk")),
        ("AES-GCM", first(peers::gcm(128)), seed(Variant::GcmDeriveKeyA, 16, false, "gcm-dk-a")),
        ("GCM-SIV+", seed(Variant::GcmSivPlus, 32, false, "gcm-siv+"), first(peers::gcm_siv(128))),
    ];
    let mut ratios: Vec<Vec<Fig>> = vec![];
    for (k, (name, a, b)) in pairs.into_iter().enumerate() {
        let mut impls = vec![a, b];
        let mut row = vec![];
        for (j, size) in [64, 1024, 4096, 8192].into_iter().enumerate() {
            let c = sm.cpb(&mut impls, Op::Seal, size);
            let p = PAPER_3[k][j];
            md!(
                r,
                "| {name} | {size} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
                c[0],
                c[1],
                c[1] / c[0],
                p.0,
                p.1,
                p.2
            );
            row.push(c[1] / c[0]);
        }
        ratios.push(row);
    }
    md!(r);
    for (k, name) in ["CTR", "AES-GCM", "GCM-SIV+"].iter().enumerate() {
        for (j, size) in [(0, "64 B"), (3, "8 KiB")] {
            let p = PAPER_3[k][j].2;
            let claim = format!("DeriveKey's overhead on {name} at {size} (with / without)");
            r.ratio("002 Table 3", &claim, (p, p), ratios[k][j], BECAUSE_3[k]);
        }
    }
}

/// 002's Table 1: our key expansion (the one every per-nonce key of the
/// crate goes through) alone and followed by 1 to 4 blocks, in cycles, on
/// every backend this CPU has; and the whole DeriveKey.
pub fn table_1(r: &mut Report, sm: Sampler) {
    md!(r, "\n## 002 Table 1: AES key expansion, alone and then x blocks encrypted, cycles per call\n");
    md!(
        r,
        "Paper: Skylake, Turbo and HT off; `aeskeygenassist` expansion against the AES-round-function \
         method, and the latter interleaved with x blocks. Ours: the crate's key schedule (the round \
         function method: `aesenclast` on a broadcast word) expanded, then the blocks encrypted, not \
         interleaved in the code (the core overlaps independent calls). Throughput = independent calls \
         back to back; latency = each key the previous call's output, what one message waits for. \
         DeriveKey (whole) = `ctr-derive-key` sealing 0 bytes: its blocks, K2's expansion, K1's POLYVAL \
         key.\n"
    );
    md!(r, "| key | backend | measure | alone | x = 1 | x = 2 | x = 3 | x = 4 | DeriveKey (whole) |");
    md!(r, "|---|---|---|---|---|---|---|---|---|");
    let paper = [
        "| 128 | paper (SKL) | `aeskeygenassist` 111; round function | 48 | 50 | 58 | 66 | 76 | ~50 + expansion |",
        "| 256 | paper (SKL) | `aeskeygenassist` 146; round function | 80 | 85 | 99 | - | - | ~65 + expansion |",
    ];
    let mut ours_128: Option<Vec<Fig>> = None;
    for (k, key_len) in [16, 32].into_iter().enumerate() {
        md!(r, "{}", paper[k]);
        for backend in Backend::available().into_iter().flatten() {
            for chained in [false, true] {
                let mut impls: Vec<Box<dyn Impl>> = (0..=4)
                    .filter(|&x| x > 0 || !chained)
                    .map(|x| Expand::boxed(backend, key_len, x, chained))
                    .collect();
                if !chained {
                    impls.push(DeriveOnly::boxed(backend, key_len));
                }
                // Size 1: the harness's cycles per byte are cycles per call.
                let c = sm.cpb(&mut impls, Op::Seal, 1);
                let cell = |f: Option<&Fig>| f.map_or("-".to_string(), |f| format!("{f:.0}"));
                let (alone, rest) = if chained { (None, &c[..]) } else { (c.first(), &c[1..]) };
                md!(
                    r,
                    "| {} | {backend} | {} | {} | {} | {} | {} | {} | {} |",
                    key_len * 8,
                    if chained { "latency" } else { "throughput" },
                    cell(alone),
                    cell(rest.first()),
                    cell(rest.get(1)),
                    cell(rest.get(2)),
                    cell(rest.get(3)),
                    cell(rest.get(4)),
                );
                if key_len == 16 && !chained && backend == crate::backend() {
                    ours_128 = Some(c);
                }
            }
        }
    }
    // 002's own three methods, written in the bench as the paper describes
    // them and checked against the crate's AES first.
    super::keygen::check(crate::backend());
    let mut methods: Vec<Vec<Fig>> = vec![];
    for (key_len, xs) in [(16, 4), (32, 2)] {
        let mut impls: Vec<Box<dyn Impl>> = [Method::Assist, Method::RoundFunction]
            .into_iter()
            .filter_map(|m| Keygen::boxed(key_len, m, false, 0))
            .chain((1..=xs).filter_map(|x| Keygen::boxed(key_len, Method::RoundFunction, true, x)))
            .collect();
        if impls.is_empty() {
            continue;
        }
        let c = sm.cpb(&mut impls, Op::Seal, 1);
        let cell = |i: usize| c.get(i).map_or("-".to_string(), |f| format!("{f:.0}"));
        md!(
            r,
            "| {} | 002's methods, in the bench (throughput) | `aeskeygenassist` {}; round function | {} | {} | {} | {} | {} | - |",
            key_len * 8,
            cell(0),
            cell(1),
            cell(2),
            cell(3),
            cell(4),
            cell(5)
        );
        methods.push(c);
    }
    md!(
        r,
        "\nThe rows \"002's methods, in the bench\" time the paper's three ways written alike in the bench \
         (crates/bench/src/research/keygen.rs, checked against the crate's AES on every run): the schedule by \
         `aeskeygenassist`, by the round function, and by the round function with x blocks interleaved, each \
         round key used as soon as it is made. The crate itself has neither the first nor the third.\n"
    );
    md!(
        r,
        "(paper, AES-128 with expansion: 3.15, 1.8, 1.37, 1.19 c/B for 1 to 4 blocks: x-block cells / 16x)\n"
    );
    if let [m128, m256] = &methods[..] {
        r.ratio(
            "002 Table 1",
            "`aeskeygenassist` takes 2.3 times the round function's cycles to expand an AES-128 key",
            (111. / 48., 111. / 48.),
            m128[0] / m128[1],
            "",
        );
        r.ratio(
            "002 Table 1",
            "`aeskeygenassist` takes 1.8 times the round function's cycles to expand an AES-256 key",
            (146. / 80., 146. / 80.),
            m256[0] / m256[1],
            "",
        );
        r.ratio(
            "002 Table 1",
            "an AES-128 expansion interleaved with four blocks costs 1.6 times the expansion alone",
            (76. / 48., 76. / 48.),
            m128[5] / m128[1],
            "",
        );
    }
    if let Some(c) = ours_128 {
        r.ratio(
            "002 Table 1",
            "each block after the expansion adds little: AES-128 expansion + 4 blocks / expansion alone (throughput)",
            (76. / 48., 76. / 48.),
            c[4] / c[0],
            "",
        );
        r.ratio(
            "002 §4",
            "DeriveKey costs about one key expansion and four blocks (AES-128: ~50 cycles + the expansion; whole / expansion + 4 blocks)",
            ((50. + 48.) / 76., (50. + 48.) / 76.),
            c[5] / c[4],
            "",
        );
    }
}
