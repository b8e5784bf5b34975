//! The parameter types `init --from` cannot read from a file's text, read
//! from the compiler instead: a kernel whose parameters are written with an
//! alias the scan cannot follow (llm.c's `floatX *out`, a `typedef` in an
//! included header under `#if defined(ENABLE_BF16)`) is compiled as
//! `gpuprof report` would compile it, and its symbol's demangled parameter
//! list (`gelu_forward_kernel1(__nv_bfloat16*, __nv_bfloat16 const*, int)`)
//! gives the types the compiler saw. Templates are left out (an instance
//! the file does not name has no symbol), as are kernels with a C symbol,
//! which carries no types.

use std::path::{Path, PathBuf};

use crate::build::{self, BuildError, Cache, Request, Settings, symbols};
use crate::config::signature::{self, Parameter};
use crate::model::variant::Compiler;

/// The compute capability init compiles for: the types do not depend on it.
const ARCHITECTURE: (u32, u32) = (9, 0);

/// What compiling the file said of the kernels asked about.
pub(super) struct Read {
    /// Each kernel found, with the parameters of its compiled symbol.
    pub(super) parameters: Vec<(String, Vec<Parameter>)>,
    /// The kernels the compiled file does not hold: the scan saw them, but
    /// an `#if` or `#ifdef` leaves them out as the file is compiled.
    pub(super) left_out: Vec<String>,
}

/// Each of `kernels` (names or launched instances of kernels the file at
/// `path` holds) with the parameters of its compiled symbol, in order; a kernel
/// whose symbol carries no parameter types, or that the compiled file
/// does not hold (a kernel inside an `#ifdef` left off), is left out.
/// `Err` says why the file could not be compiled, in one line.
pub(super) fn parameters_of(
    path: &Path,
    needs_nvcc: bool,
    near_folders: &[PathBuf],
    kernels: &[String],
) -> Result<Read, String> {
    let compiler = match needs_nvcc {
        true => Compiler::Nvcc,
        false => Compiler::Nvrtc,
    };
    // As `gpuprof report` names it: nvcc runs in a folder of its own.
    let path =
        &std::fs::canonicalize(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let include_dirs: Vec<PathBuf> = path
        .parent()
        .map(Path::to_path_buf)
        .into_iter()
        .chain(near_folders.iter().cloned())
        .collect();
    let options = build::options_for(
        ARCHITECTURE,
        compiler,
        Settings {
            include_dirs: &include_dirs,
            ..Settings::default()
        },
    );
    let compile = |entries: &[String]| {
        let request = Request {
            source: path,
            entries,
            compiler,
            device_only: false,
            options: &options,
        };
        build::compile(request, &Cache::default_location())
    };
    // A kernel the scan saw under an #ifdef the file leaves off is not in
    // the binary: the others are read without it.
    let asked = kernels;
    let (kernels, compiled) = match compile(kernels) {
        Err(BuildError::NoSuchKernel { found, .. }) => {
            let present: Vec<String> = kernels
                .iter()
                .filter(|k| found.contains(k))
                .cloned()
                .collect();
            let compiled = compile(&present).map_err(|e| one_line(&e))?;
            (present, compiled)
        }
        other => (kernels.to_vec(), other.map_err(|e| one_line(&e))?),
    };
    let parameters = kernels
        .iter()
        .zip(&compiled.functions)
        .filter_map(|(kernel, symbol)| {
            let demangled = symbols::demangled_with_parameters(symbol)?;
            Some((kernel.clone(), signature::compiled_parameters(&demangled)?))
        })
        .collect();
    let left_out = asked
        .iter()
        .filter(|k| !kernels.contains(k))
        .cloned()
        .collect();
    Ok(Read {
        parameters,
        left_out,
    })
}

/// A build error as one line: a compiler's first error line, or the
/// error's own first line.
fn one_line(error: &BuildError) -> String {
    let text = match error {
        BuildError::Compile { compiler, log, .. } => {
            let first = log
                .lines()
                .find(|line| line.contains("error"))
                .or_else(|| log.lines().find(|line| !line.trim().is_empty()))
                .unwrap_or("it gave no message");
            format!("{compiler} failed: {}", first.trim())
        }
        other => other.to_string(),
    };
    text.lines().next().unwrap_or_default().to_string()
}
