//! The bounds: 002's Table 2 recomputed from its formulas beside the
//! printed exponents, and every theorem's whole sum as `gcmsiv::usage`
//! computes it.

use super::{Report, md};
use gcmsiv::research::bounds;
use gcmsiv::usage::{self, Bound, NonceUse, OFFLINE_AES_LOG2, Usage};
use std::fmt::Write as _;

pub fn table_2(r: &mut Report) {
    md!(r, "\n## 002 Table 2: AES-GCM-SIV parameters within 2^-32 (exponents of two)\n");
    md!(
        r,
        "The paper's two dominant terms, N * B_max^2 / 2^129 and sum_i (Q_E^i)^2 / 2^(126 - m), as printed \
         and recomputed with B_max = Q_E^i * 2^m (messages of 2^m blocks, encryption only); random-IV rows \
         with B_max = 2^(m+3) (Theorem 6.4's up to 3 colliding IVs, rounded up).\n"
    );
    md!(
        r,
        "| N | Q_E^i | 2^m | paper N*B^2/2^129 | ours | paper sum Q^2/2^(126-m) | ours | agrees | within 2^-32 (ours) |"
    );
    md!(r, "|---|---|---|---|---|---|---|---|---|");
    let mut agree = 0;
    for row in bounds::TABLE_2 {
        let (key, nonce) = bounds::recompute(&row);
        let q = row.per_nonce.map_or("random IV".to_string(), |q| format!("2^{q}"));
        let show = |v: Option<i32>| v.map_or("-".to_string(), |v| format!("2^{v}"));
        let agrees = key == row.paper_key_term && nonce == row.paper_nonce_term;
        agree += usize::from(agrees);
        md!(
            r,
            "| 2^{} | {q} | 2^{} | 2^{} | 2^{key} | {} | {} | {} | {} |",
            row.nonces,
            row.blocks,
            row.paper_key_term,
            show(row.paper_nonce_term),
            show(nonce),
            if agrees { "yes" } else { "NO" },
            if bounds::within_limit(&row) { "yes" } else { "no" }
        );
    }
    md!(r);
    r.claim(
        "002 Table 2",
        "every row's exponents follow from Theorem 6.2's two dominant terms",
        format!("{} rows", bounds::TABLE_2.len()),
        format!("{agree} of {} agree", bounds::TABLE_2.len()),
        super::verdict(
            agree == bounds::TABLE_2.len(),
            "three rows need Q = 2 or 2^m = 2 where the table prints 1, and (1, 2^31, 2^16) rounds one exponent up",
        ),
    );
}

/// The usages the tables and the plot evaluate: (label, nonce use).
const NONCES: [(&str, NonceUse); 4] = [
    ("random nonces", NonceUse::Random),
    ("a nonce per message", NonceUse::AtMost(1)),
    ("each nonce at most 256 times", NonceUse::AtMost(256)),
    ("one nonce", NonceUse::Single),
];

fn usage(messages_log2: f64, len: u64, nonces: NonceUse) -> Usage {
    Usage { messages: messages_log2.exp2(), len, nonces, forgeries: 0.0 }
}

fn lg(x: f64) -> String {
    if x >= 1.0 {
        "1".into()
    } else if x == 0.0 {
        "0".into()
    } else {
        format!("2^{:.1}", x.log2())
    }
}

/// A byte count as the tables print it.
fn size(len: u64) -> String {
    match len {
        l if l >= 1 << 30 => format!("{} GiB", l >> 30),
        l if l >= 1 << 20 => format!("{} MiB", l >> 20),
        l if l >= 1 << 10 => format!("{} KiB", l >> 10),
        l => format!("{l} B"),
    }
}

/// Every theorem's whole sum, term by term; the advantage against the
/// number of messages beside RFC 8452 section 9's figures; the messages per
/// key for an advantage of 2^-32; and the plot's data.
pub fn full(r: &mut Report) {
    md!(r, "\n## The bounds in full\n");
    md!(
        r,
        "Computed by `gcmsiv::usage` (crates/gcmsiv/src/limits/usage.rs), whose documentation states every \
         assumption: AES an ideal cipher (no AdvPRP_AES term), the attacker's own AES evaluations T_E = \
         2^{}, AES-128's terms (AES-256's are lower), a message of `len` bytes counted as b = ceil(len / \
         16) blocks of plaintext (fewer than 2^m) costing b + 1 AES blocks, forgery attempts none unless \
         said, N counted as the messages when nonces may differ. Advantages are log2 of the bound.\n",
        OFFLINE_AES_LOG2
    );
    md!(r, "### Each theorem's terms: 2^48 messages of 16 KiB\n");
    let len = 16 << 10;
    let cases: Vec<(&str, Bound)> = vec![
        ("RFC 8452, random nonces", usage::rfc8452(&usage(48.0, len, NonceUse::Random))),
        ("RFC 8452, a nonce per message", usage::rfc8452(&usage(48.0, len, NonceUse::AtMost(1)))),
        ("RFC 8452, each nonce 256 times", usage::rfc8452(&usage(48.0, len, NonceUse::AtMost(256)))),
        (
            "RFC 8452, 2^40 forgeries, random nonces",
            usage::rfc8452(&Usage { forgeries: 2f64.powi(40), ..usage(48.0, len, NonceUse::Random) }),
        ),
        (
            "GCM-SIV 2015, two keys (no DeriveKey)",
            usage::gcm_siv_2015(&usage(48.0, len, NonceUse::Random), 2),
        ),
        ("GCM-SIV 2015, three keys", usage::gcm_siv_2015(&usage(48.0, len, NonceUse::Random), 3)),
        ("CTR, unique nonces", usage::ctr(&usage(48.0, len, NonceUse::AtMost(1)), false)),
        ("CTR with DeriveKey, unique nonces", usage::ctr(&usage(48.0, len, NonceUse::AtMost(1)), true)),
        ("CTR, random nonces", usage::ctr(&usage(48.0, len, NonceUse::Random), false)),
        ("CTR with DeriveKey, random nonces", usage::ctr(&usage(48.0, len, NonceUse::Random), true)),
        ("AES-GCM, unique nonces", usage::gcm(&usage(48.0, len, NonceUse::AtMost(1)), false)),
        ("AES-GCM with DeriveKey, unique nonces", usage::gcm(&usage(48.0, len, NonceUse::AtMost(1)), true)),
        ("AES-GCM, random nonces", usage::gcm(&usage(48.0, len, NonceUse::Random), false)),
        ("AES-GCM with DeriveKey, random nonces", usage::gcm(&usage(48.0, len, NonceUse::Random), true)),
    ];
    md!(r, "| scheme | theorem | term | log2 |");
    md!(r, "|---|---|---|---|");
    for (name, b) in &cases {
        for t in b.terms() {
            md!(r, "| {name} | {} | {} | {} |", b.theorem, t.name, lg(t.value));
        }
        md!(r, "| **{name}** | | **sum** | **{}** |", lg(b.advantage()));
    }

    md!(r, "\n### RFC 8452, random nonces: the advantage against the messages, beside section 9\n");
    md!(
        r,
        "RFC 8452 section 9's table of random nonces gives 2^64 messages of 2^13 blocks (128 KiB), 2^48 of \
         2^21 (32 MiB) and 2^32 of 2^29 (8 GiB) within 2^-32; its table of nonces used at most 256 times \
         2^61 of 2^10 blocks (16 KiB), 2^49 of 2^16 (1 MiB), 2^35 of 2^23 (128 MiB), 2^29 of 2^26 (1 GiB).\n"
    );
    let exps = [32.0, 40.0, 48.0, 56.0, 62.0, 64.0];
    md!(
        r,
        "| nonces | bytes | {} | RFC 8452 section 9 |",
        exps.map(|e| format!("2^{e} messages")).join(" | ")
    );
    md!(r, "|---|---|{}---|", "---|".repeat(exps.len()));
    let rfc_rows: [(NonceUse, u64, &str); 7] = [
        (NonceUse::Random, 128 << 10, "2^64 messages"),
        (NonceUse::Random, 32 << 20, "2^48 messages"),
        (NonceUse::Random, 8 << 30, "2^32 messages"),
        (NonceUse::AtMost(256), 16 << 10, "2^61 messages"),
        (NonceUse::AtMost(256), 1 << 20, "2^49 messages"),
        (NonceUse::AtMost(256), 128 << 20, "2^35 messages"),
        (NonceUse::AtMost(256), 1 << 30, "2^29 messages"),
    ];
    for (nonces, len, rfc) in rfc_rows {
        let cells: Vec<String> =
            exps.iter().map(|&e| lg(usage::rfc8452(&usage(e, len, nonces)).advantage())).collect();
        let label = if nonces == NonceUse::Random { "random" } else { "at most 256 per nonce" };
        md!(r, "| {label} | {} | {} | {rfc} |", size(len), cells.join(" | "));
    }

    md!(r, "\n### Messages per key for an advantage of at most 2^-32 (`messages_per_key_log2`)\n");
    let lens: [u64; 9] = [16, 1 << 10, 16 << 10, 64 << 10, 1 << 20, 16 << 20, 128 << 20, 1 << 30, 4 << 30];
    md!(r, "| nonces | {} |", lens.map(size).join(" | "));
    md!(r, "|---|{}", "---|".repeat(lens.len()));
    for (label, nonces) in NONCES {
        let cells: Vec<String> =
            lens.iter().map(|&l| format!("2^{}", usage::messages_per_key_log2(l, nonces))).collect();
        md!(r, "| {label} | {} |", cells.join(" | "));
    }
}

/// The plot's data: log2 of the advantage against log2 of the messages.
pub fn plot_data() -> String {
    let mut csv = String::from("scheme,bytes,messages_log2,advantage_log2\n");
    type Scheme = fn(&Usage) -> Bound;
    let schemes: [(&str, NonceUse, Scheme); 5] = [
        ("RFC 8452, random nonces", NonceUse::Random, usage::rfc8452),
        ("RFC 8452, 256 per nonce", NonceUse::AtMost(256), usage::rfc8452),
        ("GCM-SIV 2015 two keys", NonceUse::Random, |u| usage::gcm_siv_2015(u, 2)),
        ("AES-GCM, random nonces", NonceUse::Random, |u| usage::gcm(u, false)),
        ("AES-GCM + DeriveKey, unique nonces", NonceUse::AtMost(1), |u| usage::gcm(u, true)),
    ];
    for (name, nonces, f) in schemes {
        for len in [1u64 << 10, 16 << 20] {
            for k in 0..=80 {
                let adv = f(&usage(k as f64, len, nonces)).advantage();
                csv.push_str(&format!("\"{name}\",{},{k},{:.3}\n", size(len), adv.log2()));
            }
        }
    }
    csv
}
