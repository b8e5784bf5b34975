//! `Results`: the durable record of one suite run, written as results.json.
//! Everything a report shows is recomputed from it, so it carries what was
//! planned (geometry, declared changes, the source text), what was measured
//! (every timing sample, the verification outcome, ncu's counters and
//! per-line source counters) and where it came from (device, ncu version
//! and command line). It has a schema version and reads back with serde.
//! A sequence's run keeps every launch's profile; `whole_profile` is the
//! one that stands for the whole run where variants are compared.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::change::Change;
use super::device::Device;
use super::measurement::{Check, KernelResources};
use super::notice::Notice;
use super::shard::{Shard, ShardOrigin};
use super::source::{OtherFile, SourceLine};
use super::suite::{Size, Timing};
use super::sweep::{Sweep, SweepPoint};
use super::timing::TimingRecord;
use super::variant::{Compiler, Role, VariantKind};

/// Bumped whenever a change to these types would misread older files;
/// `super::migrate` brings each older version up to this one.
pub const SCHEMA_VERSION: u32 = 2;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    pub schema_version: u32,
    pub gpuprof_version: String,
    /// When the run started, RFC 3339 (UTC).
    pub created: String,
    /// The gpuprof command line that produced this run.
    pub command: String,
    pub suite: SuiteRecord,
    pub device: Option<Device>,
    pub profiler: Option<ProfilerRun>,
    pub variants: Vec<VariantResult>,
    /// Problems that did not stop the run (ncu missing, a stage skipped),
    /// each phrased as advice.
    pub notices: Vec<Notice>,
    /// For `gpuprof report --shard i/n`: the share of the suite this run
    /// holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// For `gpuprof merge`: the shards it joined, in shard order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged_from: Vec<ShardOrigin>,
    /// The parameter sweeps, whose configurations are among `variants`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sweeps: Vec<Sweep>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuiteRecord {
    pub name: String,
    pub description: String,
    /// The variants.toml, as the user named it.
    pub config: String,
    pub baseline: String,
    pub sizes: Vec<Size>,
    pub timing: Timing,
    pub seed: u64,
    /// SHA-256 of the variants.toml's bytes, so that `gpuprof merge` can
    /// tell that shards ran the same suite (absent in older runs and in
    /// `gpuprof compare`'s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_sha256: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfilerRun {
    pub ncu_version: String,
    /// The ncu command line exactly as run.
    pub command: String,
    pub clock_control: String,
    /// The ncu report file, relative to the output folder.
    pub report_file: String,
    /// Replay passes per profiled launch (the cost of the metric set).
    pub passes_per_launch: Option<f64>,
    /// From when its launches were known (its job written) to its end;
    /// with a `lines_run`, from the first run's job to the last run's end
    /// (the second run's harness prepares its launches while the first
    /// ncu ends).
    pub seconds: f64,
    /// How long before its launches were known ncu was started, when it
    /// was started early: its start-up ran while the GPU was still busy
    /// with the stage before (the harness touches the GPU only once it has
    /// its job).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_early_s: Option<f64>,
    /// The size whose launches carry the per-line source counters, when
    /// they were taken at one size only (absent: at every size, or, in a
    /// merged run, as each shard's `lines_at` in `merged_from` says).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_at: Option<String>,
    /// The second ncu run, over the launches at `lines_at` with the
    /// per-line counters, when the other sizes ran without them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_run: Option<LinesRun>,
}

/// The ncu run that took the per-line source counters at one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinesRun {
    /// The ncu command line exactly as run.
    pub command: String,
    /// Its report file, relative to the output folder.
    pub report_file: String,
    /// From when its launches were known (its job written) to its end.
    pub seconds: f64,
    /// How long before its launches were known ncu was started, when it
    /// was started early (as [`ProfilerRun::started_early_s`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_early_s: Option<f64>,
    /// Replay passes per launch with the per-line counters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passes_per_launch: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VariantResult {
    pub name: String,
    pub role: Role,
    /// What it runs: a kernel, a library call, a command or an imported
    /// launch.
    pub kind: VariantKind,
    pub changes: Vec<Change>,
    pub notes: String,
    /// The variant outputs are compared against, if any.
    pub verify_against: Option<String>,
    /// The kernel source as compiled, for code excerpts.
    pub source_text: String,
    pub build: BuildRecord,
    /// One per suite size, in size order.
    pub runs: Vec<RunResult>,
    /// The sweep this variant is a configuration of, and its values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepPoint>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BuildRecord {
    /// `None` when it compiled; the compiler's message otherwise.
    pub error: Option<String>,
    pub options: Vec<String>,
    /// Which compiler built the kernel, why that one, and its command (for
    /// a kernel variant; absent in runs recorded before they were kept).
    #[serde(default)]
    pub compiler: Option<Compiler>,
    #[serde(default)]
    pub compiler_reason: Option<String>,
    #[serde(default)]
    pub command: Option<String>,
    /// The compiler's warnings (a command variant: its build's output).
    pub log: String,
    pub seconds: f64,
    pub resources: Option<KernelResources>,
    /// The other variants built by the same compiler runs (one file, one
    /// compiler, the same options): `command`, `log` and `seconds` are
    /// those runs'.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compiled_with: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub size: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub bytes: Option<f64>,
    pub flops: Option<f64>,
    /// The bytes of its buffers together, inputs and outputs: the most
    /// data it can touch, taken as its working set where `bytes` is not
    /// declared (absent in runs recorded before gpuprof kept it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer_bytes: Option<f64>,
    /// Every kept hot sample in milliseconds (the kernel ran right before,
    /// so the L2 holds its data); empty when timing did not run. For a
    /// command variant, ncu's duration of each profiled launch.
    pub samples_ms: Vec<f64>,
    /// Every kept cold sample in milliseconds (the L2 flushed before
    /// each); empty in runs recorded before gpuprof took them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cold_samples_ms: Vec<f64>,
    /// How the samples were taken; absent in runs recorded before gpuprof
    /// kept it (hot samples, back to back, a fixed count) and for command
    /// variants (ncu's durations).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timing: Option<TimingRecord>,
    pub check: Option<Check>,
    /// Why this run is incomplete (compile error, fault, timeout…).
    pub failure: Option<Failure>,
    /// What ncu measured; for a variant that launches a sequence of
    /// kernels, the profile of the launch the findings explain
    /// (`explained_launch`).
    pub profile: Option<Profile>,
    /// For a sequence, every launch's profile in order (empty otherwise).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Profile>,
    /// What the kernel printed (`printf`) while this run was measured, cut
    /// to its first lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// For a command variant, the command line run at this size.
    #[serde(default)]
    pub command: Option<String>,
    /// A hash of everything this run's numbers depend on (source, options,
    /// geometry, reference, device, ncu version, timing settings); a later
    /// run with the same key reuses this one.
    #[serde(default)]
    pub cache_key: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub stage: Stage,
    pub message: String,
}

/// Where a run failed, in the order a run goes through them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// A command variant's build line.
    Build,
    /// NVRTC compiling the kernel.
    Compile,
    /// The harness preparing the run (the plan it was given).
    Plan,
    /// Loading the compiled module or finding its kernel.
    Load,
    /// Allocating and filling the buffers.
    Upload,
    /// Launching the kernel.
    Launch,
    /// Reading the outputs back.
    Download,
    /// The timing events.
    Timing,
    /// The launch profiled under ncu, or ncu itself.
    Profile,
    /// The harness's report of the run could not be read.
    Harness,
    /// The harness process ended (crash, timeout) or never reported.
    Run,
}

impl Stage {
    /// The word the report shows: "failed (compile)".
    pub fn word(self) -> &'static str {
        match self {
            Stage::Build => "build",
            Stage::Compile => "compile",
            Stage::Plan => "plan",
            Stage::Load => "load",
            Stage::Upload => "upload",
            Stage::Launch => "launch",
            Stage::Download => "download",
            Stage::Timing => "timing",
            Stage::Profile => "profile",
            Stage::Harness => "harness",
            Stage::Run => "run",
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.word())
    }
}

/// What ncu measured for one launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    /// ncu's result ID in the report file.
    pub ncu_id: u64,
    pub kernel_name: String,
    /// The fixed metric set in base units, by ncu metric name; a metric
    /// that was not collected is absent (never zero).
    pub metrics: BTreeMap<String, f64>,
    /// SourceCounters lines of the variant's own source file that carry
    /// any counter, in line order.
    pub source_lines: Vec<SourceLine>,
    /// Why there are no source lines, when there are none.
    pub source_note: Option<String>,
    /// Counters ncu attributed to lines of other files, per file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub other_files: Vec<OtherFile>,
    /// The size at which this variant's per-line counters were taken,
    /// when it is another (this launch was profiled without them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_at: Option<String>,
    /// The throughputs' breakdowns (`metrics::BREAKDOWNS`): every unit's
    /// percent of its sustained peak, by ncu metric name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub breakdown: BTreeMap<String, f64>,
}

impl Results {
    pub fn variant(&self, name: &str) -> Option<&VariantResult> {
        self.variants.iter().find(|v| v.name == name)
    }
}

/// A run's per-line counters: the profile they are in (for a sequence the
/// whole run's, its lines summed over its launches), and the size they
/// were taken at when it is not the run's own.
#[derive(Debug, Clone)]
pub struct LinesOf<'a> {
    pub profile: std::borrow::Cow<'a, Profile>,
    pub taken_at: Option<&'a str>,
}

impl VariantResult {
    pub fn run(&self, size: &str) -> Option<&RunResult> {
        self.runs.iter().find(|r| r.size == size)
    }

    /// The profile whose per-line counters stand for `run`'s lines: its
    /// own (`RunResult::whole_profile`), or, when they were taken at one
    /// size only (the profile's `lines_at`), the same variant's profile at
    /// that size, with that size. Shares of the lines are of that
    /// profile's own totals, so a size's kernel totals never mix with
    /// another's lines.
    pub fn lines_of<'a>(&'a self, run: &'a RunResult) -> Option<LinesOf<'a>> {
        let own = run.whole_profile()?;
        if !own.source_lines.is_empty() {
            return Some(LinesOf {
                profile: own,
                taken_at: None,
            });
        }
        let size = run.profile.as_ref()?.lines_at.as_deref()?;
        let other = self.run(size)?;
        let profile = other.whole_profile()?;
        (size != run.size && !profile.source_lines.is_empty()).then_some(LinesOf {
            profile,
            taken_at: Some(size),
        })
    }
}

impl Results {
    /// The run of `variant` at `size`, to fill in.
    pub fn run_mut(&mut self, variant: &str, size: &str) -> Option<&mut RunResult> {
        self.variants
            .iter_mut()
            .find(|v| v.name == variant)?
            .runs
            .iter_mut()
            .find(|r| r.size == size)
    }
}

impl RunResult {
    /// Which of a sequence's `steps` the findings explain, the one
    /// `profile` holds (counted from 0).
    pub fn explained_step(&self) -> Option<usize> {
        let explained = self.profile.as_ref()?.ncu_id;
        self.steps.iter().position(|step| step.ncu_id == explained)
    }

    /// Makes `profile` the launch of `steps` the findings explain
    /// (`explained_launch`); a run of one launch keeps its own.
    pub fn explain_dominant_launch(&mut self) {
        if let Some(explained) = explained_launch(&self.steps)
            && self.explained_step() != Some(explained.index)
        {
            self.profile = Some(self.steps[explained.index].clone());
        }
    }

    /// The profile that stands for the whole run: its one launch's, or for
    /// a sequence its explained launch's with every count (an ncu `.sum`
    /// metric: requests, sectors, wavefronts, instructions, DRAM bytes,
    /// the duration) and every line's counters summed over its launches,
    /// so that a seven-launch scan is neither compared with another
    /// variant nor read line by line by one launch of seven. Rates,
    /// percentages and the launch configuration stay the explained
    /// launch's, which the findings explain. When some launches lack their
    /// per-line counters, the whole has none, and says why.
    pub fn whole_profile(&self) -> Option<std::borrow::Cow<'_, Profile>> {
        let explained = self.profile.as_ref()?;
        if self.steps.len() < 2 {
            return Some(std::borrow::Cow::Borrowed(explained));
        }
        let mut whole = explained.clone();
        for (name, value) in whole.metrics.iter_mut() {
            if !name.ends_with(".sum") {
                continue;
            }
            let each: Option<Vec<f64>> = self.steps.iter().map(|step| step.metric(name)).collect();
            if let Some(each) = each {
                *value = each.iter().sum();
            }
        }
        let missing: Vec<usize> = (0..self.steps.len())
            .filter(|&at| self.steps[at].source_note.is_some())
            .collect();
        if missing.is_empty() {
            whole.source_lines = super::source::summed_lines(
                self.steps.iter().map(|step| step.source_lines.as_slice()),
            );
            whole.other_files = super::source::summed_other_files(
                self.steps.iter().map(|step| step.other_files.as_slice()),
            );
        } else if missing.len() < self.steps.len() {
            let first = &self.steps[missing[0]];
            whole.source_lines.clear();
            whole.other_files.clear();
            whole.source_note = Some(format!(
                "ncu gave no per-line counters for {} of the sequence's {} launches (launch {}: {}), so its lines, which would be a part of the whole, are not shown",
                missing.len(),
                self.steps.len(),
                missing[0] + 1,
                first.source_note.as_deref().unwrap_or_default()
            ));
        }
        Some(std::borrow::Cow::Owned(whole))
    }
}

/// The launch of a sequence whose profile stands for it in the findings:
/// the longest launch of the kernel whose launches take the most of ncu's
/// time in all, so that a sequence of one short sort and 81 merges is
/// explained by a merge, not by the sort that happens to be the longest
/// single launch.
#[derive(Debug, Clone, PartialEq)]
pub struct ExplainedLaunch {
    /// Its place in the sequence, counted from 0.
    pub index: usize,
    /// Its kernel's name without the parameter list, as the report names it.
    pub kernel: String,
    /// How many of the sequence's launches are of its kernel.
    pub kernel_launches: usize,
    /// The share of the sequence's ncu time its kernel's launches take.
    pub kernel_share: f64,
}

/// The launch of `steps` the findings explain (`ExplainedLaunch`); none
/// for fewer than two launches. Ties go to the kernel launched first and
/// to its earliest launch.
pub fn explained_launch(steps: &[Profile]) -> Option<ExplainedLaunch> {
    if steps.len() < 2 {
        return None;
    }
    let duration = |step: &Profile| step.metric(super::metrics::DURATION).unwrap_or(0.0);
    let mut kernels: Vec<(&str, f64, usize)> = Vec::new();
    for step in steps {
        match kernels.iter_mut().find(|k| k.0 == step.kernel_name) {
            Some(kernel) => {
                kernel.1 += duration(step);
                kernel.2 += 1;
            }
            None => kernels.push((&step.kernel_name, duration(step), 1)),
        }
    }
    let dominant = kernels
        .iter()
        .reduce(|best, k| if k.1 > best.1 { k } else { best })?;
    let index = steps
        .iter()
        .enumerate()
        .filter(|(_, step)| step.kernel_name == dominant.0)
        .reduce(|best, s| {
            if duration(s.1) > duration(best.1) {
                s
            } else {
                best
            }
        })?
        .0;
    let total: f64 = kernels.iter().map(|k| k.1).sum();
    Some(ExplainedLaunch {
        index,
        kernel: crate::ncu::ingest::kernel_without_parameters(&steps[index].kernel_name).to_owned(),
        kernel_launches: dominant.2,
        kernel_share: if total > 0.0 { dominant.1 / total } else { 0.0 },
    })
}

impl Profile {
    pub fn metric(&self, name: &str) -> Option<f64> {
        self.metrics.get(name).copied()
    }

    /// The busiest unit in the throughputs' breakdown: its metric and
    /// percent of peak.
    pub fn busiest_part(&self) -> Option<(&str, f64)> {
        self.breakdown
            .iter()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(name, percent)| (name.as_str(), *percent))
    }

    /// Every warp-stall sample ncu attributed to a line, in the kernel's
    /// file and in other files.
    pub fn stall_samples(&self) -> f64 {
        self.attributed(|l| l.warp_stall_samples, |f| f.warp_stall_samples)
    }

    /// Every executed instruction ncu attributed to a line, in the
    /// kernel's file and in other files.
    pub fn instructions_executed(&self) -> f64 {
        self.attributed(|l| l.instructions_executed, |f| f.instructions_executed)
    }

    /// One counter summed over the kernel's lines and the other files.
    fn attributed(&self, own: fn(&SourceLine) -> Option<f64>, other: fn(&OtherFile) -> f64) -> f64 {
        let lines: f64 = self.source_lines.iter().filter_map(own).sum();
        lines + self.other_files.iter().map(other).sum::<f64>()
    }
}

/// Why results.json could not be read.
#[derive(Debug)]
pub enum ReadError {
    Json {
        line: usize,
        column: usize,
        message: String,
    },
    Version {
        found: u32,
    },
    /// A file of an older schema whose migration did not read.
    Migrated {
        found: u32,
        message: String,
    },
    NotResults,
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Json {
                line,
                column,
                message,
            } => write!(
                f,
                "{line}:{column}: {message} (results.json is written by `gpuprof report`; re-run it if the file was edited or cut short)"
            ),
            ReadError::Version { found } => write!(
                f,
                "schema version {found} is not one this gpuprof reads (1 to {SCHEMA_VERSION}); render it with the gpuprof that wrote it, or re-run `gpuprof report`"
            ),
            ReadError::Migrated { found, message } => write!(
                f,
                "this results.json has schema version {found}, and brought up to version {SCHEMA_VERSION} it does not read: {message} (re-run `gpuprof report`)"
            ),
            ReadError::NotResults => write!(
                f,
                "this JSON has no \"schema_version\": it is not a gpuprof results.json"
            ),
        }
    }
}

impl std::error::Error for ReadError {}

/// Parses results.json, checking the schema version first so that a file
/// from another version gets a version error rather than a field error.
pub fn read_results(text: &str) -> Result<Results, ReadError> {
    let json = |e: serde_json::Error| ReadError::Json {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    };
    let value: serde_json::Value = serde_json::from_str(text).map_err(json)?;
    let version = value
        .get("schema_version")
        .and_then(serde_json::Value::as_u64)
        .ok_or(ReadError::NotResults)?;
    let mut results: Results = match version {
        1 => {
            let mut value = value;
            super::migrate::from_1_to_2(&mut value);
            serde_json::from_value(value).map_err(|e| ReadError::Migrated {
                found: 1,
                message: e.to_string(),
            })
        }
        current if current == u64::from(SCHEMA_VERSION) => serde_json::from_str(text).map_err(json),
        other => Err(ReadError::Version {
            found: u32::try_from(other).unwrap_or(u32::MAX),
        }),
    }?;
    // Runs recorded when gpuprof explained a sequence's longest launch
    // read as a run recorded now would.
    for run in results.variants.iter_mut().flat_map(|v| v.runs.iter_mut()) {
        run.explain_dominant_launch();
    }
    Ok(results)
}

/// Serializes results for results.json (pretty, stable key order).
pub fn write_results(results: &Results) -> String {
    let mut text = serde_json::to_string_pretty(results).expect("results serialize");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(kernel: &str, nanoseconds: f64) -> Profile {
        Profile {
            ncu_id: 0,
            kernel_name: kernel.into(),
            metrics: BTreeMap::from([(super::super::metrics::DURATION.to_string(), nanoseconds)]),
            source_lines: Vec::new(),
            source_note: None,
            other_files: Vec::new(),
            lines_at: None,
            breakdown: BTreeMap::new(),
        }
    }

    #[test]
    fn a_sequence_is_explained_by_the_longest_launch_of_the_kernel_that_takes_the_most_time() {
        // sort 10 µs once; merge 4 × 3 µs = 12 µs, its third launch 3.5 µs.
        let steps = [
            launch("sort", 10_000.0),
            launch("merge", 3_000.0),
            launch("merge", 2_500.0),
            launch("merge", 3_500.0),
            launch("merge", 3_000.0),
        ];
        let explained = explained_launch(&steps).unwrap();
        assert_eq!((explained.index, explained.kernel_launches), (3, 4));
        assert_eq!(explained.kernel, "merge");
        assert!((explained.kernel_share - 12.0 / 22.0).abs() < 1e-12);
        // Ties go to the kernel launched first, and to its first launch.
        let even = [launch("a", 1.0), launch("b", 1.0), launch("a", 0.0)];
        assert_eq!(explained_launch(&even).unwrap().index, 0);
        assert_eq!(explained_launch(&steps[..1]), None);
    }

    /// The recorded bitonic sort's 22-launch shared-memory variant.
    fn bitonic_shared() -> RunResult {
        let text = include_str!("../../tests/fixtures/h200-bitonic-sort/results.json");
        let results = read_results(text).unwrap();
        results.variant("bitonic-shared").unwrap().runs[0].clone()
    }

    #[test]
    fn a_sequences_whole_profile_has_every_launchs_lines_or_none_and_says_why() {
        let run = bitonic_shared();
        let whole = run.whole_profile().unwrap();
        let samples: f64 = run.steps.iter().map(Profile::stall_samples).sum();
        assert!((whole.stall_samples() - samples).abs() < 1e-6 * samples);
        assert!(whole.source_lines.len() > run.profile.as_ref().unwrap().source_lines.len());

        let mut partial = run.clone();
        partial.steps[2].source_lines.clear();
        partial.steps[2].source_note = Some("ncu's source page of this launch is missing".into());
        let whole = partial.whole_profile().unwrap();
        assert!(whole.source_lines.is_empty() && whole.other_files.is_empty());
        assert_eq!(
            whole.source_note.as_deref(),
            Some(
                "ncu gave no per-line counters for 1 of the sequence's 22 launches (launch 3: ncu's source page of this launch is missing), so its lines, which would be a part of the whole, are not shown"
            )
        );
    }
}
