//! Notices: what did not stop a run but the reader must know (a stage
//! skipped or failed, runs reused, data that ncu did not collect). Each is a
//! variant with its facts, so a script can match on the kind; its Display
//! is the advice the report and the terminal show.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Notice {
    /// nvidia-smi did not answer, so the driver version and clocks are
    /// missing.
    NvidiaSmiUnreadable { reason: String },
    /// Profiling did not run: ncu was not found or `--no-profile` was given
    /// (`reason` says which).
    ProfilingSkipped { reason: String },
    /// No variant ran cleanly, so there was nothing to profile.
    NothingToProfile,
    /// `--no-profile`: timings and verification only.
    ProfilingNotRequested,
    /// ncu ran and failed; `reason` is gpuprof's advice or ncu's output.
    ProfilingFailed { reason: String },
    /// ncu ended without writing a report.
    NoReport { advice: Option<String> },
    /// ncu's report could not be exported or read.
    ExportFailed { reason: String },
    /// ncu's results do not line up with the launches the harness profiled.
    LaunchMismatch { reason: String },
    /// Command variants are timed by ncu; their reports.
    CommandsTimedByNcu { reports: Vec<String> },
    /// Runs reused from the previous results.json.
    Reused { runs: usize },
    /// `gpuprof compare`: the results come from existing ncu data.
    Imported,
    /// `gpuprof compare`: an imported launch lacks metrics of the fixed set.
    MetricsMissing {
        variant: String,
        origin: String,
        missing: Vec<String>,
        /// How many metrics the fixed set had.
        of: usize,
    },
    /// Variants without per-line counters, and why.
    NoSourceLines {
        variants: Vec<String>,
        reason: String,
    },
    /// The run was interrupted (Ctrl-C, SIGTERM, SIGHUP): `ran` of `total`
    /// runs were measured, the others did not run.
    Interrupted { ran: usize, total: usize },
    /// Runs (`variant at size`) whose every sample ran while the SM clock
    /// was below the throttle threshold of its maximum.
    Throttled { runs: Vec<String>, of: usize },
    /// `gpuprof merge`: sizes of the suite that no shard given holds.
    SizesNotRun { sizes: Vec<String> },
    /// A notice from a results.json of schema 1, whose notices were text.
    Earlier { text: String },
}

impl Notice {
    /// Whether sizes of the suite are missing from a merged run.
    pub fn is_incomplete(&self) -> bool {
        matches!(self, Notice::SizesNotRun { .. })
    }

    /// Whether profiling was asked for and produced no counters (no ncu,
    /// refused counter access, ncu failed, no report, an export that
    /// failed or launches that did not match).
    pub fn is_profiling_failure(&self) -> bool {
        matches!(
            self,
            Notice::ProfilingSkipped { .. }
                | Notice::ProfilingFailed { .. }
                | Notice::NoReport { .. }
                | Notice::ExportFailed { .. }
                | Notice::LaunchMismatch { .. }
        )
    }
}

impl fmt::Display for Notice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Notice::NvidiaSmiUnreadable { reason } => write!(
                f,
                "nvidia-smi could not be read, so the driver version and current clocks are missing: {reason}"
            ),
            Notice::ProfilingSkipped { reason } => write!(f, "profiling was skipped: {reason}"),
            Notice::NothingToProfile => {
                f.write_str("profiling was skipped: no variant ran cleanly")
            }
            Notice::ProfilingNotRequested => f.write_str(
                "profiling was skipped (--no-profile): the report has timings and verification only",
            ),
            Notice::ProfilingFailed { reason } => write!(f, "profiling failed: {reason}"),
            Notice::NoReport { advice } => match advice {
                Some(advice) => write!(f, "ncu wrote no report: {advice}"),
                None => f.write_str("ncu wrote no report"),
            },
            Notice::ExportFailed { reason } | Notice::LaunchMismatch { reason } => {
                f.write_str(reason)
            }
            Notice::CommandsTimedByNcu { reports } => write!(
                f,
                "Command variants are timed by ncu, not by CUDA events: their samples are the durations of the profiled launches (ncu flushes the caches before each, so they read cold data). Their reports: {}.",
                reports.join(", ")
            ),
            Notice::Reused { runs } => write!(
                f,
                "{runs} of the runs were reused from the previous results.json: nothing they depend on changed (source, options, geometry, reference, device, ncu version, timing settings). `--force` runs everything again. The ncu report holds only the launches profiled this time."
            ),
            Notice::Imported => f.write_str(
                "These results come from existing ncu data: times are ncu's gpu__time_duration of the profiled launches, the median where a kernel ran several times at one grid and block (a speedup between single launches carries no noise estimate); outputs were not verified, and no change was declared.",
            ),
            Notice::MetricsMissing {
                variant,
                origin,
                missing,
                of,
            } => write!(
                f,
                "`{variant}` ({origin}): {} of gpuprof's {of} metrics were not collected and show as \"not collected\": {}. Profile again with `ncu --metrics {} --section SourceCounters --import-source yes -o REPORT ...`, or let `gpuprof report` do it.",
                missing.len(),
                missing.join(", "),
                missing.join(",")
            ),
            Notice::NoSourceLines { variants, reason } => write!(
                f,
                "No per-line counters for {}: {reason}",
                variants.join(", ")
            ),
            Notice::Interrupted { ran, total } => write!(
                f,
                "incomplete: the run was interrupted; {ran} of {total} runs were measured and are kept, the others did not run and profiles may be missing (`gpuprof report` again completes it and reuses what is here)"
            ),
            Notice::Throttled { runs, of } => write!(
                f,
                "the SM clock is throttled: {} of {of} runs ({}) had every sample taken below 90% of the maximum SM clock, so their times are those of a slower clock. Look for power or thermal limits or locked clocks (nvidia-smi -q -d PERFORMANCE,CLOCK) and run again",
                runs.len(),
                runs.join(", ")
            ),
            Notice::SizesNotRun { sizes } => write!(
                f,
                "incomplete: the sizes {} did not run: no shard given to `gpuprof merge` holds them (a shard failed or was not given); run that shard again and merge again",
                sizes.join(", ")
            ),
            Notice::Earlier { text } => f.write_str(text),
        }
    }
}
