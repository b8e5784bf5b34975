//! Results from existing ncu data (`gpuprof compare`): the selected launches
//! of a user's raw-page exports (and their source pages, when the input was
//! an .ncu-rep) are grouped into variants (one per name: an input, or a
//! kernel of an input) whose launches at one grid and block are the samples
//! of one run, with the k-th launch configuration of every variant forming
//! size k; the device is read from the export's `device__attribute_*`
//! columns, and every metric of the fixed set that the exports lack is
//! named once, with the ncu option that would collect it.

use crate::model::device::{Device, DriverFacts};
use crate::model::measurement::Check;
use crate::model::metrics;
use crate::model::notice::Notice;
use crate::model::results::{
    BuildRecord, Profile, Results, RunResult, SCHEMA_VERSION, SuiteRecord, VariantResult,
};
use crate::model::suite::{Size, Timing};
use crate::model::variant::{Role, VariantKind};
use crate::ncu::raw::{RawLaunch, Value};
use crate::ncu::source::SourceFile;

/// One launch chosen from an input.
#[derive(Debug, Clone)]
pub struct ImportedLaunch {
    /// The variant the launch belongs to: the input's name, or the input's
    /// name and the kernel's when the input holds several kernels.
    pub name: String,
    /// The file it came from, as the user named it.
    pub origin: String,
    pub launch: RawLaunch,
    /// The launch's source page, or why there is none.
    pub source: Result<Vec<SourceFile>, String>,
}

/// The size label of imported runs when every variant was launched with one
/// configuration: ncu measured them as they were.
pub const AS_PROFILED: &str = "as profiled";

/// The launches of one variant at one grid and block: one run, whose
/// samples are the launches' durations.
struct Run<'a> {
    grid: [u32; 3],
    block: [u32; 3],
    launches: Vec<&'a ImportedLaunch>,
}

/// A variant's launches, by launch configuration in the order first seen.
struct Grouped<'a> {
    name: &'a str,
    origin: &'a str,
    runs: Vec<Run<'a>>,
}

/// Groups `imported` by variant name, then by grid and block, keeping the
/// order in which each first appears.
fn group(imported: &[ImportedLaunch]) -> Vec<Grouped<'_>> {
    let mut grouped: Vec<Grouped> = Vec::new();
    for item in imported {
        let (grid, block) = (dims(&item.launch.grid_size), dims(&item.launch.block_size));
        let at = match grouped.iter().position(|g| g.name == item.name) {
            Some(at) => at,
            None => {
                grouped.push(Grouped {
                    name: &item.name,
                    origin: &item.origin,
                    runs: Vec::new(),
                });
                grouped.len() - 1
            }
        };
        let runs = &mut grouped[at].runs;
        match runs.iter_mut().find(|r| r.grid == grid && r.block == block) {
            Some(run) => run.launches.push(item),
            None => runs.push(Run {
                grid,
                block,
                launches: vec![item],
            }),
        }
    }
    grouped
}

/// The label of the `index`-th launch configuration when there are
/// `sizes` of them.
fn size_label(index: usize, sizes: usize) -> String {
    match sizes {
        1 => AS_PROFILED.into(),
        _ => format!("configuration {}", index + 1),
    }
}

/// Device facts from the `device__attribute_*` columns ncu exports.
pub fn driver_facts(launch: &RawLaunch) -> Option<DriverFacts> {
    let number = |name: &str| launch.number(&format!("device__attribute_{name}"));
    let name = match launch.values.get("device__attribute_display_name") {
        Some(Value::Text(text)) => text.clone(),
        _ => return None,
    };
    Some(DriverFacts {
        name,
        compute_capability: (
            number("compute_capability_major")? as u32,
            number("compute_capability_minor")? as u32,
        ),
        multiprocessors: number("multiprocessor_count")? as u32,
        sm_clock_khz: number("clock_rate")? as u64,
        memory_clock_khz: number("memory_clock_rate")? as u64,
        memory_bus_width_bits: number("global_memory_bus_width")? as u32,
        l2_cache_bytes: number("l2_cache_size")? as u64,
        total_memory_bytes: number("total_memory").unwrap_or(0.0) as u64,
        shared_memory_per_sm_bytes: number("max_shared_memory_per_multiprocessor").unwrap_or(0.0)
            as u64,
        max_threads_per_sm: number("max_threads_per_multiprocessor").unwrap_or(0.0) as u32,
        driver_cuda_version: "unknown (imported report)".into(),
        processes_may_share: false,
    })
}

/// `(32, 8, 1)` → [32, 8, 1]; anything else → [0, 0, 0].
fn dims(text: &str) -> [u32; 3] {
    let parts: Vec<u32> = text
        .trim_matches(|c| c == '(' || c == ')')
        .split(',')
        .filter_map(|p| p.trim().parse().ok())
        .collect();
    match parts.as_slice() {
        [x, y, z] => [*x, *y, *z],
        _ => [0, 0, 0],
    }
}

/// The profile of an imported launch: the fixed metric set and the source
/// lines of the file that executed the most instructions (the kernel's
/// own; line numbers of different files must not mix), with the other
/// files' totals.
pub fn profile_of_launch(launch: &RawLaunch, source: &Result<Vec<SourceFile>, String>) -> Profile {
    match source {
        Ok(files) => {
            let instructions = |f: &SourceFile| {
                f.lines
                    .iter()
                    .filter_map(|l| l.instructions_executed)
                    .sum::<f64>()
            };
            let own = files
                .iter()
                .max_by(|a, b| instructions(a).total_cmp(&instructions(b)));
            let note = "the source page attributes no counters to any line: was the program compiled with line info (-lineinfo)?".to_string();
            super::ingest::profile_of_blocks(launch, files, own, note)
        }
        Err(reason) => super::ingest::profile_with(launch, Vec::new(), Some(reason.clone())),
    }
}

/// The fixed-set metrics a launch lacks.
pub fn missing_metrics(launch: &RawLaunch) -> Vec<&'static str> {
    metrics::METRICS
        .iter()
        .map(|m| m.name)
        .filter(|name| launch.number(name).is_none())
        .collect()
}

/// Results for `gpuprof compare`: one variant per name, `baseline` (or the
/// first) as the baseline, times from ncu's kernel duration.
pub fn compare_results(
    imported: &[ImportedLaunch],
    baseline: Option<&str>,
    command: String,
    created: String,
) -> Results {
    let grouped = group(imported);
    let sizes = grouped.iter().map(|g| g.runs.len()).max().unwrap_or(1);
    Results {
        schema_version: SCHEMA_VERSION,
        gpuprof_version: env!("CARGO_PKG_VERSION").to_string(),
        created,
        command,
        suite: compare_suite(&grouped, baseline, sizes),
        device: imported
            .first()
            .and_then(|i| driver_facts(&i.launch))
            .map(|facts| Device::from_facts(&facts, None)),
        profiler: None,
        variants: grouped.iter().map(|g| imported_variant(g, sizes)).collect(),
        notices: import_notices(&grouped),
        shard: None,
        merged_from: Vec::new(),
        sweeps: Vec::new(),
    }
}

/// That the results are imported; which metrics are missing, once per set
/// of missing metrics, naming the variants; and one notice per distinct
/// reason a source page is missing, naming the variants.
fn import_notices(grouped: &[Grouped]) -> Vec<Notice> {
    let mut notices = vec![Notice::Imported];
    let mut by_missing: Vec<(Vec<&'static str>, Vec<&str>, Vec<&str>)> = Vec::new();
    let mut without_source: Vec<(&str, Vec<String>)> = Vec::new();
    for variant in grouped {
        let launches = variant.runs.iter().flat_map(|r| &r.launches);
        for item in launches {
            let missing = missing_metrics(&item.launch);
            if !missing.is_empty() {
                match by_missing.iter_mut().find(|(m, _, _)| *m == missing) {
                    Some((_, names, origins)) => {
                        if !names.contains(&variant.name) {
                            names.push(variant.name);
                        }
                        if !origins.contains(&variant.origin) {
                            origins.push(variant.origin);
                        }
                    }
                    None => by_missing.push((missing, vec![variant.name], vec![variant.origin])),
                }
            }
            if let Err(reason) = &item.source {
                match without_source.iter_mut().find(|(r, _)| r == reason) {
                    Some((_, names)) if names.iter().any(|n| n == variant.name) => {}
                    Some((_, names)) => names.push(variant.name.to_string()),
                    None => without_source.push((reason, vec![variant.name.to_string()])),
                }
            }
        }
    }
    notices.extend(by_missing.into_iter().map(|(missing, names, origins)| {
        Notice::MetricsMissing {
            variant: names.join(", "),
            origin: origins.join(", "),
            missing: missing.iter().map(|m| m.to_string()).collect(),
            of: metrics::METRICS.len(),
        }
    }));
    notices.extend(
        without_source
            .into_iter()
            .map(|(reason, variants)| Notice::NoSourceLines {
                variants,
                reason: reason.to_string(),
            }),
    );
    notices
}

/// A variant whose runs are its launch configurations, each timed by its
/// launches' kernel durations and profiled by its median launch.
fn imported_variant(variant: &Grouped, sizes: usize) -> VariantResult {
    let kernels: Vec<&str> = variant
        .runs
        .iter()
        .flat_map(|r| &r.launches)
        .map(|i| i.launch.kernel_name.as_str())
        .fold(Vec::new(), |mut names, name| {
            if !names.contains(&name) {
                names.push(name);
            }
            names
        });
    let launches = variant.runs.iter().map(|r| r.launches.len()).sum::<usize>();
    VariantResult {
        name: variant.name.to_string(),
        role: Role::Step,
        kind: VariantKind::Imported {
            origin: variant.origin.to_string(),
            kernel: kernels.join(", "),
        },
        changes: Vec::new(),
        notes: format!(
            "{} of {}",
            crate::analysis::format::counted(launches, "ncu result"),
            variant.origin
        ),
        verify_against: None,
        source_text: String::new(),
        build: BuildRecord::default(),
        runs: variant
            .runs
            .iter()
            .enumerate()
            .map(|(index, run)| imported_run(run, size_label(index, sizes)))
            .collect(),
        sweep: None,
    }
}

/// One launch configuration's run: every launch's duration a sample, the
/// launch with the median duration its profile.
fn imported_run(run: &Run, size: String) -> RunResult {
    let duration = |item: &&ImportedLaunch| item.launch.number(metrics::DURATION);
    let mut by_duration: Vec<&ImportedLaunch> = run.launches.clone();
    by_duration.sort_by(|a, b| {
        duration(a)
            .unwrap_or(0.0)
            .total_cmp(&duration(b).unwrap_or(0.0))
    });
    let median = by_duration[by_duration.len() / 2];
    RunResult {
        size,
        grid: run.grid,
        block: run.block,
        shared_bytes: median
            .launch
            .number(metrics::DYNAMIC_SHARED_PER_BLOCK)
            .unwrap_or(0.0) as u32,
        bytes: None,
        flops: None,
        buffer_bytes: None,
        samples_ms: run
            .launches
            .iter()
            .filter_map(duration)
            .map(|ns| ns / 1e6)
            .collect(),
        cold_samples_ms: Vec::new(),
        timing: None,
        check: Some(Check::NotChecked {
            reason: "compare reads existing ncu data; it runs nothing".into(),
        }),
        failure: None,
        profile: Some(profile_of_launch(&median.launch, &median.source)),
        steps: Vec::new(),
        output: None,
        command: None,
        cache_key: None,
    }
}

/// The suite of a comparison: the variants and files, `baseline` (or the
/// first variant) as the baseline, one size per launch configuration.
fn compare_suite(grouped: &[Grouped], baseline: Option<&str>, sizes: usize) -> SuiteRecord {
    let names: Vec<&str> = grouped.iter().map(|g| g.name).collect();
    let mut origins: Vec<&str> = Vec::new();
    for variant in grouped {
        if !origins.contains(&variant.origin) {
            origins.push(variant.origin);
        }
    }
    let most_launches = grouped
        .iter()
        .flat_map(|g| &g.runs)
        .map(|r| r.launches.len())
        .max()
        .unwrap_or(1);
    SuiteRecord {
        name: "compare".into(),
        description: format!("{} kernels compared: {}", names.len(), names.join(", ")),
        config: origins.join(" "),
        baseline: baseline
            .or(names.first().copied())
            .unwrap_or_default()
            .to_string(),
        sizes: (0..sizes)
            .map(|index| Size {
                label: size_label(index, sizes),
                symbols: Default::default(),
            })
            .collect(),
        timing: Timing {
            warmup: 0,
            repetitions: most_launches as u32,
            target_spread: None,
            time_limit_s: None,
        },
        seed: 0,
        file_sha256: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ncu::raw::parse_raw_page;

    fn probe() -> Vec<RawLaunch> {
        parse_raw_page(include_str!("../../tests/fixtures/h200-probe/raw.csv")).unwrap()
    }

    #[test]
    fn the_device_comes_from_the_export() {
        let facts = driver_facts(&probe()[0]).unwrap();
        assert_eq!(facts.name, "NVIDIA H200");
        assert_eq!(facts.compute_capability, (9, 0));
        assert_eq!(facts.multiprocessors, 132);
        assert_eq!(facts.memory_bus_width_bits, 6016);
    }

    #[test]
    fn each_launch_is_a_variant_timed_by_ncu() {
        let imported: Vec<ImportedLaunch> = probe()
            .into_iter()
            .map(|launch| ImportedLaunch {
                name: launch.kernel_name.clone(),
                origin: "raw.csv".into(),
                launch,
                source: Err("a CSV export has no source page".into()),
            })
            .collect();
        let results = compare_results(
            &imported,
            None,
            "gpuprof compare raw.csv".into(),
            "2026-12-02T00:00:00Z".into(),
        );
        assert_eq!(results.variants.len(), 4);
        assert_eq!(results.suite.baseline, "copy_reference");
        let naive = &results.variants[1].runs[0];
        assert_eq!(naive.samples_ms, vec![0.071744]);
        assert_eq!(naive.block, [32, 8, 1]);
        assert_eq!(naive.grid, [64, 64, 1]);
        assert_eq!(
            results.notices.len(),
            2,
            "the timing caveat and one source note for all four"
        );
        assert!(results.notices[1].to_string().starts_with("No per-line counters for copy_reference, transpose_naive, transpose_tiled, transpose_padded: "));
    }

    #[test]
    fn missing_metrics_are_named_with_the_option_that_collects_them() {
        let mut launch = probe().remove(2);
        launch.values.remove(metrics::SHARED_LOAD_WAVEFRONTS);
        launch.values.remove(metrics::ACHIEVED_OCCUPANCY);
        assert_eq!(
            missing_metrics(&launch),
            [metrics::SHARED_LOAD_WAVEFRONTS, metrics::ACHIEVED_OCCUPANCY]
        );
        let imported = [ImportedLaunch {
            name: "tiled".into(),
            origin: "mine.csv".into(),
            launch,
            source: Ok(Vec::new()),
        }];
        let results = compare_results(&imported, None, String::new(), String::new());
        let notice = results.notices[1].to_string();
        assert!(
            notice.contains("2 of gpuprof's 40 metrics were not collected"),
            "{notice}"
        );
        assert!(
            notice.contains(
                "--metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,sm__warps_active"
            ),
            "{notice}"
        );
        let profile = results.variants[0].runs[0].profile.as_ref().unwrap();
        assert_eq!(
            profile.metric(metrics::SHARED_LOAD_WAVEFRONTS),
            None,
            "absent, never zero"
        );
    }

    /// `launch` renamed to `name`, at `grid`, lasting `ns`.
    fn launch_of(launch: &RawLaunch, name: &str, grid: &str, ns: f64) -> ImportedLaunch {
        let mut launch = launch.clone();
        launch.grid_size = grid.into();
        launch.values.insert(
            metrics::DURATION.into(),
            Value::Number {
                value: ns,
                unit: "ns".into(),
            },
        );
        ImportedLaunch {
            name: name.into(),
            origin: "app.ncu-rep".into(),
            launch,
            source: Err("no source page".into()),
        }
    }

    #[test]
    fn launches_of_one_kernel_are_one_variant_whose_configurations_are_sizes() {
        let probe = probe();
        // Five launches of each of two kernels, each at two grids, and the
        // second kernel named the baseline.
        let mut imported = Vec::new();
        for (grid, scale) in [("(64, 64, 1)", 1.0), ("(128, 128, 1)", 4.0)] {
            for i in 0..5 {
                let jitter = f64::from(i) * 100.0;
                imported.push(launch_of(
                    &probe[1],
                    "app/naive",
                    grid,
                    scale * 70_000.0 + jitter,
                ));
                imported.push(launch_of(
                    &probe[2],
                    "app/tiled",
                    grid,
                    scale * 20_000.0 + jitter,
                ));
            }
        }
        let results = compare_results(&imported, Some("app/tiled"), String::new(), String::new());
        let names: Vec<&str> = results.variants.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["app/naive", "app/tiled"]);
        assert_eq!(results.suite.baseline, "app/tiled");
        let labels: Vec<&str> = results
            .suite
            .sizes
            .iter()
            .map(|s| s.label.as_str())
            .collect();
        assert_eq!(labels, ["configuration 1", "configuration 2"]);
        let naive = &results.variants[0];
        assert_eq!(naive.runs.len(), 2);
        assert_eq!(naive.runs[0].samples_ms.len(), 5);
        assert_eq!(naive.runs[1].grid, [128, 128, 1]);
        // Its profile is the median launch's.
        let profile = naive.runs[0].profile.as_ref().unwrap();
        assert_eq!(profile.metric(metrics::DURATION), Some(70_200.0));
        assert_eq!(results.suite.timing.repetitions, 5);
        // One source notice for both variants, not one per launch.
        let notes: Vec<String> = results.notices.iter().map(|n| n.to_string()).collect();
        assert_eq!(
            notes
                .iter()
                .filter(|n| n.starts_with("No per-line counters"))
                .count(),
            1
        );
        assert!(notes[1].contains("app/naive, app/tiled"), "{notes:?}");
    }
}
