//! 000 (GCM-SIV, 2015): Table 2 (cycles per message, "Full" and "No
//! Init"), with a decryption row per size and the GHASH reading beside the
//! POLYVAL one; Remark 5.1's GHASH and CTR; Table 1 (c/B, with its
//! multi-message rows); and the sweep of c/B against size the plots draw.

use super::impls::{
    FullOurs, GhashOnly, PolyvalOnly, Rfc8452Batch, StaticCtr, first, openssl_like_backend, seed,
};
use super::{Fig, Report, Sampler, md};
use crate::peers::{self, Impl, Op};
use gcmsiv::research::Variant;
use std::fmt::Write as _;

/// 000's Table 2 sizes.
const SIZES: [usize; 11] = [16, 32, 64, 128, 256, 512, 1024, 1536, 2048, 4096, 8192];

/// 000's Table 2, HSW and BDW cycles: Full two-key, one-key, AES-GCM; No
/// Init GCM-SIV (both variants alike), AES-GCM.
const PAPER: [[(f64, f64); 5]; 11] = [
    [(149., 136.), (297., 241.), (1289., 1263.), (133., 121.), (178., 172.)],
    [(198., 171.), (318., 284.), (1277., 1318.), (178., 153.), (219., 217.)],
    [(322., 281.), (444., 417.), (1292., 1335.), (319., 278.), (236., 238.)],
    [(516., 440.), (645., 568.), (1415., 1371.), (282., 262.), (293., 266.)],
    [(674., 566.), (800., 694.), (1558., 1417.), (426., 401.), (421., 385.)],
    [(966., 796.), (1093., 930.), (1808., 1730.), (722., 626.), (760., 651.)],
    [(1566., 1252.), (1695., 1385.), (2312., 2108.), (1315., 1085.), (1252., 989.)],
    [(2159., 1713.), (2274., 1843.), (2816., 2416.), (1907., 1544.), (1714., 1305.)],
    [(2751., 2171.), (2869., 2300.), (3372., 2842.), (2498., 1996.), (2287., 1765.)],
    [(5118., 4005.), (5244., 4136.), (5332., 4354.), (4867., 3837.), (4296., 3243.)],
    [(9862., 7666.), (9994., 7782.), (9521., 7388.), (9611., 7498.), (8399., 6289.)],
];

fn hb(p: (f64, f64)) -> String {
    format!("{:.0} / {:.0}", p.0, p.1)
}

/// The range of two figures, low first.
fn range(a: f64, b: f64) -> (f64, f64) {
    (a.min(b), a.max(b))
}

/// 000's Table 2 in its layout, ours beside the paper's; then the columns
/// it lacks (the GHASH reading, RFC 8452, our own backend's GCM set-up);
/// then decryption per size.
pub fn table_2(r: &mut Report, sm: Sampler) {
    let like = openssl_like_backend();
    md!(r, "\n## 000 Table 2: seal, AES-128, empty AAD, cycles per message\n");
    md!(
        r,
        "Paper: Haswell / Broadwell (HSW / BDW), Turbo off; AES-GCM is OpenSSL 1.0.2, whose \"Init\" \
         (about 1,100 cycles by the paper) is in \"Full\". Ours: 000 two-key = `gcm-siv-2015-two-key`, \
         one-key = `gcm-siv-2015-one-key` (the authors' code reading, POLYVAL); \"Full\" keys inside \
         every call. Our \"Full\" AES-GCM is keyed on `{like}`, OpenSSL 1.0.2's set-up: the AES key \
         schedule, H = AES_K(0) and H's powers for 8-block GHASH (not its context allocation); the \
         variants and No Init columns run on `{}`.\n",
        crate::backend()
    );
    let mut impls: Vec<Box<dyn Impl>> = vec![
        seed(Variant::GcmSiv2015TwoKey, 32, true, "2k full"),
        seed(Variant::GcmSiv2015OneKey, 16, true, "1k full"),
        Box::new(FullOurs { gcm: true, backend: like, name: "AES-GCM full (1.0.2 set-up)", work: vec![] }),
        seed(Variant::GcmSiv2015TwoKey, 32, false, "2k"),
        seed(Variant::GcmSiv2015OneKey, 16, false, "1k"),
        first(peers::gcm(128)),
        seed(Variant::GcmSiv2015TwoKeyPaper, 32, false, "2k GHASH reading"),
        first(peers::gcm_siv(128)),
        Box::new(FullOurs { gcm: true, backend: crate::backend(), name: "AES-GCM full", work: vec![] }),
        Box::new(FullOurs { gcm: false, backend: crate::backend(), name: "RFC 8452 full", work: vec![] }),
    ];
    let rows: Vec<Vec<Fig>> = SIZES.iter().map(|&s| sm.cycles(&mut impls, Op::Seal, s)).collect();
    md!(
        r,
        "| bytes | Full two keys | paper | Full one key | paper | Full AES-GCM | paper | No Init two keys | No Init one key | paper (both) | No Init AES-GCM | paper |"
    );
    md!(r, "|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (i, c) in rows.iter().enumerate() {
        let p = PAPER[i];
        md!(
            r,
            "| {} | {:.0} | {} | {:.0} | {} | {:.0} | {} | {:.0} | {:.0} | {} | {:.0} | {} |",
            SIZES[i],
            c[0],
            hb(p[0]),
            c[1],
            hb(p[1]),
            c[2],
            hb(p[2]),
            c[3],
            c[4],
            hb(p[3]),
            c[5],
            hb(p[4])
        );
    }
    let last = &rows[SIZES.len() - 1];
    let cpb = |k: usize| last[k].scale(1.0 / 8192.0);
    md!(
        r,
        "| c/B at 8,192 | {:.2} | 1.2 / 0.94 | {:.2} | 1.22 / 0.95 | {:.2} | 1.16 / 0.9 | {:.2} | {:.2} | 1.17 / 0.92 | {:.2} | 1.03 / 0.77 |",
        cpb(0),
        cpb(1),
        cpb(2),
        cpb(3),
        cpb(4),
        cpb(5)
    );

    md!(r, "\nThe columns 000 does not have, same runs (cycles per message; ratios of ours):\n");
    md!(
        r,
        "| bytes | No Init two keys, GHASH reading | GHASH / POLYVAL reading | No Init RFC 8452 | Full AES-GCM on `{}` | Full RFC 8452 |",
        crate::backend()
    );
    md!(r, "|---|---|---|---|---|---|");
    for (i, c) in rows.iter().enumerate() {
        md!(
            r,
            "| {} | {:.0} | {:.2} | {:.0} | {:.0} | {:.0} |",
            SIZES[i],
            c[6],
            c[6] / c[3],
            c[7],
            c[8],
            c[9]
        );
    }

    md!(r, "\nClaims (000 section 5.4 and Table 2):\n");
    r.ratio(
        "000 §5.4",
        "encryption is 14% (HSW) / 19% (BDW) slower than AES-GCM at 8 KiB, no init (two-key / AES-GCM)",
        (1.14, 1.19),
        cpb(3) / cpb(5),
        "our AES-GCM and our GCM-SIV passes are built alike (CTR+GHASH stitched against two passes), where OpenSSL 1.0.2 and the 2015 code were not",
    );
    let fast = rows[0][3].v < rows[0][5].v && rows[1][3].v < rows[1][5].v;
    let ours = format!(
        "{:.0} vs {:.0} at 16 B, {:.0} vs {:.0} at 32 B",
        rows[0][3], rows[0][5], rows[1][3], rows[1][5]
    );
    r.claim(
        "000 §5.4",
        "up to 32 bytes, two-key GCM-SIV is faster even than AES-GCM without Init",
        "133 vs 178 (16 B), 178 vs 219 (32 B) HSW".into(),
        ours,
        super::verdict(fast, "our AES-GCM's short path (one CTR block, one GHASH block, the mask) and our GCM-SIV's (a tag, then CTR from it, in sequence) are not OpenSSL 1.0.2's and the 2015 code's"),
    );
    r.ratio(
        "000 Table 2",
        "No Init at 16 B: two-key GCM-SIV / AES-GCM",
        range(133. / 178., 121. / 172.),
        rows[0][3] / rows[0][5],
        "OpenSSL 1.0.2's AES-GCM paid a fixed per-call cost that our AES-GCM does not",
    );
    r.ratio(
        "000 Table 2",
        "Full at 16 B: AES-GCM (with its set-up) / two-key GCM-SIV",
        range(1289. / 149., 1263. / 136.),
        rows[0][2] / rows[0][0],
        "our set-up of the same content (schedule, H, its powers) is not OpenSSL 1.0.2's ~1,100-cycle Init (its context, dispatch and table), and our two-key GCM-SIV keys its POLYVAL powers per call",
    );
    r.ratio(
        "000 §5.2",
        "one key costs one derivation more than two (Full one-key minus two-key at 16 B, cycles; the derivation alone: 84)",
        (84., 148.),
        rows[0][1] - rows[0][0],
        "these are cycles on another CPU and code: ours expands K0, encrypts two blocks, then expands K2 and makes K1's POLYVAL powers",
    );
    r.ratio(
        "000 §5.4",
        "after Init the one-key and two-key variants cost the same (one-key / two-key at 8 KiB)",
        (1.0, 1.0),
        last[4] / last[3],
        "",
    );
    let anomaly = rows[3][3].v < rows[2][3].v;
    r.claim(
        "000 §5.4",
        "No Init, 128-byte GCM-SIV takes less time than 64-byte (its 8-block GHASH table)",
        "282 vs 319 HSW".into(),
        format!("{:.0} vs {:.0}", rows[3][3], rows[2][3]),
        super::verdict(
            anomaly,
            "our POLYVAL's key powers are made with the key, not per call, so no table is built at 8 blocks",
        ),
    );

    // Decryption, No Init, per size: 000 says it costs what GCM's does.
    let mut opens: Vec<Box<dyn Impl>> = vec![
        seed(Variant::GcmSiv2015TwoKey, 32, false, "2k"),
        seed(Variant::GcmSiv2015TwoKeyPaper, 32, false, "2k GHASH"),
        first(peers::gcm(128)),
        first(peers::gcm_siv(128)),
    ];
    md!(
        r,
        "\nDecryption, No Init, cycles per message (000 gives no figures; section 5.3 says it costs what AES-GCM's does):\n"
    );
    md!(r, "| bytes | two keys | two keys, GHASH reading | AES-GCM | RFC 8452 | two keys / AES-GCM |");
    md!(r, "|---|---|---|---|---|---|");
    let mut open_ratios = vec![];
    for &size in SIZES.iter().chain(&[16384]) {
        let c = sm.cycles(&mut opens, Op::Open, size);
        md!(r, "| {size} | {:.0} | {:.0} | {:.0} | {:.0} | {:.2} |", c[0], c[1], c[2], c[3], c[0] / c[2]);
        if size >= 8192 {
            open_ratios.push(c[0] / c[2]);
        }
    }
    md!(r);
    r.ratio(
        "000 §5.3",
        "decryption costs what AES-GCM decryption costs (two-key / AES-GCM open at 8 KiB)",
        (1.0, 1.0),
        open_ratios[0],
        "our AES-GCM open is one fused GHASH+CTR kernel; the variant's is a stitched pass plus its own set-up",
    );
    r.ratio(
        "000 §5.3",
        "decryption costs what AES-GCM decryption costs (two-key / AES-GCM open at 16 KiB)",
        (1.0, 1.0),
        open_ratios[1],
        "our AES-GCM open is one fused GHASH+CTR kernel; the variant's is a stitched pass plus its own set-up",
    );
}

/// Remark 5.1: GHASH and CTR timed alone at 8 KiB, and their sum against
/// the whole seal.
pub fn remark_5_1(r: &mut Report, sm: Sampler) {
    md!(r, "\n## 000 Remark 5.1 and section 5.2: GHASH, CTR and their sum at 8 KiB, c/B\n");
    md!(
        r,
        "Paper (HSW / BDW): GHASH 0.56 / 0.3 (8-block aggregation), CTR 0.63 / 0.63, predicted seal = \
         GHASH + CTR = 1.19 / 0.93, measured 1.17 / 0.92. Ours: GHASH = our GMAC over the data (AES-GCM's \
         GHASH, and one AES block); POLYVAL = the hash of the authors' code reading; CTR = our static-key \
         CTR; the seal = `gcm-siv-2015-two-key` (POLYVAL) and `gcm-siv-2015-two-key-paper` (GHASH).\n"
    );
    let mut impls: Vec<Box<dyn Impl>> = vec![
        GhashOnly::boxed(),
        PolyvalOnly::boxed(),
        StaticCtr::boxed(16),
        seed(Variant::GcmSiv2015TwoKey, 32, false, "2k"),
        seed(Variant::GcmSiv2015TwoKeyPaper, 32, false, "2k GHASH"),
    ];
    let c = sm.cpb(&mut impls, Op::Seal, 8192);
    md!(r, "| | GHASH | POLYVAL | CTR | hash + CTR | seal, measured | measured / predicted |");
    md!(r, "|---|---|---|---|---|---|---|");
    md!(r, "| paper HSW | 0.56 | - | 0.63 | 1.19 | 1.17 | 0.98 |");
    md!(r, "| paper BDW | 0.3 | - | 0.63 | 0.93 | 0.92 | 0.99 |");
    md!(
        r,
        "| ours, POLYVAL reading | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2} |",
        c[0],
        c[1],
        c[2],
        c[1] + c[2],
        c[3],
        c[3] / (c[1] + c[2])
    );
    md!(
        r,
        "| ours, GHASH reading | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.2} |",
        c[0],
        c[1],
        c[2],
        c[0] + c[2],
        c[4],
        c[4] / (c[0] + c[2])
    );
    md!(r);
    r.ratio(
        "000 Remark 5.1",
        "a long message's seal costs GHASH + CTR (measured / predicted at 8 KiB, POLYVAL reading)",
        (0.98, 0.99),
        c[3] / (c[1] + c[2]),
        "",
    );
    r.ratio(
        "000 §5.2",
        "GHASH costs less than CTR at 8 KiB (GHASH / CTR)",
        (0.3 / 0.63, 0.56 / 0.63),
        c[0] / c[2],
        "",
    );
}

/// 000's Table 1: the modes of Bogdanov et al. as printed (single message
/// and several at once), GCM-SIV as printed, and ours.
pub fn table_1(r: &mut Report, sm: Sampler) {
    const SIZES: [usize; 5] = [128, 256, 512, 1024, 2048];
    md!(r, "\n## 000 Table 1: seal, c/B\n");
    md!(
        r,
        "Paper: Haswell; the other modes are Bogdanov et al.'s AES-NI codes, reprinted by 000 (\"# msgs\": \
         messages processed together). Ours: 000 two-key one message at a time, and RFC 8452 sealing 8 \
         messages in one batch call (c/B over all 8), on `{}`.\n",
        crate::backend()
    );
    md!(r, "| mode | # msgs | 128 | 256 | 512 | 1024 | 2048 |");
    md!(r, "|---|---|---|---|---|---|---|");
    for (mode, msgs, v) in [
        ("McOE-G (paper)", "1", "7.77 | 7.36 | 7.17 | 7.07 | 7.02"),
        ("COPA (paper)", "1", "3.37 | 2.64 | 2.27 | 2.08 | 1.88"),
        ("POET (paper)", "1", "5.30 | 4.93 | 4.75 | 4.68 | 4.62"),
        ("Julius (paper)", "1", "4.18 | 4.69 | 3.24 | 3.08 | 3.03"),
        ("McOE-G (paper)", "7", "1.91 | 1.76 | 1.68 | 1.64 | 1.62"),
        ("COPA (paper)", "15", "1.62 | 1.53 | 1.48 | 1.46 | 1.45"),
        ("POET (paper)", "8", "3.24 | 3.24 | 2.98 | 2.79 | 2.75"),
        ("Julius (paper)", "7", "2.53 | 2.27 | 2.16 | 2.09 | 2.06"),
        ("GCM-SIV (paper, HSW)", "1", "2.20 | 1.66 | 1.41 | 1.28 | 1.22"),
    ] {
        md!(r, "| {mode} | {msgs} | {v} |");
    }
    let mut ours = vec![seed(Variant::GcmSiv2015TwoKey, 32, false, "2k")];
    let single: Vec<Fig> = SIZES.iter().map(|&s| sm.cpb(&mut ours, Op::Seal, s)[0]).collect();
    let mut batch = vec![Rfc8452Batch::boxed(8)];
    let multi: Vec<Fig> =
        SIZES.iter().map(|&s| sm.cpb(&mut batch, Op::Seal, s)[0].scale(1.0 / 8.0)).collect();
    let row = |v: &[Fig]| v.iter().map(|f| format!("{f:.2}")).collect::<Vec<_>>().join(" | ");
    md!(r, "| GCM-SIV 000 two-key (ours) | 1 | {} |", row(&single));
    md!(r, "| RFC 8452 batch (ours) | 8 | {} |", row(&multi));
    md!(r);
    r.ratio(
        "000 Table 1",
        "GCM-SIV's fixed costs amortise: c/B at 128 B / c/B at 2 KiB",
        (2.20 / 1.22, 2.20 / 1.22),
        single[0] / single[4],
        "our short-message kernel makes a 128-byte seal relatively cheaper than the 2015 code's",
    );
}

/// Cycles per byte against message size for the variants, RFC 8452 and
/// AES-GCM, seal: the data of the plot, as a table.
pub fn sweep(r: &mut Report, sm: Sampler) {
    const SIZES: [usize; 11] = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384];
    md!(r, "\n## Seal c/B against message size (the plot's data)\n");
    md!(
        r,
        "AES-128 everywhere (the drafts' keys are H || K, 32 bytes), empty AAD, on `{}`; drawn in the \
         plot beside this report (scripts/seeds.sh).\n",
        crate::backend()
    );
    let named: Vec<(&str, Box<dyn Impl>)> = vec![
        ("000 two-key (POLYVAL)", seed(Variant::GcmSiv2015TwoKey, 32, false, "a")),
        ("000 two-key (GHASH)", seed(Variant::GcmSiv2015TwoKeyPaper, 32, false, "b")),
        ("draft-gueron-00", seed(Variant::DraftGueron00, 32, false, "c")),
        ("draft-irtf-01", seed(Variant::DraftIrtf01, 32, false, "d")),
        ("draft-irtf-02", seed(Variant::DraftIrtf02, 16, false, "e")),
        ("GCM-SIV+", seed(Variant::GcmSivPlus, 32, false, "f")),
        ("RFC 8452", first(peers::gcm_siv(128))),
        ("AES-GCM", first(peers::gcm(128))),
    ];
    let (names, mut impls): (Vec<&str>, Vec<Box<dyn Impl>>) = named.into_iter().unzip();
    md!(r, "| bytes | {} |", names.join(" | "));
    md!(r, "|---|{}", "---|".repeat(names.len()));
    for size in SIZES {
        let c = sm.cpb(&mut impls, Op::Seal, size);
        md!(r, "| {size} | {} |", c.iter().map(|f| format!("{:.2}", f.v)).collect::<Vec<_>>().join(" | "));
        for (name, f) in names.iter().zip(&c) {
            r.points.push((name.to_string(), size, f.v));
        }
    }
}
