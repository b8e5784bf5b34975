//! Derived metrics: the quantities the report reasons with (sectors per
//! request, shared wavefronts per instruction, occupancy and its limiter,
//! arithmetic intensity…), computed from one run's ncu counters and source
//! lines. [`Key`] is the catalogue: every metric the report tables, charts
//! and the knowledge base can name, with its label and how it reads.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::metrics as m;
use crate::model::results::Profile;
use crate::model::source::{Count, OtherFile, SourceLine, Split};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Key {
    Time,
    KernelDuration,
    GlobalLoadSectorsPerRequest,
    GlobalStoreSectorsPerRequest,
    GlobalLoadRequests,
    GlobalStoreRequests,
    GlobalExcessSectors,
    GlobalLoadExcessSectors,
    GlobalStoreExcessSectors,
    SharedLoadWavefrontsPerInstruction,
    SharedStoreWavefrontsPerInstruction,
    SharedLoadBankConflicts,
    SharedStoreBankConflicts,
    SharedExcessWavefronts,
    SharedLoadExcessWavefronts,
    SharedStoreExcessWavefronts,
    SharedLoadInstructions,
    SharedLoadsPerFma,
    AchievedOccupancy,
    TheoreticalOccupancy,
    RegistersPerThread,
    SharedMemoryPerBlock,
    LocalMemorySectors,
    DramThroughput,
    SmThroughput,
    MemoryThroughput,
    L1Throughput,
    L2Throughput,
    DramBytes,
    L2HitRate,
    CountedFlops,
    ArithmeticIntensity,
    WarpInstructions,
    IssueActive,
}

/// How a metric's number reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Unit {
    Milliseconds,
    Nanoseconds,
    Ratio,
    Percent,
    Count,
    Bytes,
    FlopPerByte,
}

pub struct KeyInfo {
    pub label: &'static str,
    pub unit: Unit,
    /// `Some(true)` when smaller is better, `None` when neither is.
    pub lower_is_better: Option<bool>,
}

impl Key {
    /// The value as the report prints it, in this metric's unit.
    pub fn format(self, value: f64) -> String {
        use super::format;
        match self.info().unit {
            Unit::Milliseconds => format::milliseconds(value),
            Unit::Nanoseconds => format::nanoseconds(value),
            Unit::Percent => format::percent(value),
            Unit::Bytes => format::bytes(value),
            Unit::Count => format::count(value),
            Unit::Ratio => format::ratio(value),
            Unit::FlopPerByte => format!("{} FLOP/B", format::ratio(value)),
        }
    }

    /// The same accesses measured against ncu's ideal for their access
    /// width, for a count per request or per instruction: a float4 access
    /// needs 16 sectors per request where a float needs 4, so only the
    /// ratio to the ideal compares across a change of width.
    pub fn over_ideal(self) -> Option<Key> {
        match self {
            Key::GlobalLoadSectorsPerRequest => Some(Key::GlobalLoadExcessSectors),
            Key::GlobalStoreSectorsPerRequest => Some(Key::GlobalStoreExcessSectors),
            Key::SharedLoadWavefrontsPerInstruction => Some(Key::SharedLoadExcessWavefronts),
            Key::SharedStoreWavefrontsPerInstruction => Some(Key::SharedStoreExcessWavefronts),
            _ => None,
        }
    }

    /// The key to compare two runs by: [`Key::over_ideal`] where both runs
    /// have it, this key otherwise.
    pub fn comparable(self, before: &Derived, after: &Derived) -> Key {
        match self.over_ideal() {
            Some(ideal) if before.get(ideal).is_some() && after.get(ideal).is_some() => ideal,
            _ => self,
        }
    }

    pub fn info(self) -> KeyInfo {
        let info = |label, unit, lower_is_better| KeyInfo {
            label,
            unit,
            lower_is_better,
        };
        match self {
            Key::Time => info("median time (events)", Unit::Milliseconds, Some(true)),
            Key::KernelDuration => info("kernel duration (ncu)", Unit::Nanoseconds, Some(true)),
            Key::GlobalLoadSectorsPerRequest => {
                info("global load sectors / request", Unit::Ratio, Some(true))
            }
            Key::GlobalStoreSectorsPerRequest => {
                info("global store sectors / request", Unit::Ratio, Some(true))
            }
            Key::GlobalLoadRequests => info("global load requests", Unit::Count, Some(true)),
            Key::GlobalStoreRequests => info("global store requests", Unit::Count, Some(true)),
            Key::GlobalExcessSectors => info(
                "global sectors over ideal (source)",
                Unit::Ratio,
                Some(true),
            ),
            Key::GlobalLoadExcessSectors => info(
                "global load sectors over ideal (source)",
                Unit::Ratio,
                Some(true),
            ),
            Key::GlobalStoreExcessSectors => info(
                "global store sectors over ideal (source)",
                Unit::Ratio,
                Some(true),
            ),
            Key::SharedLoadWavefrontsPerInstruction => info(
                "shared load wavefronts / instruction",
                Unit::Ratio,
                Some(true),
            ),
            Key::SharedStoreWavefrontsPerInstruction => info(
                "shared store wavefronts / instruction",
                Unit::Ratio,
                Some(true),
            ),
            Key::SharedLoadBankConflicts => {
                info("shared load bank-conflict counter", Unit::Count, Some(true))
            }
            Key::SharedStoreBankConflicts => info(
                "shared store bank-conflict counter",
                Unit::Count,
                Some(true),
            ),
            Key::SharedExcessWavefronts => info(
                "shared wavefronts over ideal (source)",
                Unit::Ratio,
                Some(true),
            ),
            Key::SharedLoadExcessWavefronts => info(
                "shared load wavefronts over ideal (source)",
                Unit::Ratio,
                Some(true),
            ),
            Key::SharedStoreExcessWavefronts => info(
                "shared store wavefronts over ideal (source)",
                Unit::Ratio,
                Some(true),
            ),
            Key::SharedLoadInstructions => {
                info("shared load instructions", Unit::Count, Some(true))
            }
            Key::SharedLoadsPerFma => info("shared loads per FMA (warp)", Unit::Ratio, Some(true)),
            Key::AchievedOccupancy => info("achieved occupancy", Unit::Percent, Some(false)),
            Key::TheoreticalOccupancy => info("theoretical occupancy", Unit::Percent, Some(false)),
            Key::RegistersPerThread => info("registers / thread", Unit::Count, None),
            Key::SharedMemoryPerBlock => info("shared memory / block", Unit::Bytes, None),
            Key::LocalMemorySectors => {
                info("local-memory sectors (spills)", Unit::Count, Some(true))
            }
            Key::DramThroughput => info("DRAM throughput", Unit::Percent, None),
            Key::SmThroughput => info("SM throughput", Unit::Percent, None),
            Key::MemoryThroughput => info("memory throughput (busiest unit)", Unit::Percent, None),
            Key::L1Throughput => info("L1/shared throughput", Unit::Percent, None),
            Key::L2Throughput => info("L2 throughput", Unit::Percent, None),
            Key::DramBytes => info("DRAM bytes", Unit::Bytes, Some(true)),
            Key::L2HitRate => info("L2 hit rate", Unit::Percent, Some(false)),
            Key::CountedFlops => info("FP32 operations (counted)", Unit::Count, None),
            Key::ArithmeticIntensity => {
                info("arithmetic intensity (counted)", Unit::FlopPerByte, None)
            }
            Key::WarpInstructions => info("warp instructions", Unit::Count, Some(true)),
            Key::IssueActive => info("issue slots busy", Unit::Percent, None),
        }
    }
}

/// Which resource caps the blocks resident per SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limiter {
    Registers,
    SharedMemory,
    Warps,
    Blocks,
}

impl Limiter {
    pub fn describe(self) -> &'static str {
        match self {
            Limiter::Registers => "registers per thread",
            Limiter::SharedMemory => "shared memory per block",
            Limiter::Warps => "the block size (warps per SM)",
            Limiter::Blocks => "the limit on resident blocks per SM",
        }
    }
}

/// One run's derived metrics; absent keys were not collected.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Derived {
    pub values: BTreeMap<Key, f64>,
    /// The resources that allow the fewest blocks per SM, and that number.
    pub limiters: Vec<Limiter>,
    pub blocks_per_sm: Option<f64>,
}

impl Derived {
    pub fn get(&self, key: Key) -> Option<f64> {
        self.values.get(&key).copied()
    }
}

/// `numerator / denominator` where both are known and the denominator is positive.
pub(super) fn ratio(numerator: Option<f64>, denominator: Option<f64>) -> Option<f64> {
    match (numerator, denominator) {
        (Some(n), Some(d)) if d > 0.0 => Some(n / d),
        _ => None,
    }
}

fn sum(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (None, None) => None,
        _ => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    }
}

/// Derives everything a profile allows, with the excess over ideal of the
/// per-line counters of `lines` (the run's own profile, or the one taken
/// at another size); `median_ms` is the event timing.
pub fn derive(
    profile: Option<&Profile>,
    lines: Option<&Profile>,
    median_ms: Option<f64>,
) -> Derived {
    let mut values = Values::default();
    values.put(Key::Time, median_ms);
    let Some(profile) = profile else {
        return Derived {
            values: values.0,
            limiters: Vec::new(),
            blocks_per_sm: None,
        };
    };
    values.put(Key::KernelDuration, profile.metric(m::DURATION));
    values.put_memory_accesses(profile);
    values.put_occupancy(profile);
    values.put_throughput_and_work(profile);
    if let Some(lines) = lines {
        values.put_source_excess(&lines.source_lines, &lines.other_files);
    }
    let (limiters, blocks_per_sm) = block_limit(profile);
    Derived {
        values: values.0,
        limiters,
        blocks_per_sm,
    }
}

/// Derived values as they are worked out: only present, finite ones are
/// kept.
#[derive(Default)]
struct Values(BTreeMap<Key, f64>);

impl Values {
    fn put(&mut self, key: Key, value: Option<f64>) {
        if let Some(value) = value.filter(|v| v.is_finite()) {
            self.0.insert(key, value);
        }
    }

    /// Global sectors per request, shared wavefronts per instruction, bank
    /// conflicts and shared loads per FMA.
    fn put_memory_accesses(&mut self, profile: &Profile) {
        let get = |name: &str| profile.metric(name);
        self.put(
            Key::GlobalLoadSectorsPerRequest,
            ratio(get(m::GLOBAL_LOAD_SECTORS), get(m::GLOBAL_LOAD_REQUESTS)),
        );
        self.put(
            Key::GlobalStoreSectorsPerRequest,
            ratio(get(m::GLOBAL_STORE_SECTORS), get(m::GLOBAL_STORE_REQUESTS)),
        );
        self.put(Key::GlobalLoadRequests, get(m::GLOBAL_LOAD_REQUESTS));
        self.put(Key::GlobalStoreRequests, get(m::GLOBAL_STORE_REQUESTS));
        self.put(
            Key::SharedLoadWavefrontsPerInstruction,
            ratio(
                get(m::SHARED_LOAD_WAVEFRONTS),
                get(m::SHARED_LOAD_INSTRUCTIONS),
            ),
        );
        self.put(
            Key::SharedStoreWavefrontsPerInstruction,
            ratio(
                get(m::SHARED_STORE_WAVEFRONTS),
                get(m::SHARED_STORE_INSTRUCTIONS),
            ),
        );
        self.put(
            Key::SharedLoadBankConflicts,
            get(m::SHARED_LOAD_BANK_CONFLICTS),
        );
        self.put(
            Key::SharedStoreBankConflicts,
            get(m::SHARED_STORE_BANK_CONFLICTS),
        );
        self.put(
            Key::SharedLoadInstructions,
            get(m::SHARED_LOAD_INSTRUCTIONS),
        );
        let fma_warp_instructions = get(m::FFMA_THREAD_INSTRUCTIONS).map(|t| t / 32.0);
        self.put(
            Key::SharedLoadsPerFma,
            ratio(get(m::SHARED_LOAD_INSTRUCTIONS), fma_warp_instructions),
        );
    }

    /// Occupancy and the per-thread and per-block resources that bound it.
    fn put_occupancy(&mut self, profile: &Profile) {
        let get = |name: &str| profile.metric(name);
        self.put(Key::AchievedOccupancy, get(m::ACHIEVED_OCCUPANCY));
        self.put(Key::TheoreticalOccupancy, get(m::THEORETICAL_OCCUPANCY));
        self.put(Key::RegistersPerThread, get(m::REGISTERS_PER_THREAD));
        self.put(
            Key::SharedMemoryPerBlock,
            sum(
                get(m::STATIC_SHARED_PER_BLOCK),
                get(m::DYNAMIC_SHARED_PER_BLOCK),
            ),
        );
        self.put(
            Key::LocalMemorySectors,
            sum(get(m::LOCAL_LOAD_SECTORS), get(m::LOCAL_STORE_SECTORS)),
        );
    }

    /// Throughputs against their peaks, DRAM traffic, counted FLOPs and
    /// arithmetic intensity, instructions issued.
    fn put_throughput_and_work(&mut self, profile: &Profile) {
        let get = |name: &str| profile.metric(name);
        self.put(Key::DramThroughput, get(m::DRAM_THROUGHPUT));
        self.put(Key::SmThroughput, get(m::SM_THROUGHPUT));
        self.put(Key::MemoryThroughput, get(m::MEMORY_THROUGHPUT));
        self.put(Key::L1Throughput, get(m::L1_THROUGHPUT));
        self.put(Key::L2Throughput, get(m::L2_THROUGHPUT));
        let dram_bytes = sum(get(m::DRAM_BYTES_READ), get(m::DRAM_BYTES_WRITE));
        self.put(Key::DramBytes, dram_bytes);
        self.put(Key::L2HitRate, get(m::L2_HIT_RATE));
        let flops = match (
            get(m::FFMA_THREAD_INSTRUCTIONS),
            get(m::FADD_THREAD_INSTRUCTIONS),
            get(m::FMUL_THREAD_INSTRUCTIONS),
        ) {
            (None, None, None) => None,
            (fma, add, mul) => {
                Some(2.0 * fma.unwrap_or(0.0) + add.unwrap_or(0.0) + mul.unwrap_or(0.0))
            }
        };
        self.put(Key::CountedFlops, flops);
        self.put(Key::ArithmeticIntensity, ratio(flops, dram_bytes));
        self.put(Key::WarpInstructions, get(m::WARP_INSTRUCTIONS));
        self.put(Key::IssueActive, get(m::ISSUE_ACTIVE));
    }

    /// Global sectors and shared wavefronts over their ideal, summed over
    /// the source lines, in all and by direction (from the split by SASS
    /// instruction).
    /// Actual over ideal sectors and wavefronts by direction, over the
    /// kernel's lines and the lines of other files it ran (a helper in an
    /// included header that makes the stores, as llm.c's `store128cs`
    /// does), so that a kernel whose accesses live in a header is not
    /// judged by the raw counts per request, whose ideal depends on the
    /// access width; the line totals, over its own lines.
    fn put_source_excess(&mut self, lines: &[SourceLine], other_files: &[OtherFile]) {
        let by_direction = |pick: fn(&Split) -> Count| {
            let mut total = Count::default();
            let splits = lines
                .iter()
                .map(|l| &l.by_instruction)
                .chain(other_files.iter().map(|f| &f.by_instruction));
            for split in splits {
                let count = pick(split);
                total.add(Some(count.actual), Some(count.ideal));
            }
            total.factor()
        };
        self.put(
            Key::GlobalLoadExcessSectors,
            by_direction(|s| s.global_load_sectors),
        );
        self.put(
            Key::GlobalStoreExcessSectors,
            by_direction(|s| s.global_store_sectors),
        );
        self.put(
            Key::SharedLoadExcessWavefronts,
            by_direction(|s| s.shared_load_wavefronts),
        );
        self.put(
            Key::SharedStoreExcessWavefronts,
            by_direction(|s| s.shared_store_wavefronts),
        );
        let total = |pick: fn(&SourceLine) -> Option<f64>| -> Option<f64> {
            let values: Vec<f64> = lines.iter().filter_map(pick).collect();
            (!values.is_empty()).then(|| values.iter().sum())
        };
        self.put(
            Key::GlobalExcessSectors,
            ratio(
                total(|l| l.global_sectors),
                total(|l| l.global_sectors_ideal),
            ),
        );
        self.put(
            Key::SharedExcessWavefronts,
            ratio(
                total(|l| l.shared_wavefronts),
                total(|l| l.shared_wavefronts_ideal),
            ),
        );
    }
}

/// The resources that allow the fewest blocks per SM, and that number.
fn block_limit(profile: &Profile) -> (Vec<Limiter>, Option<f64>) {
    let get = |name: &str| profile.metric(name);
    let limits = [
        (Limiter::Registers, get(m::BLOCK_LIMIT_REGISTERS)),
        (Limiter::SharedMemory, get(m::BLOCK_LIMIT_SHARED_MEMORY)),
        (Limiter::Warps, get(m::BLOCK_LIMIT_WARPS)),
        (Limiter::Blocks, get(m::BLOCK_LIMIT_BLOCKS)),
    ];
    let blocks_per_sm = limits.iter().filter_map(|(_, v)| *v).reduce(f64::min);
    let limiters = limits
        .iter()
        .filter(|(_, v)| v.is_some() && *v == blocks_per_sm)
        .map(|(l, _)| *l)
        .collect();
    (limiters, blocks_per_sm)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Derived from `profile` with its own lines.
    fn own(profile: Option<&Profile>, median_ms: Option<f64>) -> Derived {
        derive(profile, profile, median_ms)
    }
    use crate::ncu::ingest::profile_from_launch;
    use crate::ncu::raw::parse_raw_page;
    use crate::ncu::source::parse_source_page;
    use std::path::Path;

    fn probe(index: usize) -> Profile {
        let launches =
            parse_raw_page(include_str!("../../tests/fixtures/h200-probe/raw.csv")).unwrap();
        let source = match index {
            2 => parse_source_page(include_str!(
                "../../tests/fixtures/h200-probe/source-sass-cuda-tiled.csv"
            ))
            .map_err(|e| e.to_string()),
            _ => Err("not exported".to_string()),
        };
        profile_from_launch(
            &launches[index],
            source,
            Path::new("/work/main/kernels/transpose/tiled.cu"),
        )
    }

    #[test]
    fn the_naive_transpose_stores_touch_32_sectors_per_request() {
        let naive = own(Some(&probe(1)), Some(0.07));
        assert!((naive.get(Key::GlobalStoreSectorsPerRequest).unwrap() - 31.95).abs() < 0.01);
        assert_eq!(naive.get(Key::GlobalLoadSectorsPerRequest), Some(4.0));
        assert_eq!(naive.get(Key::Time), Some(0.07));
        assert_eq!(
            naive.get(Key::SharedLoadWavefrontsPerInstruction),
            None,
            "no shared instructions"
        );
    }

    #[test]
    fn the_tiled_transpose_has_32_way_shared_loads_by_counters_and_by_source() {
        let tiled = own(Some(&probe(2)), None);
        assert!((tiled.get(Key::SharedLoadWavefrontsPerInstruction).unwrap() - 32.22).abs() < 0.01);
        assert!((tiled.get(Key::SharedStoreWavefrontsPerInstruction).unwrap() - 1.07).abs() < 0.01);
        // Source page: (131072 + 4194304) wavefronts over (131072 + 131072) ideal.
        assert!((tiled.get(Key::SharedExcessWavefronts).unwrap() - 16.5).abs() < 1e-9);
        assert_eq!(tiled.get(Key::GlobalExcessSectors), Some(1.0));
        assert_eq!(tiled.get(Key::SharedMemoryPerBlock), Some(4096.0));
        // By direction, from the split by SASS instruction: the column
        // reads are 32 times their ideal, the row writes at it.
        assert_eq!(tiled.get(Key::SharedLoadExcessWavefronts), Some(32.0));
        assert_eq!(tiled.get(Key::SharedStoreExcessWavefronts), Some(1.0));
        assert_eq!(tiled.get(Key::GlobalLoadExcessSectors), Some(1.0));
    }

    #[test]
    fn accesses_made_in_another_file_are_judged_against_their_ideal_too() {
        // The tiled transpose's stores moved into a header's helper (as
        // llm.c's store128cs makes a kernel's 16-byte stores): its own
        // lines then hold no store, and without the header's counts the
        // stores would have no ideal to be judged against.
        let mut moved = probe(2);
        let mut header = Split::default();
        for line in &mut moved.source_lines {
            header.global_store_sectors.add(
                Some(line.by_instruction.global_store_sectors.actual),
                Some(line.by_instruction.global_store_sectors.ideal),
            );
            line.by_instruction.global_store_sectors = Count::default();
        }
        let own_lines_only = own(Some(&moved), None);
        assert_eq!(own_lines_only.get(Key::GlobalStoreExcessSectors), None);
        moved.other_files = vec![OtherFile {
            path: "helpers.cuh".into(),
            lines: 1,
            by_instruction: header,
            ..OtherFile::default()
        }];
        let with_header = own(Some(&moved), None);
        assert_eq!(with_header.get(Key::GlobalStoreExcessSectors), Some(1.0));
        assert_eq!(
            Key::GlobalStoreSectorsPerRequest.comparable(&with_header, &own(Some(&probe(2)), None)),
            Key::GlobalStoreExcessSectors
        );
    }

    #[test]
    fn occupancy_limiter_is_the_smallest_block_limit() {
        let copy = own(Some(&probe(0)), None);
        assert_eq!(copy.blocks_per_sm, Some(8.0));
        assert_eq!(copy.limiters, [Limiter::Warps]);
        let tiled = own(Some(&probe(2)), None);
        assert_eq!(tiled.limiters, [Limiter::Registers, Limiter::Warps]);
    }

    #[test]
    fn without_a_profile_only_time_is_known() {
        let derived = own(None, Some(1.5));
        assert_eq!(derived.values.len(), 1);
        assert!(derived.limiters.is_empty());
    }
}
