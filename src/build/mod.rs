//! Kernel source → loadable CUBIN and the symbol of its kernel, for the
//! device's own architecture, with line info: NVRTC at run time for device
//! code (the program named by the real source path, so that ncu's source
//! page can show the file; the entry looked up through a name expression),
//! or nvcc for a file that holds host code too (`nvcc`, `symbols`). The
//! toolkit's headers are found for NVRTC (`toolkit`). Results are cached by
//! a hash of everything that affects the binary, the user's headers
//! included (`headers`). A suite's variants are built together
//! (`together`): one compiler run per source file, compiler and options.
//! Launches nothing.

mod cache;
pub(crate) mod device_only;
pub(crate) mod headers;
mod nvcc;
mod nvrtc;
pub mod symbols;
mod together;
pub mod toolkit;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use cudarc::nvrtc::sys;
use serde::{Deserialize, Serialize};

pub use cache::Cache;
pub use together::{Built, VariantBuild, compile_variants};

use crate::config::plan::{Instance, LaunchArg};
use crate::config::signature::{self, Passed};
use crate::model::variant::Compiler;

/// That every launch of `instance` passes what its compiled kernel takes,
/// read from the kernel's symbol (`functions`, in the order of the
/// variant's entries): the types the compiler saw after every typedef,
/// macro and template argument, which the source's text may hide (llm.c's
/// `floatX*` is a `__nv_bfloat16*` under `#ifdef ENABLE_BF16`). A kernel
/// with a C symbol (`extern "C"`) carries no types and is left to the
/// checks of the config and the harness.
fn check_arguments(instance: &Instance, functions: &[String]) -> Result<(), BuildError> {
    let launches: Vec<(usize, Vec<Passed>)> = instance
        .launches()
        .into_iter()
        .map(|launch| {
            let passed = launch.args.into_iter().map(|arg| match arg {
                LaunchArg::Buffer { buffer, .. } => Passed::Buffer {
                    name: &buffer.name,
                    element: buffer.element,
                },
                LaunchArg::Scalar(scalar) => Passed::Scalar {
                    name: &scalar.name,
                    element: scalar.element,
                },
            });
            (launch.kernel, passed.collect())
        })
        .collect();
    for (kernel, args) in launches {
        // A parameter pack's expansion (`Dp` in the symbol) is not
        // demangled one parameter per argument: left to the harness.
        let Some(kernel) = functions
            .get(kernel)
            .filter(|symbol| !symbol.contains("Dp"))
            .and_then(|symbol| symbols::demangled_with_parameters(symbol))
        else {
            continue;
        };
        let Some(parameters) = signature::compiled_parameters(&kernel) else {
            continue;
        };
        if parameters.len() != args.len() {
            return Err(BuildError::Arguments {
                message: format!(
                    "it takes {} where the variant passes {}",
                    crate::analysis::format::counted(parameters.len(), "parameter"),
                    crate::analysis::format::counted(args.len(), "argument")
                ),
                help: "give `args` one argument per parameter, in order".into(),
                kernel,
            });
        }
        for (position, (arg, parameter)) in args.iter().zip(&parameters).enumerate() {
            if let Some((message, help)) = signature::mismatch(*arg, parameter) {
                return Err(BuildError::Arguments {
                    message: format!(
                        "{message}, but its parameter {} is `{}`",
                        position + 1,
                        parameter.written
                    ),
                    help,
                    kernel,
                });
            }
        }
    }
    Ok(())
}

/// One compiled kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Compiled {
    pub cubin: PathBuf,
    /// The symbols to load from it (each entry's mangled name, in order).
    pub functions: Vec<String>,
    /// Every option the compiler was given, in order.
    pub options: Vec<String>,
    /// The compiler's command line, as one would type it (nvcc), or the
    /// NVRTC call's description.
    pub command: String,
    /// The compiler's warnings; empty when it printed nothing.
    pub log: String,
    pub seconds: f64,
    pub from_cache: bool,
}

/// What to compile: the kernels `entries` of `source`, by `compiler`, with
/// `options` (from [`options_for`]).
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub source: &'a Path,
    pub entries: &'a [String],
    pub compiler: Compiler,
    /// Only the file's device code is compiled ([`device_only`]; nvcc).
    pub device_only: bool,
    pub options: &'a [String],
}

#[derive(Debug, Clone, PartialEq)]
pub enum BuildError {
    /// libnvrtc could not be loaded.
    NvrtcMissing,
    /// The source holds host code (or asked for nvcc) and no nvcc was found.
    NvccMissing {
        path: PathBuf,
    },
    Unreadable {
        path: PathBuf,
        reason: String,
    },
    /// The source or an option contains a NUL byte.
    Nul {
        what: String,
    },
    /// The compiler rejected the source; `log` is its message and
    /// `command` how it was called.
    Compile {
        path: PathBuf,
        compiler: &'static str,
        log: String,
        command: String,
    },
    /// nvcc compiled the file, but no kernel of its CUBIN is `entry`.
    NoSuchKernel {
        path: PathBuf,
        entry: String,
        /// The kernels it has, demangled.
        found: Vec<String>,
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
    /// The compiled kernel's parameters, as its symbol names them, do not
    /// take what the variant passes.
    Arguments {
        /// The kernel with its parameter types, demangled.
        kernel: String,
        /// What is wrong, naming the argument and the parameter.
        message: String,
        help: String,
    },
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NvrtcMissing => write!(
                f,
                "NVRTC (libnvrtc.so) was not found: install the CUDA toolkit, or add the folder holding libnvrtc.so.13 to LD_LIBRARY_PATH (`gpuprof doctor` checks this)"
            ),
            BuildError::NvccMissing { path } => write!(
                f,
                "{} needs nvcc (it holds host code, or `compiler = \"nvcc\"` asks for it), and no nvcc was found: install the CUDA toolkit and put its bin folder on PATH, or set CUDA_HOME (`pip install nvidia-cuda-nvcc` brings one too)",
                path.display()
            ),
            BuildError::Unreadable { path, reason } => {
                write!(f, "cannot read {}: {reason}", path.display())
            }
            BuildError::Nul { what } => write!(f, "{what} contains a NUL byte"),
            BuildError::Compile {
                path,
                compiler,
                log,
                command,
            } => {
                write!(
                    f,
                    "{compiler} could not compile {}:\n{}\n  command: {command}",
                    path.display(),
                    log.trim_end()
                )?;
                for help in compile_help(log) {
                    write!(f, "\n  help: {help}")?;
                }
                Ok(())
            }
            BuildError::NoSuchKernel { path, entry, found } => {
                // A file of many instances lists those of the entry's name.
                let base = entry.split('<').next().unwrap_or(entry).trim();
                let namesakes: Vec<&String> = found
                    .iter()
                    .filter(|k| k.split('<').next().is_some_and(|b| b.trim() == base))
                    .collect();
                let listed = match (found.len(), namesakes.is_empty()) {
                    (0, _) => "its kernels are: none".to_string(),
                    (1..=12, _) | (_, true) => format!("its kernels are: {}", found.join(", ")),
                    (all, false) => format!(
                        "of its {all} kernels, those named `{base}` are: {}",
                        namesakes
                            .iter()
                            .map(|k| k.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                write!(
                    f,
                    "nvcc compiled {}, but it holds no kernel `{entry}`; {listed}",
                    path.display()
                )
            }
            BuildError::Nvrtc { path, step, code } => {
                write!(f, "NVRTC failed in {step} for {}: {code}", path.display())
            }
            BuildError::Arguments {
                kernel,
                message,
                help,
            } => write!(
                f,
                "the compiled kernel is `{kernel}`, and {message}\n  help: {help}"
            ),
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

/// Whether `header` is named like one of the CUDA toolkit's own headers
/// (the runtime's, its libraries', NVTX, CUB, Thrust, libcu++), which a
/// partial toolkit (a pip wheel, a container without the dev packages)
/// may lack.
pub(crate) fn is_toolkit_header(header: &str) -> bool {
    const TOOLKIT: [&str; 15] = [
        "cuda",
        "cublas",
        "cufft",
        "curand",
        "cusparse",
        "cusolver",
        "nvtx",
        "nvToolsExt",
        "npp",
        "nvjpeg",
        "nvrtc",
        "cooperative_groups",
        "cub/",
        "thrust/",
        "crt/",
    ];
    TOOLKIT.iter().any(|prefix| header.starts_with(prefix))
}

/// What to do about a failed compile, from what the compiler's `log`
/// says: for each header it could not find, where that header comes from
/// (the CUDA toolkit, a Python extension's binding code, the user's own
/// folders); for a fixed-width integer type used without `<cstdint>`, how
/// to bring it in without editing the file.
fn compile_help(log: &str) -> Vec<String> {
    let mut help: Vec<String> = missing_headers(log)
        .into_iter()
        .map(|header| match header_origin(header) {
            HeaderOrigin::Toolkit => format!(
                "`{header}` belongs to the CUDA toolkit, and the toolkit this compiler uses does not have it: install the full toolkit (or the package of that library), or, if the file includes it without using it, list a folder holding a stand-in in `include_dirs`"
            ),
            HeaderOrigin::PythonBinding => format!(
                "`{header}` belongs to a Python extension's binding code (PyTorch, pybind11): gpuprof compiles and launches the kernels itself, without Python, so write device_only = true to compile the file's kernels without its host code (an empty header then stands in for `{header}`), or give it a .cu or .cuh that holds the kernels without the binding"
            ),
            HeaderOrigin::Elsewhere => format!(
                "`{header}` was not found: list the folder that holds it in `include_dirs` (relative to the variants.toml)"
            ),
        })
        .collect();
    let undeclared =
        regex::Regex::new(r#"identifier "((?:u?int(?:8|16|32|64)|u?intptr)_t)" is undefined"#)
            .expect("a valid pattern");
    let mut types: Vec<&str> = undeclared
        .captures_iter(log)
        .filter_map(|c| c.get(1).map(|m| m.as_str()))
        .collect();
    types.dedup();
    if let Some(first) = types.first() {
        help.push(format!(
            "`{first}` is declared in <cstdint>, which the file uses without including (older host compilers' <iostream> brought it in): add compile_options = [\"--pre-include=stdint.h\"] to leave the file as it is, or #include <cstdint> in it"
        ));
    }
    help
}

/// Where a header a compile could not find comes from.
enum HeaderOrigin {
    Toolkit,
    PythonBinding,
    Elsewhere,
}

fn header_origin(header: &str) -> HeaderOrigin {
    const BINDING: [&str; 6] = [
        "torch/",
        "ATen/",
        "c10/",
        "pybind11/",
        "Python.h",
        "caffe2/",
    ];
    if is_toolkit_header(header) {
        HeaderOrigin::Toolkit
    } else if BINDING.iter().any(|prefix| header.starts_with(prefix)) {
        HeaderOrigin::PythonBinding
    } else {
        HeaderOrigin::Elsewhere
    }
}

/// The headers a compiler's `log` says it could not find, in order, each
/// once: nvcc's (the host compiler's) `fatal error: NAME: No such file or
/// directory` and NVRTC's `cannot open source file "NAME"`.
pub(super) fn missing_headers(log: &str) -> Vec<&str> {
    let mut missing: Vec<&str> = Vec::new();
    for line in log.lines() {
        let header = line
            .split_once("fatal error: ")
            .and_then(|(_, rest)| rest.strip_suffix(": No such file or directory"))
            .or_else(|| {
                line.split_once("cannot open source file \"")
                    .and_then(|(_, rest)| rest.split_once('"'))
                    .map(|(name, _)| name)
            });
        if let Some(header) = header.filter(|header| !missing.contains(header)) {
            missing.push(header);
        }
    }
    missing
}

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

/// How a kernel is built besides the architecture: the user's options,
/// include folders and preprocessor macros.
#[derive(Debug, Clone, Copy, Default)]
pub struct Settings<'a> {
    pub extra: &'a [String],
    pub include_dirs: &'a [PathBuf],
    pub defines: &'a [(String, i64)],
}

/// Every option gpuprof passes `compiler` for a device of compute
/// capability `major.minor`: the architecture, line info, C++17 (unless the
/// options name a standard), the toolkit's headers (NVRTC has none of its
/// own), the include folders, the macros, then the variant's own options.
pub fn options_for(
    compute_capability: (u32, u32),
    compiler: Compiler,
    settings: Settings,
) -> Vec<String> {
    let (major, minor) = compute_capability;
    let mut options = match compiler {
        Compiler::Nvrtc => vec![format!("--gpu-architecture=sm_{major}{minor}")],
        Compiler::Nvcc => vec![format!("-arch=sm_{major}{minor}")],
    };
    options.push("-lineinfo".to_string());
    if !settings
        .extra
        .iter()
        .any(|o| o.starts_with("-std") || o.starts_with("--std"))
    {
        options.push("-std=c++17".to_string());
    }
    let toolkit = match compiler {
        Compiler::Nvrtc => toolkit::include_dirs(),
        Compiler::Nvcc => Vec::new(),
    };
    options.extend(
        toolkit
            .iter()
            .chain(settings.include_dirs)
            .map(|dir| format!("-I{}", dir.display())),
    );
    options.extend(
        settings
            .defines
            .iter()
            .map(|(name, value)| format!("-D{name}={value}")),
    );
    options.extend(settings.extra.iter().cloned());
    options
}

/// Compiles `request` through `cache`.
pub fn compile(request: Request, cache: &Cache) -> Result<Compiled, BuildError> {
    let source = request.source;
    let bytes = std::fs::read(source).map_err(|e| BuildError::Unreadable {
        path: source.to_path_buf(),
        reason: e.to_string(),
    })?;
    let text = crate::config::source_text(&bytes);
    let (version, nvcc) = match request.compiler {
        Compiler::Nvrtc if !nvrtc_available() => return Err(BuildError::NvrtcMissing),
        Compiler::Nvrtc => (
            format!("nvrtc {}", nvrtc_version().unwrap_or_default()),
            None,
        ),
        Compiler::Nvcc => {
            let nvcc = toolkit::nvcc().ok_or_else(|| BuildError::NvccMissing {
                path: source.to_path_buf(),
            })?;
            (format!("nvcc {}", nvcc.display()), Some(nvcc))
        }
    };
    let toolkit_folders = match request.compiler {
        Compiler::Nvrtc => toolkit::include_dirs(),
        Compiler::Nvcc => Vec::new(),
    };
    let headers = headers::user_headers(source, &text, request.options, &toolkit_folders);
    let header_parts: Vec<String> = headers
        .iter()
        .flat_map(|(path, bytes)| {
            [
                path.display().to_string(),
                String::from_utf8_lossy(bytes).into_owned(),
            ]
        })
        .collect();
    let source_name = source.to_string_lossy();
    let entries = request.entries.join("\n");
    let device_only = match request.device_only {
        true => "device code only",
        false => "",
    };
    let mut parts: Vec<&str> = vec![&source_name, &text, &version, &entries, device_only];
    parts.extend(header_parts.iter().map(String::as_str));
    let key = cache::key(&parts, request.options);
    let started = Instant::now();
    let describe =
        |functions: Vec<String>, command: String, log: String, from_cache: bool, cubin: PathBuf| {
            Compiled {
                cubin,
                functions,
                options: request.options.to_vec(),
                command,
                log,
                seconds: started.elapsed().as_secs_f64(),
                from_cache,
            }
        };
    let nvrtc_call = || format!("NVRTC {} {}", request.options.join(" "), source.display());
    if let Some((cubin, functions, command, log)) = cache.lookup(&key) {
        return Ok(describe(functions, command, log, true, cubin));
    }
    let (binary, functions, command, log) = match &nvcc {
        None => {
            let out = nvrtc::compile(source, &bytes, request.entries, request.options).map_err(
                |error| match error {
                    BuildError::Compile {
                        path,
                        compiler,
                        log,
                        ..
                    } => BuildError::Compile {
                        path,
                        compiler,
                        log,
                        command: nvrtc_call(),
                    },
                    other => other,
                },
            )?;
            (out.cubin, out.functions, nvrtc_call(), out.log)
        }
        Some(nvcc) => {
            let out = nvcc::compile(
                nvcc,
                source,
                request.entries,
                request.options,
                request.device_only,
            )?;
            (out.cubin, out.functions, out.command, out.log)
        }
    };
    let cubin = cache.store(&key, &binary, &functions, &command, &log)?;
    Ok(describe(functions, command, log, false, cubin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_checked_against_the_compiled_kernels_parameter_types() {
        use crate::config::plan::{Arg, Buffer, Compare, ElementType, Fill, Scalar};
        let instance = |element: ElementType| {
            crate::config::plan::instance_of(
                ["out", "inp1", "inp2"]
                    .map(|name| {
                        Arg::Buffer(Buffer {
                            name: name.into(),
                            element,
                            count: 8,
                            fill: Fill::Poison,
                            output: name == "out",
                            compare: Compare::Elementwise,
                            symbol: None,
                        })
                    })
                    .into_iter()
                    .chain([Arg::Scalar(Scalar {
                        name: "N".into(),
                        element: ElementType::I32,
                        value: 8.0,
                    })])
                    .collect(),
            )
        };
        // llm.c's residual_forward_kernel1(floatX*, const floatX*, const
        // floatX*, int) with floatX a __nv_bfloat16, as nvcc named it.
        let symbol = ["_Z24residual_forward_kernel1P13__nv_bfloat16PKS_S2_i".to_string()];
        assert!(check_arguments(&instance(ElementType::Bf16), &symbol).is_ok());
        let wrong = check_arguments(&instance(ElementType::U8), &symbol)
            .unwrap_err()
            .to_string();
        assert_eq!(
            wrong,
            "the compiled kernel is `residual_forward_kernel1(__nv_bfloat16*, __nv_bfloat16 const*, __nv_bfloat16 const*, int)`, and buffer `out` holds a u8 (1-byte integer), but its parameter 1 is `__nv_bfloat16*`\n  help: declare buffer = \"bf16\" to match the kernel's pointer"
        );
        // An extern "C" kernel's symbol names no types.
        assert!(check_arguments(&instance(ElementType::U8), &["residual".to_string()]).is_ok());
    }

    #[test]
    fn a_missing_kernel_among_many_lists_its_namesakes() {
        let mut found: Vec<String> = (0..20).map(|k| format!("softmax<{k}>")).collect();
        found.push("mul<__half>".into());
        found.push("mul<float>".into());
        let error = |found: Vec<String>| {
            BuildError::NoSuchKernel {
                path: "k.cu".into(),
                entry: "mul<Algo::kFast>".into(),
                found,
            }
            .to_string()
        };
        assert_eq!(
            error(found.clone()),
            "nvcc compiled k.cu, but it holds no kernel `mul<Algo::kFast>`; of its 22 kernels, \
             those named `mul` are: mul<__half>, mul<float>"
        );
        assert!(
            error(found[18..].to_vec())
                .ends_with("its kernels are: softmax<18>, softmax<19>, mul<__half>, mul<float>")
        );
    }

    #[test]
    fn a_missing_toolkit_header_is_not_sent_to_include_dirs() {
        let error = |log: &str| {
            BuildError::Compile {
                path: PathBuf::from("matrixMul.cu"),
                compiler: "nvcc",
                log: log.into(),
                command: "nvcc -cubin matrixMul.cu".into(),
            }
            .to_string()
        };
        let toolkit = error(
            "matrixMul.cu:47:10: fatal error: cuda_profiler_api.h: No such file or directory",
        );
        assert!(
            toolkit.ends_with("help: `cuda_profiler_api.h` belongs to the CUDA toolkit, and the toolkit this compiler uses does not have it: install the full toolkit (or the package of that library), or, if the file includes it without using it, list a folder holding a stand-in in `include_dirs`"),
            "{toolkit}"
        );
        let torch = error("k.cu:1:10: fatal error: torch/extension.h: No such file or directory");
        assert!(
            torch
                .contains("help: `torch/extension.h` belongs to a Python extension's binding code")
                && torch.contains(
                    "write device_only = true to compile the file's kernels without its host code"
                ),
            "{torch}"
        );
        let cstdint = error(
            "k.cu(12): error: identifier \"uint32_t\" is undefined\nk.cu(14): error: identifier \"uint32_t\" is undefined",
        );
        assert_eq!(cstdint.matches("help: ").count(), 1, "{cstdint}");
        assert!(
            cstdint.ends_with("help: `uint32_t` is declared in <cstdint>, which the file uses without including (older host compilers' <iostream> brought it in): add compile_options = [\"--pre-include=stdint.h\"] to leave the file as it is, or #include <cstdint> in it"),
            "{cstdint}"
        );
        let own = error("t.cu(3): catastrophic error: cannot open source file \"helper_cuda.h\"");
        assert!(
            own.ends_with("help: `helper_cuda.h` was not found: list the folder that holds it in `include_dirs` (relative to the variants.toml)"),
            "{own}"
        );
    }

    #[test]
    fn options_name_the_architecture_line_info_standard_folders_and_macros() {
        let extra = ["--use_fast_math".to_string()];
        let dirs = [PathBuf::from("/src/include")];
        let defines = [("BLOCK".to_string(), 256)];
        let settings = Settings {
            extra: &extra,
            include_dirs: &dirs,
            defines: &defines,
        };
        assert_eq!(
            options_for((9, 0), Compiler::Nvcc, settings),
            [
                "-arch=sm_90",
                "-lineinfo",
                "-std=c++17",
                "-I/src/include",
                "-DBLOCK=256",
                "--use_fast_math"
            ]
        );
        let nvrtc = options_for((9, 0), Compiler::Nvrtc, Settings::default());
        assert_eq!(
            nvrtc[..3],
            ["--gpu-architecture=sm_90", "-lineinfo", "-std=c++17"]
        );
        let own_standard = ["-std=c++20".to_string()];
        let options = options_for(
            (8, 0),
            Compiler::Nvcc,
            Settings {
                extra: &own_standard,
                ..Settings::default()
            },
        );
        assert_eq!(options, ["-arch=sm_80", "-lineinfo", "-std=c++20"]);
    }
}
