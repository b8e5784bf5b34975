//! Runs split over several GPUs, as results.json records them: the share of
//! the suite one `gpuprof report --shard i/n` ran (`Shard`), and, in a
//! results.json that `gpuprof merge` wrote, where each share came from
//! (`ShardOrigin`: its GPU, host, folder and ncu report).

use serde::{Deserialize, Serialize};

/// The share of a suite one shard ran: every variant at `sizes`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 1-based: shard `index` of `count`.
    pub index: u32,
    pub count: u32,
    /// The size labels this shard ran, in suite order (empty when the
    /// suite has fewer sizes than shards).
    pub sizes: Vec<String>,
    /// Every size label of the suite, in suite order: the sizes not in
    /// `sizes` belong to other shards.
    pub suite_sizes: Vec<String>,
    /// What the split was balanced by: equal weights, or the timings of a
    /// previous results.json (named by its hash). Every shard of one run
    /// must be split alike.
    pub balanced_by: String,
    /// The machine it ran on.
    pub host: String,
}

impl Shard {
    /// The sizes of the suite that other shards run.
    pub fn other_sizes(&self) -> Vec<&str> {
        self.suite_sizes
            .iter()
            .filter(|size| !self.sizes.contains(size))
            .map(String::as_str)
            .collect()
    }
}

/// One shard of a merged run: which sizes, on which GPU and host, from
/// which folder, and its ncu report beside the merged one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardOrigin {
    pub index: u32,
    pub count: u32,
    pub sizes: Vec<String>,
    /// The GPU's name, or `None` for a shard that ran no size.
    pub gpu: Option<String>,
    /// The GPU's UUID as nvidia-smi reports it, when it did.
    pub gpu_uuid: Option<String>,
    pub host: String,
    /// The shard's output folder, as given to `gpuprof merge`.
    pub folder: String,
    /// Its ncu report, copied beside the merged results (relative to the
    /// merged output folder), when it profiled.
    pub report_file: Option<String>,
    /// The size at which it took the per-line counters, when it took them
    /// at one of several sizes (absent: at every size it profiled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_at: Option<String>,
    /// The ncu report of its per-line counters' run, copied beside the
    /// merged results, when that run was one of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_report_file: Option<String>,
}
