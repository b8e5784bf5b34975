//! NVRTC, called through its C API: one program per source, named by the
//! source's real path (so that ncu's source page shows the file), each
//! entry added as a name expression so that NVRTC instantiates a template
//! instance and tells its lowered (mangled) name, compiled to a CUBIN.

use std::ffi::{CStr, CString, c_char};
use std::path::Path;

use cudarc::nvrtc::{result as nvrtc, sys};

use super::BuildError;

/// A CUBIN and what NVRTC said.
pub(super) struct Output {
    pub(super) cubin: Vec<u8>,
    /// The symbols to load: each entry's lowered name, in order.
    pub(super) functions: Vec<String>,
    /// NVRTC's log (warnings).
    pub(super) log: String,
}

/// Compiles `bytes` (the contents of `source`, in whatever encoding) with
/// `options`, looking up each of `entries` (a kernel's name, qualified
/// name or template instance).
pub(super) fn compile(
    source: &Path,
    bytes: &[u8],
    entries: &[String],
    options: &[String],
) -> Result<Output, BuildError> {
    let nul = |what: String| BuildError::Nul { what };
    let source_c = CString::new(crate::config::without_bom(bytes))
        .map_err(|_| nul(source.display().to_string()))?;
    let name_c = CString::new(source.to_string_lossy().as_bytes())
        .map_err(|_| nul("the source path".into()))?;
    let entries_c: Vec<CString> = entries
        .iter()
        .map(|e| CString::new(e.as_str()).map_err(|_| nul(format!("the entry {e:?}"))))
        .collect::<Result<_, _>>()?;
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
    for entry in &entries_c {
        // SAFETY: `program.0` is a live program and `entry` a NUL-terminated
        // string that NVRTC copies.
        unsafe { sys::nvrtcAddNameExpression(program.0, entry.as_ptr()) }
            .result()
            .map_err(failed("nvrtcAddNameExpression"))?;
    }
    // SAFETY: `program.0` is a live program; the options outlive the call.
    let compiled = unsafe { nvrtc::compile_program(program.0, &options_c) };
    // SAFETY: as above; the log is a NUL-terminated buffer NVRTC filled.
    let log = unsafe { nvrtc::get_program_log(program.0) }
        .map(|raw| c_text(&raw))
        .unwrap_or_default();
    if compiled.is_err() {
        // `__nv_name_map` is NVRTC's lookup of the name expressions: the
        // entries, which the file may not define (a macro declared its
        // kernels under other names, say).
        let log = match log.contains("__nv_name_map") {
            true => format!(
                "NVRTC could not find every entry ({}) among the kernels of {}: the errors at __nv_name_map are its lookup of those names; check each `entry` against the names the file gives its kernels\n{log}",
                entries.join(", "),
                source.display()
            ),
            false => log,
        };
        return Err(BuildError::Compile {
            path: source.to_path_buf(),
            compiler: "NVRTC",
            log,
            // Filled in by the caller, which describes the call.
            command: String::new(),
        });
    }
    let functions = entries_c
        .iter()
        .map(|entry| lowered_name(&program, entry))
        .collect::<Result<_, _>>()
        .map_err(failed("nvrtcGetLoweredName"))?;
    Ok(Output {
        cubin: cubin(&program).map_err(failed("nvrtcGetCUBIN"))?,
        functions,
        log,
    })
}

/// The mangled name NVRTC gave the name expression `entry`.
fn lowered_name(program: &Program, entry: &CStr) -> Result<String, nvrtc::NvrtcError> {
    let mut lowered: *const c_char = std::ptr::null();
    // SAFETY: the program compiled with `entry` added as a name expression;
    // NVRTC points `lowered` at a string it owns until the program is
    // destroyed, and it is copied before that.
    unsafe { sys::nvrtcGetLoweredName(program.0, entry.as_ptr(), &mut lowered) }.result()?;
    // SAFETY: NVRTC returned a NUL-terminated string (checked non-null).
    Ok(match lowered.is_null() {
        true => entry.to_string_lossy().into_owned(),
        false => unsafe { CStr::from_ptr(lowered) }
            .to_string_lossy()
            .into_owned(),
    })
}

/// The compiled program's CUBIN.
fn cubin(program: &Program) -> Result<Vec<u8>, nvrtc::NvrtcError> {
    let mut size = 0usize;
    // SAFETY: `size` is valid for one write; the program compiled.
    unsafe { sys::nvrtcGetCUBINSize(program.0, &mut size) }.result()?;
    let mut binary = vec![0u8; size];
    // SAFETY: `binary` has exactly the size NVRTC reported.
    unsafe { sys::nvrtcGetCUBIN(program.0, binary.as_mut_ptr() as *mut c_char) }.result()?;
    Ok(binary)
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
