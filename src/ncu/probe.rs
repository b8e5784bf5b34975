//! Test support: a [`Results`] assembled from the real H200 probe exports
//! under tests/fixtures/h200-probe (four transpose kernels at 2048×2048,
//! profiled by ncu). It carries no timing samples — the probe's exports
//! hold none — so tests built on it exercise the counters, not timing.

use std::path::Path;

use super::ingest::profile_from_launch;
use crate::model::Change;
use crate::model::measurement::Check;
use crate::model::results::{
    BuildRecord, Results, RunResult, SCHEMA_VERSION, SuiteRecord, VariantResult,
};
use crate::model::suite::{Size, Timing};
use crate::model::variant::{Role, VariantKind};
use crate::ncu::raw::parse_raw_page;
use crate::ncu::source::parse_source_page;

const RAW: &str = include_str!("../../tests/fixtures/h200-probe/raw.csv");
const TILED_SOURCE: &str =
    include_str!("../../tests/fixtures/h200-probe/source-sass-cuda-tiled.csv");

/// (name, role, kernel file, entry, changes) of the probe's four launches.
const VARIANTS: [(&str, Role, &str, &str, &[Change]); 4] = [
    ("copy", Role::Ceiling, "copy.cu", "copy_reference", &[]),
    ("naive", Role::Step, "naive.cu", "transpose_naive", &[]),
    (
        "tiled",
        Role::Step,
        "tiled.cu",
        "transpose_tiled",
        &[Change::SharedMemoryTiling],
    ),
    (
        "padded",
        Role::Step,
        "padded.cu",
        "transpose_padded",
        &[Change::Padding],
    ),
];

pub fn probe_results() -> Results {
    let launches = parse_raw_page(RAW).expect("the probe fixture parses");
    let variants = VARIANTS
        .iter()
        .zip(&launches)
        .map(|((name, role, file, entry, changes), launch)| {
            let path = format!("/work/main/kernels/transpose/{file}");
            let source = if *file == "tiled.cu" {
                parse_source_page(TILED_SOURCE).map_err(|e| e.to_string())
            } else {
                Err("the probe fixtures hold the source page of the tiled kernel only".to_string())
            };
            let source_text = std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("kernels/transpose")
                    .join(file),
            )
            .expect("bundled kernel");
            VariantResult {
                name: name.to_string(),
                role: *role,
                kind: VariantKind::Kernel {
                    source: format!("../../kernels/transpose/{file}"),
                    entry: entry.to_string(),
                },
                changes: changes.to_vec(),
                notes: String::new(),
                verify_against: None,
                source_text,
                build: BuildRecord {
                    options: vec!["-lineinfo".into()],
                    ..BuildRecord::default()
                },
                runs: vec![RunResult {
                    size: "N=2048".into(),
                    grid: [64, 64, 1],
                    block: [32, 8, 1],
                    shared_bytes: 0,
                    bytes: Some(2.0 * 2048.0 * 2048.0 * 4.0),
                    flops: None,
                    buffer_bytes: None,
                    samples_ms: Vec::new(),
                    cold_samples_ms: Vec::new(),
                    timing: None,
                    check: Some(Check::NotChecked {
                        reason: "the probe checked outputs itself".into(),
                    }),
                    failure: None,
                    profile: Some(profile_from_launch(launch, source, Path::new(&path))),
                    steps: Vec::new(),
                    output: None,
                    command: None,
                    cache_key: None,
                }],
                sweep: None,
            }
        })
        .collect();
    Results {
        schema_version: SCHEMA_VERSION,
        gpuprof_version: "test".into(),
        created: "2026-12-02T14:55:34Z".into(),
        command: "probe".into(),
        suite: SuiteRecord {
            name: "transpose-probe".into(),
            description: "the H200 probe fixtures".into(),
            config: "tests/fixtures/probe".into(),
            baseline: "naive".into(),
            sizes: vec![Size {
                label: "N=2048".into(),
                symbols: [("N".to_string(), 2048)].into(),
            }],
            timing: Timing {
                warmup: 3,
                repetitions: 20,
                target_spread: None,
                time_limit_s: None,
            },
            seed: 1234,
            file_sha256: None,
        },
        device: None,
        profiler: None,
        variants,
        notices: Vec::new(),
        shard: None,
        merged_from: Vec::new(),
        sweeps: Vec::new(),
    }
}
