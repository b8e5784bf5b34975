//! What passes between the pipeline and the `gpuprof harness` subprocess:
//! the job (written as JSON by the pipeline) and the events the harness
//! reports, one JSON object per line, on a pipe of their own (see
//! `capture`), so that nothing a kernel prints is ever read as one.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::config::Plan;
use crate::model::device::DriverFacts;
use crate::model::measurement::{Check, KernelResources};
use crate::model::results::Stage;
use crate::model::timing::TimingRecord;

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

/// A CUBIN and the symbols of the kernels to load from it (one per entry
/// of the variant, in order).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Module {
    pub cubin: PathBuf,
    pub functions: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub mode: Mode,
    pub plan: Plan,
    /// The compiled kernel of every variant that compiled, by variant name:
    /// one per suite size, in size order (sizes differ when `defines`
    /// depend on the size).
    pub modules: BTreeMap<String, Vec<Module>>,
    /// What to run, in order. References that an item verifies against are
    /// run (untimed) as needed even when they are not listed.
    pub items: Vec<Item>,
    /// Runs that failed in an earlier harness process of this stage, with
    /// why: a reference among them is not run again (its fault would end
    /// this process too), and what verifies against it is not checked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<(Item, String)>,
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
        /// Every kept hot sample, in milliseconds, in the order taken.
        samples_ms: Vec<f64>,
        /// Every kept cold sample (absent from harnesses that took none).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        cold_samples_ms: Vec<f64>,
        /// How the samples were taken (absent from harnesses that did not
        /// say: hot, back to back, a fixed count).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timing: Option<Box<TimingRecord>>,
        check: Check,
    },
    /// The item whose turn of samples is running (sent at most once a
    /// second while the variants of a size take turns): alive, not hung.
    Sampling {
        item: Item,
    },
    /// The `sequence`-th launch inside a profiler range (0-based): ncu's
    /// result of the same index belongs to this item.
    Profiled {
        item: Item,
        sequence: u32,
        kernel: String,
    },
    /// What the item's kernel printed since the previous event: its first
    /// bytes, and the lines beyond them, counted.
    Printed {
        item: Item,
        text: String,
        more_lines: u64,
    },
    /// The kernel in flight keeps printing (sent at most once a second):
    /// alive, not hung.
    Printing,
    /// The harness was started before its job was written and is still
    /// waiting for it (sent once a second): alive, not hung.
    Waiting,
    /// The harness, still waiting for its job, opened its CUDA context (its
    /// gate file appeared): CUDA's start-up is spent before the job comes.
    Opened,
    /// It could not open one then; the job will try again when it comes.
    OpenFailed {
        message: String,
    },
    /// Every item of a profile job has run: the harness's profiled
    /// launches are over, and it only frees its buffers and ends.
    Finished,
    /// The item could not run. `fatal` failures (a CUDA error that leaves
    /// the context unusable) end the process; the pipeline starts a new one
    /// for the remaining items.
    Failed {
        item: Item,
        stage: Stage,
        message: String,
        fatal: bool,
    },
}

impl Event {
    /// The event as one report line (JSON without a newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("events serialize")
    }

    /// The event on a report line.
    pub fn from_line(line: &str) -> Result<Event, serde_json::Error> {
        serde_json::from_str(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_through_a_line_and_other_lines_are_errors() {
        let event = Event::Failed {
            item: Item {
                variant: "naive".into(),
                size: "N=2048".into(),
            },
            stage: Stage::Launch,
            message: "CUDA_ERROR_ILLEGAL_ADDRESS".into(),
            fatal: true,
        };
        let line = event.to_line();
        assert!(line.starts_with("{\"event\":\"failed\""));
        assert!(!line.contains('\n'));
        assert_eq!(Event::from_line(&line).unwrap(), event);
        assert!(Event::from_line("hello from printf").is_err());
        assert!(Event::from_line("{broken").is_err());
    }

    #[test]
    fn a_poisoned_element_survives_the_trip() {
        let event = Event::Measured {
            item: Item {
                variant: "partial".into(),
                size: "N=4".into(),
            },
            samples_ms: vec![0.5],
            cold_samples_ms: Vec::new(),
            timing: None,
            check: Check::Failed {
                against: "good".into(),
                buffer: "out".into(),
                mismatches: 1,
                compared: 4,
                first_mismatch_index: Some(3),
                got: f64::NAN,
                want: 0.25,
                max_abs_error: f64::INFINITY,
                relative_l2_error: 0.0,
            },
        };
        let line = event.to_line();
        assert!(
            line.contains("\"got\":\"NaN\"") && line.contains("\"max_abs_error\":\"inf\""),
            "{line}"
        );
        match Event::from_line(&line).unwrap() {
            Event::Measured {
                check:
                    Check::Failed {
                        got,
                        max_abs_error,
                        want,
                        ..
                    },
                ..
            } => {
                assert!(got.is_nan());
                assert_eq!(max_abs_error, f64::INFINITY);
                assert_eq!(want, 0.25);
            }
            other => panic!("{other:?}"),
        }
    }
}
