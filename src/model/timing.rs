//! How a run's samples were taken, as results.json records it
//! ([`TimingRecord`]: the method, why sampling stopped, the SM clock seen
//! and the samples left out for it, whether the variants of the size took
//! turns), and the one robust spread both the harness (to stop sampling)
//! and the analysis (to show the noise) compute: the median absolute
//! deviation scaled to a standard deviation (× 1.4826) over the median.
//! Runs recorded before gpuprof took cold samples have no record: their
//! samples are hot, back to back, a fixed count.

use serde::{Deserialize, Serialize};

/// The median absolute deviation times this estimates the standard
/// deviation of normally distributed samples.
const MAD_TO_STANDARD_DEVIATION: f64 = 1.4826;

/// The median of sorted, non-empty values.
pub fn median_of_sorted(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// The median of the finite, non-negative samples; none without any.
pub fn median(samples: &[f64]) -> Option<f64> {
    let sorted = sorted_samples(samples);
    (!sorted.is_empty()).then(|| median_of_sorted(&sorted))
}

/// The finite, non-negative samples, sorted.
pub fn sorted_samples(samples: &[f64]) -> Vec<f64> {
    let mut sorted: Vec<f64> = samples
        .iter()
        .copied()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .collect();
    sorted.sort_by(f64::total_cmp);
    sorted
}

/// Median absolute deviation × 1.4826 over the median of sorted,
/// non-empty samples: a relative spread that one outlying launch does not
/// move (0 when the median is 0).
pub fn relative_spread_of_sorted(sorted: &[f64]) -> f64 {
    let median = median_of_sorted(sorted);
    if median <= 0.0 {
        return 0.0;
    }
    let mut deviations: Vec<f64> = sorted.iter().map(|s| (s - median).abs()).collect();
    deviations.sort_by(f64::total_cmp);
    MAD_TO_STANDARD_DEVIATION * median_of_sorted(&deviations) / median
}

/// How precisely the median of samples with this relative spread is
/// known after `count` of them: the half-width of its 95% interval over
/// the median (1.96 × the median's standard error, √(π/2) ≈ 1.2533 times
/// the mean's). It falls as 1/√count, so sampling that waits for it
/// stops: the spread of the samples themselves does not fall.
pub fn median_uncertainty(relative_spread: f64, count: usize) -> f64 {
    1.96 * 1.2533 * relative_spread / (count.max(1) as f64).sqrt()
}

/// The relative spread of `samples` (None without a usable sample).
pub fn relative_spread(samples: &[f64]) -> Option<f64> {
    let sorted = sorted_samples(samples);
    (!sorted.is_empty()).then(|| relative_spread_of_sorted(&sorted))
}

/// With the L2 flushed before each sample (cold) or right after the same
/// kernel ran (hot).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Temperature {
    Cold,
    Hot,
}

impl Temperature {
    pub fn word(self) -> &'static str {
        match self {
            Temperature::Cold => "cold",
            Temperature::Hot => "hot",
        }
    }
}

/// How a run's samples were taken.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimingRecord {
    pub method: TimingMethod,
    /// Why sampling stopped.
    pub stopped: Stop,
    /// The relative spread sampling aimed for, and the time it was allowed.
    pub target_spread: f64,
    pub time_limit_s: f64,
    /// Samples left out (cold and hot together) because the SM clock was
    /// below `clock.threshold` of its maximum while they ran.
    pub throttled_samples: u32,
    pub clock: Clock,
    pub schedule: Schedule,
    /// Seconds this run spent sampling.
    pub seconds: f64,
    /// The warm-up launches made where fewer than the suite's `warmup`: a
    /// slow kernel makes two, and more only where they fit in a quarter of
    /// the time limit. Absent where all were made (and in runs recorded
    /// before warm-ups were cut).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_ups_cut_to: Option<u32>,
}

impl TimingRecord {
    /// Whether every sample ran on a throttled SM clock.
    pub fn throttled_throughout(&self) -> bool {
        matches!(
            self.clock,
            Clock::Read {
                throttled_throughout: true,
                ..
            }
        )
    }
}

/// How each sample was timed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum TimingMethod {
    /// Launches enqueued one after another on the stream: a cold sample is
    /// one launch after its flush, between its own pair of CUDA events; a
    /// hot sample is `launches_per_hot_sample` back-to-back launches
    /// between one pair (more than one for a kernel under 0.2 ms, so that
    /// the events' own microseconds are spread over them), divided by that
    /// count. `graph_refused` says why a kernel short enough for the graph
    /// method was timed this way.
    Events {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        graph_refused: Option<String>,
        /// Absent in runs recorded before hot samples could span several
        /// launches: one.
        #[serde(default = "one_launch", skip_serializing_if = "is_one_launch")]
        launches_per_hot_sample: u32,
    },
    /// For kernels under 10 µs: the work of a turn is captured in one CUDA
    /// graph, so that no launch waits for the host. A hot sample is
    /// `launches_per_hot_sample` back-to-back launches between one pair of
    /// events, divided by that count; a cold sample is one launch after
    /// its flush, between its own events, inside the graph.
    Graph { launches_per_hot_sample: u32 },
}

fn one_launch() -> u32 {
    1
}

fn is_one_launch(launches: &u32) -> bool {
    *launches == 1
}

impl TimingMethod {
    /// What the report calls it.
    pub fn describe(&self) -> String {
        match self {
            TimingMethod::Events {
                graph_refused,
                launches_per_hot_sample,
            } => {
                let hot = match launches_per_hot_sample {
                    1 => String::new(),
                    n => format!(
                        "; a hot sample is the mean of {n} back-to-back launches between one pair of events"
                    ),
                };
                let refused = graph_refused
                    .as_ref()
                    .map(|why| {
                        format!(
                            " (a CUDA graph was refused: {why}; launch gaps may add to times under 10 µs)"
                        )
                    })
                    .unwrap_or_default();
                format!("CUDA events around each launch{hot}{refused}")
            }
            TimingMethod::Graph {
                launches_per_hot_sample,
            } => format!(
                "a CUDA graph without launch gaps (a hot sample is the mean of {launches_per_hot_sample} back-to-back launches)"
            ),
        }
    }
}

/// Why sampling stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stop {
    /// Both kinds of samples had the minimum count and a spread under the
    /// target.
    SpreadReached,
    /// The run used its time limit first.
    TimeLimit,
    /// The run reached the most samples gpuprof keeps.
    SampleLimit,
}

impl Stop {
    pub fn describe(self) -> &'static str {
        match self {
            Stop::SpreadReached => "the spread reached its target",
            Stop::TimeLimit => "the time limit came first",
            Stop::SampleLimit => "the most samples gpuprof keeps",
        }
    }
}

/// The SM clock while the samples ran, from NVML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Clock {
    Read {
        /// The median and lowest SM clock read during the kept samples
        /// (all samples when every one was throttled).
        median_mhz: u32,
        lowest_mhz: u32,
        /// The device's maximum SM clock.
        max_mhz: u32,
        /// A sample counts as throttled below this share of `max_mhz`.
        threshold: f64,
        /// Every sample was throttled, so none was left out: the times are
        /// those of a slower clock.
        throttled_throughout: bool,
    },
    /// NVML could not be read: no sample was checked or left out.
    Unavailable { reason: String },
}

/// Whether the variants of a size took turns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Schedule {
    /// Every variant of the size kept its buffers on the device and they
    /// took turns of a few samples each, so that drift spreads over all.
    Interleaved { variants: u32 },
    /// Each variant was timed on its own, after the previous one: `reason`
    /// says why (their buffers together did not fit in the device's
    /// memory).
    OneAtATime { reason: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_ignores_one_outlier_and_unusable_samples() {
        assert_eq!(relative_spread(&[]), None);
        assert_eq!(relative_spread(&[f64::NAN, -1.0]), None);
        assert_eq!(relative_spread(&[2.0]), Some(0.0));
        let spread = relative_spread(&[3.0, 1.0, 2.0, 4.0]).unwrap();
        assert!((spread - 1.4826 / 2.5).abs() < 1e-12);
        let steady = [10.0, 10.1, 9.9, 10.0, 10.1, 9.9, 10.0, 10.0, 30.0];
        assert!(relative_spread(&steady).unwrap() < 0.02);
    }

    #[test]
    fn records_round_trip_with_their_tags() {
        let record = TimingRecord {
            method: TimingMethod::Graph {
                launches_per_hot_sample: 16,
            },
            stopped: Stop::SpreadReached,
            target_spread: 0.01,
            time_limit_s: 1.0,
            throttled_samples: 2,
            clock: Clock::Read {
                median_mhz: 1980,
                lowest_mhz: 1755,
                max_mhz: 1980,
                threshold: 0.9,
                throttled_throughout: false,
            },
            schedule: Schedule::Interleaved { variants: 4 },
            seconds: 0.25,
            warm_ups_cut_to: Some(1),
        };
        let text = serde_json::to_string(&record).unwrap();
        assert!(text.contains(r#""method":{"kind":"graph","launches_per_hot_sample":16}"#));
        assert!(text.contains(r#""stopped":"spread-reached""#));
        assert_eq!(serde_json::from_str::<TimingRecord>(&text).unwrap(), record);
        let events: TimingMethod = serde_json::from_str(r#"{"kind":"events"}"#).unwrap();
        let recorded_before = TimingMethod::Events {
            graph_refused: None,
            launches_per_hot_sample: 1,
        };
        assert_eq!(events, recorded_before);
        assert_eq!(
            serde_json::to_string(&recorded_before).unwrap(),
            r#"{"kind":"events"}"#
        );
        assert_eq!(recorded_before.describe(), "CUDA events around each launch");
        let batched = TimingMethod::Events {
            graph_refused: None,
            launches_per_hot_sample: 4,
        };
        let text = serde_json::to_string(&batched).unwrap();
        assert_eq!(text, r#"{"kind":"events","launches_per_hot_sample":4}"#);
        assert_eq!(
            serde_json::from_str::<TimingMethod>(&text).unwrap(),
            batched
        );
        assert_eq!(
            batched.describe(),
            "CUDA events around each launch; a hot sample is the mean of 4 back-to-back launches between one pair of events"
        );
    }
}
