//! The fixed metric set: the one table of every Nsight Compute metric that
//! gpuprof collects, with the label and unit the report uses. Everything
//! else (argv, parsing, analysis) refers to metrics through these constants,
//! so adding a metric means adding one row here.
//!
//! All 40 metrics plus the SourceCounters section replay in 15 passes per
//! launch on the H200, the fewest that keep what the report reads: only
//! the SM, memory and L1 throughputs cost passes of their own (10 without
//! them), and the limit verdict is read from them. Measured with
//! `scripts/metric-passes.py`; the numbers and their reading are in
//! benchmarks/README.md, and a test below holds the table to them.

/// How a metric's value reads once normalised to base units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// Nanoseconds.
    Time,
    /// Percent of a peak (0–100).
    Percent,
    /// Bytes.
    Bytes,
    /// A plain count (sectors, requests, wavefronts, instructions, cycles…).
    Count,
}

#[derive(Debug, Clone, Copy)]
pub struct Metric {
    pub name: &'static str,
    pub label: &'static str,
    pub quantity: Quantity,
}

macro_rules! metric_table {
    ($($ident:ident = $name:literal, $label:literal, $quantity:ident;)*) => {
        $(pub const $ident: &str = $name;)*
        /// Every metric passed to `ncu --metrics`, in report order.
        pub const METRICS: &[Metric] = &[
            $(Metric { name: $name, label: $label, quantity: Quantity::$quantity },)*
        ];
    };
}

metric_table! {
    DURATION = "gpu__time_duration.sum", "kernel duration", Time;
    SM_THROUGHPUT = "sm__throughput.avg.pct_of_peak_sustained_elapsed", "SM throughput", Percent;
    DRAM_THROUGHPUT = "dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput", Percent;
    MEMORY_THROUGHPUT = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed", "memory throughput (busiest unit)", Percent;
    L1_THROUGHPUT = "l1tex__throughput.avg.pct_of_peak_sustained_active", "L1/shared throughput", Percent;
    L2_THROUGHPUT = "lts__throughput.avg.pct_of_peak_sustained_elapsed", "L2 throughput", Percent;
    GLOBAL_LOAD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "global load sectors", Count;
    GLOBAL_STORE_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "global store sectors", Count;
    GLOBAL_LOAD_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "global load requests", Count;
    GLOBAL_STORE_REQUESTS = "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "global store requests", Count;
    LOCAL_LOAD_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "local-memory load sectors (spills)", Count;
    LOCAL_STORE_SECTORS = "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum", "local-memory store sectors (spills)", Count;
    SHARED_LOAD_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared load wavefronts", Count;
    SHARED_STORE_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared store wavefronts", Count;
    SHARED_LOAD_BANK_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared load bank-conflict counter", Count;
    SHARED_STORE_BANK_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared store bank-conflict counter", Count;
    SHARED_LOAD_INSTRUCTIONS = "smsp__sass_inst_executed_op_shared_ld.sum", "shared load instructions", Count;
    SHARED_STORE_INSTRUCTIONS = "smsp__sass_inst_executed_op_shared_st.sum", "shared store instructions", Count;
    ACHIEVED_OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy", Percent;
    THEORETICAL_OCCUPANCY = "sm__maximum_warps_per_active_cycle_pct", "theoretical occupancy", Percent;
    BLOCK_LIMIT_REGISTERS = "launch__occupancy_limit_registers", "blocks per SM allowed by registers", Count;
    BLOCK_LIMIT_SHARED_MEMORY = "launch__occupancy_limit_shared_mem", "blocks per SM allowed by shared memory", Count;
    BLOCK_LIMIT_WARPS = "launch__occupancy_limit_warps", "blocks per SM allowed by warps (block size)", Count;
    BLOCK_LIMIT_BLOCKS = "launch__occupancy_limit_blocks", "blocks per SM allowed by the block-count limit", Count;
    REGISTERS_PER_THREAD = "launch__registers_per_thread", "registers per thread", Count;
    STATIC_SHARED_PER_BLOCK = "launch__shared_mem_per_block_static", "static shared memory per block", Bytes;
    DYNAMIC_SHARED_PER_BLOCK = "launch__shared_mem_per_block_dynamic", "dynamic shared memory per block", Bytes;
    BLOCK_SIZE = "launch__block_size", "threads per block", Count;
    GRID_SIZE = "launch__grid_size", "blocks", Count;
    WAVES_PER_SM = "launch__waves_per_multiprocessor", "waves per SM", Count;
    DRAM_BYTES_READ = "dram__bytes_read.sum", "DRAM bytes read", Bytes;
    DRAM_BYTES_WRITE = "dram__bytes_write.sum", "DRAM bytes written", Bytes;
    L2_HIT_RATE = "lts__t_sector_hit_rate.pct", "L2 hit rate", Percent;
    L1_HIT_RATE = "l1tex__t_sector_hit_rate.pct", "L1 hit rate", Percent;
    FFMA_THREAD_INSTRUCTIONS = "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "FP32 fused multiply-adds (per thread)", Count;
    FADD_THREAD_INSTRUCTIONS = "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", "FP32 adds (per thread)", Count;
    FMUL_THREAD_INSTRUCTIONS = "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", "FP32 multiplies (per thread)", Count;
    WARP_INSTRUCTIONS = "smsp__inst_executed.sum", "warp instructions executed", Count;
    ISSUE_ACTIVE = "smsp__issue_active.avg.pct_of_peak_sustained_active", "issue slots busy", Percent;
    SM_CYCLES = "sm__cycles_elapsed.avg", "SM cycles elapsed", Count;
}

/// Reported by ncu for every launch: how many times it replayed the kernel.
pub const REPLAY_PASSES: &str = "profiler__replayer_passes";

/// The throughputs whose breakdowns ncu collects with them: their
/// constituents, one per hardware unit and activity, say which unit is
/// the busiest (the limiter names it).
pub const BREAKDOWNS: [&str; 2] = [SM_THROUGHPUT, MEMORY_THROUGHPUT];

/// The comma-separated list for `ncu --metrics`: the fixed set and the
/// breakdowns.
pub fn metrics_argument() -> String {
    METRICS
        .iter()
        .map(|m| m.name.to_string())
        .chain(BREAKDOWNS.iter().map(|b| format!("breakdown:{b}")))
        .collect::<Vec<_>>()
        .join(",")
}

/// Whether a raw-page column is a breakdown constituent: a unit's average
/// percent of its sustained peak, not one of the fixed metrics.
pub fn is_breakdown_part(column: &str) -> bool {
    column.ends_with(".avg.pct_of_peak_sustained_elapsed")
        && !METRICS.iter().any(|m| m.name == column)
}

/// A breakdown constituent in words: its unit, then its activity
/// (`lts__xbar2lts_cycles_active.avg.pct_of_peak_sustained_elapsed` →
/// "L2: crossbar-to-L2 cycles active").
pub fn breakdown_part_label(metric: &str) -> String {
    let base = metric.split('.').next().unwrap_or(metric);
    let (unit, activity) = base.split_once("__").unwrap_or(("", base));
    let unit = match unit {
        "dram" => "DRAM",
        "fbpa" => "DRAM interface",
        "lts" => "L2",
        "l1tex" => "L1/shared",
        "sm" | "smsp" => "SM",
        "idc" => "constant cache",
        "gpu" => "memory system",
        other => other,
    };
    let mut words: Vec<String> = activity
        .split('_')
        .map(|word| match word {
            "xbar2lts" => "crossbar-to-L2".into(),
            "xbar2l1tex" => "crossbar-to-L1".into(),
            "l1tex2xbar" => "L1-to-crossbar".into(),
            "sm2tex" => "SM-to-texture".into(),
            "lsu" | "lsuin" | "adu" | "alu" | "fma" | "fp16" | "fp64" | "xu" | "cbu" | "mio"
            | "tex" => word.to_uppercase(),
            "d" => "data".into(),
            "t" => "tag".into(),
            "m" => "miss path".into(),
            "inst" => "instructions".into(),
            other => other.to_string(),
        })
        .collect();
    // `lts__t_tag_requests`: the tag stage's tag requests, said once.
    words.dedup();
    format!("{unit}: {}", words.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_breakdown_part_reads_as_a_unit_and_its_activity_in_words() {
        for (metric, label) in [
            (
                "lts__t_tag_requests.avg.pct_of_peak_sustained_elapsed",
                "L2: tag requests",
            ),
            (
                "lts__t_sectors.avg.pct_of_peak_sustained_elapsed",
                "L2: tag sectors",
            ),
            (
                "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",
                "L1/shared: data pipe LSU wavefronts",
            ),
        ] {
            assert_eq!(breakdown_part_label(metric), label);
        }
    }

    #[test]
    fn table_matches_the_list_the_probe_fixtures_were_captured_with() {
        let probe = include_str!("../../tests/fixtures/probe/metrics.txt");
        let listed: Vec<&str> = probe
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .collect();
        let table: Vec<&str> = METRICS.iter().map(|m| m.name).collect();
        assert_eq!(listed, table);
    }

    /// Rows of a `scripts/metric-passes.py` table: (kind, name, passes).
    fn measured(tsv: &str) -> Vec<(&str, &str, f64)> {
        tsv.lines()
            .skip(1)
            .map(|line| {
                let fields: Vec<&str> = line.split('\t').collect();
                (fields[0], fields[1], fields[3].parse().unwrap_or(f64::NAN))
            })
            .collect()
    }

    #[test]
    fn every_metric_was_measured_and_the_set_has_the_fewest_passes_that_keep_the_limit_verdict() {
        let census = measured(include_str!("../../benchmarks/h200-metric-passes.tsv"));
        let passes = |kind: &str, name: &str| {
            census
                .iter()
                .find(|(k, n, _)| *k == kind && *n == name)
                .map(|(_, _, passes)| *passes)
        };
        // The order of OPTIONAL in scripts/metric-passes.py, whose subsets
        // are named by position.
        let optional = [
            SM_THROUGHPUT,
            MEMORY_THROUGHPUT,
            L1_THROUGHPUT,
            L2_THROUGHPUT,
            L2_HIT_RATE,
            L1_HIT_RATE,
        ];
        for metric in METRICS {
            let alone = passes("single", metric.name).unwrap_or_else(|| {
                panic!(
                    "{} was never profiled alone: run scripts/metric-passes.py on the GPU",
                    metric.name
                )
            });
            assert!(
                alone == 1.0 || optional.contains(&metric.name),
                "{} takes {alone} passes alone and is not among the subsets measured",
                metric.name
            );
        }
        let ours = passes("combo", "current").expect("the whole set was measured");
        assert_eq!(ours, 15.0);
        let limit_verdict_reads = [SM_THROUGHPUT, MEMORY_THROUGHPUT, L1_THROUGHPUT];
        let subsets = measured(include_str!("../../benchmarks/h200-metric-subsets.tsv"));
        assert_eq!(subsets.len(), 63);
        let mut fewest_without_them = f64::INFINITY;
        for (_, name, passes) in subsets {
            let left_out: Vec<&str> = name
                .split('-')
                .map(|at| optional[at.parse::<usize>().unwrap()])
                .collect();
            if left_out.iter().any(|m| limit_verdict_reads.contains(m)) {
                fewest_without_them = fewest_without_them.min(passes);
            } else {
                assert!(passes >= ours, "leaving out {left_out:?} saves passes");
            }
        }
        assert_eq!(fewest_without_them, 10.0);
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = METRICS.iter().map(|m| m.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), METRICS.len());
    }
}
