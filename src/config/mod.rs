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
mod expr;
pub(crate) mod kernels;
pub mod plan;
mod raw;
mod resolve;
mod suggest;
#[cfg(test)]
mod tests;

use std::fs;
use std::path::Path;

pub use error::ConfigError;
pub use plan::Plan;

/// Reads the variants.toml at `path` and resolves it (see [`parse`]).
pub fn load(path: &Path) -> Result<Plan, ConfigError> {
    let text = fs::read_to_string(path).map_err(|e| ConfigError::read(path, &e))?;
    parse(&text, path)
}

/// Resolves `text`, the contents of the variants.toml at `path`. `path` is
/// shown as given in error messages, and relative paths in the file
/// (`source`) are resolved against its folder.
pub fn parse(text: &str, path: &Path) -> Result<Plan, ConfigError> {
    let raw: raw::RawFile =
        toml::from_str(text).map_err(|e| ConfigError::from_toml(&e, text, path))?;
    resolve::resolve(&raw, text, path)
}
