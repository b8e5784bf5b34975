//! The pipeline: the order of the stages of `gpuprof report` and nothing
//! else. Each stage has a file of its own: `plan` (the results skeleton and
//! the reuse of unchanged runs), `device` (the device's facts), `build`
//! (NVRTC and command variants' build lines), `time` (the harness: verify
//! and time), `profile` (ncu over the harness), `commands` (command
//! variants under ncu), `compare` (`gpuprof compare` over existing ncu
//! data), `shard` (the sizes one `--shard i/n` runs), `merge` (`gpuprof
//! merge`: shards joined into one run), `gpus` (`--gpus`: one shard per
//! GPU, side by side, then merged) and `output` (atomic writes of
//! results.json and the reports).
//! The pipeline keeps going when one variant fails and saves results.json
//! after every stage; it computes no metric and formats no report text.

mod build;
mod commands;
mod compare;
mod device;
mod gpus;
mod merge;
mod output;
mod plan;
mod profile;
mod progress;
mod shard;
mod time;

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::analysis::Analysis;
use crate::analysis::since::{RunChange, since};
use crate::config;
use crate::error::Error;
use crate::model::notice::Notice;
use crate::model::read_results;
use crate::model::results::Results;
use crate::model::shard::Shard;
use crate::process;
use crate::render;

pub use compare::{CompareRequest, compare};
pub use gpus::{GpuChoice, report_on_gpus, split_list};
pub use merge::{MergeRequest, merge};
pub use output::write_atomic;
pub use shard::{ShardSpec, balance, estimated_costs};

/// What `gpuprof report` was asked to do.
#[derive(Debug, Clone)]
pub struct ReportRequest {
    pub config: PathBuf,
    pub out_dir: Option<PathBuf>,
    /// An explicit ncu binary (else PATH and the usual folders).
    pub ncu: Option<PathBuf>,
    /// Skip profiling (time and verify only).
    pub skip_profile: bool,
    /// A harness that prints nothing for this long is stopped.
    pub idle_timeout: Duration,
    /// The command line as typed, recorded in the results.
    pub command_line: String,
    /// Ignore the previous results.json: run everything again.
    pub force: bool,
    /// Run only this shard's share of the sizes.
    pub shard: Option<ShardSpec>,
    /// The results.json whose timings balance the shards (else equal
    /// weights).
    pub balance_from: Option<PathBuf>,
}

/// What `gpuprof render` was asked to do.
#[derive(Debug, Clone)]
pub struct RenderRequest {
    pub results: PathBuf,
    pub out_dir: Option<PathBuf>,
}

/// The files written and what they say.
#[derive(Debug)]
pub struct Outcome {
    pub out_dir: PathBuf,
    pub results: Results,
    pub analysis: Analysis,
    /// The view-model the reports were rendered from.
    pub view: render::view::ReportView,
    pub report: PathBuf,
    /// How long each stage of a `report` took.
    pub stages: Option<progress::StageTimes>,
    /// For a `report` into a folder that held results: what changed since.
    pub since_previous: Option<Vec<RunChange>>,
}

/// Where one report run writes: the output folder, ncu's work folder
/// inside it, and results.json; the folder is locked while it lives.
struct Folders {
    out: PathBuf,
    work: PathBuf,
    results: PathBuf,
    /// Held for the run: one gpuprof at a time per output folder.
    _lock: output::FolderLock,
}

/// Runs the whole line for one variants.toml.
pub fn report(request: &ReportRequest) -> Result<Outcome, Error> {
    let mut clock = progress::StageTimes::start();
    let suite_plan = config::load(&request.config)?;
    let (plan, shard) = match request.shard {
        Some(spec) => {
            let share = shard::share(&suite_plan, spec, request.balance_from.as_deref())?;
            let record = Shard {
                index: spec.index,
                count: spec.count,
                sizes: share
                    .sizes
                    .iter()
                    .map(|i| suite_plan.suite.sizes[*i].label.clone())
                    .collect(),
                suite_sizes: suite_plan
                    .suite
                    .sizes
                    .iter()
                    .map(|s| s.label.clone())
                    .collect(),
                balanced_by: share.balanced_by,
                host: device::host_name(),
            };
            (shard::restrict(&suite_plan, &share.sizes), Some(record))
        }
        None => (suite_plan, None),
    };
    let default_folder = match &shard {
        Some(shard) => format!(
            "{}/shard-{}-of-{}",
            plan.suite.name, shard.index, shard.count
        ),
        None => plan.suite.name.clone(),
    };
    let folders = output::prepare_folders(request.out_dir.as_deref(), &default_folder)?;
    let previous = output::previous_results(&folders.out, request.force)?;
    if plan.suite.sizes.is_empty() {
        // More shards than sizes: this one has nothing to run, and says so.
        let mut results = plan::new_results(&plan, request);
        results.shard = shard;
        output::save(&folders.results, &results)?;
        return output::write_reports(&folders.out, results);
    }
    let earlier = match request.force {
        true => output::readable_results(&folders.out),
        false => previous.clone(),
    };
    let harness = time::harness_program()?;
    // ncu starts, and nvidia-smi is read, while the device is probed; ncu's
    // harnesses wait for their jobs, and open the GPU once the probe is
    // done.
    let (ncu, mut early, facts, smi) = std::thread::scope(|scope| {
        let starting = scope.spawn(|| {
            let ncu = profile::find_ncu(request);
            let early = match request.skip_profile {
                true => profile::EarlyStart::none(),
                false => profile::start_early(&harness, &plan, &ncu, request, &folders),
            };
            (ncu, early)
        });
        let reading = scope.spawn(device::read_nvidia_smi);
        let facts = device::probe(&harness, &plan, &folders.work);
        let (ncu, early) = joined(starting);
        (ncu, early, facts, joined(reading))
    });
    let facts = facts?;
    let ncu_version = ncu.as_ref().ok().map(|found| found.version.as_str());
    match plan::all_kernels_reusable(&plan, &facts, ncu_version, previous.as_ref()) {
        true => early.dismiss(),
        false => early.open_gpu(&facts),
    }
    plan::check_device_limits(&plan, &facts)?;

    // The previous results.json stays as it is until this run has
    // measured something: a run that fails before (a missing compiler, an
    // interrupt during the build) loses nothing.
    let mut results = plan::new_results(&plan, request);
    results.shard = shard;
    results.device = Some(device::describe(&facts, smi, &mut results.notices));

    clock.lap("prepare");
    let modules = build::build_all(
        &plan,
        facts.compute_capability,
        !request.skip_profile,
        &mut results,
    )?;
    clock.lap("build");
    let reused = plan::reuse_unchanged(
        &plan,
        &facts,
        ncu_version,
        request.skip_profile,
        previous.as_ref(),
        &mut results,
    );
    if process::interrupted() {
        return Err(Error::Interrupted { saved: false });
    }

    let time_job = plan::timing_job(&plan, &modules, &reused);
    if early.settle(&time_job, &reused) {
        clock.lap("ncu start");
    }
    time::run(
        &harness,
        &time_job,
        &folders,
        request.idle_timeout,
        &mut results,
    )?;
    clock.lap("time");
    if process::interrupted() {
        return stop_interrupted(&folders, results, reused.len());
    }
    output::save(&folders.results, &results)?;

    if request.skip_profile {
        commands::record_skipped(&plan, &mut results);
    } else {
        profile::run(
            &harness,
            &time_job,
            &reused,
            &ncu,
            request,
            &folders,
            early,
            &mut results,
        )?;
        if results.profiler.is_none() && !reused.is_empty() {
            // Every profiled run was reused: so is the record of how.
            results.profiler = previous.as_ref().and_then(|p| p.profiler.clone());
        }
        output::save(&folders.results, &results)?;
        commands::profile_all(&plan, &ncu, request, &folders, &mut results)?;
        clock.lap("profile");
    }
    if process::interrupted() {
        return stop_interrupted(&folders, results, reused.len());
    }
    output::save(&folders.results, &results)?;
    let outcome = output::write_reports(&folders.out, results)?;
    clock.lap("reports");
    let since_previous = earlier.map(|before| since(&before, &outcome.results));
    Ok(Outcome {
        stages: Some(clock),
        since_previous,
        ..outcome
    })
}

/// What a scoped thread returned, or its panic, resumed.
fn joined<T>(thread: std::thread::ScopedJoinHandle<T>) -> T {
    thread
        .join()
        .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}

/// After an interrupt during timing: saves what was measured, with the
/// reports that match it, when anything new was; the previous outputs stay
/// untouched otherwise.
fn stop_interrupted(
    folders: &Folders,
    mut results: Results,
    reused: usize,
) -> Result<Outcome, Error> {
    let runs = results.variants.iter().flat_map(|v| &v.runs);
    let total = runs.clone().count();
    let ran = runs
        .filter(|r| !r.samples_ms.is_empty() || r.failure.is_some())
        .count();
    if ran <= reused {
        return Err(Error::Interrupted { saved: false });
    }
    results.notices.push(Notice::Interrupted { ran, total });
    output::save(&folders.results, &results)?;
    output::write_reports(&folders.out, results)?;
    Err(Error::Interrupted { saved: true })
}

/// Re-renders the reports from a saved results.json.
pub fn render_saved(request: &RenderRequest) -> Result<Outcome, Error> {
    let results = read_saved(&request.results)?;
    let out_dir = request
        .out_dir
        .clone()
        .or_else(|| request.results.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."));
    output::create_dir(&out_dir)?;
    output::write_reports(&out_dir, results)
}

/// Reads a results.json that the user named.
pub fn read_saved(path: &Path) -> Result<Results, Error> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::Input(format!("cannot read {}: {e}", path.display())))?;
    read_results(&text).map_err(|source| Error::Results {
        path: path.to_path_buf(),
        source,
    })
}
