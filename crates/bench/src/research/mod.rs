//! The seed papers' tables measured on our code (`--only research`), in the
//! papers' units and layouts with their figures beside ours, and a verdict
//! on each claim they make; 002's Table 2 and the bounds of every theorem
//! (`--only bounds`). The variants are `gcmsiv::research`'s.
//!
//! Everything is written as Markdown into a [`Report`]: printed, or with
//! `--seeds-dir` saved as one file per CPU and backend beside the data the
//! plots are drawn from (scripts/seeds.sh runs both backends and plots).
//! Ratios are ours against ours, never our cycles against the papers'.

mod bounds;
mod impls;
mod keygen;
mod t000;
mod t001;
mod t002;
mod t004;

use crate::peers::{Impl, Op};
use std::fmt::Write as _;

/// Appends a line of Markdown to a report.
macro_rules! md {
    ($r:expr) => {
        $r.md.push('\n')
    };
    ($r:expr, $($t:tt)*) => {{
        writeln!($r.md, $($t)*).unwrap()
    }};
}
pub(crate) use md;

/// A claim's verdict holds when our figure lies within the paper's range
/// widened by this factor either way: two CPUs and two codes a decade apart
/// agree no closer, and a shared host's runs wander by about this much.
pub const SLACK: f64 = 1.10;

/// One claim of a paper, what the paper and our run show, and the verdict.
struct Claim {
    source: &'static str,
    claim: String,
    paper: String,
    ours: String,
    verdict: String,
}

/// A seed paper's tables, our measurements and the verdicts, as Markdown,
/// and the points of the plots.
#[derive(Default)]
pub struct Report {
    pub md: String,
    claims: Vec<Claim>,
    /// (series, bytes, cycles per byte) for the cycles-per-byte plot.
    pub points: Vec<(String, usize, f64)>,
}

impl Report {
    /// Records a claim with its verdict, and lists it under the table above.
    fn claim(&mut self, source: &'static str, claim: &str, paper: String, ours: String, verdict: String) {
        md!(self, "- **{source}**: {claim}: paper {paper}; ours {ours}: **{verdict}**");
        self.claims.push(Claim { source, claim: claim.to_string(), paper, ours, verdict });
    }

    /// A ratio claim: holds within the paper's range [lo, hi] widened by
    /// [`SLACK`]; otherwise "differs because ..." when the cause is known,
    /// else "does not hold".
    fn ratio(&mut self, source: &'static str, claim: &str, paper: (f64, f64), ours: Fig, because: &str) {
        let (lo, hi) = paper;
        let inside = ours.v >= lo / SLACK && ours.v <= hi * SLACK;
        // Cycles print whole, ratios with two decimals.
        let p = if hi >= 20.0 { 0 } else { 2 };
        let shown = if lo == hi { format!("{lo:.p$}") } else { format!("{lo:.p$}-{hi:.p$}") };
        self.claim(source, claim, shown, format!("{ours:.p$}"), verdict(inside, because));
    }

    /// The claims of every table so far, one row each.
    fn summary(&mut self) {
        md!(self, "\n## Claims and verdicts\n");
        md!(
            self,
            "A ratio holds when ours lies within the paper's figures widened by {:.0}% either way; a \
             claim of order (\"faster than\", \"less than\") holds when our figures keep that order.\n",
            (SLACK - 1.0) * 100.0
        );
        md!(self, "| paper | claim | paper's figure | ours | verdict |");
        md!(self, "|---|---|---|---|---|");
        let rows: Vec<String> = self
            .claims
            .iter()
            .map(|c| format!("| {} | {} | {} | {} | {} |", c.source, c.claim, c.paper, c.ours, c.verdict))
            .collect();
        for row in rows {
            md!(self, "{row}");
        }
        let held = self.claims.iter().filter(|c| c.verdict == "holds").count();
        md!(self, "\n{held} of {} claims hold on this CPU and backend.", self.claims.len());
    }
}

/// "holds", or why not.
fn verdict(holds: bool, because: &str) -> String {
    match (holds, because.is_empty()) {
        (true, _) => "holds".into(),
        (false, true) => "does not hold".into(),
        (false, false) => format!("differs because {because}"),
    }
}

/// One figure of a table: our usual median or, with `--paper-method`, 000's
/// minimum average with the median of the same runs beside it (printed
/// "min (median)"). Ratios divide the first figures.
#[derive(Clone, Copy)]
pub struct Fig {
    pub v: f64,
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

impl std::ops::Sub for Fig {
    type Output = Fig;
    fn sub(self, other: Fig) -> Fig {
        Fig { v: self.v - other.v, median: self.median.zip(other.median).map(|(a, b)| a - b) }
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
pub struct Sampler {
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

/// Every research table, measured with `rounds` rounds or 000's method.
pub fn tables(r: &mut Report, rounds: usize, paper_method: bool) {
    let sm = Sampler { rounds, paper: paper_method };
    if paper_method {
        md!(
            r,
            "Measured by 000's method (its section 5.4): 30 times, 500 calls as a warm-up and then 500 \
             timed calls averaged; each cell is the minimum of the 30 averages, the median of the same 30 \
             in parentheses. Ratios divide the minima (and the medians, in parentheses).\n"
        );
    } else {
        md!(r, "Each cell is the median of {rounds} interleaved rounds.\n");
    }
    t000::table_2(r, sm);
    t000::remark_5_1(r, sm);
    t000::table_1(r, sm);
    t004::tables(r, sm);
    t002::table_3(r, sm);
    t002::table_1(r, sm);
    t001::tables(r, sm);
    t000::sweep(r, sm);
}

/// 002's Table 2 and the bounds in full.
pub fn bounds(r: &mut Report) {
    bounds::table_2(r);
    bounds::full(r);
}

/// The advantage plot's data, as CSV.
pub fn bounds_plot_data() -> String {
    bounds::plot_data()
}

/// The verdicts of every claim recorded so far.
pub fn summary(r: &mut Report) {
    r.summary();
}
