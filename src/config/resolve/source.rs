//! A kernel variant's source and entry point: the source path resolved
//! against the toml's folder and canonicalized, read once per path (no NUL
//! byte, UTF-8) and scanned for its kernels, and the entry point looked up
//! among its `extern "C"` kernels, with the nearest name when it is not.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fs;
use std::path::{Path, PathBuf};

use toml::Spanned;

use super::{Context, merged};
use crate::config::error::ConfigError;
use crate::config::kernels::{self, Kernels};
use crate::config::raw::RawVariant;
use crate::config::suggest;

impl Context<'_> {
    /// The kernel a variant launches: the canonical path of its `source`
    /// and its `entry` point, both required.
    pub(super) fn kernel(
        &self,
        raw: &RawVariant,
        missing: &dyn Fn(&str, &str) -> ConfigError,
        kernels: &mut HashMap<PathBuf, Kernels>,
    ) -> Result<(PathBuf, String), ConfigError> {
        let source = merged(raw, self.defaults, |r| &r.source).ok_or_else(|| {
            missing(
                "source",
                "source = \"kernels/<file>.cu\" (relative to this file's folder)",
            )
        })?;
        let entry = merged(raw, self.defaults, |r| &r.entry).ok_or_else(|| {
            missing(
                "entry",
                "entry = \"<kernel>\" (an extern \"C\" __global__ function)",
            )
        })?;
        let source_path = self.source(source.value, kernels, entry.value)?;
        Ok((source_path, entry.value.get_ref().clone()))
    }

    /// The canonical path of `source`, after checking that it can be read,
    /// holds no NUL byte and defines `entry` as an extern "C" kernel.
    fn source(
        &self,
        source: &Spanned<String>,
        kernels: &mut HashMap<PathBuf, Kernels>,
        entry: &Spanned<String>,
    ) -> Result<PathBuf, ConfigError> {
        let doc = self.doc;
        let shown = doc.dir.join(source.get_ref());
        let folder = if doc.dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            doc.dir
        };
        let unreadable = |error: std::io::Error| {
            doc.error(
                source.span(),
                format!("cannot read kernel source {}: {error}", shown.display()),
            )
            .help(format!(
                "`source` is relative to the folder of the variants.toml ({})",
                folder.display()
            ))
        };
        let path = fs::canonicalize(&shown).map_err(unreadable)?;
        let found = match kernels.entry(path.clone()) {
            Entry::Occupied(known) => known.into_mut(),
            Entry::Vacant(slot) => {
                let bytes = fs::read(&path).map_err(unreadable)?;
                let text = self.source_text(source, &shown, bytes)?;
                slot.insert(kernels::scan(&text))
            }
        };
        let name = entry.get_ref();
        if found.extern_c.contains(name) {
            return Ok(path);
        }
        Err(self.not_a_kernel(entry, &shown, found))
    }

    /// The text of a kernel source read as `bytes`: refused when it holds a
    /// NUL byte or is not UTF-8.
    fn source_text(
        &self,
        source: &Spanned<String>,
        shown: &Path,
        bytes: Vec<u8>,
    ) -> Result<String, ConfigError> {
        if let Some(at) = bytes.iter().position(|&b| b == 0) {
            return Err(self
                .doc
                .error(
                    source.span(),
                    format!(
                        "kernel source {} contains a NUL byte (at byte {at})",
                        shown.display()
                    ),
                )
                .help(
                    "NVRTC takes the source as a C string, so it cannot hold NUL bytes: \
                     is this a text file?",
                ));
        }
        String::from_utf8(bytes).map_err(|e| {
            self.doc
                .error(
                    source.span(),
                    format!(
                        "kernel source {} is not UTF-8 (at byte {})",
                        shown.display(),
                        e.utf8_error().valid_up_to()
                    ),
                )
                .help("save the source as UTF-8")
        })
    }

    /// Why `entry` is not a kernel the source `shown` defines, with the
    /// kernels it does define and the nearest name.
    fn not_a_kernel(&self, entry: &Spanned<String>, shown: &Path, found: &Kernels) -> ConfigError {
        let name = entry.get_ref();
        let found_note = if found.extern_c.is_empty() {
            format!(
                "{} defines no extern \"C\" __global__ function",
                shown.display()
            )
        } else {
            format!(
                "{} defines the extern \"C\" kernels: {}",
                shown.display(),
                found.extern_c.join(", ")
            )
        };
        let error = self.doc.error(
            entry.span(),
            format!(
                "`{name}` is not an extern \"C\" kernel of {}",
                shown.display()
            ),
        );
        if found.mangled.contains(name) {
            error
                .note(format!(
                    "`{name}` is declared __global__ but without extern \"C\""
                ))
                .note(found_note)
                .help(format!(
                    "NVRTC looks kernels up by unmangled name, so the kernel must be extern \"C\": \
                     declare it as extern \"C\" __global__ void {name}(...)"
                ))
        } else {
            let hint = match suggest::closest(name, &found.extern_c) {
                Some(best) => format!("did you mean `{best}`? "),
                None => String::new(),
            };
            error.note(found_note).help(format!(
                "{hint}NVRTC looks kernels up by unmangled name, so the kernel must be \
                 extern \"C\" __global__"
            ))
        }
    }
}
