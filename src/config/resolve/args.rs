//! Kernel arguments: a buffer (`buffer = TYPE`, count, fill, output,
//! compare, symbol) or a scalar (`scalar = TYPE`, value), checked key by key
//! with the fill defaults of docs/variants-toml.md, then evaluated at each
//! size into plan [`Arg`]s.

use std::ops::Range;

use toml::Spanned;

use super::values::{Bounds, Compiled, below, fits, largest, type_bounds, type_requirement};
use super::{Context, is_identifier};
use crate::config::error::ConfigError;
use crate::config::plan::{Arg, Buffer, Compare, ElementType, Fill, Scalar, Size};
use crate::config::raw::{RawArg, RawFill};
use crate::config::suggest;

pub(super) const ELEMENT_TYPES: [(&str, ElementType); 6] = [
    ("f32", ElementType::F32),
    ("f64", ElementType::F64),
    ("i32", ElementType::I32),
    ("u32", ElementType::U32),
    ("i64", ElementType::I64),
    ("u64", ElementType::U64),
];

/// An argument checked and parsed, ready to evaluate at each size.
pub(super) enum ArgSpec<'a> {
    Buffer(BufferSpec<'a>),
    Scalar(ScalarSpec<'a>),
}

pub(super) struct BufferSpec<'a> {
    pub(super) name: String,
    pub(super) name_span: Range<usize>,
    pub(super) element: ElementType,
    pub(super) element_span: Range<usize>,
    pub(super) count: Compiled<'a>,
    pub(super) fill: Fill,
    pub(super) output: bool,
    pub(super) compare: Compare,
    pub(super) symbol: Option<String>,
}

pub(super) struct ScalarSpec<'a> {
    pub(super) name: String,
    pub(super) name_span: Range<usize>,
    pub(super) element: ElementType,
    pub(super) value: Compiled<'a>,
}

impl ArgSpec<'_> {
    pub(super) fn name(&self) -> &str {
        match self {
            ArgSpec::Buffer(b) => &b.name,
            ArgSpec::Scalar(s) => &s.name,
        }
    }

    pub(super) fn name_span(&self) -> Range<usize> {
        match self {
            ArgSpec::Buffer(b) => b.name_span.clone(),
            ArgSpec::Scalar(s) => s.name_span.clone(),
        }
    }
}

impl Context<'_> {
    pub(super) fn element(&self, value: &Spanned<String>) -> Result<ElementType, ConfigError> {
        let name = value.get_ref();
        if let Some((_, element)) = ELEMENT_TYPES.iter().find(|(n, _)| n == name) {
            return Ok(*element);
        }
        let names: Vec<&str> = ELEMENT_TYPES.iter().map(|(n, _)| *n).collect();
        let mut help = format!("write one of {}", names.join(", "));
        if let Some(best) = suggest::closest(name, &names) {
            help.push_str(&format!(" (did you mean {best:?}?)"));
        }
        Err(self
            .doc
            .error(value.span(), format!("unknown element type {name:?}"))
            .help(help))
    }

    pub(super) fn arg<'a>(
        &self,
        spanned: &'a Spanned<RawArg>,
        scope: &dyn Fn(&str) -> String,
    ) -> Result<ArgSpec<'a>, ConfigError> {
        let doc = self.doc;
        let arg = spanned.get_ref();
        let name = arg.name.get_ref();
        if name.trim().is_empty() {
            return Err(doc
                .error(arg.name.span(), "an argument name cannot be empty")
                .help("name it after the kernel parameter, e.g. name = \"in\""));
        }
        match (&arg.buffer, &arg.scalar) {
            (Some(_), Some(scalar)) => Err(doc
                .error(
                    scalar.span(),
                    format!("argument `{name}` is both a buffer and a scalar"),
                )
                .help("keep one of buffer = TYPE (with count) or scalar = TYPE (with value)")),
            (None, None) => Err(doc
                .error(
                    spanned.span(),
                    format!("argument `{name}` is neither a buffer nor a scalar"),
                )
                .help("add buffer = \"f32\" (with count) or scalar = \"i32\" (with value)")),
            (None, Some(scalar)) => {
                let element = self.element(scalar)?;
                let extra = [
                    ("count", arg.count.as_ref().map(Spanned::span)),
                    ("fill", arg.fill.as_ref().map(Spanned::span)),
                    ("range", arg.range.as_ref().map(Spanned::span)),
                    ("output", arg.output.as_ref().map(Spanned::span)),
                    ("compare", arg.compare.as_ref().map(Spanned::span)),
                    ("symbol", arg.symbol.as_ref().map(Spanned::span)),
                ];
                if let Some((key, Some(span))) = extra.into_iter().find(|(_, s)| s.is_some()) {
                    return Err(doc
                        .error(span, format!("scalar `{name}` cannot have `{key}`"))
                        .help(
                            "count, fill, range, output, compare and symbol belong to buffers: \
                             remove it, or make the argument a buffer",
                        ));
                }
                let value = arg.value.as_ref().ok_or_else(|| {
                    doc.error(spanned.span(), format!("scalar `{name}` has no `value`"))
                        .help("add value = \"N\" (a number or an expression)")
                })?;
                Ok(ArgSpec::Scalar(ScalarSpec {
                    name: name.clone(),
                    name_span: arg.name.span(),
                    element,
                    value: self.compile(value, scope(&format!("the value of scalar `{name}`")))?,
                }))
            }
            (Some(buffer), None) => self.buffer(spanned, buffer, scope),
        }
    }

    pub(super) fn buffer<'a>(
        &self,
        spanned: &'a Spanned<RawArg>,
        buffer: &Spanned<String>,
        scope: &dyn Fn(&str) -> String,
    ) -> Result<ArgSpec<'a>, ConfigError> {
        let doc = self.doc;
        let arg = spanned.get_ref();
        let name = arg.name.get_ref();
        let element = self.element(buffer)?;
        if let Some(value) = &arg.value {
            return Err(doc
                .error(value.span(), format!("buffer `{name}` cannot have `value`"))
                .help("a buffer takes count (in elements) and fill; value belongs to scalars"));
        }
        let count = arg.count.as_ref().ok_or_else(|| {
            doc.error(spanned.span(), format!("buffer `{name}` has no `count`"))
                .help("add count = \"N*N\" (the number of elements, an expression over the sizes)")
        })?;
        let output = arg.output.as_ref().is_some_and(|o| *o.get_ref());
        let fill = self.fill(spanned, element, output)?;
        let compare = match &arg.compare {
            None => Compare::Elementwise,
            Some(c) => match c.get_ref().as_str() {
                "elementwise" => Compare::Elementwise,
                "sum" if output => Compare::Sum,
                "sum" => {
                    return Err(doc
                        .error(
                            c.span(),
                            format!("compare = \"sum\" on `{name}`, which is not an output"),
                        )
                        .help(format!(
                            "only outputs are compared: set output = true if the kernel writes \
                             `{name}`, or remove compare"
                        )));
                }
                other => {
                    return Err(doc
                        .error(c.span(), format!("unknown compare {other:?}"))
                        .help(
                            "write \"elementwise\" (the default) or \"sum\" (only the sums must \
                             agree, for per-block partial results)",
                        ));
                }
            },
        };
        let symbol = match &arg.symbol {
            None => None,
            Some(s) if is_identifier(s.get_ref()) => Some(s.get_ref().clone()),
            Some(s) => {
                return Err(doc
                    .error(
                        s.span(),
                        format!("symbol {:?} is not a C identifier", s.get_ref()),
                    )
                    .help(
                        "name the module's __constant__ or __device__ variable, e.g. \
                         symbol = \"c_filter\"",
                    ));
            }
        };
        Ok(ArgSpec::Buffer(BufferSpec {
            name: name.clone(),
            name_span: arg.name.span(),
            element,
            element_span: buffer.span(),
            count: self.compile(count, scope(&format!("the count of buffer `{name}`")))?,
            fill,
            output,
            compare,
            symbol,
        }))
    }

    pub(super) fn fill(
        &self,
        spanned: &Spanned<RawArg>,
        element: ElementType,
        output: bool,
    ) -> Result<Fill, ConfigError> {
        let doc = self.doc;
        let arg = spanned.get_ref();
        let name = arg.name.get_ref();
        let range_only_random = |span: Range<usize>| {
            doc.error(span, format!("`range` of buffer `{name}` needs fill = \"random\""))
                .help("range = [low, high] sets the bounds of random contents: add fill = \"random\" or remove range")
        };
        let Some(fill) = &arg.fill else {
            if let Some(range) = &arg.range {
                return Err(range_only_random(range.span()));
            }
            if output {
                return Ok(Fill::Poison);
            }
            return Err(doc
                .error(
                    spanned.span(),
                    format!("input buffer `{name}` has no `fill`"),
                )
                .help(
                    "give one: fill = \"random\" (uniform in [-1, 1) for floats, [0, 100) for \
                     integers), fill = \"zeros\" or fill = <number>; or set output = true if \
                     the kernel writes it",
                ));
        };
        match fill.get_ref() {
            RawFill::Random => {
                let Some(range) = &arg.range else {
                    return Ok(if element.is_float() {
                        Fill::Random {
                            low: -1.0,
                            high: 1.0,
                        }
                    } else {
                        Fill::Random {
                            low: 0.0,
                            high: 100.0,
                        }
                    });
                };
                let bad = |message: String| {
                    doc.error(range.span(), message).help(format!(
                        "write range = [low, high] with low < high, each {}",
                        type_requirement(element)
                    ))
                };
                let &[low, high] = range.get_ref().as_slice() else {
                    return Err(bad(format!(
                        "`range` takes two numbers, not {}",
                        range.get_ref().len()
                    )));
                };
                // Integer contents are [low, high) rounded down, so `high` may
                // be one past the largest value.
                let upper = if element.is_float() { high } else { high - 1.0 };
                if !(fits(element, low.floor()) && fits(element, upper.floor())) {
                    return Err(bad(format!(
                        "range [{low}, {high}] does not fit buffer `{name}` of type {}",
                        element.name()
                    )));
                }
                if low >= high {
                    return Err(bad(format!(
                        "range [{low}, {high}] is empty: low must be below high"
                    )));
                }
                Ok(Fill::Random { low, high })
            }
            RawFill::Zeros => match &arg.range {
                Some(range) => Err(range_only_random(range.span())),
                None => Ok(Fill::Constant { value: 0.0 }),
            },
            RawFill::Number(value) => {
                if let Some(range) = &arg.range {
                    return Err(range_only_random(range.span()));
                }
                if !fits(element, *value) {
                    return Err(doc
                        .error(
                            fill.span(),
                            format!(
                                "fill {value} does not fit buffer `{name}` of type {}",
                                element.name()
                            ),
                        )
                        .help(format!("write {}", type_requirement(element))));
                }
                Ok(Fill::Constant { value: *value })
            }
        }
    }

    pub(super) fn instantiate(&self, spec: &ArgSpec, size: &Size) -> Result<Arg, ConfigError> {
        match spec {
            ArgSpec::Buffer(b) => {
                let bounds = Bounds {
                    min: 1.0,
                    max: below(2f64.powi(64)),
                    max_text: format!("{} (the largest u64)", u64::MAX),
                    help: "a buffer's count is its number of elements".into(),
                };
                Ok(Arg::Buffer(Buffer {
                    name: b.name.clone(),
                    element: b.element,
                    count: self.whole(&b.count, size, &bounds)? as u64,
                    fill: b.fill,
                    output: b.output,
                    compare: b.compare,
                    symbol: b.symbol.clone(),
                }))
            }
            ArgSpec::Scalar(s) => {
                let value = if s.element.is_float() {
                    let v = self.eval(&s.value, size)?;
                    if !fits(s.element, v) {
                        return Err(self
                            .doc
                            .error(
                                s.value.source.span(),
                                format!(
                                    "{} is {v}{}, too large for an {}",
                                    s.value.what,
                                    s.value.at(size),
                                    s.element.name()
                                ),
                            )
                            .help(format!("write {}", type_requirement(s.element))));
                    }
                    v
                } else {
                    let (min, max) = type_bounds(s.element);
                    let name = s.element.name();
                    let bounds = Bounds {
                        min,
                        max,
                        max_text: format!("{} (the largest {name})", largest(s.element)),
                        help: format!(
                            "the value must fit the scalar's type {name}: change the type or the \
                             value"
                        ),
                    };
                    self.whole(&s.value, size, &bounds)?
                };
                Ok(Arg::Scalar(Scalar {
                    name: s.name.clone(),
                    element: s.element,
                    value,
                }))
            }
        }
    }
}
