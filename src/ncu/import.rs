//! Results from existing ncu data (`gpuprof compare`): each selected launch
//! of a user's raw-page export (and its source page, when the input was an
//! .ncu-rep) becomes a variant, the device is read from the export's
//! `device__attribute_*` columns, and every metric of the fixed set that the
//! export lacks is named, with the ncu option that would collect it.

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
    /// The variant name the report uses.
    pub name: String,
    /// The file it came from, as the user named it.
    pub origin: String,
    pub launch: RawLaunch,
    /// The launch's source page, or why there is none.
    pub source: Result<Vec<SourceFile>, String>,
}

/// The size label of imported runs: ncu measured them as they were.
pub const AS_PROFILED: &str = "as profiled";

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

/// Results for `gpuprof compare`: one variant per imported launch, the
/// first as the baseline, times from ncu's kernel duration.
pub fn compare_results(imported: &[ImportedLaunch], command: String, created: String) -> Results {
    Results {
        schema_version: SCHEMA_VERSION,
        gpuprof_version: env!("CARGO_PKG_VERSION").to_string(),
        created,
        command,
        suite: compare_suite(imported),
        device: imported
            .first()
            .and_then(|i| driver_facts(&i.launch))
            .map(|facts| Device::from_facts(&facts, None)),
        profiler: None,
        variants: imported.iter().map(imported_variant).collect(),
        notices: import_notices(imported),
    }
}

/// That the results are imported, which metrics each launch lacks, and one
/// notice per distinct reason a source page is missing, naming the results
/// it applies to.
fn import_notices(imported: &[ImportedLaunch]) -> Vec<Notice> {
    let mut notices = vec![Notice::Imported];
    for item in imported {
        let missing = missing_metrics(&item.launch);
        if !missing.is_empty() {
            notices.push(Notice::MetricsMissing {
                variant: item.name.clone(),
                origin: item.origin.clone(),
                missing: missing.iter().map(|m| m.to_string()).collect(),
                of: metrics::METRICS.len(),
            });
        }
    }
    let mut without_source: Vec<(&str, Vec<String>)> = Vec::new();
    for item in imported {
        if let Err(reason) = &item.source {
            match without_source.iter_mut().find(|(r, _)| r == reason) {
                Some((_, names)) => names.push(item.name.clone()),
                None => without_source.push((reason, vec![item.name.clone()])),
            }
        }
    }
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

/// A launch as a variant with one unchecked run at [`AS_PROFILED`], timed by
/// its kernel duration.
fn imported_variant(item: &ImportedLaunch) -> VariantResult {
    VariantResult {
        name: item.name.clone(),
        role: Role::Step,
        kind: VariantKind::Imported {
            origin: item.origin.clone(),
            kernel: item.launch.kernel_name.clone(),
        },
        changes: Vec::new(),
        notes: format!("ncu result {} of {}", item.launch.id, item.origin),
        verify_against: None,
        source_text: String::new(),
        build: BuildRecord::default(),
        runs: vec![RunResult {
            size: AS_PROFILED.into(),
            grid: dims(&item.launch.grid_size),
            block: dims(&item.launch.block_size),
            shared_bytes: item
                .launch
                .number(metrics::DYNAMIC_SHARED_PER_BLOCK)
                .unwrap_or(0.0) as u32,
            bytes: None,
            flops: None,
            samples_ms: item
                .launch
                .number(metrics::DURATION)
                .map(|ns| vec![ns / 1e6])
                .unwrap_or_default(),
            check: Some(Check::NotChecked {
                reason: "compare reads existing ncu data; it runs nothing".into(),
            }),
            failure: None,
            profile: Some(profile_of_launch(&item.launch, &item.source)),
            steps: Vec::new(),
            output: None,
            command: None,
            cache_key: None,
        }],
    }
}

/// The suite of a comparison: the imported names and files, the first as
/// the baseline, one size as profiled.
fn compare_suite(imported: &[ImportedLaunch]) -> SuiteRecord {
    SuiteRecord {
        name: "compare".into(),
        description: format!(
            "{} ncu results compared: {}",
            imported.len(),
            imported
                .iter()
                .map(|i| i.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        config: imported
            .iter()
            .map(|i| i.origin.as_str())
            .collect::<Vec<_>>()
            .join(" "),
        baseline: imported.first().map(|i| i.name.clone()).unwrap_or_default(),
        sizes: vec![Size {
            label: AS_PROFILED.into(),
            symbols: Default::default(),
        }],
        timing: Timing {
            warmup: 0,
            repetitions: 1,
        },
        seed: 0,
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
        let results = compare_results(&imported, String::new(), String::new());
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
}
