//! Kernel source → loadable CUBIN, compiled at run time with NVRTC for the
//! device's own architecture, with line info, and with the NVRTC program
//! named by the real source path so that ncu's source page can show the
//! file. Results are cached by a hash of everything that affects the
//! binary. Launches nothing.

mod cache;

use std::ffi::{CStr, CString, c_char};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use cudarc::nvrtc::{result as nvrtc, sys};
use serde::{Deserialize, Serialize};

pub use cache::Cache;

/// One compiled kernel source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Compiled {
    pub cubin: PathBuf,
    /// Every option NVRTC was given, in order.
    pub options: Vec<String>,
    /// NVRTC's log (warnings); empty when it printed nothing.
    pub log: String,
    pub seconds: f64,
    pub from_cache: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum BuildError {
    /// libnvrtc could not be loaded.
    NvrtcMissing,
    Unreadable {
        path: PathBuf,
        reason: String,
    },
    /// The source or an option contains a NUL byte.
    Nul {
        what: String,
    },
    /// NVRTC rejected the source; `log` is its message.
    Compile {
        path: PathBuf,
        log: String,
    },
    /// NVRTC failed for another reason (out of memory, internal error).
    Nvrtc {
        path: PathBuf,
        step: &'static str,
        code: String,
    },
    Cache {
        path: PathBuf,
        reason: String,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NvrtcMissing => write!(
                f,
                "NVRTC (libnvrtc.so) was not found: install the CUDA toolkit, or add the folder holding libnvrtc.so.13 to LD_LIBRARY_PATH (`gpuprof doctor` checks this)"
            ),
            BuildError::Unreadable { path, reason } => {
                write!(f, "cannot read {}: {reason}", path.display())
            }
            BuildError::Nul { what } => write!(f, "{what} contains a NUL byte"),
            BuildError::Compile { path, log } => {
                write!(
                    f,
                    "NVRTC could not compile {}:\n{}",
                    path.display(),
                    log.trim_end()
                )
            }
            BuildError::Nvrtc { path, step, code } => {
                write!(f, "NVRTC failed in {step} for {}: {code}", path.display())
            }
            BuildError::Cache { path, reason } => {
                write!(
                    f,
                    "cannot write the build cache at {}: {reason}",
                    path.display()
                )
            }
        }
    }
}

impl std::error::Error for BuildError {}

/// Whether libnvrtc can be loaded (cudarc panics on first use otherwise).
pub fn nvrtc_available() -> bool {
    // SAFETY: only tries to dlopen the library; no NVRTC call is made.
    unsafe { sys::is_culib_present() }
}

/// NVRTC's version as `major.minor`.
pub fn nvrtc_version() -> Option<String> {
    if !nvrtc_available() {
        return None;
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: both pointers are valid for writes of one c_int.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .ok()?;
    Some(format!("{major}.{minor}"))
}

/// The options gpuprof always passes, for a device of compute capability
/// `major.minor`, followed by the variant's own.
pub fn options_for(compute_capability: (u32, u32), extra: &[String]) -> Vec<String> {
    let (major, minor) = compute_capability;
    let mut options = vec![
        format!("--gpu-architecture=sm_{major}{minor}"),
        "-lineinfo".to_string(),
    ];
    options.extend(extra.iter().cloned());
    options
}

/// Compiles `source` to a CUBIN with `options`, through `cache`.
pub fn compile(source: &Path, options: &[String], cache: &Cache) -> Result<Compiled, BuildError> {
    let text = std::fs::read_to_string(source).map_err(|e| BuildError::Unreadable {
        path: source.to_path_buf(),
        reason: e.to_string(),
    })?;
    if !nvrtc_available() {
        return Err(BuildError::NvrtcMissing);
    }
    let version = nvrtc_version().unwrap_or_default();
    let key = cache::key(
        &[source.to_string_lossy().as_ref(), &text, &version],
        options,
    );
    let started = Instant::now();
    if let Some(cubin) = cache.lookup(&key) {
        return Ok(Compiled {
            cubin,
            options: options.to_vec(),
            log: String::new(),
            seconds: started.elapsed().as_secs_f64(),
            from_cache: true,
        });
    }
    let (binary, log) = compile_to_cubin(source, &text, options)?;
    let cubin = cache.store(&key, &binary)?;
    Ok(Compiled {
        cubin,
        options: options.to_vec(),
        log,
        seconds: started.elapsed().as_secs_f64(),
        from_cache: false,
    })
}

fn compile_to_cubin(
    source: &Path,
    text: &str,
    options: &[String],
) -> Result<(Vec<u8>, String), BuildError> {
    let nul = |what: String| BuildError::Nul { what };
    let source_c = CString::new(text).map_err(|_| nul(source.display().to_string()))?;
    let name_c = CString::new(source.to_string_lossy().as_bytes())
        .map_err(|_| nul("the source path".into()))?;
    let options_c: Vec<CString> = options
        .iter()
        .map(|o| CString::new(o.as_str()).map_err(|_| nul(format!("compile option {o:?}"))))
        .collect::<Result<_, _>>()?;
    let failed = |step: &'static str| {
        move |e: nvrtc::NvrtcError| BuildError::Nvrtc {
            path: source.to_path_buf(),
            step,
            code: format!("{:?}", e.0),
        }
    };
    let program =
        nvrtc::create_program(&source_c, Some(&name_c)).map_err(failed("nvrtcCreateProgram"))?;
    let program = Program(program);
    // SAFETY: `program.0` is a live program; the options outlive the call.
    let compiled = unsafe { nvrtc::compile_program(program.0, &options_c) };
    // SAFETY: as above; the log is a NUL-terminated buffer NVRTC filled.
    let log = unsafe { nvrtc::get_program_log(program.0) }
        .map(|raw| c_text(&raw))
        .unwrap_or_default();
    if compiled.is_err() {
        return Err(BuildError::Compile {
            path: source.to_path_buf(),
            log,
        });
    }
    let mut size = 0usize;
    // SAFETY: `size` is valid for one write; the program compiled.
    unsafe { sys::nvrtcGetCUBINSize(program.0, &mut size) }
        .result()
        .map_err(failed("nvrtcGetCUBINSize"))?;
    let mut binary = vec![0u8; size];
    // SAFETY: `binary` has exactly the size NVRTC reported.
    unsafe { sys::nvrtcGetCUBIN(program.0, binary.as_mut_ptr() as *mut c_char) }
        .result()
        .map_err(failed("nvrtcGetCUBIN"))?;
    Ok((binary, log))
}

/// Destroys the NVRTC program however compilation ends.
struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program was created by nvrtcCreateProgram and is
        // destroyed exactly once.
        let _ = unsafe { nvrtc::destroy_program(self.0) };
    }
}

fn c_text(raw: &[c_char]) -> String {
    if raw.is_empty() {
        return String::new();
    }
    // SAFETY: NVRTC NUL-terminates its log; `raw` holds the whole buffer.
    unsafe { CStr::from_ptr(raw.as_ptr()) }
        .to_string_lossy()
        .trim_end_matches('\0')
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_name_the_architecture_and_keep_line_info() {
        let options = options_for((9, 0), &["--use_fast_math".to_string()]);
        assert_eq!(
            options,
            ["--gpu-architecture=sm_90", "-lineinfo", "--use_fast_math"]
        );
    }
}
