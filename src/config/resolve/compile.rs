//! How a kernel variant is compiled: the compiler (NVRTC unless the file
//! holds host code, or as `compiler` says, refusing NVRTC for a file it
//! cannot compile), the folders of `include_dirs` (relative to the toml,
//! checked to exist) and the `defines`, whose values are numbers or
//! expressions over the size symbols, compiled once here and evaluated at
//! every size.

use std::path::PathBuf;

use toml::Spanned;

use super::values::{Bounds, Compiled};
use super::{Context, merged};
use crate::config::error::ConfigError;
use crate::config::kernels::Kernels;
use crate::config::raw::RawVariant;
use crate::model::suite::Size;
use crate::model::variant::Compiler;

/// A kernel's compiler, the reason it was chosen and its include folders.
pub(super) struct CompileSettings {
    pub(super) compiler: Compiler,
    pub(super) reason: String,
    pub(super) include_dirs: Vec<PathBuf>,
}

impl<'c> Context<'c> {
    /// The compiler and include folders of a kernel whose source scanned
    /// as `scanned`.
    pub(super) fn compile_settings(
        &self,
        raw: &RawVariant,
        scanned: &Kernels,
    ) -> Result<CompileSettings, ConfigError> {
        let chosen = merged(raw, self.defaults, |r| &r.compiler);
        let (compiler, reason) = match (chosen.as_ref().map(|m| m.value), &scanned.host_code) {
            (None, None) => (
                Compiler::Nvrtc,
                "the file holds device code only".to_string(),
            ),
            (None, Some(host)) => (Compiler::Nvcc, format!("the file holds host code: {host}")),
            (Some(word), host) => self.chosen_compiler(word, host.as_deref())?,
        };
        Ok(CompileSettings {
            compiler,
            reason,
            include_dirs: self.include_dirs(raw)?,
        })
    }

    /// `compiler = "nvrtc" | "nvcc" | "auto"`.
    fn chosen_compiler(
        &self,
        word: &Spanned<String>,
        host: Option<&str>,
    ) -> Result<(Compiler, String), ConfigError> {
        let asked = "asked for by `compiler` in variants.toml".to_string();
        match (word.get_ref().as_str(), host) {
            ("nvcc", _) => Ok((Compiler::Nvcc, asked)),
            ("nvrtc", None) => Ok((Compiler::Nvrtc, asked)),
            ("nvrtc", Some(host)) => Err(self
                .doc
                .error(word.span(), "NVRTC cannot compile this source")
                .note(format!("NVRTC compiles device code only, and {host}"))
                .help("use compiler = \"nvcc\" (or leave `compiler` out: gpuprof then chooses nvcc for such files)")),
            ("auto", None) => Ok((Compiler::Nvrtc, "the file holds device code only".into())),
            ("auto", Some(host)) => Ok((Compiler::Nvcc, format!("the file holds host code: {host}"))),
            (other, _) => Err(self
                .doc
                .error(word.span(), format!("unknown compiler {other:?}"))
                .help("use \"nvrtc\" (device code only), \"nvcc\" (files with host code) or \"auto\" (the default: chosen from the file)")),
        }
    }

    /// The folders of `include_dirs`, relative to the toml's folder, each
    /// checked to be a folder.
    fn include_dirs(&self, raw: &RawVariant) -> Result<Vec<PathBuf>, ConfigError> {
        let Some(dirs) = merged(raw, self.defaults, |r| &r.include_dirs) else {
            return Ok(Vec::new());
        };
        dirs.value
            .iter()
            .map(|dir| {
                let shown = self.doc.dir.join(dir.get_ref());
                match std::fs::canonicalize(&shown) {
                    Ok(path) if path.is_dir() => Ok(path),
                    Ok(_) => Err(self
                        .doc
                        .error(dir.span(), format!("{} is not a folder", shown.display()))
                        .help("`include_dirs` lists folders searched for #include \"…\"")),
                    Err(error) => Err(self
                        .doc
                        .error(
                            dir.span(),
                            format!("cannot read include folder {}: {error}", shown.display()),
                        )
                        .help("`include_dirs` are relative to the folder of the variants.toml")),
                }
            })
            .collect()
    }

    /// `defines = { NAME = value }`, each value compiled once; the names
    /// must be C identifiers.
    pub(super) fn defines(
        &self,
        raw: &'c RawVariant,
        scope: &dyn Fn(&str, bool) -> String,
    ) -> Result<Vec<(String, Compiled<'c>)>, ConfigError> {
        let Some(defines) = merged(raw, self.defaults, |r| &r.defines) else {
            return Ok(Vec::new());
        };
        defines
            .value
            .get_ref()
            .iter()
            .map(|(name, value)| {
                if !super::suite::is_identifier(name) || name.starts_with(|c: char| c.is_ascii_digit()) {
                    return Err(self
                        .doc
                        .error(defines.value.span(), format!("define {name:?} is not a macro name"))
                        .help("a define's name is a C identifier: letters, digits and '_', not starting with a digit"));
                }
                let what = scope(&format!("define {name}"), defines.inherited);
                Ok((name.clone(), self.compile(value, what)?))
            })
            .collect()
    }

    /// The defines' values at `size`: whole numbers.
    pub(super) fn define_values(
        &self,
        defines: &[(String, Compiled)],
        size: &Size,
    ) -> Result<Vec<(String, i64)>, ConfigError> {
        let bounds = Bounds {
            min: i64::MIN as f64,
            max: i64::MAX as f64,
            max_text: format!("{} (the largest i64)", i64::MAX),
            help: "a define's value is a whole number, or an expression over the size symbols"
                .into(),
        };
        defines
            .iter()
            .map(|(name, value)| Ok((name.clone(), self.whole(value, size, &bounds)? as i64)))
            .collect()
    }
}
