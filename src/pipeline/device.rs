//! The device stage: the CUDA device's facts, asked of a harness process
//! (so that gpuprof itself never creates a CUDA context), merged with what
//! nvidia-smi says about the driver, clocks and the GPU's UUID; and the
//! name of the host it runs on.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use super::output::{write_atomic, write_json};
use super::time::harness_job;
use crate::config::Plan;
use crate::error::Error;
use crate::harness::{Event, Job, Mode};
use crate::model::device::{Device, DriverFacts, SmiFacts, parse_nvidia_smi};
use crate::model::notice::Notice;
use crate::process::{self, Invocation};

/// Asks a harness process for the device's facts.
pub(super) fn probe(
    harness: &Invocation,
    plan: &Plan,
    work_dir: &Path,
) -> Result<DriverFacts, Error> {
    let job_path = work_dir.join("device-job.json");
    write_json(
        &job_path,
        &Job {
            mode: Mode::Device,
            plan: plan.clone(),
            modules: BTreeMap::new(),
            items: Vec::new(),
            failed: Vec::new(),
        },
    )?;
    let mut facts = None;
    let mut events_log = String::new();
    let outcome = process::run_reporting(
        &harness_job(harness, &job_path),
        Some(Duration::from_secs(120)),
        |line| {
            if let Ok(Event::Device(device)) = Event::from_line(line) {
                facts = Some(device);
                events_log.push_str(line);
                events_log.push('\n');
            }
        },
    );
    write_atomic(&work_dir.join("device-events.jsonl"), events_log.as_bytes())?;
    match (facts, outcome) {
        (Some(facts), Ok(_)) => Ok(facts),
        (_, Err(error)) => Err(Error::Tool(format!(
            "no usable CUDA device: {}\n(`gpuprof render` works without a GPU on a saved results.json)",
            error.output_tail(6).trim_start_matches("error: ")
        ))),
        (None, Ok(_)) => Err(Error::Tool("the harness reported no device".into())),
    }
}

/// The device as results.json records it: the driver's facts and, where
/// nvidia-smi answered ([`read_nvidia_smi`]), its driver version and
/// clocks (a notice otherwise).
pub(super) fn describe(
    facts: &DriverFacts,
    smi: Result<SmiFacts, String>,
    notices: &mut Vec<Notice>,
) -> Device {
    let smi = smi
        .map_err(|reason| notices.push(Notice::NvidiaSmiUnreadable { reason }))
        .ok();
    Device::from_facts(facts, smi)
}

/// What nvidia-smi says of the GPU the harness runs on (read while the
/// device is probed: it takes a few tenths of a second), or why not.
pub(super) fn read_nvidia_smi() -> Result<SmiFacts, String> {
    process::run(&Invocation::new("nvidia-smi").args(["-q", "-x"]))
        .map_err(|e| e.to_string())
        .and_then(|output| parse_nvidia_smi(&output.stdout, first_visible_device().as_deref()))
}

/// The first entry of `CUDA_VISIBLE_DEVICES`: the GPU the harness runs on,
/// among those nvidia-smi lists (which ignores the variable).
fn first_visible_device() -> Option<String> {
    super::gpus::cuda_visible_devices()?.into_iter().next()
}

/// The name of this machine (`gethostname`), or `unknown`.
pub(super) fn host_name() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: gethostname(2) writes at most `len` bytes into the buffer.
    let status = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    let end = buffer.iter().position(|b| *b == 0).unwrap_or(buffer.len());
    match status == 0 && end > 0 {
        true => String::from_utf8_lossy(&buffer[..end]).into_owned(),
        false => "unknown".into(),
    }
}
