//! The one way gpuprof reads an `.ncu-rep`: `ncu --import` exports its raw
//! page (every launch's metrics, parsed) and the source pages of the
//! launches the caller asks for (all of them in one export, split by
//! launch, or launch by launch in several ncu processes at once), and this
//! returns them as data with the CSV text they came from. It writes no
//! file: the pipeline decides what to keep. Used by `gpuprof report` (the
//! harness's profile), command variants and `gpuprof compare`.

use std::path::Path;

use super::raw::{RawLaunch, RawPageError, parse_raw_page};
use super::run::{export_all_sources_invocation, export_raw_invocation, export_source_invocation};
use super::source::{SourceFile, parse_source_page, split_by_launch};
use crate::process::{self, ToolError};

/// What an `.ncu-rep` holds, as parsed pages.
#[derive(Debug)]
pub struct Export {
    /// The raw page's CSV, as ncu printed it.
    pub raw_csv: String,
    /// Every launch in the report, in ncu's result order.
    pub launches: Vec<RawLaunch>,
    /// The source page of each launch asked for, by index into `launches`.
    pub sources: Vec<(usize, SourcePage)>,
}

/// One launch's source page: its CSV and the parsed files, or why there
/// is none.
#[derive(Debug)]
pub struct SourcePage {
    pub csv: Option<String>,
    pub files: Result<Vec<SourceFile>, String>,
}

/// Why the raw page could not be had.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("exporting the ncu report failed: {0}")]
    Export(ToolError),
    #[error("ncu's raw export could not be read: {error}")]
    Unreadable {
        /// The CSV as ncu printed it, kept for the user to look at.
        csv: String,
        error: RawPageError,
    },
}

/// Which launches' source pages to export.
pub enum SourcePages<'a> {
    All,
    /// The last launch only (a command variant's profile).
    Last,
    /// The launches for which the predicate holds.
    Where(&'a dyn Fn(&RawLaunch) -> bool),
}

/// Exports `report` with `ncu`: the raw page, then the source pages asked
/// for. When every launch's source page is asked for, their export runs
/// beside the raw page's (two ncu processes, each reading the report).
pub fn export(ncu: &Path, report: &Path, pages: SourcePages) -> Result<Export, ExportError> {
    let (raw, all_sources) = std::thread::scope(|scope| {
        let all_sources = matches!(pages, SourcePages::All)
            .then(|| scope.spawn(|| process::run(&export_all_sources_invocation(ncu, report))));
        let raw = process::run(&export_raw_invocation(ncu, report));
        let all_sources = all_sources
            .and_then(|export| export.join().ok())
            .and_then(Result::ok)
            .map(|output| output.stdout);
        (raw, all_sources)
    });
    let raw_csv = raw.map_err(ExportError::Export)?.stdout;
    let launches = match parse_raw_page(&raw_csv) {
        Ok(launches) => launches,
        Err(error) => {
            return Err(ExportError::Unreadable {
                csv: raw_csv,
                error,
            });
        }
    };
    let wanted: Vec<usize> = launches
        .iter()
        .enumerate()
        .filter(|(index, launch)| match &pages {
            SourcePages::All => true,
            SourcePages::Last => index + 1 == launches.len(),
            SourcePages::Where(wanted) => wanted(launch),
        })
        .map(|(index, _)| index)
        .collect();
    let every_launch = wanted.len() == launches.len();
    let all_sources = match (every_launch, all_sources) {
        (true, Some(csv)) => Some(csv),
        (true, None) if !matches!(pages, SourcePages::All) => {
            process::run(&export_all_sources_invocation(ncu, report))
                .ok()
                .map(|output| output.stdout)
        }
        _ => None,
    };
    let pages = match all_sources.and_then(|csv| split_pages(&csv, launches.len())) {
        Some(pages) => pages,
        None => source_pages(ncu, report, &wanted),
    };
    let sources = wanted.iter().copied().zip(pages).collect();
    Ok(Export {
        raw_csv,
        launches,
        sources,
    })
}

/// The source page of each of the report's `count` launches, from one
/// `ncu --import` of them all (which reads the report once), split by
/// launch; `None` when it does not split into `count` launches (the
/// caller then exports launch by launch).
fn split_pages(csv: &str, count: usize) -> Option<Vec<SourcePage>> {
    let texts = split_by_launch(csv);
    (texts.len() == count).then(|| {
        texts
            .into_iter()
            .map(|csv| SourcePage {
                files: parse_source_page(&csv).map_err(|e| e.to_string()),
                csv: Some(csv),
            })
            .collect()
    })
}

/// The source pages of the launches at `indices`, several ncu processes at
/// once (each re-reads the report, so they run side by side).
fn source_pages(ncu: &Path, report: &Path, indices: &[usize]) -> Vec<SourcePage> {
    let parallel = std::thread::available_parallelism().map_or(4, |n| n.get().clamp(1, 8));
    let mut pages = Vec::with_capacity(indices.len());
    for chunk in indices.chunks(parallel) {
        let texts: Vec<Result<String, String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|index| {
                    scope.spawn(move || {
                        process::run(&export_source_invocation(ncu, report, *index))
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
        pages.extend(texts.into_iter().map(|text| match text {
            Ok(csv) => SourcePage {
                files: parse_source_page(&csv).map_err(|e| e.to_string()),
                csv: Some(csv),
            },
            Err(reason) => SourcePage {
                csv: None,
                files: Err(reason),
            },
        }));
    }
    pages
}
