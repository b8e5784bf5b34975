//! Raw file → [`Plan`]: `[defaults]` merged into each variant (a key the
//! variant sets replaces the default wholesale), source paths resolved
//! against the toml's folder and canonicalized, entry points looked up in the
//! sources, sizes and constants bound, names, roles, changes, verification
//! targets and tolerances checked, and the checks across variants (cycles of
//! `verify`, outputs that match their reference's). Number-or-expression
//! values live in `values`, kernel arguments in `args`. The first problem
//! found is returned as a [`ConfigError`] pointing at the value responsible.

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;

mod args;
mod values;

use args::ArgSpec;
use values::{gemm_bounds, grid_bounds, shared_bytes_bounds};

use super::error::ConfigError;
use super::kernels::{self, Kernels};
use super::plan::{
    Arg, ClockControl, CommandVariant, Compare, Instance, Plan, ProfileSettings, Suite, Tolerance,
    Variant, Verify,
};
use super::raw::{RawFile, RawSize, RawSuite, RawVariant};
use super::suggest;
use crate::model::Change;
use crate::model::suite::{Size, Timing};
use crate::model::variant::{Library, Role};

const DEFAULT_WARMUP: u32 = 3;
const DEFAULT_REPETITIONS: u32 = 20;
const DEFAULT_SEED: u64 = 1234;
const DEFAULT_REL: f64 = 1e-5;
const DEFAULT_ABS: f64 = 1e-6;

/// The file being resolved: where errors point.
struct Doc<'a> {
    text: &'a str,
    path: &'a Path,
    /// The toml's folder as the caller gave it (empty for the working folder).
    dir: &'a Path,
}

impl Doc<'_> {
    fn error(&self, span: Range<usize>, message: impl Into<String>) -> ConfigError {
        ConfigError::new(message, self.path).at(self.text, span)
    }

    /// The file range of `inner`, a range of the expression string `expression`
    /// written at `span`: exact when the string has no escapes, else the whole value.
    fn expression_span(
        &self,
        span: Range<usize>,
        expression: &str,
        inner: Range<usize>,
    ) -> Range<usize> {
        let written = &self.text[span.clone()];
        let quote = if written.starts_with("\"\"\"") || written.starts_with("'''") {
            3
        } else if written.starts_with('"') || written.starts_with('\'') {
            1
        } else {
            return span;
        };
        match written.get(quote..written.len().saturating_sub(quote)) {
            Some(body) if body == expression => {
                span.start + quote + inner.start..span.start + quote + inner.end
            }
            _ => span,
        }
    }
}

/// Resolves the deserialized `raw` read from `text`, the contents of `path`.
pub(crate) fn resolve(raw: &RawFile, text: &str, path: &Path) -> Result<Plan, ConfigError> {
    let doc = Doc {
        text,
        path,
        dir: path.parent().unwrap_or(Path::new("")),
    };
    if let Some(version) = &raw.version
        && *version.get_ref() != 1
    {
        return Err(doc
            .error(
                version.span(),
                format!("unknown version {}", version.get_ref()),
            )
            .help("only version 1 exists: write version = 1 or leave the key out"));
    }
    let suite = raw.suite.get_ref();
    check_suite_name(&doc, &suite.name)?;
    let sizes = sizes(&doc, suite)?;
    let repetitions = match &suite.repetitions {
        Some(r) if *r.get_ref() == 0 => {
            return Err(doc
                .error(r.span(), "repetitions must be at least 1")
                .help(format!(
                    "it is the number of timed launches per variant and size (default {DEFAULT_REPETITIONS})"
                )));
        }
        Some(r) => *r.get_ref(),
        None => DEFAULT_REPETITIONS,
    };
    let clock_control = clock_control(&doc, raw)?;
    let defaults = match &raw.defaults {
        Some(defaults) => {
            if let Some(name) = &defaults.get_ref().name {
                return Err(doc
                    .error(name.span(), "[defaults] cannot set `name`")
                    .help("every [[variant]] names itself: move `name` into a [[variant]]"));
            }
            Some(defaults.get_ref())
        }
        None => None,
    };
    let names = variant_names(&doc, raw)?;
    check_baseline(&doc, &suite.baseline, &names)?;
    let context = Context {
        doc: &doc,
        sizes: &sizes,
        names: &names,
        baseline: suite.baseline.get_ref(),
        defaults,
    };
    let mut kernels = HashMap::new();
    let mut resolved = Vec::with_capacity(raw.variant.len());
    for (variant, name) in raw.variant.iter().zip(&names) {
        resolved.push(context.variant(variant, name, &mut kernels)?);
    }
    check_verify_cycles(&doc, &resolved)?;
    for variant in &resolved {
        context.check_outputs(variant, &resolved)?;
    }
    Ok(Plan {
        suite: Suite {
            name: suite.name.get_ref().clone(),
            description: suite.description.clone().unwrap_or_default(),
            config_path: fs::canonicalize(path)
                .or_else(|_| std::path::absolute(path))
                .unwrap_or_else(|_| path.to_path_buf()),
            sizes,
            baseline: suite.baseline.get_ref().clone(),
            seed: suite.seed.unwrap_or(DEFAULT_SEED),
        },
        timing: Timing {
            warmup: suite.warmup.unwrap_or(DEFAULT_WARMUP),
            repetitions,
        },
        profile: ProfileSettings { clock_control },
        variants: resolved.into_iter().map(|r| r.variant).collect(),
    })
}

fn check_suite_name(doc: &Doc, name: &Spanned<String>) -> Result<(), ConfigError> {
    let valid = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    let text = name.get_ref();
    if text.is_empty() {
        return Err(doc.error(name.span(), "the suite name is empty").help(
            "it names the output folder: use letters, digits, '-' and '_', e.g. \"transpose\"",
        ));
    }
    if text.chars().all(valid) {
        return Ok(());
    }
    let fixed: String = text
        .trim()
        .chars()
        .map(|c| if valid(c) { c } else { '-' })
        .collect();
    Err(doc
        .error(
            name.span(),
            format!("suite name {text:?} may only contain letters, digits, '-' and '_'"),
        )
        .help(format!(
            "it names the output folder: use letters, digits, '-' and '_', e.g. \"{fixed}\""
        )))
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn check_symbol_name(doc: &Doc, key: &Spanned<String>, what: &str) -> Result<(), ConfigError> {
    if is_identifier(key.get_ref()) {
        return Ok(());
    }
    Err(doc
        .error(
            key.span(),
            format!(
                "{what} `{}` is not a name expressions can use",
                key.get_ref()
            ),
        )
        .help("use letters, digits and '_', not starting with a digit, e.g. TILE_SIZE"))
}

type Bindings = Vec<(String, i64)>;

/// The suite's sizes, each binding its own symbols and the constants.
fn sizes(doc: &Doc, suite: &RawSuite) -> Result<Vec<Size>, ConfigError> {
    if suite.sizes.get_ref().is_empty() {
        return Err(doc
            .error(suite.sizes.span(), "the suite has no sizes")
            .help("list at least one problem size, e.g. sizes = [1024, 4096]"));
    }
    // Each size's own symbols in file order, and where it is written.
    let mut own: Vec<(Bindings, Range<usize>)> = Vec::new();
    for size in suite.sizes.get_ref() {
        let symbols = match size.get_ref() {
            RawSize::Whole(n) => vec![("N".to_string(), *n)],
            RawSize::Table(table) => {
                if table.entries.is_empty() {
                    return Err(doc.error(size.span(), "this size binds no symbols").help(
                        "write a table such as { M = 1024, N = 512 }, or an integer to bind N",
                    ));
                }
                let mut symbols = Vec::new();
                for (key, value) in &table.entries {
                    check_symbol_name(doc, key, "size symbol")?;
                    symbols.push((key.get_ref().clone(), *value.get_ref()));
                }
                symbols
            }
        };
        own.push((symbols, size.span()));
    }
    let constants = suite.constants.as_ref().map_or(&[][..], |c| &c.entries[..]);
    for (key, _) in constants {
        check_symbol_name(doc, key, "constant")?;
        if own
            .iter()
            .any(|(symbols, _)| symbols.iter().any(|(name, _)| name == key.get_ref()))
        {
            return Err(doc
                .error(
                    key.span(),
                    format!(
                        "constant `{}` has the same name as a size symbol",
                        key.get_ref()
                    ),
                )
                .help("sizes bind their own symbols at every size: rename the constant"));
        }
    }
    let mut sizes: Vec<Size> = Vec::new();
    let mut seen: Vec<BTreeMap<String, i64>> = Vec::new();
    for (symbols, span) in own {
        let label = symbols
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut bound: BTreeMap<String, i64> = symbols.into_iter().collect();
        if let Some(first) = seen.iter().position(|s| *s == bound) {
            return Err(doc
                .error(span, format!("size {label} is listed twice"))
                .help(format!(
                    "it binds the same symbols as size {}: remove one of them",
                    sizes[first].label
                )));
        }
        seen.push(bound.clone());
        for (key, value) in constants {
            bound.insert(key.get_ref().clone(), *value.get_ref());
        }
        sizes.push(Size {
            label,
            symbols: bound,
        });
    }
    Ok(sizes)
}

fn clock_control(doc: &Doc, raw: &RawFile) -> Result<ClockControl, ConfigError> {
    let Some(value) = raw.profile.as_ref().and_then(|p| p.clock_control.as_ref()) else {
        return Ok(ClockControl::None);
    };
    match value.get_ref().as_str() {
        "none" => Ok(ClockControl::None),
        "base" => Ok(ClockControl::Base),
        other => Err(doc
            .error(value.span(), format!("unknown clock_control {other:?}"))
            .help(
                "write \"none\" (the default: ncu leaves the GPU clocks alone) or \"base\" \
                 (ncu locks the base clocks)",
            )),
    }
}

/// The variants' names in file order, checked to be present, non-empty and unique.
fn variant_names(doc: &Doc, raw: &RawFile) -> Result<Vec<String>, ConfigError> {
    if raw.variant.is_empty() {
        return Err(doc
            .error(raw.suite.span(), "the suite has no variants")
            .help(
                "add a [[variant]] table with name, source and entry for each kernel \
                 (see docs/variants-toml.md)",
            ));
    }
    let mut names: Vec<(String, Range<usize>)> = Vec::new();
    for variant in &raw.variant {
        let Some(name) = &variant.get_ref().name else {
            return Err(doc
                .error(variant.span(), "this [[variant]] has no name")
                .help("add name = \"...\"; names are unique within the suite"));
        };
        if name.get_ref().trim().is_empty() {
            return Err(doc
                .error(name.span(), "a variant name cannot be empty")
                .help("name the variant after what it does, e.g. \"tiled\""));
        }
        if let Some((_, first)) = names.iter().find(|(n, _)| n == name.get_ref()) {
            let line = doc.text[..first.start].matches('\n').count() + 1;
            return Err(doc
                .error(
                    name.span(),
                    format!("variant name {:?} is used twice", name.get_ref()),
                )
                .help(format!(
                    "variant names must be unique: rename this one or the one on line {line}"
                )));
        }
        names.push((name.get_ref().clone(), name.span()));
    }
    Ok(names.into_iter().map(|(n, _)| n).collect())
}

/// "the variants are: a, b (did you mean "a"?)", nearest names first.
fn variants_help(word: &str, names: &[String]) -> String {
    let mut help = format!(
        "the variants are: {}",
        suggest::by_distance(word, names).join(", ")
    );
    if let Some(best) = suggest::closest(word, names) {
        help.push_str(&format!(" (did you mean {best:?}?)"));
    }
    help
}

fn check_baseline(
    doc: &Doc,
    baseline: &Spanned<String>,
    names: &[String],
) -> Result<(), ConfigError> {
    if names.contains(baseline.get_ref()) {
        return Ok(());
    }
    Err(doc
        .error(
            baseline.span(),
            format!("baseline {:?} is not a variant", baseline.get_ref()),
        )
        .help(variants_help(baseline.get_ref(), names)))
}

/// A variant resolved, plus the spans the checks across variants point at.
struct Resolved {
    variant: Variant,
    header: Range<usize>,
    /// Where `verify` was written, if it was.
    verify_span: Option<Range<usize>>,
    outputs: Vec<OutputSpans>,
}

struct OutputSpans {
    name: String,
    name_span: Range<usize>,
    element_span: Range<usize>,
    count_span: Range<usize>,
}

/// Everything a variant is resolved against.
struct Context<'a> {
    doc: &'a Doc<'a>,
    sizes: &'a [Size],
    names: &'a [String],
    baseline: &'a str,
    defaults: Option<&'a RawVariant>,
}

/// A key's value from the variant, else from `[defaults]`.
struct Merged<'a, T> {
    value: &'a T,
    inherited: bool,
}

fn merged<'a, T>(
    variant: &'a RawVariant,
    defaults: Option<&'a RawVariant>,
    field: impl Fn(&'a RawVariant) -> &'a Option<T>,
) -> Option<Merged<'a, T>> {
    if let Some(value) = field(variant) {
        return Some(Merged {
            value,
            inherited: false,
        });
    }
    defaults
        .and_then(|d| field(d).as_ref())
        .map(|value| Merged {
            value,
            inherited: true,
        })
}

/// Matching launches a command variant profiles by default.
const DEFAULT_LAUNCHES: u32 = 5;

/// `{N}` in a command's arguments becomes the size's value of N.
fn fill_placeholders(
    doc: &Doc<'_>,
    argv: &[Spanned<String>],
    size: &Size,
) -> Result<Vec<String>, ConfigError> {
    argv.iter()
        .map(|arg| {
            let text = arg.get_ref();
            let mut filled = String::new();
            let mut rest = text.as_str();
            while let Some(open) = rest.find('{') {
                filled.push_str(&rest[..open]);
                let Some(close) = rest[open..].find('}') else {
                    return Err(doc
                        .error(
                            arg.span(),
                            format!("`{text}` opens a placeholder with {{ but never closes it"),
                        )
                        .help("write {N} for a size symbol"));
                };
                let symbol = &rest[open + 1..open + close];
                match size.symbols.get(symbol) {
                    Some(value) => filled.push_str(&value.to_string()),
                    None => {
                        let known: Vec<&str> = size.symbols.keys().map(String::as_str).collect();
                        return Err(doc
                            .error(arg.span(), format!("`{{{symbol}}}` is not a size symbol"))
                            .help(format!(
                                "the symbols at {} are: {}",
                                size.label,
                                known.join(", ")
                            )));
                    }
                }
                rest = &rest[open + close + 1..];
            }
            filled.push_str(rest);
            Ok(filled)
        })
        .collect()
}

/// A GEMM call needs two f32 inputs A (m×k) and B (k×n) and an f32
/// output C (m×n), the first of each in the argument list.
fn check_gemm_buffers(
    doc: &Doc<'_>,
    span: Range<usize>,
    name: &str,
    instances: &[Instance],
) -> Result<(), ConfigError> {
    for instance in instances {
        let [m, n, k] = instance.gemm.map(|g| g.map(u64::from)).unwrap_or([0; 3]);
        let floats: Vec<&crate::config::plan::Buffer> = instance
            .args
            .iter()
            .filter_map(|a| match a {
                Arg::Buffer(b)
                    if b.element == crate::config::plan::ElementType::F32 && b.symbol.is_none() =>
                {
                    Some(b)
                }
                _ => None,
            })
            .collect();
        let inputs: Vec<_> = floats.iter().copied().filter(|b| !b.output).collect();
        let output = floats.iter().copied().find(|b| b.output);
        let (Some(a), Some(b), Some(c)) = (inputs.first(), inputs.get(1), output) else {
            return Err(doc
                .error(
                    span,
                    format!("variant `{name}` calls cublas-sgemm but lacks its buffers"),
                )
                .help(
                    "give it two f32 input buffers (A, B) and one f32 output buffer (C) in `args`",
                ));
        };
        for (buffer, want, shape) in [(*a, m * k, "m×k"), (*b, k * n, "k×n"), (c, m * n, "m×n")]
        {
            if buffer.count != want {
                return Err(doc
                    .error(
                        span.clone(),
                        format!(
                            "buffer `{}` holds {} elements at {}, but cublas-sgemm needs {shape} = {want}",
                            buffer.name, buffer.count, instance.size
                        ),
                    )
                    .help("A is m×k, B is k×n and C is m×n, row-major: check m, n and k against the buffer counts"));
            }
        }
    }
    Ok(())
}

impl Context<'_> {
    fn variant(
        &self,
        spanned: &Spanned<RawVariant>,
        name: &str,
        kernels: &mut HashMap<PathBuf, Kernels>,
    ) -> Result<Resolved, ConfigError> {
        let doc = self.doc;
        let raw = spanned.get_ref();
        let header = spanned.span();
        let d = self.defaults;
        let missing = |key: &str, example: &str| {
            doc.error(header.clone(), format!("variant `{name}` has no `{key}`"))
                .help(format!(
                    "add {example} to this [[variant]] or to [defaults]"
                ))
        };
        let command = merged(raw, d, |r| &r.command);
        if let Some(command) = &command {
            for (key, given) in [
                ("source", raw.source.as_ref().map(|v| v.span())),
                ("entry", raw.entry.as_ref().map(|v| v.span())),
                ("library", raw.library.as_ref().map(|v| v.span())),
                ("verify", raw.verify.as_ref().map(|v| v.span())),
            ] {
                if let Some(span) = given {
                    return Err(doc
                        .error(span, format!("variant `{name}` runs a command, so it takes no `{key}`"))
                        .help(format!(
                            "remove `{key}`, or remove `command` to run a kernel (line {}); a command's outputs are its own, so it is not verified",
                            doc.text[..command.value.span().start].matches('\n').count() + 1
                        )));
                }
            }
        }
        let library = merged(raw, d, |r| &r.library).filter(|_| command.is_none());
        if let Some(library) = &library {
            for (key, given) in [
                ("source", raw.source.as_ref().map(|v| v.span())),
                ("entry", raw.entry.as_ref().map(|v| v.span())),
            ] {
                if let Some(span) = given {
                    return Err(doc
                        .error(
                            span,
                            format!("variant `{name}` calls a library, so it takes no `{key}`"),
                        )
                        .help(format!(
                            "remove `{key}`, or remove `library` to run a kernel (line {})",
                            doc.text[..library.value.span().start].matches('\n').count() + 1
                        )));
                }
            }
        }
        let (source_path, entry_name, library_kind) = match (&library, &command) {
            (_, Some(_)) => {
                let kernel = merged(raw, d, |r| &r.kernel).ok_or_else(|| {
                    missing("kernel", "kernel = \"transpose\" (a regular expression ncu matches against kernel names)")
                })?;
                if let Err(e) = regex::Regex::new(kernel.value.get_ref()) {
                    let reason = crate::config::error::regex_reason(&e);
                    return Err(doc
                        .error(kernel.value.span(), format!("`kernel` is not a regular expression: {reason}"))
                        .help("write a regular expression matching the kernel's name, e.g. \"transpose_naive\" or \"^sgemm\""));
                }
                (PathBuf::new(), kernel.value.get_ref().clone(), None)
            }
            (Some(library), None) => {
                let routine = &library.value.get_ref().routine;
                let kind = match routine.get_ref().as_str() {
                    "cublas-sgemm" => Library::CublasSgemm,
                    other => {
                        return Err(doc
                            .error(routine.span(), format!("unknown library routine {other:?}"))
                            .help("the routines gpuprof can call: \"cublas-sgemm\" (cuBLAS SGEMM, FP32, no tensor cores)"));
                    }
                };
                (PathBuf::new(), kind.word().to_string(), Some(kind))
            }
            (None, None) => {
                let source = merged(raw, d, |r| &r.source).ok_or_else(|| {
                    missing(
                        "source",
                        "source = \"kernels/<file>.cu\" (relative to this file's folder)",
                    )
                })?;
                let entry = merged(raw, d, |r| &r.entry).ok_or_else(|| {
                    missing(
                        "entry",
                        "entry = \"<kernel>\" (an extern \"C\" __global__ function)",
                    )
                })?;
                let source_path = self.source(source.value, kernels, entry.value)?;
                (source_path, entry.value.get_ref().clone(), None)
            }
        };
        let runs_kernel = library.is_none() && command.is_none();
        let grid = merged(raw, d, |r| &r.grid);
        let block = merged(raw, d, |r| &r.block);
        if runs_kernel {
            grid.as_ref().ok_or_else(|| {
                missing("grid", "grid = [\"cdiv(N, 256)\"] (blocks per dimension)")
            })?;
            block
                .as_ref()
                .ok_or_else(|| missing("block", "block = [256] (threads per dimension)"))?;
        }
        let args = match merged(raw, d, |r| &r.args) {
            // A command's buffers are its own.
            _ if command.is_some() => None,
            Some(args) => Some(args),
            None => {
                return Err(missing(
                    "args",
                    "args = [...] listing the kernel's parameters in order (args = [] for none)",
                ));
            }
        };

        let role = match merged(raw, d, |r| &r.role) {
            None => Role::Step,
            Some(role) => match role.value.get_ref().as_str() {
                "step" => Role::Step,
                "ceiling" => Role::Ceiling,
                other => {
                    return Err(doc
                        .error(role.value.span(), format!("unknown role {other:?}"))
                        .help(
                            "write \"step\" (a step of the optimization chain, the default) or \
                             \"ceiling\" (a reference shown beside the chain, e.g. a plain copy)",
                        ));
                }
            },
        };
        let changes = self.changes(raw)?;
        let (verify, verify_span) = match &command {
            Some(_) => (Verify::Skip, None),
            None => self.verify(raw, name)?,
        };
        let tolerance = self.tolerance(raw)?;

        let scope = |key: &str, inherited: bool| {
            let origin = if inherited {
                " (set in [defaults])"
            } else {
                ""
            };
            format!("{key} of variant `{name}`{origin}")
        };
        let grid_exprs = match &grid {
            Some(grid) if runs_kernel => self.geometry(grid, "grid", &scope)?,
            _ => Vec::new(),
        };
        let block_exprs = match &block {
            Some(block) if runs_kernel => self.geometry(block, "block", &scope)?,
            _ => Vec::new(),
        };
        let gemm_exprs = match &library {
            Some(library) => {
                let call = library.value.get_ref();
                let what = |key: &str| format!("library `{key}` of variant `{name}`");
                Some([
                    self.compile(&call.m, what("m"))?,
                    self.compile(&call.n, what("n"))?,
                    self.compile(&call.k, what("k"))?,
                ])
            }
            None => None,
        };
        let shared = match merged(raw, d, |r| &r.shared_bytes) {
            Some(m) => Some(self.compile(m.value, scope("shared_bytes", m.inherited))?),
            None => None,
        };
        let bytes = match merged(raw, d, |r| &r.bytes) {
            Some(m) => Some(self.compile(m.value, scope("bytes", m.inherited))?),
            None => None,
        };
        let flops = match merged(raw, d, |r| &r.flops) {
            Some(m) => Some(self.compile(m.value, scope("flops", m.inherited))?),
            None => None,
        };
        let (arg_list, args_inherited) = match &args {
            Some(args) => (args.value.as_slice(), args.inherited),
            None => (&[][..], false),
        };
        let mut arg_specs: Vec<ArgSpec> = Vec::with_capacity(arg_list.len());
        for arg in arg_list {
            let spec = self.arg(arg, &|what: &str| scope(what, args_inherited))?;
            if let Some(first) = arg_specs.iter().find(|a| a.name() == spec.name()) {
                return Err(doc
                    .error(
                        arg.get_ref().name.span(),
                        format!(
                            "argument `{}` is listed twice in variant `{name}`",
                            spec.name()
                        ),
                    )
                    .help(format!(
                        "kernel parameters need distinct names; the first `{}` is on line {}",
                        first.name(),
                        doc.text[..first.name_span().start].matches('\n').count() + 1
                    )));
            }
            arg_specs.push(spec);
        }

        let mut instances = Vec::with_capacity(self.sizes.len());
        for size in self.sizes {
            instances.push(Instance {
                size: size.label.clone(),
                grid: self.dims(&grid_exprs, size, grid_bounds)?,
                block: match &block {
                    Some(block) if runs_kernel => {
                        self.block(&block_exprs, block.value.span(), size)?
                    }
                    _ => [1, 1, 1],
                },
                command: match &command {
                    Some(command) => Some(fill_placeholders(doc, command.value.get_ref(), size)?),
                    None => None,
                },
                gemm: match &gemm_exprs {
                    Some(exprs) => Some(self.dims(exprs, size, |_| gemm_bounds())?),
                    None => None,
                },
                shared_bytes: match &shared {
                    Some(c) => self.whole(c, size, &shared_bytes_bounds())? as u32,
                    None => 0,
                },
                args: arg_specs
                    .iter()
                    .map(|a| self.instantiate(a, size))
                    .collect::<Result<_, _>>()?,
                bytes: self.amount(bytes.as_ref(), size)?,
                flops: self.amount(flops.as_ref(), size)?,
            });
        }
        if let Some(library) = &library {
            check_gemm_buffers(doc, library.value.span(), name, &instances)?;
        }
        let outputs = arg_specs
            .iter()
            .filter_map(|a| match a {
                ArgSpec::Buffer(b) if b.output => Some(OutputSpans {
                    name: b.name.clone(),
                    name_span: b.name_span.clone(),
                    element_span: b.element_span.clone(),
                    count_span: b.count.source.span(),
                }),
                _ => None,
            })
            .collect();
        Ok(Resolved {
            variant: Variant {
                name: name.to_string(),
                role,
                source: source_path,
                entry: entry_name,
                library: library_kind,
                command: match &command {
                    Some(_) => Some(CommandVariant {
                        build: merged(raw, d, |r| &r.build).map(|m| m.value.clone()),
                        kernel: merged(raw, d, |r| &r.kernel)
                            .map(|m| m.value.get_ref().clone())
                            .unwrap_or_default(),
                        launches: match merged(raw, d, |r| &r.launches) {
                            None => DEFAULT_LAUNCHES,
                            Some(m) => match u32::try_from(*m.value.get_ref()) {
                                Ok(n) if (1..=1000).contains(&n) => n,
                                _ => {
                                    return Err(doc
                                        .error(m.value.span(), format!("`launches` is {}, but must be 1 to 1000", m.value.get_ref()))
                                        .help("how many matching launches ncu profiles; their durations are the timing samples"));
                                }
                            },
                        },
                        folder: if doc.dir.as_os_str().is_empty() {
                            PathBuf::from(".")
                        } else {
                            doc.dir.to_path_buf()
                        },
                    }),
                    None => None,
                },
                compile_options: merged(raw, d, |r| &r.compile_options)
                    .map(|m| m.value.clone())
                    .unwrap_or_default(),
                changes,
                notes: merged(raw, d, |r| &r.notes)
                    .map(|m| m.value.clone())
                    .unwrap_or_default(),
                verify,
                tolerance,
                instances,
            },
            header,
            verify_span,
            outputs,
        })
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
                if let Some(at) = bytes.iter().position(|&b| b == 0) {
                    return Err(doc
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
                let text = String::from_utf8(bytes).map_err(|e| {
                    doc.error(
                        source.span(),
                        format!(
                            "kernel source {} is not UTF-8 (at byte {})",
                            shown.display(),
                            e.utf8_error().valid_up_to()
                        ),
                    )
                    .help("save the source as UTF-8")
                })?;
                slot.insert(kernels::scan(&text))
            }
        };
        let name = entry.get_ref();
        if found.extern_c.contains(name) {
            return Ok(path);
        }
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
        let error = doc.error(
            entry.span(),
            format!(
                "`{name}` is not an extern \"C\" kernel of {}",
                shown.display()
            ),
        );
        let error = if found.mangled.contains(name) {
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
        };
        Err(error)
    }

    fn changes(&self, raw: &RawVariant) -> Result<Vec<Change>, ConfigError> {
        let Some(words) = merged(raw, self.defaults, |r| &r.changes) else {
            return Ok(Vec::new());
        };
        let vocabulary: Vec<&str> = Change::ALL.iter().map(|c| c.word()).collect();
        let mut changes = Vec::with_capacity(words.value.len());
        for word in words.value {
            let Some(change) = Change::from_word(word.get_ref()) else {
                let best = suggest::nearest_always(word.get_ref(), &vocabulary).unwrap_or_default();
                return Err(self
                    .doc
                    .error(word.span(), format!("unknown change {:?}", word.get_ref()))
                    .help(format!(
                        "did you mean {best:?}? the vocabulary is: {}",
                        vocabulary.join(", ")
                    )));
            };
            if changes.contains(&change) {
                return Err(self
                    .doc
                    .error(
                        word.span(),
                        format!("change {:?} is listed twice", word.get_ref()),
                    )
                    .help("list each change once"));
            }
            changes.push(change);
        }
        Ok(changes)
    }

    fn verify(
        &self,
        raw: &RawVariant,
        name: &str,
    ) -> Result<(Verify, Option<Range<usize>>), ConfigError> {
        let is_baseline = name == self.baseline;
        let against_baseline = if is_baseline {
            Verify::Skip
        } else {
            Verify::Against(self.baseline.to_string())
        };
        let Some(verify) = merged(raw, self.defaults, |r| &r.verify) else {
            return Ok((against_baseline, None));
        };
        let span = verify.value.span();
        let target = verify.value.get_ref();
        let result = match target.as_str() {
            "baseline" => against_baseline,
            "none" => Verify::Skip,
            _ if target == name => {
                let origin = if verify.inherited {
                    " (the value comes from [defaults]: override it here)"
                } else {
                    ""
                };
                return Err(self
                    .doc
                    .error(span, format!("variant `{name}` verifies against itself"))
                    .help(format!(
                        "name another variant, or write verify = \"none\" to skip verification{origin}"
                    )));
            }
            _ if self.names.contains(target) => Verify::Against(target.clone()),
            _ => {
                return Err(self
                    .doc
                    .error(
                        span,
                        format!("verify names {target:?}, which is not a variant"),
                    )
                    .help(format!(
                        "write \"baseline\" (the default), \"none\", or a variant name; {}",
                        variants_help(target, self.names)
                    )));
            }
        };
        Ok((result, Some(span)))
    }

    fn tolerance(&self, raw: &RawVariant) -> Result<Tolerance, ConfigError> {
        let Some(tolerance) = merged(raw, self.defaults, |r| &r.tolerance) else {
            return Ok(Tolerance {
                rel: DEFAULT_REL,
                abs: DEFAULT_ABS,
            });
        };
        let check = |value: &Option<Spanned<f64>>, key: &str, default: f64| match value {
            None => Ok(default),
            Some(v) if v.get_ref().is_finite() && *v.get_ref() >= 0.0 => Ok(*v.get_ref()),
            Some(v) => Err(self
                .doc
                .error(
                    v.span(),
                    format!("tolerance {key} must be a finite number of 0 or more"),
                )
                .help(format!(
                    "an element fails when |got - want| > abs + rel * |want|; the defaults are \
                     rel = {DEFAULT_REL:e}, abs = {DEFAULT_ABS:e}"
                ))),
        };
        Ok(Tolerance {
            rel: check(&tolerance.value.rel, "rel", DEFAULT_REL)?,
            abs: check(&tolerance.value.abs, "abs", DEFAULT_ABS)?,
        })
    }

    /// Checks that `resolved`'s outputs can be compared with its reference's.
    fn check_outputs(&self, resolved: &Resolved, all: &[Resolved]) -> Result<(), ConfigError> {
        let Verify::Against(reference_name) = &resolved.variant.verify else {
            return Ok(());
        };
        let name = &resolved.variant.name;
        let doc = self.doc;
        let Some(reference) = all.iter().find(|r| &r.variant.name == reference_name) else {
            return Ok(());
        };
        if resolved.outputs.is_empty() {
            return Err(doc
                .error(
                    resolved
                        .verify_span
                        .clone()
                        .unwrap_or(resolved.header.clone()),
                    format!(
                        "variant `{name}` verifies against `{reference_name}` but has no outputs"
                    ),
                )
                .help(
                    "mark the buffers the kernel writes with output = true, or write \
                     verify = \"none\"",
                ));
        }
        for (index, size) in self.sizes.iter().enumerate() {
            let ours = &resolved.variant.instances[index];
            let theirs = &reference.variant.instances[index];
            for output in &resolved.outputs {
                let Some(Arg::Buffer(mine)) = ours.args.iter().find(|a| arg_name(a) == output.name)
                else {
                    continue;
                };
                let counterpart = theirs.args.iter().find_map(|a| match a {
                    Arg::Buffer(b) if b.name == output.name && b.output => Some(b),
                    _ => None,
                });
                let Some(other) = counterpart else {
                    let outputs: Vec<&str> = theirs
                        .args
                        .iter()
                        .filter_map(|a| match a {
                            Arg::Buffer(b) if b.output => Some(b.name.as_str()),
                            _ => None,
                        })
                        .collect();
                    let listed = if outputs.is_empty() {
                        format!("`{reference_name}` has no outputs")
                    } else {
                        format!(
                            "the outputs of `{reference_name}` are: {}",
                            outputs.join(", ")
                        )
                    };
                    return Err(doc
                        .error(
                            output.name_span.clone(),
                            format!(
                                "output `{}` of `{name}` has no counterpart in `{reference_name}`, \
                                 which it verifies against",
                                output.name
                            ),
                        )
                        .note(listed)
                        .help(
                            "verification pairs outputs by name: name them alike, or choose \
                             another verify (\"none\" skips verification)",
                        ));
                };
                if other.element != mine.element {
                    return Err(doc
                        .error(
                            output.element_span.clone(),
                            format!(
                                "output `{}` is {} in `{name}` but {} in `{reference_name}`, which \
                                 it verifies against",
                                output.name,
                                mine.element.name(),
                                other.element.name()
                            ),
                        )
                        .help("compared outputs must have the same element type"));
                }
                if mine.compare == Compare::Elementwise && other.count != mine.count {
                    return Err(doc
                        .error(
                            output.count_span.clone(),
                            format!(
                                "output `{}` has {} elements in `{name}` but {} in \
                                 `{reference_name}` (its reference) at {}",
                                output.name, mine.count, other.count, size.label
                            ),
                        )
                        .help(
                            "elementwise verification needs the same count: fix the count, use \
                             compare = \"sum\" if only the sums must agree, or verify = \"none\"",
                        ));
                }
            }
        }
        Ok(())
    }
}

fn arg_name(arg: &Arg) -> &str {
    match arg {
        Arg::Buffer(b) => &b.name,
        Arg::Scalar(s) => &s.name,
    }
}

/// Refuses verification chains that go round in a circle: then no variant
/// of the circle is checked against an independent result.
fn check_verify_cycles(doc: &Doc, resolved: &[Resolved]) -> Result<(), ConfigError> {
    let target = |name: &str| {
        resolved
            .iter()
            .position(|r| r.variant.name == name)
            .and_then(|i| match &resolved[i].variant.verify {
                Verify::Against(t) => resolved.iter().position(|r| &r.variant.name == t),
                Verify::Skip => None,
            })
    };
    for (start, variant) in resolved.iter().enumerate() {
        let mut chain = vec![start];
        let mut current = target(&variant.variant.name);
        while let Some(next) = current {
            if next == start {
                let names: Vec<&str> = chain
                    .iter()
                    .chain([&start])
                    .map(|&i| resolved[i].variant.name.as_str())
                    .collect();
                let (span, culprit) = chain
                    .iter()
                    .find_map(|&i| resolved[i].verify_span.clone().map(|s| (s, i)))
                    .unwrap_or((variant.header.clone(), start));
                return Err(doc
                    .error(
                        span,
                        format!("verification goes round in a circle: {}", names.join(" → ")),
                    )
                    .help(format!(
                        "one variant must be checked against an independent result: point \
                         `{}` at another variant, or write verify = \"none\" on the one you trust",
                        resolved[culprit].variant.name
                    )));
            }
            if chain.contains(&next) {
                break;
            }
            chain.push(next);
            current = target(&resolved[next].variant.name);
        }
    }
    Ok(())
}

#[cfg(test)]
pub(super) mod tests {
    //! Helpers shared by the tests of `resolve`, `values` and `args`, and the
    //! tests of the suite-level and cross-variant rules.

    use super::*;
    use crate::config::parse;

    /// Files "next to" the unit-test suites: their sources live in
    /// tests/configs/errors/kernels/.
    pub(crate) const PATH: &str = "tests/configs/errors/unit.toml";

    pub(crate) const GEOMETRY: &str = "grid = [\"cdiv(N, 256)\"]\nblock = [256]";

    pub(crate) const ARGS: &str = r#"args = [
  { name = "in",  buffer = "f32", count = "N", fill = "random" },
  { name = "out", buffer = "f32", count = "N", output = true },
  { name = "n",   scalar = "i32", value = "N" },
]"#;

    /// A suite at sizes 1024 and 4096 with baseline "plain": `suite` is added
    /// to [suite], `defaults` to [defaults] (which runs the `scale` kernel),
    /// and `variants` follows.
    pub(crate) fn suite(suite: &str, defaults: &str, variants: &str) -> String {
        format!(
            "[suite]\nname = \"unit\"\nsizes = [1024, 4096]\nbaseline = \"plain\"\n{suite}\n\n\
             [defaults]\nsource = \"kernels/scale.cu\"\nentry = \"scale\"\n{defaults}\n\n\
             {variants}\n"
        )
    }

    /// The standard suite with variant "plain" given `keys`.
    pub(crate) fn one_variant(keys: &str) -> String {
        suite(
            "",
            &format!("{GEOMETRY}\n{ARGS}"),
            &format!("[[variant]]\nname = \"plain\"\n{keys}"),
        )
    }

    /// The standard suite with variant "plain" taking `args` (lines of inline tables).
    pub(crate) fn with_args(args: &str) -> String {
        one_variant(&format!("args = [\n{args}\n]"))
    }

    pub(crate) fn ok(text: &str) -> Plan {
        match parse(text, Path::new(PATH)) {
            Ok(plan) => plan,
            Err(e) => panic!("{e}\n--- in\n{text}"),
        }
    }

    pub(crate) fn err(text: &str) -> ConfigError {
        match parse(text, Path::new(PATH)) {
            Ok(plan) => panic!("resolved to {plan:?}\n--- from\n{text}"),
            Err(e) => e,
        }
    }

    /// Asserts that `text` fails with `message`, pointing at the first
    /// occurrence of `needle`, or where `»` stands in it.
    #[track_caller]
    pub(crate) fn fails(text: &str, message: &str, needle: &str) -> ConfigError {
        let e = err(text);
        assert_eq!(e.message(), message, "\n{e}");
        let (before, _) = needle.split_once('»').unwrap_or(("", needle));
        let offset = text
            .find(&needle.replace('»', ""))
            .unwrap_or_else(|| panic!("{needle:?} not in\n{text}"))
            + before.len();
        let line = text[..offset].matches('\n').count() + 1;
        let column = text[..offset]
            .rsplit('\n')
            .next()
            .unwrap_or("")
            .chars()
            .count()
            + 1;
        assert_eq!((e.line(), e.column()), (Some(line), Some(column)), "\n{e}");
        e
    }

    fn help(e: &ConfigError) -> String {
        e.to_string()
            .lines()
            .find_map(|l| l.trim_start().strip_prefix("= help: ").map(str::to_string))
            .unwrap_or_default()
    }

    #[test]
    fn suite_defaults() {
        let plan = ok(&one_variant(""));
        assert_eq!(plan.suite.description, "");
        assert_eq!(plan.suite.seed, 1234);
        assert_eq!(
            plan.timing,
            Timing {
                warmup: 3,
                repetitions: 20
            }
        );
        assert_eq!(plan.profile.clock_control, ClockControl::None);
        assert!(plan.suite.config_path.is_absolute());
        assert!(plan.suite.config_path.ends_with(PATH));
    }

    #[test]
    fn defaults_fill_in_keys_and_a_variant_key_replaces_the_default_wholesale() {
        let defaults = format!(
            "{GEOMETRY}\n{ARGS}\ntolerance = {{ rel = 1e-3, abs = 1e-4 }}\nnotes = \"shared\"\n\
             compile_options = [\"-lineinfo\"]"
        );
        let variants = r#"[[variant]]
name = "plain"

[[variant]]
name = "other"
tolerance = { abs = 0.5 }
compile_options = []
block = [128]
args = [{ name = "out", buffer = "f32", count = "N", output = true }]
"#;
        let plan = ok(&suite("", &defaults, variants));
        let plain = plan.variant("plain").unwrap();
        assert_eq!(plain.notes, "shared");
        assert_eq!(plain.compile_options, ["-lineinfo"]);
        assert_eq!(
            plain.tolerance,
            Tolerance {
                rel: 1e-3,
                abs: 1e-4
            }
        );
        assert_eq!(plain.instances[0].args.len(), 3);
        assert_eq!(plain.instances[0].block, [256, 1, 1]);
        let other = plan.variant("other").unwrap();
        assert_eq!(other.notes, "shared");
        assert!(other.compile_options.is_empty());
        assert_eq!(
            other.tolerance,
            Tolerance {
                rel: 1e-5,
                abs: 0.5
            },
            "tolerance is replaced, not merged with the default"
        );
        assert_eq!(other.instances[0].args.len(), 1, "args are not merged");
        assert_eq!(other.instances[0].block, [128, 1, 1]);
        assert_eq!(
            other.instances[1].grid,
            [16, 1, 1],
            "grid still from [defaults]"
        );
    }

    #[test]
    fn defaults_cannot_name_a_variant() {
        let text = suite(
            "",
            &format!("name = \"x\"\n{GEOMETRY}\n{ARGS}"),
            "[[variant]]\nname = \"plain\"",
        );
        fails(&text, "[defaults] cannot set `name`", "\"x\"");
    }

    #[test]
    fn size_labels_bind_n_or_the_table_keys_in_file_order() {
        let text = one_variant(
            r#"grid = [1]
args = [{ name = "out", buffer = "f32", count = "C", output = true }]"#,
        )
        .replace(
            "sizes = [1024, 4096]",
            "sizes = [64, { K = 2, M = 3 }, { M = 1, K = 9 }]\nconstants = { C = 5, A = 1 }",
        );
        let plan = ok(&text);
        let labels: Vec<&str> = plan.suite.sizes.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["N=64", "K=2, M=3", "M=1, K=9"]);
        let first: Vec<(&str, i64)> = plan.suite.sizes[0]
            .symbols
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        assert_eq!(first, [("A", 1), ("C", 5), ("N", 64)]);
        assert_eq!(plan.suite.sizes[2].symbols["K"], 9);
        let sizes: Vec<&str> = plan.variants[0]
            .instances
            .iter()
            .map(|i| i.size.as_str())
            .collect();
        assert_eq!(sizes, labels);
    }

    #[test]
    fn size_rules() {
        let with_sizes = |sizes: &str| one_variant("").replace("sizes = [1024, 4096]", sizes);
        fails(&with_sizes("sizes = []"), "the suite has no sizes", "[]");
        fails(
            &with_sizes("sizes = [64, { N = 64 }]"),
            "size N=64 is listed twice",
            "{ N = 64 }",
        );
        let e = fails(
            &with_sizes("sizes = [{ M = 1, N = 2 }, { N = 2, M = 1 }]"),
            "size N=2, M=1 is listed twice",
            "{ N = 2, M = 1 }",
        );
        assert_eq!(
            help(&e),
            "it binds the same symbols as size M=1, N=2: remove one of them"
        );
        fails(
            &with_sizes("sizes = [64, {}]"),
            "this size binds no symbols",
            "{}",
        );
        fails(
            &with_sizes("sizes = [{ tile-size = 4 }]"),
            "size symbol `tile-size` is not a name expressions can use",
            "tile-size",
        );
        fails(
            &with_sizes("sizes = [64]\nconstants = { TILE = 4, N = 2 }"),
            "constant `N` has the same name as a size symbol",
            "N = 2",
        );
        fails(
            &with_sizes("sizes = [64]\nconstants = { \"2x\" = 4 }"),
            "constant `2x` is not a name expressions can use",
            "\"2x\"",
        );
    }

    #[test]
    fn suite_rules() {
        let named = |name: &str| one_variant("").replace("name = \"unit\"", name);
        assert_eq!(ok(&named("name = \"My_suite-2\"")).suite.name, "My_suite-2");
        let e = fails(
            &named("name = \"a.b\""),
            "suite name \"a.b\" may only contain letters, digits, '-' and '_'",
            "\"a.b\"",
        );
        assert!(help(&e).ends_with("e.g. \"a-b\""));
        fails(&named("name = \"\""), "the suite name is empty", "\"\"");
        assert_eq!(
            ok(&format!("version = 1\n{}", one_variant("")))
                .variants
                .len(),
            1
        );
        fails(
            &format!("version = 2\n{}", one_variant("")),
            "unknown version 2",
            "version = »2",
        );
        let with = |line: &str| {
            one_variant("").replace(
                "baseline = \"plain\"",
                &format!("baseline = \"plain\"\n{line}"),
            )
        };
        fails(
            &with("repetitions = 0"),
            "repetitions must be at least 1",
            "repetitions = »0",
        );
        let plan = ok(&with(
            "repetitions = 1\nwarmup = 0\nseed = 99\ndescription = \"d\"",
        ));
        assert_eq!(
            (plan.timing.repetitions, plan.timing.warmup, plan.suite.seed),
            (1, 0, 99)
        );
        assert_eq!(plan.suite.description, "d");
        let profile =
            |value: &str| format!("[profile]\nclock_control = {value}\n\n{}", one_variant(""));
        assert_eq!(
            ok(&profile("\"base\"")).profile.clock_control,
            ClockControl::Base
        );
        assert_eq!(
            ok(&profile("\"none\"")).profile.clock_control,
            ClockControl::None
        );
        fails(
            &profile("\"locked\""),
            "unknown clock_control \"locked\"",
            "\"locked\"",
        );
    }

    #[test]
    fn variant_name_rules() {
        let text = suite("", &format!("{GEOMETRY}\n{ARGS}"), "");
        fails(&text, "the suite has no variants", "[suite]");
        let text = suite(
            "",
            &format!("{GEOMETRY}\n{ARGS}"),
            "[[variant]]\nnotes = \"x\"",
        );
        fails(&text, "this [[variant]] has no name", "[[variant]]");
        let text = suite(
            "",
            &format!("{GEOMETRY}\n{ARGS}"),
            "[[variant]]\nname = \" \"",
        );
        fails(&text, "a variant name cannot be empty", "\" \"");
        let text = suite(
            "",
            &format!("{GEOMETRY}\n{ARGS}"),
            "[[variant]]\nname = \"plain\"\n\n[[variant]]\nname = \"Plain\"\n\n[[variant]]\nname = \"plain\" # again",
        );
        let e = fails(
            &text,
            "variant name \"plain\" is used twice",
            "\"plain\" # again",
        );
        let first = text[..text.find("name = \"plain\"").unwrap()]
            .matches('\n')
            .count()
            + 1;
        assert!(
            help(&e).ends_with(&format!("the one on line {first}")),
            "{e}"
        );
    }

    #[test]
    fn the_baseline_must_be_a_variant_and_the_help_lists_the_nearest_first() {
        let text = suite(
            "",
            &format!("{GEOMETRY}\n{ARGS}"),
            "[[variant]]\nname = \"copy\"\n\n[[variant]]\nname = \"plan\"\n\n[[variant]]\nname = \"tiled\"",
        );
        let e = fails(&text, "baseline \"plain\" is not a variant", "\"plain\"");
        assert_eq!(
            help(&e),
            "the variants are: plan, copy, tiled (did you mean \"plan\"?)"
        );
    }

    #[test]
    fn required_variant_keys() {
        for key in ["source", "entry", "grid", "block", "args"] {
            let defaults = format!("{GEOMETRY}\n{ARGS}")
                .lines()
                .filter(|l| !l.starts_with(key))
                .collect::<Vec<_>>()
                .join("\n");
            let defaults = if key == "args" {
                defaults
                    .lines()
                    .filter(|l| !l.starts_with("  {") && *l != "]")
                    .collect::<Vec<_>>()
                    .join("\n")
            } else {
                defaults
            };
            let text = suite("", &defaults, "[[variant]]\nname = \"plain\"")
                .replace(&format!("{key} = \"kernels/scale.cu\"\n"), "")
                .replace(&format!("{key} = \"scale\"\n"), "");
            fails(
                &text,
                &format!("variant `plain` has no `{key}`"),
                "[[variant]]",
            );
        }
    }

    #[test]
    fn sources_resolve_against_the_toml_folder_and_are_canonical() {
        let plan = ok(&one_variant("source = \"./kernels/../kernels/scale.cu\""));
        assert_eq!(
            plan.variants[0].source,
            fs::canonicalize("tests/configs/errors/kernels/scale.cu").unwrap()
        );
        let e = fails(
            &one_variant("source = \"kernels/none.cu\""),
            "cannot read kernel source tests/configs/errors/kernels/none.cu: No such file or \
             directory (os error 2)",
            "\"kernels/none.cu\"",
        );
        assert_eq!(
            help(&e),
            "`source` is relative to the folder of the variants.toml (tests/configs/errors)"
        );
        let e = err(&one_variant("source = \"kernels\""));
        assert!(
            e.message()
                .starts_with("cannot read kernel source tests/configs/errors/kernels:")
        );
        fails(
            &one_variant("source = \"kernels/binary.cu\""),
            "kernel source tests/configs/errors/kernels/binary.cu contains a NUL byte (at byte 68)",
            "\"kernels/binary.cu\"",
        );
    }

    #[test]
    fn a_source_that_is_not_utf8_is_an_error() {
        let folder = tempfile::tempdir().unwrap();
        fs::write(
            folder.path().join("k.cu"),
            b"extern \"C\" __global__ void k() {} \xff",
        )
        .unwrap();
        let text = one_variant("source = \"k.cu\"\nentry = \"k\"");
        let e = parse(&text, &folder.path().join("variants.toml")).unwrap_err();
        assert!(
            e.message().ends_with("k.cu is not UTF-8 (at byte 34)"),
            "{e}"
        );
    }

    #[test]
    fn entry_points_must_be_extern_c_kernels_of_the_source() {
        let e = fails(
            &one_variant("entry = \"scale_mangled\""),
            "`scale_mangled` is not an extern \"C\" kernel of tests/configs/errors/kernels/scale.cu",
            "\"scale_mangled\"",
        );
        let text = e.to_string();
        assert!(
            text.contains(
                "= note: `scale_mangled` is declared __global__ but without extern \"C\""
            )
        );
        assert!(help(&e).contains("NVRTC looks kernels up by unmangled name"));
        let e = err(&one_variant("entry = \"scal\""));
        assert!(
            e.to_string()
                .contains("defines the extern \"C\" kernels: scale\n"),
            "{e}"
        );
        assert!(
            help(&e).starts_with("did you mean `scale`? NVRTC looks kernels up by unmangled name")
        );
        let e = err(&one_variant(
            "source = \"kernels/helpers.cu\"\nentry = \"twice\"",
        ));
        assert!(
            e.to_string()
                .contains("= note: tests/configs/errors/kernels/helpers.cu defines no extern \"C\" __global__ function"),
            "{e}"
        );
    }

    #[test]
    fn roles() {
        assert_eq!(ok(&one_variant("")).variants[0].role, Role::Step);
        assert_eq!(
            ok(&one_variant("role = \"step\"")).variants[0].role,
            Role::Step
        );
        assert_eq!(
            ok(&one_variant("role = \"ceiling\"")).variants[0].role,
            Role::Ceiling
        );
        fails(
            &one_variant("role = \"Ceiling\""),
            "unknown role \"Ceiling\"",
            "\"Ceiling\"",
        );
    }

    #[test]
    fn changes_map_to_the_vocabulary_in_order() {
        let plan = ok(&one_variant(
            "changes = [\"work-per-thread\", \"alignment\", \"coalescing\"]",
        ));
        assert_eq!(
            plan.variants[0].changes,
            [Change::WorkPerThread, Change::Alignment, Change::Coalescing]
        );
        assert!(ok(&one_variant("")).variants[0].changes.is_empty());
        let e = fails(
            &one_variant("changes = [\"coalesing\"]"),
            "unknown change \"coalesing\"",
            "\"coalesing\"",
        );
        assert!(
            help(&e).starts_with("did you mean \"coalescing\"? the vocabulary is: coalescing, ")
        );
        assert!(help(&e).ends_with("work-per-thread, alignment"));
        let e = err(&one_variant("changes = [\"unrolling\"]"));
        assert!(
            help(&e).starts_with("did you mean \"loop-unrolling\"?"),
            "{e}"
        );
        fails(
            &one_variant("changes = [\"padding\", \"padding\"]"),
            "change \"padding\" is listed twice",
            "\"padding\"]",
        );
    }

    fn two(plain: &str, other: &str) -> String {
        suite(
            "",
            &format!("{GEOMETRY}\n{ARGS}"),
            &format!(
                "[[variant]]\nname = \"plain\"\n{plain}\n\n[[variant]]\nname = \"other\"\n{other}"
            ),
        )
    }

    #[test]
    fn verify_targets() {
        let plan = ok(&two("", ""));
        assert_eq!(plan.variants[0].verify, Verify::Skip, "the baseline itself");
        assert_eq!(plan.variants[1].verify, Verify::Against("plain".into()));
        let plan = ok(&two("verify = \"baseline\"", "verify = \"baseline\""));
        assert_eq!(plan.variants[0].verify, Verify::Skip);
        assert_eq!(plan.variants[1].verify, Verify::Against("plain".into()));
        let plan = ok(&two("verify = \"other\"", "verify = \"none\""));
        assert_eq!(plan.variants[0].verify, Verify::Against("other".into()));
        assert_eq!(plan.variants[1].verify, Verify::Skip);
        let e = fails(
            &two("", "verify = \"plian\""),
            "verify names \"plian\", which is not a variant",
            "\"plian\"",
        );
        assert!(help(&e).ends_with("the variants are: plain, other (did you mean \"plain\"?)"));
        fails(
            &two("", "verify = \"other\""),
            "variant `other` verifies against itself",
            "verify = »\"other\"",
        );
    }

    #[test]
    fn verifying_against_itself_through_defaults_says_where_the_value_comes_from() {
        let text = suite(
            "",
            &format!("{GEOMETRY}\n{ARGS}\nverify = \"plain\""),
            "[[variant]]\nname = \"plain\"",
        );
        let e = fails(
            &text,
            "variant `plain` verifies against itself",
            "verify = »\"plain\"",
        );
        assert!(help(&e).ends_with("(the value comes from [defaults]: override it here)"));
    }

    #[test]
    fn verification_cycles_are_refused() {
        let text = suite(
            "",
            &format!("{GEOMETRY}\n{ARGS}"),
            "[[variant]]\nname = \"plain\"\nverify = \"b\"\n\n[[variant]]\nname = \"a\"\n\n\
             [[variant]]\nname = \"b\"\nverify = \"c\"\n\n[[variant]]\nname = \"c\"\nverify = \"plain\"",
        );
        fails(
            &text,
            "verification goes round in a circle: plain → b → c → plain",
            "\"b\"",
        );
    }

    #[test]
    fn tolerances() {
        let t = |keys: &str| ok(&one_variant(keys)).variants[0].tolerance;
        assert_eq!(
            t(""),
            Tolerance {
                rel: 1e-5,
                abs: 1e-6
            }
        );
        assert_eq!(
            t("tolerance = { rel = 0.01 }"),
            Tolerance {
                rel: 0.01,
                abs: 1e-6
            }
        );
        assert_eq!(
            t("tolerance = { abs = 0 }"),
            Tolerance {
                rel: 1e-5,
                abs: 0.0
            }
        );
        fails(
            &one_variant("tolerance = { rel = -1e-3 }"),
            "tolerance rel must be a finite number of 0 or more",
            "-1e-3",
        );
        fails(
            &one_variant("tolerance = { abs = nan }"),
            "tolerance abs must be a finite number of 0 or more",
            "nan",
        );
    }

    fn reference_and(other_args: &str) -> String {
        two("", &format!("args = [\n{other_args}\n]"))
    }

    #[test]
    fn elementwise_outputs_must_match_the_reference_at_every_size() {
        let e = fails(
            &reference_and(
                r#"  { name = "in",  buffer = "f32", count = "N", fill = "random" },
  { name = "out", buffer = "f32", count = "min(N, 1024)", output = true },"#,
            ),
            "output `out` has 1024 elements in `other` but 4096 in `plain` (its reference) at N=4096",
            "\"min(N, 1024)\"",
        );
        assert!(help(&e).contains("compare = \"sum\""));
        fails(
            &reference_and(r#"  { name = "out", buffer = "u32", count = "N", output = true },"#),
            "output `out` is u32 in `other` but f32 in `plain`, which it verifies against",
            "\"u32\"",
        );
        let e = fails(
            &reference_and(r#"  { name = "result", buffer = "f32", count = "N", output = true },"#),
            "output `result` of `other` has no counterpart in `plain`, which it verifies against",
            "\"result\"",
        );
        assert!(
            e.to_string()
                .contains("= note: the outputs of `plain` are: out")
        );
        fails(
            &reference_and(r#"  { name = "in", buffer = "f32", count = "N", output = true },"#),
            "output `in` of `other` has no counterpart in `plain`, which it verifies against",
            "name = »\"in\", buffer = \"f32\", count = \"N\", output",
        );
        fails(
            &reference_and(r#"  { name = "in", buffer = "f32", count = "N", fill = 1 },"#),
            "variant `other` verifies against `plain` but has no outputs",
            "[[variant]]\nname = \"other\"",
        );
    }

    #[test]
    fn sum_compared_outputs_only_need_the_same_name_and_type() {
        let sum = |element: &str| {
            two(
                "args = [{ name = \"out\", buffer = \"f32\", count = \"N\", output = true, compare = \"sum\" }]",
                &format!(
                    "args = [{{ name = \"out\", buffer = \"{element}\", count = \"N / 4\", output = true, compare = \"sum\" }}]"
                ),
            )
        };
        let plan = ok(&sum("f32"));
        let Arg::Buffer(out) = &plan.variants[1].instances[0].args[0] else {
            panic!("not a buffer");
        };
        assert_eq!((out.count, out.compare), (256, Compare::Sum));
        fails(
            &sum("f64"),
            "output `out` is f64 in `other` but f32 in `plain`, which it verifies against",
            "\"f64\"",
        );
    }

    #[test]
    fn unverified_variants_need_no_matching_outputs() {
        let plan = ok(&two(
            "",
            "verify = \"none\"\nargs = [{ name = \"x\", buffer = \"f64\", count = 1, fill = 0 }]",
        ));
        assert_eq!(plan.variants[1].verify, Verify::Skip);
    }

    #[test]
    fn expression_errors_point_inside_the_string() {
        fails(
            &one_variant("grid = [\"N +* 2\"]"),
            "unexpected `*` in grid x of variant `plain`",
            "* 2",
        );
        fails(
            &one_variant("grid = ['N +* 2']"),
            "unexpected `*` in grid x of variant `plain`",
            "* 2",
        );
        fails(
            &one_variant("grid = [\"\"\"N +* 2\"\"\"]"),
            "unexpected `*` in grid x of variant `plain`",
            "* 2",
        );
        // With an escape the string's text differs from the file's: the
        // whole value is underlined instead.
        fails(
            &one_variant("grid = [\"N \\u002B* 2\"]"),
            "unexpected `*` in grid x of variant `plain`",
            "\"N \\u",
        );
    }

    #[test]
    fn unknown_symbols_say_the_size_only_when_another_size_binds_them() {
        let text = one_variant("grid = [\"M\"]\nargs = []")
            .replace("sizes = [1024, 4096]", "sizes = [{ M = 4, N = 8 }, 16]");
        let e = fails(
            &text,
            "unknown symbol `M` in grid x of variant `plain` at N=16",
            "M\"]",
        );
        assert_eq!(help(&e), "the symbols are: N");
        fails(
            &one_variant("grid = [\"Q\"]"),
            "unknown symbol `Q` in grid x of variant `plain`",
            "Q\"]",
        );
    }
}
