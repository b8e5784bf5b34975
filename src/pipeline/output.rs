//! The pipeline's writes: the output folders, results.json after every
//! stage, the reports at the end (report.html, report.md with its charts
//! as SVG files in `charts/`, and analysis.json), each file written
//! atomically (a reader sees the old file or the new one, never half of
//! either). Only the pipeline writes files; the stages before it return
//! data.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::{Folders, Outcome};
use crate::analysis;
use crate::analysis::conclusions::Conclusions;
use crate::error::Error;
use crate::model::results::Results;
use crate::model::{read_results, write_results};
use crate::render::view::ReportView;
use crate::render::{self, CHARTS_FOLDER, is_chart_file_name};

pub(super) const RESULTS_FILE: &str = "results.json";
const REPORT_FILE: &str = "report.html";
const MARKDOWN_FILE: &str = "report.md";
/// The conclusions for scripts (docs/analysis-json.md).
const ANALYSIS_FILE: &str = "analysis.json";
const SVG_NAMESPACE: &str = "xmlns=\"http://www.w3.org/2000/svg\"";
/// ncu's reports' companions: jobs, event logs, CSV exports.
const WORK_FOLDER: &str = "ncu";

/// The output folder: the one given, else `gpuprof-out/<suite>`.
pub(super) fn out_dir(given: Option<&Path>, suite: &str) -> PathBuf {
    given
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("gpuprof-out").join(suite))
}

/// Creates the output folder ([`out_dir`]) and its work folder.
pub(super) fn prepare_folders(out_dir: Option<&Path>, suite: &str) -> Result<Folders, Error> {
    let out = self::out_dir(out_dir, suite);
    let work = out.join(WORK_FOLDER);
    create_dir(&work)?;
    Ok(Folders {
        _lock: FolderLock::take(&out)?,
        results: out.join(RESULTS_FILE),
        out,
        work,
    })
}

/// An exclusive lock on an output folder (`.gpuprof.lock`, holding the
/// owner's pid), released when dropped or when the process ends: two runs
/// into one folder would mix their job files and ncu reports.
pub(super) struct FolderLock {
    _file: std::fs::File,
}

impl FolderLock {
    pub(super) fn take(folder: &Path) -> Result<FolderLock, Error> {
        use std::io::{Read, Seek, Write};
        use std::os::fd::AsRawFd;
        let path = folder.join(".gpuprof.lock");
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| Error::output(&path, e))?;
        // SAFETY: flock(2) on a descriptor this function owns.
        let locked = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0;
        if !locked {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            return Err(Error::Busy {
                folder: folder.to_path_buf(),
                holder: holder.trim().to_string(),
            });
        }
        let written = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| write!(file, "{}", std::process::id()));
        written.map_err(|e| Error::output(&path, e))?;
        Ok(FolderLock { _file: file })
    }
}

/// The results.json in the output folder when gpuprof can read it, to say
/// what changed since (also under `--force`, which reuses nothing).
pub(super) fn readable_results(out: &Path) -> Option<Results> {
    let text = std::fs::read_to_string(out.join(RESULTS_FILE)).ok()?;
    read_results(&text).ok()
}

/// The previous run's results in the output folder, read before anything
/// overwrites them so that unchanged runs can be reused (none under
/// `force`). Refuses a folder whose files gpuprof would overwrite without
/// having written them (unless `force`): a results.json it cannot read (a
/// newer gpuprof's, another tool's, a damaged one), or a report.html,
/// report.md or analysis.json with no results.json of gpuprof's beside
/// them.
pub(super) fn previous_results(out: &Path, force: bool) -> Result<Option<Results>, Error> {
    if force {
        return Ok(None);
    }
    let results = out.join(RESULTS_FILE);
    let refuse = |path: &Path, why: String| Error::NotOurs {
        path: path.to_path_buf(),
        why,
    };
    match std::fs::read_to_string(&results) {
        Ok(text) => match read_results(&text) {
            Ok(previous) => Ok(Some(previous)),
            Err(error) => Err(refuse(
                &results,
                format!("gpuprof cannot read it ({error})"),
            )),
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            match [REPORT_FILE, MARKDOWN_FILE, ANALYSIS_FILE]
                .iter()
                .map(|f| out.join(f))
                .find(|p| p.exists())
            {
                Some(report) => Err(refuse(
                    &report,
                    "no results.json of gpuprof's is beside it".into(),
                )),
                None => Ok(None),
            }
        }
        Err(error) => Err(refuse(&results, format!("it cannot be read ({error})"))),
    }
}

/// Analyses `results` and writes analysis.json, report.html, and report.md
/// with its charts into `out_dir`.
pub(super) fn write_reports(out_dir: &Path, results: Results) -> Result<Outcome, Error> {
    let analysis = analysis::analyze(&results);
    write_atomic(
        &out_dir.join(ANALYSIS_FILE),
        Conclusions::of(&results, &analysis).to_json().as_bytes(),
    )?;
    let view = render::view(&results, &analysis);
    let report = out_dir.join(REPORT_FILE);
    let html = render::html(&view).map_err(|e| Error::output(&report, e))?;
    write_atomic(&report, html.as_bytes())?;
    write_markdown(out_dir, &view)?;
    Ok(Outcome {
        out_dir: out_dir.to_path_buf(),
        results,
        analysis,
        view,
        report,
        stages: None,
        since_previous: None,
    })
}

/// Writes every chart as an SVG file into `charts/` (the path the view
/// gives it), then report.md, which links them, then
/// removes the chart files of an earlier report that this one no longer
/// has: the links of the report.md on disk always resolve.
fn write_markdown(out_dir: &Path, view: &ReportView) -> Result<(), Error> {
    let folder = out_dir.join(CHARTS_FOLDER);
    if !view.charts.is_empty() {
        create_dir(&folder)?;
    }
    let mut written = Vec::new();
    for chart in &view.charts {
        write_atomic(
            &out_dir.join(&chart.file),
            standalone_svg(&chart.svg).as_bytes(),
        )?;
        written.push(
            chart
                .file
                .trim_start_matches(&format!("{CHARTS_FOLDER}/"))
                .to_string(),
        );
    }
    write_atomic(
        &out_dir.join(MARKDOWN_FILE),
        render::markdown(view).as_bytes(),
    )?;
    remove_stale_charts(&folder, &written)
}

/// Removes the chart files in `folder` that gpuprof named and did not just
/// write; any other file stays.
fn remove_stale_charts(folder: &Path, written: &[String]) -> Result<(), Error> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(Error::output(folder, error)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::output(folder, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && is_chart_file_name(name) && !written.iter().any(|w| w == name) {
            let path = entry.path();
            std::fs::remove_file(&path).map_err(|e| Error::output(&path, e))?;
        }
    }
    Ok(())
}

/// The chart as a file of its own: its `<svg>` tag names the SVG
/// namespace, without which neither a browser nor GitHub draws the file as
/// an image.
fn standalone_svg(svg: &str) -> Cow<'_, str> {
    let Some(start) = svg.find("<svg") else {
        return Cow::Borrowed(svg);
    };
    let tag_end = svg[start..].find('>').map_or(svg.len(), |end| start + end);
    if svg[start..tag_end].contains("xmlns=") {
        return Cow::Borrowed(svg);
    }
    let name_end = start + "<svg".len();
    Cow::Owned(format!(
        "{} {SVG_NAMESPACE}{}",
        &svg[..name_end],
        &svg[name_end..]
    ))
}

/// Writes results.json into `folder` (for `compare`).
pub(super) fn save_into(folder: &Path, results: &Results) -> Result<(), Error> {
    save(&folder.join(RESULTS_FILE), results)
}

pub(super) fn create_dir(path: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(path).map_err(|e| Error::output(path, e))
}

pub(super) fn save(path: &Path, results: &Results) -> Result<(), Error> {
    write_atomic(path, write_results(results).as_bytes())
}

pub(super) fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> Result<(), Error> {
    let text = serde_json::to_string(value).map_err(|e| Error::output(path, e))?;
    write_atomic(path, text.as_bytes())
}

/// Copies `from` to `to` through a temporary file beside `to`, renamed
/// into place (a reader sees the old copy or the whole new one).
pub(super) fn copy_atomic(from: &Path, to: &Path) -> Result<(), Error> {
    let mut source = std::fs::File::open(from)
        .map_err(|e| Error::Input(format!("cannot read {}: {e}", from.display())))?;
    replace_atomic(to, |file| std::io::copy(&mut source, file).map(drop))
}

/// Writes through a temporary file in the same folder and renames it, so
/// that readers see the old file or the new one, never half of either.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    replace_atomic(path, |file| file.write_all(bytes))
}

/// Fills a temporary file in `path`'s folder with `fill`, makes it an
/// ordinary file, syncs it and renames it over `path`.
fn replace_atomic(
    path: &Path,
    fill: impl FnOnce(&mut tempfile::NamedTempFile) -> std::io::Result<()>,
) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    let failed = |e: std::io::Error| Error::output(path, e);
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(folder).map_err(failed)?;
    fill(&mut file).map_err(failed)?;
    // Temporary files are private (0600); outputs are ordinary files.
    file.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o644))
        .map_err(failed)?;
    file.as_file().sync_all().map_err(failed)?;
    file.persist(path).map_err(|e| failed(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_chart_file_names_the_svg_namespace_once() {
        let bare = "<svg width=\"10\" height=\"10\"><rect/></svg>";
        assert_eq!(
            standalone_svg(bare),
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\" height=\"10\"><rect/></svg>"
        );
        let named = standalone_svg(bare).into_owned();
        assert_eq!(standalone_svg(&named), named);
    }

    #[test]
    fn only_gpuprofs_own_stale_chart_files_are_removed() {
        let folder = tempfile::tempdir().unwrap();
        for name in [
            "01-speedup.svg",
            "07-old-chart.svg",
            "notes.txt",
            "mine.svg",
        ] {
            std::fs::write(folder.path().join(name), "x").unwrap();
        }
        std::fs::create_dir(folder.path().join("08-a-folder.svg")).unwrap();
        remove_stale_charts(folder.path(), &["01-speedup.svg".to_string()]).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(folder.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        assert_eq!(
            left,
            ["01-speedup.svg", "08-a-folder.svg", "mine.svg", "notes.txt"]
        );
        remove_stale_charts(&folder.path().join("absent"), &[]).unwrap();
    }

    #[test]
    fn an_analysis_json_without_results_beside_it_is_not_overwritten() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(folder.path().join(ANALYSIS_FILE), "{}").unwrap();
        match previous_results(folder.path(), false) {
            Err(Error::NotOurs { path, .. }) => assert!(path.ends_with(ANALYSIS_FILE)),
            other => panic!("{other:?}"),
        }
        assert!(previous_results(folder.path(), true).unwrap().is_none());
    }
}
