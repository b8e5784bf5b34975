//! Parameter sweeps read from results.json: a sweep's configurations at a
//! size ranked by their median time among those that ran and verified
//! (the first is the one the chain shows), which of them the profile
//! stage spends ncu on (the fastest and the slowest), and each sweep as
//! the report shows it ([`SweepAnalysis`]: every configuration by time,
//! the skipped ones, how far the slowest is from the best, and what the
//! derived metrics say separates the best from the slowest profiled one).
//! The one ranking the pipeline, the chain and the report share.

use serde::Serialize;

use crate::model::Results;
use crate::model::measurement::Check;
use crate::model::results::VariantResult;
use crate::model::sweep::{SkippedConfiguration, Sweep};

use super::derived::{Derived, Key};
use super::timing::median_at;
use super::{Analysis, Status, VariantAnalysis, format, run_status};

/// A sweep at the focus size, as the report shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SweepAnalysis {
    /// The variant's name as written.
    pub group: String,
    pub parameters: Vec<String>,
    /// The size the configurations are ranked at.
    pub size: String,
    /// The fastest configuration that ran correctly: the chain's step.
    pub best: Option<String>,
    /// `3 configurations (1 skipped by the constraint); the slowest of those
    /// that ran and were not wrong, sgemm[BM=64], took 1.45× the best's
    /// time.`
    pub summary: String,
    /// Fastest first, then those without a time in results order.
    pub configurations: Vec<Configuration>,
    /// The combinations the constraint ruled out, with the reason.
    pub skipped: Vec<SkippedConfiguration>,
    /// What the counters of the best and the slowest profiled
    /// configuration differ in (occupancy and its limiter, registers,
    /// spills, bank conflicts, sectors over ideal), when both were profiled.
    pub contrast: Option<String>,
}

/// One configuration of a sweep at the focus size.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Configuration {
    pub name: String,
    pub parameters: Vec<(String, i64)>,
    /// Its median, where it ran correctly and was timed.
    pub median_ms: Option<f64>,
    /// Its median over the best's (1 for the best).
    pub times_slower: Option<f64>,
    pub status: Status,
    pub profiled: bool,
}

/// Every sweep of `results` at `size`; `variants` are the variants'
/// analyses, whose derived metrics the contrast compares.
pub fn analyze(results: &Results, size: &str, variants: &[VariantAnalysis]) -> Vec<SweepAnalysis> {
    results
        .sweeps
        .iter()
        .map(|sweep| analyze_sweep(results, sweep, size, variants))
        .collect()
}

fn analyze_sweep(
    results: &Results,
    sweep: &Sweep,
    size: &str,
    variants: &[VariantAnalysis],
) -> SweepAnalysis {
    let ranked = ranked(results, &sweep.group, size);
    let best = ranked.first().map(|r| r.median_ms);
    let configuration = |variant: &VariantResult, median_ms: Option<f64>| {
        let run = variant.run(size);
        Configuration {
            name: variant.name.clone(),
            parameters: variant
                .sweep
                .as_ref()
                .map(|s| s.parameters.clone())
                .unwrap_or_default(),
            median_ms,
            times_slower: median_ms.zip(best).map(|(m, b)| m / b),
            status: run.map_or(Status::NotRun, |run| run_status(results, variant, run)),
            profiled: run.is_some_and(|run| run.profile.is_some()),
        }
    };
    let mut configurations: Vec<Configuration> = ranked
        .iter()
        .map(|r| configuration(r.variant, Some(r.median_ms)))
        .collect();
    configurations.extend(
        configurations_of(results, &sweep.group)
            .filter(|v| !ranked.iter().any(|r| r.variant.name == v.name))
            .map(|v| configuration(v, None)),
    );
    let derived_of = |name: &str| {
        variants
            .iter()
            .find(|v| v.name == name)
            .and_then(|v| v.runs.iter().find(|r| r.size == size))
            .map(|run| &run.derived)
            .filter(|derived| derived.get(Key::AchievedOccupancy).is_some())
    };
    let profiled: Vec<(&str, &Derived)> = ranked
        .iter()
        .filter_map(|r| Some((r.variant.name.as_str(), derived_of(&r.variant.name)?)))
        .collect();
    let contrast = match (profiled.first(), profiled.last()) {
        (Some(best), Some(slowest)) if profiled.len() > 1 => Some(contrast(*best, *slowest)),
        _ => None,
    };
    SweepAnalysis {
        group: sweep.group.clone(),
        parameters: sweep.parameters.clone(),
        size: size.to_string(),
        best: ranked.first().map(|r| r.variant.name.clone()),
        summary: summary(&ranked, configurations.len(), sweep.skipped.len()),
        configurations,
        skipped: sweep.skipped.clone(),
        contrast,
    }
}

/// Whether two values of a counter differ clearly: by more than a tenth
/// of the larger.
pub fn clearly_apart(a: f64, b: f64) -> bool {
    (a - b).abs() > 0.1 * a.abs().max(b.abs())
}

/// Whether two achieved occupancies (percent) differ clearly: by 10
/// points or more.
pub fn occupancies_apart(a: f64, b: f64) -> bool {
    (a - b).abs() >= 10.0
}

/// Sentences on the derived metrics in which the fastest profiled
/// configuration and the slowest differ clearly.
fn contrast((best, fast): (&str, &Derived), (slowest, slow): (&str, &Derived)) -> String {
    let mut sentences = Vec::new();
    let both = |key: Key| fast.get(key).zip(slow.get(key));
    if let Some((a, b)) = both(Key::AchievedOccupancy).filter(|(a, b)| occupancies_apart(*a, *b)) {
        let mut sentence = format!(
            "achieved occupancy is {} in {best} and {} in {slowest}",
            format::percent(a),
            format::percent(b)
        );
        let limiter = |d: &Derived| {
            d.limiters
                .iter()
                .map(|l| l.describe())
                .collect::<Vec<_>>()
                .join(" and ")
        };
        if fast.limiters != slow.limiters && !slow.limiters.is_empty() {
            sentence.push_str(&format!(
                " (the resident blocks of {slowest} are capped by {})",
                limiter(slow)
            ));
        }
        sentences.push(sentence);
    }
    if let Some((a, b)) = both(Key::RegistersPerThread).filter(|(a, b)| clearly_apart(*a, *b)) {
        sentences.push(format!(
            "{best} uses {} registers per thread, {slowest} {}",
            format::count(a),
            format::count(b)
        ));
    }
    let spills = |d: &Derived| d.get(Key::LocalMemorySectors).unwrap_or(0.0);
    match (spills(fast) > 0.0, spills(slow) > 0.0) {
        (false, true) => sentences.push(format!(
            "{slowest} spills to local memory ({} sectors) and {best} does not",
            format::count(spills(slow))
        )),
        (true, false) => sentences.push(format!(
            "{best} spills to local memory ({} sectors) and {slowest} does not",
            format::count(spills(fast))
        )),
        _ => {}
    }
    for (key, what) in [
        (
            Key::SharedExcessWavefronts,
            "shared-memory wavefronts over ideal (bank conflicts)",
        ),
        (Key::GlobalExcessSectors, "global sectors over ideal"),
    ] {
        if let Some((a, b)) = both(key).filter(|(a, b)| clearly_apart(*a, *b)) {
            sentences.push(format!(
                "{what} are {} in {best} and {} in {slowest}",
                format::ratio(a),
                format::ratio(b)
            ));
        }
    }
    match sentences.is_empty() {
        true => format!(
            "{best} and {slowest} do not differ clearly in occupancy, registers, spills, bank \
             conflicts or sectors over ideal."
        ),
        false => format!("Between {best} and {slowest}: {}.", sentences.join("; ")),
    }
}

/// How many configurations ran and how far the slowest is from the best.
fn summary(ranked: &[Ranked], configurations: usize, skipped: usize) -> String {
    let mut text = format::counted(configurations, "configuration");
    if skipped > 0 {
        text.push_str(&format!(" ({skipped} skipped by the constraint)"));
    }
    let failed = configurations - ranked.len();
    if failed > 0 && !ranked.is_empty() {
        text.push_str(&format!(
            "; {} did not run correctly",
            format::counted(failed, "configuration")
        ));
    }
    match (ranked.first(), ranked.last()) {
        (Some(best), Some(slowest)) if ranked.len() > 1 => format!(
            "{text}; the slowest of those that ran and were not wrong, {}, took {} the best's time.",
            slowest.variant.name,
            format::speedup(slowest.median_ms / best.median_ms)
        ),
        (Some(_), _) => format!("{text}; only one ran and was not wrong."),
        _ => format!("{text}; none ran without failing or a wrong output."),
    }
}

/// Whether the run of `variant` with `status` failed (compile error,
/// launch error, fault, timeout) as a sweep's configuration may: a sweep
/// tries configurations that cannot run (too many registers, too much
/// shared memory), and such a failure does not fail the run while
/// another configuration of its sweep ran correctly. Wrong output always
/// does.
pub fn is_tolerated_failure(analysis: &Analysis, variant: &str, status: &Status) -> bool {
    matches!(status, Status::Failed { .. })
        && analysis.sweeps.iter().any(|sweep| {
            sweep.best.is_some() && sweep.configurations.iter().any(|c| c.name == variant)
        })
}

/// Whether the report details the variant `name` (a section of its own,
/// a bar in each chart): every variant but a sweep's configuration that is
/// neither the sweep's best nor profiled, which only the sweep's table
/// lists, so that a sweep of hundreds of configurations stays readable.
pub fn is_detailed(analysis: &Analysis, name: &str) -> bool {
    analysis.sweeps.iter().all(|sweep| {
        sweep.best.as_deref() == Some(name)
            || sweep
                .configurations
                .iter()
                .all(|c| c.name != name || c.profiled)
    })
}

/// The configuration that stands for the sweep `group` in the chain: its
/// best at `size` (the first configuration when none ran correctly, so
/// that the chain shows why).
pub fn chosen<'a>(
    results: &'a Results,
    group: &'a str,
    size: Option<&str>,
) -> Option<&'a VariantResult> {
    size.and_then(|size| ranked(results, group, size).first().map(|r| r.variant))
        .or_else(|| configurations_of(results, group).next())
}

/// A configuration and its median time at one size.
#[derive(Debug, Clone, Copy)]
pub struct Ranked<'a> {
    pub variant: &'a VariantResult,
    pub median_ms: f64,
}

/// The configurations of the sweep `group`, in results order.
pub fn configurations_of<'a>(
    results: &'a Results,
    group: &'a str,
) -> impl Iterator<Item = &'a VariantResult> {
    results
        .variants
        .iter()
        .filter(move |v| v.sweep.as_ref().is_some_and(|s| s.group == group))
}

/// Whether the run at `size` ran and its outputs were not found wrong.
pub fn ran_correctly(variant: &VariantResult, size: &str) -> bool {
    variant.run(size).is_some_and(|run| {
        run.failure.is_none() && !matches!(run.check, Some(Check::Failed { .. }))
    })
}

/// The configurations of `group` at `size` that ran correctly and were
/// timed, fastest first (ties in results order).
pub fn ranked<'a>(results: &'a Results, group: &'a str, size: &str) -> Vec<Ranked<'a>> {
    let mut ranked: Vec<Ranked> = configurations_of(results, group)
        .filter(|variant| ran_correctly(variant, size))
        .filter_map(|variant| {
            median_at(results, variant, size).map(|median_ms| Ranked { variant, median_ms })
        })
        .collect();
    ranked.sort_by(|a, b| a.median_ms.total_cmp(&b.median_ms));
    ranked
}

/// The names of the `best` fastest and the `worst` slowest of `ranked`.
pub fn extremes<'a>(ranked: &[Ranked<'a>], best: usize, worst: usize) -> Vec<&'a str> {
    let slowest_from = ranked
        .len()
        .saturating_sub(worst)
        .max(best.min(ranked.len()));
    ranked
        .iter()
        .take(best)
        .chain(&ranked[slowest_from..])
        .map(|r| r.variant.name.as_str())
        .collect()
}

/// Results to test sweeps with, shared with the report's tests.
#[cfg(test)]
pub(crate) mod fixture {
    use crate::model::Results;
    use crate::model::sweep::{SkippedConfiguration, Sweep, SweepPoint};

    /// The probe with `tiled` and `padded` made the configurations K=1 and
    /// K=2 of the sweep `t`, with hot medians of 3 and 2 ms (naive: 5).
    pub(crate) fn tiled_and_padded_swept() -> Results {
        let mut results = crate::ncu::probe::probe_results();
        for (index, variant) in results.variants.iter_mut().enumerate() {
            let median = [1.0, 5.0, 3.0, 2.0][index];
            variant.runs[0].samples_ms = vec![median; 5];
            if index >= 2 {
                variant.sweep = Some(SweepPoint {
                    group: "t".into(),
                    parameters: vec![("K".into(), index as i64 - 1)],
                });
            }
        }
        results.sweeps = vec![Sweep {
            group: "t".into(),
            parameters: vec!["K".into()],
            skipped: vec![SkippedConfiguration {
                parameters: vec![("K".into(), 3)],
                reason: "K < 3 is false (3 < 3)".into(),
            }],
        }];
        results
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::tiled_and_padded_swept;
    use super::*;
    use crate::analysis::derived::Limiter;
    use crate::model::sweep::SweepPoint;

    /// The transpose probe's variants made configurations of one sweep,
    /// with hot medians of 1, 3, 2, … ms in results order.
    fn swept() -> Results {
        let mut results = crate::ncu::probe::probe_results();
        for (index, variant) in results.variants.iter_mut().enumerate() {
            variant.sweep = Some(SweepPoint {
                group: "t".into(),
                parameters: vec![("K".into(), index as i64)],
            });
            let median = [1.0, 3.0, 2.0, 4.0, 5.0][index % 5];
            variant.runs[0].samples_ms = vec![median; 5];
        }
        results
    }

    #[test]
    fn configurations_rank_fastest_first_and_wrong_ones_are_left_out() {
        let mut results = swept();
        let names = |results: &Results| -> Vec<i64> {
            ranked(results, "t", "N=2048")
                .iter()
                .map(|r| r.variant.sweep.as_ref().unwrap().parameters[0].1)
                .collect()
        };
        let all = names(&results);
        assert_eq!(&all[..3], [0, 2, 1]);
        results.variants[0].runs[0].check = Some(Check::Failed {
            against: "naive".into(),
            buffer: "out".into(),
            mismatches: 1,
            compared: 1,
            first_mismatch_index: Some(0),
            got: 1.0,
            want: 2.0,
            max_abs_error: 1.0,
            relative_l2_error: 0.5,
        });
        assert_eq!(names(&results)[0], 2);
    }

    #[test]
    fn the_extremes_are_the_best_few_and_the_worst_without_repeats() {
        let results = swept();
        let ranked = ranked(&results, "t", "N=2048");
        let count = ranked.len();
        assert!(count >= 3, "{count} configurations");
        assert_eq!(extremes(&ranked, 1, 1).len(), 2);
        assert_eq!(extremes(&ranked, 1, 1)[1], ranked[count - 1].variant.name);
        assert_eq!(extremes(&ranked, count + 3, 1).len(), count);
        assert_eq!(extremes(&ranked, 0, 0).len(), 0);
    }

    #[test]
    fn a_sweep_is_one_step_of_the_chain_its_best_configuration() {
        let results = tiled_and_padded_swept();
        let analysis = crate::analysis::analyze(&results);
        assert_eq!(analysis.steps, ["naive", "padded"]);
        let padded = analysis
            .variants
            .iter()
            .find(|v| v.name == "padded")
            .unwrap();
        assert_eq!(padded.previous.as_deref(), Some("naive"));
        // The other configuration is an alternative to the same step: its
        // changes are judged against the same previous step.
        let tiled = analysis
            .variants
            .iter()
            .find(|v| v.name == "tiled")
            .unwrap();
        assert_eq!(tiled.previous.as_deref(), Some("naive"));
        let sweep = &analysis.sweeps[0];
        assert_eq!(sweep.best.as_deref(), Some("padded"));
        assert_eq!(
            sweep.summary,
            "2 configurations (1 skipped by the constraint); the slowest of those that ran and were not wrong, \
             tiled, took 1.50× the best's time."
        );
        let order: Vec<(&str, Option<f64>)> = sweep
            .configurations
            .iter()
            .map(|c| (c.name.as_str(), c.times_slower))
            .collect();
        assert_eq!(order, [("padded", Some(1.0)), ("tiled", Some(1.5))]);
        assert!(sweep.configurations.iter().all(|c| c.profiled));
        assert!(is_detailed(&analysis, "tiled"));
        assert_eq!(
            sweep.contrast.as_deref(),
            Some(
                "padded and tiled do not differ clearly in occupancy, registers, spills, bank \
                 conflicts or sectors over ideal."
            )
        );
    }

    #[test]
    fn a_configuration_that_fails_to_run_fails_the_run_only_when_none_ran_correctly() {
        let mut results = tiled_and_padded_swept();
        results.variants[2].runs[0].failure = Some(crate::model::results::Failure {
            stage: crate::model::results::Stage::Launch,
            message: "too many resources requested for launch".into(),
        });
        let analysis = crate::analysis::analyze(&results);
        let status = |name: &str| {
            analysis
                .variants
                .iter()
                .find(|v| v.name == name)
                .unwrap()
                .runs[0]
                .status
                .clone()
        };
        assert!(is_tolerated_failure(&analysis, "tiled", &status("tiled")));
        assert!(!is_tolerated_failure(
            &analysis,
            "padded",
            &status("padded")
        ));
        assert!(!is_tolerated_failure(&analysis, "naive", &status("tiled")));
        results.variants[3].runs[0].samples_ms.clear();
        let analysis = crate::analysis::analyze(&results);
        assert!(!is_tolerated_failure(&analysis, "tiled", &status("tiled")));
    }

    #[test]
    fn only_the_best_and_the_profiled_configurations_are_detailed() {
        let mut results = tiled_and_padded_swept();
        results.variants[2].runs[0].profile = None;
        let analysis = crate::analysis::analyze(&results);
        assert!(!is_detailed(&analysis, "tiled"));
        assert!(is_detailed(&analysis, "padded"));
        assert!(is_detailed(&analysis, "naive"));
        results.variants[3].runs[0].profile = None;
        let analysis = crate::analysis::analyze(&results);
        assert!(is_detailed(&analysis, "padded"));
    }

    #[test]
    fn the_contrast_names_only_the_counters_that_differ_clearly() {
        let derived = |values: &[(Key, f64)], limiters: Vec<Limiter>| Derived {
            values: values.iter().copied().collect(),
            limiters,
            blocks_per_sm: None,
        };
        let fast = derived(
            &[
                (Key::AchievedOccupancy, 80.0),
                (Key::RegistersPerThread, 32.0),
                (Key::SharedExcessWavefronts, 1.0),
                (Key::GlobalExcessSectors, 1.0),
            ],
            vec![Limiter::Warps],
        );
        let slow = derived(
            &[
                (Key::AchievedOccupancy, 30.0),
                (Key::RegistersPerThread, 128.0),
                (Key::LocalMemorySectors, 4096.0),
                (Key::SharedExcessWavefronts, 8.0),
                (Key::GlobalExcessSectors, 1.05),
            ],
            vec![Limiter::Registers],
        );
        assert_eq!(
            contrast(("a[X=1]", &fast), ("a[X=8]", &slow)),
            "Between a[X=1] and a[X=8]: achieved occupancy is 80.0% in a[X=1] and 30.0% in \
             a[X=8] (the resident blocks of a[X=8] are capped by registers per thread); a[X=1] \
             uses 32 registers per thread, a[X=8] 128; a[X=8] spills to local memory (4,096 \
             sectors) and a[X=1] does not; shared-memory wavefronts over ideal (bank \
             conflicts) are 1.00 in a[X=1] and 8.00 in a[X=8]."
        );
    }

    #[test]
    fn a_sweep_where_none_ran_correctly_stands_in_the_chain_as_its_first() {
        let mut results = tiled_and_padded_swept();
        for variant in &mut results.variants[2..] {
            variant.runs[0].samples_ms.clear();
        }
        let analysis = crate::analysis::analyze(&results);
        assert_eq!(analysis.steps, ["naive", "tiled"]);
        assert_eq!(
            analysis.sweeps[0].summary,
            "2 configurations (1 skipped by the constraint); none ran without failing or a wrong output."
        );
    }
}
