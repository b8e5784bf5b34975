//! variants.toml → [`Plan`]: the raw serde mirror of the file (`raw`), the
//! expression language of its geometry and sizes (`expr`), the scan of kernel
//! sources for `extern "C"` entry points (`kernels`), and the resolution step
//! (`resolve`, with `resolve::values` for expressions evaluated at each size
//! and `resolve::args` for kernel arguments) that checks everything (paths,
//! entry points, names, expressions at every size) and reports the first
//! problem as a [`ConfigError`] with file, line, column and a hint (`error`,
//! `suggest`). [`load`] and [`parse`] are the entry points; `plan` is the
//! contract with the stages that run it (the vocabulary it shares with
//! results.json, such as sizes and change words, lives in `model`).

pub mod error;
pub(crate) mod expr;
pub(crate) mod inline_asm;
pub(crate) mod kernels;
pub mod plan;
mod raw;
mod resolve;
pub(crate) mod signature;
mod suggest;
#[cfg(test)]
mod tests;

use std::fs;
use std::path::Path;

pub use error::ConfigError;
pub use plan::Plan;
pub(crate) use resolve::{BLOCK_LIMITS, MAX_BLOCK_THREADS, fits};

/// Reads the variants.toml at `path` and resolves it (see [`parse`]).
pub fn load(path: &Path) -> Result<Plan, ConfigError> {
    let bytes = read_regular_file(path).map_err(|e| ConfigError::read(path, &e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let utf16 =
            e.as_bytes().starts_with(&[0xFF, 0xFE]) || e.as_bytes().starts_with(&[0xFE, 0xFF]);
        let reason = match utf16 {
            true => "it is UTF-16 text; save it as UTF-8".to_string(),
            false => format!(
                "it is not UTF-8 text (at byte {})",
                e.utf8_error().valid_up_to()
            ),
        };
        ConfigError::read(path, &std::io::Error::other(reason))
    })?;
    parse(&text, path)
}

/// The most bytes gpuprof reads of a suite or a kernel source.
const MAX_FILE_BYTES: u64 = 16 << 20;

/// The bytes of `path`, a regular file of at most 16 MiB: a FIFO would
/// block the read and a device (`/dev/zero`) would never end it.
pub(crate) fn read_regular_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let metadata = fs::metadata(path)?;
    if !metadata.is_file() {
        return Err(std::io::Error::other(
            "it is not a regular file (a folder, a FIFO or a device)",
        ));
    }
    if metadata.len() > MAX_FILE_BYTES {
        return Err(std::io::Error::other(format!(
            "it holds {} bytes, more than gpuprof reads of a source ({MAX_FILE_BYTES})",
            metadata.len()
        )));
    }
    fs::read(path)
}

/// The text of a kernel source's `bytes`. nvcc and NVRTC compile a file in
/// any 8-bit encoding (a comment in GBK or Latin-1 changes no kernel), so
/// bytes that are not UTF-8 are shown as U+FFFD rather than refused; the
/// compilers get the bytes as they are, less a byte order mark.
pub(crate) fn source_text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(without_bom(bytes)).into_owned()
}

/// `bytes` without a UTF-8 byte order mark at the start (which editors on
/// Windows write, and which NVRTC takes for a stray token).
pub(crate) fn without_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// Resolves `text`, the contents of the variants.toml at `path`. `path` is
/// shown as given in error messages, and relative paths in the file
/// (`source`) are resolved against its folder.
pub fn parse(text: &str, path: &Path) -> Result<Plan, ConfigError> {
    let raw: raw::RawFile =
        toml::from_str(text).map_err(|e| ConfigError::from_toml(&e, text, path))?;
    resolve::resolve(&raw, text, path)
}
