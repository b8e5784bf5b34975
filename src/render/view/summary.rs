//! The tables at the top of the report: one summary row per variant at
//! each size (time, spread, speedups, throughput, share of the ceiling,
//! correctness) and the optimization chain at the focus size, each step
//! with what the analysis found explains it (`analysis::explain`) and, for
//! a sweep's step, how far the sweep's other configurations are.

use super::sweep::chain_note;
use super::{Anchors, Cell, ChainRow, SummaryRow, run_at, state};
use crate::analysis::findings::{FindingKind, Severity};
use crate::analysis::stats::{Speedup, TimeVerdict};
use crate::analysis::{Analysis, RunAnalysis, Status, format};
use crate::model::Results;
use crate::model::variant::Role;

/// A throughput cell without a figure (the suite declares no bytes or
/// flops, or the run has no time).
pub(super) const NOT_MEASURED: &str = "–";

/// The one measure (`bandwidth` or `FLOP/s`) every ceiling share at
/// `size` is of, named once in the column's header; None when they mix
/// or there are none.
pub(super) fn ceiling_measure(analysis: &Analysis, size: &str) -> Option<&'static str> {
    let mut measures = analysis
        .variants
        .iter()
        .filter_map(|v| run_at(v, size))
        .flat_map(|run| run.ceilings.iter().map(|c| c.measure));
    let first = measures.next()?;
    measures.all(|m| m == first).then_some(first)
}

pub(super) fn correctness(status: &Status) -> String {
    match status {
        Status::Verified { against, .. } => format!("✓ matches {against}"),
        Status::Wrong { .. } => "✗ wrong".into(),
        Status::Unverified { .. } => "not checked".into(),
        Status::CheckedByProgram { .. } => "✓ its own check".into(),
        Status::Failed { stage, .. } => format!("✗ failed ({stage})"),
        Status::NotRun => "not run".into(),
    }
}

fn speedup_cell(speedup: Option<Speedup>, invalid: Option<&str>) -> Cell {
    let Some(speedup) = speedup else {
        return Cell {
            text: "–".into(),
            class: "none",
            title: String::new(),
        };
    };
    if let Some(reason) = invalid {
        return Cell {
            text: format!("({})", format::speedup(speedup.ratio)),
            class: "invalid",
            title: reason.to_string(),
        };
    }
    let (class, word) = match speedup.verdict {
        TimeVerdict::Faster => ("faster", "faster"),
        TimeVerdict::Slower => ("slower", "slower"),
        TimeVerdict::Same => ("same", "the same within noise"),
    };
    Cell {
        text: format::speedup(speedup.ratio),
        class,
        title: format!(
            "{word} ({}; a verdict needs it to exclude 1 and a difference above 1%)",
            speedup.interval_text()
        ),
    }
}

/// "1.23 ms cold", and the other kind where it differs beyond the noise:
/// "1.23 ms cold (hot 980 µs)".
fn median_cell(run: &RunAnalysis) -> String {
    let (Some(stats), Some(kind)) = (run.timing, run.temperature) else {
        return "–".into();
    };
    let other = run
        .other_timing
        .map(|(kind, other)| {
            format!(
                " ({} {})",
                kind.word(),
                format::milliseconds(other.median_ms)
            )
        })
        .unwrap_or_default();
    format!(
        "{} {}{other}",
        format::milliseconds(stats.median_ms),
        kind.word()
    )
}

pub(super) fn summary_rows(
    results: &Results,
    analysis: &Analysis,
    anchors: &Anchors,
    size: &str,
) -> Vec<SummaryRow> {
    let measure = ceiling_measure(analysis, size);
    results
        .variants
        .iter()
        .zip(&analysis.variants)
        .filter_map(|(variant, variant_analysis)| {
            let run = run_at(variant_analysis, size)?;
            let invalid = run.not_a_speedup.as_deref();
            let share = |value: Option<f64>, peak: Option<f64>, show: fn(f64) -> String| match value
            {
                Some(v) => match peak {
                    Some(p) => format!("{} ({} of peak)", show(v), format::share(p)),
                    None => show(v),
                },
                None => NOT_MEASURED.into(),
            };
            Some(SummaryRow {
                variant: variant.name.clone(),
                anchor: anchors.of_variant(&variant.name),
                ceiling: variant.role == Role::Ceiling,
                state: state(&run.status),
                median: median_cell(run),
                spread: run
                    .timing
                    .map(|t| {
                        format!(
                            "±{} · {}–{} · {} samples",
                            format::share(t.relative_noise),
                            format::milliseconds(t.min_ms),
                            format::milliseconds(t.max_ms),
                            t.samples
                        )
                    })
                    .unwrap_or_default(),
                vs_baseline: speedup_cell(run.vs_baseline, invalid),
                vs_previous: speedup_cell(run.vs_previous, invalid),
                bandwidth: share(
                    run.bytes_per_second,
                    run.dram_peak_share,
                    format::bytes_per_second,
                ),
                flops: share(
                    run.flops_per_second,
                    run.flops_peak_share,
                    format::flops_per_second,
                ),
                vs_ceiling: run
                    .ceilings
                    .iter()
                    .map(|c| match measure {
                        Some(_) => format!("{} of {}", format::share(c.share), c.ceiling),
                        None => {
                            format!("{} of {} {}", format::share(c.share), c.ceiling, c.measure)
                        }
                    })
                    .collect(),
                correctness: correctness(&run.status),
            })
        })
        .collect()
}

pub(super) fn chain(
    analysis: &Analysis,
    results: &Results,
    anchors: &Anchors,
    size: &str,
) -> Vec<ChainRow> {
    analysis
        .steps
        .iter()
        .filter_map(|name| {
            let variant_analysis = analysis.variants.iter().find(|v| v.name == *name)?;
            let variant = results.variant(name)?;
            let run = run_at(variant_analysis, size)?;
            let explanation = if let Some(reason) = &run.not_a_speedup {
                format!("Not comparable: {reason}.")
            } else if variant_analysis.previous.is_none() {
                "The baseline every speedup is measured against.".into()
            } else {
                run.explanation
                    .as_ref()
                    .map_or_else(|| "–".into(), |e| e.text.clone())
            };
            let explanation = match chain_note(analysis, name) {
                Some(note) if explanation.ends_with('.') => format!("{explanation} {note}"),
                Some(note) => format!("{explanation}. {note}"),
                None => explanation,
            };
            Some(ChainRow {
                step: name.clone(),
                anchor: anchors.of_variant(name),
                changes: if variant.changes.is_empty() {
                    "–".into()
                } else {
                    variant
                        .changes
                        .iter()
                        .map(|c| c.label())
                        .collect::<Vec<_>>()
                        .join(", ")
                },
                speedup: speedup_cell(run.vs_previous, run.not_a_speedup.as_deref()),
                explanation,
                limit: run
                    .limit
                    .as_ref()
                    .map(crate::analysis::limits::Limit::shown)
                    .unwrap_or_else(|| "–".into()),
            })
        })
        .collect()
}

/// The findings that qualify a whole size's numbers rather than one
/// variant's code (the working set fits in L2; a grid under one wave),
/// each once, with the variants it concerns.
pub(super) fn caveats(analysis: &Analysis, size: &str) -> Vec<String> {
    let mut concerned: Vec<(String, Vec<&str>)> = Vec::new();
    for variant in &analysis.variants {
        let Some(run) = run_at(variant, size) else {
            continue;
        };
        let qualifying = run.findings.iter().filter(|f| {
            matches!(f.kind, FindingKind::CacheResident)
                || (f.kind == FindingKind::Waves && f.severity == Severity::Warning)
        });
        for finding in qualifying {
            match concerned
                .iter_mut()
                .find(|(title, _)| *title == finding.title)
            {
                Some((_, names)) => names.push(&variant.name),
                None => concerned.push((finding.title.clone(), vec![&variant.name])),
            }
        }
    }
    let all = analysis.variants.len();
    concerned
        .into_iter()
        .map(|(title, names)| match names.len() == all {
            true => format!("{} (every variant)", format::capitalize(&title)),
            false => format!(
                "{} ({})",
                format::capitalize(&title),
                names
                    .iter()
                    .map(|n| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
        .collect()
}
