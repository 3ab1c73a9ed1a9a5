//! 001 (GCM, 2004): Table 1 recomputed from its hardware model, Table 2's
//! reference rows as printed, and our AEADs in Table 2's layout (bits per
//! kilocycle at its packet sizes, and the Internet Performance Index).

use super::impls::{first, seed};
use super::{Fig, Report, Sampler, md};
use crate::peers::{self, Op};
use gcmsiv::research::Variant;
use std::fmt::Write as _;

const SIZES: [usize; 12] = [16, 20, 40, 44, 64, 128, 256, 552, 576, 1024, 1500, 8192];

/// 001's Table 1 as printed: bits per clock at SIZES, then the IPI.
const TABLE_1: [(&str, usize, [f64; 13]); 3] = [
    ("GCM", 1, [64.0, 71.1, 91.4, 93.9, 102., 114., 120., 124., 124., 126., 127., 128., 77.7]),
    ("CWC", 11, [10.7, 13.1, 23.7, 25.6, 34.1, 53.9, 75.9, 97.0, 98.0, 109., 115., 125., 35.3]),
    ("OCB", 21, [5.82, 7.19, 13.6, 14.8, 20.5, 35.3, 55.4, 79.6, 80.8, 96.4, 105., 123., 22.8]),
];

/// 001's Table 2 as printed (G4, 1 GHz): bits per kilocycle, then the IPI.
const TABLE_2: [(&str, [f64; 13]); 8] = [
    ("GCM64K", [136., 167., 227., 253., 223., 263., 267., 273., 273., 266., 266., 258., 268.]),
    ("GCM4K", [116., 140., 190., 207., 192., 213., 229., 237., 233., 239., 247., 240., 240.]),
    ("GCM256", [88.4, 107., 148., 160., 177., 162., 171., 183., 184., 181., 183., 182., 182.]),
    ("OCB", [89.5, 85.7, 140., 150., 185., 225., 255., 261., 265., 273., 275., 282., 260.]),
    ("CWC", [45.7, 51.9, 73.4, 75.5, 88.1, 104., 116., 127., 126., 131., 124., 135., 121.]),
    ("EAX", [46.0, 44.9, 73.4, 80.0, 102., 129., 148., 157., 160., 165., 167., 174., 156.]),
    ("CCM", [91.3, 88.9, 123., 133., 142., 171., 163., 168., 168., 174., 172., 175., 168.]),
    ("CBC-HMAC", [6.3, 8.0, 15.2, 16.6, 23.4, 39.0, 64.5, 96.0, 97.0, 117., 129., 156., 88.6]),
];

/// The IPI from throughputs at SIZES: bits over cycles for 001's byte
/// fractions f(1500) = .6, f(576) = .2, f(552) = .15, f(44) = .05, so the
/// f-weighted harmonic mean of the throughputs.
fn ipi(throughput: &[f64]) -> f64 {
    let at = |s: usize| throughput[SIZES.iter().position(|&x| x == s).unwrap()];
    1.0 / crate::IPI_MIX.iter().map(|&(s, w)| w / at(s)).sum::<f64>()
}

fn cells(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:.3}"))
        .map(|s| s.trim_end_matches('0').trim_end_matches('.').to_string())
        .collect::<Vec<_>>()
        .join(" | ")
}

pub fn tables(r: &mut Report, sm: Sampler) {
    let head: String = SIZES.iter().map(|s| format!(" {s} |")).collect();
    md!(r, "\n## 001 Table 1: the hardware model, bits per clock\n");
    md!(
        r,
        "Its model: one AES pipeline of ten stages; an s-byte packet takes C(s) clocks, the blocks plus 1 \
         for GCM, 11 for CWC, 21 for OCB; throughput 8s / C(s). The text counts ceil(s/16) blocks; the \
         printed cells follow s/16 (20 bytes: 160 / 2.25 = 71.1), so both are recomputed. IPI: the \
         stated byte fractions' harmonic mean, 1 / sum f(s) / B(s).\n"
    );
    md!(r, "| mode | |{head} IPI |");
    md!(r, "|---|---|{}", "---|".repeat(SIZES.len() + 1));
    // Largest relative difference from the printed cells: blocks as s/16, and as ceil(s/16).
    let (mut worst_frac, mut worst_ceil) = (0.0f64, 0.0f64);
    let mut ipi_pairs = vec![];
    for (mode, stall, printed) in TABLE_1 {
        let frac: Vec<f64> =
            SIZES.iter().map(|&s| 8.0 * s as f64 / (s as f64 / 16.0 + stall as f64)).collect();
        let ceil: Vec<f64> =
            SIZES.iter().map(|&s| 8.0 * s as f64 / (s.div_ceil(16) + stall) as f64).collect();
        for ((f, c), p) in frac.iter().zip(&ceil).zip(&printed) {
            worst_frac = worst_frac.max((f / p - 1.0).abs());
            worst_ceil = worst_ceil.max((c / p - 1.0).abs());
        }
        ipi_pairs.push((printed[12], ipi(&frac)));
        md!(r, "| {mode} | printed | {} |", cells(&printed));
        md!(r, "| {mode} | s/16 blocks | {} | {} |", cells(&frac), cells(&[ipi(&frac)]));
        md!(r, "| {mode} | ceil(s/16) blocks | {} | {} |", cells(&ceil), cells(&[ipi(&ceil)]));
    }
    md!(r);
    r.claim(
        "001 Table 1",
        "each size's cell follows from the pipeline model (three significant digits)",
        "as printed".into(),
        format!(
            "largest difference {:.2}% with s/16 blocks, {:.1}% with the text's ceil(s/16)",
            worst_frac * 100.0,
            worst_ceil * 100.0
        ),
        super::verdict(worst_frac < 0.006, ""),
    );
    let ipi_ok = ipi_pairs.iter().all(|(p, m)| (m / p - 1.0).abs() < 0.006);
    r.claim(
        "001 Table 1",
        "the IPI column follows from the cells and the stated byte fractions",
        ipi_pairs.iter().map(|p| format!("{:.1}", p.0)).collect::<Vec<_>>().join(", "),
        ipi_pairs.iter().map(|p| format!("{:.1}", p.1)).collect::<Vec<_>>().join(", "),
        super::verdict(
            ipi_ok,
            "the printed IPI is not the stated mix's harmonic mean (Table 2's IPI column is)",
        ),
    );
    md!(r, "\n## 001 Table 2: software, bits per kilocycle\n");
    md!(
        r,
        "Paper: a 1 GHz Motorola G4, AES-128 at 25 c/B; its rows as printed. Ours on `{}`: seal, AES-128, \
         bits per kilocycle = 8000 / (c/B); IPI as above.\n",
        crate::backend()
    );
    md!(r, "| mode |{head} IPI | IPI from the row |");
    md!(r, "|---|{}", "---|".repeat(SIZES.len() + 2));
    let mut worst_ipi = 0.0f64;
    for (mode, v) in TABLE_2 {
        let from_row = ipi(&v[..12]);
        worst_ipi = worst_ipi.max((from_row / v[12] - 1.0).abs());
        md!(r, "| {mode} (paper) | {} | {from_row:.1} |", cells(&v));
    }
    let mut impls = vec![
        first(peers::gcm(128)),
        seed(Variant::GcmSiv2015TwoKey, 32, false, "000"),
        seed(Variant::DraftIrtf01, 32, false, "004"),
        first(peers::gcm_siv(128)),
    ];
    let per_size: Vec<Vec<Fig>> = SIZES.iter().map(|&s| sm.cpb(&mut impls, Op::Seal, s)).collect();
    for (i, name) in ["AES-GCM", "GCM-SIV 000 two-key", "draft-irtf-01", "RFC 8452"].iter().enumerate() {
        let bits: Vec<f64> = per_size.iter().map(|row| 8000.0 / row[i].v).collect();
        let shown: Vec<String> = bits.iter().map(|b| format!("{b:.0}")).collect();
        md!(r, "| {name} (ours) | {} | {:.0} | |", shown.join(" | "), ipi(&bits));
    }
    md!(r);
    r.claim(
        "001 Table 2",
        "each row's IPI follows from its cells and the stated byte fractions",
        "as printed".into(),
        format!("largest difference {:.1}%", worst_ipi * 100.0),
        super::verdict(worst_ipi < 0.02, ""),
    );
}
