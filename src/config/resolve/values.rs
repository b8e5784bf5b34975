//! Number-or-expression values of a variant (geometry, shared memory,
//! counts, scalar values, `bytes`, `flops`): parsed once, evaluated at each
//! size, and checked to be whole and within bounds where a whole number is
//! needed, with errors that say the size and how to round.

use std::ops::Range;

use toml::Spanned;

use super::{Context, Merged};
use crate::config::error::ConfigError;
use crate::config::expr::{self, Expr, ExprError, ExprErrorKind};
use crate::config::plan::ElementType;
use crate::config::raw::ExprSource;
use crate::model::suite::Size;

/// CUDA's limit on threads per block.
pub(crate) const MAX_BLOCK_THREADS: u64 = 1024;

const ROUND_HELP: &str = "division is exact (N/64 at N=100 is 1.5625), so round explicitly: \
                          ceil(a/b) or cdiv(a, b) rounds up, floor(a/b) rounds down";

/// A number-or-expression value, parsed, with what it is for messages.
pub(super) struct Compiled<'a> {
    pub(super) what: String,
    pub(super) source: &'a Spanned<ExprSource>,
    pub(super) expr: Option<(Expr, &'a str)>,
}

impl Compiled<'_> {
    fn depends_on_size(&self) -> bool {
        self.expr.as_ref().is_some_and(|(e, _)| e.uses_symbols())
    }

    /// " at N=2048" when the value may differ between sizes.
    pub(super) fn at(&self, size: &Size) -> String {
        if self.depends_on_size() {
            format!(" at {}", size.label)
        } else {
            String::new()
        }
    }
}

/// The bounds a whole number must lie in, with words for the error.
/// `value` for a message: plain digits, or an exponent for very large and
/// very small magnitudes (`1e39`, not forty digits).
pub(super) fn show(value: f64) -> String {
    let magnitude = value.abs();
    if magnitude >= 1e16 || (magnitude > 0.0 && magnitude < 1e-4) {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

pub(super) struct Bounds {
    pub(super) min: f64,
    pub(super) max: f64,
    /// `max` in words, e.g. "65535 (CUDA's limit for grid y)".
    pub(super) max_text: String,
    pub(super) help: String,
}

/// The largest f64 below the positive `x`.
pub(super) fn below(x: f64) -> f64 {
    f64::from_bits(x.to_bits() - 1)
}

pub(super) fn type_bounds(element: ElementType) -> (f64, f64) {
    match element {
        ElementType::I8 => (f64::from(i8::MIN), f64::from(i8::MAX)),
        ElementType::U8 => (0.0, f64::from(u8::MAX)),
        ElementType::I16 => (f64::from(i16::MIN), f64::from(i16::MAX)),
        ElementType::U16 => (0.0, f64::from(u16::MAX)),
        ElementType::I32 => (f64::from(i32::MIN), f64::from(i32::MAX)),
        ElementType::U32 => (0.0, f64::from(u32::MAX)),
        ElementType::I64 => (-(2f64.powi(63)), below(2f64.powi(63))),
        ElementType::U64 => (0.0, below(2f64.powi(64))),
        ElementType::F16 => (f64::from(half::f16::MIN), f64::from(half::f16::MAX)),
        ElementType::Bf16 => (f64::from(half::bf16::MIN), f64::from(half::bf16::MAX)),
        ElementType::F32 => (-f64::from(f32::MAX), f64::from(f32::MAX)),
        ElementType::F64 => (f64::MIN, f64::MAX),
    }
}

/// Whether `value` can be stored in an element of type `element`.
pub(crate) fn fits(element: ElementType, value: f64) -> bool {
    let (min, max) = type_bounds(element);
    value.is_finite()
        && (element.is_float() || value.fract() == 0.0)
        && (min..=max).contains(&value)
}

/// The extreme values of a type, as written (not rounded through f64).
fn extremes(element: ElementType) -> (String, String) {
    match element {
        ElementType::I8 => (i8::MIN.to_string(), i8::MAX.to_string()),
        ElementType::U8 => ("0".into(), u8::MAX.to_string()),
        ElementType::I16 => (i16::MIN.to_string(), i16::MAX.to_string()),
        ElementType::U16 => ("0".into(), u16::MAX.to_string()),
        ElementType::I32 => (i32::MIN.to_string(), i32::MAX.to_string()),
        ElementType::U32 => ("0".into(), u32::MAX.to_string()),
        ElementType::I64 => (i64::MIN.to_string(), i64::MAX.to_string()),
        ElementType::U64 => ("0".into(), u64::MAX.to_string()),
        ElementType::F16 => (half::f16::MIN.to_string(), half::f16::MAX.to_string()),
        // 3.3895314e38, not thirty-nine digits.
        ElementType::Bf16 => (
            format!("{:e}", f32::from(half::bf16::MIN)),
            format!("{:e}", f32::from(half::bf16::MAX)),
        ),
        ElementType::F32 => ((-f32::MAX).to_string(), f32::MAX.to_string()),
        ElementType::F64 => (f64::MIN.to_string(), f64::MAX.to_string()),
    }
}

/// The largest value of `element`, as written.
pub(super) fn largest(element: ElementType) -> String {
    extremes(element).1
}

pub(super) fn type_requirement(element: ElementType) -> String {
    let (min, max) = extremes(element);
    match element {
        ElementType::F32 | ElementType::F64 => {
            format!("a finite number that fits {}", element.with_article())
        }
        // The 2-byte floats' range is small enough to say.
        ElementType::F16 | ElementType::Bf16 => format!(
            "a finite number from {min} to {max} (the {} range)",
            element.name()
        ),
        _ => format!(
            "a whole number from {min} to {max} (the {} range)",
            element.name()
        ),
    }
}

pub(super) fn grid_bounds(axis: usize) -> Bounds {
    let (max, name) = match axis {
        0 => (i32::MAX, "x"),
        1 => (65535, "y"),
        _ => (65535, "z"),
    };
    Bounds {
        min: 1.0,
        max: f64::from(max),
        max_text: format!("{max} (CUDA's limit for grid {name})"),
        help: "the grid counts blocks per dimension: at least 1, and CUDA allows at most \
               2147483647 in x and 65535 in y and z"
            .into(),
    }
}

/// CUDA's most threads a block along x, y and z.
pub(crate) const BLOCK_LIMITS: [u32; 3] = [1024, 1024, 64];

fn block_bounds(axis: usize) -> Bounds {
    let axis = axis.min(2);
    let (max, name) = (BLOCK_LIMITS[axis], ["x", "y", "z"][axis]);
    Bounds {
        min: 1.0,
        max: f64::from(max),
        max_text: format!("{max} (CUDA's limit for block {name})"),
        help: "the block counts threads per dimension: at least 1, and CUDA allows at most \
               1024 in x and y, 64 in z and 1024 in all"
            .into(),
    }
}

pub(super) fn gemm_bounds() -> Bounds {
    Bounds {
        min: 1.0,
        max: f64::from(i32::MAX),
        max_text: format!("{} (cuBLAS takes int dimensions)", i32::MAX),
        help: "m, n and k are the GEMM's dimensions: C is m×n, A is m×k, B is k×n".into(),
    }
}

/// The most shared memory any GPU gives one block (227 KiB on compute
/// capability 8.0, 9.0 and 10.0; less on others): more can never launch.
const MAX_SHARED_BYTES_PER_BLOCK: u32 = 227 * 1024;

pub(super) fn shared_bytes_bounds() -> Bounds {
    Bounds {
        min: 0.0,
        max: f64::from(MAX_SHARED_BYTES_PER_BLOCK),
        max_text: format!(
            "{MAX_SHARED_BYTES_PER_BLOCK} (227 KiB, the most shared memory any GPU gives a block)"
        ),
        help: "it is the dynamic shared memory per block, in bytes; a block's static and dynamic shared memory together must fit the GPU's limit (227 KiB on an H100 or H200, 99 KiB on compute capability 8.6, 8.9 and 12.0)".into(),
    }
}

impl Context<'_> {
    pub(super) fn geometry<'a>(
        &self,
        value: &Merged<'a, Spanned<Vec<Spanned<ExprSource>>>>,
        key: &str,
        scope: &dyn Fn(&str, bool) -> String,
    ) -> Result<Vec<Compiled<'a>>, ConfigError> {
        let entries = value.value.get_ref();
        if entries.is_empty() || entries.len() > 3 {
            return Err(self
                .doc
                .error(
                    value.value.span(),
                    format!("`{key}` takes 1 to 3 entries, not {}", entries.len()),
                )
                .help(format!(
                    "write [x], [x, y] or [x, y, z]; the missing ones are 1, e.g. {key} = [32, 8]"
                )));
        }
        entries
            .iter()
            .zip(["x", "y", "z"])
            .map(|(entry, axis)| {
                self.compile(entry, scope(&format!("{key} {axis}"), value.inherited))
            })
            .collect()
    }

    pub(super) fn compile<'a>(
        &self,
        source: &'a Spanned<ExprSource>,
        what: String,
    ) -> Result<Compiled<'a>, ConfigError> {
        let expr = match source.get_ref() {
            ExprSource::Number(_) => None,
            ExprSource::Text(text) => match expr::parse(text) {
                Ok(expr) => Some((expr, text.as_str())),
                Err(e) => return Err(self.expression_error(source, text, &e, &what, None)),
            },
        };
        Ok(Compiled { what, source, expr })
    }

    fn expression_error(
        &self,
        source: &Spanned<ExprSource>,
        text: &str,
        error: &ExprError,
        what: &str,
        size: Option<&Size>,
    ) -> ConfigError {
        let at = match size {
            Some(size) if self.differs_between_sizes(&error.kind) => format!(" at {}", size.label),
            _ => String::new(),
        };
        let span = self
            .doc
            .expression_span(source.span(), text, error.span.clone());
        self.doc
            .error(span, format!("{} in {what}{at}", error.message()))
            .help(error.help())
    }

    /// Whether an evaluation error may not happen at every size (an unknown
    /// symbol that no size binds is unknown everywhere).
    fn differs_between_sizes(&self, kind: &ExprErrorKind) -> bool {
        match kind {
            ExprErrorKind::Syntax { .. } => false,
            ExprErrorKind::UnknownSymbol { name, .. } => {
                self.sizes.iter().any(|s| s.symbols.contains_key(name))
            }
            ExprErrorKind::DivisionByZero { .. }
            | ExprErrorKind::Domain { .. }
            | ExprErrorKind::NotFinite { .. } => true,
        }
    }

    pub(super) fn eval(&self, value: &Compiled, size: &Size) -> Result<f64, ConfigError> {
        match (&value.expr, value.source.get_ref()) {
            (Some((expr, text)), _) => expr.eval(text, &size.symbols).map_err(|e| {
                let size = value.depends_on_size().then_some(size);
                self.expression_error(value.source, text, &e, &value.what, size)
            }),
            (None, ExprSource::Number(n)) if n.is_finite() => Ok(*n),
            (None, _) => Err(self
                .doc
                .error(
                    value.source.span(),
                    format!("{} is not a finite number", value.what),
                )
                .help("write a finite number or an expression")),
        }
    }

    pub(super) fn whole(
        &self,
        value: &Compiled,
        size: &Size,
        bounds: &Bounds,
    ) -> Result<f64, ConfigError> {
        let v = self.eval(value, size)?;
        let at = value.at(size);
        if v.fract() != 0.0 {
            return Err(self
                .doc
                .error(
                    value.source.span(),
                    format!(
                        "{} must be a whole number, but it is {}{at}",
                        value.what,
                        show(v)
                    ),
                )
                .help(ROUND_HELP));
        }
        let limit = if v < bounds.min {
            format!("at least {}", bounds.min)
        } else if v > bounds.max {
            format!("at most {}", bounds.max_text)
        } else {
            return Ok(v);
        };
        Err(self
            .doc
            .error(
                value.source.span(),
                format!("{} is {}{at}, but must be {limit}", value.what, show(v)),
            )
            .help(bounds.help.clone()))
    }

    pub(super) fn dims(
        &self,
        values: &[Compiled],
        size: &Size,
        bounds: fn(usize) -> Bounds,
    ) -> Result<[u32; 3], ConfigError> {
        let mut dims = [1u32; 3];
        for (axis, value) in values.iter().enumerate() {
            dims[axis] = self.whole(value, size, &bounds(axis))? as u32;
        }
        Ok(dims)
    }

    pub(super) fn block(
        &self,
        values: &[Compiled],
        span: Range<usize>,
        size: &Size,
    ) -> Result<[u32; 3], ConfigError> {
        let dims = self.dims(values, size, block_bounds)?;
        let threads: u64 = dims.iter().map(|&d| u64::from(d)).product();
        if threads <= MAX_BLOCK_THREADS {
            return Ok(dims);
        }
        let at = if values.iter().any(Compiled::depends_on_size) {
            format!(" at {}", size.label)
        } else {
            String::new()
        };
        Err(self
            .doc
            .error(
                span,
                format!(
                    "a block of {} x {} x {} = {threads} threads{at} is more than CUDA's limit of \
                     {MAX_BLOCK_THREADS}",
                    dims[0], dims[1], dims[2]
                ),
            )
            .help("make the block smaller (and the grid larger to cover the same work)"))
    }

    pub(super) fn amount(
        &self,
        value: Option<&Compiled>,
        size: &Size,
    ) -> Result<Option<f64>, ConfigError> {
        let Some(value) = value else {
            return Ok(None);
        };
        let v = self.eval(value, size)?;
        if v < 0.0 {
            return Err(self
                .doc
                .error(
                    value.source.span(),
                    format!(
                        "{} is {}{}, but cannot be negative",
                        value.what,
                        show(v),
                        value.at(size)
                    ),
                )
                .help("it counts the problem's minimum DRAM bytes or floating-point operations"));
        }
        Ok(Some(v))
    }
}

#[cfg(test)]
mod tests {
    use super::show;
    use crate::config::resolve::tests::{fails, ok, one_variant};

    #[test]
    fn numbers_in_messages_are_short() {
        assert_eq!(show(2048.0), "2048");
        assert_eq!(show(-1.5625), "-1.5625");
        assert_eq!(show(68719476736.0), "68719476736");
        assert_eq!(show(1e39), "1e39");
        assert_eq!(show(2.5e-7), "2.5e-7");
        assert_eq!(show(0.0), "0");
    }

    fn geometry(keys: &str) -> Vec<([u32; 3], [u32; 3], u32)> {
        ok(&one_variant(keys)).variants[0]
            .instances
            .iter()
            .map(|i| (i.grid, i.block, i.shared_bytes))
            .collect()
    }

    #[test]
    fn missing_dimensions_are_one_and_expressions_are_evaluated_at_each_size() {
        assert_eq!(
            geometry("grid = [\"N / 256\", 2]\nblock = [\"min(N, 512) / 2\", 2]"),
            [([4, 2, 1], [256, 2, 1], 0), ([16, 2, 1], [256, 2, 1], 0)]
        );
        assert_eq!(
            geometry("grid = [1, 2, 3]\nblock = [4, 5, 6]\nshared_bytes = \"N * 4\""),
            [([1, 2, 3], [4, 5, 6], 4096), ([1, 2, 3], [4, 5, 6], 16384)]
        );
    }

    #[test]
    fn geometry_takes_one_to_three_entries() {
        fails(
            &one_variant("grid = []"),
            "`grid` takes 1 to 3 entries, not 0",
            "grid = »[]",
        );
        fails(
            &one_variant("block = [1, 1, 1, 1]"),
            "`block` takes 1 to 3 entries, not 4",
            "block = »[1, 1, 1, 1]",
        );
    }

    #[test]
    fn geometry_must_be_whole_and_say_the_size_and_how_to_round() {
        let e = fails(
            &one_variant("grid = [\"N / 3\"]"),
            "grid x of variant `plain` must be a whole number, but it is 341.3333333333333 at \
             N=1024",
            "\"N / 3\"",
        );
        assert!(e.to_string().contains("ceil(a/b) or cdiv(a, b) rounds up"));
        fails(
            &one_variant("grid = [1, 1.5]"),
            "grid y of variant `plain` must be a whole number, but it is 1.5",
            "1.5",
        );
        fails(
            &one_variant("grid = [\"N - 1024\"]"),
            "grid x of variant `plain` is 0 at N=1024, but must be at least 1",
            "\"N - 1024\"",
        );
        fails(
            &one_variant("grid = [1, 65536]"),
            "grid y of variant `plain` is 65536, but must be at most 65535 (CUDA's limit for grid y)",
            "65536",
        );
        fails(
            &one_variant("grid = [\"pow(2, 31)\"]"),
            "grid x of variant `plain` is 2147483648, but must be at most 2147483647 (CUDA's limit \
             for grid x)",
            "\"pow",
        );
        fails(
            &one_variant("block = [1, 1, 65]"),
            "block z of variant `plain` is 65, but must be at most 64 (CUDA's limit for block z)",
            "65",
        );
        fails(
            &one_variant("grid = [inf]"),
            "grid x of variant `plain` is not a finite number",
            "inf",
        );
    }

    #[test]
    fn blocks_hold_at_most_1024_threads() {
        assert_eq!(geometry("block = [32, 32]")[0].1, [32, 32, 1]);
        fails(
            &one_variant("block = [32, 8, 5]"),
            "a block of 32 x 8 x 5 = 1280 threads is more than CUDA's limit of 1024",
            "block = »[32",
        );
        fails(
            &one_variant("block = [\"N / 64\", 32]"),
            "a block of 64 x 32 x 1 = 2048 threads at N=4096 is more than CUDA's limit of 1024",
            "block = »[\"N / 64\"",
        );
    }

    #[test]
    fn shared_bytes_no_gpu_gives_a_block_are_refused() {
        fails(
            &one_variant("shared_bytes = 300000"),
            "shared_bytes of variant `plain` is 300000, but must be at most 232448 (227 KiB, the most shared memory any GPU gives a block)",
            "300000",
        );
        ok(&one_variant("shared_bytes = \"227 * 1024\""));
    }

    #[test]
    fn shared_bytes_are_whole_and_not_negative() {
        fails(
            &one_variant("shared_bytes = -4"),
            "shared_bytes of variant `plain` is -4, but must be at least 0",
            "-4",
        );
        fails(
            &one_variant("shared_bytes = \"N / 3\""),
            "shared_bytes of variant `plain` must be a whole number, but it is 341.3333333333333 \
             at N=1024",
            "\"N / 3\"",
        );
    }

    #[test]
    fn bytes_and_flops_are_optional_finite_and_not_negative() {
        let plan = ok(&one_variant("bytes = \"N / 3\"\nflops = 2.5"));
        let instance = &plan.variants[0].instances[0];
        assert_eq!(instance.bytes, Some(1024.0 / 3.0));
        assert_eq!(instance.flops, Some(2.5));
        let plan = ok(&one_variant(""));
        assert_eq!(
            (
                plan.variants[0].instances[0].bytes,
                plan.variants[0].instances[0].flops
            ),
            (None, None)
        );
        fails(
            &one_variant("flops = \"1024 - N\""),
            "flops of variant `plain` is -3072 at N=4096, but cannot be negative",
            "\"1024 - N\"",
        );
        fails(
            &one_variant("bytes = nan"),
            "bytes of variant `plain` is not a finite number",
            "nan",
        );
    }

    #[test]
    fn evaluation_errors_name_the_size_where_they_happen() {
        fails(
            &one_variant("bytes = \"1 / (4096 - N)\""),
            "division by zero: `(4096 - N)` is 0 in bytes of variant `plain` at N=4096",
            "(4096 - N)",
        );
        fails(
            &one_variant("bytes = \"1 / 0\""),
            "division by zero: `0` is 0 in bytes of variant `plain`",
            "0\"",
        );
        fails(
            &one_variant("flops = \"sqrt(2048 - N)\""),
            "sqrt of -2048: `2048 - N` is out of its domain in flops of variant `plain` at N=4096",
            "2048 - N",
        );
    }
}
