//! Kernel arguments: a buffer (`buffer = TYPE`, count, fill, output,
//! compare, symbol) or a scalar (`scalar = TYPE`, value), checked key by key
//! with the fill defaults of docs/variants-toml.md, then evaluated at each
//! size into plan [`Arg`]s.

use std::ops::Range;

use toml::Spanned;

use super::Context;
use super::suite::is_identifier;
use super::values::{Bounds, Compiled, fits, largest, show, type_bounds, type_requirement};
use crate::config::error::ConfigError;
use crate::config::plan::{Arg, Buffer, Compare, ElementType, Fill, Scalar};
use crate::config::raw::{RawArg, RawFill};
use crate::config::suggest;
use crate::model::suite::Size;

/// C and CUDA spellings of the element types, for the help of a type
/// written as the kernel declares it (`buffer = "half"`).
const C_SPELLINGS: [(&str, ElementType); 30] = [
    ("half", ElementType::F16),
    ("__half", ElementType::F16),
    ("float16", ElementType::F16),
    ("fp16", ElementType::F16),
    ("__nv_bfloat16", ElementType::Bf16),
    ("nv_bfloat16", ElementType::Bf16),
    ("bfloat16", ElementType::Bf16),
    ("float", ElementType::F32),
    ("double", ElementType::F64),
    ("char", ElementType::I8),
    ("signed char", ElementType::I8),
    ("int8_t", ElementType::I8),
    ("unsigned char", ElementType::U8),
    ("uint8_t", ElementType::U8),
    ("uchar", ElementType::U8),
    ("byte", ElementType::U8),
    ("short", ElementType::I16),
    ("int16_t", ElementType::I16),
    ("unsigned short", ElementType::U16),
    ("uint16_t", ElementType::U16),
    ("int", ElementType::I32),
    ("int32_t", ElementType::I32),
    ("unsigned", ElementType::U32),
    ("unsigned int", ElementType::U32),
    ("uint32_t", ElementType::U32),
    ("long", ElementType::I64),
    ("long long", ElementType::I64),
    ("int64_t", ElementType::I64),
    ("uint64_t", ElementType::U64),
    ("size_t", ElementType::U64),
];

/// The element type a C spelling names (`const __half *` → f16).
fn from_c(written: &str) -> Option<ElementType> {
    let words: Vec<&str> = written
        .split(|c: char| c.is_whitespace() || c == '*')
        .filter(|w| !w.is_empty() && *w != "const")
        .map(|w| w.strip_prefix("std::").unwrap_or(w))
        .collect();
    let spelling = words.join(" ");
    C_SPELLINGS
        .iter()
        .find(|(c, _)| c.eq_ignore_ascii_case(&spelling))
        .map(|&(_, element)| element)
}

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
    fn element(&self, value: &Spanned<String>) -> Result<ElementType, ConfigError> {
        let name = value.get_ref();
        if let Some(element) = ElementType::ALL.into_iter().find(|e| e.name() == name) {
            return Ok(element);
        }
        let names: Vec<&str> = ElementType::ALL.iter().map(|e| e.name()).collect();
        let mut help = format!("write one of {}", names.join(", "));
        if let Some(element) = from_c(name) {
            help.push_str(&format!(" (did you mean {:?}?)", element.name()));
        } else if let Some(best) = suggest::closest(name, &names) {
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
        if let Some(offset) = &arg.offset {
            return Err(doc
                .error(offset.span(), format!("argument `{name}` cannot have `offset` here"))
                .help("`offset` passes a variant's buffer from an element on, in a step of a `sequence`: { name = \"data\", offset = \"256\" }"));
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

    fn buffer<'a>(
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

    fn fill(
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
            RawFill::Random => self.random_fill(arg, element),
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
                                "fill {} does not fit buffer `{name}` of type {}",
                                show(*value),
                                element.name()
                            ),
                        )
                        .help(format!("write {}", type_requirement(element))));
                }
                Ok(Fill::Constant { value: *value })
            }
        }
    }

    /// Random contents: uniform in `range` when given (which must fit the
    /// element type and not be empty), else in [-1, 1) for floats (f16 and
    /// bf16 too) and [0, 100) for integers (which fits every integer type,
    /// i8 and u8 included).
    fn random_fill(&self, arg: &RawArg, element: ElementType) -> Result<Fill, ConfigError> {
        let name = arg.name.get_ref();
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
            self.doc.error(range.span(), message).help(format!(
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
                "range [{}, {}] does not fit buffer `{name}` of type {}",
                show(low),
                show(high),
                element.name()
            )));
        }
        if low >= high {
            return Err(bad(format!(
                "range [{}, {}] is empty: low must be below high",
                show(low),
                show(high)
            )));
        }
        Ok(Fill::Random { low, high })
    }

    pub(super) fn instantiate(&self, spec: &ArgSpec, size: &Size) -> Result<Arg, ConfigError> {
        match spec {
            ArgSpec::Buffer(b) => {
                // 2^50 bytes (1 PiB): more than any GPU holds, and exact in
                // f64 and u64 arithmetic; the device's own memory is
                // checked once it is known.
                let most = (1u64 << 50) / b.element.size_bytes() as u64;
                let bounds = Bounds {
                    min: 1.0,
                    max: most as f64,
                    max_text: format!(
                        "{most} (1 PiB of {}, more than any GPU holds)",
                        b.element.name()
                    ),
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
                                    "{} is {}{}, too large for {}",
                                    s.value.what,
                                    show(v),
                                    s.value.at(size),
                                    s.element.with_article()
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

#[cfg(test)]
mod tests {
    use crate::config::plan::{Arg, Buffer, Compare, ElementType, Fill, Scalar};
    use crate::config::resolve::tests::{fails, help, ok, with_args};

    /// The first instance's args of variant "plain" with `args`.
    fn args(lines: &str) -> Vec<Arg> {
        ok(&with_args(lines)).variants[0].instances[0].args.clone()
    }

    fn buffer(line: &str) -> Buffer {
        match args(line).remove(0) {
            Arg::Buffer(b) => b,
            Arg::Scalar(s) => panic!("{s:?}"),
        }
    }

    fn scalar(line: &str) -> Scalar {
        match args(line).remove(0) {
            Arg::Scalar(s) => s,
            Arg::Buffer(b) => panic!("{b:?}"),
        }
    }

    fn fill(line: &str) -> Fill {
        buffer(line).fill
    }

    #[test]
    fn fill_defaults() {
        assert_eq!(
            fill(r#"{ name = "a", buffer = "f64", count = 1, fill = "random" }"#),
            Fill::Random {
                low: -1.0,
                high: 1.0
            }
        );
        assert_eq!(
            fill(r#"{ name = "a", buffer = "u32", count = 1, fill = "random" }"#),
            Fill::Random {
                low: 0.0,
                high: 100.0
            }
        );
        assert_eq!(
            fill(r#"{ name = "a", buffer = "i64", count = 1, fill = "zeros" }"#),
            Fill::Constant { value: 0.0 }
        );
        assert_eq!(
            fill(r#"{ name = "a", buffer = "f32", count = 1, fill = -2.5 }"#),
            Fill::Constant { value: -2.5 }
        );
        assert_eq!(
            fill(r#"{ name = "a", buffer = "f32", count = 1, output = true }"#),
            Fill::Poison
        );
        assert_eq!(
            fill(r#"{ name = "a", buffer = "f32", count = 1, output = true, fill = 7 }"#),
            Fill::Constant { value: 7.0 }
        );
        assert_eq!(
            fill(
                r#"{ name = "a", buffer = "i32", count = 1, fill = "random", range = [-5, 5.5] }"#
            ),
            Fill::Random {
                low: -5.0,
                high: 5.5
            }
        );
        assert_eq!(
            fill(
                r#"{ name = "a", buffer = "i32", count = 1, fill = "random", range = [0, 2147483648] }"#
            ),
            Fill::Random {
                low: 0.0,
                high: 2147483648.0
            },
            "integer ranges are [low, high), so high may be one past the largest value"
        );
    }

    #[test]
    fn inputs_need_a_fill() {
        fails(
            &with_args(r#"{ name = "a", buffer = "f32", count = 1, output = false }"#),
            "input buffer `a` has no `fill`",
            "{ name = \"a\"",
        );
    }

    #[test]
    fn range_rules() {
        let line = |rest: &str| {
            with_args(&format!(
                "{{ name = \"a\", buffer = \"u32\", count = 1, {rest} }}"
            ))
        };
        fails(
            &line("fill = \"zeros\", range = [0, 1]"),
            "`range` of buffer `a` needs fill = \"random\"",
            "[0, 1]",
        );
        fails(
            &line("output = true, range = [0, 1]"),
            "`range` of buffer `a` needs fill = \"random\"",
            "[0, 1]",
        );
        fails(
            &line("fill = 3, range = [0, 1]"),
            "`range` of buffer `a` needs fill = \"random\"",
            "[0, 1]",
        );
        fails(
            &line("fill = \"random\", range = [0, 1, 2]"),
            "`range` takes two numbers, not 3",
            "[0, 1, 2]",
        );
        fails(
            &line("fill = \"random\", range = [5, 5]"),
            "range [5, 5] is empty: low must be below high",
            "[5, 5]",
        );
        let e = fails(
            &line("fill = \"random\", range = [-5, 5]"),
            "range [-5, 5] does not fit buffer `a` of type u32",
            "[-5, 5]",
        );
        assert!(
            e.to_string()
                .contains("each a whole number from 0 to 4294967295 (the u32 range)")
        );
        fails(
            &line("fill = \"random\", range = [0, inf]"),
            "range [0, inf] does not fit buffer `a` of type u32",
            "[0, inf]",
        );
    }

    #[test]
    fn constant_fills_must_fit_the_element_type() {
        let line = |element: &str, value: &str| {
            with_args(&format!(
                "{{ name = \"a\", buffer = \"{element}\", count = 1, fill = {value} }}"
            ))
        };
        fails(
            &line("i32", "1.5"),
            "fill 1.5 does not fit buffer `a` of type i32",
            "1.5",
        );
        fails(
            &line("u64", "-1"),
            "fill -1 does not fit buffer `a` of type u64",
            "-1",
        );
        fails(
            &line("f32", "1e39"),
            "fill 1e39 does not fit buffer `a` of type f32",
            "1e39",
        );
        fails(
            &line("f64", "nan"),
            "fill NaN does not fit buffer `a` of type f64",
            "nan",
        );
        assert_eq!(
            fill(r#"{ name = "a", buffer = "f64", count = 1, fill = 1e300 }"#),
            Fill::Constant { value: 1e300 }
        );
    }

    #[test]
    fn compare_and_symbol() {
        let b = buffer(r#"{ name = "a", buffer = "f32", count = 1, output = true }"#);
        assert_eq!(
            (b.compare, b.symbol, b.output),
            (Compare::Elementwise, None, true)
        );
        let b =
            buffer(r#"{ name = "a", buffer = "f32", count = 1, output = true, compare = "sum" }"#);
        assert_eq!(b.compare, Compare::Sum);
        let b = buffer(
            r#"{ name = "a", buffer = "f32", count = 1, fill = 0, compare = "elementwise", symbol = "_c0" }"#,
        );
        assert_eq!(
            (b.compare, b.symbol.as_deref(), b.output),
            (Compare::Elementwise, Some("_c0"), false)
        );
        fails(
            &with_args(r#"{ name = "a", buffer = "f32", count = 1, fill = 0, compare = "sum" }"#),
            "compare = \"sum\" on `a`, which is not an output",
            "\"sum\"",
        );
        fails(
            &with_args(
                r#"{ name = "a", buffer = "f32", count = 1, output = true, compare = "max" }"#,
            ),
            "unknown compare \"max\"",
            "\"max\"",
        );
        fails(
            &with_args(
                r#"{ name = "a", buffer = "f32", count = 1, fill = 0, symbol = "c-filter" }"#,
            ),
            "symbol \"c-filter\" is not a C identifier",
            "\"c-filter\"",
        );
    }

    #[test]
    fn buffer_or_scalar_and_their_keys() {
        fails(
            &with_args(r#"{ name = "a", buffer = "f32", scalar = "f32", count = 1 }"#),
            "argument `a` is both a buffer and a scalar",
            "buffer = \"f32\", scalar = »\"f32\"",
        );
        fails(
            &with_args(r#"{ name = "a", count = 1 }"#),
            "argument `a` is neither a buffer nor a scalar",
            "{ name = \"a\"",
        );
        let e = fails(
            &with_args(
                r#"{ name = "a", buffer = "f32", count = "N", output = true },
                   { name = "a" }"#,
            ),
            "variant `plain` passes buffer `a` a second time",
            "{ name = »\"a\" }",
        );
        assert!(help(&e).contains("one-step `sequence`"), "{e}");
        fails(
            &with_args(r#"{ name = "a", buffer = "f32", fill = 0 }"#),
            "buffer `a` has no `count`",
            "{ name = \"a\"",
        );
        fails(
            &with_args(r#"{ name = "a", buffer = "f32", count = 1, fill = 0, value = 3 }"#),
            "buffer `a` cannot have `value`",
            "value = »3",
        );
        fails(
            &with_args(r#"{ name = "a", scalar = "f32" }"#),
            "scalar `a` has no `value`",
            "{ name = \"a\"",
        );
        for (key, value) in [
            ("count", "1"),
            ("fill", "0"),
            ("range", "[0, 1]"),
            ("output", "true"),
            ("compare", "\"sum\""),
            ("symbol", "\"s\""),
        ] {
            fails(
                &with_args(&format!(
                    "{{ name = \"a\", scalar = \"f32\", value = 1, {key} = {value} }}"
                )),
                &format!("scalar `a` cannot have `{key}`"),
                &format!("value = 1, {key} = »{value}"),
            );
        }
        let e = fails(
            &with_args(r#"{ name = "a", buffer = "f23", count = 1, fill = 0 }"#),
            "unknown element type \"f23\"",
            "\"f23\"",
        );
        assert!(e.to_string().contains(
            "write one of f16, bf16, f32, f64, i8, u8, i16, u16, i32, u32, i64, u64 \
                     (did you mean \"f32\"?)"
        ));
    }

    #[test]
    fn argument_names_are_non_empty_and_unique() {
        fails(
            &with_args(r#"{ name = "", scalar = "f32", value = 1 }"#),
            "an argument name cannot be empty",
            "\"\"",
        );
        fails(
            &with_args(
                "{ name = \"a\", scalar = \"f32\", value = 1 },\n{ name = \"a\", buffer = \"f32\", count = 1, fill = 0 }",
            ),
            "argument `a` is listed twice in variant `plain`",
            "\"a\", buffer",
        );
    }

    #[test]
    fn counts_are_whole_and_at_least_one() {
        assert_eq!(
            buffer(r#"{ name = "a", buffer = "f32", count = "N * N", fill = 0 }"#).count,
            1 << 20
        );
        fails(
            &with_args(r#"{ name = "a", buffer = "f32", count = "N - 1024", fill = 0 }"#),
            "the count of buffer `a` of variant `plain` is 0 at N=1024, but must be at least 1",
            "\"N - 1024\"",
        );
        fails(
            &with_args(r#"{ name = "a", buffer = "f32", count = "N / 3", fill = 0 }"#),
            "the count of buffer `a` of variant `plain` must be a whole number, but it is \
             341.3333333333333 at N=1024",
            "\"N / 3\"",
        );
        // 2^62 + 1 floats would wrap a 64-bit byte count: refused.
        let e = crate::config::resolve::tests::err(&with_args(
            r#"{ name = "a", buffer = "f32", count = "pow(2, 62) + 1", fill = 0 }"#,
        ));
        assert!(
            e.message()
                == "the count of buffer `a` of variant `plain` is 4.611686018427388e18, but must be at most 281474976710656 (1 PiB of f32, more than any GPU holds)",
            "{e}"
        );
    }

    #[test]
    fn integer_scalars_are_whole_and_fit_their_type() {
        let value = |element: &str, v: &str| {
            scalar(&format!(
                "{{ name = \"s\", scalar = \"{element}\", value = {v} }}"
            ))
        };
        assert_eq!(value("i32", "\"-N\"").value, -1024.0);
        assert_eq!(value("u64", "\"pow(2, 40)\"").value, 2f64.powi(40));
        assert_eq!(value("i64", "\"-pow(2, 62)\"").element, ElementType::I64);
        let bad = |element: &str, v: &str| {
            with_args(&format!(
                "{{ name = \"s\", scalar = \"{element}\", value = {v} }}"
            ))
        };
        let e = fails(
            &bad("i32", "\"N / 3\""),
            "the value of scalar `s` of variant `plain` must be a whole number, but it is \
             341.3333333333333 at N=1024",
            "\"N / 3\"",
        );
        assert!(e.to_string().contains("cdiv(a, b)"));
        fails(
            &bad("u32", "-1"),
            "the value of scalar `s` of variant `plain` is -1, but must be at least 0",
            "-1",
        );
        fails(
            &bad("i32", "\"N * N * N\""),
            "the value of scalar `s` of variant `plain` is 68719476736 at N=4096, but must be at \
             most 2147483647 (the largest i32)",
            "\"N * N * N\"",
        );
    }

    #[test]
    fn float_scalars_take_any_finite_value_that_fits() {
        let value = |element: &str, v: &str| {
            scalar(&format!(
                "{{ name = \"s\", scalar = \"{element}\", value = {v} }}"
            ))
            .value
        };
        assert_eq!(value("f32", "\"N / 3\""), 1024.0 / 3.0);
        assert_eq!(value("f64", "1e300"), 1e300);
        fails(
            &with_args(r#"{ name = "s", scalar = "f32", value = "pow(10, 39)" }"#),
            "the value of scalar `s` of variant `plain` is 1e39, too large for an f32",
            "\"pow",
        );
    }

    #[test]
    fn narrow_types_are_buffers_and_scalars_and_c_spellings_are_pointed_to_them() {
        for element in ElementType::ALL {
            let name = element.name();
            let b = buffer(&format!(
                "{{ name = \"a\", buffer = \"{name}\", count = 4, fill = 1 }}"
            ));
            assert_eq!(
                (b.element, b.fill),
                (element, Fill::Constant { value: 1.0 })
            );
            let s = scalar(&format!(
                "{{ name = \"s\", scalar = \"{name}\", value = 100 }}"
            ));
            assert_eq!((s.element, s.value), (element, 100.0));
        }
        for (written, meant) in [
            ("half", "f16"),
            ("__nv_bfloat16", "bf16"),
            ("const __half *", "f16"),
            ("uint8_t", "u8"),
            ("unsigned  char", "u8"),
            ("signed char", "i8"),
            ("short", "i16"),
            ("std::uint16_t", "u16"),
            ("float", "f32"),
        ] {
            let e = fails(
                &with_args(&format!(
                    "{{ name = \"a\", buffer = \"{written}\", count = 1, fill = 0 }}"
                )),
                &format!("unknown element type {written:?}"),
                &format!("\"{written}\""),
            );
            assert!(
                e.to_string()
                    .contains(&format!("(did you mean \"{meant}\"?)")),
                "{e}"
            );
        }
    }

    #[test]
    fn narrow_fills_default_to_ranges_every_type_holds() {
        for element in ["i8", "u8", "i16", "u16"] {
            assert_eq!(
                fill(&format!(
                    "{{ name = \"a\", buffer = \"{element}\", count = 1, fill = \"random\" }}"
                )),
                Fill::Random {
                    low: 0.0,
                    high: 100.0
                }
            );
        }
        for element in ["f16", "bf16"] {
            assert_eq!(
                fill(&format!(
                    "{{ name = \"a\", buffer = \"{element}\", count = 1, fill = \"random\" }}"
                )),
                Fill::Random {
                    low: -1.0,
                    high: 1.0
                }
            );
        }
    }

    #[test]
    fn narrow_constant_fills_and_ranges_must_fit_the_type() {
        let line = |element: &str, rest: &str| {
            with_args(&format!(
                "{{ name = \"a\", buffer = \"{element}\", count = 1, {rest} }}"
            ))
        };
        let e = fails(
            &line("u8", "fill = 300"),
            "fill 300 does not fit buffer `a` of type u8",
            "300",
        );
        assert_eq!(
            help(&e),
            "write a whole number from 0 to 255 (the u8 range)"
        );
        fails(
            &line("i8", "fill = -129"),
            "fill -129 does not fit buffer `a` of type i8",
            "-129",
        );
        fails(
            &line("u16", "fill = 65536"),
            "fill 65536 does not fit buffer `a` of type u16",
            "65536",
        );
        fails(
            &line("i16", "fill = 0.5"),
            "fill 0.5 does not fit buffer `a` of type i16",
            "0.5",
        );
        let e = fails(
            &line("f16", "fill = 70000"),
            "fill 70000 does not fit buffer `a` of type f16",
            "70000",
        );
        assert_eq!(
            help(&e),
            "write a finite number from -65504 to 65504 (the f16 range)"
        );
        let e = fails(
            &line("bf16", "fill = 1e39"),
            "fill 1e39 does not fit buffer `a` of type bf16",
            "1e39",
        );
        assert_eq!(
            help(&e),
            "write a finite number from -3.3895314e38 to 3.3895314e38 (the bf16 range)"
        );
        for (element, fill) in [
            ("u8", "255"),
            ("i8", "-128"),
            ("f16", "-65504"),
            ("bf16", "1e38"),
        ] {
            ok(&line(element, &format!("fill = {fill}")));
        }
        // Integer ranges are [low, high): 256 is one past a byte's largest.
        assert_eq!(
            fill(r#"{ name = "a", buffer = "u8", count = 1, fill = "random", range = [0, 256] }"#),
            Fill::Random {
                low: 0.0,
                high: 256.0
            }
        );
        ok(&line("i8", "fill = \"random\", range = [-128, 128]"));
        let e = fails(
            &line("u8", "fill = \"random\", range = [0, 257]"),
            "range [0, 257] does not fit buffer `a` of type u8",
            "[0, 257]",
        );
        assert!(help(&e).contains("each a whole number from 0 to 255 (the u8 range)"));
        fails(
            &line("i8", "fill = \"random\", range = [-129, 0]"),
            "range [-129, 0] does not fit buffer `a` of type i8",
            "[-129, 0]",
        );
        fails(
            &line("f16", "fill = \"random\", range = [0, 1e5]"),
            "range [0, 100000] does not fit buffer `a` of type f16",
            "[0, 1e5]",
        );
    }

    #[test]
    fn narrow_scalars_fit_their_type() {
        let bad = |element: &str, v: &str| {
            with_args(&format!(
                "{{ name = \"s\", scalar = \"{element}\", value = {v} }}"
            ))
        };
        let e = fails(
            &bad("u8", "300"),
            "the value of scalar `s` of variant `plain` is 300, but must be at most 255 (the \
             largest u8)",
            "300",
        );
        assert!(help(&e).contains("the scalar's type u8"), "{e}");
        fails(
            &bad("i8", "\"N / 8\""),
            "the value of scalar `s` of variant `plain` is 128 at N=1024, but must be at most 127 \
             (the largest i8)",
            "\"N / 8\"",
        );
        fails(
            &bad("i16", "-32769"),
            "the value of scalar `s` of variant `plain` is -32769, but must be at least -32768",
            "-32769",
        );
        fails(
            &bad("u16", "\"N * 16\""),
            "the value of scalar `s` of variant `plain` is 65536 at N=4096, but must be at most \
             65535 (the largest u16)",
            "\"N * 16\"",
        );
        let e = fails(
            &bad("f16", "\"N * 16\""),
            "the value of scalar `s` of variant `plain` is 65536 at N=4096, too large for an f16",
            "\"N * 16\"",
        );
        assert_eq!(
            help(&e),
            "write a finite number from -65504 to 65504 (the f16 range)"
        );
        fails(
            &bad("bf16", "\"pow(10, 39)\""),
            "the value of scalar `s` of variant `plain` is 1e39, too large for a bf16",
            "\"pow",
        );
        let value = |element: &str, v: &str| {
            scalar(&format!(
                "{{ name = \"s\", scalar = \"{element}\", value = {v} }}"
            ))
            .value
        };
        assert_eq!(value("i8", "-128"), -128.0);
        assert_eq!(value("u16", "65535"), 65535.0);
        assert_eq!(
            value("f16", "0.1"),
            0.1,
            "rounded to f16 only when launched"
        );
        assert_eq!(value("bf16", "-1e38"), -1e38);
    }
}
