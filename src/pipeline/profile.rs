//! The profile stage: one ncu process runs the harness again over every
//! item that ran cleanly and was not reused, profiling exactly one launch
//! of each (the harness wraps it in cuProfilerStart/Stop); the report is
//! exported and each launch's counters and source lines become its run's
//! profile. A failing or missing ncu costs the profiles, never the timings.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Instant;

use super::output::{write_atomic, write_json};
use super::plan::ordered_items;
use super::progress::progress;
use super::time::harness_job;
use super::{Folders, ReportRequest};
use crate::config::Plan;
use crate::error::Error;
use crate::harness::{Event, Item, Job, Mode};
use crate::model::notice::Notice;
use crate::model::results::{Profile, ProfilerRun, Results, RunResult};
use crate::ncu::export::{ExportError, SourcePages, export};
use crate::ncu::{ingest, run as ncu_run};
use crate::process::{self, Invocation};

/// The ncu report of the harness's launches, in the output folder.
const PROFILE_BASE: &str = "profile";

/// The ncu binary and the version it reports.
pub(super) struct Ncu {
    pub path: PathBuf,
    pub version: String,
}

/// Finds ncu once: the cache key, the harness profile and the command
/// variants all need it. Not looked for under `--no-profile`.
pub(super) fn find_ncu(request: &ReportRequest) -> Result<Ncu, String> {
    if request.skip_profile {
        return Err("--no-profile".to_string());
    }
    let path = ncu_run::locate(request.ncu.as_deref())?;
    let version = process::run(&ncu_run::version_invocation(&path))
        .ok()
        .and_then(|o| ncu_run::parse_version(&o.stdout))
        .unwrap_or_else(|| "unknown".into());
    Ok(Ncu { path, version })
}

/// One launch the harness profiled: ncu's result of index `sequence`
/// belongs to `item`, and its kernel must be `kernel`.
struct ProfiledLaunch {
    sequence: u32,
    item: Item,
    kernel: String,
}

/// Profiles every item of the timing job that ran cleanly and was not
/// reused, once each, in one ncu process.
pub(super) fn run(
    harness: &Invocation,
    time_job: &Job,
    reused: &BTreeSet<Item>,
    ncu: &Result<Ncu, String>,
    request: &ReportRequest,
    folders: &Folders,
    results: &mut Results,
) -> Result<(), Error> {
    let Ncu { path: ncu, version } = match ncu {
        Ok(found) => found,
        Err(reason) => {
            results.notices.push(Notice::ProfilingSkipped {
                reason: reason.clone(),
            });
            return Ok(());
        }
    };
    let items = profiled_items(time_job, reused, results);
    if items.is_empty() {
        if reused.is_empty() {
            results.notices.push(Notice::NothingToProfile);
        }
        return Ok(());
    }
    let plan = &time_job.plan;
    let items_count = items.len();
    let job_path = folders.work.join("profile-job.json");
    write_json(
        &job_path,
        &Job {
            mode: Mode::Profile,
            plan: plan.clone(),
            modules: time_job.modules.clone(),
            items,
        },
    )?;
    let ncu_request = ncu_run::ProfileRequest {
        selection: ncu_run::Selection::ProfilerRanges,
        clock_control: plan.profile.clock_control.as_ncu_value().to_string(),
        report_base: folders.out.join(PROFILE_BASE),
        log_file: folders.work.join("ncu.log"),
    };
    let invocation =
        ncu_run::profile_invocation(ncu, &ncu_request, &harness_job(harness, &job_path));
    let started = Instant::now();
    let (outcome, mut profiled, events_log) = run_ncu(&invocation, request, items_count);
    let seconds = started.elapsed().as_secs_f64();
    write_atomic(
        &folders.work.join("profile-events.jsonl"),
        events_log.as_bytes(),
    )?;
    let log = std::fs::read_to_string(&ncu_request.log_file).unwrap_or_default();
    if let Err(error) = &outcome {
        results.notices.push(Notice::ProfilingFailed {
            reason: ncu_run::explain_failure(&log, error),
        });
    }
    results.profiler = Some(ProfilerRun {
        ncu_version: version.clone(),
        command: invocation.display(),
        clock_control: ncu_request.clock_control.clone(),
        report_file: format!("{PROFILE_BASE}.ncu-rep"),
        passes_per_launch: None,
        seconds,
    });
    let report_file = ncu_run::report_path(&ncu_request);
    if !report_file.is_file() || profiled.is_empty() {
        if outcome.is_ok() {
            results.notices.push(Notice::NoReport {
                advice: ncu_run::diagnose(&log),
            });
        }
        return Ok(());
    }
    profiled.sort_by_key(|launch| launch.sequence);
    ingest_report(ncu, &report_file, folders, plan, &profiled, results)
}

/// Records one profiled launch: a single launch is the run's profile; a
/// sequence keeps every step's in order, and its longest as the profile the
/// report explains.
fn record_launch(run: &mut RunResult, profile: Profile, sequence: bool) {
    if !sequence {
        run.profile = Some(profile);
        return;
    }
    let duration = |p: &Profile| p.metric(crate::model::metrics::DURATION).unwrap_or(0.0);
    if run
        .profile
        .as_ref()
        .is_none_or(|longest| duration(&profile) > duration(longest))
    {
        run.profile = Some(profile.clone());
    }
    run.steps.push(profile);
}

/// Items to profile: those of the timing job that ran cleanly and were not
/// reused. Library calls launch kernels gpuprof does not choose; they are
/// timed and verified but not profiled.
fn profiled_items(time_job: &Job, reused: &BTreeSet<Item>, results: &Results) -> Vec<Item> {
    let plan = &time_job.plan;
    ordered_items(plan, &time_job.modules)
        .into_iter()
        .filter(|item| {
            plan.variant(&item.variant)
                .is_some_and(|v| v.kernel().is_some())
        })
        .filter(|item| !reused.contains(item))
        .filter(|item| {
            results
                .variant(&item.variant)
                .and_then(|v| v.run(&item.size))
                .is_some_and(|run| run.failure.is_none())
        })
        .collect()
}

/// Runs ncu over the harness, with a bar over the `items` to profile that
/// moves as each one's first launch is profiled: its outcome, the launches
/// the harness profiled and the log of the harness's events.
fn run_ncu(
    invocation: &Invocation,
    request: &ReportRequest,
    items: usize,
) -> (
    Result<process::ToolOutput, process::ToolError>,
    Vec<ProfiledLaunch>,
    String,
) {
    let bar = progress(items as u64, "profile");
    let mut profiled = Vec::new();
    let mut events_log = String::new();
    let outcome = process::run_reporting(invocation, Some(request.idle_timeout * 4), |line| {
        events_log.push_str(line);
        events_log.push('\n');
        if let Ok(Event::Profiled {
            item,
            sequence,
            kernel,
        }) = Event::from_line(line)
        {
            bar.set_message(format!("{} {}", item.variant, item.size));
            if !profiled.iter().any(|p: &ProfiledLaunch| p.item == item) {
                bar.inc(1);
            }
            profiled.push(ProfiledLaunch {
                sequence,
                item,
                kernel,
            });
        }
    });
    bar.finish_and_clear();
    (outcome, profiled, events_log)
}

/// Exports the report and gives each profiled item its launch's profile;
/// the exports are kept in the work folder.
fn ingest_report(
    ncu: &std::path::Path,
    report_file: &std::path::Path,
    folders: &Folders,
    plan: &Plan,
    profiled: &[ProfiledLaunch],
    results: &mut Results,
) -> Result<(), Error> {
    let exported = match export(ncu, report_file, SourcePages::All) {
        Ok(exported) => exported,
        Err(error) => {
            if let ExportError::Unreadable { csv, .. } = &error {
                write_atomic(&folders.work.join("raw.csv"), csv.as_bytes())?;
            }
            results.notices.push(Notice::ExportFailed {
                reason: error.to_string(),
            });
            return Ok(());
        }
    };
    write_atomic(&folders.work.join("raw.csv"), exported.raw_csv.as_bytes())?;
    for (index, page) in &exported.sources {
        if let Some(csv) = &page.csv {
            write_atomic(
                &folders.work.join(format!("source-{index}.csv")),
                csv.as_bytes(),
            )?;
        }
    }
    let expected: Vec<String> = profiled.iter().map(|l| l.kernel.clone()).collect();
    if let Err(reason) = ingest::check_order(&exported.launches, &expected) {
        results.notices.push(Notice::LaunchMismatch { reason });
        return Ok(());
    }
    if let Some(profiler) = &mut results.profiler {
        profiler.passes_per_launch = exported
            .launches
            .first()
            .and_then(|l| l.number(crate::model::metrics::REPLAY_PASSES));
    }
    for ((launch, profiled), (_, page)) in
        exported.launches.iter().zip(profiled).zip(exported.sources)
    {
        let Some(kernel) = plan
            .variant(&profiled.item.variant)
            .and_then(|v| v.kernel())
        else {
            continue;
        };
        let profile = ingest::profile_from_launch(launch, page.files, &kernel.path);
        if let Some(run) = results.run_mut(&profiled.item.variant, &profiled.item.size) {
            record_launch(run, profile, !kernel.sequence.is_empty());
        }
    }
    Ok(())
}
