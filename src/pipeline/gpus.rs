//! `gpuprof report --gpus all|0,2,3`: one shard of the suite per GPU of this
//! host, each a child `gpuprof report --shard i/n` whose CUDA_VISIBLE_DEVICES
//! names its GPU (ncu serializes its work per device, so one ncu per GPU
//! runs at the same time), written to OUT/shards/shard-i-of-n; then
//! `merge` joins them into OUT. A shard that fails costs only its sizes:
//! the merge names them and exits as incomplete.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::merge::{MergeRequest, merge};
use super::{Outcome, ReportRequest, output};
use crate::config;
use crate::error::Error;
use crate::process::{self, Invocation, ToolError};
use crate::render::terminal::visible;

/// Which GPUs `--gpus` runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuChoice {
    /// Every GPU this process may use: those CUDA_VISIBLE_DEVICES names
    /// (as a Slurm allocation sets it), else every one nvidia-smi lists.
    All,
    /// These, by index or UUID, as CUDA_VISIBLE_DEVICES takes them.
    These(Vec<String>),
}

/// Runs the suite as one shard per GPU, side by side, then merges them.
pub fn report_on_gpus(request: &ReportRequest, choice: &GpuChoice) -> Result<Outcome, Error> {
    let gpus = match choice {
        GpuChoice::These(gpus) => gpus.clone(),
        GpuChoice::All => visible_gpus()?,
    };
    // The suite is read first, so that a bad suite fails once, here.
    let plan = config::load(&request.config)?;
    let out = output::out_dir(request.out_dir.as_deref(), &plan.suite.name);
    let count = gpus.len();
    let exe = std::env::current_exe()
        .map_err(|e| Error::Tool(format!("cannot find the gpuprof executable: {e}")))?;
    anstream::eprintln!(
        "running {} side by side, one per GPU ({})",
        crate::analysis::format::counted(count, "shard"),
        gpus.join(", ")
    );
    let shards: Vec<(usize, &String, PathBuf)> = gpus
        .iter()
        .enumerate()
        .map(|(i, gpu)| {
            let folder = out
                .join("shards")
                .join(format!("shard-{}-of-{count}", i + 1));
            (i + 1, gpu, folder)
        })
        .collect();
    std::thread::scope(|scope| {
        for (index, gpu, folder) in &shards {
            let invocation = shard_invocation(&exe, request, (*index, count), gpu, folder);
            scope.spawn(move || {
                let started = Instant::now();
                let outcome = process::run(&invocation);
                keep_output(folder, &outcome);
                anstream::eprintln!(
                    "GPU {}: shard {index}/{count} {}",
                    visible(gpu),
                    describe(&outcome, started.elapsed().as_secs_f64())
                );
            });
        }
    });
    let finished: Vec<PathBuf> = shards
        .into_iter()
        .map(|(_, _, folder)| folder)
        .filter(|folder| folder.join(output::RESULTS_FILE).is_file())
        .collect();
    if finished.is_empty() {
        return Err(Error::Tool(
            "no shard wrote results: see the lines above for why each failed".into(),
        ));
    }
    merge(&MergeRequest {
        inputs: finished,
        out_dir: out,
        command_line: request.command_line.clone(),
        force: request.force,
    })
}

/// `gpuprof report CONFIG --shard i/n -o FOLDER …` on one GPU, with the
/// options of the request that shape a run.
fn shard_invocation(
    exe: &Path,
    request: &ReportRequest,
    (index, count): (usize, usize),
    gpu: &str,
    folder: &Path,
) -> Invocation {
    let mut invocation = Invocation::new(exe)
        .arg("report")
        .arg(request.config.as_os_str())
        .args(["--shard".to_string(), format!("{index}/{count}")])
        .arg("-o")
        .arg(folder.as_os_str())
        .args([
            "--timeout".to_string(),
            request.idle_timeout.as_secs().to_string(),
        ])
        .env("CUDA_VISIBLE_DEVICES", gpu)
        // CUDA's numbering as nvidia-smi's, so that an index means one GPU.
        .env("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
    if let Some(ncu) = &request.ncu {
        invocation = invocation.arg("--ncu").arg(ncu.as_os_str());
    }
    if let Some(balance) = &request.balance_from {
        invocation = invocation.arg("--balance-from").arg(balance.as_os_str());
    }
    if request.skip_profile {
        invocation = invocation.arg("--no-profile");
    }
    if request.force {
        invocation = invocation.arg("--force");
    }
    invocation
}

/// Writes what a shard's gpuprof printed (its table, its stage times, its
/// warnings or errors) to `gpuprof.log` in its folder, so that nothing it
/// said is lost with the child; a folder that cannot be written is said
/// on stderr.
fn keep_output(folder: &Path, outcome: &Result<process::ToolOutput, ToolError>) {
    let (stdout, stderr) = match outcome {
        Ok(output) => (&output.stdout, &output.stderr),
        Err(error) => (&error.stdout, &error.stderr),
    };
    let log = folder.join("gpuprof.log");
    let written = std::fs::create_dir_all(folder)
        .and_then(|()| std::fs::write(&log, format!("{stdout}{stderr}")));
    if let Err(error) = written {
        anstream::eprintln!(
            "could not keep the shard's output in {}: {error}",
            visible(&log.display().to_string())
        );
    }
}

/// How a shard's run ended, in a few words.
fn describe(outcome: &Result<process::ToolOutput, ToolError>, seconds: f64) -> String {
    match outcome {
        Ok(_) => format!("done in {seconds:.1} s"),
        Err(error) => match &error.kind {
            process::ToolErrorKind::Failed { status } => format!(
                "ended ({status}) after {seconds:.1} s: {}",
                visible(error.output_tail(3).trim())
            ),
            _ => visible(&error.to_string()),
        },
    }
}

/// The entries of CUDA_VISIBLE_DEVICES (indices or UUIDs), when it is set
/// and names any.
pub(super) fn cuda_visible_devices() -> Option<Vec<String>> {
    let entries = split_list(&std::env::var("CUDA_VISIBLE_DEVICES").ok()?);
    (!entries.is_empty()).then_some(entries)
}

/// The GPUs this process may use: CUDA_VISIBLE_DEVICES's entries when it
/// is set, else the indices nvidia-smi lists.
fn visible_gpus() -> Result<Vec<String>, Error> {
    if let Some(visible) = cuda_visible_devices() {
        return Ok(visible);
    }
    let listed = process::run(
        &Invocation::new("nvidia-smi").args(["--query-gpu=index", "--format=csv,noheader"]),
    )
    .map_err(|error| {
        Error::Tool(format!(
            "--gpus all counts the GPUs with nvidia-smi, which failed ({error}); name them instead, e.g. --gpus 0,1"
        ))
    })?;
    let gpus = split_list(&listed.stdout.replace('\n', ","));
    match gpus.is_empty() {
        true => Err(Error::Tool(
            "nvidia-smi lists no GPU: --gpus needs at least one".into(),
        )),
        false => Ok(gpus),
    }
}

/// The non-empty entries of a comma-separated list, trimmed.
pub fn split_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|entry| !entry.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_runs_the_request_on_its_gpu_in_its_folder() {
        let request = ReportRequest {
            config: "suite/variants.toml".into(),
            out_dir: None,
            ncu: Some("/opt/ncu".into()),
            skip_profile: false,
            idle_timeout: std::time::Duration::from_secs(30),
            command_line: "gpuprof report suite/variants.toml --gpus 0,3".into(),
            force: true,
            shard: None,
            balance_from: None,
        };
        let line = shard_invocation(
            Path::new("/bin/gpuprof"),
            &request,
            (2, 2),
            "3",
            Path::new("out/shards/shard-2-of-2"),
        );
        assert_eq!(
            line.display(),
            "/bin/gpuprof report suite/variants.toml --shard 2/2 -o out/shards/shard-2-of-2 --timeout 30 --ncu /opt/ncu --force"
        );
        assert!(
            line.env
                .contains(&("CUDA_VISIBLE_DEVICES".into(), "3".into()))
        );
        assert!(
            line.env
                .contains(&("CUDA_DEVICE_ORDER".into(), "PCI_BUS_ID".into()))
        );
        assert_eq!(split_list(" 0, 2,,GPU-1f2e "), ["0", "2", "GPU-1f2e"]);
    }
}
