//! `gpuprof merge DIR... -o OUT`: the results of the shards of one suite
//! (`gpuprof report --shard i/n`) joined into one run. It refuses shards
//! that did not run alike (another suite file, gpuprof, GPU model, driver,
//! ncu or clock control; another split) and two shards holding one size,
//! naming both; sizes no shard holds are named in a notice. Each shard's
//! ncu report is copied beside the merged one, and the merged results
//! name every shard's GPU, host and folder.

use std::path::{Path, PathBuf};

use super::{Outcome, output};
use crate::error::Error;
use crate::model::notice::Notice;
use crate::model::results::{Results, VariantResult};
use crate::model::shard::{Shard, ShardOrigin};

/// What `gpuprof merge` was asked to do.
#[derive(Debug, Clone)]
pub struct MergeRequest {
    /// The shards' output folders (or their results.json files).
    pub inputs: Vec<PathBuf>,
    pub out_dir: PathBuf,
    /// The command line as typed, recorded in the results.
    pub command_line: String,
    /// Overwrite files in the output folder that gpuprof did not write.
    pub force: bool,
}

/// One shard's results and where they were read.
struct Part {
    folder: PathBuf,
    results: Results,
    shard: Shard,
}

/// Joins the shards into one results.json and its reports in `out_dir`.
pub fn merge(request: &MergeRequest) -> Result<Outcome, Error> {
    if request.inputs.is_empty() {
        return Err(Error::Input(
            "give the output folders of the shards to merge (gpuprof merge out/shard-* -o out/merged)".into(),
        ));
    }
    let mut parts = request
        .inputs
        .iter()
        .map(|input| read_part(input))
        .collect::<Result<Vec<_>, _>>()?;
    parts.sort_by_key(|part| part.shard.index);
    check_agreement(&parts)?;
    let owners = owners_of_sizes(&parts)?;

    let folders = output::prepare_folders(Some(&request.out_dir), "")?;
    output::previous_results(&folders.out, request.force)?;
    let origins = parts
        .iter()
        .map(|part| copy_report(part, &folders.out))
        .collect::<Result<Vec<_>, _>>()?;
    let merged = join(&parts, &owners, origins, &request.command_line);
    output::save(&folders.results, &merged)?;
    output::write_reports(&folders.out, merged)
}

/// A shard's results.json, from its folder or the file itself.
fn read_part(input: &Path) -> Result<Part, Error> {
    let (folder, file) = match input.is_dir() {
        true => (input.to_path_buf(), input.join(output::RESULTS_FILE)),
        false => (
            input.parent().map(Path::to_path_buf).unwrap_or_default(),
            input.to_path_buf(),
        ),
    };
    let results = super::read_saved(&file)?;
    let shard = results.shard.clone().ok_or_else(|| {
        Error::Input(format!(
            "{} is not a shard's results.json (it records no --shard i/n): merge the folders that `gpuprof report --shard i/n` wrote",
            file.display()
        ))
    })?;
    Ok(Part {
        folder,
        results,
        shard,
    })
}

/// A fact every shard must share, read from its results (`None`: not
/// known there, so not compared).
type Fact = fn(&Part) -> Option<String>;

/// What every shard must agree on; the device's and tools' facts only
/// between shards that ran a size.
const SUITE_FACTS: &[(&str, Fact)] = &[
    ("suite file (SHA-256 of variants.toml)", |p| {
        Some(
            p.results
                .suite
                .file_sha256
                .clone()
                .unwrap_or_else(|| "not recorded".into()),
        )
    }),
    ("gpuprof version", |p| {
        Some(p.results.gpuprof_version.clone())
    }),
    ("number of shards", |p| Some(p.shard.count.to_string())),
    ("split of the sizes", |p| Some(p.shard.balanced_by.clone())),
];
const RUN_FACTS: &[(&str, Fact)] = &[
    ("GPU model", |p| {
        p.results.device.as_ref().map(|d| d.name.clone())
    }),
    ("driver version", |p| {
        p.results.device.as_ref()?.driver_version.clone()
    }),
    ("CUDA version of the driver", |p| {
        p.results.device.as_ref().map(|d| d.cuda_version.clone())
    }),
    ("ncu version", |p| {
        p.results.profiler.as_ref().map(|r| r.ncu_version.clone())
    }),
    ("clock control", |p| {
        p.results.profiler.as_ref().map(|r| r.clock_control.clone())
    }),
    ("compilers", |p| {
        let words: Vec<&str> = p
            .results
            .variants
            .iter()
            .filter_map(|v| v.build.compiler.map(|c| c.word()))
            .collect();
        (!words.is_empty()).then(|| words.join(", "))
    }),
];

/// Refuses shards that did not run alike, naming the fact, both values and
/// both folders.
fn check_agreement(parts: &[Part]) -> Result<(), Error> {
    let ran: Vec<&Part> = parts.iter().filter(|p| !p.shard.sizes.is_empty()).collect();
    let all: Vec<&Part> = parts.iter().collect();
    for (facts, among) in [(SUITE_FACTS, &all), (RUN_FACTS, &ran)] {
        for (name, fact) in facts {
            let mut first: Option<(&Part, String)> = None;
            for part in among.iter() {
                let Some(value) = fact(part) else { continue };
                match &first {
                    None => first = Some((part, value)),
                    Some((other, seen)) if *seen != value => {
                        return Err(Error::Input(format!(
                            "the shards disagree on the {name}: {seen:?} in {} but {value:?} in {}; `gpuprof merge` joins the shards of one suite run alike (same suite file, gpuprof, GPU model, driver, ncu, compilers and clock control, split the same way): run the odd shard again",
                            other.folder.display(),
                            part.folder.display()
                        )));
                    }
                    Some(_) => {}
                }
            }
        }
    }
    Ok(())
}

/// Which part holds each size of the suite (`None`: no shard given holds
/// it); refuses a shard given twice and a size in two shards.
fn owners_of_sizes(parts: &[Part]) -> Result<Vec<(String, Option<usize>)>, Error> {
    for pair in parts.windows(2) {
        if pair[0].shard.index == pair[1].shard.index {
            return Err(Error::Input(format!(
                "{} and {} are both shard {} of {}: give each shard's folder once",
                pair[0].folder.display(),
                pair[1].folder.display(),
                pair[0].shard.index,
                pair[0].shard.count
            )));
        }
    }
    let mut owners: Vec<(String, Option<usize>)> = parts[0]
        .shard
        .suite_sizes
        .iter()
        .map(|label| (label.clone(), None))
        .collect();
    for (index, part) in parts.iter().enumerate() {
        for size in &part.shard.sizes {
            let Some(owner) = owners.iter_mut().find(|(label, _)| label == size) else {
                continue;
            };
            if let Some(earlier) = owner.1 {
                return Err(Error::Input(format!(
                    "the size {size} is in two shards: {} and {}; every size must come from exactly one shard (give the folders of one split)",
                    parts[earlier].folder.display(),
                    part.folder.display()
                )));
            }
            owner.1 = Some(index);
        }
    }
    Ok(owners)
}

/// Copies a shard's ncu report (and its per-line counters' report) beside
/// the merged results as `profile-shard-i-of-n.ncu-rep`, and says where
/// the shard came from.
fn copy_report(part: &Part, out: &Path) -> Result<ShardOrigin, Error> {
    let name = |kind: &str| {
        format!(
            "{kind}-shard-{}-of-{}.ncu-rep",
            part.shard.index, part.shard.count
        )
    };
    let copied = |source: Option<&str>, copy: String| -> Result<Option<String>, Error> {
        let Some(source) = source.map(|s| part.folder.join(s)) else {
            return Ok(None);
        };
        if !source.is_file() {
            return Ok(None);
        }
        output::copy_atomic(&source, &out.join(&copy))?;
        Ok(Some(copy))
    };
    let profiler = part.results.profiler.as_ref();
    let report_file = copied(profiler.map(|p| p.report_file.as_str()), name("profile"))?;
    let lines_report_file = copied(
        profiler
            .and_then(|p| p.lines_run.as_ref())
            .map(|lines| lines.report_file.as_str()),
        name("profile-lines"),
    )?;
    let device = part
        .results
        .device
        .as_ref()
        .filter(|_| !part.shard.sizes.is_empty());
    Ok(ShardOrigin {
        index: part.shard.index,
        count: part.shard.count,
        sizes: part.shard.sizes.clone(),
        gpu: device.map(|d| d.name.clone()),
        gpu_uuid: device.and_then(|d| d.nvidia_smi.as_ref()?.uuid.clone()),
        host: part.shard.host.clone(),
        folder: part.folder.display().to_string(),
        report_file,
        lines_at: profiler.and_then(|p| p.lines_at.clone()),
        lines_report_file,
    })
}

/// The merged run: the suite's sizes that a shard holds, each variant's
/// runs taken from that shard, every shard's notices once, and a notice
/// naming the sizes no shard holds.
fn join(
    parts: &[Part],
    owners: &[(String, Option<usize>)],
    origins: Vec<ShardOrigin>,
    command: &str,
) -> Results {
    let base = &parts
        .iter()
        .find(|p| !p.shard.sizes.is_empty())
        .unwrap_or(&parts[0])
        .results;
    let held: Vec<(&str, &Results)> = owners
        .iter()
        .filter_map(|(label, owner)| Some((label.as_str(), &parts[(*owner)?].results)))
        .collect();
    let sizes = held
        .iter()
        .filter_map(|(label, results)| results.suite.sizes.iter().find(|s| s.label == *label))
        .cloned()
        .collect();
    let variants = base
        .variants
        .iter()
        .map(|variant| VariantResult {
            runs: held
                .iter()
                .filter_map(|(label, results)| results.variant(&variant.name)?.run(label).cloned())
                .collect(),
            ..variant.clone()
        })
        .collect();
    let mut notices: Vec<Notice> = Vec::new();
    for notice in parts.iter().flat_map(|p| &p.results.notices) {
        if !notices.contains(notice) {
            notices.push(notice.clone());
        }
    }
    let missing: Vec<String> = owners
        .iter()
        .filter(|(_, owner)| owner.is_none())
        .map(|(label, _)| label.clone())
        .collect();
    if !missing.is_empty() {
        notices.push(Notice::SizesNotRun { sizes: missing });
    }
    let profiler = base.profiler.clone().map(|mut profiler| {
        profiler.seconds = parts
            .iter()
            .filter_map(|p| p.results.profiler.as_ref())
            .map(|p| p.seconds)
            .sum();
        if let Some(origin) = origins.iter().find(|o| o.report_file.is_some()) {
            profiler.report_file = origin.report_file.clone().unwrap_or_default();
        }
        // Each shard chose its own size for the per-line counters, in a
        // run of its own: the shards (`ShardOrigin::lines_at`) say which.
        profiler.lines_at = None;
        profiler.lines_run = None;
        profiler
    });
    Results {
        created: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        command: command.to_string(),
        suite: crate::model::results::SuiteRecord {
            sizes,
            ..base.suite.clone()
        },
        profiler,
        variants,
        notices,
        shard: None,
        merged_from: origins,
        ..base.clone()
    }
}
