//! Timing statistics over every sample of a variant, and the comparison of
//! two variants that respects noise: a step is called faster or slower only
//! when the medians differ by more than twice the larger relative standard
//! deviation of the two (in the spirit of nvbench's compare), else "same".

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct TimingStats {
    pub samples: usize,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    pub mean_ms: f64,
    /// Standard deviation over mean.
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
        let median_ms = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        let mean_ms = sorted.iter().sum::<f64>() / n as f64;
        let variance = if n > 1 {
            sorted.iter().map(|s| (s - mean_ms).powi(2)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        Some(TimingStats {
            samples: n,
            median_ms,
            min_ms: sorted[0],
            max_ms: sorted[n - 1],
            mean_ms,
            relative_noise: if mean_ms > 0.0 {
                variance.sqrt() / mean_ms
            } else {
                0.0
            },
        })
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
    /// The relative difference a verdict needed (2 × the larger noise).
    pub threshold: f64,
}

pub fn compare(before: &TimingStats, after: &TimingStats) -> Speedup {
    let ratio = before.median_ms / after.median_ms;
    let threshold = 2.0 * before.relative_noise.max(after.relative_noise);
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
        assert!((stats.relative_noise - (5.0f64 / 3.0).sqrt() / 2.5).abs() < 1e-12);
        assert_eq!(
            TimingStats::from_samples(&[5.0]).unwrap().relative_noise,
            0.0
        );
        assert_eq!(TimingStats::from_samples(&[]), None);
        assert_eq!(TimingStats::from_samples(&[f64::NAN]), None);
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
    }
}
