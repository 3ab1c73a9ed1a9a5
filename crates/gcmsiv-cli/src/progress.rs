//! The progress bar on standard error, for large inputs on a terminal.

use std::io::{self, IsTerminal};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Inputs smaller than this finish before a bar is worth drawing.
const MIN_SIZE: u64 = 8 << 20;

/// A bar counting input bytes up to `total`, or a hidden one when the input size
/// is unknown or small, standard error is not a terminal, or `quiet` is set.
pub fn bar(total: Option<u64>, quiet: bool) -> ProgressBar {
    match total {
        Some(total) if !quiet && total >= MIN_SIZE && io::stderr().is_terminal() => {
            let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{bar:40} {binary_bytes}/{binary_total_bytes} {binary_bytes_per_sec} eta {eta}",
            )
            .expect("internal error: progress template");
            bar.set_style(style);
            bar
        }
        _ => ProgressBar::hidden(),
    }
}
