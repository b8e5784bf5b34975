//! Timing statistics over the samples of one kind (cold or hot) of a
//! variant at one size, and the comparison of two variants that respects
//! noise. The spread is the robust one of `model::timing` (median absolute
//! deviation × 1.4826 over the median). Each median comes with a 95%
//! bootstrap interval, and so does the ratio of two medians; a step is
//! called faster or slower only when the ratio's interval excludes 1 and
//! the medians differ by more than 1% (run-to-run drift of clocks that no
//! interval sees), in the spirit of nvbench's compare; else "same". The
//! resampling is seeded from the samples themselves, so that a report is
//! the same every time it is rendered.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use serde::Serialize;

use super::format;
use crate::model::timing::{median_of_sorted, relative_spread_of_sorted, sorted_samples};

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TimingStats {
    pub samples: usize,
    pub median_ms: f64,
    /// The 95% bootstrap interval of the median.
    pub median_interval_ms: [f64; 2],
    pub min_ms: f64,
    pub max_ms: f64,
    pub mean_ms: f64,
    /// Median absolute deviation × 1.4826 over the median: a spread that
    /// one outlying launch does not move.
    pub relative_noise: f64,
}

impl TimingStats {
    pub fn from_samples(samples: &[f64]) -> Option<TimingStats> {
        let sorted = sorted_samples(samples);
        if sorted.is_empty() {
            return None;
        }
        let n = sorted.len();
        let medians = bootstrap_medians(&sorted).to_vec();
        Some(TimingStats {
            samples: n,
            median_ms: median_of_sorted(&sorted),
            median_interval_ms: interval(medians),
            min_ms: sorted[0],
            max_ms: sorted[n - 1],
            mean_ms: sorted.iter().sum::<f64>() / n as f64,
            relative_noise: relative_spread_of_sorted(&sorted),
        })
    }
}

/// The smallest relative difference of medians that can be a verdict.
const MIN_THRESHOLD: f64 = 0.01;

/// Resamples per bootstrap: enough for stable 2.5% and 97.5% percentiles.
const RESAMPLES: usize = 2000;

/// SplitMix64: a small generator whose stream is fixed by its seed.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform index below `n`.
    fn below(&mut self, n: usize) -> usize {
        ((self.next() as u128 * n as u128) >> 64) as usize
    }
}

/// Bootstrap medians worked out, by the samples' seed and count.
type Bootstraps = HashMap<(u64, usize), Rc<Vec<f64>>>;

/// The medians of [`RESAMPLES`] resamples (with replacement) of sorted,
/// non-empty samples, seeded from the samples so that the same samples
/// always give the same medians. A report asks for the same run's medians
/// many times (its timing, each comparison it is in): they are worked out
/// once per thread and shared.
fn bootstrap_medians(sorted: &[f64]) -> Rc<Vec<f64>> {
    let seed = sorted
        .iter()
        .fold(0xcbf2_9ce4_8422_2325u64, |hash, sample| {
            (hash ^ sample.to_bits()).wrapping_mul(0x0100_0000_01b3)
        });
    thread_local! {
        static WORKED_OUT: RefCell<Bootstraps> = RefCell::default();
    }
    let key = (seed, sorted.len());
    if let Some(medians) = WORKED_OUT.with(|cache| cache.borrow().get(&key).cloned()) {
        return medians;
    }
    let mut rng = SplitMix(seed);
    let n = sorted.len();
    let mut resample = vec![0.0; n];
    let medians: Rc<Vec<f64>> = Rc::new(
        (0..RESAMPLES)
            .map(|_| {
                resample.iter_mut().for_each(|r| *r = sorted[rng.below(n)]);
                median_in_place(&mut resample)
            })
            .collect(),
    );
    WORKED_OUT.with(|cache| {
        let mut cache = cache.borrow_mut();
        // A long-lived process (the tests) must not grow without end.
        if cache.len() >= 4096 {
            cache.clear();
        }
        cache.insert(key, medians.clone());
    });
    medians
}

/// The median of `values` (non-empty), reordering them: a selection, not
/// a sort.
fn median_in_place(values: &mut [f64]) -> f64 {
    let n = values.len();
    let (below, upper, _) = values.select_nth_unstable_by(n / 2, f64::total_cmp);
    let upper = *upper;
    match n % 2 {
        1 => upper,
        _ => {
            let lower = below.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (lower + upper) / 2.0
        }
    }
}

/// The central 95% of `values` (2.5th and 97.5th percentiles).
fn interval(mut values: Vec<f64>) -> [f64; 2] {
    values.sort_unstable_by(f64::total_cmp);
    let at = |share: f64| values[((values.len() - 1) as f64 * share).round() as usize];
    [at(0.025), at(0.975)]
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeVerdict {
    Faster,
    Slower,
    Same,
}

/// `before` against `after`: the speedup (before / after), its 95%
/// bootstrap interval and the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Speedup {
    pub ratio: f64,
    pub verdict: TimeVerdict,
    /// The 95% bootstrap interval of the ratio of medians.
    pub interval: [f64; 2],
}

impl Speedup {
    /// The interval in words: "95% interval 1.92×–2.05×".
    pub fn interval_text(&self) -> String {
        format!(
            "95% interval {}–{}",
            format::speedup(self.interval[0]),
            format::speedup(self.interval[1])
        )
    }
}

/// Compares the samples of one kind of `before` and `after` (None when
/// either has no usable sample).
pub fn compare(before: &[f64], after: &[f64]) -> Option<Speedup> {
    let (before, after) = (sorted_samples(before), sorted_samples(after));
    if before.is_empty() || after.is_empty() {
        return None;
    }
    let (b, a) = (median_of_sorted(&before), median_of_sorted(&after));
    let ratio = b / a;
    let ratios = bootstrap_medians(&before)
        .iter()
        .zip(bootstrap_medians(&after).iter())
        .map(|(b, a)| b / a)
        .collect();
    let interval = interval(ratios);
    let difference = (b - a) / b;
    let verdict = if interval[0] > 1.0 && difference > MIN_THRESHOLD {
        TimeVerdict::Faster
    } else if interval[1] < 1.0 && -difference > MIN_THRESHOLD {
        TimeVerdict::Slower
    } else {
        TimeVerdict::Same
    };
    Some(Speedup {
        ratio,
        verdict,
        interval,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` samples around `ms` with a relative jitter of ±`jitter`, spread
    /// evenly (deterministic).
    fn around(ms: f64, jitter: f64, n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| ms * (1.0 + jitter * (2.0 * i as f64 / (n - 1) as f64 - 1.0)))
            .collect()
    }

    #[test]
    fn median_spread_and_noise() {
        let stats = TimingStats::from_samples(&[3.0, 1.0, 2.0, 4.0]).unwrap();
        assert_eq!(
            (stats.median_ms, stats.min_ms, stats.max_ms, stats.mean_ms),
            (2.5, 1.0, 4.0, 2.5)
        );
        assert!((stats.relative_noise - 1.4826 / 2.5).abs() < 1e-12);
        let one = TimingStats::from_samples(&[5.0]).unwrap();
        assert_eq!(
            (one.relative_noise, one.median_interval_ms),
            (0.0, [5.0, 5.0])
        );
        assert_eq!(TimingStats::from_samples(&[]), None);
        assert_eq!(TimingStats::from_samples(&[f64::NAN]), None);
    }

    #[test]
    fn the_median_interval_holds_the_median_and_narrows_with_more_samples() {
        let few = TimingStats::from_samples(&around(1.0, 0.1, 11)).unwrap();
        let many = TimingStats::from_samples(&around(1.0, 0.1, 1001)).unwrap();
        for stats in [few, many] {
            let [low, high] = stats.median_interval_ms;
            assert!(
                low <= stats.median_ms && stats.median_ms <= high,
                "{stats:?}"
            );
        }
        let width = |s: TimingStats| s.median_interval_ms[1] - s.median_interval_ms[0];
        assert!(width(many) < width(few) / 3.0, "{few:?} {many:?}");
        // Seeded from the samples: the same samples, the same interval.
        assert_eq!(
            TimingStats::from_samples(&around(1.0, 0.1, 11)).unwrap(),
            few
        );
    }

    #[test]
    fn one_slow_first_launch_does_not_inflate_the_noise() {
        let mut samples = vec![10.0, 10.1, 9.9, 10.0, 10.1, 9.9, 10.0, 10.0];
        samples.insert(0, 30.0);
        let stats = TimingStats::from_samples(&samples).unwrap();
        assert_eq!(stats.median_ms, 10.0);
        assert_eq!(stats.max_ms, 30.0);
        assert!(stats.relative_noise < 0.02, "{}", stats.relative_noise);
    }

    #[test]
    fn verdicts_need_an_interval_that_excludes_one() {
        let faster = compare(&around(1.0, 0.02, 30), &around(0.5, 0.02, 30)).unwrap();
        assert_eq!(faster.verdict, TimeVerdict::Faster);
        assert!((faster.ratio - 2.0).abs() < 1e-9);
        assert!(
            faster.interval[0] > 1.9 && faster.interval[1] < 2.1,
            "{faster:?}"
        );
        assert_eq!(
            compare(&around(1.0, 0.02, 30), &around(1.05, 0.02, 30))
                .unwrap()
                .verdict,
            TimeVerdict::Slower
        );
        // 3% apart, but each spread over ±30% with few samples: the
        // interval of the ratio holds 1.
        let noisy = compare(&around(1.0, 0.3, 9), &around(0.97, 0.3, 9)).unwrap();
        assert!(
            noisy.interval[0] < 1.0 && noisy.interval[1] > 1.0,
            "{noisy:?}"
        );
        assert_eq!(noisy.verdict, TimeVerdict::Same);
        assert_eq!(compare(&[], &[1.0]), None);
    }

    #[test]
    fn without_spread_a_verdict_still_needs_a_one_percent_difference() {
        let exact = |ms: f64| vec![ms; 20];
        let close = compare(&exact(1.0), &exact(0.995)).unwrap();
        assert_eq!(close.interval, [1.0 / 0.995; 2]);
        assert_eq!(close.verdict, TimeVerdict::Same);
        assert_eq!(
            compare(&exact(1.0), &exact(0.98)).unwrap().verdict,
            TimeVerdict::Faster
        );
        assert_eq!(
            compare(&exact(1.0), &exact(1.02)).unwrap().verdict,
            TimeVerdict::Slower
        );
    }
}
