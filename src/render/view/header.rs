//! The report's header: the facts of the run (device, driver and CUDA,
//! peaks and clocks, Nsight Compute and its passes, timing, sizes, date,
//! version) and the commands that made it.

use super::{Fact, HeaderView};
use crate::analysis::format;
use crate::model::Device;
use crate::model::Results;
use crate::model::notice::Notice;
use crate::model::results::ProfilerRun;
use crate::model::shard::ShardOrigin;

pub(super) fn header(results: &Results) -> HeaderView {
    let mut facts = match &results.device {
        Some(device) => device_facts(device),
        None => vec![Fact::new("device", "not recorded".into())],
    };
    match &results.profiler {
        Some(profiler) => {
            facts.extend(profiler_facts(profiler));
            facts.extend(merged_lines_fact(&results.merged_from));
        }
        None => facts.push(Fact::new("Nsight Compute", "not run".into())),
    }
    let timing = match results.notices.contains(&Notice::Imported) {
        true => format!(
            "ncu's kernel duration (gpu__time_duration) of each profiled launch, up to {} per variant and size, median reported; the launches ran under ncu, one at a time",
            results.suite.timing.repetitions
        ),
        false => match (
            results.suite.timing.target_spread,
            results.suite.timing.time_limit_s,
        ) {
            (Some(spread), Some(limit)) => format!(
                "cold samples (the L2 flushed before each) and hot ones (the kernel ran right before), after {} warm-ups{}, until each kind has at least {} samples and a spread under ±{}, or {} per variant and size; samples taken while the SM clock was throttled are left out; median reported, each run says which kind and how",
                results.suite.timing.warmup.max(1),
                cut_warm_ups(results),
                results.suite.timing.repetitions,
                format::share(spread),
                format::milliseconds(limit * 1e3)
            ),
            _ => format!(
                "hot, back-to-back, fixed count: {} timed launches after {} warm-ups, CUDA events, median reported (recorded before gpuprof took cold samples)",
                results.suite.timing.repetitions, results.suite.timing.warmup
            ),
        },
    };
    facts.push(Fact::new("timing", timing));
    facts.push(Fact::new(
        "sizes",
        results
            .suite
            .sizes
            .iter()
            .map(|s| s.label.clone())
            .collect::<Vec<_>>()
            .join(" · "),
    ));
    facts.extend(shard_facts(results));
    facts.push(Fact::new("date", results.created.clone()));
    facts.push(Fact::new("gpuprof", results.gpuprof_version.clone()));
    let lines_run = results.profiler.as_ref().and_then(|p| p.lines_run.as_ref());
    HeaderView {
        suite: results.suite.name.clone(),
        description: results.suite.description.clone(),
        facts,
        command: results.command.clone(),
        ncu_command: results.profiler.as_ref().map(|p| p.command.clone()),
        ncu_report: results.profiler.as_ref().map(|p| p.report_file.clone()),
        lines_ncu_command: lines_run.map(|run| run.command.clone()),
        lines_ncu_report: lines_run.map(|run| run.report_file.clone()),
    }
}

/// ", fewer for 2 runs whose warm-ups would have taken over a quarter of
/// the time limit" where a slow kernel's warm-ups were cut short, else
/// nothing.
fn cut_warm_ups(results: &Results) -> String {
    let cut = results
        .variants
        .iter()
        .flat_map(|variant| &variant.runs)
        .filter(|run| {
            run.timing
                .as_ref()
                .is_some_and(|record| record.warm_ups_cut_to.is_some())
        })
        .count();
    match cut {
        0 => String::new(),
        n => format!(
            ", fewer for {} whose warm-ups would have taken over a quarter of the time limit",
            format::counted(n, "run")
        ),
    }
}

/// A shard's share of the suite, or each shard of a merged run: its
/// sizes, GPU (and UUID), host and ncu report.
fn shard_facts(results: &Results) -> Vec<Fact> {
    let mut facts: Vec<Fact> = results
        .shard
        .iter()
        .map(|shard| {
            let sizes = match shard.sizes.is_empty() {
                true => "no sizes (the suite has fewer sizes than shards)".to_string(),
                false => format!("sizes {}", shard.sizes.join(" · ")),
            };
            let others = shard.other_sizes();
            let rest = match others.is_empty() {
                true => String::new(),
                false => format!(
                    "; {} in other shards (`gpuprof merge` joins them)",
                    others.join(" · ")
                ),
            };
            Fact::new(
                "shard",
                format!(
                    "shard {} of {}: {sizes}{rest} · on {}",
                    shard.index, shard.count, shard.host
                ),
            )
        })
        .collect();
    facts.extend(results.merged_from.iter().map(|origin| {
        let sizes = match origin.sizes.is_empty() {
            true => "no sizes".to_string(),
            false => origin.sizes.join(" · "),
        };
        let gpu = match (&origin.gpu, &origin.gpu_uuid) {
            (Some(name), Some(uuid)) => format!("{name} ({uuid})"),
            (Some(name), None) => name.clone(),
            (None, _) => "no GPU used".to_string(),
        };
        let report = match (&origin.report_file, &origin.lines_report_file) {
            (Some(file), Some(lines)) => {
                format!(" · ncu reports {file} and {lines} (its per-line counters' run)")
            }
            (Some(file), None) => format!(" · ncu report {file}"),
            (None, _) => String::new(),
        };
        Fact::new(
            &format!("shard {} of {}", origin.index, origin.count),
            format!(
                "{sizes} · {gpu} on {} · from {}{report}",
                origin.host, origin.folder
            ),
        )
    }));
    facts
}

/// Where a merged run's per-line counters were taken, when a shard took
/// them at one of its sizes: each shard chose its own, so the report has
/// them at one size a shard, and at every size of a shard that ran one.
fn merged_lines_fact(origins: &[ShardOrigin]) -> Option<Fact> {
    if origins.iter().all(|origin| origin.lines_at.is_none()) {
        return None;
    }
    let taken: Vec<String> = origins
        .iter()
        .filter(|origin| origin.report_file.is_some())
        .map(|origin| {
            let sizes = match &origin.lines_at {
                Some(size) => size.clone(),
                None => origin.sizes.join(" · "),
            };
            format!("{sizes} (shard {} of {})", origin.index, origin.count)
        })
        .collect();
    Some(Fact::new(
        "per-line counters",
        format!(
            "taken at {}: each shard chose among its own sizes",
            taken.join(" · ")
        ),
    ))
}

/// The device: its name and sizes, driver, CUDA version, peaks, and the
/// clocks nvidia-smi saw before the run.
fn device_facts(device: &Device) -> Vec<Fact> {
    let mut facts = vec![
        Fact::new(
            "device",
            format!(
                "{} · compute capability {} · {} SMs · {} memory · {} L2",
                device.name,
                device.compute_capability,
                device.multiprocessors,
                format::bytes(device.memory_bytes as f64),
                format::bytes(device.l2_cache_bytes as f64)
            ),
        ),
        Fact::new(
            "driver",
            device
                .driver_version
                .clone()
                .unwrap_or_else(|| "unknown".into()),
        ),
        Fact::new("CUDA (driver)", device.cuda_version.clone()),
    ];
    let mut peaks = format!(
        "DRAM {}",
        format::bytes_per_second(device.peak_dram_bytes_per_second)
    );
    if let Some(flops) = device.peak_fp32_flops_per_second {
        peaks.push_str(&format!(" · FP32 {}", format::flops_per_second(flops)));
    }
    facts.push(Fact::new("peaks (from clocks)", peaks));
    if let Some(smi) = &device.nvidia_smi {
        let clock = |v: Option<f64>| v.map(|v| format!("{v} MHz")).unwrap_or_else(|| "?".into());
        facts.push(Fact::new(
            "clocks before the run",
            format!(
                "SM {} of {} max · memory {} · {}",
                clock(smi.sm_clock_mhz),
                clock(smi.sm_clock_max_mhz),
                clock(smi.memory_clock_mhz),
                smi.performance_state.clone().unwrap_or_default()
            ),
        ));
    }
    facts
}

/// Nsight Compute: its version, clock control, and how long profiling took
/// with how many replay passes per launch.
fn profiler_facts(profiler: &ProfilerRun) -> Vec<Fact> {
    let passes = |passes: Option<f64>| {
        passes
            .map(|p| format!(", {} replay passes per launch", format::count(p)))
            .unwrap_or_default()
    };
    let lines = profiler.lines_at.as_ref().map(|size| {
        Fact::new(
            "per-line counters",
            match &profiler.lines_run {
                Some(run) => format!(
                    "taken at {size} only, by an ncu run of their own ({}{}; they cost an instrumented run of each kernel)",
                    format::nanoseconds(run.seconds * 1e9),
                    passes(run.passes_per_launch)
                ),
                None => format!("taken at {size} only"),
            },
        )
    });
    let mut facts = vec![
        Fact::new("Nsight Compute", profiler.ncu_version.clone()),
        Fact::new(
            "clock control",
            format!("--clock-control {}", profiler.clock_control),
        ),
        Fact::new(
            "profiling",
            format!(
                "{}{}",
                format::nanoseconds(profiler.seconds * 1e9),
                passes(profiler.passes_per_launch)
            ),
        ),
    ];
    facts.extend(lines);
    facts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::read_results;

    #[test]
    fn the_timing_fact_counts_the_runs_whose_warm_ups_were_cut() {
        let mut results =
            read_results(include_str!("../../../examples/sweep-matmul/results.json")).unwrap();
        let timing = |results: &Results| {
            header(results)
                .facts
                .into_iter()
                .find(|fact| fact.label == "timing")
                .unwrap()
                .value
        };
        assert!(timing(&results).contains("after 3 warm-ups, until"));
        let timed = results
            .variants
            .iter_mut()
            .flat_map(|variant| variant.runs.iter_mut())
            .filter_map(|run| run.timing.as_mut());
        for record in timed.take(2) {
            record.warm_ups_cut_to = Some(1);
        }
        assert!(timing(&results).contains(
            "after 3 warm-ups, fewer for 2 runs whose warm-ups would have taken over a quarter of the time limit, until"
        ));
    }
}
