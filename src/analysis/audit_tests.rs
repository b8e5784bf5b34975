//! Tests of the claims audit: the recorded transpose suite passes it, and
//! each kind of unsupported claim, planted in its analysis by hand, is
//! caught by its rule.

use super::*;
use crate::analysis::analyze;
use crate::analysis::evidence::Weight;
use crate::analysis::findings::FindingKind;
use crate::model::results::read_results;

fn transpose() -> Results {
    read_results(include_str!("../../examples/transpose/results.json")).unwrap()
}

/// The rules of the claims the audit found unsupported.
fn rules(results: &Results, analysis: &Analysis) -> Vec<&'static str> {
    audit(results, analysis)
        .unsupported
        .iter()
        .map(|u| u.rule)
        .collect()
}

/// The run of `variant` at the focus size, to tamper with.
fn focus_run<'a>(analysis: &'a mut Analysis, variant: &str) -> &'a mut RunAnalysis {
    let size = analysis.focus_size.clone().unwrap();
    analysis
        .variants
        .iter_mut()
        .find(|v| v.name == variant)
        .unwrap()
        .runs
        .iter_mut()
        .find(|r| r.size == size)
        .unwrap()
}

#[test]
fn the_recorded_transpose_suite_makes_only_supported_claims() {
    let results = transpose();
    let audit = audit(&results, &analyze(&results));
    assert!(audit.checked > 20, "{} claims", audit.checked);
    assert!(audit.unsupported.is_empty(), "{:#?}", audit.unsupported);
}

#[test]
fn a_confirmed_verdict_beside_a_slower_step_is_caught() {
    // Planted: the chain reversed, so `tiled` follows the faster `padded`.
    let results = transpose();
    let mut analysis = analyze(&results);
    let tiled = analysis
        .variants
        .iter_mut()
        .find(|v| v.name == "tiled")
        .unwrap();
    tiled.previous = Some("padded".into());
    tiled.changes[0].verdict = Verdict::Confirmed;
    assert!(rules(&results, &analysis).contains(&"confirmed-but-slower"));
}

#[test]
fn an_explanation_from_a_counter_that_did_not_move_is_caught() {
    let results = transpose();
    let mut analysis = analyze(&results);
    let run = focus_run(&mut analysis, "padded");
    let explanation = run.explanation.as_mut().unwrap();
    let cited = explanation
        .counter
        .as_mut()
        .expect("padded cites a counter");
    // Planted: the claim cites a counter the step did not move.
    cited.key = Key::GlobalStoreExcessSectors;
    cited.before = 1.0;
    cited.after = 1.0;
    assert_eq!(rules(&results, &analysis), ["explanation"]);
}

#[test]
fn an_explanation_from_a_percentage_that_barely_moved_is_caught() {
    // Planted: the L2 hit rate of tiled and padded at the focus size set
    // to 4% and 3% (a 25% move of one point), and padded's explanation
    // citing it with those very values.
    let mut results = transpose();
    let size = analyze(&results).focus_size.unwrap();
    for (variant, rate) in [("tiled", 4.0), ("padded", 3.0)] {
        let run = results
            .variants
            .iter_mut()
            .find(|v| v.name == variant)
            .unwrap()
            .runs
            .iter_mut()
            .find(|r| r.size == size)
            .unwrap();
        run.profile
            .as_mut()
            .unwrap()
            .metrics
            .insert(crate::model::metrics::L2_HIT_RATE.into(), rate);
    }
    let mut analysis = analyze(&results);
    let explanation = focus_run(&mut analysis, "padded")
        .explanation
        .as_mut()
        .unwrap();
    explanation.text = "L2 hit rate: 4.00% → 3.00%".into();
    let cited = explanation.counter.as_mut().unwrap();
    (cited.key, cited.before, cited.after) = (Key::L2HitRate, 4.0, 3.0);
    let found = audit(&results, &analysis).unsupported;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].why,
        "L2 hit rate moved by 1.0 points, under the 5 a percentage needs to explain a step"
    );
}

#[test]
fn an_explanation_from_a_cost_or_with_other_numbers_is_caught() {
    let results = transpose();
    let mut analysis = analyze(&results);
    let run = focus_run(&mut analysis, "padded");
    let cited = run.explanation.as_mut().unwrap().counter.as_mut().unwrap();
    let original = *cited;
    cited.key = Key::RegistersPerThread;
    assert_eq!(rules(&results, &analysis), ["explanation"]);
    let cited = focus_run(&mut analysis, "padded")
        .explanation
        .as_mut()
        .unwrap()
        .counter
        .as_mut()
        .unwrap();
    *cited = Cited {
        after: original.after * 2.0,
        ..original
    };
    assert_eq!(rules(&results, &analysis), ["explanation"]);
}

#[test]
fn a_limiter_below_its_weight_or_its_band_is_caught() {
    let results = transpose();
    let mut analysis = analyze(&results);
    let limit = focus_run(&mut analysis, "padded").limit.as_mut().unwrap();
    limit.basis = Basis::Access {
        finding: FindingKind::Uncoalesced,
        weight: Some(Weight {
            traffic: 0.06,
            stalls: 0.01,
        }),
    };
    assert_eq!(rules(&results, &analysis), ["limiter"]);
    let limit = focus_run(&mut analysis, "padded").limit.as_mut().unwrap();
    limit.basis = Basis::Unit {
        unit: BusyUnit::Issue,
        busy: 95.0,
        level: Level::Above,
        issue_stalls: None,
    };
    assert_eq!(rules(&results, &analysis), ["limiter"]);
    // The padded transpose's grid fills many waves: a small-grid verdict
    // on it is unsupported.
    let limit = focus_run(&mut analysis, "padded").limit.as_mut().unwrap();
    limit.basis = Basis::SmallGrid {
        unit: BusyUnit::L1Shared,
        busy: 85.0,
        waves: 0.2,
    };
    assert_eq!(rules(&results, &analysis), ["limiter"]);
}

#[test]
fn a_ceiling_this_run_outpaces_is_never_a_speed_of_light() {
    let results = transpose();
    let mut analysis = analyze(&results);
    let run = focus_run(&mut analysis, "padded");
    let outpaced = run
        .ceilings
        .iter()
        .find(|c| c.share > 1.05)
        .expect("the recorded padded transpose outpaces its copy ceiling")
        .clone();
    run.limit.as_mut().unwrap().basis = Basis::SpeedOfLight {
        ceiling: outpaced.ceiling,
        share: outpaced.share,
        of_device_peak: 0.87,
    };
    assert_eq!(rules(&results, &analysis), ["limiter"]);
}

#[test]
fn a_count_per_request_compared_where_the_ideal_is_known_is_caught() {
    let results = transpose();
    let mut analysis = analyze(&results);
    let padded = analysis
        .variants
        .iter_mut()
        .find(|v| v.name == "padded")
        .unwrap();
    let expectation = padded.changes[0]
        .expectations
        .iter_mut()
        .find(|e| e.metric == Key::SharedLoadExcessWavefronts)
        .unwrap();
    expectation.metric = Key::SharedLoadWavefrontsPerInstruction;
    assert_eq!(rules(&results, &analysis), ["ideal-for-access-width"]);
}

#[test]
fn a_finding_on_a_line_the_kernel_lacks_is_caught() {
    let results = transpose();
    let mut analysis = analyze(&results);
    let run = focus_run(&mut analysis, "tiled");
    run.findings[0].lines.push(9999);
    assert_eq!(rules(&results, &analysis), ["finding-lines"]);
}

#[test]
fn an_access_finding_on_a_line_at_its_ideal_is_caught() {
    let results = transpose();
    let mut analysis = analyze(&results);
    let run = focus_run(&mut analysis, "tiled");
    let conflicts = run
        .findings
        .iter_mut()
        .find(|f| f.kind == FindingKind::BankConflicts)
        .unwrap();
    // Planted: the tile's row write, which is conflict-free.
    let stored = results.variant("tiled").unwrap().runs.last().unwrap();
    let clean = stored
        .profile
        .as_ref()
        .unwrap()
        .source_lines
        .iter()
        .find(|l| l.shared_wavefronts.is_some() && l.shared_wavefronts == l.shared_wavefronts_ideal)
        .unwrap();
    conflicts.lines = vec![clean.line];
    assert_eq!(rules(&results, &analysis), ["finding-lines"]);
}

#[test]
fn a_sweeps_best_slowest_and_contrast_are_checked_against_its_configurations() {
    let results = read_results(include_str!("../../examples/sweep-matmul/results.json")).unwrap();
    let analysis = analyze(&results);
    assert!(rules(&results, &analysis).is_empty());
    let sweep = &analysis.sweeps[0];
    assert!(sweep.contrast.as_deref().unwrap().contains("126"));

    let mut wrong_best = analysis.clone();
    wrong_best.sweeps[0].best = Some(sweep.configurations[1].name.clone());
    assert_eq!(rules(&results, &wrong_best), ["sweep-best"]);

    let mut wrong_spread = analysis.clone();
    wrong_spread.sweeps[0].summary = sweep.summary.replace("2.21×", "1.50×");
    assert_eq!(rules(&results, &wrong_spread), ["sweep-slowest"]);

    let mut wrong_numbers = analysis.clone();
    wrong_numbers.sweeps[0].contrast = sweep.contrast.as_ref().map(|c| c.replace("126", "127"));
    assert_eq!(rules(&results, &wrong_numbers), ["sweep-contrast"]);
}
