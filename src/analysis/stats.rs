//! Timing statistics over every sample of a variant, and the comparison of
//! two variants that respects noise. The noise is a robust spread, the
//! median absolute deviation scaled to a standard deviation (× 1.4826) over
//! the median, so that one outlying launch (often the first timed one at
//! small sizes) does not inflate it. A step is called faster or slower only
//! when the medians differ by more than twice the larger noise of the two,
//! and never by less than 1% (run-to-run drift of clocks between variants
//! timed at different moments), in the spirit of nvbench's compare; else
//! "same".

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TimingStats {
    pub samples: usize,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub mean_ms: f64,
    /// Median absolute deviation × 1.4826 over the median: a spread that
    /// one outlying launch does not move.
    pub relative_noise: f64,
}

impl TimingStats {
    pub fn from_samples(samples: &[f64]) -> Option<TimingStats> {
        let mut sorted: Vec<f64> = samples
            .iter()
            .copied()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median_ms = median(&sorted);
        let mut deviations: Vec<f64> = sorted.iter().map(|s| (s - median_ms).abs()).collect();
        deviations.sort_by(f64::total_cmp);
        let spread = MAD_TO_STANDARD_DEVIATION * median(&deviations);
        Some(TimingStats {
            samples: n,
            median_ms,
            min_ms: sorted[0],
            max_ms: sorted[n - 1],
            mean_ms: sorted.iter().sum::<f64>() / n as f64,
            relative_noise: if median_ms > 0.0 {
                spread / median_ms
            } else {
                0.0
            },
        })
    }
}

/// The median absolute deviation times this estimates the standard
/// deviation of normally distributed samples.
const MAD_TO_STANDARD_DEVIATION: f64 = 1.4826;

/// The smallest relative difference of medians that can be a verdict.
const MIN_THRESHOLD: f64 = 0.01;

/// The median of sorted, non-empty values.
fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimeVerdict {
    Faster,
    Slower,
    Same,
}

/// `before` against `after`: the speedup (before / after) and the verdict.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Speedup {
    pub ratio: f64,
    pub verdict: TimeVerdict,
    /// The relative difference a verdict needed (2 × the larger noise, at
    /// least 1%).
    pub threshold: f64,
}

pub fn compare(before: &TimingStats, after: &TimingStats) -> Speedup {
    let ratio = before.median_ms / after.median_ms;
    let threshold = (2.0 * before.relative_noise.max(after.relative_noise)).max(MIN_THRESHOLD);
    let difference = (before.median_ms - after.median_ms) / before.median_ms;
    let verdict = if difference.abs() <= threshold {
        TimeVerdict::Same
    } else if difference > 0.0 {
        TimeVerdict::Faster
    } else {
        TimeVerdict::Slower
    };
    Speedup {
        ratio,
        verdict,
        threshold,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_spread_and_noise() {
        let stats = TimingStats::from_samples(&[3.0, 1.0, 2.0, 4.0]).unwrap();
        assert_eq!(
            (stats.median_ms, stats.min_ms, stats.max_ms, stats.mean_ms),
            (2.5, 1.0, 4.0, 2.5)
        );
        // Deviations 1.5, 0.5, 0.5, 1.5: their median is 1.
        assert!((stats.relative_noise - 1.4826 / 2.5).abs() < 1e-12);
        assert_eq!(
            TimingStats::from_samples(&[5.0]).unwrap().relative_noise,
            0.0
        );
        assert_eq!(TimingStats::from_samples(&[]), None);
        assert_eq!(TimingStats::from_samples(&[f64::NAN]), None);
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
    fn verdicts_need_a_difference_beyond_the_noise() {
        let steady = |ms: f64| TimingStats {
            samples: 20,
            median_ms: ms,
            min_ms: ms,
            max_ms: ms,
            mean_ms: ms,
            relative_noise: 0.01,
        };
        let faster = compare(&steady(1.0), &steady(0.5));
        assert_eq!((faster.ratio, faster.verdict), (2.0, TimeVerdict::Faster));
        assert_eq!(
            compare(&steady(1.0), &steady(1.015)).verdict,
            TimeVerdict::Same
        );
        assert_eq!(
            compare(&steady(1.0), &steady(1.05)).verdict,
            TimeVerdict::Slower
        );
        let noisy = TimingStats {
            relative_noise: 0.2,
            ..steady(0.7)
        };
        assert_eq!(compare(&steady(1.0), &noisy).verdict, TimeVerdict::Same);
        // Without any spread a verdict still needs a 1% difference.
        let exact = |ms: f64| TimingStats {
            relative_noise: 0.0,
            ..steady(ms)
        };
        assert_eq!(
            compare(&exact(1.0), &exact(0.995)).verdict,
            TimeVerdict::Same
        );
        assert_eq!(
            compare(&exact(1.0), &exact(0.98)).verdict,
            TimeVerdict::Faster
        );
        assert_eq!(compare(&exact(1.0), &exact(0.98)).threshold, 0.01);
    }
}
