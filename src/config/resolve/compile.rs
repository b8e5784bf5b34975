//! How a kernel variant is compiled: the compiler (NVRTC unless the file
//! or a header it includes holds host code, or as `compiler` says, refusing NVRTC for a file it
//! cannot compile), the folders of `include_dirs` and of the include-path
//! options in `compile_options` (relative to the toml, checked to exist)
//! and the `defines`, whose values are numbers or
//! expressions over the size symbols, compiled once here and evaluated at
//! every size. Whether a source's headers hold host code is looked for
//! once per source and include folders.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use toml::Spanned;

use super::values::{Bounds, Compiled};
use super::{Context, merged};
use crate::build::headers::{IncludeOption, host_code_of_headers, include_option};
use crate::config::error::ConfigError;
use crate::config::kernels::Kernels;
use crate::config::raw::RawVariant;
use crate::model::suite::Size;
use crate::model::variant::Compiler;

/// What in a kernel's file NVRTC cannot compile.
enum HostCode {
    /// The file's own host code (`it defines `main``).
    Own(String),
    /// A header it includes that holds host code, and what it does
    /// (`kernel1.cuh`, `includes the host header <stdio.h>`).
    Header(String, String),
}

impl HostCode {
    /// Why the file is compiled by nvcc.
    fn reason(&self) -> String {
        match self {
            HostCode::Own(what) => format!("the file holds host code: {what}"),
            HostCode::Header(header, what) => {
                format!("a header it includes holds host code: {header} {what}")
            }
        }
    }

    /// What NVRTC would refuse.
    fn what(&self) -> String {
        match self {
            HostCode::Own(what) => what.clone(),
            HostCode::Header(header, what) => format!("the file includes {header}, which {what}"),
        }
    }
}

/// Why a `device_only = true` kernel is compiled by nvcc.
const DEVICE_ONLY: &str = "device_only = true: its device code alone, its host functions and file-scope macro calls left out and an empty header standing in for each header found nowhere";

/// A source with its include folders and compile options.
type CompiledSource = (PathBuf, Vec<PathBuf>, Vec<String>);

/// The host code of each source's headers ([`host_code_of_headers`]): the
/// header and what it does, by [`CompiledSource`].
#[derive(Default)]
pub(super) struct HostCodes(RefCell<HashMap<CompiledSource, Option<(String, String)>>>);

impl HostCodes {
    /// The first header of `source` that holds host code, with what it
    /// does; read once for the same source, folders and options.
    fn of(
        &self,
        source: &Path,
        include_dirs: &[PathBuf],
        options: &[String],
    ) -> Option<(String, String)> {
        let key = (
            source.to_path_buf(),
            include_dirs.to_vec(),
            options.to_vec(),
        );
        if let Some(known) = self.0.borrow().get(&key) {
            return known.clone();
        }
        let found = std::fs::read(source).ok().and_then(|bytes| {
            let text = crate::config::source_text(&bytes);
            host_code_of_headers(source, &text, include_dirs, options)
        });
        self.0.borrow_mut().insert(key, found.clone());
        found
    }
}

/// A kernel's compiler, the reason it was chosen, its include folders and
/// its extra compiler options.
pub(super) struct CompileSettings {
    pub(super) compiler: Compiler,
    pub(super) reason: String,
    pub(super) include_dirs: Vec<PathBuf>,
    pub(super) options: Vec<String>,
    /// `device_only = true`: the file's host code is left out.
    pub(super) device_only: bool,
}

impl<'c> Context<'c> {
    /// The compiler and include folders of a kernel whose source, at
    /// `source`, scanned as `scanned`.
    pub(super) fn compile_settings(
        &self,
        raw: &RawVariant,
        source: &Path,
        scanned: &Kernels,
    ) -> Result<CompileSettings, ConfigError> {
        let include_dirs = self.include_dirs(raw)?;
        let options = self.compile_options(raw)?;
        // `compiler = "auto"` is the same as leaving it out.
        let chosen =
            merged(raw, self.defaults, |r| &r.compiler).filter(|m| m.value.get_ref() != "auto");
        let host = match &scanned.host_code {
            Some(own) => Some(HostCode::Own(own.clone())),
            None => self
                .host_codes
                .of(source, &include_dirs, &options)
                .map(|(header, what)| HostCode::Header(header, what)),
        };
        let device_only =
            merged(raw, self.defaults, |r| &r.device_only).is_some_and(|m| *m.value.get_ref());
        let (compiler, reason) = match (chosen.as_ref().map(|m| m.value), &host) {
            (None, _) if device_only => (Compiler::Nvcc, DEVICE_ONLY.to_string()),
            (Some(word), _) if device_only && word.get_ref() != "nvcc" => {
                return Err(self
                    .doc
                    .error(word.span(), "`device_only` is compiled by nvcc")
                    .note("gpuprof leaves the file's host code out and compiles what is left with nvcc, which stands an empty header in for each header found nowhere")
                    .help("write compiler = \"nvcc\", or leave `compiler` out"));
            }
            (Some(_), _) if device_only => (Compiler::Nvcc, DEVICE_ONLY.to_string()),
            (None, None) => (
                Compiler::Nvrtc,
                "the file holds device code only".to_string(),
            ),
            (None, Some(host)) => (Compiler::Nvcc, host.reason()),
            (Some(word), host) => self.chosen_compiler(word, host.as_ref())?,
        };
        Ok(CompileSettings {
            compiler,
            reason,
            include_dirs,
            options,
            device_only,
        })
    }

    /// `compile_options` as given, except that a relative folder after an
    /// include-path option is made relative to the toml's folder (like every
    /// other path in it) and checked to exist, so the suite compiles the
    /// same from any working folder.
    fn compile_options(&self, raw: &RawVariant) -> Result<Vec<String>, ConfigError> {
        let Some(options) = merged(raw, self.defaults, |r| &r.compile_options) else {
            return Ok(Vec::new());
        };
        let mut resolved = Vec::with_capacity(options.value.len());
        let mut folder_follows = false;
        for option in options.value {
            let text = option.get_ref();
            if std::mem::take(&mut folder_follows) {
                resolved.push(self.include_folder(text, option.span())?);
                continue;
            }
            match include_option(text) {
                Some(IncludeOption::FolderFollows) => {
                    folder_follows = true;
                    resolved.push(text.clone());
                }
                Some(IncludeOption::Attached { prefix, folder }) => resolved.push(format!(
                    "{prefix}{}",
                    self.include_folder(folder, option.span())?
                )),
                None => resolved.push(text.clone()),
            }
        }
        Ok(resolved)
    }

    /// `folder`, an include folder written in `compile_options` at `span`:
    /// absolute, taken from the toml's folder when relative, and required
    /// to exist.
    fn include_folder(
        &self,
        folder: &str,
        span: std::ops::Range<usize>,
    ) -> Result<String, ConfigError> {
        let shown = self.doc.dir.join(folder);
        match std::fs::canonicalize(&shown) {
            Ok(path) if path.is_dir() => Ok(path.display().to_string()),
            _ => Err(self
                .doc
                .error(
                    span,
                    format!("include folder {} does not exist", shown.display()),
                )
                .note("folders in `compile_options` are relative to the folder of the variants.toml, like every path in it")
                .help("fix the path, or list the folder in `include_dirs`")),
        }
    }

    /// `compiler = "nvrtc" | "nvcc"` ("auto" is chosen from the file).
    fn chosen_compiler(
        &self,
        word: &Spanned<String>,
        host: Option<&HostCode>,
    ) -> Result<(Compiler, String), ConfigError> {
        let asked = "asked for by `compiler` in variants.toml".to_string();
        match (word.get_ref().as_str(), host) {
            ("nvcc", _) => Ok((Compiler::Nvcc, asked)),
            ("nvrtc", None) => Ok((Compiler::Nvrtc, asked)),
            ("nvrtc", Some(host)) => Err(self
                .doc
                .error(word.span(), "NVRTC cannot compile this source")
                .note(format!("NVRTC compiles device code only, and {}", host.what()))
                .help("use compiler = \"nvcc\" (or leave `compiler` out: gpuprof then chooses nvcc for such files)")),
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
                if !super::suite::is_identifier(name) {
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

    /// That no define of `defines` is one the kernel's `source` (scanned as
    /// `scanned`) `#define`s itself outside an `#ifndef`: its own value
    /// would replace gpuprof's `-D` (nvcc only warns), so every size would
    /// run the file's value while the report says otherwise.
    pub(super) fn refuse_overridden_defines(
        &self,
        raw: &RawVariant,
        scanned: &Kernels,
        source: &std::path::Path,
    ) -> Result<(), ConfigError> {
        let Some(defines) = merged(raw, self.defaults, |r| &r.defines) else {
            return Ok(());
        };
        for (name, value) in defines.value.get_ref() {
            if let Some(line) = defined_by_the_file(scanned, name) {
                return Err(self
                    .doc
                    .error(
                        value.span(),
                        format!(
                            "define {name} is replaced by the file's own: {}:{line} defines {name} outside an #ifndef {name}",
                            source.display()
                        ),
                    )
                    .help(overridden_help(name)));
            }
        }
        Ok(())
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

/// The line where the file scanned as `scanned` defines `name` where a
/// `-D` cannot reach, if it does.
pub(super) fn defined_by_the_file(scanned: &Kernels, name: &str) -> Option<usize> {
    scanned
        .unguarded_defines
        .iter()
        .find(|(defined, _)| defined == name)
        .map(|(_, line)| *line)
}

/// How to let a `-D` of `name` reach a file that defines it.
pub(super) fn overridden_help(name: &str) -> String {
    format!(
        "guard the file's definition so that the flag wins (#ifndef {name} / #define {name} … / #endif), or leave {name} out here and run the file's value"
    )
}

#[cfg(test)]
mod tests {
    use crate::config::resolve::tests::{err, fails, help, ok, one_variant};

    #[test]
    fn the_compiler_is_nvrtc_for_device_code_and_nvcc_for_a_file_with_host_code() {
        use crate::model::variant::Compiler;
        let homework = "source = \"../../kernels/cpp/homework.cu\"\nentry = \"tiledCopy<64>\"\nargs = [\n  { name = \"out\", buffer = \"f32\", count = \"N\", output = true },\n  { name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" },\n  { name = \"n\", scalar = \"i32\", value = \"N\" },\n]";
        let kernel = |keys: &str| ok(&one_variant(keys)).variants[0].kernel().unwrap().clone();
        let plain = kernel("");
        assert_eq!(plain.compiler, Compiler::Nvrtc);
        assert_eq!(plain.compiler_reason, "the file holds device code only");
        let host = kernel(homework);
        assert_eq!(host.compiler, Compiler::Nvcc);
        assert_eq!(
            host.compiler_reason,
            "the file holds host code: it defines `main`"
        );
        assert_eq!(kernel("compiler = \"nvcc\"").compiler, Compiler::Nvcc);
        assert_eq!(kernel("compiler = \"auto\"").compiler, Compiler::Nvrtc);
        let e = fails(
            &one_variant(&format!("{homework}\ncompiler = \"nvrtc\"")),
            "NVRTC cannot compile this source",
            "\"nvrtc\"",
        );
        assert!(help(&e).starts_with("use compiler = \"nvcc\""), "{e}");
        fails(
            &one_variant("compiler = \"clang\""),
            "unknown compiler \"clang\"",
            "\"clang\"",
        );
        // Device code alone is nvcc's, asked for or not.
        let device_only = kernel("device_only = true");
        assert!(device_only.device_only);
        assert_eq!(device_only.compiler, Compiler::Nvcc);
        assert!(
            device_only
                .compiler_reason
                .starts_with("device_only = true: its device code alone"),
            "{}",
            device_only.compiler_reason
        );
        assert!(!plain.device_only && !host.device_only);
        assert!(kernel("device_only = true\ncompiler = \"nvcc\"").device_only);
        let e = fails(
            &one_variant("device_only = true\ncompiler = \"nvrtc\""),
            "`device_only` is compiled by nvcc",
            "\"nvrtc\"",
        );
        assert!(help(&e).starts_with("write compiler = \"nvcc\""), "{e}");
    }

    #[test]
    fn a_device_only_file_whose_header_holds_host_code_is_compiled_by_nvcc() {
        use crate::config::resolve::tests::one_variant;
        use crate::model::variant::Compiler;
        // Declarations in include/, definitions in src/ (a separately
        // compiled project): the kernel file itself is device code only,
        // but NVRTC has no <stdio.h> for the header it includes.
        let folder = tempfile::tempdir().unwrap();
        let dir = folder.path();
        std::fs::create_dir_all(dir.join("include")).unwrap();
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(
            dir.join("include/k.cuh"),
            "#pragma once\n#include <stdio.h>\n__global__ void k(const float *in, float *out, float f, int n);\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("include/plain.cuh"),
            "#pragma once\n#include <cuda_fp16.h>\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("src/k.cu"),
            "#include \"k.cuh\"\n__global__ void k(const float *in, float *out, float f, int n) {}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("src/plain.cu"),
            "#include \"plain.cuh\"\n__global__ void k(const float *in, float *out, float f, int n) {}\n",
        )
        .unwrap();
        let kernel = |keys: &str| {
            let text = one_variant(keys);
            let plan = crate::config::parse(&text, &dir.join("variants.toml"))
                .unwrap_or_else(|e| panic!("{e}"));
            plan.variants[0].kernel().unwrap().clone()
        };
        let through_header =
            kernel("source = \"src/k.cu\"\nentry = \"k\"\ninclude_dirs = [\"include\"]");
        assert_eq!(through_header.compiler, Compiler::Nvcc);
        assert_eq!(
            through_header.compiler_reason,
            "a header it includes holds host code: ../include/k.cuh includes the host header <stdio.h>"
        );
        let by_option =
            kernel("source = \"src/k.cu\"\nentry = \"k\"\ncompile_options = [\"-I\", \"include\"]");
        assert_eq!(by_option.compiler, Compiler::Nvcc);
        let device_header =
            kernel("source = \"src/plain.cu\"\nentry = \"k\"\ninclude_dirs = [\"include\"]");
        assert_eq!(device_header.compiler, Compiler::Nvrtc);
        let text = one_variant(
            "source = \"src/k.cu\"\nentry = \"k\"\ninclude_dirs = [\"include\"]\ncompiler = \"nvrtc\"",
        );
        let refused = crate::config::parse(&text, &dir.join("variants.toml")).unwrap_err();
        assert!(
            refused.to_string().contains(
                "NVRTC compiles device code only, and the file includes ../include/k.cuh, which includes the host header <stdio.h>"
            ),
            "{refused}"
        );
    }

    #[test]
    fn include_folders_are_relative_to_the_toml_and_must_exist() {
        let plan = ok(&one_variant("include_dirs = [\"kernels\"]"));
        let dirs = &plan.variants[0].kernel().unwrap().include_dirs;
        assert_eq!(dirs.len(), 1);
        assert!(dirs[0].is_absolute() && dirs[0].ends_with("tests/configs/errors/kernels"));
        let e = err(&one_variant("include_dirs = [\"no-such-folder\"]"));
        assert!(
            e.message()
                .starts_with("cannot read include folder tests/configs/errors/no-such-folder"),
            "{e}"
        );
        fails(
            &one_variant("include_dirs = [\"kernels/scale.cu\"]"),
            "tests/configs/errors/kernels/scale.cu is not a folder",
            "include_dirs = [»\"kernels/scale.cu\"",
        );
    }

    #[test]
    fn include_paths_in_compile_options_are_taken_from_the_toml_folder() {
        let options = |keys: &str| {
            ok(&one_variant(keys)).variants[0]
                .kernel()
                .unwrap()
                .compile_options
                .clone()
        };
        let folder = std::fs::canonicalize("tests/configs/errors/kernels")
            .unwrap()
            .display()
            .to_string();
        assert_eq!(
            options("compile_options = [\"-Ikernels\", \"--use_fast_math\"]"),
            [format!("-I{folder}"), "--use_fast_math".to_string()]
        );
        assert_eq!(
            options("compile_options = [\"-I\", \"kernels\", \"--include-path=kernels\"]"),
            [
                "-I".to_string(),
                folder.clone(),
                format!("--include-path={folder}")
            ]
        );
        assert_eq!(
            options(&format!("compile_options = [\"-isystem\", \"{folder}\"]")),
            ["-isystem".to_string(), folder.clone()]
        );
        let e = err(&one_variant("compile_options = [\"-Ino-such-folder\"]"));
        assert_eq!(
            e.message(),
            "include folder tests/configs/errors/no-such-folder does not exist"
        );
    }

    #[test]
    fn defines_are_evaluated_at_every_size() {
        let plan = ok(&one_variant(
            "defines = { BLOCK = 256, ITEMS = \"N / 256\" }",
        ));
        let defines: Vec<&Vec<(String, i64)>> = plan.variants[0]
            .instances
            .iter()
            .map(|i| &i.defines)
            .collect();
        assert_eq!(
            defines,
            [
                &vec![("BLOCK".to_string(), 256), ("ITEMS".to_string(), 4)],
                &vec![("BLOCK".to_string(), 256), ("ITEMS".to_string(), 16)],
            ]
        );
        let e = err(&one_variant("defines = { ITEMS = \"N / 3\" }"));
        assert!(
            e.message().contains("define ITEMS of variant `plain`"),
            "{e}"
        );
        let e = err(&one_variant("defines = { \"2X\" = 1 }"));
        assert_eq!(e.message(), "define \"2X\" is not a macro name");
    }

    #[test]
    fn command_and_library_variants_refuse_compiler_keys() {
        let e = err(&one_variant(
            "command = [\"./prog\"]\nkernel = \"k\"\nsource = \"x\"\ncompiler = \"nvcc\"",
        ));
        assert!(e.message().contains("runs a command"), "{e}");
        let e = err(&one_variant(
            "command = [\"./prog\"]\nkernel = \"k\"\ndefines = { A = 1 }",
        ));
        assert_eq!(
            e.message(),
            "variant `plain` runs a command, so it takes no `defines`"
        );
    }
}
