//! The profile stage: ncu runs the harness again over every item that ran
//! cleanly and was not reused, profiling exactly one launch of each (the
//! harness wraps it in cuProfilerStart/Stop); the report is exported and
//! each launch's counters and source lines become its run's profile. The
//! per-line source counters, which cost an instrumented run of the kernel,
//! are taken at one size (chosen from the timed durations, or by
//! `[profile] lines_at`), in an ncu process of their own, whose source
//! pages are exported while a second ncu process profiles the other sizes
//! without them; ncu prints each run's raw page into its log, so nothing
//! is left to export once the last run ends. Both ncu processes are
//! started with the run ([`start_early`]), while the device is probed:
//! their harnesses wait for their jobs, opening their CUDA contexts (where
//! the device lets processes share it) once the probe is done and before
//! the timing harness places anything on the GPU
//! ([`EarlyStart::open_gpu`], [`EarlyStart::settle`]), so that ncu's
//! start-up and CUDA's under it are spent before the profile stage.
//! Of a sweep's configurations only those
//! `[profile] sweeps` names are profiled (by default the fastest few and
//! the slowest at each size). A failing or missing ncu costs the profiles,
//! never the timings.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

use indicatif::ProgressBar;

use super::joined;
use super::output::{write_atomic, write_json};
use super::plan::ordered_items;
use super::progress::{progress_later, show};
use super::time::harness_job;
use super::{Folders, ReportRequest};
use crate::analysis::sweeps;
use crate::config::Plan;
use crate::config::plan::{LinesAt, SweepProfiling};
use crate::error::Error;
use crate::harness::{Event, Item, Job, Mode};
use crate::model::device::DriverFacts;
use crate::model::notice::Notice;
use crate::model::results::{LinesRun, Profile, ProfilerRun, Results, RunResult};
use crate::model::timing;
use crate::ncu::export::{Export, ExportError, SourcePages, export};
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
/// reused, once each: with the per-line source counters at every size in
/// one ncu process, or, when they are taken at one size only, the other
/// sizes without them in one ncu process and that size with them in a
/// second. An ncu process `early` started for a pass gets that pass's job;
/// those left over are ended.
#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    harness: &Invocation,
    time_job: &Job,
    reused: &BTreeSet<Item>,
    ncu: &Result<Ncu, String>,
    request: &ReportRequest,
    folders: &Folders,
    mut early: EarlyStart,
    results: &mut Results,
) -> Result<(), Error> {
    let ncu = match ncu {
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
    let lines_at = lines_size(plan, &items, results);
    let (line_items, plain_items): (Vec<Item>, Vec<Item>) = items
        .into_iter()
        .partition(|item| lines_at.as_ref().is_none_or(|size| item.size == *size));
    let bar = early.show_progress((line_items.len() + plain_items.len()) as u64);
    // The lines run (when they are taken at one size) goes first, so that
    // its source pages are exported while the other run profiles; that
    // one's raw page is printed into ncu's log, so nothing is left to
    // export after it.
    let mut passes = Vec::new();
    if !line_items.is_empty() {
        passes.push(Pass {
            base: match lines_at {
                Some(_) => LINES_BASE,
                None => PROFILE_BASE,
            },
            lines: Lines::Exported,
            items: line_items,
        });
    }
    if let (Some(size), false) = (&lines_at, plain_items.is_empty()) {
        passes.push(Pass {
            base: PROFILE_BASE,
            lines: Lines::TakenAt(size),
            items: plain_items,
        });
    }
    early.keep_for(&passes);
    let jobs: Vec<Job> = passes.iter().map(|pass| pass_job(time_job, pass)).collect();
    let mut started: Vec<Option<EarlyNcu>> = passes.iter().map(|pass| early.take(pass)).collect();
    // Each pass's report is exported on a thread while the next pass's ncu
    // runs; what every pass gave is recorded, the one without the per-line
    // counters first (the profiler run, the lines run its second), even
    // when a later pass could not run.
    std::thread::scope(|scope| {
        let mut exporting = Vec::new();
        let mut failure = None;
        for (index, pass) in passes.iter().enumerate() {
            let own = started[index].take();
            // The next pass's harness, already holding its context, gets its
            // job as soon as this one's launches are over.
            let next = match started.get_mut(index + 1) {
                Some(Some(next)) if own.is_some() && next.holds_context => {
                    Some((next, &jobs[index + 1]))
                }
                _ => None,
            };
            match profile_pass(
                harness,
                ncu,
                request,
                folders,
                pass,
                &jobs[index],
                (own, next),
                &bar,
            ) {
                Ok(done) => exporting.push(scope.spawn(move || ExportedPass {
                    exported: export_pass(&ncu.path, pass, &done),
                    pass,
                    done,
                })),
                Err(error) => {
                    failure = Some(error);
                    break;
                }
            }
        }
        let mut finished: Vec<ExportedPass> = exporting.into_iter().map(joined).collect();
        finished.sort_by_key(|pass| pass.pass.base == LINES_BASE);
        let first_known = finished.iter().map(|pass| pass.done.known).min();
        let last_ended = finished.iter().map(|pass| pass.done.ended).max();
        for pass in finished {
            record_pass(ncu, folders, plan, lines_at.as_deref(), pass, results)?;
        }
        // Both runs together, once where they overlapped.
        if let (Some(profiler), Some(first), Some(last)) =
            (results.profiler.as_mut(), first_known, last_ended)
        {
            profiler.seconds = (last - first).as_secs_f64();
        }
        failure.map_or(Ok(()), Err)
    })?;
    bar.finish_and_clear();
    Ok(())
}

/// A report's export, or why there is none.
type Exported = Result<Export, ExportError>;

/// A pass whose ncu run is over: what it left and, when it left a report,
/// the report's export.
struct ExportedPass<'a> {
    pass: &'a Pass<'a>,
    done: PassOutcome,
    exported: Option<Exported>,
}

/// Exports the report `done` left, when there is one with launches the
/// harness profiled: every launch's source page too when the pass took the
/// per-line counters.
fn export_pass(ncu: &Path, pass: &Pass, done: &PassOutcome) -> Option<Exported> {
    if !done.report_file.is_file() || done.profiled.is_empty() {
        return None;
    }
    let pages = match pass.lines {
        Lines::Exported => SourcePages::All {
            expected: done.profiled.len(),
        },
        Lines::TakenAt(_) => SourcePages::Where(&|_| false),
    };
    Some(export(ncu, &done.report_file, pages, done.raw_page.clone()))
}

/// The ncu report of the launches that carry the per-line counters, when
/// they were taken at one size in a run of their own.
const LINES_BASE: &str = "profile-lines";

/// Per-line counters run an instrumented copy of the kernel: about this
/// many times its duration (a 142 ms matmul launch took 7.6 s more with
/// the SourceCounters section on the H200).
const LINES_SLOWDOWN: f64 = 50.0;

/// What the per-line counters of one size may cost, per variant: the
/// largest size within it is chosen. Access patterns do not depend on the
/// size: a tenth of a second of instrumented runs a variant keeps them off
/// a long kernel's larger sizes (matmul's N=2048 costs 0.22 s a variant by
/// the recorded medians, N=1024 0.03 s).
const LINES_SECONDS_PER_VARIANT: f64 = 0.1;

/// The size at which the per-line counters are taken, or `None` for every
/// size: as `[profile] lines_at` says, or (auto) the largest size whose
/// lines cost at most [`LINES_SECONDS_PER_VARIANT`] a variant by the timed
/// durations, else the smallest. Even where every size's lines are cheap
/// they are taken at one: besides the instrumented runs, the section costs
/// each launch about a quarter of a second of replays (0.25 s a launch on
/// the transpose launches on the H100), more than the second ncu process
/// costs once its start-up is spent early.
fn lines_size(plan: &Plan, items: &[Item], results: &Results) -> Option<String> {
    let sizes: Vec<&str> = plan.suite.sizes.iter().map(|s| s.label.as_str()).collect();
    let profiled_sizes: BTreeSet<&str> = items.iter().map(|i| i.size.as_str()).collect();
    if profiled_sizes.len() < 2 {
        return None;
    }
    match &plan.profile.lines_at {
        LinesAt::Every => return None,
        LinesAt::Size(label) => return Some(label.clone()),
        LinesAt::Auto => {}
    }
    // Seconds of instrumented runs at each size, from the timed medians,
    // and the variants profiled there.
    let costs: Vec<(&str, f64, usize)> = sizes
        .iter()
        .map(|&size| {
            let at_size: Vec<&Item> = items.iter().filter(|i| i.size == size).collect();
            let seconds = at_size
                .iter()
                .filter_map(|item| results.variant(&item.variant)?.run(size))
                .filter_map(|run| timing::median(&run.samples_ms))
                .map(|median_ms| median_ms / 1e3 * LINES_SLOWDOWN)
                .sum();
            (size, seconds, at_size.len())
        })
        .collect();
    let within = costs.iter().rev().find(|(_, seconds, variants)| {
        *variants > 0 && *seconds <= LINES_SECONDS_PER_VARIANT * *variants as f64
    });
    within
        .map(|(size, ..)| *size)
        .or_else(|| {
            sizes
                .iter()
                .copied()
                .find(|size| profiled_sizes.contains(size))
        })
        .map(str::to_string)
}

/// One ncu process over some of the items: its report's base name and
/// whether it takes the per-line counters or they are taken at another
/// size.
struct Pass<'a> {
    base: &'static str,
    lines: Lines<'a>,
    items: Vec<Item>,
}

/// What one ncu process left: its outcome, command, time and log, and the
/// launches the harness profiled in it.
struct PassOutcome {
    outcome: Result<process::ToolOutput, process::ToolError>,
    command: String,
    /// When the job was written, and when ncu ended.
    known: Instant,
    ended: Instant,
    /// How long ncu had been up before the job was written.
    started_early_s: Option<f64>,
    /// ncu's own messages (its log less the raw page).
    log: String,
    /// The raw page ncu printed into its log.
    raw_page: Option<String>,
    report_file: PathBuf,
    profiled: Vec<ProfiledLaunch>,
}

impl PassOutcome {
    /// From the job written to ncu's end.
    fn seconds(&self) -> f64 {
        (self.ended - self.known).as_secs_f64()
    }
}

/// The ncu command of one pass over the harness and the files it uses.
struct PassCommand {
    invocation: Invocation,
    /// The command as the report shows it: without `--wait-for`, so that
    /// it runs as it is once the job is written.
    shown: String,
    job_path: PathBuf,
    /// The file that lets a waiting harness open the GPU (`--open-on`).
    open_gate: Option<PathBuf>,
    log_file: PathBuf,
    report_file: PathBuf,
}

/// How the harness of a pass meets its job.
enum Waits<'a> {
    /// The job is written before ncu starts.
    No,
    /// It waits for its job (while this process lives), opening the GPU
    /// meanwhile once its gate file is written, then writing `then_open`
    /// (the next waiting harness's gate) when there is one.
    Gated { then_open: Option<&'a Path> },
}

/// The gate file that lets the waiting harness of the pass writing `base`
/// open the GPU.
fn gate_path(folders: &Folders, base: &str) -> PathBuf {
    folders.work.join(format!("{base}-open"))
}

/// The ncu command of the pass writing `base`, its harness meeting its
/// job as `waits` says; with the per-line counters, gpuprof's source
/// section is written into the work folder for it.
fn pass_command(
    harness: &Invocation,
    ncu: &Ncu,
    plan: &Plan,
    folders: &Folders,
    base: &str,
    source_counters: bool,
    waits: Waits,
) -> Result<PassCommand, Error> {
    let job_path = folders.work.join(format!("{base}-job.json"));
    let source_section = source_counters.then(|| ncu_run::source_section_folder(&folders.work));
    if let Some(folder) = &source_section {
        ncu_run::write_source_section(folder).map_err(|e| Error::output(folder, e))?;
    }
    let ncu_request = ncu_run::ProfileRequest {
        selection: ncu_run::Selection::ProfilerRanges,
        clock_control: plan.profile.clock_control.as_ncu_value().to_string(),
        report_base: folders.out.join(base),
        log_file: folders.work.join(format!("{base}-ncu.log")),
        source_section,
        raw_page_in_log: true,
    };
    let target = harness_job(harness, &job_path);
    let shown = ncu_run::profile_invocation(&ncu.path, &ncu_request, &target).display();
    let (target, open_gate) = match waits {
        Waits::No => (target, None),
        Waits::Gated { then_open } => {
            let gate = gate_path(folders, base);
            let target = target
                .arg("--wait-for")
                .arg(std::process::id().to_string())
                .arg("--open-on")
                .arg(gate.as_os_str());
            let target = match then_open {
                Some(next) => target.arg("--then-open").arg(next.as_os_str()),
                None => target,
            };
            (target, Some(gate))
        }
    };
    Ok(PassCommand {
        invocation: ncu_run::profile_invocation(&ncu.path, &ncu_request, &target),
        shown,
        job_path,
        open_gate,
        log_file: ncu_request.log_file.clone(),
        report_file: ncu_run::report_path(&ncu_request),
    })
}

/// The harness job of `pass`: its items, launched once each for ncu.
fn pass_job(time_job: &Job, pass: &Pass) -> Job {
    Job {
        mode: Mode::Profile,
        plan: time_job.plan.clone(),
        modules: time_job.modules.clone(),
        items: pass.items.clone(),
        failed: Vec::new(),
    }
}

/// The ncu process started early for a pass, and the next pass's with its
/// job when that one may be handed its job while this pass's ncu ends.
type EarlyPair<'a> = (Option<EarlyNcu>, Option<(&'a mut EarlyNcu, &'a Job)>);

/// Runs ncu over the harness for `pass`'s `job`, in the ncu process
/// started early for it when there is one. Once that harness has run every
/// item, the next pass's harness (which already holds its context) is
/// given its job, so that it prepares its launches while this ncu writes
/// its report and ends: none of this pass's launches is left to profile,
/// so nothing of the next pass's runs beside them.
#[allow(clippy::too_many_arguments)]
fn profile_pass(
    harness: &Invocation,
    ncu: &Ncu,
    request: &ReportRequest,
    folders: &Folders,
    pass: &Pass,
    job: &Job,
    (early, next): EarlyPair,
    bar: &ProgressBar,
) -> Result<PassOutcome, Error> {
    let (command, run, known, started_early_s) = match early {
        Some(mut early) => {
            early.hand(job)?;
            if let Some((next, next_job)) = next {
                early.await_finished();
                // Where the job cannot be written now, its own pass writes
                // it again and says why not.
                let _ = next.hand(next_job);
            }
            let (command, run, known, spawned) = early.finish(job)?;
            (command, run, known, Some((known - spawned).as_secs_f64()))
        }
        None => {
            let command = pass_command(
                harness,
                ncu,
                &job.plan,
                folders,
                pass.base,
                matches!(pass.lines, Lines::Exported),
                Waits::No,
            )?;
            write_json(&command.job_path, job)?;
            let known = Instant::now();
            let run = run_ncu(&command.invocation, request.idle_timeout * 4, bar, None);
            (command, run, known, None)
        }
    };
    write_atomic(
        &folders.work.join(format!("{}-events.jsonl", pass.base)),
        run.events_log.as_bytes(),
    )?;
    let mut profiled = run.profiled;
    profiled.sort_by_key(|launch| launch.sequence);
    let (log, raw_page) =
        ncu_run::split_log(&std::fs::read_to_string(&command.log_file).unwrap_or_default());
    Ok(PassOutcome {
        outcome: run.outcome,
        command: command.shown,
        known,
        ended: run.ended,
        started_early_s,
        log,
        raw_page,
        report_file: command.report_file,
        profiled,
    })
}

/// An ncu process started before its launches were known, on a thread
/// that follows it: its harness waits for the job file, touching the GPU
/// only once its gate file is written. Dropped unused, it is given an
/// empty job (the harness then ends, closing any context it opened, and
/// ncu with it) and waited for.
pub(super) struct EarlyNcu {
    base: &'static str,
    source_counters: bool,
    command: Option<PassCommand>,
    plan: Plan,
    spawned: Instant,
    thread: Option<std::thread::JoinHandle<NcuRun>>,
    /// What its harness tells before its run ends.
    news: Receiver<News>,
    /// Whether the stage before the timings is to wait for its harness to
    /// open the GPU (its gate was written and no answer came yet).
    awaiting_open: bool,
    /// Whether its harness opened its CUDA context while waiting.
    holds_context: bool,
    /// When its job was written.
    known: Option<Instant>,
}

/// What an early ncu's harness tells the stage before its run ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum News {
    /// It opened its CUDA context while waiting for its job, or could not.
    Opened { holds_context: bool },
    /// It has run every item of its job: its profiled launches are over.
    Finished,
}

impl EarlyNcu {
    /// Whether this process is the one `pass` needs.
    fn runs(&self, pass: &Pass) -> bool {
        self.base == pass.base && self.source_counters == matches!(pass.lines, Lines::Exported)
    }

    /// Gives the harness `job`, once: when it was written.
    fn hand(&mut self, job: &Job) -> Result<Instant, Error> {
        if let Some(known) = self.known {
            return Ok(known);
        }
        let command = self
            .command
            .as_ref()
            .expect("an early ncu is handed a job before it ends");
        write_json(&command.job_path, job)?;
        let known = Instant::now();
        self.known = Some(known);
        Ok(known)
    }

    /// Waits until the harness has run every item of its job, or ncu has
    /// ended.
    fn await_finished(&self) {
        while let Ok(news) = self.news.recv() {
            if news == News::Finished {
                return;
            }
        }
    }

    /// Gives the harness `job` (unless it has it) and waits for ncu to end:
    /// its command, its run, when the job was written and when ncu was
    /// started.
    fn finish(mut self, job: &Job) -> Result<(PassCommand, NcuRun, Instant, Instant), Error> {
        let known = self.hand(job)?;
        let command = self.command.take().expect("an early ncu finishes once");
        let thread = self.thread.take().expect("an early ncu finishes once");
        Ok((command, joined_thread(thread), known, self.spawned))
    }

    /// Gives the harness an empty job: its thread, to be waited for, where
    /// the job could be written. Where it could not, the harness ends with
    /// this process (it waits only while this process lives): the thread
    /// is left to end with it rather than waited for.
    fn end(&mut self) -> Option<std::thread::JoinHandle<NcuRun>> {
        let (Some(command), Some(thread)) = (self.command.take(), self.thread.take()) else {
            return None;
        };
        // Handed its job already (the pass before could not end well): it
        // runs it.
        if self.known.is_some() {
            return Some(thread);
        }
        let empty = Job {
            mode: Mode::Profile,
            plan: self.plan.clone(),
            modules: Default::default(),
            items: Vec::new(),
            failed: Vec::new(),
        };
        write_json(&command.job_path, &empty)
            .is_ok()
            .then_some(thread)
    }
}

impl Drop for EarlyNcu {
    fn drop(&mut self) {
        if let Some(thread) = self.end() {
            let _ = thread.join();
        }
    }
}

/// A finished thread's value, its panic resumed.
fn joined_thread<T>(thread: std::thread::JoinHandle<T>) -> T {
    thread
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// The ncu processes started with the run, one per pass the plan is
/// expected to need, and the bar their launches move (shown once the
/// profile stage begins).
pub(super) struct EarlyStart {
    started: Vec<EarlyNcu>,
    /// Those dismissed before they touched the GPU, ending meanwhile;
    /// waited for when this is dropped.
    leaving: Vec<std::thread::JoinHandle<NcuRun>>,
    bar: ProgressBar,
}

impl Drop for EarlyStart {
    fn drop(&mut self) {
        for thread in self.leaving.drain(..) {
            let _ = thread.join();
        }
    }
}

/// How long the timing stage waits, at most, for the ncu processes' harnesses
/// to open the GPU (ncu's start-up takes about a second).
const OPEN_WAIT: Duration = Duration::from_secs(30);

impl EarlyStart {
    /// No ncu started early (profiling skipped, or nothing to profile).
    pub(super) fn none() -> EarlyStart {
        EarlyStart {
            started: Vec::new(),
            leaving: Vec::new(),
            bar: progress_later("profile"),
        }
    }

    /// The ncu process started for `pass`, when one was.
    fn take(&mut self, pass: &Pass) -> Option<EarlyNcu> {
        let index = self.started.iter().position(|e| e.runs(pass))?;
        Some(self.started.remove(index))
    }

    /// Ends, unused, the ncu processes none of `passes` can use, before
    /// any pass writes its job (one of them may wait for the same file).
    fn keep_for(&mut self, passes: &[Pass]) {
        self.started
            .retain(|early| passes.iter().any(|pass| early.runs(pass)));
    }

    /// Ends them all before their harnesses touch the GPU (nothing is to
    /// be profiled), not waiting for them until this is dropped.
    pub(super) fn dismiss(&mut self) {
        for mut early in self.started.drain(..) {
            self.leaving.extend(early.end());
        }
    }

    /// Lets the waiting harnesses open the GPU, once the device probe has
    /// ended, when the device lets several processes hold a context (its
    /// compute mode is the default); else they open it when their jobs
    /// come. Only the first gate is written here: each harness writes the
    /// next one's once it has opened the GPU ([`settle`](Self::settle)
    /// writes any still missing, in order).
    pub(super) fn open_gpu(&mut self, facts: &DriverFacts) {
        let mut first = true;
        for early in &mut self.started {
            let gate = early.command.as_ref().and_then(|c| c.open_gate.as_ref());
            let opens = facts.processes_may_share
                && gate.is_some_and(|gate| !first || std::fs::write(gate, b"").is_ok());
            early.awaiting_open = opens;
            first &= !opens;
        }
    }

    /// Before the timing stage: ends the processes the items to profile
    /// (`time_job`'s kernels less the `reused`) turn out not to need, and
    /// waits (at most [`OPEN_WAIT`]) until the others' harnesses have opened
    /// the GPU, so that nothing of theirs is placed on it while the kernels
    /// are timed: their contexts come before the timing harness's buffers,
    /// every run alike. Says whether it waited for any.
    pub(super) fn settle(&mut self, time_job: &Job, reused: &BTreeSet<Item>) -> bool {
        let sizes: BTreeSet<String> = kernel_items(time_job, reused)
            .map(|item| item.size)
            .collect();
        let expected = expected_passes(&time_job.plan, sizes.len());
        self.started
            .retain(|early| expected.contains(&(early.base, early.source_counters)));
        let deadline = Instant::now() + OPEN_WAIT;
        let mut waited = false;
        for early in self.started.iter_mut().filter(|early| early.awaiting_open) {
            waited = true;
            early.awaiting_open = false;
            // The harness before it has opened the GPU (or gave up) and
            // should have written this gate; one that ended first did not.
            let gate = early.command.as_ref().and_then(|c| c.open_gate.as_ref());
            if gate.is_some_and(|gate| !gate.exists() && std::fs::write(gate, b"").is_err()) {
                continue;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if let Ok(News::Opened { holds_context }) = early.news.recv_timeout(left) {
                early.holds_context = holds_context;
            }
        }
        waited
    }

    /// The stage's bar, shown, over `length` items.
    fn show_progress(&self, length: u64) -> ProgressBar {
        show(&self.bar, length);
        self.bar.clone()
    }
}

/// The ncu processes (report base, with the per-line counters) the profile
/// stage needs for kernels at `sizes` sizes: one with the per-line counters
/// when they are of one size or `[profile] lines_at = "every"`, else one
/// without them and one with them (taken at one size).
fn expected_passes(plan: &Plan, sizes: usize) -> &'static [(&'static str, bool)] {
    match sizes {
        0 => &[],
        1 => &[(PROFILE_BASE, true)],
        _ if matches!(plan.profile.lines_at, LinesAt::Every) => &[(PROFILE_BASE, true)],
        _ => &[(PROFILE_BASE, false), (LINES_BASE, true)],
    }
}

/// Starts, with the run, the ncu processes the profile stage is expected
/// to need for the plan's kernels at every size ([`expected_passes`]); a
/// process the stage turns out not to need is ended unused. Their
/// harnesses wait for their jobs, and for a gate before they open the GPU.
pub(super) fn start_early(
    harness: &Invocation,
    plan: &Plan,
    ncu: &Result<Ncu, String>,
    request: &ReportRequest,
    folders: &Folders,
) -> EarlyStart {
    let mut early = EarlyStart::none();
    let Ok(ncu) = ncu else {
        return early;
    };
    let kernels = plan.variants.iter().any(|v| v.kernel().is_some());
    let sizes = if kernels { plan.suite.sizes.len() } else { 0 };
    let passes = expected_passes(plan, sizes);
    for (at, &(base, source_counters)) in passes.iter().enumerate() {
        // Each harness opens the GPU once the one before it has: two
        // contexts made at once land differently from run to run, and so
        // do the timed buffers placed after them (a naive transpose's cold
        // median moved 6% between reports).
        let next_gate = passes.get(at + 1).map(|(next, _)| gate_path(folders, next));
        let waits = Waits::Gated {
            then_open: next_gate.as_deref(),
        };
        // Where its files cannot be written, the pass starts when its
        // launches are known, and says why it cannot.
        let Ok(command) = pass_command(harness, ncu, plan, folders, base, source_counters, waits)
        else {
            continue;
        };
        // A job or a gate left by an earlier run would start the harness
        // at once.
        let stale = [Some(&command.job_path), command.open_gate.as_ref()];
        if stale.into_iter().flatten().any(|file| {
            std::fs::remove_file(file).is_err_and(|e| e.kind() != std::io::ErrorKind::NotFound)
        }) {
            continue;
        }
        let (invocation, bar) = (command.invocation.clone(), early.bar.clone());
        let idle_timeout = request.idle_timeout * 4;
        let (tell, news) = channel();
        early.started.push(EarlyNcu {
            base,
            source_counters,
            command: Some(command),
            plan: plan.clone(),
            spawned: Instant::now(),
            thread: Some(std::thread::spawn(move || {
                run_ncu(&invocation, idle_timeout, &bar, Some(tell))
            })),
            news,
            awaiting_open: true,
            holds_context: false,
            known: None,
        });
    }
    early
}

/// Records what a pass gave: the profiler run in results.json (the second
/// pass of a one-size lines run as its `lines_run`), its notices, and each
/// launch's profile from its report's export.
fn record_pass(
    ncu: &Ncu,
    folders: &Folders,
    plan: &Plan,
    lines_at: Option<&str>,
    finished: ExportedPass,
    results: &mut Results,
) -> Result<(), Error> {
    let ExportedPass {
        pass,
        done,
        exported,
    } = finished;
    if let Err(error) = &done.outcome {
        results.notices.push(Notice::ProfilingFailed {
            reason: ncu_run::explain_failure(&done.log, error),
        });
    }
    let report_file = format!("{}.ncu-rep", pass.base);
    match &mut results.profiler {
        Some(profiler) if pass.base == LINES_BASE => {
            profiler.lines_run = Some(LinesRun {
                command: done.command.clone(),
                report_file,
                seconds: done.seconds(),
                started_early_s: done.started_early_s,
                passes_per_launch: None,
            });
        }
        profiler => {
            *profiler = Some(ProfilerRun {
                ncu_version: ncu.version.clone(),
                command: done.command.clone(),
                clock_control: plan.profile.clock_control.as_ncu_value().to_string(),
                report_file,
                passes_per_launch: None,
                seconds: done.seconds(),
                started_early_s: done.started_early_s,
                lines_at: lines_at.map(str::to_string),
                lines_run: None,
            })
        }
    }
    let Some(exported) = exported else {
        if done.outcome.is_ok() {
            results.notices.push(Notice::NoReport {
                advice: ncu_run::diagnose(&done.log),
            });
        }
        return Ok(());
    };
    ingest_report(folders, plan, pass, &done.profiled, exported, results)
}

/// Whether a report's launches carry their per-line counters, or they were
/// taken at another size.
#[derive(Clone, Copy)]
enum Lines<'a> {
    Exported,
    TakenAt(&'a str),
}

/// Records one profiled launch: a single launch is the run's profile; a
/// sequence keeps every step's in order, and as the profile the report
/// explains the longest launch of the kernel that takes the most time so
/// far (`results::explained_launch`).
fn record_launch(run: &mut RunResult, profile: Profile, sequence: bool) {
    if !sequence {
        run.profile = Some(profile);
        return;
    }
    if run.profile.is_none() {
        run.profile = Some(profile.clone());
    }
    run.steps.push(profile);
    run.explain_dominant_launch();
}

/// Items to profile: those of the timing job that ran cleanly and were not
/// reused, less the sweep configurations `[profile] sweeps` leaves out.
/// Library calls launch kernels gpuprof does not choose; they are timed
/// and verified but not profiled.
fn profiled_items(time_job: &Job, reused: &BTreeSet<Item>, results: &Results) -> Vec<Item> {
    let left_out = left_out_of_sweeps(&time_job.plan, results);
    kernel_items(time_job, reused)
        .filter(|item| !left_out.contains(item))
        .filter(|item| {
            results
                .variant(&item.variant)
                .and_then(|v| v.run(&item.size))
                .is_some_and(|run| run.failure.is_none())
        })
        .collect()
}

/// The timing job's items of kernels (library calls launch kernels gpuprof
/// does not choose) that were not reused, in order.
fn kernel_items<'a>(
    time_job: &'a Job,
    reused: &'a BTreeSet<Item>,
) -> impl Iterator<Item = Item> + 'a {
    let plan = &time_job.plan;
    ordered_items(plan, &time_job.modules)
        .into_iter()
        .filter(|item| !reused.contains(item))
        .filter(|item| {
            plan.variant(&item.variant)
                .is_some_and(|v| v.kernel().is_some())
        })
}

/// The configurations of each sweep that are not among the fastest `best`
/// or the slowest `worst` of their sweep at their size (none when
/// `[profile] sweeps = "all"`).
fn left_out_of_sweeps(plan: &Plan, results: &Results) -> BTreeSet<Item> {
    let SweepProfiling::Extremes { best, worst } = plan.profile.sweeps else {
        return BTreeSet::new();
    };
    let mut left_out = BTreeSet::new();
    for sweep in &plan.sweeps {
        for size in &plan.suite.sizes {
            let ranked = sweeps::ranked(results, &sweep.group, &size.label);
            let chosen = sweeps::extremes(&ranked, best as usize, worst as usize);
            for variant in sweeps::configurations_of(results, &sweep.group) {
                if !chosen.contains(&variant.name.as_str()) {
                    left_out.insert(Item {
                        variant: variant.name.clone(),
                        size: size.label.clone(),
                    });
                }
            }
        }
    }
    left_out
}

/// What one ncu process over the harness gave: ncu's outcome, the
/// launches the harness profiled, the log of the harness's events, and
/// when ncu ended.
struct NcuRun {
    outcome: Result<process::ToolOutput, process::ToolError>,
    profiled: Vec<ProfiledLaunch>,
    events_log: String,
    ended: Instant,
}

/// Runs ncu over the harness, moving `bar` (over the items to profile) as
/// each one's first launch is profiled, and telling `news` when the
/// harness, waiting for its job, has opened the GPU or failed to, and when
/// it has run every item.
fn run_ncu(
    invocation: &Invocation,
    idle_timeout: Duration,
    bar: &ProgressBar,
    news: Option<Sender<News>>,
) -> NcuRun {
    let mut profiled = Vec::new();
    let mut events_log = String::new();
    let outcome = process::run_reporting(invocation, Some(idle_timeout), |line| {
        events_log.push_str(line);
        events_log.push('\n');
        match Event::from_line(line) {
            Ok(Event::Profiled {
                item,
                sequence,
                kernel,
            }) => {
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
            Ok(event @ (Event::Opened | Event::OpenFailed { .. } | Event::Finished)) => {
                let told = match event {
                    Event::Finished => News::Finished,
                    event => News::Opened {
                        holds_context: event == Event::Opened,
                    },
                };
                if let Some(news) = &news {
                    let _ = news.send(told);
                }
            }
            _ => {}
        }
    });
    NcuRun {
        outcome,
        profiled,
        events_log,
        ended: Instant::now(),
    }
}

/// Gives each profiled item its launch's profile from the report's export;
/// the exports are kept in the work folder, named after the report.
fn ingest_report(
    folders: &Folders,
    plan: &Plan,
    pass: &Pass,
    profiled: &[ProfiledLaunch],
    exported: Exported,
    results: &mut Results,
) -> Result<(), Error> {
    let (base, lines) = (pass.base, pass.lines);
    let raw_csv = folders.work.join(format!("{base}-raw.csv"));
    let exported = match exported {
        Ok(exported) => exported,
        Err(error) => {
            if let ExportError::Unreadable { csv, .. } = &error {
                write_atomic(&raw_csv, csv.as_bytes())?;
            }
            results.notices.push(Notice::ExportFailed {
                reason: error.to_string(),
            });
            return Ok(());
        }
    };
    write_atomic(&raw_csv, exported.raw_csv.as_bytes())?;
    for (index, page) in &exported.sources {
        if let Some(csv) = &page.csv {
            write_atomic(
                &folders.work.join(format!("{base}-source-{index}.csv")),
                csv.as_bytes(),
            )?;
        }
    }
    let expected: Vec<String> = profiled.iter().map(|l| l.kernel.clone()).collect();
    if let Err(reason) = ingest::check_order(&exported.launches, &expected) {
        results.notices.push(Notice::LaunchMismatch { reason });
        return Ok(());
    }
    let passes = exported
        .launches
        .first()
        .and_then(|l| l.number(crate::model::metrics::REPLAY_PASSES));
    if let Some(profiler) = &mut results.profiler {
        match (base == LINES_BASE, &mut profiler.lines_run) {
            (true, Some(lines_run)) => lines_run.passes_per_launch = passes,
            _ => profiler.passes_per_launch = profiler.passes_per_launch.or(passes),
        }
    }
    let mut pages = exported.sources.into_iter();
    for (index, (launch, profiled)) in exported.launches.iter().zip(profiled).enumerate() {
        let Some(kernel) = plan
            .variant(&profiled.item.variant)
            .and_then(|v| v.kernel())
        else {
            continue;
        };
        let source = match lines {
            Lines::TakenAt(size) => Err(format!(
                "the per-line counters were taken at {size} only (access patterns do not depend on the size, and they cost an instrumented run of the kernel)"
            )),
            Lines::Exported => match pages.next() {
                Some((page_index, page)) if page_index == index => page.files,
                _ => Err("ncu's source page of this launch is missing".into()),
            },
        };
        let profile = Profile {
            lines_at: match lines {
                Lines::TakenAt(size) => Some(size.to_string()),
                Lines::Exported => None,
            },
            ..ingest::profile_from_launch(launch, source, &kernel.path)
        };
        if let Some(run) = results.run_mut(&profiled.item.variant, &profiled.item.size) {
            record_launch(run, profile, !kernel.sequence.is_empty());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sequence_keeps_every_launch_and_explains_the_kernel_that_takes_its_time() {
        let recorded = include_str!("../../tests/fixtures/h200-bitonic-sort/results.json");
        let results = crate::model::read_results(recorded).unwrap();
        let mut run = results.variant("bitonic-shared").unwrap().runs[0].clone();
        let launches = std::mem::take(&mut run.steps);
        run.profile = None;
        for launch in launches.iter().cloned() {
            record_launch(&mut run, launch, true);
        }
        assert_eq!(run.steps, launches);
        // The chunk sort (launch 2, 9.18 µs) is the longest launch; the
        // global stage's 15 launches take more time in all, and its
        // longest is launch 19.
        assert_eq!(run.explained_step(), Some(18));
        assert_eq!(run.profile.as_ref(), Some(&launches[18]));
    }

    /// The plan, recorded results and every timed item of a bundled example.
    fn example(name: &str) -> (Plan, Results, Vec<Item>) {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples")
            .join(name);
        let plan = crate::config::load(&root.join("variants.toml")).unwrap();
        let text = std::fs::read_to_string(root.join("results.json")).unwrap();
        let results = crate::model::read_results(&text).unwrap();
        let items = results
            .variants
            .iter()
            .flat_map(|v| {
                v.runs.iter().map(|r| Item {
                    variant: v.name.clone(),
                    size: r.size.clone(),
                })
            })
            .collect();
        (plan, results, items)
    }

    #[test]
    fn lines_are_taken_at_the_largest_size_within_their_cost() {
        // Transpose's instrumented runs cost about 0.1 s in all: cheap at
        // both sizes, so the larger.
        let (plan, results, items) = example("transpose");
        assert_eq!(
            lines_size(&plan, &items, &results).as_deref(),
            Some("N=8192")
        );
        // Matmul's 4096 kernels run for up to 280 ms, about 18 s of
        // instrumented runs (2.2 s at N=2048, 0.3 s at N=1024): the largest
        // size within 0.1 s a variant.
        let (mut plan, results, items) = example("matmul");
        assert_eq!(
            lines_size(&plan, &items, &results).as_deref(),
            Some("N=1024")
        );
        plan.profile.lines_at = LinesAt::Every;
        assert_eq!(lines_size(&plan, &items, &results), None);
        plan.profile.lines_at = LinesAt::Size("N=2048".into());
        assert_eq!(
            lines_size(&plan, &items, &results).as_deref(),
            Some("N=2048")
        );
        // One size left to profile (the others reused): nothing to choose.
        let one: Vec<Item> = items.into_iter().filter(|i| i.size == "N=4096").collect();
        assert_eq!(lines_size(&plan, &one, &results), None);
    }
}
