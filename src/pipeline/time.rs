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
use crate::model::notice::Notice;
use crate::model::results::{Failure, Results, Stage};
use crate::process::{self, Invocation, ToolError};
use indicatif::ProgressBar;

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
    let mut remaining = job.items.clone();
    let mut events_log = String::new();
    let bar = progress(remaining.len() as u64, "time");
    while !remaining.is_empty() && !process::interrupted() {
        let job_path = folders.work.join("time-job.json");
        let attempt_job = Job {
            items: remaining.clone(),
            failed: failed_runs(results),
            ..job.clone()
        };
        write_json(&job_path, &attempt_job)?;
        let mut attempt = Attempt {
            results: &mut *results,
            results_path: &folders.results,
            bar: &bar,
            events_log: &mut events_log,
            finished: BTreeSet::new(),
            in_flight: None,
            save_error: None,
            unkept: Default::default(),
        };
        let outcome = process::run_reporting(
            &harness_job(harness, &job_path),
            Some(idle_timeout),
            |line| attempt.on_line(line),
        );
        if let Some(error) = attempt.save_error.take() {
            return Err(error);
        }
        if let Err(error) = outcome {
            attempt.blame(&error, &remaining, idle_timeout);
        }
        let finished = attempt.finished;
        remaining.retain(|item| !finished.contains(item));
        if finished.is_empty() {
            break;
        }
    }
    bar.finish_and_clear();
    notice_throttling(results);
    write_atomic(
        &folders.work.join("time-events.jsonl"),
        events_log.as_bytes(),
    )
}

/// Every run that has failed so far, with why: a fresh harness does not run
/// a failed reference again.
fn failed_runs(results: &Results) -> Vec<(Item, String)> {
    results
        .variants
        .iter()
        .flat_map(|variant| {
            variant.runs.iter().filter_map(|run| {
                let failure = run.failure.as_ref()?;
                let item = Item {
                    variant: variant.name.clone(),
                    size: run.size.clone(),
                };
                Some((item, failure.message.clone()))
            })
        })
        .collect()
}

/// Adds a notice naming the runs whose every sample ran on a throttled SM
/// clock.
fn notice_throttling(results: &mut Results) {
    let mut of = 0;
    let mut runs = Vec::new();
    for variant in &results.variants {
        for run in &variant.runs {
            let Some(timing) = &run.timing else { continue };
            of += 1;
            if timing.throttled_throughout() {
                runs.push(format!("{} at {}", variant.name, run.size));
            }
        }
    }
    if !runs.is_empty() {
        results.notices.push(Notice::Throttled { runs, of });
    }
}

/// One harness process's run over the remaining items: what it finished,
/// what it was running, and the events it reported.
struct Attempt<'a> {
    results: &'a mut Results,
    results_path: &'a Path,
    bar: &'a ProgressBar,
    events_log: &'a mut String,
    finished: BTreeSet<Item>,
    in_flight: Option<Item>,
    /// results.json could not be saved: the run stops with this error.
    save_error: Option<Error>,
    /// Lines a kernel printed beyond those kept, by item.
    unkept: std::collections::BTreeMap<Item, u64>,
}

impl Attempt<'_> {
    /// Records what one line of the harness's report says.
    fn on_line(&mut self, line: &str) {
        let event = match Event::from_line(line) {
            Ok(event) => event,
            Err(error) => {
                // An event that cannot be read must not vanish: it ends the
                // item in flight with the reason.
                if let Some(item) = self.in_flight.take() {
                    let message =
                        format!("gpuprof could not read the harness's report ({error}): {line}");
                    self.finish(
                        item,
                        Failure {
                            stage: Stage::Harness,
                            message,
                        },
                    );
                }
                return;
            }
        };
        self.events_log.push_str(line);
        self.events_log.push('\n');
        match event {
            Event::Device(_)
            | Event::Profiled { .. }
            | Event::Printing
            | Event::Waiting
            | Event::Opened
            | Event::OpenFailed { .. }
            | Event::Finished => {}
            Event::Printed {
                item,
                text,
                more_lines,
            } => self.keep_printed(&item, &text, more_lines),
            Event::Loaded { variant, resources } => {
                if let Some(v) = self.results.variants.iter_mut().find(|v| v.name == variant) {
                    v.build.resources = Some(resources);
                }
            }
            Event::Sampling { item } => self.in_flight = Some(item),
            Event::Started { item } => {
                self.bar
                    .set_message(format!("{} {}", item.variant, item.size));
                self.in_flight = Some(item);
            }
            Event::Measured {
                item,
                samples_ms,
                cold_samples_ms,
                timing,
                check,
            } => {
                if let Some(run) = self.results.run_mut(&item.variant, &item.size) {
                    run.samples_ms = samples_ms;
                    run.cold_samples_ms = cold_samples_ms;
                    run.timing = timing.map(|record| *record);
                    run.check = Some(check);
                }
                self.mark_finished(item);
                if let Err(error) = save(self.results_path, self.results) {
                    self.save_error = Some(error);
                }
            }
            Event::Failed {
                item,
                stage,
                message,
                ..
            } => self.finish(item, Failure { stage, message }),
        }
    }

    /// Keeps what `item`'s kernel printed under its run, shown in the
    /// reports: its first lines (each cut short, control characters made
    /// visible); the others are counted.
    fn keep_printed(&mut self, item: &Item, text: &str, more_lines: u64) {
        const KEPT_LINES: usize = 20;
        let Some(run) = self.results.run_mut(&item.variant, &item.size) else {
            return;
        };
        let output = run.output.get_or_insert_with(String::new);
        let mut kept = output.lines().count();
        let mut unkept = more_lines;
        for line in text.lines() {
            if kept >= KEPT_LINES {
                unkept += 1;
                continue;
            }
            output.extend(
                line.chars()
                    .take(400)
                    .map(|c| match c.is_control() && c != '\t' {
                        true => '\u{fffd}',
                        false => c,
                    }),
            );
            output.push('\n');
            kept += 1;
        }
        if unkept > 0 {
            *self.unkept.entry(item.clone()).or_default() += unkept;
        }
    }

    /// Ends `item` with `failure`.
    fn finish(&mut self, item: Item, failure: Failure) {
        if let Some(run) = self.results.run_mut(&item.variant, &item.size) {
            run.failure = Some(failure);
        }
        self.mark_finished(item);
    }

    fn mark_finished(&mut self, item: Item) {
        if let Some(more) = self.unkept.remove(&item)
            && let Some(run) = self.results.run_mut(&item.variant, &item.size)
        {
            let output = run.output.get_or_insert_with(String::new);
            output.push_str(&format!("… and {more} more lines\n"));
        }
        self.finished.insert(item);
        self.in_flight = None;
        self.bar.inc(1);
    }

    /// After the process ended abnormally, blames the item that had
    /// started and not finished. A process that ended right after
    /// reporting a fatal failure has none: the next attempt simply goes
    /// on. One that ended before any item finished fails every remaining
    /// item.
    fn blame(&mut self, error: &ToolError, remaining: &[Item], idle_timeout: Duration) {
        // Stopped on purpose: what was running did not fail, it did not run.
        if matches!(error.kind, process::ToolErrorKind::Interrupted) {
            return;
        }
        let blamed: Vec<Item> = match self.in_flight.take() {
            Some(item) => vec![item],
            None if self.finished.is_empty() => remaining.to_vec(),
            None => Vec::new(),
        };
        for item in blamed {
            if let Some(run) = self.results.run_mut(&item.variant, &item.size) {
                run.failure.get_or_insert(Failure {
                    stage: Stage::Run,
                    message: harness_failure(error, idle_timeout),
                });
            }
            self.mark_finished(item);
        }
    }
}

fn harness_failure(error: &ToolError, idle_timeout: Duration) -> String {
    match &error.kind {
        process::ToolErrorKind::TimedOut { .. } => format!(
            "the harness stopped reporting for {} s while this ran (the kernel did not finish) and was stopped; raise the limit with --timeout",
            idle_timeout.as_secs()
        ),
        process::ToolErrorKind::Failed { status } => {
            let tail = error.output_tail(8);
            format!(
                "the harness ended ({status}) before reporting on this run{}",
                match tail.trim().is_empty() {
                    true => String::new(),
                    false => format!(": {tail}"),
                }
            )
        }
        _ => format!("the harness could not run: {error}"),
    }
}
