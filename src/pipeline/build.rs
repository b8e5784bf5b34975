//! The build stage: every kernel variant compiled by NVRTC (or nvcc) for
//! the device's architecture, one compiler run per source file and options
//! shared by the variants that need it, side by side on the machine's
//! cores (cached by content hash), every command variant's build line run
//! once in its folder. A variant that fails to build fails its
//! runs and the others go on; a missing NVRTC stops the run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::plan::shell_words;
use super::progress::progress;
use crate::build::{self, BuildError, Cache, VariantBuild};
use crate::config::plan::VariantKind;
use crate::error::Error;
use crate::harness::Module;
use crate::model::results::{BuildRecord, Failure, Results, Stage};
use crate::model::variant::Compiler;
use crate::process::{self, Invocation};

/// Builds every variant; the modules of each kernel variant that compiled
/// (one per size), by variant name.
/// Command variants' build lines run only when `run_commands` (under
/// `--no-profile` their programs do not run, so neither do their builds).
pub(super) fn build_all(
    plan: &crate::config::Plan,
    compute_capability: (u32, u32),
    run_commands: bool,
    results: &mut Results,
) -> Result<BTreeMap<String, Vec<Module>>, Error> {
    let uses_nvrtc = plan
        .variants
        .iter()
        .any(|v| v.kernel().is_some_and(|k| k.compiler == Compiler::Nvrtc));
    if uses_nvrtc && !build::nvrtc_available() {
        return Err(Error::Build(BuildError::NvrtcMissing));
    }
    let cache = Cache::default_location();
    let non_kernels = plan
        .variants
        .iter()
        .filter(|v| !matches!(v.kind, VariantKind::Kernel(_)))
        .count();
    // The bar counts the other variants and then each compiler run.
    let bar = progress(non_kernels as u64, "compile");
    // The same build line (in the same folder) runs once.
    let mut built: BTreeMap<(Vec<String>, PathBuf), Result<String, String>> = BTreeMap::new();
    let mut kernel_builds = Vec::new();
    for (variant, record) in plan.variants.iter().zip(results.variants.iter_mut()) {
        match &variant.kind {
            VariantKind::Library { .. } => bar.inc(1),
            VariantKind::Command(command) if run_commands => {
                bar.set_message(variant.name.clone());
                if let Some(argv) = &command.build {
                    let started = Instant::now();
                    let outcome = built
                        .entry((argv.clone(), command.folder.clone()))
                        .or_insert_with(|| {
                            bar.suspend(|| announce("building", argv, &command.folder));
                            build_command(argv, &command.folder)
                        })
                        .clone();
                    record.build.options = argv.clone();
                    record.build.seconds = started.elapsed().as_secs_f64();
                    record_build(&mut record.build, &mut record.runs, Stage::Build, outcome);
                }
                bar.inc(1);
            }
            VariantKind::Command(_) => bar.inc(1),
            VariantKind::Kernel(kernel) => kernel_builds.push((
                VariantBuild {
                    name: &variant.name,
                    kernel,
                    instances: &variant.instances,
                    record: &mut record.build,
                },
                &mut record.runs,
            )),
        }
    }
    let (mut builds, runs): (Vec<VariantBuild>, Vec<_>) = kernel_builds.into_iter().unzip();
    let outcomes = build::compile_variants(&mut builds, compute_capability, &cache, &bar);
    bar.finish_and_clear();
    let mut modules = BTreeMap::new();
    for ((variant, runs), outcome) in builds.into_iter().zip(runs).zip(outcomes) {
        match outcome {
            Ok(compiled) => {
                modules.insert(
                    variant.name.to_string(),
                    compiled
                        .into_iter()
                        .map(|c| Module {
                            cubin: c.cubin,
                            functions: c.functions,
                        })
                        .collect(),
                );
            }
            Err(missing @ (BuildError::NvrtcMissing | BuildError::NvccMissing { .. })) => {
                return Err(Error::Build(missing));
            }
            Err(error) => {
                record_build(variant.record, runs, Stage::Compile, Err(error.to_string()))
            }
        }
    }
    Ok(modules)
}

/// Records a build's log, or its error as the failure of every run.
fn record_build(
    record: &mut BuildRecord,
    runs: &mut [crate::model::results::RunResult],
    stage: Stage,
    outcome: Result<String, String>,
) {
    match outcome {
        Ok(log) => record.log = log,
        Err(message) => {
            for run in runs {
                run.failure = Some(Failure {
                    stage,
                    message: message.clone(),
                });
            }
            record.error = Some(message);
        }
    }
}

/// Says on stderr which of the suite's own command lines runs now, and
/// where: a suite from elsewhere runs programs, and the user sees which.
pub(super) fn announce(what: &str, argv: &[String], folder: &Path) {
    let line = shell_words(argv);
    anstream::eprintln!("{what}: {line}   (in {})", folder.display());
}

/// Runs a command variant's build line in its folder; the output on
/// success, the failure with the tool's output otherwise.
fn build_command(argv: &[String], folder: &Path) -> Result<String, String> {
    let Some((program, args)) = argv.split_first() else {
        return Err("the build command is empty".into());
    };
    let invocation = Invocation::new(program).args(args).in_folder(folder);
    process::run(&invocation)
        .map(|o| format!("{}{}", o.stdout, o.stderr).trim().to_string())
        .map_err(|e| format!("the build failed: {e}"))
}
