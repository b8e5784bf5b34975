//! The pipeline's writes: the output folders, results.json after every
//! stage, the reports at the end, each file written atomically (a reader
//! sees the old file or the new one, never half of either). Only the
//! pipeline writes files; the stages before it return data.

use std::path::{Path, PathBuf};

use super::{Folders, Outcome};
use crate::analysis;
use crate::error::Error;
use crate::model::results::Results;
use crate::model::{read_results, write_results};
use crate::render;

const RESULTS_FILE: &str = "results.json";
const REPORT_FILE: &str = "report.html";
const MARKDOWN_FILE: &str = "report.md";
/// ncu's reports' companions: jobs, event logs, CSV exports.
const WORK_FOLDER: &str = "ncu";

/// Creates the output folder (`gpuprof-out/<suite>` unless given) and its
/// work folder.
pub(super) fn prepare_folders(out_dir: Option<&Path>, suite: &str) -> Result<Folders, Error> {
    let out = out_dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("gpuprof-out").join(suite));
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

/// The previous run's results in the output folder, read before anything
/// overwrites them so that unchanged runs can be reused (none under
/// `force`). Refuses a folder whose files gpuprof would overwrite without
/// having written them (unless `force`): a results.json it cannot read (a
/// newer gpuprof's, another tool's, a damaged one), or a report.html or
/// report.md with no results.json of gpuprof's beside them.
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
            match [REPORT_FILE, MARKDOWN_FILE]
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

/// Analyses `results` and writes report.html and report.md beside it.
pub(super) fn write_reports(out_dir: &Path, results: Results) -> Result<Outcome, Error> {
    let analysis = analysis::analyze(&results);
    let view = render::view(&results, &analysis);
    let report = out_dir.join(REPORT_FILE);
    let html = render::html(&view).map_err(|e| Error::output(&report, e))?;
    write_atomic(&report, html.as_bytes())?;
    write_atomic(
        &out_dir.join(MARKDOWN_FILE),
        render::markdown(&view).as_bytes(),
    )?;
    Ok(Outcome {
        out_dir: out_dir.to_path_buf(),
        results,
        analysis,
        view,
        report,
    })
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

/// Writes through a temporary file in the same folder and renames it, so
/// that readers see the old file or the new one, never half of either.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    use std::io::Write;
    use std::os::unix::fs::PermissionsExt;
    let failed = |e: std::io::Error| Error::output(path, e);
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(folder).map_err(failed)?;
    file.write_all(bytes).map_err(failed)?;
    // Temporary files are private (0600); outputs are ordinary files.
    file.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o644))
        .map_err(failed)?;
    file.as_file().sync_all().map_err(failed)?;
    file.persist(path).map_err(|e| failed(e.error))?;
    Ok(())
}
