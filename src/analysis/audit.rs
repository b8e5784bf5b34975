//! The claims audit: re-derives from results.json the numbers behind every
//! claim the analysis makes and names each claim they do not support. A
//! change verdict "confirmed" beside a step that got slower; a chain
//! explanation whose counter did not move clearly, moved against the time,
//! is a cost rather than a cause, or whose numbers differ from the
//! counters; a limiter whose finding is below its weight threshold or
//! whose unit is not as busy as its rule needs; a ceiling called a speed
//! of light that this run outpaces or that is itself slow; a count per
//! request compared across runs where ncu's ideal for the access width was
//! known; an access finding that points at a line the kernel does not
//! have or one without excess; a sweep whose best configuration is not the
//! fastest that ran correctly, whose slowest is not the slowest or not as
//! far from the best as it says, or whose best-against-slowest contrast
//! cites numbers that are not the two configurations' own or that do not
//! differ clearly.
//! `gpuprof audit results.json` prints the result; the tests run it over
//! every recorded example.

use std::fmt;

use serde::Serialize;

use super::derived::{self, Derived, Key};
use super::evidence::Level;
use super::explain::{self, Cited};
use super::findings::FindingKind;
use super::format;
use super::limits::{Basis, BusyUnit};
use super::movement::{self, Size};
use super::stats::{Speedup, TimeVerdict};
use super::sweeps::{self, SweepAnalysis};
use super::timing;
use super::{Analysis, RunAnalysis, VariantAnalysis, Verdict};
use crate::model::Results;
use crate::model::results::{RunResult, VariantResult};
use crate::model::source::SourceLine;

/// A claim the counters do not support.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unsupported {
    pub variant: String,
    pub size: String,
    /// Which rule failed, e.g. `confirmed-but-slower`.
    pub rule: &'static str,
    /// The claim as the report states it.
    pub claim: String,
    /// What the counters say instead.
    pub why: String,
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at {} [{}]: \"{}\": {}",
            self.variant, self.size, self.rule, self.claim, self.why
        )
    }
}

/// What the audit checked and what it found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Audit {
    /// How many claims were checked.
    pub checked: usize,
    pub unsupported: Vec<Unsupported>,
}

/// Audits `analysis` (made from `results`) against `results`' counters.
pub fn audit(results: &Results, analysis: &Analysis) -> Audit {
    let mut auditor = Auditor {
        results,
        checked: 0,
        unsupported: Vec::new(),
    };
    for variant in &analysis.variants {
        for run in &variant.runs {
            let previous = variant
                .previous
                .as_deref()
                .and_then(|p| results.variant(p))
                .and_then(|p| Some((p, p.run(&run.size)?)));
            auditor.run(variant, run, previous);
        }
        auditor.changes(variant);
    }
    for sweep in &analysis.sweeps {
        auditor.sweep(sweep);
    }
    Audit {
        checked: auditor.checked,
        unsupported: auditor.unsupported,
    }
}

struct Auditor<'a> {
    results: &'a Results,
    checked: usize,
    unsupported: Vec<Unsupported>,
}

/// Equal to within rounding of the stored numbers.
fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// A run's counters and timing, derived afresh from results.json.
fn derive(results: &Results, variant: &VariantResult, run: &RunResult) -> Derived {
    let median = timing::median_at(results, variant, &run.size);
    let lines_of = variant.lines_of(run);
    derived::derive(
        run.whole_profile().as_deref(),
        lines_of.as_ref().map(|l| &*l.profile),
        median,
    )
}

/// The step's time against the previous step's, from the raw samples.
fn timed(
    results: &Results,
    previous: (&VariantResult, &RunResult),
    run: (&VariantResult, &RunResult),
) -> Option<Speedup> {
    timing::compare(results, previous, run).map(|(_, speedup)| speedup)
}

impl Auditor<'_> {
    /// Counts one claim; records it when `why` says it is unsupported.
    fn check(
        &mut self,
        variant: &str,
        size: &str,
        rule: &'static str,
        claim: &str,
        why: Option<String>,
    ) {
        self.checked += 1;
        if let Some(why) = why {
            self.unsupported.push(Unsupported {
                variant: variant.to_string(),
                size: size.to_string(),
                rule,
                claim: claim.to_string(),
                why,
            });
        }
    }

    fn run(
        &mut self,
        variant: &VariantAnalysis,
        run: &RunAnalysis,
        previous: Option<(&VariantResult, &RunResult)>,
    ) {
        let Some((recorded, stored)) = self
            .results
            .variant(&variant.name)
            .and_then(|v| Some((v, v.run(&run.size)?)))
        else {
            return;
        };
        if let (Some(explanation), Some(previous)) = (&run.explanation, previous) {
            let why = match explanation.counter {
                Some(cited) => explanation_fault(
                    self.results,
                    &cited,
                    &explanation.text,
                    previous,
                    (recorded, stored),
                ),
                None => explanation
                    .text
                    .contains("confirmed")
                    .then(|| "it says confirmed but cites no counter".to_string()),
            };
            self.check(
                &variant.name,
                &run.size,
                "explanation",
                &explanation.text,
                why,
            );
        }
        let lines_of = recorded.lines_of(stored);
        if let Some(limit) = &run.limit {
            let counters = derive(self.results, recorded, stored);
            let waves = stored
                .profile
                .as_ref()
                .and_then(|p| p.metric(crate::model::metrics::WAVES_PER_SM));
            let why = limit_fault(&limit.basis, run, (counters, waves), lines_of.is_some());
            self.check(&variant.name, &run.size, "limiter", &limit.bottleneck, why);
        }
        let lines: &[SourceLine] = lines_of
            .as_ref()
            .map_or(&[], |l| l.profile.source_lines.as_slice());
        for finding in &run.findings {
            let why = finding
                .lines
                .iter()
                .find_map(|number| line_fault(finding.kind, *number, lines));
            self.check(
                &variant.name,
                &run.size,
                "finding-lines",
                &finding.title,
                why,
            );
        }
    }

    /// A sweep's claims, from the configurations' own samples and
    /// counters: the best is the fastest that ran correctly; the slowest
    /// named is the slowest, as far from the best as the summary says; the
    /// contrast's numbers are those of the fastest and slowest profiled
    /// configurations, and differ by more than a tenth.
    fn sweep(&mut self, sweep: &SweepAnalysis) {
        let size = sweep.size.as_str();
        let timed: Vec<(&VariantResult, f64)> = sweeps::ranked(self.results, &sweep.group, size)
            .into_iter()
            .map(|r| (r.variant, r.median_ms))
            .collect();
        let claim = format!("sweep {}", sweep.group);
        let fastest = timed.first().map(|(v, _)| v.name.as_str());
        let why = (sweep.best.as_deref() != fastest).then(|| {
            format!(
                "the report names {} as the best, the samples {}",
                sweep.best.as_deref().unwrap_or("none"),
                fastest.unwrap_or("none")
            )
        });
        self.check(
            &claim,
            size,
            "sweep-best",
            &format!("best: {:?}", sweep.best),
            why,
        );
        if let (Some((best, fast)), Some((slowest, slow))) = (timed.first(), timed.last())
            && timed.len() > 1
        {
            let said = format!(
                "{}, took {} the best's time",
                slowest.name,
                format::speedup(slow / fast)
            );
            let why = (!sweep.summary.contains(&said)).then(|| {
                format!(
                    "the samples make {} the slowest at {} {}'s time",
                    slowest.name,
                    format::speedup(slow / fast),
                    best.name
                )
            });
            self.check(&claim, size, "sweep-slowest", &sweep.summary, why);
        }
        let Some(contrast) = &sweep.contrast else {
            return;
        };
        let profiled: Vec<&VariantResult> = timed
            .iter()
            .map(|(v, _)| *v)
            .filter(|v| v.run(size).is_some_and(|r| r.profile.is_some()))
            .collect();
        let why = match (profiled.first(), profiled.last()) {
            (Some(best), Some(slowest)) if profiled.len() > 1 => contrast_fault(
                contrast,
                self.counters(best, size),
                self.counters(slowest, size),
                (&best.name, &slowest.name),
            ),
            _ => Some("fewer than two configurations were profiled".to_string()),
        };
        self.check(&claim, size, "sweep-contrast", contrast, why);
    }

    /// A configuration's counters at `size`, derived afresh.
    fn counters(&self, variant: &VariantResult, size: &str) -> Derived {
        variant
            .run(size)
            .map(|run| derive(self.results, variant, run))
            .unwrap_or_default()
    }

    /// Each change verdict: never confirmed beside a slower step, and
    /// judged against the ideal for the access width where it is known.
    fn changes(&mut self, variant: &VariantAnalysis) {
        let Some(previous) = variant.previous.as_deref() else {
            return;
        };
        for change in &variant.changes {
            let Some(size) = change.size.as_deref() else {
                continue;
            };
            let at = |name: &str| {
                let v = self.results.variant(name)?;
                Some((v, v.run(size)?))
            };
            let (Some(before), Some(after)) = (at(previous), at(&variant.name)) else {
                continue;
            };
            let slower = timed(self.results, before, after)
                .is_some_and(|s| s.verdict == TimeVerdict::Slower);
            let claim = format!("{}: {:?}", change.title, change.verdict);
            let why = (change.verdict == Verdict::Confirmed && slower)
                .then(|| "the step is slower than the previous one beyond the noise".to_string());
            self.check(&variant.name, size, "confirmed-but-slower", &claim, why);
            let (b, a) = (
                derive(self.results, before.0, before.1),
                derive(self.results, after.0, after.1),
            );
            for expectation in &change.expectations {
                let why = expectation
                    .metric
                    .over_ideal()
                    .filter(|ideal| b.get(*ideal).is_some() && a.get(*ideal).is_some())
                    .map(|ideal| {
                        format!(
                            "compares {} across runs where {} (the ratio to ncu's ideal for the access width) is known",
                            expectation.label,
                            ideal.info().label
                        )
                    });
                let claim = format!("{}: {}", change.title, expectation.label);
                self.check(&variant.name, size, "ideal-for-access-width", &claim, why);
            }
        }
    }
}

/// What is wrong with a sweep's contrast between the fastest (`fast`) and
/// the slowest (`slow`) profiled configuration: it must name them, and
/// each counter it cites must carry both configurations' values and
/// differ by more than a tenth (occupancy: by 10 points).
fn contrast_fault(
    contrast: &str,
    fast: Derived,
    slow: Derived,
    (best, slowest): (&str, &str),
) -> Option<String> {
    if !contrast.contains(best) || !contrast.contains(slowest) {
        return Some(format!(
            "it does not name the fastest and slowest profiled configurations, {best} and {slowest}"
        ));
    }
    let cited: [CitedCounter; 4] = [
        (
            "achieved occupancy is",
            Key::AchievedOccupancy,
            format::percent,
            sweeps::occupancies_apart,
        ),
        (
            "registers per thread",
            Key::RegistersPerThread,
            format::count,
            sweeps::clearly_apart,
        ),
        (
            "shared-memory wavefronts over ideal",
            Key::SharedExcessWavefronts,
            format::ratio,
            sweeps::clearly_apart,
        ),
        (
            "global sectors over ideal",
            Key::GlobalExcessSectors,
            format::ratio,
            sweeps::clearly_apart,
        ),
    ];
    cited.iter().find_map(|(phrase, key, shown, differ)| {
        if !contrast.contains(phrase) {
            return None;
        }
        let (Some(a), Some(b)) = (fast.get(*key), slow.get(*key)) else {
            return Some(format!("it cites {phrase} but the counters lack it"));
        };
        let numbers = format!("{} … {}", shown(a), shown(b));
        if !contrast.contains(&shown(a)) || !contrast.contains(&shown(b)) {
            return Some(format!("the counters give {phrase} {numbers}"));
        }
        (!differ(a, b)).then(|| format!("{phrase} {numbers} do not differ clearly"))
    })
}

/// A counter a sweep's contrast may cite: its phrase there, its key, how
/// the report writes its values, and whether two values differ clearly.
type CitedCounter = (&'static str, Key, fn(f64) -> String, fn(f64, f64) -> bool);

/// What is wrong with a finding's pointing at line `number`: a line the
/// kernel lacks, or for an access finding one at ncu's ideal.
fn line_fault(kind: FindingKind, number: u32, lines: &[SourceLine]) -> Option<String> {
    let Some(line) = lines.iter().find(|l| l.line == number) else {
        return Some(format!(
            "the kernel's source counters have no line {number}"
        ));
    };
    let (what, actual, ideal) = match kind {
        FindingKind::Uncoalesced => (
            "global sectors",
            line.global_sectors,
            line.global_sectors_ideal,
        ),
        FindingKind::BankConflicts => (
            "shared wavefronts",
            line.shared_wavefronts,
            line.shared_wavefronts_ideal,
        ),
        _ => return None,
    };
    match (actual, ideal) {
        (Some(actual), Some(ideal)) if actual <= ideal => Some(format!(
            "line {number} moves {} {what} against an ideal of {}, no excess",
            format::count(actual),
            format::count(ideal)
        )),
        _ => None,
    }
}

/// What is wrong with an explanation that cites a counter, if anything.
fn explanation_fault(
    results: &Results,
    cited: &Cited,
    text: &str,
    previous: (&VariantResult, &RunResult),
    run: (&VariantResult, &RunResult),
) -> Option<String> {
    let key = cited.key;
    if !explain::explanatory(key) {
        return Some(format!(
            "{} has no better side (a cost or a consequence), so it explains no change of time",
            key.info().label
        ));
    }
    let (before, after) = (
        derive(results, previous.0, previous.1).get(key),
        derive(results, run.0, run.1).get(key),
    );
    let (Some(before), Some(after)) = (before, after) else {
        return Some(format!("results.json has no {}", key.info().label));
    };
    if !same(before, cited.before) || !same(after, cited.after) {
        return Some(format!(
            "the counters give {} → {}",
            key.format(before),
            key.format(after)
        ));
    }
    if !text.contains(&key.format(before)) || !text.contains(&key.format(after)) {
        return Some("the sentence does not show the counter's values".into());
    }
    if !explain::material(key, before, after) {
        return Some(format!(
            "{} moved by {:.1} points, under the {} a percentage needs to explain a step",
            key.info().label,
            (after - before).abs(),
            explain::PERCENT_POINTS
        ));
    }
    let moved = movement::between(key, before, after);
    if moved.size != Size::Clear {
        return Some(format!(
            "{} moved only {:.1}%, not a clear move",
            key.info().label,
            moved.relative.abs() * 100.0
        ));
    }
    let time = timed(results, previous, run).map(|s| s.verdict);
    let faster = match time {
        Some(TimeVerdict::Faster) => true,
        Some(TimeVerdict::Slower) => false,
        _ => return Some("the time did not change beyond the noise".into()),
    };
    if faster != cited.faster {
        return Some("the time moved the other way".into());
    }
    if moved.better(key) != Some(faster) {
        return Some(format!(
            "{} got {} while the step got {}",
            key.info().label,
            if faster { "worse" } else { "better" },
            if faster { "faster" } else { "slower" }
        ));
    }
    if text.contains("(confirmed)") && !(faster && cited.declared) {
        return Some("\"confirmed\" needs a declared benefit and a faster step".into());
    }
    None
}

/// What is wrong with the limiter's basis, if anything.
fn limit_fault(
    basis: &Basis,
    run: &RunAnalysis,
    (counters, waves): (Derived, Option<f64>),
    has_lines: bool,
) -> Option<String> {
    let percent = |key: Key| counters.get(key).unwrap_or(0.0);
    match basis {
        Basis::Access {
            weight: Some(weight),
            ..
        } => (weight.level() != Level::Above).then(|| {
            format!(
                "its lines carry {:.1}% of the stall samples and {:.1}% of the traffic, under the 20% and 10% a limiter needs",
                weight.stalls * 100.0,
                weight.traffic * 100.0
            )
        }),
        Basis::Access { weight: None, .. } => has_lines
            .then(|| "the source counters were collected but the finding's weight was not".into()),
        Basis::Spills => (counters.get(Key::LocalMemorySectors).unwrap_or(0.0) <= 0.0)
            .then(|| "no local-memory sectors were counted".into()),
        Basis::SpeedOfLight {
            ceiling,
            share,
            of_device_peak,
        } => {
            let measured = run
                .ceilings
                .iter()
                .find(|c| c.ceiling == *ceiling)
                .map(|c| c.share);
            match measured {
                Some(m) if !same(m, *share) => Some(format!(
                    "the timings give {:.1}% of `{ceiling}`",
                    m * 100.0
                )),
                None => Some(format!("no share of `{ceiling}` at this size")),
                Some(m) if m > 1.05 => Some(format!(
                    "this run outpaces `{ceiling}` ({:.1}%), so it is no bound",
                    m * 100.0
                )),
                Some(m) if m < 0.90 => Some(format!("{:.1}% of `{ceiling}` is short of it", m * 100.0)),
                _ if *of_device_peak < 0.80 => Some(format!(
                    "`{ceiling}` runs at {:.1}% of the device's peak, not a speed of light",
                    of_device_peak * 100.0
                )),
                _ => None,
            }
        }
        Basis::Unit {
            unit,
            busy,
            level,
            issue_stalls,
        } => {
            let measured = percent(unit.key());
            let issue_side = issue_stalls.is_some_and(|s| s >= 0.5);
            let needs = match level {
                Level::Above if *unit == BusyUnit::Issue && issue_side => 60.0,
                Level::Above => 80.0,
                _ => 60.0,
            };
            if !same(measured, *busy) {
                Some(format!("ncu gives {} at {measured:.1}%", unit.name()))
            } else if *level == Level::Below || measured < needs {
                Some(format!(
                    "{} is {measured:.1}% busy, under the {needs:.0}% its verdict needs",
                    unit.name()
                ))
            } else {
                None
            }
        }
        Basis::SmallGrid {
            unit,
            busy,
            waves: claimed,
        } => {
            let measured = percent(unit.key());
            match waves {
                _ if !same(measured, *busy) => {
                    Some(format!("ncu gives {} at {measured:.1}%", unit.name()))
                }
                None => Some("ncu's waves per SM were not collected".into()),
                Some(w) if !same(w, *claimed) => Some(format!("ncu gives {w:.2} waves per SM")),
                Some(w) if w >= crate::analysis::limits::SMALL_GRID_WAVES => Some(format!(
                    "the grid fills {w:.2} waves per SM, enough for a unit's share to stand for the GPU"
                )),
                _ if measured < 60.0 => Some(format!(
                    "{} is {measured:.1}% busy: nothing busy to set apart from the grid",
                    unit.name()
                )),
                _ => None,
            }
        }
        Basis::Latency { busiest } => {
            let measured = percent(Key::DramThroughput)
                .max(percent(Key::L1Throughput))
                .max(percent(Key::IssueActive));
            (measured >= 60.0 || !same(measured, *busiest)).then(|| {
                format!("a unit is {measured:.1}% busy, so the kernel is not latency-bound")
            })
        }
    }
}

#[cfg(test)]
#[path = "audit_tests.rs"]
mod tests;
