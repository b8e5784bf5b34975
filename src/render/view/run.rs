//! One run of a variant at one size: its status and timing, the metric
//! table against the previous step, the findings and the limit, the hot
//! source lines with an excerpt around each, the line diffs, and every
//! counter of the fixed metric set.

use super::{
    ExcerptLine, Fact, FindingView, HotLineView, LimitView, MetricRow, RunView, StepView, state,
};
use crate::analysis::derived::Key;
use crate::analysis::findings::{HotLine, Severity};
use crate::analysis::stats::TimingStats;
use crate::analysis::{RunAnalysis, Status, format};
use crate::model::timing::Temperature;
use crate::render::launches;

/// Metrics shown in each run's table, in order.
const TABLE_METRICS: [Key; 24] = [
    Key::Time,
    Key::KernelDuration,
    Key::GlobalLoadSectorsPerRequest,
    Key::GlobalLoadExcessSectors,
    Key::GlobalStoreSectorsPerRequest,
    Key::GlobalStoreExcessSectors,
    Key::GlobalLoadRequests,
    Key::GlobalStoreRequests,
    Key::SharedLoadWavefrontsPerInstruction,
    Key::SharedLoadExcessWavefronts,
    Key::SharedStoreWavefrontsPerInstruction,
    Key::SharedStoreExcessWavefronts,
    Key::SharedLoadBankConflicts,
    Key::SharedStoreBankConflicts,
    Key::AchievedOccupancy,
    Key::TheoreticalOccupancy,
    Key::RegistersPerThread,
    Key::SharedMemoryPerBlock,
    Key::LocalMemorySectors,
    Key::DramThroughput,
    Key::SmThroughput,
    Key::DramBytes,
    Key::ArithmeticIntensity,
    Key::WarpInstructions,
];

fn status_text(status: &Status) -> String {
    match status {
        Status::Verified {
            against,
            max_abs_error,
            relative_l2_error,
        } => format!(
            "correct: matches `{against}` (largest error {}, relative L2 error {})",
            format::significant(*max_abs_error, 2),
            format::significant(*relative_l2_error, 2)
        ),
        Status::Wrong { summary, .. } => format!("WRONG: {summary}"),
        Status::Unverified { reason } => format!("not verified: {reason}"),
        Status::CheckedByProgram { evidence } => format!("correct by its own check: {evidence}"),
        Status::Failed { stage, message } => format!("failed ({stage}): {message}"),
        Status::NotRun => "not run: the run was interrupted before it started".into(),
    }
}

fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Problem => "problem",
    }
}

/// "cold median 1.23 ms (95% interval 1.22 ms–1.24 ms) over 412 samples
/// (min …, max …, noise ±…); hot median …. Cold: the L2 flushed …".
fn timing_text(run: &RunAnalysis) -> String {
    let (Some(stats), Some(kind)) = (run.timing, run.temperature) else {
        return "not timed".into();
    };
    let median = |kind: Temperature, t: &TimingStats| {
        format!(
            "{} median {} (95% interval {}–{}) over {} samples (min {}, max {}, noise ±{})",
            kind.word(),
            format::milliseconds(t.median_ms),
            format::milliseconds(t.median_interval_ms[0]),
            format::milliseconds(t.median_interval_ms[1]),
            t.samples,
            format::milliseconds(t.min_ms),
            format::milliseconds(t.max_ms),
            format::share(t.relative_noise)
        )
    };
    let mut text = median(kind, &stats);
    if let Some((other, other_stats)) = &run.other_timing {
        text.push_str(&format!(
            "; {}, beyond the noise",
            median(*other, other_stats)
        ));
    }
    if let Some(method) = &run.timing_method {
        text.push_str(&format!(". Timing: {method}"));
    }
    text
}

pub(super) fn run_view(
    run: &RunAnalysis,
    recorded: &crate::model::results::RunResult,
    previous: Option<&RunAnalysis>,
    source_text: &str,
) -> RunView {
    let (steps, steps_note) = step_views(recorded);
    let steps_explained = explained_note(recorded);
    RunView {
        size: run.size.clone(),
        state: state(&run.status),
        status: status_text(&run.status),
        timing: timing_text(run),
        metrics: metric_rows(run, previous),
        findings: run
            .findings
            .iter()
            .map(|f| FindingView {
                severity: severity(f.severity),
                title: f.title.clone(),
                detail: f.detail.clone(),
            })
            .collect(),
        hot_lines: hot_line_views(run, source_text),
        source_note: match &run.lines_taken_at {
            Some(size) => Some(format!(
                "The source lines are from the per-line counters taken at {size}: they cost an instrumented run of the kernel, and access patterns do not depend on the size, so gpuprof takes them at one size."
            )),
            None => recorded.whole_profile().and_then(|p| p.source_note.clone()),
        },
        profiled: recorded.profile.is_some(),
        limit: run.limit.as_ref().map(|l| LimitView {
            bottleneck: l.shown(),
            evidence: l.evidence.clone(),
            advice: l.advice.clone(),
        }),
        line_diffs: run.line_diffs.iter().map(|d| d.text.clone()).collect(),
        counters: counters(recorded.profile.as_ref()),
        steps,
        steps_note,
        steps_explained,
        output: recorded.output.clone(),
    }
}

/// A sequence's launches as ncu measured them, marking the one whose
/// profile the findings explain: a row per launch, or in a long sequence
/// a row per run of consecutive launches of one kernel, with their total
/// duration and their throughputs' means weighted by duration, and then a
/// note that says so.
fn step_views(recorded: &crate::model::results::RunResult) -> (Vec<StepView>, Option<String>) {
    use crate::model::metrics::{DRAM_THROUGHPUT, DURATION, SM_THROUGHPUT};
    let explained = recorded.explained_step();
    let shown = |value: Option<f64>, show: fn(f64) -> String| value.map_or("–".into(), show);
    let steps = &recorded.steps;
    let rows = launches::rows(steps, |step| step.kernel_name.as_str());
    let views = rows
        .iter()
        .map(|row| {
            let launches = &steps[row.range()];
            let explained_at = explained
                .filter(|at| row.range().contains(at))
                .map(|at| at + 1);
            StepView {
                number: row.numbers(),
                kernel: launches[0].kernel_name.clone(),
                times: row.times(),
                duration: shown(total(launches, DURATION), format::nanoseconds),
                dram: shown(weighted_mean(launches, DRAM_THROUGHPUT), format::percent),
                sm: shown(weighted_mean(launches, SM_THROUGHPUT), format::percent),
                explained: explained_at.is_some(),
                explained_launch: explained_at.filter(|_| row.collapsed()),
            }
        })
        .collect();
    let note = rows.iter().any(launches::Row::collapsed).then(|| {
        format!(
            "{} launches in {}: consecutive launches of one kernel share a row, whose time is their total and whose throughputs are their means weighted by each launch's time.",
            steps.len(),
            format::counted(rows.len(), "row"),
        )
    });
    (views, note)
}

/// Which launch of a sequence the occupancy and throughputs are
/// of, and why that one (the longest launch of the kernel whose launches
/// take the most of ncu's time, with that share), and that the counts and
/// lines are the whole sequence's.
fn explained_note(recorded: &crate::model::results::RunResult) -> Option<String> {
    let explained = crate::model::results::explained_launch(&recorded.steps)?;
    let kernel = &explained.kernel;
    let share = format::share(explained.kernel_share);
    let which = match explained.kernel_launches {
        1 => format!("the only launch of {kernel}, which takes {share}"),
        n => format!("the longest launch of {kernel}, whose {n} launches take {share}"),
    };
    Some(format!(
        "Below, occupancy and the throughputs are those of launch {} of {}, {which} of the sequence's time under ncu; counts, DRAM traffic, stall samples and source lines are totals over all {} launches.",
        explained.index + 1,
        recorded.steps.len(),
        recorded.steps.len()
    ))
}

/// `metric` summed over `launches`; unknown when a launch lacks it.
fn total(launches: &[crate::model::results::Profile], metric: &str) -> Option<f64> {
    launches.iter().map(|step| step.metric(metric)).sum()
}

/// `metric` (a rate) over `launches`, each weighted by its duration:
/// the launches' mean as the GPU spent its time; unknown when a launch
/// lacks it or its duration, or when they took no time.
fn weighted_mean(launches: &[crate::model::results::Profile], metric: &str) -> Option<f64> {
    use crate::model::metrics::DURATION;
    let [mut weighted, mut time] = [0.0, 0.0];
    for step in launches {
        let duration = step.metric(DURATION)?;
        weighted += step.metric(metric)? * duration;
        time += duration;
    }
    (time > 0.0).then(|| weighted / time)
}

/// The fixed table of metrics, each with its value before (at the previous
/// step) and the relative change.
fn metric_rows(run: &RunAnalysis, previous: Option<&RunAnalysis>) -> Vec<MetricRow> {
    TABLE_METRICS
        .iter()
        .filter_map(|key| {
            let value = run.derived.get(*key)?;
            let before = previous.and_then(|p| p.derived.get(*key));
            let (change, change_class) = metric_change(*key, value, before);
            Some(MetricRow {
                label: key.info().label.to_string(),
                value: key.format(value),
                previous: before.map(|b| key.format(b)).unwrap_or_default(),
                change,
                change_class,
            })
        })
        .collect()
}

/// The relative change from `before` to `value` and its CSS class:
/// `better` or `worse` by the metric's direction, `flat` under 2 % (and
/// when there is no non-zero value before), `neutral` for a metric with no
/// better direction.
fn metric_change(key: Key, value: f64, before: Option<f64>) -> (String, &'static str) {
    match before {
        Some(b) if b != 0.0 => {
            let relative = (value - b) / b.abs();
            let class = match key.info().lower_is_better {
                _ if relative.abs() < 0.02 => "flat",
                Some(true) if relative < 0.0 => "better",
                Some(false) if relative > 0.0 => "better",
                None => "neutral",
                _ => "worse",
            };
            (
                format!(
                    "{}{}",
                    if relative >= 0.0 { "+" } else { "" },
                    format::share(relative)
                ),
                class,
            )
        }
        _ => (String::new(), "flat"),
    }
}

/// The hottest source lines of the run (at most six), each with what makes
/// it hot and an excerpt of two lines either side.
fn hot_line_views(run: &RunAnalysis, source_text: &str) -> Vec<HotLineView> {
    let lines: Vec<&str> = source_text.lines().collect();
    run.hot_lines
        .iter()
        .take(6)
        .map(|hot| hot_line_view(hot, &lines))
        .collect()
}

/// One hot line: its share of the stall samples and of the executed
/// instructions, its excess shared wavefronts and global sectors, its main
/// stall (and what that stall waits for), and its excerpt.
fn hot_line_view(hot: &HotLine, lines: &[&str]) -> HotLineView {
    let mut parts = Vec::new();
    if let Some(share) = hot.sample_share {
        parts.push(format!("{} of stall samples", format::share(share)));
    }
    if let Some(share) = hot.instruction_share.filter(|s| *s >= 0.01) {
        parts.push(format!("{} of executed instructions", format::share(share)));
    }
    if let Some(ways) = hot.shared_ways.filter(|w| *w > 1.05) {
        parts.push(format!(
            "{}× the ideal shared wavefronts ({} extra)",
            format::ratio(ways),
            format::count(hot.shared_excess_wavefronts.unwrap_or(0.0))
        ));
    }
    if let Some(excess) = hot.global_excess_factor.filter(|f| *f > 1.05) {
        parts.push(format!(
            "{}× the ideal global sectors ({} extra)",
            format::ratio(excess),
            format::count(hot.global_excess_sectors.unwrap_or(0.0))
        ));
    }
    match (&hot.top_stall, &hot.waits_for) {
        (Some(stall), Some(other)) => parts.push(format!("mostly {stall}: {other}")),
        (Some(stall), None) => parts.push(format!("mostly {stall}")),
        _ => {}
    }
    let first = hot.line.saturating_sub(2).max(1);
    let last = (hot.line + 2).min(lines.len() as u32);
    HotLineView {
        line: hot.line,
        summary: parts.join(" · "),
        excerpt: (first..=last)
            .map(|number| ExcerptLine {
                number,
                code: lines
                    .get(number as usize - 1)
                    .copied()
                    .unwrap_or("")
                    .to_string(),
                hot: number == hot.line,
            })
            .collect(),
    }
}

/// The fixed metric set with the labels and units of its table.
fn counters(profile: Option<&crate::model::results::Profile>) -> Vec<Fact> {
    use crate::model::metrics::{METRICS, Quantity};
    let Some(profile) = profile else {
        return Vec::new();
    };
    METRICS
        .iter()
        .map(|metric| Fact {
            label: format!("{} ({})", metric.label, metric.name),
            value: match profile.metric(metric.name) {
                None => "not collected".into(),
                Some(v) => match metric.quantity {
                    Quantity::Time => format::nanoseconds(v),
                    Quantity::Percent => format::percent(v),
                    Quantity::Bytes => format::bytes(v),
                    Quantity::Count => format::count(v),
                },
            },
        })
        .collect()
}
