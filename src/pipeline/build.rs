//! The build stage: every kernel variant compiled by NVRTC for the device's
//! architecture (cached by content hash), every command variant's build
//! line run once in its folder. A variant that fails to build fails its
//! runs and the others go on; a missing NVRTC stops the run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::progress::progress;
use crate::build::{self, BuildError, Cache};
use crate::config::plan::VariantKind;
use crate::error::Error;
use crate::model::results::{BuildRecord, Failure, Results, Stage};
use crate::process::{self, Invocation};

/// Builds every variant; the CUBIN of each kernel variant that compiled,
/// by variant name.
pub(super) fn build_all(
    plan: &crate::config::Plan,
    compute_capability: (u32, u32),
    results: &mut Results,
) -> Result<BTreeMap<String, PathBuf>, Error> {
    if !build::nvrtc_available() {
        return Err(Error::Build(BuildError::NvrtcMissing));
    }
    let cache = Cache::default_location();
    let bar = progress(plan.variants.len() as u64, "compile");
    let mut cubins = BTreeMap::new();
    // The same build line (in the same folder) runs once.
    let mut built: BTreeMap<(Vec<String>, PathBuf), Result<String, String>> = BTreeMap::new();
    for (variant, record) in plan.variants.iter().zip(results.variants.iter_mut()) {
        bar.set_message(variant.name.clone());
        match &variant.kind {
            VariantKind::Library { .. } => {}
            VariantKind::Command(command) => {
                if let Some(argv) = &command.build {
                    let started = Instant::now();
                    let outcome = built
                        .entry((argv.clone(), command.folder.clone()))
                        .or_insert_with(|| build_command(argv, &command.folder))
                        .clone();
                    record.build.options = argv.clone();
                    record.build.seconds = started.elapsed().as_secs_f64();
                    record_build(&mut record.build, &mut record.runs, Stage::Build, outcome);
                }
            }
            VariantKind::Kernel(kernel) => {
                let options = build::options_for(compute_capability, &kernel.compile_options);
                record.build.options = options.clone();
                match build::compile(&kernel.path, &options, &cache) {
                    Ok(compiled) => {
                        record.build.seconds = compiled.seconds;
                        cubins.insert(variant.name.clone(), compiled.cubin);
                        record_build(
                            &mut record.build,
                            &mut record.runs,
                            Stage::Compile,
                            Ok(compiled.log),
                        );
                    }
                    Err(BuildError::NvrtcMissing) => {
                        return Err(Error::Build(BuildError::NvrtcMissing));
                    }
                    Err(error) => record_build(
                        &mut record.build,
                        &mut record.runs,
                        Stage::Compile,
                        Err(error.to_string()),
                    ),
                }
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(cubins)
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
