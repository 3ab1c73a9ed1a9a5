//! The seed papers' tables measured on our code (`--only research`), with
//! the papers' values and CPUs beside ours; ratios are ours against ours,
//! never our cycles against theirs. And 002's Table 2 recomputed
//! (`--only bounds`). The variants are `gcmsiv::research`'s.

use crate::peers::{self, Impl, Op};
use gcmsiv::Backend;
use gcmsiv::research::{AesParts, SeedCipher, Variant, bounds};

const NONCE16: [u8; 16] = [7; 16];
const NONCE12: [u8; 12] = [7; 12];

/// One variant, keyed once ("No Init") or keyed inside every call ("Full").
struct Seed {
    variant: Variant,
    key: Vec<u8>,
    cipher: SeedCipher,
    full: bool,
    work: Vec<u8>,
    sealed: Vec<u8>,
    opening: Vec<u8>,
    name: &'static str,
}

fn seed(variant: Variant, key_len: usize, full: bool, name: &'static str) -> Box<dyn Impl> {
    let key = vec![0x42; key_len];
    let cipher = SeedCipher::with_backend(variant, &key, crate::backend()).unwrap();
    Box::new(Seed { variant, key, cipher, full, work: vec![], sealed: vec![], opening: vec![], name })
}

impl Seed {
    fn nonce(&self) -> &'static [u8] {
        if self.variant.nonce_len() == 12 { &NONCE12 } else { &NONCE16 }
    }
}

impl Impl for Seed {
    fn name(&self) -> &'static str {
        self.name
    }
    fn prepare(&mut self, _op: Op, size: usize) {
        self.work = vec![0x5a; size];
        self.sealed = self.cipher.seal(self.nonce(), b"", &self.work).unwrap();
        self.opening = self.sealed.clone();
    }
    fn run(&mut self, op: Op) {
        let fresh;
        let c = if self.full {
            fresh = SeedCipher::with_backend(self.variant, &self.key, crate::backend()).unwrap();
            &fresh
        } else {
            &self.cipher
        };
        let tag_len = self.variant.tag_len();
        let nonce = self.nonce();
        match op {
            Op::Seal => {
                std::hint::black_box(c.seal_in_place_detached(nonce, b"", &mut self.work).unwrap());
            }
            Op::Open => {
                self.opening.copy_from_slice(&self.sealed);
                let (ct, tag) = self.opening.split_at_mut(self.sealed.len() - tag_len);
                assert!(c.open_in_place_detached(nonce, b"", ct, tag).is_ok());
            }
        }
    }
}

/// Our AES-GCM or RFC 8452 keyed inside every call (000's "Full").
struct FullOurs {
    gcm: bool,
    key_bits: usize,
    work: Vec<u8>,
}

impl Impl for FullOurs {
    fn name(&self) -> &'static str {
        if self.gcm { "AES-GCM full" } else { "RFC 8452 full" }
    }
    fn prepare(&mut self, _op: Op, size: usize) {
        self.work = vec![0x5a; size];
    }
    fn run(&mut self, _op: Op) {
        let key = [0x42u8; 16];
        assert_eq!(self.key_bits, 128);
        if self.gcm {
            let c = gcmsiv::Aes128Gcm::with_backend(&key, 16, crate::backend()).unwrap();
            std::hint::black_box(c.encrypt_in_place_detached(&NONCE12, b"", &mut self.work).unwrap());
        } else {
            let c = gcmsiv::Aes128GcmSiv::with_backend(&key, crate::backend())
                .unwrap()
                .with_parallel_threshold(None);
            std::hint::black_box(c.encrypt_in_place_detached(&NONCE12, b"", &mut self.work).unwrap());
        }
    }
}

fn first(mut v: Vec<Box<dyn Impl>>) -> Box<dyn Impl> {
    v.truncate(1);
    v.pop().unwrap()
}

/// One figure of a table: our usual median or, with `--paper-method`, 000's
/// minimum average with the median of the same runs beside it (printed
/// "min (median)"). Ratios divide the first figures.
#[derive(Clone, Copy)]
struct Fig {
    v: f64,
    median: Option<f64>,
}

impl Fig {
    fn scale(self, k: f64) -> Fig {
        self.map(|x| x * k)
    }
    fn map(self, f: impl Fn(f64) -> f64) -> Fig {
        Fig { v: f(self.v), median: self.median.map(f) }
    }
}

/// A ratio of two figures: of the minima, and of the medians.
impl std::ops::Div for Fig {
    type Output = Fig;
    fn div(self, other: Fig) -> Fig {
        Fig { v: self.v / other.v, median: self.median.zip(other.median).map(|(a, b)| a / b) }
    }
}

impl std::ops::Add for Fig {
    type Output = Fig;
    fn add(self, other: Fig) -> Fig {
        Fig { v: self.v + other.v, median: self.median.zip(other.median).map(|(a, b)| a + b) }
    }
}

impl std::fmt::Display for Fig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = f.precision().unwrap_or(2);
        write!(f, "{:.p$}", self.v)?;
        if let Some(m) = self.median {
            write!(f, " ({m:.p$})")?;
        }
        Ok(())
    }
}

/// How the tables sample: rounds of our harness, or 000's method.
#[derive(Clone, Copy)]
struct Sampler {
    rounds: usize,
    paper: bool,
}

impl Sampler {
    /// Cycles per byte of each implementation.
    fn cpb(self, impls: &mut [Box<dyn Impl>], op: Op, size: usize) -> Vec<Fig> {
        if self.paper {
            crate::measure_paper(impls, op, size)
                .into_iter()
                .map(|(v, m)| Fig { v, median: Some(m) })
                .collect()
        } else {
            crate::measure(impls, op, size, self.rounds)
                .into_iter()
                .map(|v| Fig { v, median: None })
                .collect()
        }
    }

    /// Cycles per message (c/B times size) of each implementation.
    fn cycles(self, impls: &mut [Box<dyn Impl>], op: Op, size: usize) -> Vec<Fig> {
        self.cpb(impls, op, size).into_iter().map(|c| c.scale(size as f64)).collect()
    }
}

/// 000's Table 2 (HSW / BDW, OpenSSL 1.0.2 AES-GCM), cycles per message.
const T2_SIZES: [usize; 11] = [16, 32, 64, 128, 256, 512, 1024, 1536, 2048, 4096, 8192];
const T2_PAPER: [(&str, &str, &str, &str); 11] = [
    ("149/136", "297/241", "1289/1263", "133/121; GCM 178/172"),
    ("198/171", "318/284", "1277/1318", "178/153; GCM 219/217"),
    ("322/281", "444/417", "1292/1335", "319/278; GCM 236/238"),
    ("516/440", "645/568", "1415/1371", "282/262; GCM 293/266"),
    ("674/566", "800/694", "1558/1417", "426/401; GCM 421/385"),
    ("966/796", "1093/930", "1808/1730", "722/626; GCM 760/651"),
    ("1566/1252", "1695/1385", "2312/2108", "1315/1085; GCM 1252/989"),
    ("2159/1713", "2274/1843", "2816/2416", "1907/1544; GCM 1714/1305"),
    ("2751/2171", "2869/2300", "3372/2842", "2498/1996; GCM 2287/1765"),
    ("5118/4005", "5244/4136", "5332/4354", "4867/3837; GCM 4296/3243"),
    ("9862/7666", "9994/7782", "9521/7388", "9611/7498; GCM 8399/6289"),
];

fn table_000_2(sm: Sampler) {
    println!("\n## 000 Table 2: seal, AES-128, empty AAD, cycles per message (ours: {})", crate::backend());
    println!("# 000 two-key = gcm-siv-2015-two-key, one-key = gcm-siv-2015-one-key (authors' code reading)");
    println!(
        "# paper: Haswell / Broadwell, OpenSSL 1.0.2 AES-GCM; \"Full\" includes key set-up, \"No Init\" does not"
    );
    println!(
        "| bytes | full 2-key | full 1-key | full AES-GCM | full RFC 8452 | no-init 2-key | no-init 1-key | no-init AES-GCM | no-init RFC 8452 | paper full 2k/1k/GCM (HSW/BDW) | paper no-init SIV / GCM |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let mut impls: Vec<Box<dyn Impl>> = vec![
        seed(Variant::GcmSiv2015TwoKey, 32, true, "2k full"),
        seed(Variant::GcmSiv2015OneKey, 16, true, "1k full"),
        Box::new(FullOurs { gcm: true, key_bits: 128, work: vec![] }),
        Box::new(FullOurs { gcm: false, key_bits: 128, work: vec![] }),
        seed(Variant::GcmSiv2015TwoKey, 32, false, "2k"),
        seed(Variant::GcmSiv2015OneKey, 16, false, "1k"),
        first(peers::gcm(128)),
        first(peers::gcm_siv(128)),
    ];
    let mut last: Vec<Fig> = vec![];
    for (i, &size) in T2_SIZES.iter().enumerate() {
        let c = sm.cycles(&mut impls, Op::Seal, size);
        let p = T2_PAPER[i];
        let ours: Vec<String> = c.iter().map(|x| format!("{x:.0}")).collect();
        println!("| {size} | {} | {}, {}, {} | {} |", ours.join(" | "), p.0, p.1, p.2, p.3);
        last = c;
    }
    let cpb: Vec<Fig> = last.iter().map(|c| c.scale(1.0 / 8192.0)).collect();
    println!(
        "| c/B at 8192 | {} | paper no-init: SIV 1.17/0.92, GCM 1.03/0.77 |",
        cpb.iter().map(|c| format!("{c:.2}")).collect::<Vec<_>>().join(" | ")
    );
    println!(
        "\nGCM-SIV (000 two-key) / AES-GCM seal at 8 KiB, no init: ours {:.2}; paper 1.14 (HSW), 1.19 (BDW). RFC 8452 / AES-GCM: ours {:.2}",
        cpb[4] / cpb[6],
        cpb[7] / cpb[6]
    );
    // 000: decryption costs what GCM decryption costs.
    let mut opens: Vec<Box<dyn Impl>> =
        vec![seed(Variant::GcmSiv2015TwoKey, 32, false, "2k"), first(peers::gcm(128))];
    print!("000 two-key open / AES-GCM open, no init (paper: \"the same\"):");
    for size in [1024, 8192, 16384] {
        let c = sm.cpb(&mut opens, Op::Open, size);
        print!(" {size} B {:.2};", c[0] / c[1]);
    }
    println!();
}

/// 000's Table 1 (Haswell, c/B): the GCM-SIV row measured, the others reprinted.
fn table_000_1(sm: Sampler) {
    println!("\n## 000 Table 1: seal c/B (paper: Haswell; other modes from Bogdanov et al., reprinted)");
    println!("| mode | 128 | 256 | 512 | 1024 | 2048 |\n|---|---|---|---|---|---|");
    for (mode, v) in [
        ("McOE-G (paper)", "7.77 | 7.36 | 7.17 | 7.07 | 7.02"),
        ("COPA (paper)", "3.37 | 2.64 | 2.27 | 2.08 | 1.88"),
        ("POET (paper)", "5.30 | 4.93 | 4.75 | 4.68 | 4.62"),
        ("Julius (paper)", "4.18 | 4.69 | 3.24 | 3.08 | 3.03"),
        ("GCM-SIV (paper, HSW)", "2.20 | 1.66 | 1.41 | 1.28 | 1.22"),
    ] {
        println!("| {mode} | {v} |");
    }
    let mut ours = vec![seed(Variant::GcmSiv2015TwoKey, 32, false, "2k")];
    print!("| GCM-SIV 000 two-key (ours) |");
    for size in [128, 256, 512, 1024, 2048] {
        print!(" {:.2} |", sm.cpb(&mut ours, Op::Seal, size)[0]);
    }
    println!();
}

/// 004's tables: draft-irtf-01 against RFC 8452, seal and open.
fn table_004(sm: Sampler) {
    let paper = [
        (
            "128 seal",
            "1.50/1.37/1.30/1.27/1.26 HSW; 1.16/1.03/0.96/0.93/0.91 BDW; 1.11/1.02/0.97/0.95/0.94 SKL",
        ),
        (
            "128 open",
            "1.47/1.30/1.27/1.23/1.22 HSW; 1.00/0.85/0.81/0.77/0.76 BDW; 0.83/0.71/0.68/0.65/0.64 SKL",
        ),
        (
            "256 seal",
            "1.90/1.71/1.61/1.56/1.54 HSW; 1.60/1.37/1.26/1.20/1.17 BDW; 1.53/1.32/1.25/1.22/1.20 SKL",
        ),
        (
            "256 open",
            "1.98/1.68/1.54/1.49/1.46 HSW; 1.49/1.20/1.13/1.07/1.04 BDW; 1.19/1.02/0.96/0.92/0.90 SKL",
        ),
    ];
    println!("\n## 004 tables: draft-irtf-01 (static H, record key AES_K(N)) against RFC 8452, c/B");
    println!(
        "| key op | impl | 1 KiB | 2 KiB | 4 KiB | 8 KiB | 16 KiB | paper (004, 1-16 KiB) |\n|---|---|---|---|---|---|---|---|"
    );
    for (i, (key_bits, op)) in
        [(128, Op::Seal), (128, Op::Open), (256, Op::Seal), (256, Op::Open)].into_iter().enumerate()
    {
        let mut impls = vec![
            seed(Variant::DraftIrtf01, 16 + key_bits / 8, false, "-01"),
            first(peers::gcm_siv(key_bits)),
        ];
        let rows: Vec<Vec<Fig>> =
            [1024, 2048, 4096, 8192, 16384].iter().map(|&s| sm.cpb(&mut impls, op, s)).collect();
        for (j, name) in ["draft-irtf-01", "RFC 8452", "ratio -01 / RFC"].iter().enumerate() {
            print!("| {} | {name} |", paper[i].0);
            for r in &rows {
                let v = if j < 2 { r[j] } else { r[0] / r[1] };
                print!(" {v:.2} |");
            }
            println!(" {} |", if j == 0 { paper[i].1 } else { "" });
        }
    }
    println!(
        "\nShort messages, seal, cycles per message (paper 004, AES-128 HSW/BDW/SKL 16 B 293/249/194, 32 B 349/292/228, 64 B 470/379/293; AES-256 430/430/316, 460/483/350, 557/557/422)"
    );
    println!("| key | impl | 16 B | 32 B | 64 B |\n|---|---|---|---|---|");
    for key_bits in [128, 256] {
        let mut impls = vec![
            seed(Variant::DraftIrtf01, 16 + key_bits / 8, false, "-01"),
            first(peers::gcm_siv(key_bits)),
        ];
        let rows: Vec<Vec<Fig>> = [16, 32, 64].iter().map(|&s| sm.cycles(&mut impls, Op::Seal, s)).collect();
        for (j, name) in ["draft-irtf-01", "RFC 8452"].iter().enumerate() {
            println!(
                "| AES-{key_bits} | {name} | {:.0} | {:.0} | {:.0} |",
                rows[0][j], rows[1][j], rows[2][j]
            );
        }
    }
}

/// A table row's name, and the two implementations it divides.
type Pair = (&'static str, Box<dyn Impl>, Box<dyn Impl>);

/// 002's Table 3: each scheme with and without DeriveKey, AES-128 seal c/B.
fn table_002_3(sm: Sampler) {
    println!(
        "\n## 002 Table 3: AES-128 seal c/B, without and with DeriveKey (paper: Skylake, Turbo and HT off, OpenSSL 1.0.2k)"
    );
    println!(
        "| scheme | bytes | original | with DeriveKey | ratio | paper original / with DK (ratio) |\n|---|---|---|---|---|---|"
    );
    let paper = [
        ["0.69 / 2.04 (2.96)", "0.63 / 0.71 (1.13)", "0.63 / 0.65 (1.03)", "0.63 / 0.64 (1.02)"],
        ["2.96 / 3.95 (1.34)", "0.84 / 0.90 (1.07)", "0.68 / 0.70 (1.02)", "0.66 / 0.67 (1.01)"],
        ["4.53 / 5.67 (1.25)", "1.25 / 1.37 (1.10)", "1.01 / 1.04 (1.03)", "0.97 / 0.98 (1.01)"],
    ];
    let pairs: [Pair; 3] = [
        (
            "CTR / ctr-derive-key",
            Box::new(StaticCtr::new(16)),
            seed(Variant::CtrDeriveKey, 16, false, "ctr-dk"),
        ),
        (
            "AES-GCM / gcm-derive-key-a",
            first(peers::gcm(128)),
            seed(Variant::GcmDeriveKeyA, 16, false, "gcm-dk-a"),
        ),
        ("GCM-SIV+ / RFC 8452", seed(Variant::GcmSivPlus, 32, false, "gcm-siv+"), first(peers::gcm_siv(128))),
    ];
    for (k, (name, a, b)) in pairs.into_iter().enumerate() {
        let mut impls = vec![a, b];
        for (j, size) in [64, 1024, 4096, 8192].into_iter().enumerate() {
            let c = sm.cpb(&mut impls, Op::Seal, size);
            println!(
                "| {name} | {size} | {:.2} | {:.2} | {:.2} | {} |",
                c[0],
                c[1],
                c[1] / c[0],
                paper[k][j]
            );
        }
    }
}

/// Our static-key CTR (`AesParts::ctr`): 002's "original" CTR, the counter
/// layout of `ctr-derive-key` under a key expanded once.
struct StaticCtr {
    parts: AesParts,
    work: Vec<u8>,
}

impl StaticCtr {
    fn new(key_len: usize) -> Self {
        StaticCtr {
            parts: AesParts::with_backend(&vec![0x42; key_len], crate::backend()).unwrap(),
            work: vec![],
        }
    }
}

impl Impl for StaticCtr {
    fn name(&self) -> &'static str {
        "CTR"
    }
    fn prepare(&mut self, _op: Op, size: usize) {
        self.work = vec![0x5a; size];
    }
    fn run(&mut self, _op: Op) {
        self.parts.ctr(&NONCE12, &mut self.work).unwrap();
        std::hint::black_box(&mut self.work);
    }
}

/// 002's Table 1 as one call: a key expanded and `blocks` encrypted under
/// it. Chained, each key is the previous call's first ciphertext block (so
/// the calls' latencies add up, one expansion waiting for the last, as a
/// single message's would); otherwise the calls are independent and the
/// core overlaps them (throughput).
struct Expand {
    parts: AesParts,
    key: Vec<u8>,
    blocks: Vec<[u8; 16]>,
    chained: bool,
}

impl Expand {
    fn new(backend: Backend, key_len: usize, blocks: usize, chained: bool) -> Self {
        let parts = AesParts::with_backend(&vec![0x42; key_len], backend).unwrap();
        Expand { parts, key: vec![0x24; key_len], blocks: vec![[0x5a; 16]; blocks], chained }
    }
}

impl Impl for Expand {
    fn name(&self) -> &'static str {
        "key expansion"
    }
    fn prepare(&mut self, _op: Op, _size: usize) {}
    fn run(&mut self, _op: Op) {
        if self.chained {
            let last = self.blocks[0];
            for chunk in self.key.chunks_mut(16) {
                chunk.copy_from_slice(&last);
            }
        }
        for (i, b) in self.blocks.iter_mut().enumerate() {
            *b = [i as u8; 16];
        }
        self.parts.expand_and_encrypt(&self.key, &mut self.blocks).unwrap();
        std::hint::black_box(&mut self.blocks);
    }
}

/// The whole of DeriveKey for one message: `ctr-derive-key` sealing an empty
/// message (the derivation's blocks, K2's expansion, and K1 made into a
/// POLYVAL key, which CTR does not use but the fused derivation makes).
struct DeriveOnly {
    cipher: SeedCipher,
}

impl Impl for DeriveOnly {
    fn name(&self) -> &'static str {
        "DeriveKey"
    }
    fn prepare(&mut self, _op: Op, _size: usize) {}
    fn run(&mut self, _op: Op) {
        std::hint::black_box(self.cipher.seal_in_place_detached(&NONCE12, b"", &mut []).unwrap());
    }
}

/// 002's Table 1: our key expansion (the one every per-nonce key of the
/// crate goes through) alone and followed by 1 to 4 blocks, in cycles, on
/// every backend this CPU has; and the whole DeriveKey.
fn table_002_1(sm: Sampler) {
    println!(
        "\n## 002 Table 1: AES key expansion, alone and then x blocks encrypted, cycles per call (paper: Skylake, Turbo and HT off)"
    );
    println!(
        "# ours: the crate's key schedule expanded, then the blocks encrypted (not interleaved as 002's code); throughput = independent calls back to back, latency = each key the previous call's output"
    );
    println!(
        "| key | backend | measure | alone | x = 1 | x = 2 | x = 3 | x = 4 | DeriveKey (whole) |\n|---|---|---|---|---|---|---|---|---|"
    );
    let paper = [
        "| 128 | paper (SKL) | aeskeygenassist 111; round-function based | 48 | 50 | 58 | 66 | 76 | ~50 + expansion |",
        "| 256 | paper (SKL) | aeskeygenassist 146; round-function based | 80 | 85 | 99 | - | - | ~65 + expansion |",
    ];
    for (k, key_len) in [16, 32].into_iter().enumerate() {
        println!("{}", paper[k]);
        for backend in Backend::available().into_iter().flatten() {
            for chained in [false, true] {
                let mut impls: Vec<Box<dyn Impl>> = (0..=4)
                    .filter(|&x| x > 0 || !chained)
                    .map(|x| Box::new(Expand::new(backend, key_len, x, chained)) as Box<dyn Impl>)
                    .collect();
                if !chained {
                    let cipher =
                        SeedCipher::with_backend(Variant::CtrDeriveKey, &vec![0x42; key_len], backend)
                            .unwrap();
                    impls.push(Box::new(DeriveOnly { cipher }));
                }
                // Size 1: the harness's cycles per byte are cycles per call.
                let c = sm.cpb(&mut impls, Op::Seal, 1);
                let cell = |f: Option<&Fig>| f.map_or("-".to_string(), |f| format!("{f:.0}"));
                let (alone, rest) = if chained { (None, &c[..]) } else { (c.first(), &c[1..]) };
                println!(
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
            }
        }
    }
    println!(
        "(paper, AES-128 with expansion: 3.15, 1.8, 1.37, 1.19 c/B for 1 to 4 blocks; divide our x-block cells by 16x for ours)"
    );
}

/// 001's Table 2 layout: bits per kilocycle at its sizes, and the IPI.
fn table_001(sm: Sampler) {
    const SIZES: [usize; 12] = [16, 20, 40, 44, 64, 128, 256, 552, 576, 1024, 1500, 8192];
    println!(
        "\n## 001 Table 2 layout: seal, bits per kilocycle (8000 / c/B), AES-128; IPI = byte-weighted harmonic mean"
    );
    println!(
        "# paper: 1 GHz Motorola G4, software GCM with 64K/4K/256-byte tables: GCM64K IPI 268, GCM4K 240, GCM256 182"
    );
    println!(
        "# note: 001's Table 1 IPI column does not follow from its stated weights (it matches a 44-byte weight of 0.5); ours uses the stated weights"
    );
    print!("| impl |");
    for s in SIZES {
        print!(" {s} |");
    }
    println!(" IPI |\n|{}", "---|".repeat(SIZES.len() + 2));
    let mut impls = vec![
        first(peers::gcm(128)),
        seed(Variant::GcmSiv2015TwoKey, 32, false, "000"),
        seed(Variant::DraftIrtf01, 32, false, "004"),
        first(peers::gcm_siv(128)),
    ];
    let per_size: Vec<Vec<Fig>> = SIZES.iter().map(|&s| sm.cpb(&mut impls, Op::Seal, s)).collect();
    for (i, name) in ["AES-GCM", "GCM-SIV 000 two-key", "004 (draft-irtf-01)", "RFC 8452"].iter().enumerate()
    {
        print!("| {name} |");
        for row in &per_size {
            print!(" {:.0} |", row[i].map(|c| 8000.0 / c));
        }
        let weighted = crate::IPI_MIX
            .iter()
            .map(|&(s, w)| per_size[SIZES.iter().position(|&x| x == s).unwrap()][i].scale(w))
            .reduce(|a, b| a + b)
            .expect("a mix");
        println!(" {:.0} |", weighted.map(|c| 8000.0 / c));
    }
}

pub fn print(rounds: usize, paper_method: bool) {
    let sm = Sampler { rounds, paper: paper_method };
    if paper_method {
        println!(
            "\n# research tables by 000's method: 30 x (500 warm-up calls, 500 timed), the minimum average; the median of the same 30 in parentheses"
        );
    }
    table_000_2(sm);
    table_000_1(sm);
    table_004(sm);
    table_002_3(sm);
    table_002_1(sm);
    table_001(sm);
}

/// 002's Table 2, as printed and as recomputed from its formulas.
pub fn print_bounds() {
    println!("\n## 002 Table 2: AES-GCM-SIV parameters within 2^-32 (exponents of two)");
    println!(
        "| N | Q_E^i | 2^m | paper N*B^2/2^129 | ours | paper sum Q^2/2^(126-m) | ours | agrees | within 2^-32 (ours) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for row in bounds::TABLE_2 {
        let (key, nonce) = bounds::recompute(&row);
        let q = row.per_nonce.map_or("random IV".to_string(), |q| format!("2^{q}"));
        let show = |v: Option<i32>| v.map_or("-".to_string(), |v| format!("2^{v}"));
        let agrees = key == row.paper_key_term && nonce == row.paper_nonce_term;
        println!(
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
    println!("(random-IV rows: B_max = 2^(m+3), Theorem 6.4 with up to 3 colliding IVs)");
}
