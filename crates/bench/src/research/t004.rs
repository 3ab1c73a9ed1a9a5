//! 004 (the CFRG slides of May 2016, draft-irtf-cfrg-gcmsiv-01): its c/B
//! tables at 1-16 KiB for AES-128 and AES-256, seal and open, and its
//! short-message cycles; ours beside them in the same layout.

use super::impls::{first, seed};
use super::{Fig, Report, Sampler, md};
use crate::peers::{self, Op};
use gcmsiv::research::Variant;
use std::fmt::Write as _;

const SIZES: [usize; 5] = [1024, 2048, 4096, 8192, 16384];

/// 004's tables: (key bits, op, [HSW, BDW, SKL] rows at 1-16 KiB).
const PAPER: [(usize, Op, [[f64; 5]; 3]); 4] = [
    (
        128,
        Op::Seal,
        [[1.50, 1.37, 1.30, 1.27, 1.26], [1.16, 1.03, 0.96, 0.93, 0.91], [1.11, 1.02, 0.97, 0.95, 0.94]],
    ),
    (
        128,
        Op::Open,
        [[1.47, 1.30, 1.27, 1.23, 1.22], [1.00, 0.85, 0.81, 0.77, 0.76], [0.83, 0.71, 0.68, 0.65, 0.64]],
    ),
    (
        256,
        Op::Seal,
        [[1.90, 1.71, 1.61, 1.56, 1.54], [1.60, 1.37, 1.26, 1.20, 1.17], [1.53, 1.32, 1.25, 1.22, 1.20]],
    ),
    (
        256,
        Op::Open,
        [[1.98, 1.68, 1.54, 1.49, 1.46], [1.49, 1.20, 1.13, 1.07, 1.04], [1.19, 1.02, 0.96, 0.92, 0.90]],
    ),
];

/// 004's short-message seal cycles: (key bits, [HSW, BDW, SKL] at 16, 32, 64 B).
const SHORT: [(usize, [[f64; 3]; 3]); 2] = [
    (128, [[293., 349., 470.], [249., 292., 379.], [194., 228., 293.]]),
    (256, [[430., 460., 557.], [430., 483., 557.], [316., 350., 422.]]),
];

fn row(v: &[f64]) -> String {
    v.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(" | ")
}

pub fn tables(r: &mut Report, sm: Sampler) {
    md!(r, "\n## 004: AES-GCM-SIV (draft-irtf-01) c/B at 1-16 KiB\n");
    md!(
        r,
        "Paper: the authors' code on Haswell, Broadwell and Skylake. Ours on `{}`: `draft-irtf-01` (static \
         H, record key AES_K(N)), and our RFC 8452 beside it.\n",
        crate::backend()
    );
    // c/B of -01 per table, kept for the claims.
    let mut ours01: Vec<Vec<Fig>> = vec![];
    for (key_bits, op, paper) in PAPER {
        let mut impls = vec![
            seed(Variant::DraftIrtf01, 16 + key_bits / 8, false, "-01"),
            first(peers::gcm_siv(key_bits)),
        ];
        let c: Vec<Vec<Fig>> = SIZES.iter().map(|&s| sm.cpb(&mut impls, op, s)).collect();
        md!(r, "\nAES-{key_bits}, {}:\n", if op == Op::Seal { "encryption" } else { "decryption" });
        md!(r, "| | 1KB | 2KB | 4KB | 8KB | 16KB |");
        md!(r, "|---|---|---|---|---|---|");
        for (cpu, p) in ["HSW", "BDW", "SKL"].iter().zip(paper) {
            md!(r, "| {cpu} (paper) | {} |", row(&p));
        }
        let col = |j: usize| c.iter().map(|x| x[j].v).collect::<Vec<f64>>();
        md!(r, "| draft-irtf-01 (ours) | {} |", row(&col(0)));
        md!(r, "| RFC 8452 (ours) | {} |", row(&col(1)));
        ours01.push(c.iter().map(|x| x[0]).collect());
    }
    md!(r, "\nShort messages, encryption, cycles:\n");
    md!(r, "| key | | 16B | 32B | 64B |");
    md!(r, "|---|---|---|---|---|");
    let mut short_ours = vec![];
    for (key_bits, paper) in SHORT {
        for (cpu, p) in ["HSW", "BDW", "SKL"].iter().zip(paper) {
            md!(r, "| AES-{key_bits} | {cpu} (paper) | {:.0} | {:.0} | {:.0} |", p[0], p[1], p[2]);
        }
        let mut impls = vec![
            seed(Variant::DraftIrtf01, 16 + key_bits / 8, false, "-01"),
            first(peers::gcm_siv(key_bits)),
        ];
        let c: Vec<Vec<Fig>> = [16, 32, 64].iter().map(|&s| sm.cycles(&mut impls, Op::Seal, s)).collect();
        for (j, name) in ["draft-irtf-01 (ours)", "RFC 8452 (ours)"].iter().enumerate() {
            md!(r, "| AES-{key_bits} | {name} | {:.0} | {:.0} | {:.0} |", c[0][j], c[1][j], c[2][j]);
        }
        short_ours.push(c);
    }
    let mut gcm = vec![first(peers::gcm(128)), seed(Variant::DraftIrtf01, 32, false, "-01")];
    let vs_gcm = sm.cpb(&mut gcm, Op::Seal, 8192);
    md!(r);
    r.ratio(
        "004",
        "encryption almost at AES-GCM's speed (draft-irtf-01 / AES-GCM seal at 8 KiB; 000 measured 1.14-1.19)",
        (1.0, 1.19),
        vs_gcm[1] / vs_gcm[0],
        "our AES-GCM is one interleaved wide pass; GCM-SIV needs two",
    );
    let open_seal = ours01[1][4] / ours01[0][4];
    r.claim(
        "004",
        "decryption is cheaper than encryption (AES-128 open / seal at 16 KiB, below 1)",
        "HSW 0.97, BDW 0.84, SKL 0.68".into(),
        format!("{open_seal:.2}"),
        super::verdict(open_seal.v < 1.0, ""),
    );
    r.ratio(
        "004",
        "AES-256 costs about 1.2-1.3x AES-128 (seal at 16 KiB; HSW 1.22, BDW 1.29, SKL 1.28)",
        (1.22, 1.29),
        ours01[2][4] / ours01[0][4],
        "",
    );
    r.ratio(
        "004",
        "a 64-byte AES-128 seal costs 1.5-1.6x a 16-byte one (HSW 1.60, BDW 1.52, SKL 1.51)",
        (1.51, 1.60),
        short_ours[0][2][0] / short_ours[0][0][0],
        "our short kernel runs a 64-byte message in about as many steps as a 16-byte one",
    );
}
