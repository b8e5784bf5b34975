//! nvcc, for sources that hold host code as well (`main`, launches, host
//! headers): their device code is compiled to a CUBIN (`nvcc -cubin`) with
//! line info, and the kernel is found among the CUBIN's symbols. A template
//! instance that the file itself never launches would not be in the CUBIN,
//! so such an entry is compiled through a two-line wrapper that includes
//! the file by its absolute path (line info still names the user's file)
//! and takes the instance's address. A source not named `.cu` (a `.cuh`
//! header of kernels) is compiled as CUDA all the same. With
//! `device_only`, what is compiled is the file's device code alone (a
//! copy whose `#line` names the user's file), and each header the
//! compiler finds nowhere is stood in for by an empty one.

use std::path::{Path, PathBuf};

use super::device_only::device_code;
use super::{BuildError, missing_headers, symbols};
use crate::process::{self, Invocation};

/// A CUBIN, the symbols of its kernels and the command that made it.
pub(super) struct Output {
    pub(super) cubin: Vec<u8>,
    pub(super) functions: Vec<String>,
    pub(super) command: String,
    /// What nvcc printed (warnings).
    pub(super) log: String,
}

/// Compiles `source` with `nvcc` and `options` (its device code alone
/// where `device_only`), and finds each of `entries` in the result.
pub(super) fn compile(
    nvcc: &Path,
    source: &Path,
    entries: &[String],
    options: &[String],
    device_only: bool,
) -> Result<Output, BuildError> {
    let folder = tempfile::tempdir().map_err(|e| BuildError::Unreadable {
        path: std::env::temp_dir(),
        reason: e.to_string(),
    })?;
    let instances: Vec<&String> = entries.iter().filter(|e| e.contains('<')).collect();
    let (compiled, mut notes) = match device_only {
        true => device_code_file(folder.path(), source)?,
        false => (source.to_path_buf(), Vec::new()),
    };
    let input = match instances.is_empty() {
        true => compiled.clone(),
        false => wrapper(folder.path(), &compiled, &instances)?,
    };
    let cubin_path = folder.path().join("kernel.cubin");
    let stand_ins = folder.path().join("stand-ins");
    let mut stood_in: Vec<String> = Vec::new();
    let (output, command) = loop {
        let mut invocation = Invocation::new(nvcc).arg("-cubin").args(options);
        if let Some(dir) = source.parent() {
            invocation = invocation.arg(format!("-I{}", dir.display()));
        }
        if !stood_in.is_empty() {
            invocation = invocation.arg(format!("-I{}", stand_ins.display()));
        }
        // nvcc picks the language by the extension: a header (`.cuh`, `.h`)
        // or any other name is CUDA because the suite says it is.
        if input.extension().is_none_or(|extension| extension != "cu") {
            invocation = invocation.arg("-x").arg("cu");
        }
        let invocation = invocation
            .arg("-o")
            .arg(cubin_path.as_os_str())
            .arg(input.as_os_str());
        let command = invocation.display();
        let error = match process::run(&invocation) {
            Ok(output) => break (output, command),
            Err(error) => error,
        };
        let log = format!("{}\n{}", error.stderr.trim(), error.stdout.trim());
        // A header found nowhere, in device code alone: an empty one
        // stands in for it (the host code that needed it is left out).
        let missing: Vec<String> = missing_headers(&log)
            .into_iter()
            .filter(|header| device_only && !stood_in.iter().any(|known| known == header))
            .map(str::to_string)
            .collect();
        let standing = !missing.is_empty()
            && stood_in.len() + missing.len() <= MOST_STAND_INS
            && missing.iter().all(|header| stand_in(&stand_ins, header));
        if standing {
            for header in missing {
                notes.push(format!(
                    "an empty header stood in for <{header}>, found nowhere"
                ));
                stood_in.push(header);
            }
            continue;
        }
        let log = match instances.is_empty() {
            true => log.trim().to_string(),
            false => instances_named(log.trim(), &input, &instances),
        };
        return Err(BuildError::Compile {
            path: source.to_path_buf(),
            compiler: "nvcc",
            log: with_notes(log, source, &notes),
            command,
        });
    };
    let cubin = std::fs::read(&cubin_path).map_err(|e| BuildError::Unreadable {
        path: cubin_path.clone(),
        reason: e.to_string(),
    })?;
    let kernels = symbols::kernels_in(&cubin).map_err(|reason| BuildError::Unreadable {
        path: cubin_path,
        reason,
    })?;
    let functions = entries
        .iter()
        .map(|entry| {
            symbols::find(&kernels, entry).map_err(|found| BuildError::NoSuchKernel {
                path: source.to_path_buf(),
                entry: entry.to_string(),
                found,
            })
        })
        .collect::<Result<_, _>>()?;
    let log = format!("{}{}", output.stdout, output.stderr);
    Ok(Output {
        cubin,
        functions,
        command,
        log: with_notes(log.trim().to_string(), source, &notes),
    })
}

/// Headers an empty one stands in for, at most, in one build.
const MOST_STAND_INS: usize = 16;

/// The device code of `source` alone ([`device_code`]) in a file of
/// `folder` whose `#line` names `source`, so that the compiler's messages
/// and the CUBIN's line info name the user's file at its own lines; with
/// what was left out.
fn device_code_file(folder: &Path, source: &Path) -> Result<(PathBuf, Vec<String>), BuildError> {
    let unreadable = |path: &Path, e: std::io::Error| BuildError::Unreadable {
        path: path.to_path_buf(),
        reason: e.to_string(),
    };
    let bytes = std::fs::read(source).map_err(|e| unreadable(source, e))?;
    let text = crate::config::source_text(&bytes);
    let headers: Vec<String> = super::headers::local_headers(source, &text)
        .into_iter()
        .map(|(_, header)| header)
        .collect();
    let device = device_code(&text, &headers);
    let absolute = source
        .canonicalize()
        .unwrap_or_else(|_| source.to_path_buf());
    let text = format!(
        "#line 1 \"{}\"\n{}",
        absolute
            .display()
            .to_string()
            .replace('\\', "\\\\")
            .replace('"', "\\\""),
        device.text
    );
    let path = folder.join("device-code.cu");
    std::fs::write(&path, text).map_err(|e| unreadable(&path, e))?;
    // One note per kind of thing left out, with its lines.
    let mut grouped: Vec<(String, Vec<usize>)> = Vec::new();
    for (line, what) in device.left_out {
        match grouped.iter_mut().find(|(known, _)| *known == what) {
            Some((_, lines)) => lines.push(line),
            None => grouped.push((what, vec![line])),
        }
    }
    let notes = grouped
        .into_iter()
        .map(|(what, lines)| {
            let consecutive = lines.windows(2).all(|w| w[1] == w[0] + 1);
            let at = match (lines.as_slice(), consecutive) {
                ([line], _) => format!("line {line}"),
                ([first, .., last], true) => format!("lines {first}–{last}"),
                _ => format!(
                    "lines {}",
                    lines
                        .iter()
                        .map(usize::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            format!("{what} left out ({at})")
        })
        .collect();
    Ok((path, notes))
}

/// An empty `header` under `folder`; whether it could be made (a header
/// named outside the folder, `../x.h` or `/x.h`, is not).
fn stand_in(folder: &Path, header: &str) -> bool {
    let relative = Path::new(header);
    let inside = relative
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    let path = folder.join(relative);
    inside
        && path
            .parent()
            .is_some_and(|parent| std::fs::create_dir_all(parent).is_ok())
        && std::fs::write(&path, "").is_ok()
}

/// The compiler's `log` with what gpuprof did to compile the device code
/// of `source` alone, when it did something.
fn with_notes(log: String, source: &Path, notes: &[String]) -> String {
    if notes.is_empty() {
        return log;
    }
    let name = source
        .file_name()
        .unwrap_or(source.as_os_str())
        .to_string_lossy();
    let said = format!(
        "gpuprof compiled the device code of {name} alone (device_only = true): {}.",
        notes.join("; ")
    );
    match log.is_empty() {
        true => said,
        false => format!("{log}\n{said}"),
    }
}

/// The compiler's `log` with each place in the wrapper file `input` (a
/// temporary file gone once the build ends) named as the entry it
/// instantiates: `instance.cu(2): error: identifier "PER_THREAD" is
/// undefined` says which `entry` of variants.toml holds the name.
fn instances_named(log: &str, input: &Path, instances: &[&String]) -> String {
    let mut log = log.to_string();
    for (index, entry) in instances.iter().enumerate() {
        log = log.replace(
            &format!("{}({})", input.display(), index + 2),
            &format!("the instance gpuprof compiles for `entry = \"{entry}\"`"),
        );
    }
    log.replace(
        &input.display().to_string(),
        "the instances gpuprof compiles for the variants' entries",
    )
}

/// A file in `folder` that includes `source` and instantiates each of
/// `instances`, the one at `index` on line `index + 2`.
fn wrapper(folder: &Path, source: &Path, instances: &[&String]) -> Result<PathBuf, BuildError> {
    let path = folder.join("instance.cu");
    let mut text = format!("#include \"{}\"\n", source.display());
    for (index, entry) in instances.iter().enumerate() {
        text.push_str(&format!(
            "static const void *gpuprof_instance_{index} __attribute__((unused)) = (const void *)&{entry};\n"
        ));
    }
    std::fs::write(&path, text).map_err(|e| BuildError::Unreadable {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    Ok(path)
}
