//! `gpuprof compare`: the report from existing ncu data. Each input (an
//! `.ncu-rep`, read through ncu's export, or a raw-page CSV) gives its
//! launches, filtered by `--kernel`; the launches of one input (of one
//! kernel, when the input holds several) form one variant, grouped into runs
//! by `ncu::import`; the results are then written and rendered like a
//! report's.

use std::path::{Path, PathBuf};

use super::Outcome;
use super::output::{create_dir, save_into, write_reports};
use crate::error::Error;
use crate::ncu::export::{ExportError, SourcePages, export};
use crate::ncu::import::{ImportedLaunch, compare_results};
use crate::ncu::raw::{self, RawLaunch};
use crate::ncu::run as ncu_run;
use crate::ncu::source::SourceFile;

/// The largest raw-page CSV compare reads: about 100,000 launches of ncu's
/// ~2.5 kB rows; a bigger export is refused with how to filter it, rather
/// than read into memory whole.
const MAX_EXPORT_BYTES: u64 = 256 << 20;

/// What `gpuprof compare` was asked to do.
#[derive(Debug, Clone)]
pub struct CompareRequest {
    /// `.ncu-rep` reports or raw-page CSV exports.
    pub inputs: Vec<PathBuf>,
    /// Names for the inputs, in order (the file stem otherwise).
    pub names: Vec<String>,
    /// Only launches whose kernel name matches.
    pub kernel: Option<String>,
    /// The variant the others are compared with (the first otherwise).
    pub baseline: Option<String>,
    pub out_dir: Option<PathBuf>,
    pub ncu: Option<PathBuf>,
    pub command_line: String,
}

/// Builds the report from existing ncu data.
pub fn compare(request: &CompareRequest) -> Result<Outcome, Error> {
    if request.inputs.is_empty() {
        return Err(Error::Input(
            "give at least one .ncu-rep or raw-page CSV to compare".into(),
        ));
    }
    let filter = match &request.kernel {
        Some(pattern) => Some(regex::Regex::new(pattern).map_err(|e| {
            Error::Input(format!(
                "--kernel {pattern:?} is not a regular expression: {}",
                crate::config::error::regex_reason(&e)
            ))
        })?),
        None => None,
    };
    let selects = |launch: &RawLaunch| {
        filter
            .as_ref()
            .is_none_or(|f| f.is_match(&launch.kernel_name))
    };
    let out_dir = request
        .out_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("gpuprof-out").join("compare"));
    create_dir(&out_dir)?;
    let mut imported = Vec::new();
    for (index, input) in request.inputs.iter().enumerate() {
        let shown = input.display().to_string();
        let selected = read_input(input, request.ncu.as_deref(), &selects)?;
        if selected.is_empty() {
            return Err(Error::Input(match &request.kernel {
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
        let kernel_of = |launch: &RawLaunch| {
            crate::ncu::ingest::kernel_without_parameters(&launch.kernel_name).to_string()
        };
        let several_kernels = selected
            .iter()
            .any(|(launch, _)| kernel_of(launch) != kernel_of(&selected[0].0));
        for (launch, source) in selected {
            let name = match several_kernels {
                true => format!("{stem}/{}", kernel_of(&launch)),
                false => stem.clone(),
            };
            imported.push(ImportedLaunch {
                name,
                origin: shown.clone(),
                launch,
                source,
            });
        }
    }
    if let Some(baseline) = &request.baseline
        && !imported.iter().any(|i| i.name == *baseline)
    {
        let mut names: Vec<&str> = imported.iter().map(|i| i.name.as_str()).collect();
        names.dedup();
        return Err(Error::Input(format!(
            "--baseline {baseline:?} is none of the compared kernels: {}",
            names.join(", ")
        )));
    }
    let created = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let results = compare_results(
        &imported,
        request.baseline.as_deref(),
        request.command_line.clone(),
        created,
    );
    save_into(&out_dir, &results)?;
    write_reports(&out_dir, results)
}

/// A launch chosen from an input, with its source page or why there is none.
type Selected = (RawLaunch, Result<Vec<SourceFile>, String>);

/// The launches of one input that `selects` keeps: an `.ncu-rep` through
/// ncu's export (with source pages), a CSV as the raw page it is.
fn read_input(
    input: &Path,
    ncu: Option<&Path>,
    selects: &dyn Fn(&RawLaunch) -> bool,
) -> Result<Vec<Selected>, Error> {
    let shown = input.display().to_string();
    if input.extension().is_none_or(|e| e != "ncu-rep") {
        let size = std::fs::metadata(input)
            .map_err(|e| Error::Input(format!("cannot read {shown}: {e}")))?
            .len();
        if size > MAX_EXPORT_BYTES {
            return Err(Error::Input(format!(
                "{shown} holds {size} bytes, more than gpuprof reads of one export ({MAX_EXPORT_BYTES}, about 100,000 launches): export only the launches to compare, e.g. `ncu --import REPORT --csv --page raw --kernel-name regex:NAME --launch-count 10`"
            )));
        }
        let text = std::fs::read_to_string(input)
            .map_err(|e| Error::Input(format!("cannot read {shown}: {e}")))?;
        let launches =
            raw::parse_raw_page(&text).map_err(|e| Error::Input(format!("{shown}: {e}")))?;
        return Ok(launches
            .into_iter()
            .filter(|launch| selects(launch))
            .map(|launch| (launch, Err("a raw-page CSV has no source page: compare the .ncu-rep (profiled with --section SourceCounters) for per-line counters".into())))
            .collect());
    }
    let ncu = ncu_run::locate(ncu).map_err(|reason| {
        Error::Tool(format!(
            "{shown} is an ncu report, and reading it needs ncu: {reason}; or export it elsewhere with `ncu --import {shown} --csv --page raw > raw.csv` and compare the CSV"
        ))
    })?;
    let exported = export(&ncu, input, SourcePages::Where(selects), None).map_err(|e| match e {
        ExportError::Export(e) => Error::Input(format!("{shown}: ncu could not export it: {e}")),
        ExportError::Unreadable { error, .. } => Error::Input(format!("{shown}: {error}")),
    })?;
    let mut sources = exported.sources.into_iter().peekable();
    Ok(exported
        .launches
        .into_iter()
        .enumerate()
        .filter_map(|(index, launch)| {
            let (_, page) = sources.next_if(|(selected, _)| *selected == index)?;
            Some((launch, page.files))
        })
        .collect())
}
