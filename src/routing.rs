//! Files given to the wrong command: before a command parses its input, the
//! input is recognised by its extension and first bytes (a suite's TOML, a
//! results.json, ncu data, CUDA source, a folder) and, when it is meant for
//! another command, the error says which command takes it, with the exact
//! line to run, instead of a TOML, JSON or UTF-8 parse error.

use std::io::Read;
use std::path::Path;

use crate::process::shell_quote;

/// The commands that read a file named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// `gpuprof report SUITE.toml`.
    Report,
    /// `gpuprof render results.json`.
    Render,
    /// `gpuprof compare A.ncu-rep B.csv …`.
    Compare,
    /// `gpuprof init DIR --from FILE.cu`.
    InitFrom,
}

/// What a path holds, as far as routing needs to know.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Input {
    Suite,
    Results,
    NcuData,
    CudaSource,
    Folder { suite: bool, results: bool },
    Unknown,
}

/// The first bytes of a file (enough to tell JSON apart), or nothing.
fn head(path: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    if let Ok(file) = std::fs::File::open(path) {
        let _ = file.take(4096).read_to_end(&mut bytes);
    }
    bytes
}

fn classify(path: &Path) -> Input {
    if path.is_dir() {
        return Input::Folder {
            suite: path.join("variants.toml").is_file(),
            results: path.join("results.json").is_file(),
        };
    }
    let extension = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "toml" => Input::Suite,
        "ncu-rep" | "csv" => Input::NcuData,
        "cu" | "cuh" | "cuda" => Input::CudaSource,
        "json" => {
            let head = head(path);
            let text = String::from_utf8_lossy(&head);
            match text.trim_start().starts_with('{') && text.contains("\"schema_version\"") {
                true => Input::Results,
                false => Input::Unknown,
            }
        }
        _ => Input::Unknown,
    }
}

/// Why `reader` should not read `path`, with the command that should, or
/// `None` when `path` may be what `reader` reads.
pub fn misrouted(reader: Reader, path: &Path) -> Option<String> {
    let shown = shell_quote(&path.to_string_lossy());
    let inside = |file: &str| shell_quote(&path.join(file).to_string_lossy());
    let what = match classify(path) {
        Input::Suite if reader != Reader::Report => {
            format!("{shown} is a suite (variants.toml): run it with `gpuprof report {shown}`")
        }
        Input::Results if reader != Reader::Render => format!(
            "{shown} is a gpuprof results.json: rebuild its report with `gpuprof render {shown}`"
        ),
        Input::NcuData if reader != Reader::Compare => format!(
            "{shown} is ncu data (a report or a CSV export): build a report from it with `gpuprof compare {shown}`"
        ),
        Input::CudaSource if reader != Reader::InitFrom => format!(
            "{shown} is CUDA source, not a suite: `gpuprof init my-suite --from {shown}` writes a variants.toml for its kernels, then run `gpuprof report my-suite/variants.toml`"
        ),
        Input::Folder { suite, results } => match (reader, suite, results) {
            (Reader::Report, true, _) => {
                format!(
                    "{shown} is a folder: give its suite, `gpuprof report {}`",
                    inside("variants.toml")
                )
            }
            (Reader::Render, _, true) | (Reader::Report, false, true) => format!(
                "{shown} is a folder: rebuild the report of its results with `gpuprof render {}`",
                inside("results.json")
            ),
            (Reader::Compare, _, _) => format!(
                "{shown} is a folder: give the ncu reports in it, e.g. `gpuprof compare {shown}/*.ncu-rep`"
            ),
            _ => format!("{shown} is a folder, not a file"),
        },
        _ => return None,
    };
    Some(what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_input_is_sent_to_the_command_that_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let suite = write("variants.toml", "version = 1\n");
        let results = write("results.json", "{\"schema_version\": 2}");
        let other_json = write("data.json", "[1, 2]");
        let report = write("profile.ncu-rep", "\u{0}binary");
        let source = write("naive.cu", "__global__ void k() {}\n");
        let routed = |reader, path: &Path| misrouted(reader, path).unwrap_or_default();
        assert!(routed(Reader::Render, &suite).contains("`gpuprof report "));
        assert!(routed(Reader::Compare, &suite).contains("`gpuprof report "));
        assert!(routed(Reader::Report, &results).contains("`gpuprof render "));
        assert!(routed(Reader::Report, &report).contains("`gpuprof compare "));
        assert!(routed(Reader::Render, &report).contains("`gpuprof compare "));
        assert!(routed(Reader::Report, &source).contains("--from "));
        assert_eq!(misrouted(Reader::Report, &suite), None);
        assert_eq!(misrouted(Reader::Render, &results), None);
        assert_eq!(misrouted(Reader::Compare, &report), None);
        assert_eq!(misrouted(Reader::InitFrom, &source), None);
        assert_eq!(
            misrouted(Reader::Render, &other_json),
            None,
            "its own error says more"
        );
        let folder = dir.path();
        assert!(routed(Reader::Report, folder).ends_with("variants.toml`"));
        assert!(routed(Reader::Render, folder).ends_with("results.json`"));
        assert!(routed(Reader::Compare, folder).ends_with("/*.ncu-rep`"));
    }
}
