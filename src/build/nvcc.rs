//! nvcc, for sources that hold host code as well (`main`, launches, host
//! headers): their device code is compiled to a CUBIN (`nvcc -cubin`) with
//! line info, and the kernel is found among the CUBIN's symbols. A template
//! instance that the file itself never launches would not be in the CUBIN,
//! so such an entry is compiled through a two-line wrapper that includes
//! the file by its absolute path (line info still names the user's file)
//! and takes the instance's address. A source not named `.cu` (a `.cuh`
//! header of kernels) is compiled as CUDA all the same.

use std::path::{Path, PathBuf};

use super::{BuildError, symbols};
use crate::process::{self, Invocation};

/// A CUBIN, the symbols of its kernels and the command that made it.
pub(super) struct Output {
    pub(super) cubin: Vec<u8>,
    pub(super) functions: Vec<String>,
    pub(super) command: String,
    /// What nvcc printed (warnings).
    pub(super) log: String,
}

/// Compiles `source` with `nvcc` and `options`, and finds each of
/// `entries` in the result.
pub(super) fn compile(
    nvcc: &Path,
    source: &Path,
    entries: &[String],
    options: &[String],
) -> Result<Output, BuildError> {
    let folder = tempfile::tempdir().map_err(|e| BuildError::Unreadable {
        path: std::env::temp_dir(),
        reason: e.to_string(),
    })?;
    let instances: Vec<&String> = entries.iter().filter(|e| e.contains('<')).collect();
    let input = match instances.is_empty() {
        true => source.to_path_buf(),
        false => wrapper(folder.path(), source, &instances)?,
    };
    let cubin_path = folder.path().join("kernel.cubin");
    let mut invocation = Invocation::new(nvcc).arg("-cubin").args(options);
    if let Some(dir) = source.parent() {
        invocation = invocation.arg(format!("-I{}", dir.display()));
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
    let output = process::run(&invocation).map_err(|error| BuildError::Compile {
        path: source.to_path_buf(),
        compiler: "nvcc",
        log: {
            let log = format!("{}\n{}", error.stderr.trim(), error.stdout.trim());
            match input == source {
                true => log.trim().to_string(),
                false => instances_named(log.trim(), &input, &instances),
            }
        },
        command: command.clone(),
    })?;
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
    Ok(Output {
        cubin,
        functions,
        command,
        log: format!("{}{}", output.stdout, output.stderr)
            .trim()
            .to_string(),
    })
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
