//! The pipeline: calls the stages in order for `gpuprof report` — plan,
//! device facts, build, time and verify (harness subprocess), profile (ncu
//! over the harness), export and ingest, analysis, render — keeps going
//! when one variant fails, saves results.json after every stage, and writes
//! every output atomically. It computes no metric and formats no text
//! beyond progress and error messages.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::analysis::{self, Analysis};
use crate::build::{self, Cache};
use crate::config::plan::{Plan, Verify};
use crate::config::{self, ConfigError};
use crate::harness::{Event, Item, Job, Mode};
use crate::model::device::DriverFacts;
use crate::model::device::{Device, parse_nvidia_smi};
use crate::model::measurement::Check;
use crate::model::results::{
    BuildRecord, Failure, ProfilerRun, Results, RunResult, SCHEMA_VERSION, SuiteRecord,
    VariantResult,
};
use crate::model::{read_results, write_results};
use crate::ncu::ingest;
use crate::ncu::{raw, run as ncu_run, source};
use crate::process::{self, Invocation, ToolError};
use crate::render;

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
}

/// Failures that stop the pipeline; their exit codes are documented in
/// the README.
#[derive(Debug)]
pub enum PipelineError {
    /// variants.toml or results.json is wrong: exit code 2.
    Input(String),
    /// The machine lacks something (driver, GPU, NVRTC): exit code 4.
    Environment(String),
    /// A file could not be written: exit code 1.
    Output { path: PathBuf, reason: String },
}

impl std::fmt::Display for PipelineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PipelineError::Input(message) | PipelineError::Environment(message) => {
                f.write_str(message)
            }
            PipelineError::Output { path, reason } => {
                write!(f, "cannot write {}: {reason}", path.display())
            }
        }
    }
}

impl From<ConfigError> for PipelineError {
    fn from(error: ConfigError) -> PipelineError {
        PipelineError::Input(error.to_string())
    }
}

const PROFILE_BASE: &str = "profile";
const RESULTS_FILE: &str = "results.json";
const REPORT_FILE: &str = "report.html";
const MARKDOWN_FILE: &str = "report.md";
const WORK_FOLDER: &str = "ncu";

/// Runs the whole line for one variants.toml.
pub fn report(request: &ReportRequest) -> Result<Outcome, PipelineError> {
    let plan = config::load(&request.config)?;
    let out_dir = request
        .out_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("gpuprof-out").join(&plan.suite.name));
    let work_dir = out_dir.join(WORK_FOLDER);
    create_dir(&work_dir)?;
    let harness = harness_program()?;
    let facts = probe_device(&harness, &plan, &work_dir)?;

    let mut results = new_results(&plan, request);
    let results_path = out_dir.join(RESULTS_FILE);
    // Read before anything overwrites it: unchanged runs are reused.
    let previous = match request.force {
        true => None,
        false => std::fs::read_to_string(&results_path)
            .ok()
            .and_then(|t| read_results(&t).ok()),
    };
    let smi = read_nvidia_smi(&mut results.notices);
    results.device = Some(Device::from_facts(&facts, smi));
    save(&results_path, &results)?;

    let cubins = build_all(&plan, facts.compute_capability, &mut results)?;
    // Found once: the cache key, the harness profile and the command
    // variants all need it.
    let ncu = match request.skip_profile {
        true => Err("--no-profile".to_string()),
        false => find_ncu(request),
    };
    let ncu_version = ncu.as_ref().ok().map(|found| found.version.as_str());
    let reused = reuse_unchanged(
        &plan,
        &facts,
        ncu_version,
        request.skip_profile,
        previous.as_ref(),
        &mut results,
    );
    save(&results_path, &results)?;

    let items: Vec<Item> = ordered_items(&plan, &cubins)
        .into_iter()
        .filter(|i| !reused.contains(i))
        .collect();
    let time_job = Job {
        mode: Mode::Time,
        plan: plan.clone(),
        cubins: cubins.clone(),
        items,
    };
    run_harness(
        &harness,
        &time_job,
        &work_dir,
        request.idle_timeout,
        &mut results,
        &results_path,
    )?;
    save(&results_path, &results)?;

    if request.skip_profile {
        fail_command_runs(
            &plan,
            &mut results,
            "command variants are timed by ncu, and --no-profile skipped it",
        );
        results.notices.push(
            "profiling was skipped (--no-profile): the report has timings and verification only"
                .into(),
        );
    } else {
        profile(
            &harness,
            &time_job,
            &reused,
            &ncu,
            request,
            &out_dir,
            &mut results,
        )?;
        if results.profiler.is_none() && !reused.is_empty() {
            // Every profiled run was reused: so is the record of how.
            results.profiler = previous.as_ref().and_then(|p| p.profiler.clone());
        }
        save(&results_path, &results)?;
        profile_commands(&plan, &ncu, request, &out_dir, &mut results, &results_path)?;
    }
    save(&results_path, &results)?;
    write_reports(&out_dir, results)
}

/// Re-renders the reports from a saved results.json.
pub fn render_saved(request: &RenderRequest) -> Result<Outcome, PipelineError> {
    let text = std::fs::read_to_string(&request.results).map_err(|e| {
        PipelineError::Input(format!("cannot read {}: {e}", request.results.display()))
    })?;
    let results = read_results(&text)
        .map_err(|e| PipelineError::Input(format!("{}:{e}", request.results.display())))?;
    let out_dir = request
        .out_dir
        .clone()
        .or_else(|| request.results.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("."));
    create_dir(&out_dir)?;
    write_reports(&out_dir, results)
}

fn write_reports(out_dir: &Path, results: Results) -> Result<Outcome, PipelineError> {
    let analysis = analysis::analyze(&results);
    let view = render::view(&results, &analysis);
    let html = render::html(&view).map_err(|e| PipelineError::Output {
        path: out_dir.join(REPORT_FILE),
        reason: e.to_string(),
    })?;
    let report = out_dir.join(REPORT_FILE);
    write_atomic(&report, html.as_bytes())?;
    write_atomic(
        &out_dir.join(MARKDOWN_FILE),
        render::markdown(&view).as_bytes(),
    )?;
    Ok(Outcome {
        out_dir: out_dir.to_path_buf(),
        results,
        analysis,
        view,
        report,
    })
}

/// The program that runs harness jobs: `gpuprof harness`, or the program
/// named by GPUPROF_HARNESS (a stand-in that replays recorded events, for
/// testing the pipeline on machines without a GPU).
fn harness_program() -> Result<Invocation, PipelineError> {
    if let Some(stand_in) = std::env::var_os("GPUPROF_HARNESS") {
        return Ok(Invocation::new(stand_in));
    }
    let exe = std::env::current_exe().map_err(|e| {
        PipelineError::Environment(format!("cannot find the gpuprof executable: {e}"))
    })?;
    Ok(Invocation::new(exe).arg("harness"))
}

fn harness_job(harness: &Invocation, job_path: &Path) -> Invocation {
    harness.clone().arg("--job").arg(job_path.as_os_str())
}

/// Asks a harness process for the device's facts (so that this process
/// never creates a CUDA context of its own).
fn probe_device(
    harness: &Invocation,
    plan: &Plan,
    work_dir: &Path,
) -> Result<DriverFacts, PipelineError> {
    let job_path = work_dir.join("device-job.json");
    write_json(
        &job_path,
        &Job {
            mode: Mode::Device,
            plan: plan.clone(),
            cubins: BTreeMap::new(),
            items: Vec::new(),
        },
    )?;
    let mut facts = None;
    let mut events_log = String::new();
    let outcome = process::run_streaming(
        &harness_job(harness, &job_path),
        Some(Duration::from_secs(120)),
        |line| {
            if let Some(Ok(Event::Device(device))) = Event::from_line(line) {
                facts = Some(device);
                events_log.push_str(line);
                events_log.push('\n');
            }
        },
    );
    write_atomic(&work_dir.join("device-events.jsonl"), events_log.as_bytes())?;
    match (facts, outcome) {
        (Some(facts), Ok(_)) => Ok(facts),
        (_, Err(error)) => Err(PipelineError::Environment(format!(
            "no usable CUDA device: {}\n(`gpuprof render` works without a GPU on a saved results.json)",
            error.output_tail(6).trim_start_matches("error: ")
        ))),
        (None, Ok(_)) => Err(PipelineError::Environment(
            "the harness reported no device".into(),
        )),
    }
}

fn new_results(plan: &Plan, request: &ReportRequest) -> Results {
    let config_dir = plan.suite.config_path.parent().unwrap_or(Path::new("/"));
    let variants = plan
        .variants
        .iter()
        .map(|variant| VariantResult {
            name: variant.name.clone(),
            role: variant.role,
            source: match (variant.library, &variant.command) {
                (Some(library), _) => format!("library: {}", library.word()),
                (None, Some(command)) => format!("command, kernels matching `{}`", command.kernel),
                (None, None) => pathdiff::diff_paths(&variant.source, config_dir)
                    .unwrap_or_else(|| variant.source.clone())
                    .to_string_lossy()
                    .into_owned(),
            },
            library: variant.library,
            entry: variant.entry.clone(),
            changes: variant.changes.clone(),
            notes: variant.notes.clone(),
            verify_against: match &variant.verify {
                Verify::Against(name) => Some(name.clone()),
                Verify::Skip => None,
            },
            source_text: std::fs::read_to_string(&variant.source).unwrap_or_default(),
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
                    samples_ms: Vec::new(),
                    check: None,
                    failure: None,
                    profile: None,
                    command: instance.command.as_ref().map(|argv| shell_words(argv)),
                    cache_key: None,
                })
                .collect(),
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
        },
        device: None,
        profiler: None,
        variants,
        notices: Vec::new(),
    }
}

fn read_nvidia_smi(notices: &mut Vec<String>) -> Option<crate::model::device::SmiFacts> {
    let outcome = process::run(&Invocation::new("nvidia-smi").args(["-q", "-x"]))
        .map_err(|e| e.to_string())
        .and_then(|output| parse_nvidia_smi(&output.stdout));
    match outcome {
        Ok(facts) => Some(facts),
        Err(reason) => {
            notices.push(format!(
                "nvidia-smi could not be read, so the driver version and current clocks are missing: {reason}"
            ));
            None
        }
    }
}

fn build_all(
    plan: &Plan,
    compute_capability: (u32, u32),
    results: &mut Results,
) -> Result<BTreeMap<String, PathBuf>, PipelineError> {
    if !build::nvrtc_available() {
        return Err(PipelineError::Environment(
            build::BuildError::NvrtcMissing.to_string(),
        ));
    }
    let cache = Cache::default_location();
    let bar = progress(plan.variants.len() as u64, "compile");
    let mut cubins = BTreeMap::new();
    let mut built: BTreeMap<(Vec<String>, PathBuf), Result<String, String>> = BTreeMap::new();
    for (variant, record) in plan.variants.iter().zip(results.variants.iter_mut()) {
        bar.set_message(variant.name.clone());
        if variant.library.is_some() {
            bar.inc(1);
            continue;
        }
        if let Some(command) = &variant.command {
            if let Some(build) = &command.build {
                let started = Instant::now();
                // The same build line (in the same folder) runs once.
                let key = (build.clone(), command.folder.clone());
                let outcome = built
                    .entry(key)
                    .or_insert_with(|| build_command(build, &command.folder))
                    .clone();
                record.build.options = build.clone();
                record.build.seconds = started.elapsed().as_secs_f64();
                match outcome {
                    Ok(log) => record.build.log = log,
                    Err(message) => {
                        record.build.error = Some(message.clone());
                        for run in &mut record.runs {
                            run.failure = Some(Failure {
                                stage: "build".into(),
                                message: message.clone(),
                            });
                        }
                    }
                }
            }
            bar.inc(1);
            continue;
        }
        let options = build::options_for(compute_capability, &variant.compile_options);
        record.build.options = options.clone();
        match build::compile(&variant.source, &options, &cache) {
            Ok(compiled) => {
                record.build.log = compiled.log;
                record.build.seconds = compiled.seconds;
                cubins.insert(variant.name.clone(), compiled.cubin);
            }
            Err(error) => {
                if error == build::BuildError::NvrtcMissing {
                    return Err(PipelineError::Environment(error.to_string()));
                }
                let message = error.to_string();
                record.build.error = Some(message.clone());
                for run in &mut record.runs {
                    run.failure = Some(Failure {
                        stage: "compile".into(),
                        message: message.clone(),
                    });
                }
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(cubins)
}

/// Profiles every command variant at every size in its own ncu run: the
/// first `launches` launches of kernels matching its filter. Their
/// durations are its timing samples; the last one is its profile.
fn profile_commands(
    plan: &Plan,
    ncu: &Result<Ncu, String>,
    request: &ReportRequest,
    out_dir: &Path,
    results: &mut Results,
    results_path: &Path,
) -> Result<(), PipelineError> {
    let commands: Vec<&crate::config::plan::Variant> = plan
        .variants
        .iter()
        .filter(|v| v.command.is_some())
        .collect();
    if commands.is_empty() {
        return Ok(());
    }
    let out_dir = std::path::absolute(out_dir).map_err(|e| PipelineError::Output {
        path: out_dir.to_path_buf(),
        reason: e.to_string(),
    })?;
    let work_dir = out_dir.join(WORK_FOLDER);
    let Ncu { path: ncu, version } = match ncu {
        Ok(found) => found,
        Err(reason) => {
            let message = format!("command variants are timed and profiled by ncu: {reason}");
            fail_command_runs(plan, results, &message);
            return Ok(());
        }
    };
    let mut reports = Vec::new();
    let bar = progress(0, "profile");
    for variant in commands {
        let Some(command) = &variant.command else {
            continue;
        };
        let folder =
            std::path::absolute(&command.folder).unwrap_or_else(|_| command.folder.clone());
        for instance in &variant.instances {
            let item = Item {
                variant: variant.name.clone(),
                size: instance.size.clone(),
            };
            if run_of(results, &item).is_some_and(|r| r.failure.is_some()) {
                continue;
            }
            bar.set_message(format!("{} {}", item.variant, item.size));
            let Some((program, args)) = instance
                .command
                .as_ref()
                .and_then(|argv| argv.split_first())
            else {
                continue;
            };
            let slug: String = format!("{}-{}", variant.name, instance.size)
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let ncu_request = ncu_run::ProfileRequest {
                selection: ncu_run::Selection::Kernel {
                    regex: command.kernel.clone(),
                    count: command.launches,
                },
                clock_control: plan.profile.clock_control.as_ncu_value().to_string(),
                report_base: out_dir.join(&slug),
                log_file: work_dir.join(format!("{slug}.log")),
            };
            let target = Invocation::new(program).args(args);
            let invocation =
                ncu_run::profile_invocation(ncu, &ncu_request, &target).in_folder(&folder);
            let started = Instant::now();
            let outcome =
                process::run_streaming(&invocation, Some(request.idle_timeout * 4), |_| {});
            let seconds = started.elapsed().as_secs_f64();
            let log = std::fs::read_to_string(&ncu_request.log_file).unwrap_or_default();
            let report = ncu_run::report_path(&ncu_request);
            if results.profiler.is_none() {
                results.profiler = Some(ProfilerRun {
                    ncu_version: version.clone(),
                    command: invocation.display(),
                    clock_control: ncu_request.clock_control.clone(),
                    report_file: format!("{slug}.ncu-rep"),
                    passes_per_launch: None,
                    seconds,
                });
            }
            let measured = match (&outcome, report.is_file()) {
                (_, true) => measure_command(ncu, &report, &work_dir, &slug, command.launches),
                (Err(error), false) => Err(ncu_run::diagnose(&log)
                    .or_else(|| ncu_run::diagnose(&error.stderr))
                    .unwrap_or_else(|| format!("{error}\n{}", last_lines(&log, 10)))),
                (Ok(_), false) => Err(format!(
                    "no launch matched the kernel filter `{}`, so ncu wrote no report: check `kernel` against the names ncu prints ({})",
                    command.kernel,
                    last_lines(&log, 3)
                )),
            };
            if let Some(run) = run_of(results, &item) {
                match measured {
                    Ok((samples, profile)) => {
                        run.samples_ms = samples;
                        run.profile = Some(profile);
                        run.check = Some(Check::NotChecked {
                            reason: "a command variant's outputs are its own: gpuprof does not compare them".into(),
                        });
                        reports.push(format!("{slug}.ncu-rep"));
                    }
                    Err(message) => {
                        run.failure = Some(Failure {
                            stage: "profile".into(),
                            message,
                        })
                    }
                }
            }
            save(results_path, results)?;
        }
    }
    bar.finish_and_clear();
    if !reports.is_empty() {
        results.notices.push(format!(
            "Command variants are timed by ncu, not by CUDA events: their samples are the durations of the profiled launches (ncu flushes the caches before each, so they read cold data). Their reports: {}.",
            reports.join(", ")
        ));
    }
    Ok(())
}

/// Marks every run of every command variant failed with `message`
/// (unless it already failed).
fn fail_command_runs(plan: &Plan, results: &mut Results, message: &str) {
    for variant in plan.variants.iter().filter(|v| v.command.is_some()) {
        for instance in &variant.instances {
            let item = Item {
                variant: variant.name.clone(),
                size: instance.size.clone(),
            };
            if let Some(run) = run_of(results, &item) {
                run.failure.get_or_insert(Failure {
                    stage: "profile".into(),
                    message: message.to_string(),
                });
            }
        }
    }
}

/// Exports one command variant's report: the launch durations (ms) and the
/// profile of the last launch, with its source lines.
fn measure_command(
    ncu: &Path,
    report: &Path,
    work_dir: &Path,
    slug: &str,
    wanted: u32,
) -> Result<(Vec<f64>, crate::model::results::Profile), String> {
    let text = process::run(&ncu_run::export_raw_invocation(ncu, report))
        .map(|o| o.stdout)
        .map_err(|e| format!("exporting the ncu report failed: {e}"))?;
    write_atomic(&work_dir.join(format!("{slug}-raw.csv")), text.as_bytes())
        .map_err(|e| e.to_string())?;
    let launches = raw::parse_raw_page(&text)
        .map_err(|e| format!("ncu's raw export could not be read: {e}"))?;
    let last = launches
        .len()
        .checked_sub(1)
        .ok_or("ncu profiled no launch")?;
    let samples: Vec<f64> = launches
        .iter()
        .filter_map(|l| l.number(crate::model::metrics::DURATION))
        .map(|ns| ns / 1e6)
        .collect();
    let source = process::run(&ncu_run::export_source_invocation(ncu, report, last))
        .map_err(|e| format!("exporting ncu's source page failed: {e}"))
        .and_then(|o| source::parse_source_page(&o.stdout).map_err(|e| e.to_string()));
    let mut profile = crate::ncu::import::profile_of_launch(&launches[last], &source);
    if launches.len() < wanted as usize {
        profile.source_note.get_or_insert(format!(
            "ncu profiled {} launches of the {wanted} asked for: the program launched no more matching kernels",
            launches.len()
        ));
    }
    Ok((samples, profile))
}

/// The hash of everything a run's numbers depend on; `None` for command
/// variants (their program can change without the suite changing).
fn cache_key(
    plan: &Plan,
    variant: &crate::config::plan::Variant,
    size_index: usize,
    facts: &DriverFacts,
    ncu_version: Option<&str>,
    skip_profile: bool,
) -> Option<String> {
    use sha2::{Digest, Sha256};
    if variant.command.is_some() {
        return None;
    }
    let reference = match &variant.verify {
        Verify::Against(name) => plan.variant(name),
        Verify::Skip => None,
    };
    let describe = |v: &crate::config::plan::Variant| {
        serde_json::json!({
            "source": std::fs::read_to_string(&v.source).unwrap_or_default(),
            "entry": v.entry,
            "options": v.compile_options,
            "library": v.library,
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
        "timing": [plan.timing.warmup, plan.timing.repetitions],
        "seed": plan.suite.seed,
    });
    let digest = Sha256::digest(everything.to_string().as_bytes());
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// Keys every run and copies unchanged, complete runs of the previous
/// results.json into `results`; the items reused.
fn reuse_unchanged(
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
            let complete = old.failure.is_none()
                && !old.samples_ms.is_empty()
                && (skip_profile || old.profile.is_some() || variant.library.is_some());
            if key.is_some() && old.cache_key == key && complete && run.failure.is_none() {
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
        results.notices.push(format!(
            "{} of the runs were reused from the previous results.json: nothing they depend on changed (source, options, geometry, reference, device, ncu version, timing settings). `--force` runs everything again. The ncu report holds only the launches profiled this time.",
            reused.len()
        ));
    }
    reused
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

/// A command line as the user would type it.
fn shell_words(argv: &[String]) -> String {
    argv.first()
        .map(|program| Invocation::new(program).args(&argv[1..]).display())
        .unwrap_or_default()
}

/// Every compiled variant at every size, sizes in order, and within a size
/// each reference before the variants verified against it.
fn ordered_items(plan: &Plan, cubins: &BTreeMap<String, PathBuf>) -> Vec<Item> {
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
                    cubins.contains_key(**name)
                        || plan.variant(name).is_some_and(|v| v.library.is_some())
                })
                .map(|name| Item {
                    variant: name.to_string(),
                    size: size.label.clone(),
                })
        })
        .collect()
}

fn run_of<'a>(results: &'a mut Results, item: &Item) -> Option<&'a mut RunResult> {
    results
        .variants
        .iter_mut()
        .find(|v| v.name == item.variant)?
        .runs
        .iter_mut()
        .find(|r| r.size == item.size)
}

/// Runs the timing harness until every item has a result, starting a new
/// process after a fatal error, a crash or a timeout.
fn run_harness(
    harness: &Invocation,
    job: &Job,
    work_dir: &Path,
    idle_timeout: Duration,
    results: &mut Results,
    results_path: &Path,
) -> Result<(), PipelineError> {
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
                        if let Some(run) = run_of(results, &item) {
                            run.failure = Some(Failure {
                                stage: "harness".into(),
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
                    if let Some(run) = run_of(results, &item) {
                        run.samples_ms = samples_ms;
                        run.check = Some(check);
                    }
                    finished.insert(item);
                    in_flight = None;
                    bar.inc(1);
                    if let Err(error) = save(results_path, results) {
                        save_error = Some(error);
                    }
                }
                Event::Failed {
                    item,
                    stage,
                    message,
                    ..
                } => {
                    if let Some(run) = run_of(results, &item) {
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
                if let Some(run) = run_of(results, &item) {
                    run.failure.get_or_insert(Failure {
                        stage: "run".into(),
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

/// The ncu binary and the version it reports.
struct Ncu {
    path: PathBuf,
    version: String,
}

fn find_ncu(request: &ReportRequest) -> Result<Ncu, String> {
    let path = ncu_run::locate(request.ncu.as_deref())?;
    let version = process::run(&ncu_run::version_invocation(&path))
        .ok()
        .and_then(|o| ncu_run::parse_version(&o.stdout))
        .unwrap_or_else(|| "unknown".into());
    Ok(Ncu { path, version })
}

/// Profiles every item of the timing job that ran cleanly and was not
/// reused, once each, in one ncu process.
fn profile(
    harness: &Invocation,
    time_job: &Job,
    reused: &BTreeSet<Item>,
    ncu: &Result<Ncu, String>,
    request: &ReportRequest,
    out_dir: &Path,
    results: &mut Results,
) -> Result<(), PipelineError> {
    let Ncu { path: ncu, version } = match ncu {
        Ok(found) => found,
        Err(reason) => {
            results
                .notices
                .push(format!("profiling was skipped: {reason}"));
            return Ok(());
        }
    };
    let (plan, cubins) = (&time_job.plan, &time_job.cubins);
    let work_dir = out_dir.join(WORK_FOLDER);
    // Library calls launch kernels gpuprof does not choose; they are timed
    // and verified but not profiled.
    let items: Vec<Item> = ordered_items(plan, cubins)
        .into_iter()
        .filter(|item| {
            plan.variant(&item.variant)
                .is_some_and(|v| v.library.is_none())
        })
        .filter(|item| !reused.contains(item))
        .filter(|item| {
            results
                .variant(&item.variant)
                .and_then(|v| v.run(&item.size))
                .is_some_and(|run| run.failure.is_none())
        })
        .collect();
    if items.is_empty() {
        if reused.is_empty() {
            results
                .notices
                .push("profiling was skipped: no variant ran cleanly".into());
        }
        return Ok(());
    }
    let job_path = work_dir.join("profile-job.json");
    write_json(
        &job_path,
        &Job {
            mode: Mode::Profile,
            plan: plan.clone(),
            cubins: cubins.clone(),
            items,
        },
    )?;
    let ncu_request = ncu_run::ProfileRequest {
        selection: ncu_run::Selection::ProfilerRanges,
        clock_control: plan.profile.clock_control.as_ncu_value().to_string(),
        report_base: out_dir.join(PROFILE_BASE),
        log_file: work_dir.join("ncu.log"),
    };
    let target = harness_job(harness, &job_path);
    let invocation = ncu_run::profile_invocation(ncu, &ncu_request, &target);
    let bar = progress(0, "profile");
    let mut profiled: Vec<(u32, Item, String)> = Vec::new();
    let mut events_log = String::new();
    let started = Instant::now();
    let outcome = process::run_streaming(&invocation, Some(request.idle_timeout * 4), |line| {
        if Event::from_line(line).is_some() {
            events_log.push_str(line);
            events_log.push('\n');
        }
        if let Some(Ok(Event::Profiled {
            item,
            sequence,
            kernel,
        })) = Event::from_line(line)
        {
            bar.set_message(format!("{} {}", item.variant, item.size));
            profiled.push((sequence, item, kernel));
        }
    });
    bar.finish_and_clear();
    let seconds = started.elapsed().as_secs_f64();
    write_atomic(
        &work_dir.join("profile-events.jsonl"),
        events_log.as_bytes(),
    )?;
    let log = std::fs::read_to_string(&ncu_request.log_file).unwrap_or_default();
    if let Err(error) = &outcome {
        let advice = ncu_run::diagnose(&log).or_else(|| ncu_run::diagnose(&error.stderr));
        results.notices.push(match advice {
            Some(advice) => format!("profiling failed: {advice}"),
            None => format!("profiling failed: {error}\n{}", last_lines(&log, 10)),
        });
    }
    let report_file = ncu_run::report_path(&ncu_request);
    results.profiler = Some(ProfilerRun {
        ncu_version: version.clone(),
        command: invocation.display(),
        clock_control: ncu_request.clock_control.clone(),
        report_file: format!("{PROFILE_BASE}.ncu-rep"),
        passes_per_launch: None,
        seconds,
    });
    if !report_file.is_file() || profiled.is_empty() {
        if outcome.is_ok() {
            results.notices.push(format!(
                "ncu wrote no report{}",
                ncu_run::diagnose(&log)
                    .map(|a| format!(": {a}"))
                    .unwrap_or_default()
            ));
        }
        return Ok(());
    }
    ingest_report(ncu, &report_file, &work_dir, plan, &mut profiled, results)
}

fn ingest_report(
    ncu: &Path,
    report_file: &Path,
    work_dir: &Path,
    plan: &Plan,
    profiled: &mut [(u32, Item, String)],
    results: &mut Results,
) -> Result<(), PipelineError> {
    let raw_text = match process::run(&ncu_run::export_raw_invocation(ncu, report_file)) {
        Ok(output) => output.stdout,
        Err(error) => {
            results
                .notices
                .push(format!("exporting the ncu report failed: {error}"));
            return Ok(());
        }
    };
    write_atomic(&work_dir.join("raw.csv"), raw_text.as_bytes())?;
    let launches = match raw::parse_raw_page(&raw_text) {
        Ok(launches) => launches,
        Err(error) => {
            results
                .notices
                .push(format!("ncu's raw export could not be read: {error}"));
            return Ok(());
        }
    };
    profiled.sort_by_key(|(sequence, _, _)| *sequence);
    let expected: Vec<String> = profiled
        .iter()
        .map(|(_, _, kernel)| kernel.clone())
        .collect();
    if let Err(reason) = ingest::check_order(&launches, &expected) {
        results.notices.push(reason);
        return Ok(());
    }
    let sources = export_sources(ncu, report_file, work_dir, launches.len())?;
    if let Some(profiler) = &mut results.profiler {
        profiler.passes_per_launch = launches
            .first()
            .and_then(|l| l.number(crate::model::metrics::REPLAY_PASSES));
    }
    for ((launch, (_, item, _)), source) in launches.iter().zip(profiled.iter()).zip(sources) {
        let Some(variant) = plan.variant(&item.variant) else {
            continue;
        };
        let profile = ingest::profile_from_launch(launch, source, &variant.source);
        if let Some(run) = run_of(results, item) {
            run.profile = Some(profile);
        }
    }
    Ok(())
}

/// Exports the source page of every result, several ncu processes at once.
fn export_sources(
    ncu: &Path,
    report_file: &Path,
    work_dir: &Path,
    count: usize,
) -> Result<Vec<Result<Vec<source::SourceFile>, String>>, PipelineError> {
    let parallel = std::thread::available_parallelism().map_or(4, |n| n.get().clamp(1, 8));
    let mut texts: Vec<Result<String, String>> = Vec::with_capacity(count);
    for chunk_start in (0..count).step_by(parallel) {
        let chunk: Vec<usize> = (chunk_start..count.min(chunk_start + parallel)).collect();
        let outputs: Vec<Result<String, String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|index| {
                    scope.spawn(move || {
                        process::run(&ncu_run::export_source_invocation(ncu, report_file, *index))
                            .map(|o| o.stdout)
                            .map_err(|e| format!("exporting ncu's source page failed: {e}"))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("the export thread panicked".into()))
                })
                .collect()
        });
        texts.extend(outputs);
    }
    let mut parsed = Vec::with_capacity(count);
    for (index, text) in texts.into_iter().enumerate() {
        parsed.push(match text {
            Ok(text) => {
                write_atomic(
                    &work_dir.join(format!("source-{index}.csv")),
                    text.as_bytes(),
                )?;
                source::parse_source_page(&text).map_err(|e| e.to_string())
            }
            Err(reason) => Err(reason),
        });
    }
    Ok(parsed)
}

fn last_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

fn progress(length: u64, stage: &'static str) -> ProgressBar {
    let bar = ProgressBar::new(length);
    let template = if length == 0 {
        "{spinner} {prefix:>8} {elapsed} {msg}"
    } else {
        "{prefix:>8} [{bar:30}] {pos}/{len} {elapsed} {msg}"
    };
    bar.set_style(
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_prefix(stage);
    if length == 0 {
        bar.enable_steady_tick(Duration::from_millis(120));
    }
    bar
}

fn create_dir(path: &Path) -> Result<(), PipelineError> {
    std::fs::create_dir_all(path).map_err(|e| PipelineError::Output {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

fn save(path: &Path, results: &Results) -> Result<(), PipelineError> {
    write_atomic(path, write_results(results).as_bytes())
}

fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), PipelineError> {
    let text = serde_json::to_string(value).map_err(|e| PipelineError::Output {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    write_atomic(path, text.as_bytes())
}

/// Writes through a temporary file in the same folder and renames it, so
/// that readers see the old file or the new one, never half of either.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), PipelineError> {
    use std::io::Write;
    let failed = |e: std::io::Error| PipelineError::Output {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    use std::os::unix::fs::PermissionsExt;
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(folder).map_err(failed)?;
    file.write_all(bytes).map_err(failed)?;
    // Temporary files are private (0600); outputs are ordinary files.
    file.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o644))
        .map_err(failed)?;
    file.as_file().sync_all().map_err(failed)?;
    file.persist(path).map_err(|e| failed(e.error))?;
    Ok(())
}

/// What `gpuprof compare` was asked to do.
#[derive(Debug, Clone)]
pub struct CompareRequest {
    /// `.ncu-rep` reports or raw-page CSV exports.
    pub inputs: Vec<PathBuf>,
    /// Names for the inputs, in order (the file stem otherwise).
    pub names: Vec<String>,
    /// Only launches whose kernel name matches.
    pub kernel: Option<String>,
    pub out_dir: Option<PathBuf>,
    pub ncu: Option<PathBuf>,
    pub command_line: String,
}

/// Builds the report from existing ncu data.
pub fn compare(request: &CompareRequest) -> Result<Outcome, PipelineError> {
    use crate::ncu::import::{ImportedLaunch, compare_results};
    if request.inputs.is_empty() {
        return Err(PipelineError::Input(
            "give at least one .ncu-rep or raw-page CSV to compare".into(),
        ));
    }
    let filter = match &request.kernel {
        Some(pattern) => Some(regex::Regex::new(pattern).map_err(|e| {
            PipelineError::Input(format!(
                "--kernel {pattern:?} is not a regular expression: {}",
                crate::config::error::regex_reason(&e)
            ))
        })?),
        None => None,
    };
    let out_dir = request
        .out_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("gpuprof-out").join("compare"));
    create_dir(&out_dir)?;
    let mut imported = Vec::new();
    for (index, input) in request.inputs.iter().enumerate() {
        let shown = input.display().to_string();
        let is_report = input.extension().is_some_and(|e| e == "ncu-rep");
        let ncu = if is_report {
            Some(ncu_run::locate(request.ncu.as_deref()).map_err(|reason| {
                PipelineError::Environment(format!(
                    "{shown} is an ncu report, and reading it needs ncu: {reason}; or export it elsewhere with `ncu --import {shown} --csv --page raw > raw.csv` and compare the CSV"
                ))
            })?)
        } else {
            None
        };
        let text = match &ncu {
            Some(ncu) => process::run(&ncu_run::export_raw_invocation(ncu, input))
                .map(|o| o.stdout)
                .map_err(|e| {
                    PipelineError::Input(format!("{shown}: ncu could not export it: {e}"))
                })?,
            None => std::fs::read_to_string(input)
                .map_err(|e| PipelineError::Input(format!("cannot read {shown}: {e}")))?,
        };
        let launches = raw::parse_raw_page(&text)
            .map_err(|e| PipelineError::Input(format!("{shown}: {e}")))?;
        let selected: Vec<(usize, raw::RawLaunch)> = launches
            .into_iter()
            .enumerate()
            .filter(|(_, l)| filter.as_ref().is_none_or(|f| f.is_match(&l.kernel_name)))
            .collect();
        if selected.is_empty() {
            return Err(PipelineError::Input(match &request.kernel {
                Some(pattern) => {
                    format!("{shown}: no launch's kernel name matches --kernel {pattern:?}")
                }
                None => format!("{shown}: the export holds no profiled launch"),
            }));
        }
        let stem = request.names.get(index).cloned().unwrap_or_else(|| {
            input
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| shown.clone())
        });
        let several = selected.len() > 1;
        for (position, launch) in selected {
            let kernel = launch
                .kernel_name
                .split('(')
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            let name = if several {
                format!("{stem}/{kernel}#{}", launch.id)
            } else {
                stem.clone()
            };
            let source = match &ncu {
                Some(ncu) => process::run(&ncu_run::export_source_invocation(ncu, input, position))
                    .map_err(|e| format!("exporting the source page failed: {e}"))
                    .and_then(|o| source::parse_source_page(&o.stdout).map_err(|e| e.to_string())),
                None => Err("a raw-page CSV has no source page: compare the .ncu-rep (profiled with --section SourceCounters) for per-line counters".into()),
            };
            imported.push(ImportedLaunch {
                name,
                origin: shown.clone(),
                launch,
                source,
            });
        }
    }
    let created = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let results = compare_results(&imported, request.command_line.clone(), created);
    save(&out_dir.join(RESULTS_FILE), &results)?;
    write_reports(&out_dir, results)
}
