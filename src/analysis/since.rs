//! What changed between two runs of a suite, as criterion says it between
//! two benchmark runs: for every variant and size of the newer run, its
//! median against the older run's, judged against the timing noise of
//! both (faster, slower or the same), and the runs only one side has.

use serde::Serialize;

use super::format;
use super::stats::{Speedup, TimeVerdict, TimingStats};
use super::timing;
use crate::model::Results;
use crate::model::timing::Temperature;

/// How a run's time moved from the older results to the newer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Movement {
    Faster,
    Slower,
    /// Within the noise of the two runs.
    Same,
    /// Only the newer results time it.
    New,
    /// Only the older results time it.
    Gone,
}

/// One variant at one size, then and now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunChange {
    pub variant: String,
    pub size: String,
    pub before_ms: Option<f64>,
    pub after_ms: Option<f64>,
    /// Which kind of samples the medians are (cold or hot).
    pub temperature: Option<Temperature>,
    /// Older median over newer: above 1 is faster now.
    pub speedup: Option<f64>,
    /// The 95% bootstrap interval of `speedup`.
    pub interval: Option<[f64; 2]>,
    pub movement: Movement,
}

impl RunChange {
    /// "1.05 ms → 1.02 ms (cold): 2.94% faster".
    pub fn describe(&self) -> String {
        let time = |ms: Option<f64>| ms.map(format::milliseconds).unwrap_or_else(|| "–".into());
        let change = match (self.speedup, self.interval) {
            (Some(speedup), Some([low, high])) => {
                let relative = (1.0 - 1.0 / speedup).abs();
                match self.movement {
                    Movement::Same => format!(
                        "the same within the noise (95% interval of the speedup {}–{})",
                        format::speedup(low),
                        format::speedup(high)
                    ),
                    Movement::Faster => format!("{} faster", format::share(relative)),
                    _ => format!("{} slower", format::share(relative)),
                }
            }
            _ => match self.movement {
                Movement::New => "new in this run".into(),
                _ => "not in this run".into(),
            },
        };
        let kind = self
            .temperature
            .map(|k| format!(" ({})", k.word()))
            .unwrap_or_default();
        format!(
            "{} → {}{kind}: {change}",
            time(self.before_ms),
            time(self.after_ms)
        )
    }
}

/// Every run of `after` against the same variant and size in `before`
/// (compared on the newer results' headline kind where both have it),
/// then the runs `before` has that `after` lacks.
pub fn since(before: &Results, after: &Results) -> Vec<RunChange> {
    let mut changes = Vec::new();
    for variant in &after.variants {
        for run in &variant.runs {
            let now = timing::time(after, variant, run);
            let then = before
                .variant(&variant.name)
                .and_then(|v| Some((v, v.run(&run.size)?)));
            let compared = then.and_then(|then| timing::compare(after, then, (variant, run)));
            let then = then.and_then(|(v, r)| timing::time(before, v, r));
            changes.push(change(&variant.name, &run.size, then, now, compared));
        }
    }
    for variant in &before.variants {
        for run in &variant.runs {
            if after
                .variant(&variant.name)
                .and_then(|v| v.run(&run.size))
                .is_none()
            {
                let then = timing::time(before, variant, run);
                changes.push(change(&variant.name, &run.size, then, None, None));
            }
        }
    }
    changes
}

type Timed = Option<(Temperature, TimingStats)>;

fn change(
    variant: &str,
    size: &str,
    then: Timed,
    now: Timed,
    compared: Option<(Temperature, Speedup)>,
) -> RunChange {
    let movement = match (then, now, compared.map(|(_, c)| c.verdict)) {
        (_, _, Some(TimeVerdict::Faster)) => Movement::Faster,
        (_, _, Some(TimeVerdict::Slower)) => Movement::Slower,
        (_, _, Some(TimeVerdict::Same)) => Movement::Same,
        (None, Some(_), None) => Movement::New,
        _ => Movement::Gone,
    };
    // The medians shown are those compared, where the two were compared.
    let median = |side: Timed, kind: Option<Temperature>| {
        side.filter(|(k, _)| kind.is_none_or(|kind| *k == kind))
            .map(|(_, stats)| stats.median_ms)
    };
    let kind = compared.map(|(kind, _)| kind);
    RunChange {
        variant: variant.to_string(),
        size: size.to_string(),
        before_ms: median(then, kind),
        after_ms: median(now, kind),
        temperature: kind.or(now.or(then).map(|(k, _)| k)),
        speedup: compared.map(|(_, c)| c.ratio),
        interval: compared.map(|(_, c)| c.interval),
        movement,
    }
}

/// "2 faster, 1 slower, 5 the same" over `changes`, naming only what
/// happened.
pub fn tally(changes: &[RunChange]) -> String {
    let count = |m: Movement| changes.iter().filter(|c| c.movement == m).count();
    [
        (Movement::Faster, "faster"),
        (Movement::Slower, "slower"),
        (Movement::Same, "the same"),
        (Movement::New, "new"),
        (Movement::Gone, "gone"),
    ]
    .into_iter()
    .filter(|(m, _)| count(*m) > 0)
    .map(|(m, words)| format!("{} {words}", count(m)))
    .collect::<Vec<_>>()
    .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ncu::probe::probe_results;

    #[test]
    fn a_faster_run_a_steady_one_and_one_only_before_are_told_apart() {
        let mut before = probe_results();
        let steady = [1.00, 1.01, 0.99, 1.00, 1.02];
        for variant in &mut before.variants {
            variant.runs[0].samples_ms = steady.to_vec();
        }
        let mut after = before.clone();
        after.variants[1].runs[0].samples_ms = steady.iter().map(|t| t * 0.8).collect();
        after.variants.pop();
        let changes = since(&before, &after);
        let movements: Vec<Movement> = changes.iter().map(|c| c.movement).collect();
        assert_eq!(
            movements,
            [
                Movement::Same,
                Movement::Faster,
                Movement::Same,
                Movement::Gone
            ]
        );
        assert_eq!(
            changes[1].describe(),
            "1.00 ms → 800 µs (hot): 20.0% faster"
        );
        assert_eq!(changes[3].describe(), "1.00 ms → – (hot): not in this run");
        assert_eq!(tally(&changes), "1 faster, 2 the same, 1 gone");
    }
}
