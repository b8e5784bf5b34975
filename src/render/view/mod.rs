//! The view-model: every string the report shows, already formatted, built
//! from [`Results`] and [`Analysis`] alone. The HTML and Markdown templates
//! only place these strings; `--dump-view` prints this as JSON, to review
//! what a report will say without rendering it.
//!
//! This file owns the view's types, the entry point [`build`] and the
//! helpers its parts share; the parts are built in `header` (the facts of
//! the run), `summary` (the tables per size and the optimization chain),
//! `variant` (each variant's section and its changes), `run` (each run
//! of a variant: timing, metrics, findings, hot lines, counters) and
//! `sweep` (each parameter sweep's table).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::analysis::{Analysis, RunAnalysis, Status, VariantAnalysis, Verdict, sweeps};
use crate::model::Results;

mod header;
mod run;
mod summary;
mod sweep;
mod variant;

use header::header;
use summary::{caveats, chain, summary_rows};
use sweep::sweep_view;
use variant::variant_view;

#[derive(Debug, Clone, Serialize)]
pub struct ReportView {
    pub title: String,
    pub header: HeaderView,
    pub notices: Vec<String>,
    pub sizes: Vec<SizeView>,
    pub focus_size: String,
    pub chain: Vec<ChainRow>,
    /// The parameter sweeps, each a table of its configurations.
    pub sweeps: Vec<SweepView>,
    /// Every variant's section, but a sweep's configurations that are
    /// neither its best nor profiled (its table lists them).
    pub variants: Vec<VariantView>,
    /// Inline SVG charts, filled in by the chart layer.
    pub charts: Vec<ChartView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Fact {
    pub label: String,
    pub value: String,
}

impl Fact {
    fn new(label: &str, value: String) -> Self {
        Fact {
            label: label.into(),
            value,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct HeaderView {
    pub suite: String,
    pub description: String,
    pub facts: Vec<Fact>,
    pub command: String,
    pub ncu_command: Option<String>,
    pub ncu_report: Option<String>,
    /// The ncu run that took the per-line counters at one size, when it
    /// was a run of its own: its command and report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines_ncu_command: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines_ncu_report: Option<String>,
}

/// The summary table of one problem size.
#[derive(Debug, Clone, Serialize)]
pub struct SizeView {
    pub label: String,
    pub rows: Vec<SummaryRow>,
    /// Whether any row is measured against a ceiling: without one the
    /// table leaves its "vs ceiling" column out.
    pub has_ceilings: bool,
    /// The "vs ceiling" column's header: it names the measure when every
    /// share in it is of one ("vs ceiling bandwidth"), and each cell then
    /// leaves it out.
    pub ceiling_header: String,
    /// Whether any row has a FLOP/s figure (the suite declares `flops`):
    /// without one the HTML table leaves its "compute" column out.
    pub has_compute: bool,
    /// What qualifies every number at this size (the working set fits in
    /// L2, a grid under one wave), with the variants it concerns.
    pub caveats: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SummaryRow {
    pub variant: String,
    pub anchor: String,
    pub ceiling: bool,
    /// `ok`, `wrong`, `failed` or `unverified`: a CSS class.
    pub state: &'static str,
    pub median: String,
    pub spread: String,
    pub vs_baseline: Cell,
    pub vs_previous: Cell,
    pub bandwidth: String,
    pub flops: String,
    /// One entry per ceiling: "93.2% of copy bandwidth".
    pub vs_ceiling: Vec<String>,
    pub correctness: String,
}

/// A table cell with a CSS class (`faster`, `slower`, `same`, `invalid`).
#[derive(Debug, Clone, Serialize)]
pub struct Cell {
    pub text: String,
    pub class: &'static str,
    pub title: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChainRow {
    pub step: String,
    pub anchor: String,
    pub changes: String,
    pub speedup: Cell,
    pub explanation: String,
    /// What limits the step now.
    pub limit: String,
}

/// A parameter sweep at the focus size.
#[derive(Debug, Clone, Serialize)]
pub struct SweepView {
    pub group: String,
    pub anchor: String,
    pub size: String,
    pub summary: String,
    /// Which configurations ncu profiled.
    pub profiled: String,
    pub parameters: Vec<String>,
    /// The configurations that ran correctly, fastest first.
    pub rows: Vec<SweepRow>,
    /// `ITEMS=4, BLOCK=256: ITEMS * BLOCK <= 512 is false (1024 <= 512)`.
    pub skipped: Vec<String>,
    /// The configurations that failed or gave wrong output, and how.
    pub not_run: Vec<String>,
    /// What separates the best from the slowest profiled configuration.
    pub contrast: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SweepRow {
    pub name: String,
    /// The id of its section, where the report details it.
    pub anchor: Option<String>,
    /// The parameters' values, in the order of `SweepView::parameters`.
    pub values: Vec<String>,
    pub time: String,
    /// Its time over the best's.
    pub vs_best: String,
    pub best: bool,
    /// `ok`, `wrong`, `failed` or `unverified`: a CSS class.
    pub state: &'static str,
    pub correctness: String,
    pub profiled: &'static str,
    pub occupancy: String,
    pub registers: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChartView {
    pub title: String,
    pub caption: String,
    pub svg: String,
    /// Where report.md finds the chart as a file, relative to it.
    pub file: String,
    /// A chart of one counter per variant: a detail, printed after the
    /// first pages (the overview charts are over all variants).
    pub detail: bool,
    /// The sweep whose section shows this chart (its heat map) instead of
    /// the Charts section.
    pub sweep_group: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct VariantView {
    pub name: String,
    pub anchor: String,
    pub role: &'static str,
    pub source: String,
    pub entry: String,
    pub changes: Vec<String>,
    pub notes: String,
    pub verify: String,
    pub build: Vec<Fact>,
    pub build_error: Option<String>,
    pub build_log: String,
    pub change_explanations: Vec<ChangeView>,
    pub runs: Vec<RunView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChangeView {
    pub title: String,
    pub word: String,
    pub mechanism: String,
    pub outcome: String,
    pub verdict: &'static str,
    pub verdict_class: &'static str,
    pub measured: String,
    pub expectations: Vec<ExpectationRow>,
    pub next: String,
    pub size: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ExpectationRow {
    pub metric: String,
    pub expected: String,
    pub before: String,
    pub after: String,
    pub verdict: &'static str,
    pub verdict_class: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunView {
    pub size: String,
    pub state: &'static str,
    pub status: String,
    pub timing: String,
    pub metrics: Vec<MetricRow>,
    pub findings: Vec<FindingView>,
    pub hot_lines: Vec<HotLineView>,
    pub source_note: Option<String>,
    pub profiled: bool,
    pub limit: Option<LimitView>,
    pub line_diffs: Vec<String>,
    /// Every counter of the fixed metric set as ncu reported it.
    pub counters: Vec<Fact>,
    /// What the kernel printed while it was measured.
    pub output: Option<String>,
    /// For a variant that launches a sequence: each launch, in order, with
    /// what ncu measured of it; the findings are the explained launch's. A
    /// long sequence has a row per run of consecutive launches of one
    /// kernel (`render::launches`).
    pub steps: Vec<StepView>,
    /// What the rows of a long sequence's launches hold, when some row
    /// stands for several launches; absent when each row is one launch
    /// (and then left out of `--dump-view`, so the templates ask whether
    /// it `is defined`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps_note: Option<String>,
    /// For a sequence, which launch the findings explain and why that one
    /// (`results::explained_launch`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub steps_explained: Option<String>,
}

/// One row of a sequence's launches: one launch, or in a long sequence
/// consecutive launches of one kernel.
#[derive(Debug, Clone, Serialize)]
pub struct StepView {
    /// The launch's number, counted from 1 ("7"), or the first and last
    /// of the launches the row stands for ("3–122").
    pub number: String,
    pub kernel: String,
    /// How many launches the row stands for, to follow the kernel's name
    /// ("×120"); empty for one.
    pub times: String,
    /// ncu's duration; for several launches their total.
    pub duration: String,
    /// DRAM and SM throughput; for several launches their means weighted
    /// by each launch's duration.
    pub dram: String,
    pub sm: String,
    /// Whether the row holds the launch whose profile the findings
    /// explain.
    pub explained: bool,
    /// The explained launch's number, when the row holding it stands for
    /// several launches.
    pub explained_launch: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct LimitView {
    pub bottleneck: String,
    pub evidence: String,
    pub advice: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct MetricRow {
    pub label: String,
    pub value: String,
    pub previous: String,
    pub change: String,
    pub change_class: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct FindingView {
    pub severity: &'static str,
    pub title: String,
    pub detail: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct HotLineView {
    pub line: u32,
    pub summary: String,
    pub excerpt: Vec<ExcerptLine>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ExcerptLine {
    pub number: u32,
    pub code: String,
    pub hot: bool,
}

/// Every variant's HTML id, worked out once per report: `variant-` and the
/// name in lower case with every character but a letter or digit written
/// `-`. Names that would share an id (`Naive ` and `naive!`, or two names in
/// another script) are told apart by `-2`, `-3`… in the order of the
/// results, so every variant's id is its own.
pub(super) struct Anchors(BTreeMap<String, String>);

impl Anchors {
    fn of(results: &Results) -> Anchors {
        let mut taken = BTreeSet::new();
        let mut ids = BTreeMap::new();
        for variant in &results.variants {
            let base = slug(&variant.name);
            let unique = (1..)
                .map(|n| match n {
                    1 => base.clone(),
                    n => format!("{base}-{n}"),
                })
                .find(|candidate| !taken.contains(candidate))
                .unwrap_or(base);
            taken.insert(unique.clone());
            ids.entry(variant.name.clone()).or_insert(unique);
        }
        Anchors(ids)
    }

    /// The id of variant `name`'s section.
    pub(super) fn of_variant(&self, name: &str) -> String {
        self.0.get(name).cloned().unwrap_or_else(|| slug(name))
    }

    /// The id of the sweep `group`'s section (sweep names are unique, as
    /// the variant names they were written as).
    pub(super) fn of_sweep(&self, group: &str) -> String {
        format!("sweep-{}", lowered(group))
    }
}

fn slug(name: &str) -> String {
    format!("variant-{}", lowered(name))
}

/// `name` in lower case with every character but a letter or digit `-`.
fn lowered(name: &str) -> String {
    name.chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_alphanumeric() { c } else { '-' })
        .collect()
}

fn state(status: &Status) -> &'static str {
    match status {
        Status::Verified { .. } | Status::CheckedByProgram { .. } => "ok",
        Status::Wrong { .. } => "wrong",
        Status::Failed { .. } => "failed",
        Status::Unverified { .. } | Status::NotRun => "unverified",
    }
}

fn verdict_words(verdict: Verdict) -> (&'static str, &'static str) {
    match verdict {
        Verdict::Confirmed => ("confirmed", "confirmed"),
        Verdict::Small => ("small", "partly"),
        Verdict::SmallOpposite => ("small, the wrong way", "not-seen"),
        Verdict::Partly => ("partly confirmed", "partly"),
        Verdict::NotSeen => ("not seen", "not-seen"),
        Verdict::Contradicted => ("contradicted", "contradicted"),
        Verdict::NotMeasured => ("not measured", "not-measured"),
        Verdict::NoneBefore => ("none before", "not-measured"),
        Verdict::AlreadyIdeal => ("already ideal", "not-measured"),
        Verdict::NoExpectation => ("no expectation", "no-expectation"),
    }
}

pub fn build(results: &Results, analysis: &Analysis) -> ReportView {
    let focus_size = analysis.focus_size.clone().unwrap_or_default();
    let anchors = Anchors::of(results);
    ReportView {
        title: format!("gpuprof report: {}", results.suite.name),
        header: header(results),
        notices: results.notices.iter().map(|n| n.to_string()).collect(),
        sizes: results
            .suite
            .sizes
            .iter()
            .map(|size| {
                let rows = summary_rows(results, analysis, &anchors, &size.label);
                SizeView {
                    label: size.label.clone(),
                    has_ceilings: rows.iter().any(|row| !row.vs_ceiling.is_empty()),
                    has_compute: rows.iter().any(|row| row.flops != summary::NOT_MEASURED),
                    ceiling_header: match summary::ceiling_measure(analysis, &size.label) {
                        Some(measure) => format!("vs ceiling {measure}"),
                        None => "vs ceiling".into(),
                    },
                    rows,
                    caveats: caveats(analysis, &size.label),
                }
            })
            .collect(),
        chain: chain(analysis, results, &anchors, &focus_size),
        sweeps: analysis
            .sweeps
            .iter()
            .map(|sweep| sweep_view(sweep, results, analysis, &anchors))
            .collect(),
        variants: results
            .variants
            .iter()
            .zip(&analysis.variants)
            .filter(|(variant, _)| sweeps::is_detailed(analysis, &variant.name))
            .map(|(variant, variant_analysis)| {
                variant_view(
                    variant,
                    variant_analysis,
                    analysis,
                    anchors.of_variant(&variant.name),
                )
            })
            .collect(),
        focus_size,
        charts: Vec::new(),
    }
}

fn run_at<'a>(analysis: &'a VariantAnalysis, size: &str) -> Option<&'a RunAnalysis> {
    analysis.runs.iter().find(|r| r.size == size)
}
