//! Per-line counters of a kernel's source, as ncu's SourceCounters section
//! gives them and results.json keeps them: wavefronts and sectors against
//! their ideals, warp-stall samples by reason, and the split by the SASS
//! instructions under each line; and their sums over a sequence's launches.

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

impl SourceLine {
    /// Adds `other`, the same line's counters in another launch: every
    /// count summed (a count ncu printed for either launch is kept), the
    /// kinds of access joined.
    fn absorb(&mut self, other: &SourceLine) {
        let add = |mine: &mut Option<f64>, theirs: Option<f64>| {
            if let Some(theirs) = theirs {
                *mine = Some(mine.unwrap_or(0.0) + theirs);
            }
        };
        add(&mut self.warp_stall_samples, other.warp_stall_samples);
        add(&mut self.instructions_executed, other.instructions_executed);
        add(&mut self.shared_wavefronts, other.shared_wavefronts);
        add(
            &mut self.shared_wavefronts_ideal,
            other.shared_wavefronts_ideal,
        );
        add(
            &mut self.shared_wavefronts_excessive,
            other.shared_wavefronts_excessive,
        );
        add(&mut self.global_sectors, other.global_sectors);
        add(&mut self.global_sectors_ideal, other.global_sectors_ideal);
        add(
            &mut self.global_sectors_excessive,
            other.global_sectors_excessive,
        );
        join_kinds(&mut self.access_operation, &other.access_operation);
        join_kinds(&mut self.address_space, &other.address_space);
        for (reason, samples) in &other.stalls {
            *self.stalls.entry(reason.clone()).or_insert(0.0) += samples;
        }
        self.by_instruction.absorb(&other.by_instruction);
    }
}

/// Adds the kinds in `other` (`Load(4),Store(4)`) that `kinds` lacks.
fn join_kinds(kinds: &mut String, other: &str) {
    for kind in other.split(',').filter(|k| !k.is_empty()) {
        if !kinds.split(',').any(|k| k == kind) {
            if !kinds.is_empty() {
                kinds.push(',');
            }
            kinds.push_str(kind);
        }
    }
}

/// The per-line counters of several launches of one source file (a
/// sequence's), each line's summed over the launches that ran it, in line
/// order.
pub fn summed_lines<'a>(launches: impl IntoIterator<Item = &'a [SourceLine]>) -> Vec<SourceLine> {
    let mut lines: BTreeMap<u32, SourceLine> = BTreeMap::new();
    for line in launches.into_iter().flatten() {
        match lines.get_mut(&line.line) {
            Some(sum) => sum.absorb(line),
            None => {
                lines.insert(line.line, line.clone());
            }
        }
    }
    lines.into_values().collect()
}

/// What several launches attributed to other files, summed per file, in
/// the order the files first appear.
pub fn summed_other_files<'a>(
    launches: impl IntoIterator<Item = &'a [OtherFile]>,
) -> Vec<OtherFile> {
    let mut files: Vec<OtherFile> = Vec::new();
    for file in launches.into_iter().flatten() {
        match files.iter_mut().find(|f| f.path == file.path) {
            Some(sum) => {
                sum.lines = sum.lines.max(file.lines);
                sum.warp_stall_samples += file.warp_stall_samples;
                sum.instructions_executed += file.instructions_executed;
                sum.shared_wavefronts_excessive += file.shared_wavefronts_excessive;
                sum.global_sectors_excessive += file.global_sectors_excessive;
                sum.by_instruction.absorb(&file.by_instruction);
            }
            None => files.push(file.clone()),
        }
    }
    files
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
    /// Its lines' counters by direction and against their ideals, summed
    /// (zero in runs recorded before gpuprof kept them).
    #[serde(default)]
    pub by_instruction: Split,
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
            by_instruction: lines.iter().fold(Split::default(), |mut total, line| {
                total.absorb(&line.by_instruction);
                total
            }),
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

impl Split {
    fn absorb(&mut self, other: &Split) {
        for (mine, theirs) in [
            (&mut self.global_load_sectors, other.global_load_sectors),
            (&mut self.global_store_sectors, other.global_store_sectors),
            (
                &mut self.shared_load_wavefronts,
                other.shared_load_wavefronts,
            ),
            (
                &mut self.shared_store_wavefronts,
                other.shared_store_wavefronts,
            ),
        ] {
            mine.add(Some(theirs.actual), Some(theirs.ideal));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(number: u32, samples: f64, shared: (f64, f64), access: &str) -> SourceLine {
        SourceLine {
            line: number,
            text: format!("line {number}"),
            warp_stall_samples: Some(samples),
            shared_wavefronts: Some(shared.0),
            shared_wavefronts_ideal: Some(shared.1),
            access_operation: access.into(),
            stalls: BTreeMap::from([("long_sb".to_string(), samples)]),
            by_instruction: Split {
                shared_load_wavefronts: Count {
                    actual: shared.0,
                    ideal: shared.1,
                },
                ..Split::default()
            },
            ..SourceLine::default()
        }
    }

    #[test]
    fn a_sequences_lines_are_each_lines_counters_summed_over_the_launches_that_ran_it() {
        // Launch 1 runs lines 10 and 12; launch 2 runs 12 (another kind of
        // access on it, as an inlined helper's line may) and 20.
        let first = [
            line(10, 5.0, (4.0, 4.0), "Load(4)"),
            line(12, 1.0, (2.0, 1.0), "Load(4)"),
        ];
        let second = [
            line(12, 3.0, (6.0, 1.0), "Store(4)"),
            line(20, 7.0, (0.0, 0.0), ""),
        ];
        let summed = summed_lines([&first[..], &second[..]]);
        let numbers: Vec<u32> = summed.iter().map(|l| l.line).collect();
        assert_eq!(numbers, [10, 12, 20]);
        let twelve = &summed[1];
        assert_eq!(twelve.warp_stall_samples, Some(4.0));
        assert_eq!(
            (twelve.shared_wavefronts, twelve.shared_wavefronts_ideal),
            (Some(8.0), Some(2.0))
        );
        assert_eq!(twelve.access_operation, "Load(4),Store(4)");
        assert_eq!(twelve.stalls["long_sb"], 4.0);
        assert_eq!(
            twelve.by_instruction.shared_load_wavefronts,
            Count {
                actual: 8.0,
                ideal: 2.0
            }
        );
        // A count ncu printed as `-` in both launches stays unknown.
        assert_eq!(twelve.global_sectors, None);
    }

    #[test]
    fn other_files_are_summed_per_file() {
        let header = |samples| OtherFile {
            path: "common.cuh".into(),
            lines: 2,
            warp_stall_samples: samples,
            ..OtherFile::default()
        };
        let summed = summed_other_files([&[header(3.0)][..], &[header(4.0)][..]]);
        assert_eq!(summed, [header(7.0)]);
    }
}
