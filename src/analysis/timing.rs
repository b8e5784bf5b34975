//! Which samples a time is read from: the cold ones (L2 flushed before
//! each) or the hot ones (the kernel ran right before). The headline kind
//! of a size is cold where its working set (the largest of its runs'
//! declared `bytes`, or their buffers' bytes where none is declared) fits
//! in L2, where back-to-back launches would time the
//! cache, and in suites with command variants or imported launches, whose
//! times are ncu's (ncu flushes caches before each profiled launch); hot
//! elsewhere, where the two agree and hot samples are quieter. A run
//! without samples of the headline kind (recorded before gpuprof took cold
//! ones) is read, and labelled, hot; two runs are compared on a kind both
//! have. Also the words that say how a run's samples were taken.

use crate::model::Device;
use crate::model::Results;
use crate::model::results::{RunResult, VariantResult};
use crate::model::timing::{Clock, Schedule, Temperature};
use crate::model::variant::VariantKind;

use super::format;
use super::stats::{self, Speedup, TimeVerdict, TimingStats};

/// Whether `bytes` of data fit in the device's L2 cache.
pub fn fits_in_l2(device: Option<&Device>, bytes: Option<f64>) -> bool {
    match (device, bytes) {
        (Some(device), Some(bytes)) => bytes > 0.0 && bytes < device.l2_cache_bytes as f64,
        _ => false,
    }
}

/// Whether a variant's times are ncu's durations (a command variant, an
/// imported launch): taken with caches flushed, so cold.
fn timed_by_ncu(variant: &VariantResult) -> bool {
    matches!(
        variant.kind,
        VariantKind::Command { .. } | VariantKind::Imported { .. }
    )
}

/// The kind of samples every time at `size` is read from, where runs have
/// it.
pub fn headline(results: &Results, size: &str) -> Temperature {
    let working_set = results
        .variants
        .iter()
        .filter_map(|v| {
            let run = v.run(size)?;
            run.bytes.or(run.buffer_bytes)
        })
        .fold(None, |most: Option<f64>, b| {
            Some(most.map_or(b, |m| m.max(b)))
        });
    if results.variants.iter().any(timed_by_ncu) || fits_in_l2(results.device.as_ref(), working_set)
    {
        Temperature::Cold
    } else {
        Temperature::Hot
    }
}

/// The samples of one kind of a run (ncu's durations are cold).
pub fn samples<'a>(variant: &VariantResult, run: &'a RunResult, kind: Temperature) -> &'a [f64] {
    match (timed_by_ncu(variant), kind) {
        (true, Temperature::Cold) => &run.samples_ms,
        (true, Temperature::Hot) => &[],
        (false, Temperature::Cold) => &run.cold_samples_ms,
        (false, Temperature::Hot) => &run.samples_ms,
    }
}

fn other(kind: Temperature) -> Temperature {
    match kind {
        Temperature::Cold => Temperature::Hot,
        Temperature::Hot => Temperature::Cold,
    }
}

/// The headline kind first, then the other.
fn preference(results: &Results, size: &str) -> [Temperature; 2] {
    let first = headline(results, size);
    [first, other(first)]
}

/// A run's time: the statistics of its headline kind, or of the other
/// kind when it has no samples of the headline one.
pub fn time(
    results: &Results,
    variant: &VariantResult,
    run: &RunResult,
) -> Option<(Temperature, TimingStats)> {
    preference(results, &run.size).into_iter().find_map(|kind| {
        TimingStats::from_samples(samples(variant, run, kind)).map(|stats| (kind, stats))
    })
}

/// The median of a variant's time at `size`, of the samples [`time`]
/// would take (without their bootstrap interval).
pub fn median_at(results: &Results, variant: &VariantResult, size: &str) -> Option<f64> {
    let run = variant.run(size)?;
    preference(results, size)
        .into_iter()
        .find_map(|kind| crate::model::timing::median(samples(variant, run, kind)))
}

/// `before` against `after` on the headline kind if both have it, else on
/// the other kind.
pub fn compare(
    results: &Results,
    before: (&VariantResult, &RunResult),
    after: (&VariantResult, &RunResult),
) -> Option<(Temperature, Speedup)> {
    compare_in_order(preference(results, &after.1.size), before, after)
}

/// `before` against `after` on the first of `kinds` both have.
fn compare_in_order(
    kinds: [Temperature; 2],
    (before_variant, before): (&VariantResult, &RunResult),
    (after_variant, after): (&VariantResult, &RunResult),
) -> Option<(Temperature, Speedup)> {
    kinds.into_iter().find_map(|kind| {
        stats::compare(
            samples(before_variant, before, kind),
            samples(after_variant, after, kind),
        )
        .map(|speedup| (kind, speedup))
    })
}

/// The other kind's statistics when they differ from the headline's beyond
/// the noise (the interval of their ratio excludes 1 and they differ by
/// more than 1%).
pub fn differing_other(
    variant: &VariantResult,
    run: &RunResult,
    shown: Temperature,
) -> Option<(Temperature, TimingStats)> {
    let kind = other(shown);
    let theirs = samples(variant, run, kind);
    let verdict = stats::compare(samples(variant, run, shown), theirs)?.verdict;
    (verdict != TimeVerdict::Same)
        .then(|| TimingStats::from_samples(theirs).map(|stats| (kind, stats)))
        .flatten()
}

/// How the run's samples were taken, in words: "cold: the L2 flushed
/// before each sample; CUDA events around each launch; 412 samples (the
/// spread reached its target in 0.31 s); SM clock 1980 MHz (max 1980);
/// 3 samples left out while throttled; interleaved with 3 other variants".
pub fn method(variant: &VariantResult, run: &RunResult, shown: Temperature) -> String {
    let kind = match shown {
        Temperature::Cold => "cold: the L2 flushed before each sample",
        Temperature::Hot => "hot: the kernel ran right before each sample",
    };
    if timed_by_ncu(variant) {
        return "cold: ncu's duration of each profiled launch (ncu flushes caches before each)"
            .into();
    }
    let Some(record) = &run.timing else {
        return "hot, back-to-back, fixed count: each launch between CUDA events right after the previous one (recorded before gpuprof took cold samples)".into();
    };
    let mut parts = vec![
        kind.to_string(),
        record.method.describe(),
        format!(
            "sampling stopped after {}: {} (target spread ±{})",
            format::milliseconds(record.seconds * 1e3),
            record.stopped.describe(),
            format::share(record.target_spread)
        ),
    ];
    if let Some(made) = record.warm_ups_cut_to {
        parts.push(format!(
            "only {made} warm-up launch{} before sampling: more would have taken over a quarter of the time limit",
            if made == 1 { "" } else { "es" }
        ));
    }
    parts.push(match &record.clock {
        Clock::Read {
            median_mhz,
            lowest_mhz,
            max_mhz,
            threshold,
            throttled_throughout,
        } => {
            let seen = format!("SM clock median {median_mhz} MHz, lowest {lowest_mhz} MHz, of {max_mhz} MHz");
            match throttled_throughout {
                true => format!(
                    "{seen}: below {} of the maximum throughout, so no sample was left out and the times are those of a slower clock",
                    format::share(*threshold)
                ),
                false => format!(
                    "{seen}; {} samples left out while it was below {} of the maximum",
                    record.throttled_samples,
                    format::share(*threshold)
                ),
            }
        }
        Clock::Unavailable { reason } => {
            format!("SM clock not read ({reason}): no sample was checked for throttling")
        }
    });
    parts.push(match &record.schedule {
        Schedule::Interleaved { variants } if *variants > 1 => format!(
            "interleaved round-robin with the other {} variants of the size",
            variants - 1
        ),
        Schedule::Interleaved { .. } => "the only variant timed at this size".into(),
        Schedule::OneAtATime { reason } => format!("timed on its own, not interleaved: {reason}"),
    });
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::read_results;

    #[test]
    fn a_run_whose_warm_ups_were_cut_says_how_many_it_made() {
        let mut results =
            read_results(include_str!("../../examples/sweep-matmul/results.json")).unwrap();
        let variant = &mut results.variants[0];
        let said = |variant: &VariantResult| method(variant, &variant.runs[0], Temperature::Hot);
        assert!(!said(variant).contains("warm-up"), "{}", said(variant));
        variant.runs[0].timing.as_mut().unwrap().warm_ups_cut_to = Some(2);
        assert!(
            said(variant).contains("only 2 warm-up launches before sampling: more would have taken over a quarter of the time limit"),
            "{}",
            said(variant)
        );
        // A suite that asked for two or fewer never has them cut; a record
        // of one still reads as English.
        variant.runs[0].timing.as_mut().unwrap().warm_ups_cut_to = Some(1);
        assert!(said(variant).contains("only 1 warm-up launch before"));
    }

    #[test]
    fn without_declared_bytes_the_buffers_decide_whether_the_data_fits_in_l2() {
        let mut results =
            read_results(include_str!("../../examples/transpose/results.json")).unwrap();
        let l2 = results.device.as_ref().unwrap().l2_cache_bytes as f64;
        assert_eq!(headline(&results, "N=2048"), Temperature::Cold, "declared");
        let set = |results: &mut Results, buffers: Option<f64>| {
            for run in results.variants.iter_mut().flat_map(|v| v.runs.iter_mut()) {
                run.bytes = None;
                run.buffer_bytes = buffers;
            }
        };
        set(&mut results, Some(l2 / 2.0));
        assert_eq!(headline(&results, "N=2048"), Temperature::Cold);
        set(&mut results, Some(l2 * 2.0));
        assert_eq!(headline(&results, "N=2048"), Temperature::Hot);
        set(&mut results, None);
        assert_eq!(
            headline(&results, "N=2048"),
            Temperature::Hot,
            "nothing known"
        );
    }
}
