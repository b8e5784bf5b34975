//! `gpuprof doctor`: checks what a run needs — the NVIDIA driver and a GPU,
//! NVRTC, Nsight Compute and its version, permission to read the
//! performance counters, and (given a binary) line info for per-line
//! attribution — and says for each problem how to fix it.

use std::path::{Path, PathBuf};

use crate::{build, harness, ncu, process};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    Ok,
    Warning,
    Missing,
}

/// One check: what was looked at, what was found, and the fix.
#[derive(Debug, Clone)]
pub struct Finding {
    pub what: &'static str,
    pub state: State,
    pub found: String,
    pub fix: Option<String>,
}

impl Finding {
    fn ok(what: &'static str, found: String) -> Finding {
        Finding {
            what,
            state: State::Ok,
            found,
            fix: None,
        }
    }

    fn problem(what: &'static str, state: State, found: String, fix: impl Into<String>) -> Finding {
        Finding {
            what,
            state,
            found,
            fix: Some(fix.into()),
        }
    }
}

/// Runs every check.
pub fn check(ncu_path: Option<&Path>, binary: Option<&Path>) -> Vec<Finding> {
    let mut findings = vec![driver(), nvrtc(), nvcc(), toolkit_headers()];
    let located = ncu::run::locate(ncu_path);
    findings.push(match &located {
        Ok(path) => match process::run(&ncu::run::version_invocation(path)) {
            Ok(output) => Finding::ok(
                "Nsight Compute",
                format!(
                    "{} ({})",
                    ncu::run::parse_version(&output.stdout)
                        .unwrap_or_else(|| "unknown version".into()),
                    path.display()
                ),
            ),
            Err(error) => Finding::problem(
                "Nsight Compute",
                State::Missing,
                format!("{} does not run: {error}", path.display()),
                "reinstall Nsight Compute, or pass --ncu with a working ncu",
            ),
        },
        Err(reason) => Finding::problem(
            "Nsight Compute",
            State::Missing,
            "not found".into(),
            format!("{reason}; without it `gpuprof report --no-profile` still times and verifies"),
        ),
    });
    findings.push(counter_permission());
    if let Some(binary) = binary {
        let cuobjdump = located
            .as_ref()
            .ok()
            .and_then(|ncu| ncu.parent())
            .map(|dir| dir.join("cuobjdump"))
            .filter(|p| p.is_file())
            .or_else(|| {
                Some(PathBuf::from("/usr/local/cuda/bin/cuobjdump")).filter(|p| p.is_file())
            });
        findings.push(line_info(binary, cuobjdump.as_deref()));
    }
    findings
}

/// The oldest GPU generation CUDA 13 compiles for: Turing, sm_75.
const OLDEST_SUPPORTED: (u32, u32) = (7, 5);

fn driver() -> Finding {
    if !harness::driver_available() {
        return Finding::problem(
            "NVIDIA driver",
            State::Missing,
            "libcuda.so.1 not found".into(),
            "install the NVIDIA driver (in a container: run it with the NVIDIA container toolkit, `--gpus all`); `gpuprof render` works without one",
        );
    }
    match harness::device_facts() {
        Ok(facts) if facts.compute_capability < OLDEST_SUPPORTED => Finding::problem(
            "NVIDIA driver",
            State::Missing,
            format!(
                "{} has compute capability {}.{}: CUDA 13, which gpuprof builds with, supports {}.{} (Turing) and newer",
                facts.name,
                facts.compute_capability.0,
                facts.compute_capability.1,
                OLDEST_SUPPORTED.0,
                OLDEST_SUPPORTED.1
            ),
            "run on a GPU of compute capability 7.5 or newer; `gpuprof render` and `compare` work anywhere",
        ),
        Ok(facts) => Finding::ok(
            "NVIDIA driver",
            format!(
                "{}, compute capability {}.{}, {} SMs; the driver supports CUDA {}",
                facts.name,
                facts.compute_capability.0,
                facts.compute_capability.1,
                facts.multiprocessors,
                facts.driver_cuda_version
            ),
        ),
        Err(error) => Finding::problem(
            "NVIDIA driver",
            State::Missing,
            format!("libcuda loads, but no device opens: {error}"),
            "check `nvidia-smi`; CUDA_VISIBLE_DEVICES may hide the GPU",
        ),
    }
}

fn nvrtc() -> Finding {
    match build::nvrtc_version() {
        Some(version) => Finding::ok("NVRTC", format!("version {version}")),
        None => Finding::problem(
            "NVRTC",
            State::Missing,
            "libnvrtc.so not found".into(),
            "install the CUDA toolkit (or `pip install nvidia-cuda-nvrtc`) and add the folder holding libnvrtc.so.13 to LD_LIBRARY_PATH, e.g. /usr/local/cuda/lib64",
        ),
    }
}

/// nvcc compiles kernel files that hold host code; without it those
/// variants fail, the others run.
fn nvcc() -> Finding {
    match build::toolkit::nvcc() {
        Some(path) => match process::run(&process::Invocation::new(&path).arg("--version")) {
            Ok(output) => Finding::ok(
                "nvcc",
                format!(
                    "{} ({})",
                    output.stdout.lines().last().unwrap_or("").trim(),
                    path.display()
                ),
            ),
            Err(error) => Finding::problem(
                "nvcc",
                State::Warning,
                format!("{} does not run: {error}", path.display()),
                "nvcc needs a host C++ compiler (g++) on PATH",
            ),
        },
        None => Finding::problem(
            "nvcc",
            State::Warning,
            "not found".into(),
            "kernel files with host code (main, <<<…>>> launches) are compiled by nvcc: install the CUDA toolkit and put its bin folder on PATH, or set CUDA_HOME (`pip install nvidia-cuda-nvcc` brings one); device-only files need NVRTC alone",
        ),
    }
}

/// NVRTC has no headers of its own: `#include <cooperative_groups.h>`
/// needs the toolkit's include folder.
fn toolkit_headers() -> Finding {
    let dirs = build::toolkit::include_dirs();
    match dirs.first() {
        Some(include) => {
            // Headers of the toolkit's libraries that a partial toolkit
            // (pip wheels, a runtime container) lacks: a kernel file that
            // includes one will not compile here.
            let absent: Vec<&str> = ["cuda_profiler_api.h", "cublas_v2.h", "curand_kernel.h"]
                .into_iter()
                .filter(|header| !include.join(header).is_file())
                .collect();
            let folders = dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ");
            match absent.is_empty() {
                true => Finding::ok("CUDA headers", folders),
                false => Finding::ok(
                    "CUDA headers",
                    format!(
                        "{folders} (without {}: a file that includes one needs the full toolkit, or a stand-in in `include_dirs`)",
                        absent.join(", ")
                    ),
                ),
            }
        }
        None => Finding::problem(
            "CUDA headers",
            State::Warning,
            "no toolkit include folder found".into(),
            "kernels that include toolkit headers (cooperative_groups.h, cuda_fp16.h) need them: set CUDA_HOME to the toolkit, or install it in /usr/local/cuda",
        ),
    }
}

const PROFILING_PARAMS: &str = "/proc/driver/nvidia/params";

fn counter_permission() -> Finding {
    const WHAT: &str = "performance counters";
    let Ok(params) = std::fs::read_to_string(PROFILING_PARAMS) else {
        return Finding::problem(
            WHAT,
            State::Warning,
            format!("{PROFILING_PARAMS} cannot be read, so access is unknown"),
            format!(
                "if ncu fails with ERR_NVGPUCTRPERM: {}",
                ncu::run::PERMISSION_FIX
            ),
        );
    };
    let admin_only = params
        .lines()
        .find_map(|l| l.strip_prefix("RmProfilingAdminOnly:"))
        .map(|v| v.trim() == "1");
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    match (admin_only, root) {
        (Some(true), false) => Finding::problem(
            WHAT,
            State::Missing,
            "only administrators may read them (RmProfilingAdminOnly: 1) and you are not root: ncu will fail with ERR_NVGPUCTRPERM".into(),
            ncu::run::PERMISSION_FIX,
        ),
        (Some(true), true) => Finding::ok(WHAT, "restricted to administrators, and you are root".into()),
        (Some(false), _) => Finding::ok(WHAT, "readable by every user".into()),
        (None, _) => Finding::problem(
            WHAT,
            State::Warning,
            "the driver does not say who may read them".into(),
            format!("if ncu fails with ERR_NVGPUCTRPERM: {}", ncu::run::PERMISSION_FIX),
        ),
    }
}

/// The ELF section nvcc -lineinfo adds to each CUBIN.
const LINE_INFO_SECTION: &str = ".nv_debug_line_sass";

/// Looks for line info with `cuobjdump -elf` when there is one, else in the
/// binary's bytes.
fn line_info(binary: &Path, cuobjdump: Option<&Path>) -> Finding {
    const WHAT: &str = "line info";
    let shown = binary.display();
    let sections = match cuobjdump {
        Some(tool) => {
            process::run(&process::Invocation::new(tool).arg("-elf").arg(binary)).map(|o| o.stdout)
        }
        None => std::fs::read(binary)
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
            .map_err(|e| process::ToolError {
                command_line: format!("read {shown}"),
                kind: process::ToolErrorKind::Spawn(e),
                stdout: String::new(),
                stderr: String::new(),
            }),
    };
    match sections {
        Err(error) => Finding::problem(
            WHAT,
            State::Warning,
            format!("{shown} could not be read: {error}"),
            "give the compiled program (a CUDA binary or library), not its source, and check the path",
        ),
        Ok(text) if text.contains(LINE_INFO_SECTION) => Finding::ok(
            WHAT,
            format!("{shown} carries line info ({LINE_INFO_SECTION})"),
        ),
        Ok(_) => Finding::problem(
            WHAT,
            State::Warning,
            format!(
                "no {LINE_INFO_SECTION} section in {shown}{}",
                if cuobjdump.is_none() {
                    " (looked without cuobjdump, which cannot see into a compressed fatbin)"
                } else {
                    ""
                }
            ),
            "rebuild with `nvcc -lineinfo` (CMake: add -lineinfo to CMAKE_CUDA_FLAGS); otherwise ncu's source page, and gpuprof's per-line findings, stay empty",
        ),
    }
}

/// The checks as a table of text lines, with the fixes under them.
pub fn render(findings: &[Finding]) -> String {
    let mut text = String::new();
    for finding in findings {
        let mark = match finding.state {
            State::Ok => "ok  ",
            State::Warning => "warn",
            State::Missing => "FAIL",
        };
        text.push_str(&format!("{mark} {:<21} {}\n", finding.what, finding.found));
        if let Some(fix) = &finding.fix {
            text.push_str(&format!("     {:<21} fix: {fix}\n", ""));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_binary_without_line_info_gets_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, b"\x7fELF no debug sections here").unwrap();
        let finding = line_info(&plain, None);
        assert_eq!(finding.state, State::Warning);
        assert!(finding.fix.unwrap().contains("nvcc -lineinfo"));
        assert!(finding.found.contains("compressed fatbin"));
        let with = dir.path().join("with");
        std::fs::write(&with, format!("\x7fELF {LINE_INFO_SECTION} ...")).unwrap();
        assert_eq!(line_info(&with, None).state, State::Ok);
        let missing = line_info(&dir.path().join("none"), None);
        assert!(missing.found.contains("could not be read"));
    }

    #[test]
    fn cuobjdump_output_is_searched_when_there_is_one() {
        let dir = tempfile::tempdir().unwrap();
        let tool = dir.path().join("cuobjdump");
        std::fs::write(
            &tool,
            format!("#!/bin/sh\necho 'Fatbin elf code:'\necho '.section {LINE_INFO_SECTION}'\n"),
        )
        .unwrap();
        std::fs::set_permissions(&tool, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        let binary = dir.path().join("app");
        std::fs::write(&binary, b"compressed").unwrap();
        assert_eq!(line_info(&binary, Some(&tool)).state, State::Ok);
    }

    #[test]
    fn the_table_shows_each_check_and_its_fix() {
        let text = render(&[
            Finding::ok("NVRTC", "version 13.0".into()),
            Finding::problem(
                "Nsight Compute",
                State::Missing,
                "not found".into(),
                "install it",
            ),
        ]);
        assert_eq!(
            text,
            "ok   NVRTC                 version 13.0\nFAIL Nsight Compute        not found\n                           fix: install it\n"
        );
    }
}
