//! A variant with `sweep = { BM = [64, 128], TM = [4, 8] }`: its parameters
//! checked (identifiers, not size symbols or constants, non-empty lists of
//! distinct integers, at most [`MAX_CONFIGURATIONS`] combinations), its
//! `constraint` evaluated over every combination, and each combination it
//! keeps resolved as an ordinary variant named `group[BM=64,TM=4]`: the
//! parameters bound as symbols of every expression, `{NAME}` placeholders
//! of `entry` filled in, and the parameters passed as `-DNAME=value`
//! defines when the entry takes none of them as template arguments. Also
//! `[profile] sweeps` (which configurations are profiled), and the rule
//! that a sweep is neither the baseline nor a `verify` target (it is many
//! variants).

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::PathBuf;

use toml::Spanned;

use super::suite::is_identifier;
use super::{Context, Doc, Resolved};
use crate::config::error::ConfigError;
use crate::config::expr::{self, ExprError};
use crate::config::kernels::Kernels;
use crate::config::plan::{DEFAULT_BEST, DEFAULT_WORST, SweepProfiling, Verify};
use crate::config::raw::{RawFile, RawVariant, SweepTable};
use crate::model::suite::Size;
use crate::model::sweep::{SkippedConfiguration, Sweep, SweepPoint};

/// The most configurations one sweep may have.
pub(super) const MAX_CONFIGURATIONS: usize = 4096;

/// A sweep's kept configurations and its record.
pub(super) struct Expansion<'a> {
    table: &'a Spanned<SweepTable>,
    configurations: Vec<Vec<(String, i64)>>,
    /// Whether `entry` takes parameters as template arguments (then none
    /// is passed as a define).
    templated: bool,
    pub(super) record: Sweep,
}

impl<'c> Context<'c> {
    /// The configurations of `raw` (the variant `name`), or `None` when it
    /// declares no sweep.
    pub(super) fn sweep(
        &self,
        raw: &'c RawVariant,
        name: &str,
        constants: &BTreeMap<String, i64>,
    ) -> Result<Option<Expansion<'c>>, ConfigError> {
        let doc = self.doc;
        let Some(table) = &raw.sweep else {
            if let Some(constraint) = &raw.constraint {
                return Err(doc
                    .error(constraint.span(), format!("variant `{name}` has a `constraint` but no `sweep`"))
                    .help("a constraint rules out combinations of sweep parameters: add sweep = { BM = [64, 128] }, or remove it"));
            }
            return Ok(None);
        };
        let parameters = self.parameters(table, name)?;
        let count = parameters
            .iter()
            .fold(1usize, |n, (_, values)| n.saturating_mul(values.len()));
        if count > MAX_CONFIGURATIONS {
            return Err(doc
                .error(table.span(), format!("the sweep of variant `{name}` has {count} combinations, more than {MAX_CONFIGURATIONS}"))
                .help("each configuration is compiled and timed: sweep fewer values, or split the sweep into several variants"));
        }
        let templated = self.check_placeholders(raw, &parameters)?;
        let mut configurations = Vec::new();
        let mut skipped = Vec::new();
        for values in combinations(&parameters) {
            match self.ruled_out(raw, &values, constants)? {
                Some(reason) => skipped.push(SkippedConfiguration {
                    parameters: values,
                    reason,
                }),
                None => configurations.push(values),
            }
        }
        if configurations.is_empty() {
            let span = raw.constraint.as_ref().map_or(table.span(), |c| c.span());
            return Err(doc
                .error(span, format!("the constraint rules out every configuration of variant `{name}`"))
                .help(format!("the first, {}, is skipped because {}: loosen the constraint or sweep other values", skipped[0].parameters.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", "), skipped[0].reason)));
        }
        Ok(Some(Expansion {
            table,
            configurations,
            templated,
            record: Sweep {
                group: name.to_string(),
                parameters: parameters.into_iter().map(|(name, _)| name).collect(),
                skipped,
            },
        }))
    }

    /// Every configuration of `expansion` resolved as a variant.
    pub(super) fn configurations(
        &self,
        spanned: &Spanned<RawVariant>,
        expansion: &Expansion,
        kernels: &mut HashMap<PathBuf, Kernels>,
    ) -> Result<Vec<Resolved>, ConfigError> {
        let group = &expansion.record.group;
        let mut resolved = Vec::with_capacity(expansion.configurations.len());
        for values in &expansion.configurations {
            let point = SweepPoint {
                group: group.clone(),
                parameters: values.clone(),
            };
            let raw = Spanned::new(spanned.span(), self.configured(spanned.get_ref(), values));
            let sizes: Vec<Size> = self
                .sizes
                .iter()
                .map(|size| {
                    let mut size = size.clone();
                    size.symbols.extend(values.iter().cloned());
                    size
                })
                .collect();
            let context = Context {
                doc: self.doc,
                sizes: &sizes,
                names: self.names,
                baseline: self.baseline,
                defaults: self.defaults,
                host_codes: self.host_codes,
            };
            let mut one = context.variant(&raw, &point.variant_name(), kernels)?;
            if one.variant.kernel().is_none() {
                return Err(self
                    .doc
                    .error(expansion.table.span(), format!("variant `{group}` sweeps parameters but runs no kernel of its own"))
                    .help("a sweep compiles a kernel once per configuration: give the variant source and entry, or remove the sweep"));
            }
            if !expansion.templated {
                self.refuse_unreachable_defines(
                    &one,
                    raw.get_ref(),
                    expansion.table,
                    values,
                    kernels,
                )?;
                self.add_defines(&mut one, expansion.table, values)?;
            }
            one.variant.sweep = Some(point);
            resolved.push(one);
        }
        Ok(resolved)
    }

    /// The parameters in file order, each a non-empty list of distinct
    /// integers named by an identifier that no size or constant binds.
    fn parameters(
        &self,
        table: &Spanned<SweepTable>,
        name: &str,
    ) -> Result<Vec<(String, Vec<i64>)>, ConfigError> {
        let doc = self.doc;
        if table.get_ref().entries.is_empty() {
            return Err(doc
                .error(
                    table.span(),
                    format!("the sweep of variant `{name}` has no parameters"),
                )
                .help(
                    "name each parameter with its values: sweep = { BM = [64, 128], TM = [4, 8] }",
                ));
        }
        let bound: Vec<&String> = self.sizes[0].symbols.keys().collect();
        let mut parameters = Vec::new();
        for (key, values) in &table.get_ref().entries {
            let parameter = key.get_ref();
            if !is_identifier(parameter) {
                return Err(doc
                    .error(
                        key.span(),
                        format!("sweep parameter `{parameter}` is not a name expressions can use"),
                    )
                    .help("use letters, digits and '_', not starting with a digit, e.g. BLOCK_M"));
            }
            if bound.contains(&parameter) {
                return Err(doc
                    .error(
                        key.span(),
                        format!("sweep parameter `{parameter}` is also a size symbol or constant"),
                    )
                    .help(format!(
                        "a parameter is a symbol of its own: rename it; the suite binds {}",
                        bound
                            .iter()
                            .map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
            }
            if values.get_ref().is_empty() {
                return Err(doc
                    .error(
                        values.span(),
                        format!("sweep parameter `{parameter}` has no values"),
                    )
                    .help(format!(
                        "list the values to try, e.g. {parameter} = [64, 128]"
                    )));
            }
            let mut integers: Vec<i64> = Vec::with_capacity(values.get_ref().len());
            for value in values.get_ref() {
                let toml::Value::Integer(integer) = value.get_ref() else {
                    return Err(doc
                        .error(value.span(), format!("a value of sweep parameter `{parameter}` is not an integer"))
                        .help("parameters are template arguments, defines and symbols of expressions: list integers, e.g. [64, 128]"));
                };
                if integers.contains(integer) {
                    return Err(doc
                        .error(
                            value.span(),
                            format!("sweep parameter `{parameter}` lists {integer} twice"),
                        )
                        .help("list each value once"));
                }
                integers.push(*integer);
            }
            parameters.push((parameter.clone(), integers));
        }
        Ok(parameters)
    }

    /// Checks that every `{NAME}` of the entry (or of a sequence's entries)
    /// is a parameter; whether there is any.
    fn check_placeholders(
        &self,
        raw: &RawVariant,
        parameters: &[(String, Vec<i64>)],
    ) -> Result<bool, ConfigError> {
        let mut templated = false;
        for entry in self.entries(raw) {
            for (name, inner) in placeholders(entry.get_ref()) {
                if !parameters.iter().any(|(p, _)| *p == name) {
                    let span = self
                        .doc
                        .expression_span(entry.span(), entry.get_ref(), inner);
                    let names: Vec<&str> = parameters.iter().map(|(p, _)| p.as_str()).collect();
                    return Err(self
                        .doc
                        .error(
                            span,
                            format!("`{{{name}}}` in the entry is not a sweep parameter"),
                        )
                        .help(format!(
                            "the parameters are: {}; write one as {{NAME}}, e.g. \"sgemm<{{{}}}>\"",
                            names.join(", "),
                            names[0]
                        )));
                }
                templated = true;
            }
        }
        Ok(templated)
    }

    /// The entries a variant names: its steps' in a sequence, else `entry`
    /// (its own or from `[defaults]`).
    fn entries<'r>(&'r self, raw: &'r RawVariant) -> Vec<&'r Spanned<String>> {
        match &raw.sequence {
            Some(steps) => steps
                .get_ref()
                .iter()
                .flat_map(|s| s.get_ref().entries())
                .collect(),
            None => raw
                .entry
                .as_ref()
                .or(self.defaults.and_then(|d| d.entry.as_ref()))
                .into_iter()
                .collect(),
        }
    }

    /// Why the constraint rules out `values`, if it does.
    fn ruled_out(
        &self,
        raw: &RawVariant,
        values: &[(String, i64)],
        constants: &BTreeMap<String, i64>,
    ) -> Result<Option<String>, ConfigError> {
        let Some(constraint) = &raw.constraint else {
            return Ok(None);
        };
        let text = constraint.get_ref();
        let error = |e: ExprError| {
            let span = self
                .doc
                .expression_span(constraint.span(), text, e.span.clone());
            self.doc
                .error(span, format!("in the constraint: {}", e.message()))
                .help(e.help())
        };
        let condition = expr::parse_condition(text).map_err(error)?;
        let mut symbols = constants.clone();
        symbols.extend(values.iter().cloned());
        condition.failing(&symbols).map_err(error)
    }

    /// `raw` for one configuration: its entries' placeholders filled in,
    /// without the sweep.
    fn configured(&self, raw: &RawVariant, values: &[(String, i64)]) -> RawVariant {
        let fill = |entry: &Spanned<String>| {
            let mut text = entry.get_ref().clone();
            for (name, value) in values {
                text = text.replace(&format!("{{{name}}}"), &value.to_string());
            }
            Spanned::new(entry.span(), text)
        };
        let mut configured = raw.clone();
        configured.sweep = None;
        configured.constraint = None;
        match &mut configured.sequence {
            Some(steps) => {
                for step in steps.get_mut() {
                    for entry in step.get_mut().entries_mut() {
                        *entry = fill(entry);
                    }
                }
            }
            None => {
                configured.entry = self.entries(raw).first().map(|entry| fill(entry));
            }
        }
        configured
    }

    /// That every parameter passed as `-DNAME=value` reaches the code as
    /// a value: not one the source `#define`s itself outside an `#ifndef`
    /// (its own value would win, every configuration the same), nor the
    /// name of one of the kernel's parameters (the define would rename
    /// it: `int s` becomes `int 1`).
    fn refuse_unreachable_defines(
        &self,
        one: &Resolved,
        raw: &RawVariant,
        table: &Spanned<SweepTable>,
        values: &[(String, i64)],
        kernels: &HashMap<PathBuf, Kernels>,
    ) -> Result<(), ConfigError> {
        let Some(kernel) = one.variant.kernel() else {
            return Ok(());
        };
        let shown = self.shown_source(raw, &kernel.path);
        let Some(scanned) = kernels.get(&kernel.path) else {
            return Ok(());
        };
        let key_span = |name: &str| {
            table
                .get_ref()
                .entries
                .iter()
                .find(|(k, _)| k.get_ref() == name)
                .map_or(table.span(), |(k, _)| k.span())
        };
        for (name, _) in values {
            if let Some(line) = super::compile::defined_by_the_file(scanned, name) {
                return Err(self
                    .doc
                    .error(
                        key_span(name),
                        format!(
                            "sweep parameter `{name}` is passed as -D{name}=…, but {}:{line} defines {name} outside an #ifndef {name}, and its value would win in every configuration",
                            shown.display()
                        ),
                    )
                    .help(super::compile::overridden_help(name)));
            }
            let parameter = kernel.entries().iter().find_map(|entry| {
                let declared = scanned.find(entry)?;
                crate::config::signature::parameters(&declared.parameters, None, &[], &[])?
                    .into_iter()
                    .find(|p| p.name().as_deref() == Some(name.as_str()))
            });
            if let Some(parameter) = parameter {
                return Err(self
                    .doc
                    .error(
                        key_span(name),
                        format!(
                            "sweep parameter `{name}` is passed as -D{name}=…, which would rename the kernel's parameter `{}`",
                            parameter.written
                        ),
                    )
                    .help(format!(
                        "give the sweep parameter a name the code does not use (macros are usually in capitals: {}), and pass it to the kernel as a scalar with value = \"{}\"",
                        name.to_uppercase(),
                        name.to_uppercase()
                    )));
            }
        }
        Ok(())
    }

    /// The parameters added to every instance's defines, in name order.
    fn add_defines(
        &self,
        resolved: &mut Resolved,
        table: &Spanned<SweepTable>,
        values: &[(String, i64)],
    ) -> Result<(), ConfigError> {
        for instance in &mut resolved.variant.instances {
            for (name, value) in values {
                if instance.defines.iter().any(|(d, _)| d == name) {
                    let key = table
                        .get_ref()
                        .entries
                        .iter()
                        .find(|(k, _)| k.get_ref() == name);
                    return Err(self
                        .doc
                        .error(key.map_or(table.span(), |(k, _)| k.span()), format!("sweep parameter `{name}` is also in `defines`"))
                        .help("a parameter is passed as a define of its own: remove it from `defines`"));
                }
                instance.defines.push((name.clone(), *value));
            }
            instance.defines.sort();
        }
        Ok(())
    }
}

/// Every combination of the parameters' values, the last parameter varying
/// fastest.
fn combinations(parameters: &[(String, Vec<i64>)]) -> Vec<Vec<(String, i64)>> {
    parameters
        .iter()
        .fold(vec![Vec::new()], |partial, (name, values)| {
            partial
                .iter()
                .flat_map(|prefix| {
                    values.iter().map(move |value| {
                        let mut next = prefix.clone();
                        next.push((name.clone(), *value));
                        next
                    })
                })
                .collect()
        })
}

/// The `{NAME}` placeholders of `entry` (or `{expression}`s), each with the
/// range of the whole placeholder, braces included.
pub(super) fn placeholders(entry: &str) -> Vec<(String, Range<usize>)> {
    let mut found = Vec::new();
    let mut rest = 0;
    while let Some(open) = entry[rest..].find('{').map(|i| rest + i) {
        let Some(close) = entry[open..].find('}').map(|i| open + i) else {
            break;
        };
        found.push((entry[open + 1..close].to_string(), open..close + 1));
        rest = close + 1;
    }
    found
}

/// `[profile] sweeps`: `"all"` or `{ best = 3, worst = 1 }` (the default).
pub(super) fn sweep_profiling(doc: &Doc, raw: &RawFile) -> Result<SweepProfiling, ConfigError> {
    let Some(value) = raw.profile.as_ref().and_then(|p| p.sweeps.as_ref()) else {
        return Ok(SweepProfiling::default());
    };
    let wrong = || {
        doc.error(value.span(), "`sweeps` is neither \"all\" nor { best = …, worst = … }")
            .help("profile every configuration with sweeps = \"all\", or the fastest and slowest with sweeps = { best = 3, worst = 1 } (the default)")
    };
    match value.get_ref() {
        toml::Value::String(text) if text == "all" => Ok(SweepProfiling::All),
        toml::Value::Table(table) => {
            let count = |key: &str, default: u32| match table.get(key) {
                None => Ok(default),
                Some(toml::Value::Integer(n)) => u32::try_from(*n).map_err(|_| wrong()),
                Some(_) => Err(wrong()),
            };
            if table.keys().any(|k| k != "best" && k != "worst") {
                return Err(wrong());
            }
            Ok(SweepProfiling::Extremes {
                best: count("best", DEFAULT_BEST)?,
                worst: count("worst", DEFAULT_WORST)?,
            })
        }
        _ => Err(wrong()),
    }
}

/// Refuses a sweep named as the baseline or as a variant's `verify` target.
pub(super) fn check_sweep_references(
    doc: &Doc,
    baseline: &Spanned<String>,
    resolved: &[Resolved],
    sweeps: &[Sweep],
) -> Result<(), ConfigError> {
    let is_sweep = |name: &str| sweeps.iter().any(|s| s.group == name);
    if is_sweep(baseline.get_ref()) {
        return Err(doc
            .error(baseline.span(), format!("the baseline `{}` is a sweep", baseline.get_ref()))
            .help("speedups are measured against one variant: make a variant without a sweep the baseline"));
    }
    for one in resolved {
        if let (Verify::Against(target), Some(span)) = (&one.variant.verify, &one.verify_span)
            && is_sweep(target)
        {
            return Err(doc
                .error(
                    span.clone(),
                    format!("verify names the sweep `{target}`, which is many variants"),
                )
                .help(
                    "verify against a variant without a sweep, e.g. \"baseline\" (the default)",
                ));
        }
    }
    Ok(())
}
