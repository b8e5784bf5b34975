//! The view-model: every string the report shows, already formatted, built
//! from [`Results`] and [`Analysis`] alone. The HTML and Markdown templates
//! only place these strings; `--dump-view` prints this as JSON for review
//! and snapshot tests.

use serde::Serialize;

use crate::analysis::derived::Key;
use crate::analysis::findings::Severity;
use crate::analysis::stats::{Speedup, TimeVerdict};
use crate::analysis::{Analysis, RunAnalysis, Status, VariantAnalysis, Verdict, format};
use crate::model::Results;
use crate::model::results::VariantResult;
use crate::model::variant::{Role, VariantKind};

#[derive(Debug, Clone, Serialize)]
pub struct ReportView {
    pub title: String,
    pub header: HeaderView,
    pub notices: Vec<String>,
    pub sizes: Vec<SizeView>,
    pub focus_size: String,
    pub chain: Vec<ChainRow>,
    pub variants: Vec<VariantView>,
    /// Inline SVG charts, filled in by the chart layer.
    pub charts: Vec<ChartView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Fact {
    pub label: String,
    pub value: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct HeaderView {
    pub suite: String,
    pub description: String,
    pub facts: Vec<Fact>,
    pub command: String,
    pub ncu_command: Option<String>,
    pub ncu_report: Option<String>,
}

/// The summary table of one problem size.
#[derive(Debug, Clone, Serialize)]
pub struct SizeView {
    pub label: String,
    pub rows: Vec<SummaryRow>,
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
    pub vs_ceiling: String,
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

#[derive(Debug, Clone, Serialize)]
pub struct ChartView {
    pub title: String,
    pub caption: String,
    pub svg: String,
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

/// Metrics shown in each run's table, in order.
const TABLE_METRICS: [Key; 22] = [
    Key::Time,
    Key::KernelDuration,
    Key::GlobalLoadSectorsPerRequest,
    Key::GlobalStoreSectorsPerRequest,
    Key::GlobalExcessSectors,
    Key::GlobalLoadRequests,
    Key::GlobalStoreRequests,
    Key::SharedLoadWavefrontsPerInstruction,
    Key::SharedStoreWavefrontsPerInstruction,
    Key::SharedExcessWavefronts,
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

pub fn anchor(name: &str) -> String {
    let slug: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("variant-{slug}")
}

fn state(status: &Status) -> &'static str {
    match status {
        Status::Verified { .. } => "ok",
        Status::Wrong { .. } => "wrong",
        Status::Failed { .. } => "failed",
        Status::Unverified { .. } => "unverified",
    }
}

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
        Status::Failed { stage, message } => format!("failed ({stage}): {message}"),
    }
}

fn correctness(status: &Status) -> String {
    match status {
        Status::Verified { against, .. } => format!("✓ matches {against}"),
        Status::Wrong { .. } => "✗ wrong".into(),
        Status::Unverified { .. } => "not checked".into(),
        Status::Failed { stage, .. } => format!("✗ failed ({stage})"),
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
            "{word} (a verdict needs a difference above {})",
            format::share(speedup.threshold)
        ),
    }
}

fn verdict_words(verdict: Verdict) -> (&'static str, &'static str) {
    match verdict {
        Verdict::Confirmed => ("confirmed", "confirmed"),
        Verdict::Partly => ("partly confirmed", "partly"),
        Verdict::NotSeen => ("not seen", "not-seen"),
        Verdict::Contradicted => ("contradicted", "contradicted"),
        Verdict::NotMeasured => ("not measured", "not-measured"),
        Verdict::AlreadyIdeal => ("already ideal", "not-measured"),
    }
}

fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Info => "info",
        Severity::Warning => "warning",
        Severity::Problem => "problem",
    }
}

pub fn build(results: &Results, analysis: &Analysis) -> ReportView {
    let focus_size = analysis.focus_size.clone().unwrap_or_default();
    ReportView {
        title: format!("gpuprof report: {}", results.suite.name),
        header: header(results),
        notices: results.notices.iter().map(|n| n.to_string()).collect(),
        sizes: results
            .suite
            .sizes
            .iter()
            .map(|size| SizeView {
                label: size.label.clone(),
                rows: summary_rows(results, analysis, &size.label),
            })
            .collect(),
        chain: chain(analysis, results, &focus_size),
        variants: results
            .variants
            .iter()
            .zip(&analysis.variants)
            .map(|(variant, variant_analysis)| variant_view(variant, variant_analysis, analysis))
            .collect(),
        focus_size,
        charts: Vec::new(),
    }
}

fn header(results: &Results) -> HeaderView {
    let mut facts = Vec::new();
    let mut fact = |label: &str, value: String| {
        facts.push(Fact {
            label: label.into(),
            value,
        })
    };
    match &results.device {
        Some(device) => {
            fact(
                "device",
                format!(
                    "{} · compute capability {} · {} SMs · {} memory · {} L2",
                    device.name,
                    device.compute_capability,
                    device.multiprocessors,
                    format::bytes(device.memory_bytes as f64),
                    format::bytes(device.l2_cache_bytes as f64)
                ),
            );
            fact(
                "driver",
                device
                    .driver_version
                    .clone()
                    .unwrap_or_else(|| "unknown".into()),
            );
            fact("CUDA (driver)", device.cuda_version.clone());
            let mut peaks = format!(
                "DRAM {}",
                format::bytes_per_second(device.peak_dram_bytes_per_second)
            );
            if let Some(flops) = device.peak_fp32_flops_per_second {
                peaks.push_str(&format!(" · FP32 {}", format::flops_per_second(flops)));
            }
            fact("peaks (from clocks)", peaks);
            if let Some(smi) = &device.nvidia_smi {
                let clock =
                    |v: Option<f64>| v.map(|v| format!("{v} MHz")).unwrap_or_else(|| "?".into());
                fact(
                    "clocks before the run",
                    format!(
                        "SM {} of {} max · memory {} · {}",
                        clock(smi.sm_clock_mhz),
                        clock(smi.sm_clock_max_mhz),
                        clock(smi.memory_clock_mhz),
                        smi.performance_state.clone().unwrap_or_default()
                    ),
                );
            }
        }
        None => fact("device", "not recorded".into()),
    }
    match &results.profiler {
        Some(profiler) => {
            fact("Nsight Compute", profiler.ncu_version.clone());
            fact(
                "clock control",
                format!("--clock-control {}", profiler.clock_control),
            );
            let passes = profiler
                .passes_per_launch
                .map(|p| format!(", {} replay passes per launch", format::count(p)));
            fact(
                "profiling",
                format!(
                    "{}{}",
                    format::nanoseconds(profiler.seconds * 1e9),
                    passes.unwrap_or_default()
                ),
            );
        }
        None => fact("Nsight Compute", "not run".into()),
    }
    fact(
        "timing",
        format!(
            "{} timed launches after {} warm-ups, CUDA events, median reported",
            results.suite.timing.repetitions, results.suite.timing.warmup
        ),
    );
    fact(
        "sizes",
        results
            .suite
            .sizes
            .iter()
            .map(|s| s.label.clone())
            .collect::<Vec<_>>()
            .join(" · "),
    );
    fact("date", results.created.clone());
    fact("gpuprof", results.gpuprof_version.clone());
    HeaderView {
        suite: results.suite.name.clone(),
        description: results.suite.description.clone(),
        facts,
        command: results.command.clone(),
        ncu_command: results.profiler.as_ref().map(|p| p.command.clone()),
        ncu_report: results.profiler.as_ref().map(|p| p.report_file.clone()),
    }
}

fn run_at<'a>(analysis: &'a VariantAnalysis, size: &str) -> Option<&'a RunAnalysis> {
    analysis.runs.iter().find(|r| r.size == size)
}

fn summary_rows(results: &Results, analysis: &Analysis, size: &str) -> Vec<SummaryRow> {
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
                None => "–".into(),
            };
            Some(SummaryRow {
                variant: variant.name.clone(),
                anchor: anchor(&variant.name),
                ceiling: variant.role == Role::Ceiling,
                state: state(&run.status),
                median: run
                    .timing
                    .map(|t| format::milliseconds(t.median_ms))
                    .unwrap_or_else(|| "–".into()),
                spread: run
                    .timing
                    .map(|t| {
                        format!(
                            "±{} · {}–{}",
                            format::share(t.relative_noise),
                            format::milliseconds(t.min_ms),
                            format::milliseconds(t.max_ms)
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
                    .map(|c| format!("{} of {} {}", format::share(c.share), c.ceiling, c.measure))
                    .collect::<Vec<_>>()
                    .join("; "),
                correctness: correctness(&run.status),
            })
        })
        .collect()
}

fn chain(analysis: &Analysis, results: &Results, size: &str) -> Vec<ChainRow> {
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
                headline(variant_analysis, run)
            };
            Some(ChainRow {
                step: name.clone(),
                anchor: anchor(name),
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
                    .map(|l| l.bottleneck.clone())
                    .unwrap_or_else(|| "–".into()),
            })
        })
        .collect()
}

/// The one metric that explains a step: the declared expectation that
/// moved most, else the most severe finding.
fn headline(variant: &VariantAnalysis, run: &RunAnalysis) -> String {
    let moved = variant
        .changes
        .iter()
        .flat_map(|c| c.expectations.iter())
        .filter(|e| e.metric != Key::Time)
        .filter_map(|e| {
            let (b, a) = (e.before?, e.after?);
            let scale = b.abs().max(a.abs());
            (scale > 0.0).then(|| (e, (a - b).abs() / scale))
        })
        .max_by(|x, y| x.1.total_cmp(&y.1));
    match moved {
        Some((e, _)) => format!(
            "{}: {} → {} ({})",
            e.label,
            e.metric.format(e.before.unwrap_or_default()),
            e.metric.format(e.after.unwrap_or_default()),
            verdict_words(e.verdict).0
        ),
        None => run
            .findings
            .first()
            .map(|f| f.title.clone())
            .unwrap_or_else(|| "no counters recorded".into()),
    }
}

fn variant_view(
    variant: &VariantResult,
    variant_analysis: &VariantAnalysis,
    analysis: &Analysis,
) -> VariantView {
    let previous = variant_analysis
        .previous
        .as_ref()
        .and_then(|p| analysis.variants.iter().find(|v| v.name == *p));
    let mut build_facts = Vec::new();
    if let Some(resources) = &variant.build.resources {
        build_facts.push(Fact {
            label: "registers / thread".into(),
            value: resources.registers_per_thread.to_string(),
        });
        build_facts.push(Fact {
            label: "static shared memory".into(),
            value: format::bytes(f64::from(resources.static_shared_bytes)),
        });
        build_facts.push(Fact {
            label: "local memory / thread".into(),
            value: format::bytes(f64::from(resources.local_bytes_per_thread)),
        });
    }
    let commands: Vec<String> = variant
        .runs
        .iter()
        .filter_map(|r| r.command.as_ref().map(|c| format!("{}: {c}", r.size)))
        .collect();
    match &variant.kind {
        VariantKind::Command { kernel } => {
            build_facts.push(Fact { label: "command".into(), value: commands.join(" · ") });
            if !variant.build.options.is_empty() {
                build_facts.push(Fact { label: "built with".into(), value: variant.build.options.join(" ") });
            }
            build_facts.push(Fact {
                label: "profiled".into(),
                value: format!("kernels matching `{}`, timed by ncu (no verification: the program's outputs are its own)", kernel),
            });
        }
        VariantKind::Library { library } => build_facts.push(Fact {
            label: "library call".into(),
            value: format!(
                "{} in FP32 (CUBLAS_PEDANTIC_MATH: no tensor cores); timed and verified like the kernels, not profiled (its kernels are cuBLAS's choice)",
                library.word()
            ),
        }),
        VariantKind::Kernel { .. } | VariantKind::Imported { .. } => build_facts.push(Fact {
            label: "NVRTC options".into(),
            value: variant.build.options.join(" "),
        }),
    }
    VariantView {
        name: variant.name.clone(),
        anchor: anchor(&variant.name),
        role: match variant.role {
            Role::Step => "step",
            Role::Ceiling => "ceiling",
        },
        source: variant.kind.source_label(),
        entry: variant.kind.entry_label().to_string(),
        changes: variant
            .changes
            .iter()
            .map(|c| c.label().to_string())
            .collect(),
        notes: variant.notes.clone(),
        verify: variant
            .verify_against
            .as_ref()
            .map(|a| format!("outputs compared with `{a}`"))
            .unwrap_or_else(|| "outputs not compared".into()),
        build: build_facts,
        build_error: variant.build.error.clone(),
        build_log: variant.build.log.clone(),
        change_explanations: variant_analysis
            .changes
            .iter()
            .map(|change| {
                let (verdict, verdict_class) = verdict_words(change.verdict);
                ChangeView {
                    title: change.title.clone(),
                    word: change.change.word().to_string(),
                    mechanism: change.mechanism.clone(),
                    verdict,
                    verdict_class,
                    measured: change.measured.clone(),
                    expectations: change
                        .expectations
                        .iter()
                        .map(|e| {
                            let (verdict, verdict_class) = verdict_words(e.verdict);
                            let show = |v: Option<f64>| {
                                v.map(|v| e.metric.format(v)).unwrap_or_else(|| "–".into())
                            };
                            ExpectationRow {
                                metric: e.label.to_string(),
                                expected: format!(
                                    "{} — {}",
                                    match e.direction {
                                        crate::analysis::knowledge::Direction::Down => "down",
                                        crate::analysis::knowledge::Direction::Up => "up",
                                    },
                                    e.why
                                ),
                                before: show(e.before),
                                after: show(e.after),
                                verdict,
                                verdict_class,
                            }
                        })
                        .collect(),
                    next: change.next.clone(),
                    size: change.size.clone().unwrap_or_default(),
                }
            })
            .collect(),
        runs: variant_analysis
            .runs
            .iter()
            .zip(&variant.runs)
            .map(|(run, recorded)| {
                run_view(
                    run,
                    recorded,
                    previous.and_then(|p| run_at(p, &run.size)),
                    &variant.source_text,
                )
            })
            .collect(),
    }
}

fn run_view(
    run: &RunAnalysis,
    recorded: &crate::model::results::RunResult,
    previous: Option<&RunAnalysis>,
    source_text: &str,
) -> RunView {
    let metrics = TABLE_METRICS
        .iter()
        .filter_map(|key| {
            let value = run.derived.get(*key)?;
            let before = previous.and_then(|p| p.derived.get(*key));
            let (change, change_class) = match before {
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
            };
            Some(MetricRow {
                label: key.info().label.to_string(),
                value: key.format(value),
                previous: before.map(|b| key.format(b)).unwrap_or_default(),
                change,
                change_class,
            })
        })
        .collect();
    let lines: Vec<&str> = source_text.lines().collect();
    let hot_lines = run
        .hot_lines
        .iter()
        .take(6)
        .map(|hot| {
            let mut parts = Vec::new();
            if let Some(share) = hot.sample_share {
                parts.push(format!("{} of stall samples", format::share(share)));
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
            if let Some(stall) = &hot.top_stall {
                parts.push(format!("mostly {stall}"));
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
        })
        .collect();
    RunView {
        size: run.size.clone(),
        state: state(&run.status),
        status: status_text(&run.status),
        timing: run
            .timing
            .map(|t| {
                format!(
                    "median {} over {} launches (min {}, max {}, noise ±{})",
                    format::milliseconds(t.median_ms),
                    t.samples,
                    format::milliseconds(t.min_ms),
                    format::milliseconds(t.max_ms),
                    format::share(t.relative_noise)
                )
            })
            .unwrap_or_else(|| "not timed".into()),
        metrics,
        findings: run
            .findings
            .iter()
            .map(|f| FindingView {
                severity: severity(f.severity),
                title: f.title.clone(),
                detail: f.detail.clone(),
            })
            .collect(),
        hot_lines,
        source_note: recorded
            .profile
            .as_ref()
            .and_then(|p| p.source_note.clone()),
        profiled: recorded.profile.is_some(),
        limit: run.limit.as_ref().map(|l| LimitView {
            bottleneck: l.bottleneck.clone(),
            evidence: l.evidence.clone(),
            advice: l.advice.clone(),
        }),
        line_diffs: run.line_diffs.iter().map(|d| d.text.clone()).collect(),
        counters: counters(recorded.profile.as_ref()),
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
