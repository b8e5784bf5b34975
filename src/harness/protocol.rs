//! What passes between the pipeline and the `gpuprof harness` subprocess:
//! the job (written as JSON by the pipeline) and the events the harness
//! prints on stdout, one JSON object per line behind a marker so that any
//! other output (a kernel's printf) is ignored.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::config::Plan;

/// Report the device's facts; time (and verify) every item; or launch
/// each item once for ncu.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    Device,
    Time,
    Profile,
}

/// One variant at one size.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Item {
    pub variant: String,
    pub size: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub mode: Mode,
    pub plan: Plan,
    /// CUBIN of every variant that compiled, by variant name.
    pub cubins: BTreeMap<String, PathBuf>,
    /// What to run, in order. References that an item verifies against are
    /// run (untimed) as needed even when they are not listed.
    pub items: Vec<Item>,
}

/// Device facts the harness reads from the CUDA driver.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DriverFacts {
    pub name: String,
    pub compute_capability: (u32, u32),
    pub multiprocessors: u32,
    pub sm_clock_khz: u64,
    pub memory_clock_khz: u64,
    pub memory_bus_width_bits: u32,
    pub l2_cache_bytes: u64,
    pub total_memory_bytes: u64,
    pub shared_memory_per_sm_bytes: u64,
    pub max_threads_per_sm: u32,
    pub driver_cuda_version: String,
}

/// Resource use of a loaded kernel, from the driver.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelResources {
    pub registers_per_thread: u32,
    pub static_shared_bytes: u32,
    pub local_bytes_per_thread: u32,
    pub max_threads_per_block: u32,
}

/// The outcome of comparing a variant's outputs with its reference's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum Check {
    Passed {
        against: String,
        /// Largest |got − want| over all compared values.
        max_abs_error: f64,
        /// ‖got − want‖ / ‖want‖ over all compared values.
        relative_l2_error: f64,
        compared: u64,
    },
    Failed {
        against: String,
        buffer: String,
        /// Elements outside the tolerance (1 for a sum comparison).
        mismatches: u64,
        compared: u64,
        /// First mismatching element (None for a sum comparison).
        first_mismatch_index: Option<u64>,
        got: f64,
        want: f64,
        max_abs_error: f64,
        relative_l2_error: f64,
    },
    NotChecked {
        reason: String,
    },
}

impl Check {
    pub fn is_failed(&self) -> bool {
        matches!(self, Check::Failed { .. })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "event")]
pub enum Event {
    Device(DriverFacts),
    Loaded {
        variant: String,
        resources: KernelResources,
    },
    /// Started work on an item (the pipeline's idle timeout runs per item).
    Started {
        item: Item,
    },
    Measured {
        item: Item,
        /// Every timed launch, in milliseconds, in launch order.
        samples_ms: Vec<f64>,
        check: Check,
    },
    /// The `sequence`-th launch inside a profiler range (0-based): ncu's
    /// result of the same index belongs to this item.
    Profiled {
        item: Item,
        sequence: u32,
        kernel: String,
    },
    /// The item could not run. `fatal` failures (a CUDA error that leaves
    /// the context unusable) end the process; the pipeline starts a new one
    /// for the remaining items.
    Failed {
        item: Item,
        stage: String,
        message: String,
        fatal: bool,
    },
}

const MARKER: &str = "gpuprof-event ";

impl Event {
    pub fn to_line(&self) -> String {
        format!(
            "{MARKER}{}",
            serde_json::to_string(self).expect("events serialize")
        )
    }

    /// The event on a stdout line, or `None` for any other line.
    pub fn from_line(line: &str) -> Option<Result<Event, serde_json::Error>> {
        line.strip_prefix(MARKER).map(serde_json::from_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_through_a_line_and_other_lines_are_ignored() {
        let event = Event::Failed {
            item: Item {
                variant: "naive".into(),
                size: "N=2048".into(),
            },
            stage: "launch".into(),
            message: "CUDA_ERROR_ILLEGAL_ADDRESS".into(),
            fatal: true,
        };
        let line = event.to_line();
        assert!(line.starts_with("gpuprof-event {\"event\":\"failed\""));
        assert_eq!(Event::from_line(&line).unwrap().unwrap(), event);
        assert!(Event::from_line("hello from printf").is_none());
        assert!(Event::from_line("gpuprof-event {broken").unwrap().is_err());
    }
}
