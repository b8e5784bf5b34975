//! What a suite declares about its problem, as results.json records it:
//! the sizes (the symbols each binds) and the timing settings.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One problem size: the symbols it binds (`N = 2048`) plus the suite's
/// constants, which are bound at every size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Size {
    /// A short label such as `N=2048` or `M=1024, N=512` (constants left out).
    pub label: String,
    pub symbols: BTreeMap<String, i64>,
}

/// The suite's timing settings. `target_spread` and `time_limit_s` are
/// absent from runs recorded before gpuprof sampled until the spread was
/// small (and from imported ncu launches): their `repetitions` is a fixed
/// count of hot samples.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub warmup: u32,
    /// The fewest samples of each kind (cold, hot) per variant and size;
    /// the exact count when sampling is not adaptive.
    pub repetitions: u32,
    /// Sample until the relative spread of each kind is at most this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_spread: Option<f64>,
    /// Seconds of sampling a variant at one size may take at most.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_limit_s: Option<f64>,
}
