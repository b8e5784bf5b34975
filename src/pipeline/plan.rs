//! Planning and reuse: the skeleton of results.json for a plan (one record
//! per variant and size, before anything ran), the key of everything each
//! run's numbers depend on, the reuse of unchanged runs from the previous
//! results.json, and the order in which the harness runs the rest.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::ReportRequest;
use crate::config::plan::{Plan, Variant, VariantKind as PlannedKind, Verify};
use crate::error::Error;
use crate::harness::{Item, Job, Mode, Module};
use crate::model::device::DriverFacts;
use crate::model::notice::Notice;
use crate::model::results::{
    BuildRecord, Results, RunResult, SCHEMA_VERSION, SuiteRecord, VariantResult,
};
use crate::model::variant::VariantKind as RecordedKind;
use crate::process::Invocation;

/// Results with every run planned and nothing measured.
pub(super) fn new_results(plan: &Plan, request: &ReportRequest) -> Results {
    let config_dir = plan.suite.config_path.parent().unwrap_or(Path::new("/"));
    let variants = plan
        .variants
        .iter()
        .map(|variant| VariantResult {
            name: variant.name.clone(),
            role: variant.role,
            kind: match &variant.kind {
                PlannedKind::Library { library } => RecordedKind::Library { library: *library },
                PlannedKind::Command(command) => RecordedKind::Command {
                    kernel: command.kernel.clone(),
                },
                PlannedKind::Kernel(kernel) => RecordedKind::Kernel {
                    source: pathdiff::diff_paths(&kernel.path, config_dir)
                        .unwrap_or_else(|| kernel.path.clone())
                        .to_string_lossy()
                        .into_owned(),
                    entry: kernel.entry.clone(),
                },
            },
            changes: variant.changes.clone(),
            notes: variant.notes.clone(),
            verify_against: match &variant.verify {
                Verify::Against(name) => Some(name.clone()),
                Verify::Skip => None,
            },
            source_text: variant
                .kernel()
                .and_then(|kernel| std::fs::read(&kernel.path).ok())
                .map(|bytes| crate::config::source_text(&bytes))
                .unwrap_or_default(),
            build: BuildRecord::default(),
            runs: variant
                .instances
                .iter()
                .map(|instance| RunResult {
                    size: instance.size.clone(),
                    grid: instance.grid,
                    block: instance.block,
                    shared_bytes: instance.shared_bytes,
                    bytes: instance.bytes,
                    flops: instance.flops,
                    buffer_bytes: instance.buffer_bytes().map(|b| b as f64),
                    samples_ms: Vec::new(),
                    cold_samples_ms: Vec::new(),
                    timing: None,
                    check: None,
                    failure: None,
                    profile: None,
                    steps: Vec::new(),
                    output: None,
                    command: instance.command.as_ref().map(|argv| shell_words(argv)),
                    cache_key: None,
                })
                .collect(),
            sweep: variant.sweep.clone(),
        })
        .collect();
    Results {
        schema_version: SCHEMA_VERSION,
        gpuprof_version: env!("CARGO_PKG_VERSION").to_string(),
        created: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        command: request.command_line.clone(),
        suite: SuiteRecord {
            name: plan.suite.name.clone(),
            description: plan.suite.description.clone(),
            config: request.config.display().to_string(),
            baseline: plan.suite.baseline.clone(),
            sizes: plan.suite.sizes.clone(),
            timing: plan.timing,
            seed: plan.suite.seed,
            file_sha256: sha256_of_file(&plan.suite.config_path),
        },
        device: None,
        profiler: None,
        variants,
        notices: Vec::new(),
        shard: None,
        merged_from: Vec::new(),
        sweeps: plan.sweeps.clone(),
    }
}

/// SHA-256 of a file's bytes in hex, `None` when it cannot be read.
pub(super) fn sha256_of_file(path: &std::path::Path) -> Option<String> {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(std::fs::read(path).ok()?);
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// The hash of everything a run's numbers depend on; `None` for command
/// variants (their program can change without the suite changing).
fn cache_key(
    plan: &Plan,
    variant: &Variant,
    size_index: usize,
    facts: &DriverFacts,
    ncu_version: Option<&str>,
    skip_profile: bool,
) -> Option<String> {
    use sha2::{Digest, Sha256};
    if let PlannedKind::Command(_) = variant.kind {
        return None;
    }
    let reference = match &variant.verify {
        Verify::Against(name) => plan.variant(name),
        Verify::Skip => None,
    };
    let describe = |v: &Variant| {
        let (source, entry, options, library) = match &v.kind {
            PlannedKind::Kernel(kernel) => (
                std::fs::read(&kernel.path)
                    .map(|bytes| crate::config::source_text(&bytes))
                    .unwrap_or_default(),
                kernel.entry.as_str(),
                kernel.compile_options.as_slice(),
                None,
            ),
            PlannedKind::Library { library } => {
                (String::new(), library.word(), &[][..], Some(library))
            }
            PlannedKind::Command(command) => {
                (String::new(), command.kernel.as_str(), &[][..], None)
            }
        };
        serde_json::json!({
            "source": source,
            "entry": entry,
            "options": options,
            "library": library,
            "compiler": v.kernel().map(|k| (k.compiler, &k.include_dirs)),
            "instance": v.instances.get(size_index),
        })
    };
    let everything = serde_json::json!({
        "gpuprof": env!("CARGO_PKG_VERSION"),
        "variant": describe(variant),
        "reference": reference.map(describe),
        "tolerance": [variant.tolerance.rel, variant.tolerance.abs],
        "device": [&facts.name, &facts.driver_cuda_version, &format!("{:?}", facts.compute_capability)],
        "ncu": ncu_version,
        "profiled": !skip_profile,
        "clock_control": plan.profile.clock_control.as_ncu_value(),
        "timing": plan.timing,
        "seed": plan.suite.seed,
    });
    let digest = Sha256::digest(everything.to_string().as_bytes());
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// Keys every run and copies unchanged, complete runs of the previous
/// results.json into `results`; the items reused.
pub(super) fn reuse_unchanged(
    plan: &Plan,
    facts: &DriverFacts,
    ncu_version: Option<&str>,
    skip_profile: bool,
    previous: Option<&Results>,
    results: &mut Results,
) -> BTreeSet<Item> {
    let mut reused = BTreeSet::new();
    for (variant, record) in plan.variants.iter().zip(results.variants.iter_mut()) {
        let before = previous.and_then(|p| p.variant(&variant.name));
        for (size_index, run) in record.runs.iter_mut().enumerate() {
            let key = cache_key(plan, variant, size_index, facts, ncu_version, skip_profile);
            run.cache_key = key.clone();
            let Some(old) = before.and_then(|b| b.run(&run.size)) else {
                continue;
            };
            if reusable(variant, old, &key, skip_profile) && run.failure.is_none() {
                *run = old.clone();
                reused.insert(Item {
                    variant: variant.name.clone(),
                    size: run.size.clone(),
                });
            }
        }
        if let Some(before) = before
            && record.build.resources.is_none()
        {
            record.build.resources = before.build.resources;
        }
    }
    if !reused.is_empty() {
        results.notices.push(Notice::Reused { runs: reused.len() });
    }
    reused
}

/// Whether `old`, a previous run of `variant`, may stand for this run,
/// whose cache key is `key`: it measured everything this run would
/// (failing nothing) with the same inputs.
fn reusable(variant: &Variant, old: &RunResult, key: &Option<String>, skip_profile: bool) -> bool {
    let complete = old.failure.is_none()
        && !old.samples_ms.is_empty()
        && (skip_profile
            || old.profile.is_some()
            || matches!(variant.kind, PlannedKind::Library { .. }));
    key.is_some() && old.cache_key == *key && complete
}

/// Whether every kernel of the plan at every size is expected to be reused
/// from `previous` (as [`reuse_unchanged`] will, unless a build fails):
/// then nothing is to be profiled.
pub(super) fn all_kernels_reusable(
    plan: &Plan,
    facts: &DriverFacts,
    ncu_version: Option<&str>,
    previous: Option<&Results>,
) -> bool {
    plan.variants
        .iter()
        .filter(|variant| variant.kernel().is_some())
        .all(|variant| {
            let before = previous.and_then(|p| p.variant(&variant.name));
            plan.suite
                .sizes
                .iter()
                .enumerate()
                .all(|(size_index, size)| {
                    let key = cache_key(plan, variant, size_index, facts, ncu_version, false);
                    before
                        .and_then(|b| b.run(&size.label))
                        .is_some_and(|old| reusable(variant, old, &key, false))
                })
        })
}

/// A command line as the user would type it.
pub(super) fn shell_words(argv: &[String]) -> String {
    argv.first()
        .map(|program| Invocation::new(program).args(&argv[1..]).display())
        .unwrap_or_default()
}

/// Every compiled variant at every size, sizes in order, and within a size
/// each reference before the variants verified against it.
pub(super) fn ordered_items(plan: &Plan, modules: &BTreeMap<String, Vec<Module>>) -> Vec<Item> {
    let mut order: Vec<&str> = Vec::new();
    fn visit<'a>(
        plan: &'a Plan,
        name: &'a str,
        order: &mut Vec<&'a str>,
        seen: &mut BTreeSet<&'a str>,
    ) {
        if !seen.insert(name) {
            return;
        }
        if let Some(variant) = plan.variant(name)
            && let Verify::Against(reference) = &variant.verify
        {
            visit(plan, reference, order, seen);
        }
        order.push(name);
    }
    let mut seen = BTreeSet::new();
    for variant in &plan.variants {
        visit(plan, &variant.name, &mut order, &mut seen);
    }
    plan.suite
        .sizes
        .iter()
        .flat_map(|size| {
            order
                .iter()
                .filter(|name| {
                    modules.contains_key(**name)
                        || plan
                            .variant(name)
                            .is_some_and(|v| matches!(v.kind, PlannedKind::Library { .. }))
                })
                .map(|name| Item {
                    variant: name.to_string(),
                    size: size.label.clone(),
                })
        })
        .collect()
}

/// The timing job: every item that compiled (or calls a library) and was
/// not reused.
pub(super) fn timing_job(
    plan: &Plan,
    modules: &BTreeMap<String, Vec<Module>>,
    reused: &BTreeSet<Item>,
) -> Job {
    Job {
        mode: Mode::Time,
        plan: plan.clone(),
        modules: modules.clone(),
        items: ordered_items(plan, modules)
            .into_iter()
            .filter(|i| !reused.contains(i))
            .collect(),
        failed: Vec::new(),
    }
}

/// Refuses, before anything runs, a run the device cannot hold: buffers
/// larger together than its memory, dynamic shared memory beyond what one
/// SM has. The error names the variant, the size and the limit.
pub(super) fn check_device_limits(plan: &Plan, facts: &DriverFacts) -> Result<(), Error> {
    use crate::analysis::format;
    for variant in &plan.variants {
        for instance in &variant.instances {
            let bytes = instance.buffer_bytes();
            let at = format!("variant `{}` at {}", variant.name, instance.size);
            match bytes {
                Some(bytes)
                    if bytes <= facts.total_memory_bytes || facts.total_memory_bytes == 0 => {}
                _ => {
                    return Err(Error::Input(format!(
                        "{at}: its buffers need {}, more than the {} holds ({}): make the size smaller",
                        bytes.map_or("more than 2^64 bytes".to_string(), |b| format::bytes(
                            b as f64
                        )),
                        facts.name,
                        format::bytes(facts.total_memory_bytes as f64)
                    )));
                }
            }
            let shared = std::iter::once(instance.shared_bytes)
                .chain(instance.sequence.iter().map(|step| step.shared_bytes))
                .max()
                .unwrap_or(0);
            if facts.shared_memory_per_sm_bytes > 0
                && u64::from(shared) > facts.shared_memory_per_sm_bytes
            {
                return Err(Error::Input(format!(
                    "{at}: shared_bytes = {shared} is more dynamic shared memory than an SM of the {} has ({} bytes): a block cannot get it",
                    facts.name, facts.shared_memory_per_sm_bytes
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(memory: u64, shared: u64) -> DriverFacts {
        DriverFacts {
            name: "NVIDIA H200".into(),
            compute_capability: (9, 0),
            multiprocessors: 132,
            sm_clock_khz: 1_980_000,
            memory_clock_khz: 3_201_000,
            memory_bus_width_bits: 6144,
            l2_cache_bytes: 62_914_560,
            total_memory_bytes: memory,
            shared_memory_per_sm_bytes: shared,
            max_threads_per_sm: 2048,
            driver_cuda_version: "13.0".into(),
            processes_may_share: true,
        }
    }

    #[test]
    fn a_run_the_device_cannot_hold_is_refused_before_anything_runs() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let plan = crate::config::load(&root.join("examples/transpose/variants.toml")).unwrap();
        assert!(check_device_limits(&plan, &facts(150 << 30, 233_472)).is_ok());
        // Two 8192x8192 float buffers are 537 MB: not on a 256 MB device.
        let error = check_device_limits(&plan, &facts(256 << 20, 233_472)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "variant `copy` at N=8192: its buffers need 537 MB, more than the NVIDIA H200 holds (268 MB): make the size smaller"
        );
        let mut shared = plan.clone();
        shared.variants[1].instances[0].shared_bytes = 300_000;
        let error = check_device_limits(&shared, &facts(150 << 30, 233_472)).unwrap_err();
        assert!(
            error.to_string().starts_with("variant `naive` at N=2048: shared_bytes = 300000 is more dynamic shared memory than an SM of the NVIDIA H200 has (233472 bytes)"),
            "{error}"
        );
        // A buffer past 2^64 bytes is refused, not left out of the total.
        let mut huge = plan.clone();
        let crate::config::plan::Arg::Buffer(input) = &mut huge.variants[0].instances[0].args[0]
        else {
            panic!("the first argument is a buffer");
        };
        input.count = u64::MAX / 2;
        let error = check_device_limits(&huge, &facts(150 << 30, 233_472)).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("its buffers need more than 2^64 bytes"),
            "{error}"
        );
    }
}
