//! Running Nsight Compute: finding the `ncu` binary, its version, the argv
//! that profiles a target with the fixed metric set and source counters,
//! the argv that exports a report's raw and source pages, and recognising
//! ncu's failure modes (no permission to read the counters) so that the
//! error says how to fix them.

use std::path::{Path, PathBuf};

use crate::model::metrics;
use crate::process::{Invocation, ToolError, last_lines};

/// Where to look for ncu: an explicit path, then PATH, then `$CUDA_HOME`,
/// then the usual install folders.
pub fn locate(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(path) = explicit {
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(format!("--ncu {}: no such file", path.display()))
        };
    }
    let mut candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|paths| {
            std::env::split_paths(&paths)
                .map(|p| p.join("ncu"))
                .collect()
        })
        .unwrap_or_default();
    for variable in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(home) = std::env::var_os(variable) {
            candidates.push(PathBuf::from(home).join("bin").join("ncu"));
        }
    }
    candidates.push(PathBuf::from("/usr/local/cuda/bin/ncu"));
    if let Ok(entries) = std::fs::read_dir("/opt/nvidia/nsight-compute") {
        let mut versions: Vec<PathBuf> = entries.flatten().map(|e| e.path().join("ncu")).collect();
        versions.sort();
        candidates.extend(versions.into_iter().rev());
    }
    candidates.into_iter().find(|c| c.is_file()).ok_or_else(|| {
        "ncu (Nsight Compute) was not found on PATH, in $CUDA_HOME/bin, /usr/local/cuda/bin or /opt/nvidia/nsight-compute: \
         install Nsight Compute or pass --ncu /path/to/ncu"
            .to_string()
    })
}

pub fn version_invocation(ncu: &Path) -> Invocation {
    Invocation::new(ncu).arg("--version")
}

/// `Version 2025.3.1.0 (build 36398880) (public-release)` → `2025.3.1.0`.
pub fn parse_version(output: &str) -> Option<String> {
    output
        .lines()
        .find_map(|line| line.trim().strip_prefix("Version "))
        .and_then(|rest| rest.split_whitespace().next())
        .map(str::to_string)
}

/// Which launches ncu profiles.
#[derive(Debug, Clone)]
pub enum Selection {
    /// Only launches inside cuProfilerStart/Stop (gpuprof's own harness).
    ProfilerRanges,
    /// The first `count` launches whose kernel name matches `regex` (a
    /// user's program).
    Kernel { regex: String, count: u32 },
}

/// How to profile.
#[derive(Debug, Clone)]
pub struct ProfileRequest {
    pub selection: Selection,
    pub clock_control: String,
    /// The report path without its `.ncu-rep` extension.
    pub report_base: PathBuf,
    /// Where ncu writes its own messages (kept out of the target's stdout).
    pub log_file: PathBuf,
    /// Where gpuprof's source section is ([`write_source_section`]) when
    /// the per-line source counters are to be taken (with the source
    /// embedded in the report).
    pub source_section: Option<PathBuf>,
    /// Whether ncu also prints the raw page of what it profiled into its
    /// log (in base units), so that it need not be exported from the
    /// report afterwards.
    pub raw_page_in_log: bool,
}

/// gpuprof's source section: of the columns of ncu's SourceCounters
/// section, under the same labels, only those gpuprof reads (the stock
/// section also instruments the kernel for a dozen counters it does not).
const SOURCE_SECTION_TEXT: &str = include_str!("source-counters.section");

/// Its identifier, for `--section`.
const SOURCE_SECTION: &str = "GpuprofSourceCounters";

/// The folder, under `work`, that holds gpuprof's source section.
pub fn source_section_folder(work: &Path) -> PathBuf {
    work.join("sections")
}

/// Writes gpuprof's source section into `folder` (made when missing), for
/// ncu's `--section-folder`.
pub fn write_source_section(folder: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(folder)?;
    std::fs::write(
        folder.join("gpuprof-source-counters.section"),
        SOURCE_SECTION_TEXT,
    )
}

/// `ncu … target`: profiles the selected launches (profiler ranges with
/// `--profile-from-start off`, or a kernel-name filter and a launch count),
/// collecting the fixed metric set and, when asked, the SourceCounters
/// section with the source embedded in the report.
pub fn profile_invocation(ncu: &Path, request: &ProfileRequest, target: &Invocation) -> Invocation {
    let selection: Vec<String> = match &request.selection {
        Selection::ProfilerRanges => vec!["--profile-from-start".into(), "off".into()],
        Selection::Kernel { regex, count } => vec![
            "--kernel-name".into(),
            format!("regex:{regex}"),
            "--launch-count".into(),
            count.to_string(),
        ],
    };
    let mut invocation = Invocation::new(ncu)
        .args(["--clock-control", request.clock_control.as_str()])
        .args(selection)
        .arg("--metrics")
        .arg(metrics::metrics_argument());
    // No rules are applied (ncu's advice, in Python, run on every
    // launch): gpuprof reads none of their output.
    if let Some(folder) = &request.source_section {
        invocation = invocation
            .arg("--section-folder")
            .arg(folder.as_os_str())
            .args(["--section", SOURCE_SECTION])
            .args(["--import-source", "yes"])
            .args(["--apply-rules", "no"]);
    }
    if request.raw_page_in_log {
        invocation = invocation
            .args(["--csv", "--page", "raw", "--print-units", "base"])
            .env("LC_ALL", "C");
    }
    invocation = invocation
        .arg("--log-file")
        .arg(request.log_file.as_os_str())
        .arg("-f")
        .arg("-o")
        .arg(request.report_base.as_os_str())
        .arg(target.program.as_os_str())
        .args(target.args.iter().cloned());
    invocation.env.extend(target.env.iter().cloned());
    invocation
}

/// ncu's log split into its own messages (its `==` lines, and anything
/// before the raw page) and the raw page it printed there, when it
/// printed one (`raw_page_in_log`).
pub fn split_log(log: &str) -> (String, Option<String>) {
    let Some(start) = log.lines().position(|line| line.starts_with("\"ID\",")) else {
        return (log.to_string(), None);
    };
    let (mut messages, mut raw) = (String::new(), String::new());
    for (index, line) in log.lines().enumerate() {
        let into = match index >= start && !line.starts_with("==") {
            true => &mut raw,
            false => &mut messages,
        };
        into.push_str(line);
        into.push('\n');
    }
    (messages, Some(raw))
}

pub fn report_path(request: &ProfileRequest) -> PathBuf {
    let mut name = request.report_base.as_os_str().to_owned();
    name.push(".ncu-rep");
    PathBuf::from(name)
}

/// The raw page of every result in a report, in base units.
pub fn export_raw_invocation(ncu: &Path, report: &Path) -> Invocation {
    Invocation::new(ncu)
        .arg("--import")
        .arg(report.as_os_str())
        .args(["--csv", "--page", "raw", "--print-units", "base"])
        .env("LC_ALL", "C")
}

/// The source pages (CUDA lines with their SASS) of the `count` results
/// from result `first` on, one after another.
pub fn export_sources_invocation(
    ncu: &Path,
    report: &Path,
    first: usize,
    count: usize,
) -> Invocation {
    Invocation::new(ncu)
        .arg("--import")
        .arg(report.as_os_str())
        .args(["--csv", "--page", "source", "--print-source", "sass,cuda"])
        .args(["--launch-skip", &first.to_string()])
        .args(["--launch-count", &count.to_string()])
        .env("LC_ALL", "C")
}

/// How to get permission to read the performance counters.
pub const PERMISSION_FIX: &str = "Run as root, or let all users read them: create /etc/modprobe.d/nvidia-profiler.conf with \
     `options nvidia NVreg_RestrictProfilingToAdminUsers=0` and reboot (see \
     https://developer.nvidia.com/ERR_NVGPUCTRPERM). In a container, start it with --cap-add=SYS_ADMIN.";

/// Why an ncu run failed: gpuprof's advice where it recognises what ncu
/// printed to its log or stderr, else the error with the log's last lines.
pub fn explain_failure(log: &str, error: &ToolError) -> String {
    diagnose(log)
        .or_else(|| diagnose(&error.stderr))
        .unwrap_or_else(|| format!("{error}\n{}", last_lines(log, 10)))
}

/// Advice for what ncu printed, when it is a failure gpuprof recognises.
pub fn diagnose(output: &str) -> Option<String> {
    if output.contains("ERR_NVGPUCTRPERM") {
        return Some(format!(
            "ncu has no permission to read the GPU performance counters (ERR_NVGPUCTRPERM). {PERMISSION_FIX}"
        ));
    }
    if output.contains("No kernels were profiled") {
        return Some(
            "ncu profiled no kernel: every launch failed before reaching the profiler range, or the target did not run"
                .to_string(),
        );
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_raw_page_ncu_printed_into_its_log_is_told_from_its_messages() {
        let raw = include_str!("../../tests/fixtures/h200-transpose/raw.csv");
        let messages = include_str!("../../tests/fixtures/h200-transpose/ncu.log");
        let log = format!("{messages}{raw}==WARNING== one more message\n");
        let (own, page) = split_log(&log);
        assert_eq!(page.as_deref(), Some(raw));
        assert_eq!(own, format!("{messages}==WARNING== one more message\n"));
        assert_eq!(split_log(messages), (messages.to_string(), None));
    }

    #[test]
    fn reads_the_version_ncu_printed_on_the_h200() {
        let printed = include_str!("../../tests/fixtures/h200-probe/ncu-version.txt");
        assert_eq!(parse_version(printed).as_deref(), Some("2025.3.1.0"));
        assert_eq!(parse_version("nothing here"), None);
    }

    #[test]
    fn the_profile_command_line_filters_by_profiler_range_and_keeps_the_clocks() {
        let request = ProfileRequest {
            selection: Selection::ProfilerRanges,
            clock_control: "none".into(),
            report_base: "/out/profile".into(),
            log_file: "/out/ncu.log".into(),
            source_section: Some("/out/sections".into()),
            raw_page_in_log: true,
        };
        let target = Invocation::new("/bin/gpuprof").args(["harness", "--job", "/out/job.json"]);
        let line = profile_invocation(Path::new("ncu"), &request, &target).display();
        assert!(line.starts_with(
            "ncu --clock-control none --profile-from-start off --metrics gpu__time_duration.sum,"
        ));
        assert!(line.contains(" --section-folder /out/sections --section GpuprofSourceCounters --import-source yes --apply-rules no --csv --page raw --print-units base --log-file /out/ncu.log -f -o /out/profile "), "{line}");
        assert!(line.ends_with(" /bin/gpuprof harness --job /out/job.json"));
        assert_eq!(report_path(&request), PathBuf::from("/out/profile.ncu-rep"));
        let user = ProfileRequest {
            selection: Selection::Kernel {
                regex: "transpose_.*".into(),
                count: 5,
            },
            raw_page_in_log: false,
            ..request
        };
        let line = profile_invocation(
            Path::new("ncu"),
            &user,
            &Invocation::new("./app").arg("4096"),
        )
        .display();
        assert!(line.starts_with("ncu --clock-control none --kernel-name 'regex:transpose_.*' --launch-count 5 --metrics "), "{line}");
        assert!(line.ends_with(" -o /out/profile ./app 4096"), "{line}");
        assert!(!line.contains("--page raw"), "{line}");
    }

    #[test]
    fn the_source_section_keeps_every_column_gpuprof_reads_of_the_stock_one() {
        // The column headers of the source pages ncu exported with its
        // stock SourceCounters section on the H200 (a kernel without
        // shared memory has no shared-wavefront columns).
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/h200-transpose");
        let mut read: Vec<String> = Vec::new();
        for entry in std::fs::read_dir(fixture).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !(name.starts_with("source-") && name.ends_with(".csv")) {
                continue;
            }
            let page = std::fs::read_to_string(&path).unwrap();
            let header = page.lines().find(|l| l.starts_with("\"Line No\"")).unwrap();
            for column in header.split(',').map(|c| c.trim_matches('"')) {
                if crate::ncu::source::reads_column(column) && !read.iter().any(|r| r == column) {
                    read.push(column.to_string());
                }
            }
        }
        assert!(read.len() >= 20, "{read:?}");
        let labels: Vec<&str> = SOURCE_SECTION_TEXT
            .lines()
            .filter_map(|l| l.trim().strip_prefix("Label: \""))
            .map(|l| l.trim_end_matches('"'))
            .collect();
        for column in &read {
            assert!(
                labels.contains(&column.as_str()),
                "{column} is not in the section"
            );
        }
        // Nothing else: the section is trimmed to what is read.
        assert_eq!(labels.len(), read.len(), "{labels:?}");
        assert!(SOURCE_SECTION_TEXT.contains(&format!("Identifier: \"{SOURCE_SECTION}\"")));
    }

    #[test]
    fn exports_ask_for_base_units_and_a_range_of_source_pages() {
        let raw = export_raw_invocation(Path::new("ncu"), Path::new("r.ncu-rep")).display();
        assert_eq!(
            raw,
            "ncu --import r.ncu-rep --csv --page raw --print-units base"
        );
        let source =
            export_sources_invocation(Path::new("ncu"), Path::new("r.ncu-rep"), 3, 2).display();
        assert_eq!(
            source,
            "ncu --import r.ncu-rep --csv --page source --print-source sass,cuda --launch-skip 3 --launch-count 2"
        );
    }

    #[test]
    fn counter_permission_errors_get_the_fix() {
        let advice =
            diagnose("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission").unwrap();
        assert!(advice.contains("NVreg_RestrictProfilingToAdminUsers=0"));
        assert_eq!(diagnose("==PROF== Disconnected"), None);
    }

    #[test]
    fn an_explicit_path_that_does_not_exist_is_an_error() {
        assert!(
            locate(Some(Path::new("/nonexistent/ncu")))
                .unwrap_err()
                .contains("no such file")
        );
    }
}
