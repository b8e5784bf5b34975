//! analysis.json: the report's conclusions in a versioned format for
//! scripts (a grading script, a CI job), and the same conclusions as one
//! CSV row per variant and size. Per variant and size: the median time and
//! its spread, the speedups against the baseline and the previous step
//! with their noise verdicts, the correctness, what explains the step,
//! what limits it and on what basis, the findings and the costliest source
//! lines; per variant, each declared change's verdict with its expected
//! counters. Built from [`Analysis`] into types of its own, so that the
//! format (docs/analysis-json.md, field by field) changes only when this
//! file does: every enum is matched here and written in kebab-case.
//! Metric ids are the knowledge base's (`derived::Key`); change words,
//! roles and failure stages are results.json's.

use serde::Serialize;

use super::derived::Key;
use super::findings::{Finding, HotLine};
use super::stats::Speedup;
use super::{
    Analysis, ChangeAnalysis, ExpectationOutcome, RunAnalysis, Status, VariantAnalysis, evidence,
    explain, findings, knowledge, limits, stats,
};
use crate::model::results::Stage;
use crate::model::timing::Temperature;
use crate::model::variant::Role;
use crate::model::{Change, Results};

/// The value of `schema` in every analysis.json.
pub const SCHEMA: &str = "gpuprof-analysis";
/// Bumped whenever a field is renamed or removed or changes its meaning;
/// added fields keep the version.
pub const VERSION: u32 = 2;

/// Everything the report concludes, for analysis.json.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Conclusions {
    pub schema: &'static str,
    pub version: u32,
    /// The gpuprof that drew these conclusions.
    pub gpuprof: &'static str,
    pub suite: String,
    pub baseline: String,
    /// Size labels in the suite's order.
    pub sizes: Vec<String>,
    /// The size the chain and the change verdicts are judged at (the
    /// largest).
    pub focus_size: Option<String>,
    /// Step variants in chain order.
    pub chain: Vec<String>,
    pub ceilings: Vec<String>,
    pub variants: Vec<VariantConclusions>,
    /// Each parameter sweep, its configurations ranked at the focus size
    /// (each configuration is also among `variants`).
    pub sweeps: Vec<SweepConclusions>,
}

/// A parameter sweep: the configuration the chain takes, every
/// configuration by time, the combinations the constraint ruled out.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepConclusions {
    /// The variant's name as written.
    pub group: String,
    pub parameters: Vec<String>,
    /// The size the configurations are ranked at.
    pub size: String,
    /// The fastest configuration that ran and was not wrong: the chain's
    /// step.
    pub best: Option<String>,
    pub summary: String,
    pub configurations: Vec<SweepConfiguration>,
    pub skipped: Vec<SkippedCombination>,
    /// What separates the best from the slowest profiled configuration.
    pub contrast: Option<String>,
}

/// One configuration of a sweep, fastest first (those without a time
/// last).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepConfiguration {
    /// Its variant's name.
    pub name: String,
    pub parameters: std::collections::BTreeMap<String, i64>,
    pub median_ms: Option<f64>,
    /// Its median over the best's (1 for the best).
    pub times_best: Option<f64>,
    pub correctness: Correctness,
    pub profiled: bool,
}

/// A combination the constraint ruled out, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SkippedCombination {
    pub parameters: std::collections::BTreeMap<String, i64>,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VariantConclusions {
    pub name: String,
    pub role: Role,
    /// The step before this one in the chain.
    pub previous: Option<String>,
    /// One per declared change, judged at the focus size.
    pub changes: Vec<ChangeConclusion>,
    /// One per size the variant ran at.
    pub runs: Vec<RunConclusions>,
}

/// Whether a declared change did to the counters what the knowledge base
/// expects of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChangeConclusion {
    pub change: Change,
    pub title: String,
    pub size: Option<String>,
    pub verdict: ChangeVerdict,
    /// What the counters did, in sentences with the numbers.
    pub measured: String,
    pub expectations: Vec<ExpectationConclusion>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpectationConclusion {
    pub metric: Key,
    pub label: &'static str,
    pub direction: Direction,
    pub before: Option<f64>,
    pub after: Option<f64>,
    pub verdict: ChangeVerdict,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChangeVerdict {
    Confirmed,
    Small,
    SmallOpposite,
    Partly,
    NotSeen,
    Contradicted,
    NotMeasured,
    NoneBefore,
    AlreadyIdeal,
    NoExpectation,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    Up,
    Down,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunConclusions {
    pub size: String,
    pub correctness: Correctness,
    /// Absent without timed launches.
    pub timing: Option<Timing>,
    pub vs_baseline: Option<Comparison>,
    pub vs_previous: Option<Comparison>,
    /// Why the ratios above are not speedups (a wrong output, a failed
    /// run); their verdict is then `not-a-speedup`.
    pub not_a_speedup: Option<String>,
    /// What explains the time against the previous step at this size.
    pub explanation: Option<ExplanationConclusion>,
    pub limiter: Option<Limiter>,
    pub findings: Vec<FindingConclusion>,
    pub hot_lines: Vec<HotLineConclusion>,
    /// The size the per-line counters behind `hot_lines` and the line
    /// findings were taken at, when not this run's own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines_taken_at: Option<String>,
}

/// Whether the run's output can be trusted, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum Correctness {
    Verified {
        against: String,
        max_abs_error: f64,
        relative_l2_error: f64,
    },
    Wrong {
        against: String,
        detail: String,
    },
    Unverified {
        detail: String,
    },
    CheckedByProgram {
        detail: String,
    },
    Failed {
        stage: Stage,
        detail: String,
    },
    /// Never started: the run was interrupted before it.
    NotRun,
}

impl Correctness {
    /// The `status` word the JSON writes, for the CSV.
    pub fn word(&self) -> &'static str {
        match self {
            Correctness::Verified { .. } => "verified",
            Correctness::Wrong { .. } => "wrong",
            Correctness::Unverified { .. } => "unverified",
            Correctness::CheckedByProgram { .. } => "checked-by-program",
            Correctness::Failed { .. } => "failed",
            Correctness::NotRun => "not-run",
        }
    }
}

/// The median of the samples of one kind and their spread.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Timing {
    /// `cold` (the L2 flushed before each sample) or `hot` (the kernel ran
    /// right before).
    pub temperature: Temperature,
    pub median_ms: f64,
    /// The 95% bootstrap interval of the median.
    pub median_interval_ms: [f64; 2],
    /// Median absolute deviation × 1.4826 over the median.
    pub relative_noise: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub samples: usize,
    /// How the samples were taken, in words.
    pub method: String,
    /// The other kind's median, when it differs beyond the noise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other: Option<OtherTiming>,
}

/// The kind of samples not shown as the headline, where it differs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OtherTiming {
    pub temperature: Temperature,
    pub median_ms: f64,
    pub median_interval_ms: [f64; 2],
    pub relative_noise: f64,
    pub samples: usize,
}

/// Another variant's median over this one's, with the noise verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    pub against: String,
    pub speedup: f64,
    pub verdict: SpeedupVerdict,
    /// The 95% bootstrap interval of `speedup`: faster or slower needs it
    /// to exclude 1 (and the medians to differ by more than 1%).
    pub interval: [f64; 2],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum SpeedupVerdict {
    Faster,
    Slower,
    Same,
    NotASpeedup,
}

impl SpeedupVerdict {
    /// The word the JSON writes, for the CSV.
    pub fn word(self) -> &'static str {
        match self {
            SpeedupVerdict::Faster => "faster",
            SpeedupVerdict::Slower => "slower",
            SpeedupVerdict::Same => "same",
            SpeedupVerdict::NotASpeedup => "not-a-speedup",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExplanationConclusion {
    pub text: String,
    pub counter: Option<CitedCounter>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CitedCounter {
    pub metric: Key,
    pub label: &'static str,
    pub before: f64,
    pub after: f64,
    /// Whether a declared change expected the move.
    pub declared: bool,
    /// Whether the step was faster (else slower) than the previous one.
    pub faster: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Limiter {
    pub bottleneck: String,
    /// For a sequence of several kernels, the kernel the bottleneck was
    /// chosen on and its share of the sequence's time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    pub evidence: String,
    pub advice: String,
    /// The change the advice proposes, if it names one.
    pub next_change: Option<Change>,
    pub basis: LimiterBasis,
}

/// The rule that named the bottleneck, with the numbers it weighed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "rule")]
pub enum LimiterBasis {
    Access {
        finding: FindingKind,
        /// Absent without source counters.
        traffic_share: Option<f64>,
        stall_share: Option<f64>,
    },
    Spills,
    SpeedOfLight {
        ceiling: String,
        share_of_ceiling: f64,
        ceiling_share_of_device_peak: f64,
    },
    Unit {
        unit: ThroughputUnit,
        busy_percent: f64,
        level: Level,
        issue_stall_share: Option<f64>,
    },
    Latency {
        busiest_percent: f64,
    },
    SmallGrid {
        unit: ThroughputUnit,
        busy_percent: f64,
        waves_per_sm: f64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ThroughputUnit {
    Issue,
    Dram,
    L1Shared,
}

/// Where a throughput stands against the 60–80% band.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    Below,
    Between,
    Above,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FindingConclusion {
    pub kind: FindingKind,
    pub severity: Severity,
    pub title: String,
    pub detail: String,
    /// Source lines it points at.
    pub lines: Vec<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    Uncoalesced,
    BankConflicts,
    Occupancy,
    Waves,
    OtherFiles,
    Spills,
    ExtraTraffic,
    CacheResident,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Info,
    Warning,
    Problem,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HotLineConclusion {
    pub line: u32,
    pub code: String,
    /// Share of the kernel's warp-stall samples.
    pub stall_share: Option<f64>,
    /// Share of the kernel's executed instructions.
    pub instruction_share: Option<f64>,
}

/// The columns of [`Conclusions::summary_csv`].
const CSV_HEADER: [&str; 14] = [
    "suite",
    "size",
    "variant",
    "role",
    "median_ms",
    "temperature",
    "relative_noise",
    "speedup_vs_baseline",
    "verdict_vs_baseline",
    "speedup_vs_previous",
    "verdict_vs_previous",
    "correct",
    "limiter",
    "top_finding",
];

impl Conclusions {
    /// What `analysis` concludes of `results`, in the format's terms.
    pub fn of(results: &Results, analysis: &Analysis) -> Conclusions {
        Conclusions {
            schema: SCHEMA,
            version: VERSION,
            gpuprof: env!("CARGO_PKG_VERSION"),
            suite: results.suite.name.clone(),
            baseline: results.suite.baseline.clone(),
            sizes: results
                .suite
                .sizes
                .iter()
                .map(|s| s.label.clone())
                .collect(),
            focus_size: analysis.focus_size.clone(),
            chain: analysis.steps.clone(),
            ceilings: analysis.ceilings.clone(),
            variants: analysis
                .variants
                .iter()
                .map(|v| variant(v, &results.suite.baseline))
                .collect(),
            sweeps: analysis.sweeps.iter().map(sweep).collect(),
        }
    }

    /// analysis.json's text: pretty-printed, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("the conclusions serialize");
        text.push('\n');
        text
    }

    /// One row per size and variant (sizes in the suite's order, variants
    /// in results order) under a header row; empty cells where there is
    /// nothing to say; quoted where a cell holds a comma, a quote or a
    /// line break.
    pub fn summary_csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let mut write = |row: &[String]| {
            writer
                .write_record(row)
                .expect("a CSV row writes into memory");
        };
        write(&CSV_HEADER.map(String::from));
        for size in &self.sizes {
            for variant in &self.variants {
                if let Some(run) = variant.runs.iter().find(|r| r.size == *size) {
                    write(&self.csv_row(variant, run));
                }
            }
        }
        let bytes = writer.into_inner().expect("an in-memory CSV flushes");
        String::from_utf8(bytes).expect("the CSV is made of UTF-8 strings")
    }

    fn csv_row(&self, variant: &VariantConclusions, run: &RunConclusions) -> Vec<String> {
        let number = |value: Option<f64>| value.map(|v| v.to_string()).unwrap_or_default();
        let speedup = |c: &Option<Comparison>| number(c.as_ref().map(|c| c.speedup));
        let verdict = |c: &Option<Comparison>| {
            c.as_ref()
                .map(|c| c.verdict.word().to_string())
                .unwrap_or_default()
        };
        vec![
            self.suite.clone(),
            run.size.clone(),
            variant.name.clone(),
            match variant.role {
                Role::Step => "step",
                Role::Ceiling => "ceiling",
            }
            .to_string(),
            number(run.timing.as_ref().map(|t| t.median_ms)),
            run.timing
                .as_ref()
                .map(|t| t.temperature.word().to_string())
                .unwrap_or_default(),
            number(run.timing.as_ref().map(|t| t.relative_noise)),
            speedup(&run.vs_baseline),
            verdict(&run.vs_baseline),
            speedup(&run.vs_previous),
            verdict(&run.vs_previous),
            run.correctness.word().to_string(),
            run.limiter
                .as_ref()
                .map(|l| l.bottleneck.clone())
                .unwrap_or_default(),
            run.top_finding()
                .map(|f| f.title.clone())
                .unwrap_or_default(),
        ]
    }
}

impl RunConclusions {
    /// The first of the most severe problems or warnings, if any.
    pub fn top_finding(&self) -> Option<&FindingConclusion> {
        let worst = self.findings.iter().map(|f| f.severity).max()?;
        self.findings
            .iter()
            .find(|f| f.severity == worst && worst > Severity::Info)
    }
}

fn variant(analysis: &VariantAnalysis, baseline: &str) -> VariantConclusions {
    VariantConclusions {
        name: analysis.name.clone(),
        role: analysis.role,
        previous: analysis.previous.clone(),
        changes: analysis.changes.iter().map(change).collect(),
        runs: analysis
            .runs
            .iter()
            .map(|r| run(r, baseline, analysis.previous.as_deref()))
            .collect(),
    }
}

fn change(analysis: &ChangeAnalysis) -> ChangeConclusion {
    ChangeConclusion {
        change: analysis.change,
        title: analysis.title.clone(),
        size: analysis.size.clone(),
        verdict: change_verdict(analysis.verdict),
        measured: analysis.measured.clone(),
        expectations: analysis.expectations.iter().map(expectation).collect(),
    }
}

fn expectation(outcome: &ExpectationOutcome) -> ExpectationConclusion {
    ExpectationConclusion {
        metric: outcome.metric,
        label: outcome.label,
        direction: match outcome.direction {
            knowledge::Direction::Up => Direction::Up,
            knowledge::Direction::Down => Direction::Down,
        },
        before: outcome.before,
        after: outcome.after,
        verdict: change_verdict(outcome.verdict),
    }
}

fn change_verdict(verdict: super::Verdict) -> ChangeVerdict {
    use super::Verdict as V;
    match verdict {
        V::Confirmed => ChangeVerdict::Confirmed,
        V::Small => ChangeVerdict::Small,
        V::SmallOpposite => ChangeVerdict::SmallOpposite,
        V::Partly => ChangeVerdict::Partly,
        V::NotSeen => ChangeVerdict::NotSeen,
        V::Contradicted => ChangeVerdict::Contradicted,
        V::NotMeasured => ChangeVerdict::NotMeasured,
        V::NoneBefore => ChangeVerdict::NoneBefore,
        V::AlreadyIdeal => ChangeVerdict::AlreadyIdeal,
        V::NoExpectation => ChangeVerdict::NoExpectation,
    }
}

fn run(analysis: &RunAnalysis, baseline: &str, previous: Option<&str>) -> RunConclusions {
    let valid = analysis.not_a_speedup.is_none();
    let comparison = |speedup: Option<Speedup>, against: Option<&str>| {
        Some(comparison(speedup?, against?, valid))
    };
    RunConclusions {
        size: analysis.size.clone(),
        correctness: correctness(&analysis.status),
        timing: timing(analysis),
        vs_baseline: comparison(analysis.vs_baseline, Some(baseline)),
        vs_previous: comparison(analysis.vs_previous, previous),
        not_a_speedup: analysis.not_a_speedup.clone(),
        explanation: analysis.explanation.as_ref().map(explanation),
        limiter: analysis.limit.as_ref().map(limiter),
        findings: analysis.findings.iter().map(finding).collect(),
        hot_lines: analysis.hot_lines.iter().map(hot_line).collect(),
        lines_taken_at: analysis.lines_taken_at.clone(),
    }
}

fn sweep(analysis: &super::sweeps::SweepAnalysis) -> SweepConclusions {
    SweepConclusions {
        group: analysis.group.clone(),
        parameters: analysis.parameters.clone(),
        size: analysis.size.clone(),
        best: analysis.best.clone(),
        summary: analysis.summary.clone(),
        configurations: analysis
            .configurations
            .iter()
            .map(|c| SweepConfiguration {
                name: c.name.clone(),
                parameters: c.parameters.iter().cloned().collect(),
                median_ms: c.median_ms,
                times_best: c.times_slower,
                correctness: correctness(&c.status),
                profiled: c.profiled,
            })
            .collect(),
        skipped: analysis
            .skipped
            .iter()
            .map(|s| SkippedCombination {
                parameters: s.parameters.iter().cloned().collect(),
                reason: s.reason.clone(),
            })
            .collect(),
        contrast: analysis.contrast.clone(),
    }
}

fn correctness(status: &Status) -> Correctness {
    match status {
        Status::Verified {
            against,
            max_abs_error,
            relative_l2_error,
        } => Correctness::Verified {
            against: against.clone(),
            max_abs_error: *max_abs_error,
            relative_l2_error: *relative_l2_error,
        },
        Status::Wrong { against, summary } => Correctness::Wrong {
            against: against.clone(),
            detail: summary.clone(),
        },
        Status::Unverified { reason } => Correctness::Unverified {
            detail: reason.clone(),
        },
        Status::CheckedByProgram { evidence } => Correctness::CheckedByProgram {
            detail: evidence.clone(),
        },
        Status::Failed { stage, message } => Correctness::Failed {
            stage: *stage,
            detail: message.clone(),
        },
        Status::NotRun => Correctness::NotRun,
    }
}

fn timing(analysis: &RunAnalysis) -> Option<Timing> {
    let (stats, temperature) = (analysis.timing?, analysis.temperature?);
    Some(Timing {
        temperature,
        median_ms: stats.median_ms,
        median_interval_ms: stats.median_interval_ms,
        relative_noise: stats.relative_noise,
        min_ms: stats.min_ms,
        max_ms: stats.max_ms,
        samples: stats.samples,
        method: analysis.timing_method.clone().unwrap_or_default(),
        other: analysis
            .other_timing
            .map(|(temperature, other)| OtherTiming {
                temperature,
                median_ms: other.median_ms,
                median_interval_ms: other.median_interval_ms,
                relative_noise: other.relative_noise,
                samples: other.samples,
            }),
    })
}

/// The ratio with its noise verdict, which is `not-a-speedup` when the
/// run's output cannot be trusted.
fn comparison(speedup: Speedup, against: &str, valid: bool) -> Comparison {
    Comparison {
        against: against.to_string(),
        speedup: speedup.ratio,
        verdict: match (valid, speedup.verdict) {
            (false, _) => SpeedupVerdict::NotASpeedup,
            (true, stats::TimeVerdict::Faster) => SpeedupVerdict::Faster,
            (true, stats::TimeVerdict::Slower) => SpeedupVerdict::Slower,
            (true, stats::TimeVerdict::Same) => SpeedupVerdict::Same,
        },
        interval: speedup.interval,
    }
}

fn explanation(explanation: &explain::Explanation) -> ExplanationConclusion {
    ExplanationConclusion {
        text: explanation.text.clone(),
        counter: explanation.counter.map(|cited| CitedCounter {
            metric: cited.key,
            label: cited.key.info().label,
            before: cited.before,
            after: cited.after,
            declared: cited.declared,
            faster: cited.faster,
        }),
    }
}

fn limiter(limit: &limits::Limit) -> Limiter {
    Limiter {
        bottleneck: limit.bottleneck.clone(),
        scope: limit.scope.clone(),
        evidence: limit.evidence.clone(),
        advice: limit.advice.clone(),
        next_change: limit.next,
        basis: basis(&limit.basis),
    }
}

fn basis(basis: &limits::Basis) -> LimiterBasis {
    match basis {
        limits::Basis::Access { finding, weight } => LimiterBasis::Access {
            finding: finding_kind(*finding),
            traffic_share: weight.map(|w| w.traffic),
            stall_share: weight.map(|w| w.stalls),
        },
        limits::Basis::Spills => LimiterBasis::Spills,
        limits::Basis::SpeedOfLight {
            ceiling,
            share,
            of_device_peak,
        } => LimiterBasis::SpeedOfLight {
            ceiling: ceiling.clone(),
            share_of_ceiling: *share,
            ceiling_share_of_device_peak: *of_device_peak,
        },
        limits::Basis::Unit {
            unit,
            busy,
            level,
            issue_stalls,
        } => LimiterBasis::Unit {
            unit: throughput_unit(*unit),
            busy_percent: *busy,
            level: match level {
                evidence::Level::Below => Level::Below,
                evidence::Level::Between => Level::Between,
                evidence::Level::Above => Level::Above,
            },
            issue_stall_share: *issue_stalls,
        },
        limits::Basis::Latency { busiest } => LimiterBasis::Latency {
            busiest_percent: *busiest,
        },
        limits::Basis::SmallGrid { unit, busy, waves } => LimiterBasis::SmallGrid {
            unit: throughput_unit(*unit),
            busy_percent: *busy,
            waves_per_sm: *waves,
        },
    }
}

fn throughput_unit(unit: limits::BusyUnit) -> ThroughputUnit {
    match unit {
        limits::BusyUnit::Issue => ThroughputUnit::Issue,
        limits::BusyUnit::Dram => ThroughputUnit::Dram,
        limits::BusyUnit::L1Shared => ThroughputUnit::L1Shared,
    }
}

fn finding(finding: &Finding) -> FindingConclusion {
    FindingConclusion {
        kind: finding_kind(finding.kind),
        severity: match finding.severity {
            findings::Severity::Info => Severity::Info,
            findings::Severity::Warning => Severity::Warning,
            findings::Severity::Problem => Severity::Problem,
        },
        title: finding.title.clone(),
        detail: finding.detail.clone(),
        lines: finding.lines.clone(),
    }
}

fn finding_kind(kind: findings::FindingKind) -> FindingKind {
    use findings::FindingKind as K;
    match kind {
        K::Uncoalesced => FindingKind::Uncoalesced,
        K::BankConflicts => FindingKind::BankConflicts,
        K::Occupancy => FindingKind::Occupancy,
        K::Waves => FindingKind::Waves,
        K::OtherFiles => FindingKind::OtherFiles,
        K::Spills => FindingKind::Spills,
        K::ExtraTraffic => FindingKind::ExtraTraffic,
        K::CacheResident => FindingKind::CacheResident,
    }
}

fn hot_line(line: &HotLine) -> HotLineConclusion {
    HotLineConclusion {
        line: line.line,
        code: line.code.clone(),
        stall_share: line.sample_share,
        instruction_share: line.instruction_share,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;
    use crate::model::measurement::Check;
    use crate::ncu::probe::probe_results;

    fn conclusions_of(results: &Results) -> Conclusions {
        Conclusions::of(results, &analyze(results))
    }

    fn variant<'a>(conclusions: &'a Conclusions, name: &str) -> &'a VariantConclusions {
        conclusions
            .variants
            .iter()
            .find(|v| v.name == name)
            .unwrap()
    }

    /// The probe with every launch timed at 1 ms, `padded` at 0.5 ms and
    /// `tiled` at 0.8 ms, both verified against `naive`.
    fn timed_probe() -> Results {
        let mut results = probe_results();
        for variant in &mut results.variants {
            let run = &mut variant.runs[0];
            run.samples_ms = match variant.name.as_str() {
                "padded" => vec![0.5, 0.5, 0.51],
                "tiled" => vec![0.8, 0.8, 0.81],
                _ => vec![1.0, 1.0, 1.01],
            };
            if matches!(variant.name.as_str(), "padded" | "tiled") {
                run.check = Some(Check::Passed {
                    against: "naive".into(),
                    max_abs_error: 0.0,
                    relative_l2_error: 0.0,
                    compared: 64,
                });
            }
        }
        results
    }

    #[test]
    fn the_probe_conclusions_carry_the_change_verdicts_findings_and_limiters() {
        let conclusions = conclusions_of(&probe_results());
        assert_eq!((conclusions.schema, conclusions.version), (SCHEMA, 2));
        assert_eq!(conclusions.chain, ["naive", "tiled", "padded"]);
        assert_eq!(conclusions.ceilings, ["copy"]);
        let padded = variant(&conclusions, "padded");
        assert_eq!(padded.previous.as_deref(), Some("tiled"));
        let padding = &padded.changes[0];
        assert_eq!(
            (padding.change, padding.verdict),
            (Change::Padding, ChangeVerdict::Confirmed)
        );
        let wavefronts = &padding.expectations[0];
        assert_eq!(wavefronts.metric, Key::SharedLoadWavefrontsPerInstruction);
        assert_eq!(wavefronts.direction, Direction::Down);
        assert_eq!(wavefronts.verdict, ChangeVerdict::Confirmed);
        let (before, after) = (wavefronts.before.unwrap(), wavefronts.after.unwrap());
        assert!((before - 32.2).abs() < 0.1 && (after - 1.07).abs() < 0.01);

        let tiled = &variant(&conclusions, "tiled").runs[0];
        let conflict = tiled
            .findings
            .iter()
            .find(|f| f.kind == FindingKind::BankConflicts)
            .unwrap();
        assert_eq!(conflict.severity, Severity::Problem);
        assert_eq!(conflict.lines, [22]);
        assert_eq!(tiled.top_finding(), Some(conflict));
        assert_eq!(tiled.hot_lines[0].line, 22);
        assert!(tiled.hot_lines[0].stall_share.is_some());
        let limiter = tiled.limiter.as_ref().unwrap();
        assert_eq!(limiter.bottleneck, "shared-memory bank conflicts");
        assert!(matches!(
            limiter.basis,
            LimiterBasis::Access {
                finding: FindingKind::BankConflicts,
                ..
            }
        ));
        // The probe has no timed launches: no timing, no speedups.
        assert_eq!((&tiled.timing, &tiled.vs_baseline), (&None, &None));
        assert_eq!(
            tiled.correctness,
            Correctness::Unverified {
                detail: "the probe checked outputs itself".into()
            }
        );
    }

    #[test]
    fn speedups_carry_their_noise_verdict_and_a_wrong_output_is_not_a_speedup() {
        let mut results = timed_probe();
        let conclusions = conclusions_of(&results);
        let padded = &variant(&conclusions, "padded").runs[0];
        let timing = padded.timing.clone().unwrap();
        assert_eq!((timing.median_ms, timing.samples), (0.5, 3));
        assert_eq!((timing.min_ms, timing.max_ms), (0.5, 0.51));
        let vs_baseline = padded.vs_baseline.as_ref().unwrap();
        assert_eq!(vs_baseline.against, "naive");
        assert_eq!(vs_baseline.speedup, 2.0);
        assert_eq!(vs_baseline.verdict, SpeedupVerdict::Faster);
        assert!(vs_baseline.interval[0] > 1.0, "{vs_baseline:?}");
        assert!(matches!(
            padded.correctness,
            Correctness::Verified { ref against, .. } if against == "naive"
        ));
        let vs_previous = padded.vs_previous.as_ref().unwrap();
        assert_eq!(
            (vs_previous.against.as_str(), vs_previous.speedup),
            ("tiled", 1.6)
        );
        let naive = &variant(&conclusions, "naive").runs[0];
        assert_eq!((&naive.vs_baseline, &naive.vs_previous), (&None, &None));
        assert!(matches!(naive.correctness, Correctness::Unverified { .. }));

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
        let conclusions = conclusions_of(&results);
        let padded = &variant(&conclusions, "padded").runs[0];
        assert_eq!(padded.correctness.word(), "wrong");
        assert!(padded.not_a_speedup.is_some());
        let vs_baseline = padded.vs_baseline.as_ref().unwrap();
        assert_eq!(
            (vs_baseline.speedup, vs_baseline.verdict),
            (2.0, SpeedupVerdict::NotASpeedup)
        );
    }

    #[test]
    fn every_field_and_word_of_the_json_is_documented() {
        let docs = include_str!("../../docs/analysis-json.md");
        let mut results = timed_probe();
        results.variants[3].runs[0].check = Some(Check::NotChecked {
            reason: "no reference".into(),
        });
        let json: serde_json::Value =
            serde_json::from_str(&conclusions_of(&results).to_json()).unwrap();
        assert_eq!(json["schema"], "gpuprof-analysis");
        assert_eq!(json["version"], 2);
        let mut undocumented = std::collections::BTreeSet::new();
        let mut stack = vec![&json];
        while let Some(value) = stack.pop() {
            match value {
                serde_json::Value::Object(fields) => {
                    for (name, field) in fields {
                        if !docs.contains(&format!("`{name}`")) {
                            undocumented.insert(name.clone());
                        }
                        // Words of the format's own enums.
                        let word = field.as_str().filter(|_| {
                            matches!(
                                name.as_str(),
                                "status"
                                    | "stage"
                                    | "rule"
                                    | "verdict"
                                    | "kind"
                                    | "finding"
                                    | "severity"
                                    | "unit"
                                    | "level"
                                    | "direction"
                                    | "role"
                                    | "change"
                                    | "next_change"
                                    | "metric"
                            )
                        });
                        if let Some(word) = word.filter(|w| !docs.contains(&format!("`{w}`"))) {
                            undocumented.insert(format!("{name} = {word}"));
                        }
                        stack.push(field);
                    }
                }
                serde_json::Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
        assert!(
            undocumented.is_empty(),
            "docs/analysis-json.md does not name {undocumented:?}"
        );
    }

    #[test]
    fn the_csv_words_are_the_json_words() {
        for verdict in [
            SpeedupVerdict::Faster,
            SpeedupVerdict::Slower,
            SpeedupVerdict::Same,
            SpeedupVerdict::NotASpeedup,
        ] {
            assert_eq!(serde_json::json!(verdict), verdict.word());
        }
        let detail = String::new;
        for correctness in [
            Correctness::Verified {
                against: detail(),
                max_abs_error: 0.0,
                relative_l2_error: 0.0,
            },
            Correctness::Wrong {
                against: detail(),
                detail: detail(),
            },
            Correctness::Unverified { detail: detail() },
            Correctness::CheckedByProgram { detail: detail() },
            Correctness::Failed {
                stage: Stage::Run,
                detail: detail(),
            },
            Correctness::NotRun,
        ] {
            assert_eq!(serde_json::json!(correctness)["status"], correctness.word());
        }
    }

    #[test]
    fn the_summary_csv_has_one_quoted_row_per_size_and_variant() {
        let mut results = timed_probe();
        results.suite.name = "transpose, \"probe\"".into();
        let conclusions = conclusions_of(&results);
        let csv = conclusions.summary_csv();
        assert!(
            csv.starts_with(
                "suite,size,variant,role,median_ms,temperature,relative_noise,speedup_vs_baseline,verdict_vs_baseline,speedup_vs_previous,verdict_vs_previous,correct,limiter,top_finding\n"
            ),
            "{csv}"
        );
        assert!(csv.contains("\"transpose, \"\"probe\"\"\","), "{csv}");
        let rows: Vec<csv::StringRecord> = csv::Reader::from_reader(csv.as_bytes())
            .records()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            rows.len(),
            results.variants.len() * results.suite.sizes.len()
        );
        let padded = rows.iter().find(|r| &r[2] == "padded").unwrap();
        assert_eq!(&padded[0], "transpose, \"probe\"");
        assert_eq!(&padded[3], "step");
        assert_eq!((&padded[4], &padded[5]), ("0.5", "hot"));
        assert_eq!((&padded[7], &padded[8]), ("2", "faster"));
        assert_eq!((&padded[9], &padded[10]), ("1.6", "faster"));
        assert_eq!(&padded[11], "verified");
        let tiled = rows.iter().find(|r| &r[2] == "tiled").unwrap();
        assert_eq!(&tiled[12], "shared-memory bank conflicts");
        assert_eq!(&tiled[13], "32-way shared-memory bank conflicts on loads");
        let naive = rows.iter().find(|r| &r[2] == "naive").unwrap();
        assert_eq!((&naive[7], &naive[8], &naive[11]), ("", "", "unverified"));
    }

    #[test]
    fn every_bundled_example_names_its_throughput_units() {
        let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
        for entry in std::fs::read_dir(examples).unwrap() {
            let path = entry.unwrap().path().join("results.json");
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let results = crate::model::read_results(&text).unwrap();
            let analysis = analyze(&results);
            for run in analysis.variants.iter().flat_map(|v| &v.runs) {
                if let Some(limits::Basis::Unit { unit, .. }) = run.limit.as_ref().map(|l| &l.basis)
                {
                    assert!(
                        [
                            limits::BusyUnit::Issue,
                            limits::BusyUnit::Dram,
                            limits::BusyUnit::L1Shared
                        ]
                        .contains(unit),
                        "{}: a unit the format does not know: {unit:?}",
                        path.display()
                    );
                }
            }
            Conclusions::of(&results, &analysis).to_json();
        }
    }
}
