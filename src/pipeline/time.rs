//! The time-and-verify stage: the harness (`gpuprof harness`, a child
//! process) runs every item, checks its outputs against its reference and
//! times it; the pipeline reads its events, records each run as it
//! finishes and starts a new harness after a crash, a fatal CUDA error or a
//! timeout, so that nothing already measured is lost.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use super::Folders;
use super::output::{save, write_atomic, write_json};
use super::progress::progress;
use crate::error::Error;
use crate::harness::{Event, Item, Job};
use crate::model::results::{Failure, Results, Stage};
use crate::process::{self, Invocation, ToolError};

/// The program that runs harness jobs: `gpuprof harness`, or the program
/// named by GPUPROF_HARNESS (a stand-in that replays recorded events, for
/// testing the pipeline on machines without a GPU).
pub(super) fn harness_program() -> Result<Invocation, Error> {
    if let Some(stand_in) = std::env::var_os("GPUPROF_HARNESS") {
        return Ok(Invocation::new(stand_in));
    }
    let exe = std::env::current_exe()
        .map_err(|e| Error::Tool(format!("cannot find the gpuprof executable: {e}")))?;
    Ok(Invocation::new(exe).arg("harness"))
}

pub(super) fn harness_job(harness: &Invocation, job_path: &Path) -> Invocation {
    harness.clone().arg("--job").arg(job_path.as_os_str())
}

/// Runs the timing harness until every item has a result, starting a new
/// process after a fatal error, a crash or a timeout.
pub(super) fn run(
    harness: &Invocation,
    job: &Job,
    folders: &Folders,
    idle_timeout: Duration,
    results: &mut Results,
) -> Result<(), Error> {
    let work_dir = &folders.work;
    let mut remaining = job.items.clone();
    let mut events_log = String::new();
    let bar = progress(remaining.len() as u64, "time");
    while !remaining.is_empty() {
        let job_path = work_dir.join("time-job.json");
        let attempt = Job {
            items: remaining.clone(),
            ..job.clone()
        };
        write_json(&job_path, &attempt)?;
        let invocation = harness_job(harness, &job_path);
        let mut finished: BTreeSet<Item> = BTreeSet::new();
        let mut in_flight: Option<Item> = None;
        let mut save_error = None;
        let outcome = process::run_streaming(&invocation, Some(idle_timeout), |line| {
            let event = match Event::from_line(line) {
                None => return,
                Some(Ok(event)) => event,
                Some(Err(error)) => {
                    // An event that cannot be read must not vanish: it ends
                    // the item in flight with the reason.
                    if let Some(item) = in_flight.take() {
                        if let Some(run) = results.run_mut(&item.variant, &item.size) {
                            run.failure = Some(Failure {
                                stage: Stage::Harness,
                                message: format!(
                                    "gpuprof could not read the harness's report ({error}): {line}"
                                ),
                            });
                        }
                        finished.insert(item);
                        bar.inc(1);
                    }
                    return;
                }
            };
            events_log.push_str(line);
            events_log.push('\n');
            match event {
                Event::Device(_) | Event::Profiled { .. } => {}
                Event::Loaded { variant, resources } => {
                    if let Some(v) = results.variants.iter_mut().find(|v| v.name == variant) {
                        v.build.resources = Some(resources);
                    }
                }
                Event::Started { item } => {
                    bar.set_message(format!("{} {}", item.variant, item.size));
                    in_flight = Some(item);
                }
                Event::Measured {
                    item,
                    samples_ms,
                    check,
                } => {
                    if let Some(run) = results.run_mut(&item.variant, &item.size) {
                        run.samples_ms = samples_ms;
                        run.check = Some(check);
                    }
                    finished.insert(item);
                    in_flight = None;
                    bar.inc(1);
                    if let Err(error) = save(&folders.results, results) {
                        save_error = Some(error);
                    }
                }
                Event::Failed {
                    item,
                    stage,
                    message,
                    ..
                } => {
                    if let Some(run) = results.run_mut(&item.variant, &item.size) {
                        run.failure = Some(Failure { stage, message });
                    }
                    finished.insert(item);
                    in_flight = None;
                    bar.inc(1);
                }
            }
        });
        if let Some(error) = save_error {
            return Err(error);
        }
        if let Err(error) = outcome {
            // Blame the item that had started and not finished. A process
            // that ended right after reporting a fatal failure has none:
            // the next attempt simply goes on. One that ended before any
            // item finished fails every remaining item.
            let blamed: Vec<Item> = match in_flight.take() {
                Some(item) => vec![item],
                None if finished.is_empty() => remaining.clone(),
                None => Vec::new(),
            };
            for item in blamed {
                if let Some(run) = results.run_mut(&item.variant, &item.size) {
                    run.failure.get_or_insert(Failure {
                        stage: Stage::Run,
                        message: harness_failure(&error, idle_timeout),
                    });
                }
                finished.insert(item);
                bar.inc(1);
            }
        }
        remaining.retain(|item| !finished.contains(item));
        if finished.is_empty() {
            break;
        }
    }
    bar.finish_and_clear();
    write_atomic(&work_dir.join("time-events.jsonl"), events_log.as_bytes())
}

fn harness_failure(error: &ToolError, idle_timeout: Duration) -> String {
    match error.kind {
        process::ToolErrorKind::TimedOut { .. } => format!(
            "the kernel did not finish within {} s and was stopped (raise the limit with --timeout)",
            idle_timeout.as_secs()
        ),
        _ => format!(
            "the harness process ended abnormally: {}",
            error.output_tail(8)
        ),
    }
}
