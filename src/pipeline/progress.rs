//! Progress on the terminal while a stage runs: a bar where the number of
//! steps is known, a spinner otherwise (indicatif hides both when stderr is
//! not a terminal).

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A bar of `length` steps labelled `stage`; a spinner when `length` is 0.
pub(super) fn progress(length: u64, stage: &'static str) -> ProgressBar {
    let bar = ProgressBar::new(length);
    let template = if length == 0 {
        "{spinner} {prefix:>8} {elapsed} {msg}"
    } else {
        "{prefix:>8} [{bar:30}] {pos}/{len} {elapsed} {msg}"
    };
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_prefix(stage);
    if length == 0 {
        bar.enable_steady_tick(Duration::from_millis(120));
    }
    bar
}
