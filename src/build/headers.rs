//! The user's own headers behind a kernel source: every file it includes,
//! directly or through other headers, that is found where the compiler
//! would look first (a quoted include beside the file that includes it,
//! then the source's folder and the include folders of the compile
//! options). Their contents go into the build cache's key, so that editing
//! a header rebuilds the kernels that include it. A header found nowhere
//! there (the toolkit's, the system's) belongs to the compiler, whose
//! version the key holds already; the toolkit's own folders, which NVRTC is
//! given as include folders, are not searched. Also the headers a file
//! includes with quotes beside itself, which `init` and the config read
//! for the kernels and constants they define; and the first of a file's
//! headers that holds host code, which NVRTC cannot compile.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::config::kernels;

/// Headers followed at most, so that a folder of generated headers cannot
/// make a cache lookup slow.
const MOST_HEADERS: usize = 4096;

/// Each header `source` (whose text is `text`) includes, transitively, as
/// its canonical path and contents, in the order found. `options` are the
/// compile options (`-I` folders are searched); `toolkit` the folders left
/// out.
pub(crate) fn user_headers(
    source: &Path,
    text: &str,
    options: &[String],
    toolkit: &[PathBuf],
) -> Vec<(PathBuf, Vec<u8>)> {
    let mut folders: Vec<PathBuf> = source.parent().map(Path::to_path_buf).into_iter().collect();
    folders.extend(
        include_folders(options)
            .into_iter()
            .filter(|folder| !toolkit.contains(folder)),
    );
    included_files(source, text, MOST_HEADERS, |file, include| {
        let beside = include
            .quoted
            .then(|| file.parent().map(|dir| dir.join(&include.header)))
            .flatten();
        beside
            .into_iter()
            .chain(folders.iter().map(|dir| dir.join(&include.header)))
            .find(|candidate| candidate.is_file())
            .and_then(|path| path.canonicalize().ok())
    })
}

/// Why `source` (whose text is `text`) needs nvcc through a header it
/// includes (found beside the including file, in `folders` or in the
/// include folders of the compile `options`): the first
/// such header that holds host code (`#include <stdio.h>`, a launch, a
/// `main`): its path shown from the source's folder, and what it does
/// (`includes the host header <stdio.h>`). NVRTC finds no header of the C or C++
/// library, so a device-only kernel file whose own header includes one
/// cannot be compiled by it.
pub(crate) fn host_code_of_headers(
    source: &Path,
    text: &str,
    folders: &[PathBuf],
    options: &[String],
) -> Option<(String, String)> {
    let home = folder_of(source).canonicalize().ok();
    headers_in(source, text, folders, options)
        .into_iter()
        .find_map(|(path, bytes)| {
            let reason = kernels::scan(&String::from_utf8_lossy(&bytes)).host_code?;
            let shown = home
                .as_deref()
                .and_then(|home| pathdiff::diff_paths(&path, home))
                .unwrap_or(path);
            let what = reason.strip_prefix("it ").unwrap_or(&reason).to_string();
            Some((shown.display().to_string(), what))
        })
}

/// The headers `source` (whose text is `text`) includes ([`user_headers`])
/// found beside the including file, in `folders` or in the include
/// folders of the compile `options`.
pub(crate) fn headers_in(
    source: &Path,
    text: &str,
    folders: &[PathBuf],
    options: &[String],
) -> Vec<(PathBuf, Vec<u8>)> {
    let options: Vec<String> = folders
        .iter()
        .map(|folder| format!("-I{}", folder.display()))
        .chain(options.iter().cloned())
        .collect();
    user_headers(source, text, &options, &[])
}

/// The files `source` (whose text is `text`) includes, directly or
/// through other included files, that `locate` finds for an include of
/// the file that holds it: depth first in include order, each once (by
/// canonical path), at most `most`; as `locate` names them, with their
/// contents.
pub(crate) fn included_files(
    source: &Path,
    text: &str,
    most: usize,
    mut locate: impl FnMut(&Path, &kernels::Include) -> Option<PathBuf>,
) -> Vec<(PathBuf, Vec<u8>)> {
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut found: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    let mut pending: Vec<(PathBuf, String)> = vec![(source.to_path_buf(), text.to_string())];
    while let Some((file, text)) = pending.pop() {
        let mut next = Vec::new();
        for include in kernels::includes(&text) {
            let Some(path) = locate(&file, &include) else {
                continue;
            };
            let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
            if found.len() >= most || !seen.insert(canonical) {
                continue;
            }
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            next.push((path.clone(), String::from_utf8_lossy(&bytes).into_owned()));
            found.push((path, bytes));
        }
        // Depth first, in the order the file includes them.
        pending.extend(next.into_iter().rev());
    }
    found
}

/// How one compiler option names a folder searched for includes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IncludeOption<'a> {
    /// `-I`, `--include-path` or `-isystem` alone: the next option is the
    /// folder.
    FolderFollows,
    /// `-Idir`, `--include-path=dir`, `-isystem=dir`: the folder after
    /// `prefix`.
    Attached { prefix: &'a str, folder: &'a str },
}

/// Whether `word` is an include-path option, and how it gives its folder;
/// `None` for any other option (one that merely starts like one,
/// `--include-pathX`, too).
pub(crate) fn include_option(word: &str) -> Option<IncludeOption<'_>> {
    let flag = ["-I", "--include-path", "-isystem"]
        .into_iter()
        .find(|flag| word.starts_with(flag))?;
    let rest = &word[flag.len()..];
    let folder = rest.strip_prefix('=').unwrap_or(rest);
    if folder.is_empty() {
        return Some(IncludeOption::FolderFollows);
    }
    (rest.starts_with('=') || flag == "-I").then(|| IncludeOption::Attached {
        prefix: &word[..word.len() - folder.len()],
        folder,
    })
}

/// The include folders among `options` ([`include_option`]), in order.
fn include_folders(options: &[String]) -> Vec<PathBuf> {
    let mut folders = Vec::new();
    let mut words = options.iter();
    while let Some(word) = words.next() {
        let folder = match include_option(word) {
            Some(IncludeOption::FolderFollows) => words.next().map(String::as_str),
            Some(IncludeOption::Attached { folder, .. }) => Some(folder),
            None => None,
        };
        folders.extend(folder.map(PathBuf::from));
    }
    folders
}

/// The headers `typed` includes with quotes that exist relative to the
/// including file, directly or through other headers (depth first, in
/// include order, each once), with their text.
pub(crate) fn local_headers(typed: &Path, source: &str) -> Vec<(PathBuf, String)> {
    const MOST_FILES: usize = 256;
    included_files(typed, source, MOST_FILES, |file, include| {
        let folder = file.parent().unwrap_or(Path::new(""));
        let path = tidy(&folder.join(&include.header));
        (include.quoted && path.is_file()).then_some(path)
    })
    .into_iter()
    .map(|(path, bytes)| (path, String::from_utf8_lossy(&bytes).into_owned()))
    .collect()
}

/// The folder that holds `file` (`.` for a bare file name).
pub(crate) fn folder_of(file: &Path) -> &Path {
    match file.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    }
}

/// `path` without `.` components (`./kernels/a.cuh` → `kernels/a.cuh`).
fn tidy(path: &Path) -> PathBuf {
    path.components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_quoted_and_angle_includes_through_the_include_folders() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path();
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::create_dir_all(dir.join("include/util")).unwrap();
        std::fs::create_dir_all(dir.join("toolkit")).unwrap();
        std::fs::write(dir.join("src/local.cuh"), "#include <util/deep.h>\n").unwrap();
        std::fs::write(
            dir.join("include/util/deep.h"),
            "// #include \"not.h\"\n#include \"local.cuh\"\n",
        )
        .unwrap();
        std::fs::write(dir.join("toolkit/cuda_fp16.h"), "").unwrap();
        let source = dir.join("src/k.cu");
        let text = "#include \"local.cuh\"\n#include <cuda_fp16.h>\n#include <cstdio>\n#ifdef X\n#include \"util/deep.h\"\n#endif\n";
        let options = vec![
            "-I".to_string(),
            dir.join("include").display().to_string(),
            format!("-I{}", dir.join("toolkit").display()),
        ];
        let headers = user_headers(&source, text, &options, &[dir.join("toolkit")]);
        let names: Vec<String> = headers
            .iter()
            .map(|(path, _)| {
                path.strip_prefix(dir.canonicalize().unwrap())
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        assert_eq!(names, ["src/local.cuh", "include/util/deep.h"]);
    }

    #[test]
    fn include_folders_in_every_spelling() {
        let options: Vec<String> = [
            "-Ia",
            "-I",
            "b",
            "--include-path=c",
            "--include-path",
            "d",
            "-isystem",
            "e",
            "--include-pathX",
            "-lineinfo",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            include_folders(&options),
            ["a", "b", "c", "d", "e"].map(PathBuf::from)
        );
    }
}
