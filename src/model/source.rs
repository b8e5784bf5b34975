//! Per-line counters of a kernel's source, as ncu's SourceCounters section
//! gives them and results.json keeps them: wavefronts and sectors against
//! their ideals, warp-stall samples by reason, and the split by the SASS
//! instructions under each line.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The counters of one CUDA source line; `None` where ncu printed `-`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct SourceLine {
    pub line: u32,
    pub text: String,
    pub warp_stall_samples: Option<f64>,
    pub instructions_executed: Option<f64>,
    pub shared_wavefronts: Option<f64>,
    pub shared_wavefronts_ideal: Option<f64>,
    pub shared_wavefronts_excessive: Option<f64>,
    pub global_sectors: Option<f64>,
    pub global_sectors_ideal: Option<f64>,
    pub global_sectors_excessive: Option<f64>,
    /// e.g. `Load(4),Store(4)`.
    pub access_operation: String,
    /// e.g. `Global(4),Shared(4)`.
    pub address_space: String,
    /// Non-zero warp-stall sample counts by reason (`long_sb`, `mio`…).
    pub stalls: BTreeMap<String, f64>,
    /// The line's counters split by the SASS instructions under it.
    #[serde(default)]
    pub by_instruction: Split,
}

/// What ncu attributed to the lines of another file than the kernel's own
/// (a toolkit header holding a barrier or an intrinsic, an included
/// helper), summed over the file: the report gives its share rather than
/// its lines.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OtherFile {
    pub path: String,
    /// How many of its lines carry counters.
    pub lines: usize,
    pub warp_stall_samples: f64,
    pub instructions_executed: f64,
    pub shared_wavefronts_excessive: f64,
    pub global_sectors_excessive: f64,
}

impl OtherFile {
    /// The totals of one file block's lines.
    pub fn of(path: &str, lines: &[SourceLine]) -> OtherFile {
        let sum = |pick: fn(&SourceLine) -> Option<f64>| lines.iter().filter_map(pick).sum();
        OtherFile {
            path: path.to_string(),
            lines: lines.len(),
            warp_stall_samples: sum(|l| l.warp_stall_samples),
            instructions_executed: sum(|l| l.instructions_executed),
            shared_wavefronts_excessive: sum(|l| l.shared_wavefronts_excessive),
            global_sectors_excessive: sum(|l| l.global_sectors_excessive),
        }
    }
}

/// Actual and ideal counts of one kind of access.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Count {
    pub actual: f64,
    pub ideal: f64,
}

impl Count {
    /// Adds one instruction's counts (a missing count adds nothing).
    pub fn add(&mut self, actual: Option<f64>, ideal: Option<f64>) {
        self.actual += actual.unwrap_or(0.0);
        self.ideal += ideal.unwrap_or(0.0);
    }

    /// Actual over ideal, when there was any access.
    pub fn factor(&self) -> Option<f64> {
        (self.ideal > 0.0).then(|| self.actual / self.ideal)
    }
}

/// Global sectors and shared wavefronts by direction.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Split {
    pub global_load_sectors: Count,
    pub global_store_sectors: Count,
    pub shared_load_wavefronts: Count,
    pub shared_store_wavefronts: Count,
}
