//! Raw file → [`Plan`]: `[defaults]` merged into each variant (a key the
//! variant sets replaces the default wholesale), source paths resolved
//! against the toml's folder and canonicalized, entry points looked up in the
//! sources, sizes and constants bound, names, roles, changes, verification
//! targets and tolerances checked, and the checks across variants (cycles of
//! `verify`, outputs that match their reference's). Number-or-expression
//! values live in `values`, kernel arguments in `args`. The first problem
//! found is returned as a [`ConfigError`] pointing at the value responsible.
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::Spanned;

mod args;
mod values;

use args::ArgSpec;
use values::{grid_bounds, shared_bytes_bounds};

use super::change::Change;
use super::error::ConfigError;
use super::kernels::{self, Kernels};
use super::plan::{
    Arg, ClockControl, Compare, Instance, Plan, ProfileSettings, Role, Size, Suite, Timing,
    Tolerance, Variant, Verify,
};
use super::raw::{RawFile, RawSize, RawSuite, RawVariant};
use super::suggest;

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
    if !text.is_empty() && text.chars().all(valid) {
        return Ok(());
    }
    let fixed: String = text
        .trim()
        .chars()
        .map(|c| if valid(c) { c } else { '-' })
        .collect();
    let help = if fixed.is_empty() {
        "it names the output folder: use letters, digits, '-' and '_', e.g. \"transpose\""
            .to_string()
    } else {
        format!("it names the output folder: use letters, digits, '-' and '_', e.g. \"{fixed}\"")
    };
    Err(doc
        .error(
            name.span(),
            format!("suite name {text:?} may only contain letters, digits, '-' and '_'"),
        )
        .help(help))
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
    for (symbols, span) in own {
        let label = symbols
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join(", ");
        if sizes.iter().any(|s| s.label == label) {
            return Err(doc
                .error(span, format!("size {label} is listed twice"))
                .help("remove the repeated size"));
        }
        let mut bound: BTreeMap<String, i64> = symbols.into_iter().collect();
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
        let grid = merged(raw, d, |r| &r.grid)
            .ok_or_else(|| missing("grid", "grid = [\"cdiv(N, 256)\"] (blocks per dimension)"))?;
        let block = merged(raw, d, |r| &r.block)
            .ok_or_else(|| missing("block", "block = [256] (threads per dimension)"))?;
        let args = merged(raw, d, |r| &r.args).ok_or_else(|| {
            missing(
                "args",
                "args = [...] listing the kernel's parameters in order (args = [] for none)",
            )
        })?;

        let source_path = self.source(source.value, kernels, entry.value)?;
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
        let (verify, verify_span) = self.verify(raw, name)?;
        let tolerance = self.tolerance(raw)?;

        let scope = |key: &str, inherited: bool| {
            let origin = if inherited {
                " (set in [defaults])"
            } else {
                ""
            };
            format!("{key} of variant `{name}`{origin}")
        };
        let grid_exprs = self.geometry(&grid, "grid", &scope)?;
        let block_exprs = self.geometry(&block, "block", &scope)?;
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
        let mut arg_specs: Vec<ArgSpec> = Vec::with_capacity(args.value.len());
        for arg in args.value {
            let spec = self.arg(arg, &|what: &str| scope(what, args.inherited))?;
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
                block: self.block(&block_exprs, block.value.span(), size)?,
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
                entry: entry.value.get_ref().clone(),
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
        if !kernels.contains_key(&path) {
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
            kernels.insert(path.clone(), kernels::scan(&text));
        }
        let found = &kernels[&path];
        let name = entry.get_ref();
        if found.extern_c.contains(name) {
            return Ok(path);
        }
        let message = format!(
            "`{name}` is not an extern \"C\" kernel of {}",
            shown.display()
        );
        let error = doc.error(entry.span(), message);
        let error = if found.mangled.contains(name) {
            error
                .note(format!(
                    "`{name}` is declared __global__ but without extern \"C\""
                ))
                .help(format!(
                    "NVRTC looks kernels up by unmangled name, so the kernel must be extern \"C\": \
                     declare it as extern \"C\" __global__ void {name}(...)"
                ))
        } else {
            let note = if found.extern_c.is_empty() {
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
            let hint = match suggest::closest(name, &found.extern_c) {
                Some(best) => format!("did you mean `{best}`? "),
                None => String::new(),
            };
            error.note(note).help(format!(
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
