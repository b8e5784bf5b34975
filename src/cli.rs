//! The command line, as clap derive types only: what each subcommand
//! takes, its one-line description and an example. Imports nothing else
//! from the crate.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::pipeline::GpuChoice;

/// `9.0`, `90` or `sm_90` → (9, 0).
fn parse_architecture(text: &str) -> Result<(u32, u32), String> {
    let digits: String = text
        .trim_start_matches("sm_")
        .trim_start_matches("compute_")
        .chars()
        .filter(|c| *c != '.')
        .collect();
    let invalid = || format!("{text:?} is not a compute capability: give it as 9.0, 90 or sm_90");
    if digits.len() < 2 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(invalid());
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Ok((
        major.parse().map_err(|_| invalid())?,
        minor.parse().map_err(|_| invalid())?,
    ))
}

/// Which share of a suite `report --shard` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardArg {
    /// Shard `index` of `count`, 1-based, as given.
    Part { index: u32, count: u32 },
    /// From the Slurm job array's SLURM_ARRAY_TASK_* variables.
    Auto,
}

/// `auto` or `i/n`; the range of `i` is checked once `n` is known.
fn parse_shard(text: &str) -> Result<ShardArg, String> {
    if text == "auto" {
        return Ok(ShardArg::Auto);
    }
    let invalid = || {
        format!(
            "{text:?} is not a shard: give i/n (shard i of n, from 1/n to n/n, e.g. 1/4) or auto (from a Slurm job array)"
        )
    };
    let (index, count) = text.split_once('/').ok_or_else(invalid)?;
    Ok(ShardArg::Part {
        index: index.trim().parse().map_err(|_| invalid())?,
        count: count.trim().parse().map_err(|_| invalid())?,
    })
}

/// `all` or a comma-separated list of GPU indices or UUIDs.
fn parse_gpus(text: &str) -> Result<GpuChoice, String> {
    if text.trim() == "all" {
        return Ok(GpuChoice::All);
    }
    let gpus = crate::pipeline::split_list(text);
    if gpus.is_empty() {
        return Err(format!(
            "{text:?} names no GPU: give all, or indices or UUIDs separated by commas (0,1)"
        ));
    }
    if let Some(odd) = gpus
        .iter()
        .find(|g| !g.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
    {
        return Err(format!(
            "{odd:?} is not a GPU index or UUID (as nvidia-smi -L prints them)"
        ));
    }
    Ok(GpuChoice::These(gpus))
}

/// What stdout shows once a report is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The summary table and the report's path
    Table,
    /// analysis.json: every conclusion, versioned (docs/analysis-json.md)
    Json,
    /// One row per variant and size: times, speedups, correctness, limiter
    Csv,
}

/// The paper `--pdf` prints on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PaperSize {
    /// ISO A4, 210 × 297 mm
    A4,
    /// US Letter, 8.5 × 11 in
    Letter,
}

/// What to do with a report once it is written (report, render, compare).
#[derive(Debug, Clone, Args)]
pub struct Written {
    /// Open the report in the default browser when it is written
    #[arg(long)]
    pub open: bool,
    /// What stdout shows: the summary table, the conclusions as JSON, or the summary as CSV (the report's path then goes to stderr)
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also print the report to report.pdf through headless Chromium: the summary, chain, key charts and verdicts first, the details after a page break (docs/printing.md)
    #[arg(long)]
    pub pdf: bool,
    /// The paper report.pdf is printed on
    #[arg(long, value_enum, default_value_t = PaperSize::A4, requires = "pdf")]
    pub paper: PaperSize,
}

#[derive(Debug, Parser)]
#[command(
    name = "gpuprof",
    version,
    about = "Compile, verify, time and profile CUDA kernel variants, and explain in one HTML report what each optimization did",
    after_help = "Example:\n  gpuprof report examples/transpose/variants.toml\n  gpuprof render examples/transpose/results.json"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run a suite on the GPU (build, verify, time, profile with ncu) and write report.html, report.md and results.json
    #[command(
        after_help = "Example:\n  gpuprof report examples/transpose/variants.toml -o out/transpose"
    )]
    Report {
        /// The suite's variants.toml
        config: PathBuf,
        /// Output folder [default: gpuprof-out/<suite>]
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
        /// The ncu binary to use [default: ncu on PATH, $CUDA_HOME/bin/ncu, /usr/local/cuda/bin/ncu]
        #[arg(long, value_name = "PATH")]
        ncu: Option<PathBuf>,
        /// Time and verify only; do not profile with ncu
        #[arg(long)]
        no_profile: bool,
        /// Stop a variant that runs this many seconds without finishing (1 to 604800, a week)
        #[arg(long, value_name = "SECONDS", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=604_800))]
        timeout: u64,
        #[command(flatten)]
        written: Written,
        /// Run everything again, even what the previous results.json already holds unchanged; and overwrite files in the output folder that gpuprof did not write or cannot read
        #[arg(long)]
        force: bool,
        /// Check without a GPU: resolve the suite, compile every kernel and print the plan (sizes, geometry, buffers, bytes and flops per size)
        #[arg(long)]
        check: bool,
        /// The compute capability --check compiles for, e.g. 9.0 or sm_90
        #[arg(long, value_name = "CC", default_value = "9.0", requires = "check", value_parser = parse_architecture)]
        arch: (u32, u32),
        /// Run only shard i of n: every variant at the sizes dealt to it (all variants of one size in one shard), writing a partial results.json and its ncu report [default folder: gpuprof-out/<suite>/shard-i-of-n]; `auto` takes i and n from a Slurm job array (SLURM_ARRAY_TASK_ID, _MIN, _MAX, _COUNT). Join the shards with `gpuprof merge`
        #[arg(long, value_name = "i/n|auto", value_parser = parse_shard, conflicts_with = "check", group = "sharded")]
        shard: Option<ShardArg>,
        /// Balance the shards by the timings of this results.json (every shard must be given the same file) [default: equal weights, sizes dealt in order]
        #[arg(long, value_name = "RESULTS", requires = "sharded")]
        balance_from: Option<PathBuf>,
        /// Run one shard per GPU of this host side by side (children with CUDA_VISIBLE_DEVICES set, in OUT/shards/), then merge them into OUT: `all` (those CUDA_VISIBLE_DEVICES names, else every GPU nvidia-smi lists) or indices or UUIDs, e.g. 0,2,3
        #[arg(long, value_name = "all|LIST", value_parser = parse_gpus, conflicts_with = "check", group = "sharded")]
        gpus: Option<GpuChoice>,
    },
    /// Join the results of the shards of one suite (`report --shard i/n`) into one results.json and its reports; refuses shards that did not run alike
    #[command(
        after_help = "Example:\n  gpuprof report suite.toml --shard 1/2 -o out/shard-1\n  gpuprof report suite.toml --shard 2/2 -o out/shard-2\n  gpuprof merge out/shard-1 out/shard-2 -o out/merged"
    )]
    Merge {
        /// The shards' output folders (or their results.json files)
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// Output folder for the merged results.json, reports and the shards' ncu reports
        #[arg(short, long, value_name = "DIR", required = true)]
        output: PathBuf,
        /// Overwrite files in the output folder that gpuprof did not write or cannot read
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        written: Written,
    },
    /// Rebuild report.html and report.md from a saved results.json (no GPU, no ncu)
    #[command(
        after_help = "Example:\n  gpuprof render examples/transpose/results.json -o /tmp/transpose"
    )]
    Render {
        /// A results.json written by `gpuprof report`
        results: PathBuf,
        /// Output folder [default: the folder of results.json]
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
        /// Print the report's view-model as JSON instead of writing files
        #[arg(long)]
        dump_view: bool,
        #[command(flatten)]
        written: Written,
    },
    /// Check every claim the report makes against the counters in a saved results.json; lists the unsupported ones and fails when there is any
    #[command(after_help = "Example:\n  gpuprof audit examples/transpose/results.json")]
    Audit {
        /// A results.json written by `gpuprof report`
        results: PathBuf,
        /// Print the audit as JSON
        #[arg(long)]
        json: bool,
    },
    /// What changed between two runs of a suite: every variant and size faster, slower or the same beyond the timing noise of both
    #[command(
        after_help = "Example:\n  gpuprof diff before/results.json gpuprof-out/transpose/results.json"
    )]
    Diff {
        /// The older results.json
        before: PathBuf,
        /// The newer results.json
        after: PathBuf,
        /// Print the comparison as JSON
        #[arg(long)]
        json: bool,
    },
    /// Build the same report from existing ncu data: .ncu-rep files or CSV exports of their raw page
    #[command(
        after_help = "Example:\n  gpuprof compare naive.ncu-rep tiled.ncu-rep --name naive --name tiled\n  gpuprof compare raw.csv --kernel 'transpose'"
    )]
    Compare {
        /// .ncu-rep reports (read through ncu) or `ncu --import R --csv --page raw` exports
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// A name for each input, in order [default: the file name]
        #[arg(long = "name", value_name = "NAME")]
        names: Vec<String>,
        /// The variant every other is compared with [default: the first]
        #[arg(long, value_name = "NAME")]
        baseline: Option<String>,
        /// Only launches whose kernel name matches this regular expression
        #[arg(long, value_name = "REGEX")]
        kernel: Option<String>,
        /// Output folder [default: gpuprof-out/compare]
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
        /// The ncu binary used to read .ncu-rep files
        #[arg(long, value_name = "PATH")]
        ncu: Option<PathBuf>,
        #[command(flatten)]
        written: Written,
    },
    /// Check the setup: driver and GPU, NVRTC, Nsight Compute, counter permissions, line info in a binary
    #[command(
        after_help = "Example:\n  gpuprof doctor\n  gpuprof doctor --binary ./build/transpose"
    )]
    Doctor {
        /// The ncu binary to check [default: ncu on PATH and the usual folders]
        #[arg(long, value_name = "PATH")]
        ncu: Option<PathBuf>,
        /// A CUDA program of yours, checked for line info (-lineinfo)
        #[arg(long, value_name = "PATH")]
        binary: Option<PathBuf>,
    },
    /// Write a commented variants.toml and two kernels to start a suite from
    #[command(
        after_help = "Example:\n  gpuprof init my-suite && gpuprof report my-suite/variants.toml"
    )]
    Init {
        /// The folder to create them in (made if missing)
        #[arg(default_value = ".")]
        folder: PathBuf,
        /// Write a variants.toml for the kernels of your own .cu file instead: every kernel and template, its parameters as args to fill in, geometry from its literal <<<…>>> launches; several files (`--from naive.cu tiled.cu`) make one suite, a variant per kernel of each, in order
        #[arg(long, value_name = "FILE.cu", num_args = 1..)]
        from: Vec<PathBuf>,
    },
    /// Internal: run a harness job (used by `gpuprof report`, also under ncu)
    #[command(hide = true)]
    Harness {
        #[arg(long)]
        job: PathBuf,
        /// Wait for the job file to appear, touching no GPU meanwhile, for
        /// as long as the process of this id (the gpuprof that will write
        /// it) lives
        #[arg(long, value_name = "PID")]
        wait_for: Option<u32>,
        /// While waiting for the job, open the GPU once this file appears
        /// (gpuprof writes it when no other process is to place anything on
        /// the GPU before its timings), so that CUDA's start-up is spent
        /// before the job comes
        #[arg(long, value_name = "FILE", requires = "wait_for")]
        open_on: Option<PathBuf>,
        /// Once it has opened the GPU (or could not), write this file: the
        /// next waiting harness's gate, so that their contexts come one
        /// after the other, in the same order every run
        #[arg(long, value_name = "FILE", requires = "open_on")]
        then_open: Option<PathBuf>,
    },
}
