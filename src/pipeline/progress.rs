//! Progress on the terminal while a stage runs: a bar where the number of
//! steps is known, a spinner otherwise (indicatif hides both when stderr is
//! not a terminal); and the time each stage of a run took, for the line
//! that closes it.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long each stage of a run took, in order.
#[derive(Debug, Clone)]
pub struct StageTimes {
    started: Instant,
    last: Instant,
    pub stages: Vec<(&'static str, Duration)>,
}

impl StageTimes {
    pub(super) fn start() -> StageTimes {
        let now = Instant::now();
        StageTimes {
            started: now,
            last: now,
            stages: Vec::new(),
        }
    }

    /// Ends `stage` now: it took the time since the previous one ended.
    pub(super) fn lap(&mut self, stage: &'static str) {
        let now = Instant::now();
        self.stages.push((stage, now - self.last));
        self.last = now;
    }

    /// "took 22.5 s: build 4.0 s · time 3.1 s · profile 12.9 s · reports 0.4 s".
    pub fn line(&self) -> String {
        let seconds = |d: &Duration| format!("{:.1} s", d.as_secs_f64());
        let parts: Vec<String> = self
            .stages
            .iter()
            .map(|(stage, took)| format!("{stage} {}", seconds(took)))
            .collect();
        format!(
            "took {}: {}",
            seconds(&(self.last - self.started)),
            parts.join(" · ")
        )
    }
}

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

/// A bar labelled `stage` that draws nothing until [`show`] gives it its
/// length: processes started before their work is known move it.
pub(super) fn progress_later(stage: &'static str) -> ProgressBar {
    let bar = progress(1, stage);
    bar.set_draw_target(ProgressDrawTarget::hidden());
    bar
}

/// Shows a bar of [`progress_later`] over `length` steps.
pub(super) fn show(bar: &ProgressBar, length: u64) {
    bar.set_length(length);
    bar.set_draw_target(ProgressDrawTarget::stderr());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closing_line_names_each_stage_and_the_whole() {
        let mut clock = StageTimes::start();
        clock.lap("build");
        clock.lap("time");
        let line = clock.line();
        assert!(
            line.starts_with("took 0.0 s: build 0.0 s · time 0.0 s"),
            "{line}"
        );
        assert_eq!(clock.stages.len(), 2);
    }
}
