//! The build stage: every kernel variant compiled by NVRTC (or nvcc) for
//! the device's architecture, side by side on the machine's cores (cached
//! by content hash), every command variant's build line run once in its
//! folder. A variant that fails to build fails its
//! runs and the others go on; a missing NVRTC stops the run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::plan::shell_words;
use super::progress::progress;
use crate::build::{self, BuildError, Cache};
use crate::config::plan::{Instance, KernelSource, VariantKind};
use crate::error::Error;
use crate::harness::Module;
use crate::model::results::{BuildRecord, Failure, Results, Stage, VariantResult};
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
    let bar = progress(plan.variants.len() as u64, "compile");
    // The same build line (in the same folder) runs once.
    let mut built: BTreeMap<(Vec<String>, PathBuf), Result<String, String>> = BTreeMap::new();
    // Kernels compile side by side (NVRTC programs and nvcc processes are
    // independent), each job with its own variant's record.
    let mut kernel_jobs = Vec::new();
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
            VariantKind::Kernel(kernel) => kernel_jobs.push(KernelJob {
                kernel,
                instances: &variant.instances,
                record,
            }),
        }
    }
    let parallel = std::thread::available_parallelism().map_or(4, |n| n.get().clamp(1, 16));
    let mut outcomes = Vec::with_capacity(kernel_jobs.len());
    for chunk in kernel_jobs.chunks_mut(parallel) {
        std::thread::scope(|scope| {
            let compiling: Vec<_> = chunk
                .iter_mut()
                .map(|job| {
                    let (cache, bar) = (&cache, &bar);
                    scope.spawn(move || {
                        let outcome = compile_kernel(
                            job.kernel,
                            job.instances,
                            compute_capability,
                            cache,
                            &mut job.record.build,
                        );
                        bar.set_message(job.record.name.clone());
                        bar.inc(1);
                        outcome
                    })
                })
                .collect();
            outcomes.extend(compiling.into_iter().map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            }));
        });
    }
    bar.finish_and_clear();
    let mut modules = BTreeMap::new();
    for (job, outcome) in kernel_jobs.into_iter().zip(outcomes) {
        let record = job.record;
        match outcome? {
            Ok(kernel_modules) => {
                modules.insert(record.name.clone(), kernel_modules);
            }
            Err(message) => record_build(
                &mut record.build,
                &mut record.runs,
                Stage::Compile,
                Err(message),
            ),
        }
    }
    Ok(modules)
}

/// One kernel variant to compile, and the variant's record, which the
/// compile writes its build into.
struct KernelJob<'a> {
    kernel: &'a KernelSource,
    instances: &'a [Instance],
    record: &'a mut VariantResult,
}

/// Compiles a kernel at every size (`build::compile_at_sizes`) into the
/// modules the harness loads; `Ok(Err(message))` when it did not compile,
/// `Err` when the compiler itself is missing.
fn compile_kernel(
    kernel: &KernelSource,
    instances: &[Instance],
    compute_capability: (u32, u32),
    cache: &Cache,
    record: &mut BuildRecord,
) -> Result<Result<Vec<Module>, String>, Error> {
    match build::compile_at_sizes(kernel, instances, compute_capability, cache, record) {
        Ok(compiled) => Ok(Ok(compiled
            .into_iter()
            .map(|c| Module {
                cubin: c.cubin,
                functions: c.functions,
            })
            .collect())),
        Err(missing @ (BuildError::NvrtcMissing | BuildError::NvccMissing { .. })) => {
            Err(Error::Build(missing))
        }
        Err(error) => Ok(Err(error.to_string())),
    }
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
