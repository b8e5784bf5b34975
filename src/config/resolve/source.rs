//! A kernel variant's source and entry point: the source path resolved
//! against the toml's folder and canonicalized, read once per path (no NUL
//! byte, UTF-8) and scanned for its kernels, and the entry point looked up
//! among them: a plain or `extern "C"` kernel by name, a kernel in a
//! namespace by its qualified name, a template by an instance with its
//! arguments (as many as it takes). A wrong entry is named with the
//! kernels the file defines.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fs;
use std::path::{Path, PathBuf};

use toml::Spanned;

use super::{Context, Merged, merged};
use crate::config::error::ConfigError;
use crate::config::kernels::{self, Kernel, Kernels};
use crate::config::raw::RawVariant;
use crate::config::signature;
use crate::config::suggest;

impl Context<'_> {
    /// The source of a kernel variant as the toml names it (relative to the
    /// folder the toml is read from), for errors; its canonical path
    /// `canonical` when the variant names none.
    pub(super) fn shown_source(&self, raw: &RawVariant, canonical: &Path) -> PathBuf {
        match merged(raw, self.defaults, |r| &r.source) {
            Some(source) => self.doc.dir.join(source.value.get_ref()),
            None => canonical.to_path_buf(),
        }
    }

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
        let entry = match &raw.sequence {
            // A sequence names its kernels in its steps; the first is the
            // variant's entry.
            Some(steps) => steps
                .get_ref()
                .iter()
                .find_map(|step| step.get_ref().entries().first().copied())
                .map(|value| Merged {
                    value,
                    inherited: false,
                }),
            None => merged(raw, self.defaults, |r| &r.entry),
        };
        let entry = entry.ok_or_else(|| {
            missing(
                "entry",
                "entry = \"<kernel>\" (a __global__ function of the source, e.g. \"transpose\" or \"reduce<256>\")",
            )
        })?;
        let source_path = self.source(source.value, kernels, entry.value)?;
        Ok((source_path, entry.value.get_ref().clone()))
    }

    /// The canonical path of `source`, after checking that it can be read,
    /// holds no NUL byte and defines `entry` (see [`Kernels::find`]).
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
                let bytes = crate::config::read_regular_file(&path).map_err(unreadable)?;
                let text = self.source_text(source, &shown, bytes)?;
                slot.insert(kernels::scan_file(&path, &text))
            }
        };
        self.check_entry(entry, &shown, found).map(|()| path)
    }

    /// That `entry` names a kernel of the source `shown`, scanned as
    /// `found` (an instance, for a template).
    pub(super) fn check_entry(
        &self,
        entry: &Spanned<String>,
        shown: &Path,
        found: &Kernels,
    ) -> Result<(), ConfigError> {
        match found.find(entry.get_ref()) {
            Some(kernel) => self.check_instance(entry, kernel),
            // A macro may declare kernels the scan cannot see: the compiler
            // has the last word.
            None if found.declared_by_macro => Ok(()),
            None => Err(self.not_a_kernel(entry, shown, found)),
        }
    }

    /// A template is named with its arguments, a plain kernel without.
    fn check_instance(&self, entry: &Spanned<String>, kernel: &Kernel) -> Result<(), ConfigError> {
        let name = entry.get_ref();
        match (&kernel.template, kernels::is_instance(name)) {
            (Some(parameters), false) => Err(self
                .doc
                .error(
                    entry.span(),
                    format!("`{name}` is a template: name the instance to run"),
                )
                .note(format!("it is declared `template <{parameters}>`"))
                .help(format!(
                    "give its arguments, e.g. entry = \"{}<…>\" with a value for each of {parameters}",
                    kernel.name
                ))),
            (None, true) => Err(self
                .doc
                .error(entry.span(), format!("`{}` is not a template", kernel.name))
                .help(format!("name it without arguments: entry = \"{}\"", kernel.name))),
            (Some(parameters), true) => self.check_template_arguments(entry, kernel, parameters),
            (None, false) => Ok(()),
        }
    }

    /// That the instance `entry` gives the template `kernel`, declared
    /// `template <parameters>`, as many arguments as it takes, in a list
    /// that closes; the compiler judges the arguments themselves.
    fn check_template_arguments(
        &self,
        entry: &Spanned<String>,
        kernel: &Kernel,
        parameters: &str,
    ) -> Result<(), ConfigError> {
        let name = entry.get_ref();
        let example = format!(
            "entry = \"{}<…>\" with a value for each of {parameters}",
            kernel.name
        );
        let arguments = signature::instance_arguments(name).map_err(|reason| {
            self.doc
                .error(
                    entry.span(),
                    format!("the template arguments of `{name}` cannot be read: {reason}"),
                )
                .help(example.clone())
        })?;
        if arguments.iter().any(|a| a.contains('…')) {
            return Err(self
                .doc
                .error(
                    entry.span(),
                    format!("`{name}` still holds the placeholder `…` that gpuprof init wrote"),
                )
                .help(format!(
                    "write a value for each of <{parameters}> in place of `…`"
                )));
        }
        // A `{expression}` over the size symbols is an argument that
        // depends on the size: valid where it evaluates at every size; the
        // arguments are judged as the first size fills them.
        let arguments = match arguments.iter().any(|a| a.contains('{')) {
            true => {
                let mut filled = Vec::new();
                for size in self.sizes {
                    filled.push(self.entry_at(entry, size)?);
                }
                signature::instance_arguments(&filled[0]).unwrap_or(arguments)
            }
            false => arguments,
        };
        let (least, most) = signature::template_arity(parameters);
        let given = arguments.len();
        if given >= least && most.is_none_or(|most| given <= most) {
            return match signature::template_kind_mismatch(parameters, &arguments) {
                None => Ok(()),
                Some((at, declared)) => {
                    let (is, takes) =
                        match declared.starts_with("typename") || declared.starts_with("class") {
                            true => ("a value", "a type"),
                            false => ("a type", "a value"),
                        };
                    Err(self
                        .doc
                        .error(
                            entry.span(),
                            format!(
                                "template argument {} of `{name}`, `{}`, is {is}, but `{declared}` takes {takes}",
                                at + 1,
                                arguments[at].trim()
                            ),
                        )
                        .note(format!("`{}` is declared `template <{parameters}>`", kernel.name))
                        .help("give the template arguments in the order the template declares them"))
                }
            };
        }
        let expected = match most {
            Some(most) if most == least => format!("{least}"),
            Some(most) => format!("{least} to {most}"),
            None => format!("at least {least}"),
        };
        Err(self
            .doc
            .error(
                entry.span(),
                format!(
                    "`{name}` gives {} but `{}` takes {expected}",
                    crate::analysis::format::counted(given, "template argument"),
                    kernel.name
                ),
            )
            .note(format!("it is declared `template <{parameters}>`"))
            .help(example))
    }

    /// `entry` with each `{expression}` over the size symbols replaced by
    /// its whole-number value at `size`: `reduce<256, {N / 32768}>` at
    /// N = 2^25 is `reduce<256, 1024>`, a template argument that depends
    /// on the size (each size then compiles its own instance). A sweep's
    /// `{NAME}` is filled before this, by the sweep.
    pub(super) fn entry_at(
        &self,
        entry: &Spanned<String>,
        size: &crate::model::suite::Size,
    ) -> Result<String, ConfigError> {
        let text = entry.get_ref();
        let mut filled = String::new();
        let mut written_up_to = 0;
        for (inner, range) in super::sweep::placeholders(text) {
            let start = range.start + 1;
            let at = |span: std::ops::Range<usize>| {
                self.doc
                    .expression_span(entry.span(), text, start + span.start..start + span.end)
            };
            let value = crate::config::expr::parse(&inner)
                .and_then(|expr| expr.eval(&inner, &size.symbols))
                .map_err(|e| {
                    self.doc
                        .error(
                            at(e.span.clone()),
                            format!("{} in `{{{inner}}}` of the entry at {}", e.message(), size.label),
                        )
                        .help(format!(
                            "{}; `{{…}}` in an entry is an expression over the size symbols (or a sweep's parameter, with `sweep`)",
                            e.help()
                        ))
                })?;
            if value.fract() != 0.0 || value.abs() >= 9.0e15 {
                return Err(self
                    .doc
                    .error(
                        at(0..inner.len()),
                        format!(
                            "`{{{inner}}}` in the entry is {value} at {}, but a template argument must be a whole number",
                            size.label
                        ),
                    )
                    .help("use floor(…) or cdiv(…, …) for a whole number"));
            }
            filled.push_str(&text[written_up_to..range.start]);
            filled.push_str(&(value as i64).to_string());
            written_up_to = range.end;
        }
        filled.push_str(&text[written_up_to..]);
        Ok(filled)
    }

    /// The text of a kernel source read as `bytes` (`config::source_text`):
    /// refused when it holds a NUL byte.
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
        Ok(crate::config::source_text(&bytes))
    }

    /// Why `entry` is not a kernel the source `shown` defines, with the
    /// kernels it does define and the nearest name.
    fn not_a_kernel(&self, entry: &Spanned<String>, shown: &Path, found: &Kernels) -> ConfigError {
        let name = entry.get_ref();
        let listed: Vec<String> = found.kernels.iter().map(Kernel::shown).collect();
        let found_note = match listed.is_empty() {
            true => format!("{} defines no __global__ function", shown.display()),
            false => format!(
                "{} defines the kernels: {}",
                shown.display(),
                listed.join(", ")
            ),
        };
        let names: Vec<String> = found.kernels.iter().map(|k| k.name.clone()).collect();
        let base = kernels::entry_base(name);
        let error = self
            .doc
            .error(
                entry.span(),
                format!("`{name}` is not a kernel of {}", shown.display()),
            )
            .note(found_note);
        // A kernel of a header the file includes (a runner file that
        // includes the kernels it launches) is compiled from that header.
        let text = fs::read(shown)
            .map(|bytes| crate::config::source_text(&bytes))
            .unwrap_or_default();
        let defined_in = crate::build::headers::local_headers(shown, &text)
            .into_iter()
            .find(|(_, header)| kernels::scan(header).find(name).is_some());
        if let Some((header, _)) = defined_in {
            let folder = shown.parent().unwrap_or(Path::new(""));
            let source_folder = shown.strip_prefix(self.doc.dir).unwrap_or(shown);
            let relative = header.strip_prefix(folder).unwrap_or(&header);
            let suggested = source_folder
                .parent()
                .unwrap_or(Path::new(""))
                .join(relative);
            return error.help(format!(
                "`{base}` is defined in {}, which the file includes: give source = \"{}\" (gpuprof compiles the kernel from it)",
                header.display(),
                suggested.display()
            ));
        }
        match suggest::closest(&base, &names) {
            Some(best) => error.help(format!(
                "did you mean `{best}`?"
            )),
            None => error.help(
                "`entry` names a __global__ function of `source`: `kernel`, `ns::kernel`, or a template instance `kernel<256, float>`",
            ),
        }
    }
}
