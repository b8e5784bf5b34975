//! Where the CUDA toolkit is: its `include` folder (and, from CUDA 13 on,
//! `include/cccl`, where the C++ libraries moved) for NVRTC, which finds no
//! header of its own, and its `nvcc`. Looked for in `CUDA_HOME`,
//! `CUDA_PATH`, beside the NVRTC library on `LD_LIBRARY_PATH` (the layout
//! of NVIDIA's PyPI packages), above the `nvcc` on `PATH`, then
//! `/usr/local/cuda`; `nvcc` also on `PATH`. Also the host compiler's
//! system header folders, where nvcc finds a `#include "assert.h"` that is
//! no file of the user's.

use std::path::{Path, PathBuf};

/// Toolkit roots, most specific first.
fn roots() -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(|name| std::env::var_os(name).map(PathBuf::from))
        .collect();
    if let Some(paths) = std::env::var_os("LD_LIBRARY_PATH") {
        roots.extend(
            std::env::split_paths(&paths)
                .filter(|dir| {
                    dir.join("libnvrtc.so.13").exists() || dir.join("libnvrtc.so").exists()
                })
                .filter_map(|dir| dir.parent().map(Path::to_path_buf)),
        );
    }
    // The toolkit of the nvcc on PATH (`…/cuda-13.0/bin/nvcc`).
    if let Some(paths) = std::env::var_os("PATH") {
        roots.extend(
            std::env::split_paths(&paths)
                .filter(|dir| dir.join("nvcc").is_file())
                .filter_map(|dir| dir.parent().map(Path::to_path_buf)),
        );
    }
    roots.push(PathBuf::from("/usr/local/cuda"));
    roots
}

/// The toolkit's header folders for NVRTC: `include` and, where it exists,
/// `include/cccl`; empty when no toolkit headers are found.
pub fn include_dirs() -> Vec<PathBuf> {
    let Some(include) = roots()
        .into_iter()
        .map(|root| root.join("include"))
        .find(|include| {
            include.join("cuda_runtime_api.h").is_file()
                || include.join("cooperative_groups.h").is_file()
        })
    else {
        return Vec::new();
    };
    let cccl = include.join("cccl");
    match cccl.is_dir() {
        true => vec![include, cccl],
        false => vec![include],
    }
}

/// The folders the host C++ compiler (`c++` or `g++`, nvcc's host compiler) searches
/// for system headers, as `c++ -E -v` lists them; `/usr/local/include` and
/// `/usr/include` when it cannot say. Asked once per process.
pub fn host_include_dirs() -> &'static [PathBuf] {
    static DIRS: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    DIRS.get_or_init(|| {
        let listed = ["c++", "g++"]
            .into_iter()
            .find_map(|compiler| {
                std::process::Command::new(compiler)
                    .args(["-E", "-x", "c++", "-v", "/dev/null"])
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .output()
                    .ok()
            })
            .map(|output| {
                String::from_utf8_lossy(&output.stderr)
                    .lines()
                    .skip_while(|line| !line.starts_with("#include <...> search starts here"))
                    .skip(1)
                    .take_while(|line| !line.starts_with("End of search list"))
                    .map(|line| PathBuf::from(line.trim()))
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default();
        match listed.is_empty() {
            true => vec![
                PathBuf::from("/usr/local/include"),
                PathBuf::from("/usr/include"),
            ],
            false => listed,
        }
    })
}

/// The nvcc to run: on `PATH`, else in a toolkit root.
pub fn nvcc() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|dir| dir.join("nvcc"));
    on_path
        .chain(
            roots()
                .into_iter()
                .map(|root| root.join("bin").join("nvcc")),
        )
        .find(|candidate| candidate.is_file())
}
