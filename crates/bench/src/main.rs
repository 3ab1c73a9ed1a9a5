//! Throughput of gcmsiv against its peers, measured in one process.
//!
//! Every implementation runs the same work in the same round, in rotating
//! order, and each figure is the median over rounds of TSC cycles per byte:
//! noise on a shared machine hits all of them alike, so the ratios hold even
//! when the absolute numbers wander.
//!
//! Run: `cargo run --release -p gcmsiv-bench` (`-- --help` lists the options:
//! `--quick` for a short run; `--only single,limits --sizes 16,1024 --keys 128`
//! to narrow it; `--backend aesni-clmul` measures that backend where a faster
//! one exists; `scripts/bench.sh --max-width 256` measures the 256-bit path
//! on a CPU with AVX-512, exactly as a CPU without it runs).

mod batch;
mod column;
mod fixed;
mod limits;
mod machine;
mod parallel;
mod peers;
mod research;
mod shapes;

use peers::{Impl, Op};

/// The message sizes of the GCM-SIV paper's tables, plus 1 MiB.
const SIZES: &[usize] = &[16, 32, 64, 128, 256, 512, 1024, 1536, 2048, 4096, 8192, 16384, 1 << 20];

/// Internet Performance Index (GCM paper): byte-weighted packet mix.
pub(crate) const IPI_MIX: &[(usize, f64)] = &[(1500, 0.60), (576, 0.20), (552, 0.15), (44, 0.05)];

pub(crate) fn tsc() -> u64 {
    // SAFETY: RDTSC exists on every x86-64 CPU; it reads a counter and touches no memory.
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// TSC ticks per nanosecond, measured against the OS clock.
fn tsc_ghz() -> f64 {
    let t0 = std::time::Instant::now();
    let c0 = tsc();
    while t0.elapsed().as_millis() < 100 {}
    (tsc() - c0) as f64 / t0.elapsed().as_nanos() as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Median cycles per byte of each implementation for `size`-byte messages.
pub(crate) fn measure(impls: &mut [Box<dyn Impl>], op: Op, size: usize, rounds: usize) -> Vec<f64> {
    // About 40 us of work per sample keeps the TSC reads' cost negligible.
    let iters = (40_000 / (size + 200)).max(1);
    let mut samples = vec![Vec::with_capacity(rounds); impls.len()];
    for imp in impls.iter_mut() {
        imp.prepare(op, size);
        for _ in 0..iters {
            imp.run(op);
        }
    }
    for round in 0..rounds {
        for k in 0..impls.len() {
            let i = (k + round) % impls.len();
            let imp = &mut impls[i];
            let start = tsc();
            for _ in 0..iters {
                imp.run(op);
            }
            let cycles = tsc() - start;
            samples[i].push(cycles as f64 / (iters * size) as f64);
        }
    }
    samples.iter_mut().map(|s| median(s)).collect()
}

/// 000's measuring method (its section 5.4): 30 times, 500 calls as a
/// warm-up, then 500 timed calls averaged; "the minimum value over the 30
/// runs ... to neutralize noise caused by interrupts". Returns, per
/// implementation, that minimum and the median of the same 30 averages.
/// The implementations take turns within each run, as in [`measure`].
pub(crate) fn measure_paper(impls: &mut [Box<dyn Impl>], op: Op, size: usize) -> Vec<(f64, f64)> {
    const RUNS: usize = 30;
    const CALLS: usize = 500;
    let mut samples = vec![Vec::with_capacity(RUNS); impls.len()];
    for imp in impls.iter_mut() {
        imp.prepare(op, size);
    }
    for run in 0..RUNS {
        for k in 0..impls.len() {
            let i = (k + run) % impls.len();
            let imp = &mut impls[i];
            for _ in 0..CALLS {
                imp.run(op);
            }
            let start = tsc();
            for _ in 0..CALLS {
                imp.run(op);
            }
            let cycles = tsc() - start;
            samples[i].push(cycles as f64 / (CALLS * size) as f64);
        }
    }
    samples
        .iter_mut()
        .map(|s| {
            let min = s.iter().copied().fold(f64::INFINITY, f64::min);
            (min, median(s))
        })
        .collect()
}

/// Throughput of gcmsiv against aws-lc-rs, ring and RustCrypto, in one process,
/// round-robin: median TSC cycles per byte, and ratios (above 1: ours faster).
#[derive(clap::Parser, Debug)]
#[command(name = "gcmsiv-bench")]
struct Args {
    /// A short run: 15 rounds instead of 61
    #[arg(long)]
    quick: bool,
    /// Our backend for every table; default: the one `Backend::select` picks
    #[arg(long, value_name = "NAME", value_parser = ["portable", "aesni-clmul", "aesni-vaes"])]
    backend: Option<String>,
    /// The widest registers ours may use. 128 takes aesni-clmul; 256 on a CPU
    /// with AVX-512 needs a build with the test-only width cap, which
    /// `scripts/bench.sh --max-width 256` makes (and runs)
    #[arg(long, value_name = "BITS", value_parser = one_of::<u32>(&[128, 256, 512]))]
    max_width: Option<u32>,
    /// Message sizes in bytes, comma-separated (the IPI row keeps its own mix)
    #[arg(long, value_name = "BYTES,...", value_delimiter = ',', value_parser = positive)]
    sizes: Vec<usize>,
    /// Key sizes in bits, comma-separated
    #[arg(long, value_name = "BITS,...", value_delimiter = ',', value_parser = one_of::<usize>(&[128, 256]))]
    keys: Vec<usize>,
    /// Sections to run, comma-separated; default: all
    #[arg(long, value_name = "SECTION,...", value_delimiter = ',', value_parser = ["single", "aad", "placement", "batch", "column", "parallel", "gcm", "ratio", "limits", "fixed", "research", "bounds"])]
    only: Vec<String>,
    /// The research tables (`--only research`) measured as 000 did: 30 x
    /// (500 warm-up calls, 500 timed), the minimum average, printed with
    /// the median of the same 30 beside it
    #[arg(long)]
    paper_method: bool,
    /// Write the research tables, the bounds and the verdicts as Markdown
    /// into DIR/<cpu>-<backend>.md, and the plot's data beside it (.csv),
    /// instead of printing the sections (scripts/seeds.sh runs this)
    #[arg(long, value_name = "DIR")]
    seeds_dir: Option<std::path::PathBuf>,
}

/// A parser for numbers from a fixed set.
fn one_of<T>(allowed: &'static [T]) -> impl Fn(&str) -> Result<T, String> + Clone
where
    T: std::str::FromStr + PartialEq + std::fmt::Display + Copy + Send + Sync + 'static,
{
    move |s| match s.parse::<T>() {
        Ok(v) if allowed.contains(&v) => Ok(v),
        _ => Err(format!("one of {}", allowed.iter().map(T::to_string).collect::<Vec<_>>().join(", "))),
    }
}

/// A message size: a whole number of bytes, at least 1.
fn positive(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err("a number of bytes, at least 1".into()),
    }
}

/// Our backend for every table (`--backend`, `--max-width`), else the one
/// `Backend::select` picks.
static BACKEND: std::sync::OnceLock<gcmsiv::Backend> = std::sync::OnceLock::new();

/// The backend our side of every table runs on.
pub fn backend() -> gcmsiv::Backend {
    *BACKEND.get_or_init(gcmsiv::Backend::select)
}

/// Picks our backend from the options, or says why it cannot.
fn choose_backend(args: &Args) -> Result<gcmsiv::Backend, String> {
    let available: Vec<gcmsiv::Backend> = gcmsiv::Backend::available().into_iter().flatten().collect();
    let chosen = match (&args.backend, args.max_width) {
        (Some(name), _) => *available
            .iter()
            .find(|b| b.name() == name)
            .ok_or_else(|| format!("--backend {name}: not a backend this CPU has"))?,
        (None, Some(128)) => *available
            .iter()
            .rfind(|b| b.register_bits() <= 128)
            .expect("the portable backend is always there"),
        (None, _) => gcmsiv::Backend::select(),
    };
    if let Some(max) = args.max_width
        && chosen.register_bits() > max
    {
        return Err(format!(
            "--max-width {max}: {chosen} is wider; run `scripts/bench.sh --max-width {max}`, which builds \
             with GCMSIV_MAX_WIDTH={max}"
        ));
    }
    Ok(chosen)
}

fn main() {
    let args = <Args as clap::Parser>::parse();
    match choose_backend(&args) {
        Ok(chosen) => BACKEND.set(chosen).expect("backend set once"),
        Err(why) => {
            eprintln!("gcmsiv-bench: {why}");
            std::process::exit(2);
        }
    }
    if let Some(dir) = &args.seeds_dir {
        let rounds = if args.quick { 15 } else { 61 };
        if let Err(e) = seeds_report(dir, rounds, args.paper_method) {
            eprintln!("gcmsiv-bench: {}: {e}", dir.display());
            std::process::exit(1);
        }
        return;
    }
    let sizes = if args.sizes.is_empty() { SIZES.to_vec() } else { args.sizes.clone() };
    let key_sizes = if args.keys.is_empty() { vec![128, 256] } else { args.keys.clone() };
    let rounds = if args.quick { 15 } else { 61 };
    let ghz = tsc_ghz();
    println!("# gcmsiv benchmark: TSC cycles per byte (median of {rounds} interleaved rounds)");
    println!(
        "# TSC {ghz:.2} GHz; GB/s = {ghz:.2} / (c/B); ratio = peer c/B / ours c/B (above 1: ours faster)"
    );
    println!("# our backend: {}", backend());

    let run = |section: &str| args.only.is_empty() || args.only.iter().any(|s| s == section);
    if run("single") {
        for &key_bits in &key_sizes {
            for op in [Op::Seal, Op::Open] {
                let title = format!("AES-{key_bits}-GCM-SIV {op:?}");
                table(&title, &mut peers::gcm_siv(key_bits), op, &sizes, rounds, ghz);
            }
        }
    }
    if run("aad") {
        shapes::print_aad(&key_sizes, rounds);
    }
    if run("placement") {
        shapes::print_placement(&key_sizes, rounds);
    }
    if run("batch") {
        for &key_bits in &key_sizes {
            batch::print(key_bits, rounds);
        }
    }
    if run("column") {
        let column_sizes = if args.sizes.is_empty() { vec![16, 32, 64, 256] } else { args.sizes.clone() };
        column::print(&column_sizes, rounds.min(7));
    }
    if run("parallel") {
        parallel::print(ghz, rounds);
    }
    if run("gcm") {
        for &key_bits in &key_sizes {
            for op in [Op::Seal, Op::Open] {
                let title = format!("AES-{key_bits}-GCM {op:?}");
                table(&title, &mut peers::gcm(key_bits), op, &sizes, rounds, ghz);
            }
        }
    }
    if run("ratio") {
        println!("\n## GCM-SIV / GCM on our code (c/B ratio; the paper: seal pays a second pass, open ~1.0)");
        println!("| key | op | 1024 | 8192 | 16384 |\n|---|---|---|---|---|");
        for &key_bits in &key_sizes {
            for op in [Op::Seal, Op::Open] {
                let mut impls = peers::ours_siv_and_gcm(key_bits);
                print!("| AES-{key_bits} | {op:?} |");
                for size in [1024, 8192, 16384] {
                    let cpb = measure(&mut impls, op, size, rounds);
                    print!(" {:.2} |", cpb[0] / cpb[1]);
                }
                println!();
            }
        }
    }
    if run("limits") {
        limits::print(ghz);
    }
    if run("fixed") {
        fixed::print();
    }
    if run("research") || run("bounds") {
        let mut report = research::Report::default();
        if run("research") {
            research::tables(&mut report, rounds, args.paper_method);
        }
        if run("bounds") {
            research::bounds(&mut report);
        }
        research::summary(&mut report);
        print!("{}", report.md);
    }
}

/// The seed papers' tables as one Markdown file per CPU and backend, and
/// the plot's data beside it.
fn seeds_report(dir: &std::path::Path, rounds: usize, paper_method: bool) -> std::io::Result<()> {
    let cpu = machine::Cpu::read();
    let stem = format!("{}-{}", cpu.slug(), backend().name());
    let mut report = research::Report::default();
    let method = if paper_method { " --paper-method" } else { "" };
    let md = &mut report.md;
    md.push_str(&format!("# The seed papers' tables on {} with `{}`\n\n", cpu.model, backend()));
    md.push_str(&format!(
        "Written by `scripts/seeds.sh` (`gcmsiv-bench --backend {}{method} --seeds-dir docs/seeds`). CPU: \
         \"{}\" (family {}, model {}, stepping {}){}; TSC {:.2} GHz; backend `{}`, {}-bit registers. A \
         shared host: read ratios, not absolute cycles, and never our cycles against the papers' (their \
         CPUs are a decade older, Turbo off).\n\n",
        backend().name(),
        cpu.model,
        cpu.family,
        cpu.model_number,
        cpu.stepping,
        if cpu.virtualised { ", a virtual machine" } else { "" },
        tsc_ghz(),
        backend().name(),
        backend().register_bits(),
    ));
    md.push_str(&format!(
        "The bounds, which no CPU changes, are in [bounds.md](bounds.md); the last table is drawn in \
         [{stem}-cpb.svg]({stem}-cpb.svg).\n\n![Seal cycles per byte against message size]({stem}-cpb.svg)\n\n"
    ));
    research::tables(&mut report, rounds, paper_method);
    research::summary(&mut report);
    std::fs::create_dir_all(dir)?;
    let mut bounds = research::Report::default();
    bounds.md.push_str("# The seed papers' bounds, computed in full\n\nWritten by `scripts/seeds.sh` (`gcmsiv-bench --seeds-dir docs/seeds`); the plot is bounds-advantage.svg.\n");
    research::bounds(&mut bounds);
    research::summary(&mut bounds);
    std::fs::write(dir.join("bounds.md"), &bounds.md)?;
    std::fs::write(dir.join("bounds.csv"), research::bounds_plot_data())?;
    std::fs::write(dir.join(format!("{stem}.md")), &report.md)?;
    let mut csv = String::from("series,bytes,cycles_per_byte\n");
    for (series, bytes, cpb) in &report.points {
        csv.push_str(&format!("{series},{bytes},{cpb:.4}\n"));
    }
    std::fs::write(dir.join(format!("{stem}.csv")), csv)?;
    println!("{}", dir.join(format!("{stem}.md")).display());
    Ok(())
}

/// One table: each size's median c/B per implementation, our GB/s, ratios,
/// and the Internet Performance Index row. Open tables also time the
/// harness's copy (timed with the others, not a peer) and print ours net of
/// it: the figure to hold against the limit loops, which copy nothing.
fn table(title: &str, impls: &mut Vec<Box<dyn Impl>>, op: Op, sizes: &[usize], rounds: usize, ghz: f64) {
    let names: Vec<&str> = impls.iter().map(|i| i.name()).collect();
    let copy = op == Op::Open;
    if copy {
        impls.push(Box::new(peers::CopyOnly::default()));
    }
    println!("\n## {title}");
    print!("| bytes |");
    for n in &names {
        print!(" {n} c/B |");
    }
    print!(" ours GB/s |{}", names[1..].iter().map(|n| format!(" vs {n} |")).collect::<String>());
    println!("{}", if copy { " harness copy c/B | ours less copy c/B |" } else { "" });
    println!("|{}", "---|".repeat(names.len() * 2 + 1 + 2 * usize::from(copy)));
    let peers = names.len();
    let row = |label: String, cpb: &[f64]| {
        print!("| {label} |");
        for c in &cpb[..peers] {
            print!(" {c:.2} |");
        }
        print!(" {:.2} |", ghz / cpb[0]);
        for c in &cpb[1..peers] {
            print!(" {:.2}x |", c / cpb[0]);
        }
        if copy {
            print!(" {:.3} | {:.3} |", cpb[peers], cpb[0] - cpb[peers]);
        }
        println!();
    };
    for &size in sizes {
        let r = if size >= 1 << 20 { rounds.min(15) } else { rounds };
        let cpb = measure(impls, op, size, r);
        row(size.to_string(), &cpb);
    }
    // IPI: byte-weighted mean of cycles per byte over the packet mix.
    let mut ipi = vec![0.0; impls.len()];
    for &(size, weight) in IPI_MIX {
        let cpb = measure(impls, op, size, rounds);
        for (acc, c) in ipi.iter_mut().zip(cpb) {
            *acc += weight * c;
        }
    }
    row("IPI".to_string(), &ipi);
}
