//! The one error type of gpuprof's commands and the exit codes they end
//! with. Every failure that stops a command is an [`Error`]: a variants.toml
//! that does not resolve, a results.json or ncu export that cannot be read,
//! a machine that lacks a tool, a file that cannot be written. `main`
//! prints it once (through [`Error::diagnostic`]) and exits with
//! [`Error::exit_code`]; the README's table of exit codes points here.

use std::path::PathBuf;

use crate::build::BuildError;
use crate::config::ConfigError;
use crate::model::results::ReadError;

/// The exit codes of `gpuprof`, in one place (the README lists them).
pub mod exit_code {
    /// Every variant ran and verified.
    pub const SUCCESS: u8 = 0;
    /// An output (report, results.json, ncu work file) could not be
    /// written, or another gpuprof is writing the same output folder.
    pub const OUTPUT_FAILED: u8 = 1;
    /// Bad input: variants.toml, results.json or an ncu export, with file,
    /// line and column where there is one.
    pub const BAD_INPUT: u8 = 2;
    /// The report was written, but a variant failed (compile error, fault,
    /// timeout or wrong output); a sweep's configuration that fails to run
    /// does not count while another of its sweep ran correctly. For
    /// `report --check` (no report): a kernel did not compile.
    pub const VARIANT_FAILED: u8 = 3;
    /// The machine lacks the GPU, the driver, NVRTC or ncu; for `doctor`,
    /// a check failed.
    pub const ENVIRONMENT: u8 = 4;
    /// The report was written and every variant verified, but profiling
    /// produced no counters (no ncu, no permission to read the counters,
    /// ncu failed, the export failed): the report has timings only, and
    /// says why.
    pub const PROFILING_FAILED: u8 = 6;
    /// `merge` wrote the report, but sizes of the suite are missing (a
    /// shard failed or was not given): the report names them.
    pub const INCOMPLETE: u8 = 7;
    /// `audit` found claims the counters do not support.
    pub const CLAIMS_UNSUPPORTED: u8 = 5;
    /// Stopped by Ctrl-C (SIGINT), SIGTERM or SIGHUP: the harness and ncu
    /// are stopped and results.json keeps every run finished so far.
    pub const INTERRUPTED: u8 = 130;
}

/// Why a command stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// variants.toml does not resolve; its Display is the whole diagnostic
    /// (`error: …`, the file, line, column, a caret and a hint).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A saved results.json could not be read.
    #[error("{}", located(path, source))]
    Results { path: PathBuf, source: ReadError },
    /// An input other than a suite or a results.json (an ncu export given to
    /// `compare`, a command-line value) is unusable.
    #[error("{0}")]
    Input(String),
    /// A kernel could not be built because the compiler itself is missing
    /// (a kernel that fails to compile is a failed variant, not an error).
    #[error(transparent)]
    Build(BuildError),
    /// A tool or device that the command needs is missing or unusable.
    #[error("{0}")]
    Tool(String),
    /// A file could not be written.
    #[error("cannot write {}: {reason}", path.display())]
    Output { path: PathBuf, reason: String },
    /// The output folder holds a file gpuprof did not write (or cannot
    /// read) where it would write its own.
    #[error(
        "{} would be overwritten, but {why}: give another folder with -o, or --force to overwrite it",
        path.display()
    )]
    NotOurs { path: PathBuf, why: String },
    /// Asked to stop (Ctrl-C, SIGTERM, SIGHUP); `saved` when what was
    /// measured is in results.json and the reports.
    #[error("{}", match saved {
        true => "interrupted: results.json, report.html and report.md hold what was measured so far; `gpuprof report` again measures the rest and reuses it",
        false => "interrupted before anything new was measured: the output folder is as it was",
    })]
    Interrupted { saved: bool },
    /// Another gpuprof is writing the same output folder.
    #[error(
        "another gpuprof (pid {holder}) is writing {}: wait for it to finish, or give this run another folder with -o",
        folder.display()
    )]
    Busy { folder: PathBuf, holder: String },
}

/// `results.json:3:14: …` where the error has a place in the file,
/// `results.json: …` otherwise.
fn located(path: &std::path::Path, error: &ReadError) -> String {
    match error {
        ReadError::Json { .. } => format!("{}:{error}", path.display()),
        _ => format!("{}: {error}", path.display()),
    }
}

impl Error {
    /// The exit code documented for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Config(_) | Error::Results { .. } | Error::Input(_) => exit_code::BAD_INPUT,
            Error::Build(_) | Error::Tool(_) => exit_code::ENVIRONMENT,
            Error::Interrupted { .. } => exit_code::INTERRUPTED,
            Error::Output { .. } | Error::Busy { .. } | Error::NotOurs { .. } => {
                exit_code::OUTPUT_FAILED
            }
        }
    }

    /// The text `main` prints: `error: ` once, then the message (a config
    /// diagnostic carries its own `error: ` line; an interrupt is no error).
    pub fn diagnostic(&self) -> String {
        match self {
            Error::Config(error) => error.to_string(),
            Error::Interrupted { .. } => self.to_string(),
            other => format!("error: {other}"),
        }
    }

    /// An output error for `path`.
    pub fn output(path: &std::path::Path, reason: impl ToString) -> Error {
        Error::Output {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_error_prints_error_once_and_maps_to_its_documented_code() {
        let config = crate::config::parse("[suite]\n", std::path::Path::new("v.toml")).unwrap_err();
        let cases = [
            (Error::Config(config), exit_code::BAD_INPUT),
            (Error::Input("bad".into()), exit_code::BAD_INPUT),
            (
                Error::Build(BuildError::NvrtcMissing),
                exit_code::ENVIRONMENT,
            ),
            (Error::Tool("no GPU".into()), exit_code::ENVIRONMENT),
            (
                Error::output(std::path::Path::new("/r/report.html"), "disk full"),
                exit_code::OUTPUT_FAILED,
            ),
        ];
        for (error, code) in cases {
            let text = error.diagnostic();
            assert!(text.starts_with("error: "), "{text}");
            assert_eq!(text.matches("error: ").count(), 1, "{text}");
            assert_eq!(error.exit_code(), code, "{text}");
        }
    }
}
