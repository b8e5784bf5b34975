//! A sweep's section: its configurations sorted by time (time, time over
//! the best, correctness, whether ncu profiled it, occupancy and registers
//! where known), the combinations the constraint skipped and the
//! configurations that did not run correctly, each with its reason, and
//! what separates the best from the slowest profiled; and the line the
//! chain adds to the sweep's step.

use super::summary::correctness;
use super::{Anchors, SweepRow, SweepView, run_at, state};
use crate::analysis::derived::Key;
use crate::analysis::sweeps::{self, Configuration, SweepAnalysis};
use crate::analysis::{Analysis, Status, format};
use crate::model::Results;

pub(super) fn sweep_view(
    sweep: &SweepAnalysis,
    results: &Results,
    analysis: &Analysis,
    anchors: &Anchors,
) -> SweepView {
    let timed: Vec<&Configuration> = sweep
        .configurations
        .iter()
        .filter(|c| c.median_ms.is_some())
        .collect();
    let profiled: Vec<&str> = sweep
        .configurations
        .iter()
        .filter(|c| c.profiled)
        .map(|c| c.name.as_str())
        .collect();
    SweepView {
        group: sweep.group.clone(),
        anchor: anchors.of_sweep(&sweep.group),
        size: sweep.size.clone(),
        summary: sweep.summary.clone(),
        profiled: match profiled.len() {
            0 => "No configuration was profiled.".into(),
            n if n == sweep.configurations.len() => "Every configuration was profiled.".into(),
            n => format!(
                "ncu profiled {n} of the {} configurations: {}.",
                sweep.configurations.len(),
                profiled.join(", ")
            ),
        },
        parameters: sweep.parameters.clone(),
        rows: timed
            .iter()
            .map(|c| row(c, sweep, results, analysis, anchors))
            .collect(),
        skipped: sweep
            .skipped
            .iter()
            .map(|s| format!("{}: {}", values(&s.parameters), s.reason))
            .collect(),
        not_run: sweep
            .configurations
            .iter()
            .filter(|c| c.median_ms.is_none())
            .map(not_run)
            .collect(),
        contrast: sweep.contrast.clone(),
    }
}

fn row(
    configuration: &Configuration,
    sweep: &SweepAnalysis,
    results: &Results,
    analysis: &Analysis,
    anchors: &Anchors,
) -> SweepRow {
    let derived = analysis
        .variants
        .iter()
        .find(|v| v.name == configuration.name)
        .and_then(|v| run_at(v, &sweep.size))
        .map(|run| &run.derived);
    let registers = results
        .variant(&configuration.name)
        .and_then(|v| v.build.resources.as_ref())
        .map(|r| r.registers_per_thread as f64)
        .or_else(|| derived.and_then(|d| d.get(Key::RegistersPerThread)));
    SweepRow {
        name: configuration.name.clone(),
        anchor: sweeps::is_detailed(analysis, &configuration.name)
            .then(|| anchors.of_variant(&configuration.name)),
        values: configuration
            .parameters
            .iter()
            .map(|(_, value)| value.to_string())
            .collect(),
        time: configuration
            .median_ms
            .map_or_else(|| "–".into(), format::milliseconds),
        vs_best: configuration
            .times_slower
            .map_or_else(|| "–".into(), format::speedup),
        best: sweep.best.as_deref() == Some(configuration.name.as_str()),
        state: state(&configuration.status),
        correctness: correctness(&configuration.status),
        profiled: if configuration.profiled { "yes" } else { "no" },
        occupancy: derived
            .and_then(|d| d.get(Key::AchievedOccupancy))
            .map_or_else(|| "–".into(), format::percent),
        registers: registers.map_or_else(|| "–".into(), format::count),
    }
}

/// `sgemm[BM=256]: ✗ failed (launch): too many resources requested for
/// launch`: the configuration, its correctness and the failure's first
/// line that says `error` (else its first line): its section, which would
/// hold the rest, is left out of the report.
fn not_run(configuration: &Configuration) -> String {
    let line = format!(
        "{}: {}",
        configuration.name,
        correctness(&configuration.status)
    );
    match &configuration.status {
        Status::Failed { message, .. } => {
            let lines = || message.lines().map(str::trim).filter(|l| !l.is_empty());
            match lines()
                .find(|l| l.contains("error"))
                .or_else(|| lines().next())
            {
                Some(telling) => format!("{line}: {telling}"),
                None => line,
            }
        }
        _ => line,
    }
}

/// `ITEMS=4, BLOCK=256`.
fn values(parameters: &[(String, i64)]) -> String {
    parameters
        .iter()
        .map(|(name, value)| format!("{name}={value}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What the chain says of a sweep's step: where it comes from and how far
/// its other configurations are.
pub(super) fn chain_note(analysis: &Analysis, step: &str) -> Option<String> {
    analysis
        .sweeps
        .iter()
        .find(|s| s.best.as_deref() == Some(step))
        .map(|s| format!("Best of the sweep `{}`: {}", s.group, s.summary))
}

#[cfg(test)]
mod tests {
    use crate::analysis::sweeps::fixture::tiled_and_padded_swept;

    #[test]
    fn a_sweep_is_a_table_by_time_with_its_skipped_combinations() {
        let results = tiled_and_padded_swept();
        let analysis = crate::analysis::analyze(&results);
        let view = super::super::build(&results, &analysis);
        let sweep = &view.sweeps[0];
        assert_eq!(sweep.anchor, "sweep-t");
        assert_eq!(sweep.parameters, ["K"]);
        let rows: Vec<(&str, &str, &str, bool)> = sweep
            .rows
            .iter()
            .map(|r| (r.name.as_str(), r.time.as_str(), r.vs_best.as_str(), r.best))
            .collect();
        assert_eq!(
            rows,
            [
                ("padded", "2.00 ms", "1.00×", true),
                ("tiled", "3.00 ms", "1.50×", false)
            ]
        );
        assert_eq!(sweep.rows[0].values, ["2"]);
        assert_eq!(sweep.rows[0].profiled, "yes");
        assert_eq!(sweep.profiled, "Every configuration was profiled.");
        assert_eq!(sweep.skipped, ["K=3: K < 3 is false (3 < 3)"]);
        assert!(sweep.not_run.is_empty());
        assert!(
            sweep
                .contrast
                .as_deref()
                .unwrap()
                .starts_with("padded and tiled")
        );
        let step = view.chain.iter().find(|row| row.step == "padded").unwrap();
        assert!(
            step.explanation.ends_with(
                "Best of the sweep `t`: 2 configurations (1 skipped by the constraint); the \
                 slowest of those that ran and were not wrong, tiled, took 1.50× the best's time."
            ),
            "{}",
            step.explanation
        );
        assert_eq!(view.chain.len(), 2);
    }
}
