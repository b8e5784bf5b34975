//! The one way gpuprof reads an `.ncu-rep`: `ncu --import` exports its raw
//! page (every launch's metrics, parsed; unless ncu printed it as it
//! profiled) and the source pages of the
//! launches the caller asks for, and this returns them as data with the
//! CSV text they came from. Every ncu process re-reads the report and
//! costs its start-up, so they run side by side: all the source pages come
//! from a few contiguous ranges exported at once and split by launch (a
//! range that does not split is exported launch by launch, several at
//! once), and when the caller knows how many launches the report holds
//! those ranges are exported while the raw page is, and checked against it
//! after. It writes no file: the pipeline decides what to keep. Used by
//! `gpuprof report` (the harness's profile), command variants and
//! `gpuprof compare`.

use std::path::Path;

use super::raw::{RawLaunch, RawPageError, parse_raw_page};
use super::run::{export_raw_invocation, export_sources_invocation};
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
    /// Every launch's, of a report the caller expects to hold `expected`
    /// launches (the launches the harness reported profiling).
    All { expected: usize },
    /// The last launch only (a command variant's profile).
    Last,
    /// The launches for which the predicate holds.
    Where(&'a dyn Fn(&RawLaunch) -> bool),
}

/// Exports `report` with `ncu`: the raw page (unless ncu printed it when
/// it profiled: `printed_raw`) and the source pages asked for. Every page
/// of a report expected to hold several launches is exported in ranges
/// while the raw page is, so the two ncu start-ups overlap; the ranges are
/// kept only if the raw page holds that many launches, else the source
/// pages are exported again as the raw page says. Other source pages
/// follow the raw page, which tells which launches they are. A printed raw
/// page that does not parse is exported again from the report.
pub fn export(
    ncu: &Path,
    report: &Path,
    pages: SourcePages,
    printed_raw: Option<String>,
) -> Result<Export, ExportError> {
    let exported_raw = || {
        process::run(&export_raw_invocation(ncu, report))
            .map(|output| output.stdout)
            .map_err(ExportError::Export)
    };
    let printed = printed_raw.and_then(|csv| Some((parse_raw_page(&csv).ok()?, csv)));
    let raw_page = || match printed {
        Some((launches, csv)) => Ok((launches, csv)),
        None => {
            let csv = exported_raw()?;
            match parse_raw_page(&csv) {
                Ok(launches) => Ok((launches, csv)),
                Err(error) => Err(ExportError::Unreadable { csv, error }),
            }
        }
    };
    let (raw, early_ranges) = match pages {
        SourcePages::All { expected } if expected > 1 => std::thread::scope(|scope| {
            let ranges = scope.spawn(|| export_ranges(ncu, report, expected));
            let raw = raw_page();
            (raw, ranges.join().ok())
        }),
        _ => (raw_page(), None),
    };
    let (launches, raw_csv) = raw?;
    let wanted: Vec<usize> = launches
        .iter()
        .enumerate()
        .filter(|(index, launch)| match &pages {
            SourcePages::All { .. } => true,
            SourcePages::Last => index + 1 == launches.len(),
            SourcePages::Where(wanted) => wanted(launch),
        })
        .map(|(index, _)| index)
        .collect();
    let every_launch = wanted.len() == launches.len() && wanted.len() > 1;
    let pages = match every_launch {
        true => {
            let ranges = early_ranges
                .filter(|ranges| launches_in(ranges) == launches.len())
                .unwrap_or_else(|| export_ranges(ncu, report, launches.len()));
            pages_of_ranges(ncu, report, ranges)
        }
        false => source_pages(ncu, report, &wanted),
    };
    let sources = wanted.iter().copied().zip(pages).collect();
    Ok(Export {
        raw_csv,
        launches,
        sources,
    })
}

/// How many `ncu --import` processes export source pages at once.
fn exports_at_once() -> usize {
    std::thread::available_parallelism().map_or(4, |n| n.get().clamp(1, 8))
}

/// The source pages of a contiguous range of launches, exported by one
/// ncu process: one text per launch, or `None` when the export failed or
/// did not split into `length` launches.
struct RangeExport {
    first: usize,
    length: usize,
    texts: Option<Vec<String>>,
}

/// How many launches `ranges` cover.
fn launches_in(ranges: &[RangeExport]) -> usize {
    ranges.iter().map(|range| range.length).sum()
}

/// The source pages of a report's first `count` launches, from a few
/// `ncu --import` processes side by side, each exporting a contiguous
/// range of launches that is then split by launch. One process reads the
/// report once but writes the pages one after another (on the H200's host
/// 5.2 s for eight launches of large templated sources, against 1.3 s for
/// one page), so the ranges run at once.
fn export_ranges(ncu: &Path, report: &Path, count: usize) -> Vec<RangeExport> {
    let per_range = count.div_ceil(exports_at_once());
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..count)
            .step_by(per_range)
            .map(|first| {
                let length = per_range.min(count - first);
                let texts = scope.spawn(move || {
                    let csv = process::run(&export_sources_invocation(ncu, report, first, length))
                        .ok()?
                        .stdout;
                    let texts = split_by_launch(&csv);
                    (texts.len() == length).then_some(texts)
                });
                (first, length, texts)
            })
            .collect();
        handles
            .into_iter()
            .map(|(first, length, texts)| RangeExport {
                first,
                length,
                texts: texts.join().ok().flatten(),
            })
            .collect()
    })
}

/// Each launch's source page from its range; a range whose export failed
/// or did not split into its launches is exported launch by launch.
fn pages_of_ranges(ncu: &Path, report: &Path, ranges: Vec<RangeExport>) -> Vec<SourcePage> {
    ranges
        .into_iter()
        .flat_map(|range| match range.texts {
            Some(texts) => texts.into_iter().map(page).collect(),
            None => {
                let indices: Vec<usize> = (range.first..range.first + range.length).collect();
                source_pages(ncu, report, &indices)
            }
        })
        .collect()
}

/// A launch's source page parsed from its CSV.
fn page(csv: String) -> SourcePage {
    SourcePage {
        files: parse_source_page(&csv).map_err(|e| e.to_string()),
        csv: Some(csv),
    }
}

/// The source pages of the launches at `indices`, several ncu processes at
/// once (each re-reads the report, so they run side by side).
fn source_pages(ncu: &Path, report: &Path, indices: &[usize]) -> Vec<SourcePage> {
    let mut pages = Vec::with_capacity(indices.len());
    for chunk in indices.chunks(exports_at_once()) {
        let texts: Vec<Result<String, String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|index| {
                    scope.spawn(move || {
                        process::run(&export_sources_invocation(ncu, report, *index, 1))
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
            Ok(csv) => page(csv),
            Err(reason) => SourcePage {
                csv: None,
                files: Err(reason),
            },
        }));
    }
    pages
}
