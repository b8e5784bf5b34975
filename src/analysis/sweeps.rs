//! Parameter sweeps read from results.json: a sweep's configurations at a
//! size ranked by their median time among those that ran and verified
//! (the first is the one the chain shows), and which of them the profile
//! stage spends ncu on (the fastest and the slowest). The one ranking the
//! pipeline, the chain and the report share.

use crate::model::Results;
use crate::model::measurement::Check;
use crate::model::results::VariantResult;

use super::timing::median_at;

/// A configuration and its median time at one size.
#[derive(Debug, Clone, Copy)]
pub struct Ranked<'a> {
    pub variant: &'a VariantResult,
    pub median_ms: f64,
}

/// The configurations of the sweep `group`, in results order.
pub fn configurations<'a>(
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
    let mut ranked: Vec<Ranked> = configurations(results, group)
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

#[cfg(test)]
mod tests {
    use super::*;
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
}
