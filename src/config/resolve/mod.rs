//! Raw file → [`Plan`]: `[defaults]` merged into each variant (a key the
//! variant sets replaces the default wholesale), source paths resolved
//! against the toml's folder and canonicalized, entry points looked up in the
//! sources, sizes and constants bound, names, roles, changes, verification
//! targets and tolerances checked, and the checks across variants (cycles of
//! `verify`, outputs that match their reference's). The first problem found
//! is returned as a [`ConfigError`] pointing at the value responsible.
//!
//! This file owns the entry point [`resolve`] and what the steps share: the
//! file errors point into (`Doc`), what a variant is resolved against
//! (`Context`) and a key merged from `[defaults]` (`Merged`). The steps
//! live beside it: `suite` (the `[suite]` table, sizes, names, `[defaults]`
//! and `[profile]`), `variant` (one `[[variant]]`), with `source` (a
//! kernel's source and entry point), `library` (library calls) and
//! `command` (the user's own programs), `sweep` (a variant's parameter
//! sweep, expanded into one variant per configuration), `values` (number-or-expression
//! values) and `args` (kernel arguments), and `checks` (the checks across
//! variants).

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::ops::Range;
use std::path::Path;

mod args;
mod checks;
mod command;
mod compile;
mod library;
mod parameters;
mod sequence;
mod source;
mod suite;
mod sweep;
mod values;
mod variant;

pub(crate) use values::{BLOCK_LIMITS, MAX_BLOCK_THREADS, fits};

use checks::check_verify_cycles;
use suite::{
    check_baseline, check_suite_name, check_version, clock_control, defaults, lines_at, sizes,
    timing, variant_names,
};
use sweep::{check_sweep_references, sweep_profiling};

use super::error::ConfigError;
use super::plan::{Plan, ProfileSettings, Suite, Variant};
use super::raw::{RawFile, RawVariant};
use crate::model::suite::Size;
use crate::model::variant::Role;

const DEFAULT_SEED: u64 = 1234;

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
    check_version(&doc, raw)?;
    let suite = raw.suite.get_ref();
    check_suite_name(&doc, &suite.name)?;
    let sizes = sizes(&doc, suite)?;
    let timing = timing(&doc, suite)?;
    let clock_control = clock_control(&doc, raw)?;
    let lines_at = lines_at(&doc, raw, &sizes)?;
    let defaults = defaults(&doc, raw)?;
    let names = variant_names(&doc, raw)?;
    check_baseline(&doc, &suite.baseline, &names)?;
    let host_codes = compile::HostCodes::default();
    let context = Context {
        doc: &doc,
        sizes: &sizes,
        names: &names,
        baseline: suite.baseline.get_ref(),
        defaults,
        host_codes: &host_codes,
    };
    let constants: BTreeMap<String, i64> = suite
        .constants
        .iter()
        .flat_map(|c| &c.entries)
        .map(|(key, value)| (key.get_ref().clone(), *value.get_ref()))
        .collect();
    let mut kernels = HashMap::new();
    let mut resolved = Vec::with_capacity(raw.variant.len());
    let mut sweeps = Vec::new();
    for (variant, name) in raw.variant.iter().zip(&names) {
        match context.sweep(variant.get_ref(), name, &constants)? {
            Some(expansion) => {
                resolved.extend(context.configurations(variant, &expansion, &mut kernels)?);
                sweeps.push(expansion.record);
            }
            None => resolved.push(context.variant(variant, name, &mut kernels)?),
        }
    }
    check_sweep_references(&doc, &suite.baseline, &resolved, &sweeps)?;
    check_verify_cycles(&doc, &resolved)?;
    if let Some(ceiling) = resolved
        .iter()
        .find(|r| r.variant.name == *suite.baseline.get_ref() && r.variant.role == Role::Ceiling)
    {
        return Err(doc
            .error(suite.baseline.span(), format!("the baseline `{}` is a ceiling", ceiling.variant.name))
            .help("speedups are measured against a step of the chain: name the first step as baseline; a ceiling is shown beside the chain"));
    }
    for variant in &resolved {
        context.check_outputs(variant, &resolved)?;
        context.check_library_reads(variant, &resolved)?;
    }
    Ok(Plan {
        suite: Suite {
            name: suite.name.get_ref().clone(),
            description: match &suite.description {
                Some(description) => context.plain_text(description, "description", true)?,
                None => String::new(),
            },
            config_path: fs::canonicalize(path)
                .or_else(|_| std::path::absolute(path))
                .unwrap_or_else(|_| path.to_path_buf()),
            sizes,
            baseline: suite.baseline.get_ref().clone(),
            seed: suite.seed.unwrap_or(DEFAULT_SEED),
        },
        timing,
        profile: ProfileSettings {
            clock_control,
            lines_at,
            sweeps: sweep_profiling(&doc, raw)?,
        },
        variants: resolved.into_iter().map(|r| r.variant).collect(),
        sweeps,
    })
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
    /// What each source's headers hold that NVRTC cannot compile, looked
    /// for once per source and include folders (many variants, and every
    /// point of a sweep, share a file).
    host_codes: &'a compile::HostCodes,
}

/// A key's value from the variant, else from `[defaults]`.
struct Merged<'a, T> {
    value: &'a T,
    inherited: bool,
}

impl Context<'_> {
    /// Free text the reports and the terminal show: any characters but
    /// control characters (a terminal would obey them), except line breaks
    /// and tabs where `lines` allows them.
    fn plain_text(
        &self,
        text: &toml::Spanned<String>,
        key: &str,
        lines: bool,
    ) -> Result<String, ConfigError> {
        let allowed = |c: char| lines && (c == '\n' || c == '\t');
        match text.get_ref().chars().find(|&c| c.is_control() && !allowed(c)) {
            Some(control) => Err(self
                .doc
                .error(text.span(), format!("`{key}` holds the control character {control:?}"))
                .help("the text is shown in the terminal and the reports: use visible characters, line breaks and tabs only")),
            None => Ok(text.get_ref().clone()),
        }
    }
}

/// The keys that describe a kernel, where the variant itself gives them
/// (a library call or a command refuses each): `source`, `entry`,
/// `compiler`, `defines` and `include_dirs`.
fn kernel_keys(raw: &RawVariant) -> [(&'static str, Option<Range<usize>>); 6] {
    [
        ("source", raw.source.as_ref().map(|v| v.span())),
        ("entry", raw.entry.as_ref().map(|v| v.span())),
        ("compiler", raw.compiler.as_ref().map(|v| v.span())),
        ("device_only", raw.device_only.as_ref().map(|v| v.span())),
        ("defines", raw.defines.as_ref().map(|v| v.span())),
        (
            "include_dirs",
            raw.include_dirs
                .as_ref()
                .and_then(|v| v.first())
                .map(|v| v.span()),
        ),
    ]
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

#[cfg(test)]
pub(super) mod tests;
