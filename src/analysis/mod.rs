//! Analysis: everything the report concludes, computed from [`Results`]
//! alone — timing statistics and noise-aware speedups along the chain of
//! steps, achieved bandwidth and FLOP/s against the device's peaks and the
//! ceiling variants, derived metrics, findings, the costliest source lines,
//! and for every declared change a verdict on whether the counters moved as
//! the knowledge base expects (none for `other`, which it knows nothing
//! of). Pure and deterministic; produces plain text, never markup.

pub mod advice;
pub mod audit;
pub mod carrier;
pub mod conclusions;
pub mod derived;
pub mod evidence;
pub mod explain;
pub mod findings;
pub mod format;
pub mod knowledge;
pub mod limits;
pub mod lines;
pub mod movement;
pub mod program;
pub mod since;
pub mod stats;
pub mod sweeps;
pub mod timing;

use serde::Serialize;

use crate::model::Change;
use crate::model::Results;
use crate::model::measurement::Check;
use crate::model::results::Stage;
use crate::model::results::{RunResult, VariantResult};
use crate::model::timing::Temperature;
use crate::model::variant::Role;
use derived::{Derived, Key};
use findings::{Finding, HotLine};
use knowledge::Direction;
use stats::{Speedup, TimeVerdict, TimingStats};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    /// The size the chain and change verdicts are read at: the largest
    /// (last) size, where caches matter least.
    pub focus_size: Option<String>,
    /// Step variants in chain order (ceilings left out).
    pub steps: Vec<String>,
    pub ceilings: Vec<String>,
    pub variants: Vec<VariantAnalysis>,
    /// The parameter sweeps at the focus size; each stands in the chain
    /// as its best configuration.
    pub sweeps: Vec<sweeps::SweepAnalysis>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantAnalysis {
    pub name: String,
    pub role: Role,
    /// The step before this one in the chain.
    pub previous: Option<String>,
    pub runs: Vec<RunAnalysis>,
    /// One per declared change, judged at the focus size.
    pub changes: Vec<ChangeAnalysis>,
}

/// Whether a run's output can be trusted.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum Status {
    Verified {
        against: String,
        max_abs_error: f64,
        relative_l2_error: f64,
    },
    Wrong {
        against: String,
        summary: String,
    },
    Unverified {
        reason: String,
    },
    /// A command variant's program checked its own result and reported
    /// success; `evidence` says how.
    CheckedByProgram {
        evidence: String,
    },
    Failed {
        stage: Stage,
        message: String,
    },
    /// Never started: the run was interrupted before it.
    NotRun,
}

impl Status {
    pub fn is_trusted(&self) -> bool {
        matches!(
            self,
            Status::Verified { .. } | Status::Unverified { .. } | Status::CheckedByProgram { .. }
        )
    }

    /// Why a run's time ratios must not be called speedups, if they must
    /// not.
    fn why_not_a_speedup(&self) -> Option<String> {
        match self {
            Status::Wrong { .. } => {
                Some("the output is wrong, so this is not a speedup".to_string())
            }
            Status::Failed { .. } => Some("the run failed".to_string()),
            Status::NotRun => Some("the run did not take place".to_string()),
            _ => None,
        }
    }
}

/// A share of what a ceiling variant reached at the same size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CeilingShare {
    pub ceiling: String,
    /// `bandwidth` or `FLOP/s`.
    pub measure: &'static str,
    pub share: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunAnalysis {
    pub size: String,
    pub status: Status,
    /// The run's time: its headline kind's statistics (see [`timing`]).
    pub timing: Option<TimingStats>,
    /// Which kind of samples `timing` is read from.
    pub temperature: Option<Temperature>,
    /// The other kind, when it differs from `timing` beyond the noise.
    pub other_timing: Option<(Temperature, TimingStats)>,
    /// How the samples were taken, in words.
    pub timing_method: Option<String>,
    /// Speedups, compared on a kind both runs have (the headline one
    /// where they can).
    pub vs_baseline: Option<Speedup>,
    pub vs_previous: Option<Speedup>,
    /// Why the ratios above must not be called speedups (a wrong output).
    pub not_a_speedup: Option<String>,
    /// Declared bytes over the median time.
    pub bytes_per_second: Option<f64>,
    pub flops_per_second: Option<f64>,
    pub dram_peak_share: Option<f64>,
    pub flops_peak_share: Option<f64>,
    pub ceilings: Vec<CeilingShare>,
    pub derived: Derived,
    pub findings: Vec<Finding>,
    pub hot_lines: Vec<HotLine>,
    /// The size the per-line counters behind the hot lines and line
    /// findings were taken at, when not this run's own.
    pub lines_taken_at: Option<String>,
    /// What limits this run now, and what to try next.
    pub limit: Option<limits::Limit>,
    /// Problem lines followed from the previous step's run at this size.
    pub line_diffs: Vec<lines::LineDiff>,
    /// What explains this step's time against the previous step's at this
    /// size (see [`explain`]); none for the first step and ceilings.
    pub explanation: Option<explain::Explanation>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Confirmed,
    /// Moved the expected way, but less than a clear move (see
    /// [`movement`]).
    Small,
    /// Moved the wrong way, but less than a clear move.
    SmallOpposite,
    /// Some expected counters moved, others did not.
    Partly,
    NotSeen,
    Contradicted,
    NotMeasured,
    /// The counter was expected to fall but the previous step had none of
    /// what it counts (0): the step introduced the thing it counts (shared
    /// loads per FMA in a step that first uses shared memory), so the
    /// previous step is no yardstick for it.
    NoneBefore,
    /// The previous step was already at the metric's ideal.
    AlreadyIdeal,
    /// The knowledge base expects nothing of this change (`other`).
    NoExpectation,
}

impl Verdict {
    /// Whether the counter moved at all (either way).
    fn moved(self) -> bool {
        matches!(
            self,
            Verdict::Confirmed | Verdict::Small | Verdict::SmallOpposite | Verdict::Contradicted
        )
    }

    /// What this verdict makes of the knowledge base's mechanism.
    fn outcome(self) -> &'static str {
        match self {
            Verdict::Confirmed => "The counters bear this out.",
            Verdict::Small => "The counters moved the expected way, but only a little.",
            Verdict::SmallOpposite => "The counters moved a little against the expectation.",
            Verdict::Partly => "The counters bear this out only in part.",
            Verdict::NotSeen => "The counters do not show it.",
            Verdict::Contradicted => "The counters are contrary to the expectation.",
            Verdict::NotMeasured => "The counters to test this were not measured.",
            Verdict::NoneBefore => {
                "The previous step had none of what the counters count, so they cannot show it."
            }
            Verdict::AlreadyIdeal => {
                "The previous step was already at the ideal, so there was nothing to gain."
            }
            Verdict::NoExpectation => "gpuprof has no expectation to test.",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpectationOutcome {
    pub metric: Key,
    pub label: &'static str,
    pub direction: Direction,
    pub why: String,
    pub before: Option<f64>,
    pub after: Option<f64>,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangeAnalysis {
    pub change: Change,
    pub title: String,
    /// Why the knowledge base expects the change to help: the hypothesis
    /// the counters test, not a measurement.
    pub mechanism: String,
    /// What the counters made of the hypothesis, in a sentence.
    pub outcome: String,
    pub next: String,
    pub size: Option<String>,
    pub expectations: Vec<ExpectationOutcome>,
    pub verdict: Verdict,
    /// What the counters did, in sentences with the numbers.
    pub measured: String,
}

pub fn analyze(results: &Results) -> Analysis {
    let focus_size = results.suite.sizes.last().map(|s| s.label.clone());
    let steps = names_in_role(results, Role::Step, focus_size.as_deref());
    let ceilings = names_in_role(results, Role::Ceiling, focus_size.as_deref());
    let variants: Vec<VariantAnalysis> = results
        .variants
        .iter()
        .map(|variant| analyze_variant(results, variant, &steps, &ceilings))
        .collect();
    let variants: Vec<VariantAnalysis> = variants
        .iter()
        .map(|analysis| follow_previous(results, analysis, &variants, focus_size.as_deref()))
        .collect();
    let sweeps = match &focus_size {
        Some(size) => sweeps::analyze(results, size, &variants),
        None => Vec::new(),
    };
    Analysis {
        focus_size,
        steps,
        ceilings,
        variants,
        sweeps,
    }
}

/// The variants of one role, in results order, each sweep as its best
/// configuration at `focus_size`.
fn names_in_role(results: &Results, role: Role, focus_size: Option<&str>) -> Vec<String> {
    let groups: std::collections::BTreeSet<&str> = results
        .variants
        .iter()
        .filter_map(|v| Some(v.sweep.as_ref()?.group.as_str()))
        .collect();
    let chosen: Vec<&str> = groups
        .into_iter()
        .filter_map(|group| sweeps::chosen(results, group, focus_size))
        .map(|v| v.name.as_str())
        .collect();
    results
        .variants
        .iter()
        .filter(|v| v.role == role && (v.sweep.is_none() || chosen.contains(&v.name.as_str())))
        .map(|v| v.name.clone())
        .collect()
}

/// The step a variant follows: the one before it in the chain; for a sweep
/// configuration outside the chain, the one before the configuration that
/// stands for its sweep there (every configuration is an alternative to
/// that step, so its changes are judged against the same previous step).
fn previous_step(results: &Results, variant: &VariantResult, steps: &[String]) -> Option<String> {
    let stands_for = match &variant.sweep {
        Some(point) if !steps.contains(&variant.name) => steps.iter().find(|step| {
            results
                .variant(step)
                .and_then(|v| v.sweep.as_ref())
                .is_some_and(|p| p.group == point.group)
        })?,
        _ => &variant.name,
    };
    let position = steps.iter().position(|step| step == stands_for)?;
    position.checked_sub(1).map(|i| steps[i].clone())
}

/// A variant with each run analysed on its own; what it owes the previous
/// step comes from [`follow_previous`] once every variant is analysed.
fn analyze_variant(
    results: &Results,
    variant: &VariantResult,
    steps: &[String],
    ceilings: &[String],
) -> VariantAnalysis {
    let previous = match variant.role {
        Role::Step => previous_step(results, variant, steps),
        Role::Ceiling => None,
    };
    let runs: Vec<RunAnalysis> = variant
        .runs
        .iter()
        .map(|run| analyze_run(results, variant, run, previous.as_deref(), ceilings))
        .collect();
    VariantAnalysis {
        name: variant.name.clone(),
        role: variant.role,
        previous,
        runs,
        changes: Vec::new(),
    }
}

/// The variant with its declared changes judged against the previous step
/// and, for every profiled run, its problem lines followed from the
/// previous step's run at the same size.
fn follow_previous(
    results: &Results,
    analysis: &VariantAnalysis,
    all: &[VariantAnalysis],
    focus_size: Option<&str>,
) -> VariantAnalysis {
    let variant = results
        .variant(&analysis.name)
        .expect("analysed from results");
    let changes = judge_changes(results, variant, analysis, all, focus_size);
    let previous = analysis
        .previous
        .as_ref()
        .and_then(|p| all.iter().find(|v| v.name == *p));
    let runs = analysis
        .runs
        .iter()
        .map(|run| {
            let before = previous.and_then(|p| p.runs.iter().find(|r| r.size == run.size));
            let line_diffs = match (before, &analysis.previous) {
                (Some(before), Some(name)) if run.derived.get(Key::KernelDuration).is_some() => {
                    lines::diff(name, &before.hot_lines, &run.hot_lines)
                }
                _ => Vec::new(),
            };
            let explanation = before.map(|before| {
                explain::explain(
                    &variant.changes,
                    run.vs_previous,
                    &before.derived,
                    &run.derived,
                )
            });
            RunAnalysis {
                line_diffs,
                explanation,
                ..run.clone()
            }
        })
        .collect();
    VariantAnalysis {
        changes,
        runs,
        ..analysis.clone()
    }
}

fn status_of(run: &RunResult) -> Status {
    if let Some(failure) = &run.failure {
        return Status::Failed {
            stage: failure.stage,
            message: failure.message.clone(),
        };
    }
    match &run.check {
        Some(Check::Passed {
            against,
            max_abs_error,
            relative_l2_error,
            ..
        }) => Status::Verified {
            against: against.clone(),
            max_abs_error: *max_abs_error,
            relative_l2_error: *relative_l2_error,
        },
        Some(Check::Failed {
            against,
            buffer,
            mismatches,
            compared,
            first_mismatch_index,
            got,
            want,
            max_abs_error,
            ..
        }) => {
            let location = match first_mismatch_index {
                Some(index) => {
                    format!("first at element {index} of `{buffer}` (got {got}, expected {want})")
                }
                None => format!("the sum of `{buffer}` is {got}, expected {want}"),
            };
            Status::Wrong {
                against: against.clone(),
                summary: format!(
                    "{} of {} elements differ from `{against}`; {location}; largest error {}",
                    format::count(*mismatches as f64),
                    format::count(*compared as f64),
                    format::significant(*max_abs_error, 3)
                ),
            }
        }
        Some(Check::NotChecked { reason }) => Status::Unverified {
            reason: reason.clone(),
        },
        Some(Check::ProgramPassed { expect, line }) => program::passed(expect, line),
        Some(Check::ProgramFailed {
            failure,
            output_tail,
        }) => program::failed(failure, output_tail),
        None => Status::NotRun,
    }
}

/// For a sequence of several kernels, the kernel whose launch the
/// limiter reads and the share of the sequence's ncu time its launches
/// take (`results::explained_launch`).
fn sequence_scope(run: &RunResult) -> Option<String> {
    let explained = crate::model::results::explained_launch(&run.steps)?;
    (explained.kernel_share < 1.0).then(|| {
        format!(
            "{}, {} of the sequence's time",
            explained.kernel,
            format::share(explained.kernel_share)
        )
    })
}

fn analyze_run(
    results: &Results,
    variant: &VariantResult,
    run: &RunResult,
    previous: Option<&str>,
    ceilings: &[String],
) -> RunAnalysis {
    let status = run_status(results, variant, run);
    let shown = timing::time(results, variant, run);
    let timing = shown.map(|(_, stats)| stats);
    let temperature = shown.map(|(kind, _)| kind);
    let against = |other: Option<&str>| -> Option<Speedup> {
        let other = results.variant(other?)?;
        if other.name == variant.name {
            return None;
        }
        let other_run = other.run(&run.size)?;
        timing::compare(results, (other, other_run), (variant, run)).map(|(_, s)| s)
    };
    let vs_baseline = against(Some(results.suite.baseline.as_str()));
    let vs_previous = against(previous);
    let not_a_speedup = status.why_not_a_speedup();
    let seconds = timing.map(|t| t.median_ms / 1e3);
    let per_second = |amount: Option<f64>| match (amount, seconds) {
        (Some(a), Some(s)) if a > 0.0 && s > 0.0 => Some(a / s),
        _ => None,
    };
    let bytes_per_second = per_second(run.bytes);
    let flops_per_second = per_second(run.flops);
    let device = results.device.as_ref();
    let ceiling_shares = ceiling_shares(
        results,
        variant,
        run,
        ceilings,
        bytes_per_second,
        flops_per_second,
    );
    let lines_of = variant.lines_of(run);
    let lines_profile = lines_of.as_ref().map(|l| &*l.profile);
    let whole = run.whole_profile();
    let derived = derived::derive(whole.as_deref(), lines_profile, timing.map(|t| t.median_ms));
    let hot_lines = lines_profile
        .map(|p| findings::hot_lines(p, &variant.source_text))
        .unwrap_or_default();
    let findings = findings::findings(
        &derived,
        run.profile.as_ref(),
        lines_profile,
        &hot_lines,
        device,
        findings::DataSize {
            declared: run.bytes,
            buffers: run.buffer_bytes,
        },
        temperature,
    );
    let scope = sequence_scope(run);
    let limit = limits::limit(&evidence::Evidence::gather(
        results,
        variant,
        run,
        lines_profile,
        &derived,
        &findings,
        evidence::Evidence::ceilings(results, &ceiling_shares, bytes_per_second),
    ))
    .map(|limit| limits::Limit { scope, ..limit });
    RunAnalysis {
        size: run.size.clone(),
        status,
        timing,
        temperature,
        other_timing: temperature.and_then(|kind| timing::differing_other(variant, run, kind)),
        timing_method: temperature.map(|kind| timing::method(variant, run, kind)),
        vs_baseline,
        vs_previous,
        not_a_speedup,
        bytes_per_second,
        flops_per_second,
        dram_peak_share: bytes_per_second
            .zip(device.map(|d| d.peak_dram_bytes_per_second))
            .map(|(a, p)| a / p),
        flops_peak_share: flops_per_second
            .zip(device.and_then(|d| d.peak_fp32_flops_per_second))
            .map(|(a, p)| a / p),
        ceilings: ceiling_shares,
        derived,
        findings,
        hot_lines,
        lines_taken_at: lines_of.and_then(|l| l.taken_at).map(str::to_string),
        limit,
        line_diffs: Vec::new(),
        explanation: None,
    }
}

/// The run's status, where an unverified baseline says why it is not checked.
fn run_status(results: &Results, variant: &VariantResult, run: &RunResult) -> Status {
    match status_of(run) {
        Status::Unverified { .. } if variant.name == results.suite.baseline => Status::Unverified {
            reason: "this is the baseline: the other variants are checked against its outputs"
                .into(),
        },
        status => status,
    }
}

/// The run's FLOP/s (when both count FLOPs) or bandwidth as a share of
/// what each other ceiling variant reached at the same size.
fn ceiling_shares(
    results: &Results,
    variant: &VariantResult,
    run: &RunResult,
    ceilings: &[String],
    bytes_per_second: Option<f64>,
    flops_per_second: Option<f64>,
) -> Vec<CeilingShare> {
    ceilings
        .iter()
        .filter(|c| **c != variant.name)
        .filter_map(|name| {
            let ceiling = results.variant(name)?;
            let ceiling_run = ceiling.run(&run.size)?;
            let ceiling_seconds = timing::median_at(results, ceiling, &run.size)? / 1e3;
            let (measure, mine, theirs) =
                match (flops_per_second, ceiling_run.flops.filter(|f| *f > 0.0)) {
                    (Some(mine), Some(flops)) => ("FLOP/s", mine, flops / ceiling_seconds),
                    _ => (
                        "bandwidth",
                        bytes_per_second?,
                        ceiling_run.bytes? / ceiling_seconds,
                    ),
                };
            Some(CeilingShare {
                ceiling: name.clone(),
                measure,
                share: mine / theirs,
            })
        })
        .collect()
}

fn judge_changes(
    results: &Results,
    variant: &VariantResult,
    analysis: &VariantAnalysis,
    all: &[VariantAnalysis],
    focus_size: Option<&str>,
) -> Vec<ChangeAnalysis> {
    let previous = analysis
        .previous
        .as_ref()
        .and_then(|p| all.iter().find(|v| v.name == *p));
    let run_at = |v: &VariantAnalysis| {
        focus_size
            .and_then(|size| v.runs.iter().find(|r| r.size == size))
            .cloned()
    };
    let after = run_at(analysis);
    let before = previous.and_then(run_at);
    variant
        .changes
        .iter()
        .map(|change| {
            let entry = knowledge::entry(*change);
            let expectations: Vec<ExpectationOutcome> = entry
                .expect
                .iter()
                .map(|expectation| {
                    // Across a change of access width only the ratio to
                    // ncu's ideal compares, so it replaces a count per
                    // request or instruction where both runs have it.
                    let (metric, ideal) = match (&before, &after) {
                        (Some(b), Some(a)) => {
                            let metric = expectation.metric.comparable(&b.derived, &a.derived);
                            let ideal = if metric == expectation.metric {
                                expectation.ideal
                            } else {
                                Some(1.0)
                            };
                            (metric, ideal)
                        }
                        _ => (expectation.metric, expectation.ideal),
                    };
                    let value = |run: &Option<RunAnalysis>| {
                        run.as_ref().and_then(|r| r.derived.get(metric))
                    };
                    let (b, a) = (value(&before), value(&after));
                    let measured = if metric == Key::Time {
                        time_verdict(before.as_ref(), after.as_ref(), expectation.direction)
                    } else {
                        movement_verdict(metric, b, a, expectation.direction)
                    };
                    // Nothing to fix: the previous step was already at the
                    // ideal and the metric stayed there.
                    let already_ideal = ideal
                        .zip(b)
                        .is_some_and(|(ideal, before)| before <= ideal * 1.1);
                    // A fall expected from nothing: the previous step had
                    // none of what the counter counts.
                    let none_before = expectation.direction == Direction::Down
                        && metric != Key::Time
                        && b == Some(0.0);
                    let verdict = if none_before {
                        Verdict::NoneBefore
                    } else if matches!(measured, Verdict::NotSeen | Verdict::Small) && already_ideal
                    {
                        Verdict::AlreadyIdeal
                    } else {
                        measured
                    };
                    ExpectationOutcome {
                        metric,
                        label: metric.info().label,
                        direction: expectation.direction,
                        why: expectation.why.clone(),
                        before: b,
                        after: a,
                        verdict,
                    }
                })
                .collect();
            let verdict = overall(&expectations);
            let mut measured = describe_change(
                &expectations,
                before.as_ref(),
                after.as_ref(),
                previous.map(|p| p.name.as_str()),
            );
            let lines_of = |name: &str| {
                let variant = results.variant(name)?;
                variant.lines_of(variant.run(focus_size?)?)
            };
            let carried = previous.and_then(|p| {
                let (before, after) = (lines_of(&p.name)?, lines_of(&variant.name)?);
                let (before, after) = (&before.profile.source_lines, &after.profile.source_lines);
                expectations
                    .iter()
                    .filter(|e| e.verdict.moved())
                    .find_map(|e| carrier::carrier(e.metric, &p.name, before, after))
            });
            if let Some(carried) = carried {
                measured.push(' ');
                measured.push_str(&carried);
            }
            ChangeAnalysis {
                change: *change,
                title: entry.title.clone(),
                mechanism: entry.mechanism.clone(),
                outcome: verdict.outcome().to_string(),
                next: knowledge::next_step(
                    *change,
                    after
                        .as_ref()
                        .and_then(|r| r.limit.as_ref())
                        .map(|l| &l.facts),
                )
                .unwrap_or_default(),
                size: focus_size.map(str::to_string),
                expectations,
                verdict,
                measured,
            }
        })
        .collect()
}

fn movement_verdict(
    metric: Key,
    before: Option<f64>,
    after: Option<f64>,
    direction: Direction,
) -> Verdict {
    let (Some(before), Some(after)) = (before, after) else {
        return Verdict::NotMeasured;
    };
    let moved = movement::between(metric, before, after);
    let expected = moved.up == (direction == Direction::Up);
    match (moved.size, expected) {
        (movement::Size::Unchanged, _) => Verdict::NotSeen,
        (movement::Size::Small, true) => Verdict::Small,
        (movement::Size::Small, false) => Verdict::SmallOpposite,
        (movement::Size::Clear, true) => Verdict::Confirmed,
        (movement::Size::Clear, false) => Verdict::Contradicted,
    }
}

/// The change's verdict on time: the step's speedup over the previous
/// step (`after.vs_previous`, which compared the two on the same kind of
/// samples).
fn time_verdict(
    before: Option<&RunAnalysis>,
    after: Option<&RunAnalysis>,
    direction: Direction,
) -> Verdict {
    let (Some(_), Some(after)) = (before, after) else {
        return Verdict::NotMeasured;
    };
    let Some(speedup) = after.vs_previous else {
        return Verdict::NotMeasured;
    };
    if !after.status.is_trusted() {
        return Verdict::NotMeasured;
    }
    match (speedup.verdict, direction) {
        (TimeVerdict::Same, _) => Verdict::NotSeen,
        (TimeVerdict::Faster, Direction::Down) | (TimeVerdict::Slower, Direction::Up) => {
            Verdict::Confirmed
        }
        _ => Verdict::Contradicted,
    }
}

/// No expectation for a change the knowledge base expects nothing of;
/// contradicted if anything was clearly contradicted; confirmed if every
/// measured expectation moved the expected way and at least one clearly
/// (a small move the right way does not undo a confirmation); partly if
/// some moved the expected way; not seen otherwise.
fn overall(expectations: &[ExpectationOutcome]) -> Verdict {
    if expectations.is_empty() {
        return Verdict::NoExpectation;
    }
    let measured: Vec<Verdict> = expectations
        .iter()
        .map(|e| e.verdict)
        .filter(|v| {
            !matches!(
                v,
                Verdict::NotMeasured | Verdict::NoneBefore | Verdict::AlreadyIdeal
            )
        })
        .collect();
    let expected_way = |v: &Verdict| matches!(v, Verdict::Confirmed | Verdict::Small);
    if measured.is_empty() {
        Verdict::NotMeasured
    } else if measured.contains(&Verdict::Contradicted) {
        Verdict::Contradicted
    } else if measured.iter().all(expected_way) && measured.contains(&Verdict::Confirmed) {
        Verdict::Confirmed
    } else if measured.iter().any(expected_way) {
        Verdict::Partly
    } else {
        Verdict::NotSeen
    }
}

/// Metrics that got clearly worse (see [`movement`]): the usual reasons a
/// step does not pay off. More registers or shared memory per block are a
/// price, not a harm in themselves: they are named only where they now
/// limit the blocks per SM and theoretical occupancy fell (see
/// [`costly_resources`]).
const SIDE_EFFECTS: [Key; 5] = [
    Key::AchievedOccupancy,
    Key::TheoreticalOccupancy,
    Key::LocalMemorySectors,
    Key::SharedLoadWavefrontsPerInstruction,
    Key::DramBytes,
];

/// Registers per thread and shared memory per block where they grew, now
/// limit the blocks per SM, and theoretical occupancy fell with them.
fn costly_resources(before: &Derived, after: &Derived) -> Vec<Key> {
    let occupancy_fell = match (
        before.get(Key::TheoreticalOccupancy),
        after.get(Key::TheoreticalOccupancy),
    ) {
        (Some(b), Some(a)) => a < b,
        _ => false,
    };
    [
        (Key::RegistersPerThread, derived::Limiter::Registers),
        (Key::SharedMemoryPerBlock, derived::Limiter::SharedMemory),
    ]
    .into_iter()
    .filter(|(key, limiter)| {
        occupancy_fell
            && after.limiters.contains(limiter)
            && before
                .get(*key)
                .zip(after.get(*key))
                .is_some_and(|(b, a)| a > b)
    })
    .map(|(key, _)| key)
    .collect()
}

fn describe_change(
    expectations: &[ExpectationOutcome],
    before: Option<&RunAnalysis>,
    after: Option<&RunAnalysis>,
    previous: Option<&str>,
) -> String {
    if expectations.is_empty() {
        return "gpuprof has no knowledge of this change and expects nothing of the counters, so it gives no verdict.".into();
    }
    let Some(previous) = previous else {
        return "This is the first step of the chain, so there is nothing to compare with.".into();
    };
    let (Some(before), Some(after)) = (before, after) else {
        return format!(
            "`{previous}` or this variant has no result at this size, so the change cannot be judged."
        );
    };
    let mut sentences = Vec::new();
    for e in expectations {
        let verb = match e.verdict {
            Verdict::Confirmed => "moved as expected",
            Verdict::Small => "moved the expected way, but only a little",
            Verdict::SmallOpposite => "moved a little the wrong way",
            Verdict::Partly => "moved in part",
            Verdict::NotSeen => "barely moved",
            Verdict::Contradicted => "moved the wrong way",
            Verdict::NotMeasured | Verdict::NoExpectation => "was not measured",
            Verdict::NoneBefore => "cannot be judged against a step that had none",
            Verdict::AlreadyIdeal => "was already at its ideal before this step",
        };
        match (e.before, e.after) {
            (Some(b), Some(a)) => sentences.push(format!(
                "{} {verb}: {} → {} ({}).",
                format::capitalize(e.label),
                e.metric.format(b),
                e.metric.format(a),
                e.why
            )),
            _ => sentences.push(format!("{} {verb}.", format::capitalize(e.label))),
        }
    }
    if expectations.iter().any(|e| {
        matches!(
            e.verdict,
            Verdict::Contradicted | Verdict::NotSeen | Verdict::SmallOpposite
        )
    }) {
        let worse = SIDE_EFFECTS
            .iter()
            .map(|key| key.comparable(&before.derived, &after.derived))
            .filter(|key| {
                let (Some(b), Some(a)) = (before.derived.get(*key), after.derived.get(*key)) else {
                    return false;
                };
                let moved = movement::between(*key, b, a);
                moved.size == movement::Size::Clear && moved.better(*key) == Some(false)
            });
        let side_effects: Vec<String> = worse
            .chain(costly_resources(&before.derived, &after.derived))
            .filter(|key| !expectations.iter().any(|e| e.metric == *key))
            .filter_map(|key| {
                let (b, a) = (before.derived.get(key)?, after.derived.get(key)?);
                Some(format!(
                    "{} {} → {}",
                    key.info().label,
                    key.format(b),
                    key.format(a)
                ))
            })
            .collect();
        if !side_effects.is_empty() {
            sentences.push(format!(
                "Meanwhile other counters got worse: {}.",
                side_effects.join("; ")
            ));
        }
    }
    sentences.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::findings::{FindingKind, Severity};
    use crate::ncu::probe::probe_results;

    fn run<'a>(analysis: &'a Analysis, variant: &str) -> &'a RunAnalysis {
        &analysis
            .variants
            .iter()
            .find(|v| v.name == variant)
            .unwrap()
            .runs[0]
    }

    #[test]
    fn the_chain_leaves_out_ceilings() {
        let analysis = analyze(&probe_results());
        assert_eq!(analysis.steps, ["naive", "tiled", "padded"]);
        assert_eq!(analysis.ceilings, ["copy"]);
        let padded = analysis
            .variants
            .iter()
            .find(|v| v.name == "padded")
            .unwrap();
        assert_eq!(padded.previous.as_deref(), Some("tiled"));
        let naive = analysis
            .variants
            .iter()
            .find(|v| v.name == "naive")
            .unwrap();
        assert_eq!(naive.previous, None);
    }

    #[test]
    fn the_tiled_transpose_is_a_32_way_conflict_on_line_22() {
        let analysis = analyze(&probe_results());
        let tiled = run(&analysis, "tiled");
        let conflict = tiled
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::BankConflicts)
            .unwrap();
        assert_eq!(conflict.severity, Severity::Problem);
        assert_eq!(
            conflict.title,
            "32-way shared-memory bank conflicts on loads"
        );
        assert_eq!(conflict.lines, [22]);
        assert!(
            conflict
                .detail
                .contains("tile[threadIdx.x][threadIdx.y + j]"),
            "{}",
            conflict.detail
        );
        assert!(
            conflict.detail.contains("4,092,093"),
            "the raw counter is shown beside: {}",
            conflict.detail
        );
        assert_eq!(tiled.hot_lines[0].line, 22);
        assert_eq!(tiled.hot_lines[0].shared_ways, Some(32.0));
    }

    #[test]
    fn the_padded_tile_is_conflict_free_although_the_raw_counter_is_not_zero() {
        let analysis = analyze(&probe_results());
        let padded = run(&analysis, "padded");
        let note = padded
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::BankConflicts)
            .unwrap();
        assert_eq!(note.severity, Severity::Info);
        assert!(
            note.title
                .contains("conflict-free (1.07 wavefronts per instruction)"),
            "{}",
            note.title
        );
        assert!(note.detail.contains("8,930"), "{}", note.detail);
    }

    #[test]
    fn naive_stores_are_uncoalesced_even_without_source_counters() {
        let analysis = analyze(&probe_results());
        let naive = run(&analysis, "naive");
        let finding = naive
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::Uncoalesced)
            .unwrap();
        assert_eq!(
            finding.title,
            "uncoalesced global stores: 32.0 sectors per request"
        );
        let copy = run(&analysis, "copy");
        assert!(
            copy.findings
                .iter()
                .all(|f| f.kind != FindingKind::Uncoalesced)
        );
    }

    #[test]
    fn declared_changes_are_judged_against_the_previous_step() {
        let analysis = analyze(&probe_results());
        let padded = analysis
            .variants
            .iter()
            .find(|v| v.name == "padded")
            .unwrap();
        let padding = &padded.changes[0];
        assert_eq!(padding.change, Change::Padding);
        let wavefronts = &padding.expectations[0];
        assert_eq!(wavefronts.metric, Key::SharedLoadWavefrontsPerInstruction);
        assert_eq!(wavefronts.verdict, Verdict::Confirmed);
        assert!(
            padding.measured.contains("32.2 → 1.07"),
            "{}",
            padding.measured
        );
        // No timing in the probe fixtures: time is not measured, so the
        // change is confirmed on the counters that were.
        let time = padding
            .expectations
            .iter()
            .find(|e| e.metric == Key::Time)
            .unwrap();
        assert_eq!(time.verdict, Verdict::NotMeasured);
        // The tiled kernel's shared stores were conflict-free already.
        let stores = padding
            .expectations
            .iter()
            .find(|e| e.metric == Key::SharedStoreWavefrontsPerInstruction)
            .unwrap();
        assert_eq!(stores.verdict, Verdict::AlreadyIdeal);
        assert_eq!(padding.verdict, Verdict::Confirmed);
        let tiled = analysis
            .variants
            .iter()
            .find(|v| v.name == "tiled")
            .unwrap();
        let stores = &tiled.changes[0].expectations[0];
        assert_eq!(stores.metric, Key::GlobalStoreSectorsPerRequest);
        assert_eq!(stores.verdict, Verdict::Confirmed);
    }

    #[test]
    fn a_change_that_moves_its_counter_the_wrong_way_is_contradicted() {
        let mut results = probe_results();
        // Declare padding on the tiled kernel: against the naive kernel its
        // shared wavefronts per instruction go from none to 32.
        results.variants[2].changes = vec![Change::Padding];
        let naive = results.variants[1].runs[0].profile.as_mut().unwrap();
        naive.metrics.insert(
            crate::model::metrics::SHARED_LOAD_INSTRUCTIONS.into(),
            131072.0,
        );
        naive.metrics.insert(
            crate::model::metrics::SHARED_LOAD_WAVEFRONTS.into(),
            131072.0,
        );
        let analysis = analyze(&results);
        let tiled = analysis
            .variants
            .iter()
            .find(|v| v.name == "tiled")
            .unwrap();
        assert_eq!(
            tiled.changes[0].expectations[0].verdict,
            Verdict::Contradicted
        );
        assert_eq!(tiled.changes[0].verdict, Verdict::Contradicted);
        assert!(
            tiled.changes[0]
                .measured
                .contains("moved the wrong way: 1.00 → 32.2"),
            "{}",
            tiled.changes[0].measured
        );
    }

    #[test]
    fn a_fall_expected_from_nothing_is_not_judged_against_the_step_that_had_none() {
        let mut results = probe_results();
        // Register blocking declared on the tiled kernel; the naive kernel
        // before it does FMAs but has no shared loads (0 per FMA), the
        // tiled one some: the shared loads per FMA rise from nothing.
        results.variants[2].changes = vec![Change::RegisterBlocking];
        for (index, shared_loads) in [(1, 0.0), (2, 4096.0)] {
            let profile = results.variants[index].runs[0].profile.as_mut().unwrap();
            profile.metrics.insert(
                crate::model::metrics::FFMA_THREAD_INSTRUCTIONS.into(),
                32.0 * 65536.0,
            );
            profile.metrics.insert(
                crate::model::metrics::SHARED_LOAD_INSTRUCTIONS.into(),
                shared_loads,
            );
        }
        let analysis = analyze(&results);
        let tiled = analysis
            .variants
            .iter()
            .find(|v| v.name == "tiled")
            .unwrap();
        let blocking = &tiled.changes[0];
        let per_fma = &blocking.expectations[0];
        assert_eq!(per_fma.metric, Key::SharedLoadsPerFma);
        assert_eq!((per_fma.before, per_fma.after), (Some(0.0), Some(0.0625)));
        assert_eq!(per_fma.verdict, Verdict::NoneBefore);
        assert_ne!(blocking.verdict, Verdict::Contradicted);
        assert!(
            blocking
                .measured
                .contains("cannot be judged against a step that had none: 0 → 0.0625"),
            "{}",
            blocking.measured
        );
    }

    fn outcome(verdict: Verdict) -> ExpectationOutcome {
        ExpectationOutcome {
            metric: Key::DramBytes,
            label: "DRAM bytes",
            direction: Direction::Down,
            why: String::new(),
            before: None,
            after: None,
            verdict,
        }
    }

    #[test]
    fn a_move_just_under_ten_percent_is_small_not_unseen() {
        let verdict = |b, a| movement_verdict(Key::DramBytes, Some(b), Some(a), Direction::Down);
        assert_eq!(verdict(100.0, 90.1), Verdict::Small);
        assert_eq!(verdict(100.0, 89.0), Verdict::Confirmed);
        assert_eq!(verdict(100.0, 98.0), Verdict::NotSeen);
        assert_eq!(verdict(90.1, 100.0), Verdict::SmallOpposite);
        assert_eq!(verdict(89.0, 100.0), Verdict::Contradicted);
        // A deterministic counter moves from 1%.
        let counter = movement_verdict(
            Key::WarpInstructions,
            Some(100.0),
            Some(98.0),
            Direction::Down,
        );
        assert_eq!(counter, Verdict::Small);
        assert_eq!(
            movement_verdict(Key::DramBytes, None, Some(1.0), Direction::Down),
            Verdict::NotMeasured
        );
    }

    #[test]
    fn the_overall_verdict_weighs_small_moves_the_expected_way() {
        let overall_of = |verdicts: &[Verdict]| {
            overall(&verdicts.iter().map(|v| outcome(*v)).collect::<Vec<_>>())
        };
        use Verdict::*;
        assert_eq!(overall_of(&[]), NoExpectation);
        assert_eq!(overall_of(&[NotMeasured, AlreadyIdeal]), NotMeasured);
        assert_eq!(overall_of(&[Confirmed, Small]), Confirmed);
        assert_eq!(overall_of(&[Small, NotSeen]), Partly);
        assert_eq!(overall_of(&[Small]), Partly);
        assert_eq!(overall_of(&[Confirmed, SmallOpposite]), Partly);
        assert_eq!(overall_of(&[Confirmed, Contradicted]), Contradicted);
        assert_eq!(overall_of(&[NotSeen, SmallOpposite]), NotSeen);
    }

    #[test]
    fn a_wrong_output_is_never_a_speedup() {
        let mut results = probe_results();
        for variant in &mut results.variants {
            variant.runs[0].samples_ms = vec![1.0, 1.0, 1.0];
        }
        results.variants[3].runs[0].samples_ms = vec![0.5, 0.5, 0.5];
        results.variants[3].runs[0].check = Some(Check::Failed {
            against: "naive".into(),
            buffer: "out".into(),
            mismatches: 3,
            compared: 10,
            first_mismatch_index: Some(7),
            got: 1.0,
            want: 2.0,
            max_abs_error: 1.0,
            relative_l2_error: 0.5,
        });
        let analysis = analyze(&results);
        let padded = run(&analysis, "padded");
        assert_eq!(padded.vs_baseline.unwrap().ratio, 2.0);
        assert!(padded.not_a_speedup.is_some());
        match &padded.status {
            Status::Wrong { summary, .. } => {
                assert!(summary.contains("first at element 7 of `out`"), "{summary}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn more_registers_are_named_only_where_they_now_cost_occupancy() {
        let derived = |registers: f64, occupancy: f64, limiters: Vec<derived::Limiter>| Derived {
            values: [
                (Key::RegistersPerThread, registers),
                (Key::TheoreticalOccupancy, occupancy),
            ]
            .into_iter()
            .collect(),
            limiters,
            blocks_per_sm: None,
        };
        let before = derived(19.0, 100.0, vec![derived::Limiter::Warps]);
        // More registers that still fit: a price, not a harm.
        let fits = derived(32.0, 100.0, vec![derived::Limiter::Warps]);
        assert!(costly_resources(&before, &fits).is_empty());
        // More registers that now cap the blocks and cut occupancy.
        let limits = derived(128.0, 25.0, vec![derived::Limiter::Registers]);
        assert_eq!(
            costly_resources(&before, &limits),
            [Key::RegistersPerThread]
        );
    }
}
