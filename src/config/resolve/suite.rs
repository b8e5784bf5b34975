//! The suite-level parts of the file: its `version`, the `[suite]` table's
//! name, sizes (each binding its symbols and the constants) and timing
//! settings (repetitions, target spread, time limit), `[profile]`'s clock control, `[defaults]`, and the
//! variants' names with the baseline among them; plus the rule for names
//! that expressions can use.

use std::collections::BTreeMap;
use std::ops::Range;

use toml::Spanned;

use super::Doc;
use crate::config::error::ConfigError;
pub(super) use crate::config::kernels::is_identifier;
use crate::config::plan::{ClockControl, LinesAt};
use crate::config::raw::{RawFile, RawSize, RawSuite, RawVariant};
use crate::config::suggest;
use crate::model::suite::{Size, Timing};

const DEFAULT_REPETITIONS: u32 = 20;

/// Refuses a `version` other than 1.
pub(super) fn check_version(doc: &Doc, raw: &RawFile) -> Result<(), ConfigError> {
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
    Ok(())
}

/// The most timed launches per variant and size: a million launches of
/// the shortest kernel already take seconds, and each sample is kept.
const MAX_REPETITIONS: u32 = 1_000_000;

const DEFAULT_WARMUP: u32 = 3;

/// Sample until the relative spread of the cold and of the hot samples is
/// at most this (nvbench stops at 0.5%; 1% is reached on most kernels
/// within the time limit).
const DEFAULT_TARGET_SPREAD: f64 = 0.01;

/// The smallest and largest target spread: below 0.1% clock jitter alone
/// keeps most kernels from stopping before the time limit; above 50% the
/// median means little.
const TARGET_SPREAD_RANGE: (f64, f64) = (0.001, 0.5);

/// Seconds of sampling per variant and size.
const DEFAULT_TIME_LIMIT_S: f64 = 1.0;

/// The longest time limit: ten minutes per variant and size.
const MAX_TIME_LIMIT_S: f64 = 600.0;

/// The `[suite]` table's timing keys, checked.
pub(super) fn timing(doc: &Doc, suite: &RawSuite) -> Result<Timing, ConfigError> {
    let target_spread = match &suite.target_spread {
        Some(t) => {
            let (low, high) = TARGET_SPREAD_RANGE;
            let value = *t.get_ref();
            if !(low..=high).contains(&value) {
                return Err(doc
                    .error(t.span(), format!("target_spread = {value} is outside {low}–{high}"))
                    .help(format!(
                        "it is the relative spread (robust standard deviation over the median) at which sampling stops: 0.01 is 1% (default {DEFAULT_TARGET_SPREAD})"
                    )));
            }
            value
        }
        None => DEFAULT_TARGET_SPREAD,
    };
    let time_limit_s = match &suite.time_limit {
        Some(t) => {
            let value = *t.get_ref();
            if !(value > 0.0 && value <= MAX_TIME_LIMIT_S) {
                return Err(doc
                    .error(t.span(), format!("time_limit = {value} is not between 0 and {MAX_TIME_LIMIT_S} seconds"))
                    .help(format!(
                        "it is the most seconds of sampling per variant and size, cold and hot together (default {DEFAULT_TIME_LIMIT_S})"
                    )));
            }
            value
        }
        None => DEFAULT_TIME_LIMIT_S,
    };
    Ok(Timing {
        warmup: suite.warmup.unwrap_or(DEFAULT_WARMUP),
        repetitions: repetitions(doc, suite)?,
        target_spread: Some(target_spread),
        time_limit_s: Some(time_limit_s),
    })
}

/// The fewest samples of each kind per variant and size: at least 1, at
/// most a million.
fn repetitions(doc: &Doc, suite: &RawSuite) -> Result<u32, ConfigError> {
    match &suite.repetitions {
        Some(r) if *r.get_ref() == 0 => Err(doc
            .error(r.span(), "repetitions must be at least 1")
            .help(format!(
                "it is the fewest cold and the fewest hot samples per variant and size (default {DEFAULT_REPETITIONS})"
            ))),
        Some(r) if *r.get_ref() > MAX_REPETITIONS => Err(doc
            .error(r.span(), format!("repetitions = {} is more than gpuprof times ({MAX_REPETITIONS})", r.get_ref()))
            .help(format!(
                "every sample is kept in results.json: a few dozen (default {DEFAULT_REPETITIONS}) give a stable median"
            ))),
        Some(r) => Ok(*r.get_ref()),
        None => Ok(DEFAULT_REPETITIONS),
    }
}

/// The `[defaults]` table, which may set every key of a variant but its name.
pub(super) fn defaults<'a>(
    doc: &Doc,
    raw: &'a RawFile,
) -> Result<Option<&'a RawVariant>, ConfigError> {
    match &raw.defaults {
        Some(defaults) => {
            if let Some(name) = &defaults.get_ref().name {
                return Err(doc
                    .error(name.span(), "[defaults] cannot set `name`")
                    .help("every [[variant]] names itself: move `name` into a [[variant]]"));
            }
            let sweep_keys = [
                ("sweep", defaults.get_ref().sweep.as_ref().map(|s| s.span())),
                (
                    "constraint",
                    defaults.get_ref().constraint.as_ref().map(|c| c.span()),
                ),
            ];
            if let Some((key, Some(span))) = sweep_keys.into_iter().find(|(_, s)| s.is_some()) {
                return Err(doc
                    .error(span, format!("[defaults] cannot set `{key}`"))
                    .help("a sweep belongs to one variant: move it into that [[variant]]"));
            }
            Ok(Some(defaults.get_ref()))
        }
        None => Ok(None),
    }
}

pub(super) fn check_suite_name(doc: &Doc, name: &Spanned<String>) -> Result<(), ConfigError> {
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
pub(super) fn sizes(doc: &Doc, suite: &RawSuite) -> Result<Vec<Size>, ConfigError> {
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

pub(super) fn clock_control(doc: &Doc, raw: &RawFile) -> Result<ClockControl, ConfigError> {
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

/// `[profile] lines_at`: "auto" (default), "every", or one of the sizes,
/// by its label (`N=1024`) or, for a label of one symbol, its value.
pub(super) fn lines_at(doc: &Doc, raw: &RawFile, sizes: &[Size]) -> Result<LinesAt, ConfigError> {
    let Some(value) = raw.profile.as_ref().and_then(|p| p.lines_at.as_ref()) else {
        return Ok(LinesAt::Auto);
    };
    let written = value.get_ref().trim();
    match written {
        "auto" => return Ok(LinesAt::Auto),
        "every" => return Ok(LinesAt::Every),
        _ => {}
    }
    // A label of one symbol (`N=2048`; constants are left out of it) may
    // be named by its value.
    let by_value = |size: &Size| {
        !size.label.contains(',')
            && size
                .label
                .split_once('=')
                .is_some_and(|(_, value)| value.trim() == written)
    };
    let unspaced = |label: &str| label.replace(' ', "");
    match sizes
        .iter()
        .find(|size| unspaced(&size.label) == unspaced(written) || by_value(size))
    {
        Some(size) => Ok(LinesAt::Size(size.label.clone())),
        None => Err(doc
            .error(value.span(), format!("lines_at {written:?} is not one of the suite's sizes"))
            .help(format!(
                "write \"auto\" (the default: gpuprof picks one size, the largest whose per-line counters are cheap), \"every\", or one of: {}",
                sizes
                    .iter()
                    .map(|s| format!("\"{}\"", s.label))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
    }
}

/// The variants' names in file order, checked to be present, non-empty and unique.
pub(super) fn variant_names(doc: &Doc, raw: &RawFile) -> Result<Vec<String>, ConfigError> {
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
        if let Some(control) = name.get_ref().chars().find(|c| c.is_control()) {
            return Err(doc
                .error(
                    name.span(),
                    format!(
                        "variant name {:?} holds the control character {control:?}",
                        name.get_ref()
                    ),
                )
                .help(
                    "a name is shown in the terminal and the reports: use visible characters only",
                ));
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
pub(super) fn variants_help(word: &str, names: &[String]) -> String {
    let mut help = format!(
        "the variants are: {}",
        suggest::by_distance(word, names).join(", ")
    );
    if let Some(best) = suggest::closest(word, names) {
        help.push_str(&format!(" (did you mean {best:?}?)"));
    }
    help
}

pub(super) fn check_baseline(
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
