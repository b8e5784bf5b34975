//! Library variants, a library routine timed and verified like a kernel:
//! the keys a library call refuses (`source`, `entry`), the routine's
//! name, alpha and beta, the m, n and k of a GEMM, the buffers a GEMM
//! needs at each size, and, once every variant is resolved, that a GEMM
//! that reads C (beta ≠ 0) finds there what its reference found.

use std::ops::Range;

use toml::Spanned;

use super::values::{Compiled, fits, show, type_requirement};
use super::{Context, Doc, Merged, Resolved};
use crate::config::error::ConfigError;
use crate::config::plan::{Arg, Buffer, ElementType, Fill, Instance, VariantKind, Verify};
use crate::config::raw::{ExprSource, RawLibrary, RawVariant};
use crate::model::variant::Library;

/// A GEMM call's A, B and C: the first two f32 inputs and the first f32
/// output of the argument list (none in a module variable), as the harness
/// finds them.
fn gemm_buffers(instance: &Instance) -> Option<[&Buffer; 3]> {
    let floats: Vec<&Buffer> = instance
        .args
        .iter()
        .filter_map(|a| match a {
            Arg::Buffer(b) if b.element == ElementType::F32 && b.symbol.is_none() => Some(b),
            _ => None,
        })
        .collect();
    let mut inputs = floats.iter().copied().filter(|b| !b.output);
    let (a, b) = (inputs.next()?, inputs.next()?);
    let c = floats.iter().copied().find(|b| b.output)?;
    Some([a, b, c])
}

/// A GEMM call needs two f32 inputs A (m×k) and B (k×n) and an f32
/// output C (m×n), the first of each in the argument list.
pub(super) fn check_gemm_buffers(
    doc: &Doc<'_>,
    span: Range<usize>,
    name: &str,
    instances: &[Instance],
) -> Result<(), ConfigError> {
    for instance in instances {
        let [m, n, k] = instance.gemm.map(|g| g.map(u64::from)).unwrap_or([0; 3]);
        let Some([a, b, c]) = gemm_buffers(instance) else {
            return Err(doc
                .error(
                    span,
                    format!("variant `{name}` calls cublas-sgemm but lacks its buffers"),
                )
                .help(
                    "give it two f32 input buffers (A, B) and one f32 output buffer (C) in `args`",
                ));
        };
        for (buffer, want, shape) in [(a, m * k, "m×k"), (b, k * n, "k×n"), (c, m * n, "m×n")] {
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
    /// A library call runs no kernel of the user's: it takes none of the
    /// kernel's keys (`source`, `entry`, `compiler`, `defines`,
    /// `include_dirs`) in the variant itself.
    pub(super) fn refuse_kernel_keys_of_library(
        &self,
        raw: &RawVariant,
        name: &str,
        library: &Merged<Spanned<RawLibrary>>,
    ) -> Result<(), ConfigError> {
        let doc = self.doc;
        for (key, given) in super::kernel_keys(raw) {
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
        Ok(())
    }

    /// The routine a library variant calls, with its alpha and beta.
    pub(super) fn routine(
        &self,
        library: &Merged<Spanned<RawLibrary>>,
    ) -> Result<Library, ConfigError> {
        let call = library.value.get_ref();
        let routine = &call.routine;
        match routine.get_ref().as_str() {
            "cublas-sgemm" => Ok(Library::CublasSgemm {
                alpha: self.gemm_scalar(call.alpha.as_ref(), "alpha", 1.0)?,
                beta: self.gemm_scalar(call.beta.as_ref(), "beta", 0.0)?,
            }),
            other => Err(self.doc
                .error(routine.span(), format!("unknown library routine {other:?}"))
                .help("the routines gpuprof can call: \"cublas-sgemm\" (cuBLAS SGEMM, FP32, no tensor cores)")),
        }
    }

    /// A GEMM's `alpha` or `beta` (`key`), `default` when not given: a
    /// number or an expression, an f32 (cuBLAS SGEMM takes them as f32),
    /// the same at every size (one call serves them all).
    fn gemm_scalar(
        &self,
        value: Option<&Spanned<ExprSource>>,
        key: &str,
        default: f32,
    ) -> Result<f32, ConfigError> {
        let Some(source) = value else {
            return Ok(default);
        };
        let compiled = self.compile(source, format!("library `{key}`"))?;
        let mut first: Option<(f64, &str)> = None;
        for size in self.sizes {
            let v = self.eval(&compiled, size)?;
            if !fits(ElementType::F32, v) {
                return Err(self
                    .doc
                    .error(
                        source.span(),
                        format!(
                            "library `{key}` is {}{}, but must be {}",
                            show(v),
                            compiled.at(size),
                            type_requirement(ElementType::F32)
                        ),
                    )
                    .help("cublasSgemm takes alpha and beta as f32"));
            }
            match first {
                Some((earlier, at)) if earlier != v => {
                    return Err(self
                        .doc
                        .error(
                            source.span(),
                            format!(
                                "library `{key}` is {} at {at} but {} at {}",
                                show(earlier),
                                show(v),
                                size.label
                            ),
                        )
                        .help(format!(
                            "one {key} serves every size: write a number ({key} = 0.5) or an \
                             expression of the suite's constants"
                        )));
                }
                Some(_) => {}
                None => first = Some((v, &size.label)),
            }
        }
        Ok(first.map_or(default, |(v, _)| v as f32))
    }

    /// The m, n and k of a library call, compiled.
    pub(super) fn gemm_sizes<'a>(
        &self,
        call: &'a RawLibrary,
        name: &str,
    ) -> Result<[Compiled<'a>; 3], ConfigError> {
        let what = |key: &str| format!("library `{key}` of variant `{name}`");
        Ok([
            self.compile(&call.m, what("m"))?,
            self.compile(&call.n, what("n"))?,
            self.compile(&call.k, what("k"))?,
        ])
    }
}

impl Context<'_> {
    /// A cuBLAS SGEMM with beta ≠ 0 reads C, so C must start with what
    /// the kernels compared with it start with: filled, not poisoned, and
    /// with the same fill as the same-named output of the variant it is
    /// verified against (random contents depend only on the seed and the
    /// buffer's name, so the same fill gives the same bytes).
    pub(super) fn check_library_reads(
        &self,
        resolved: &Resolved,
        all: &[Resolved],
    ) -> Result<(), ConfigError> {
        let variant = &resolved.variant;
        let VariantKind::Library {
            library: library @ Library::CublasSgemm { beta, .. },
        } = variant.kind
        else {
            return Ok(());
        };
        let Some([_, _, c]) = variant.instances.first().and_then(gemm_buffers) else {
            return Ok(());
        };
        if beta == 0.0 {
            return Ok(());
        }
        let (name, routine) = (&variant.name, library.word());
        let span = resolved
            .outputs
            .iter()
            .find(|o| o.name == c.name)
            .map_or(resolved.header.clone(), |o| o.name_span.clone());
        if c.fill == Fill::Poison {
            return Err(self
                .doc
                .error(
                    span,
                    format!(
                        "{routine} with beta = {beta} reads C, but `{}` of variant `{name}` is \
                         poisoned",
                        c.name
                    ),
                )
                .help(format!(
                    "give `{}` a fill, the one the kernels it is compared with have (e.g. \
                     output = true, fill = \"random\"), or remove beta to compute C = alpha*A*B",
                    c.name
                )));
        }
        let Verify::Against(reference) = &variant.verify else {
            return Ok(());
        };
        let theirs = all
            .iter()
            .find(|r| &r.variant.name == reference)
            .and_then(|r| r.variant.instances.first())
            .and_then(|instance| {
                instance.args.iter().find_map(|a| match a {
                    Arg::Buffer(b) if b.name == c.name && b.output => Some(b),
                    _ => None,
                })
            });
        match theirs {
            Some(theirs) if theirs.fill != c.fill => Err(self
                .doc
                .error(
                    span,
                    format!(
                        "{routine} with beta = {beta} reads C, but `{}` starts {} in `{name}` and \
                         {} in `{reference}`, which it verifies against",
                        c.name,
                        fill_words(c.fill),
                        fill_words(theirs.fill)
                    ),
                )
                .help(format!(
                    "give `{0}` the same fill (and range) in both so that both start from the \
                     same C, or remove beta if `{reference}` computes C = alpha*A*B",
                    c.name
                ))),
            _ => Ok(()),
        }
    }
}

/// A buffer's fill, in words: "poisoned", "filled with 0", "random in [-1, 1)".
fn fill_words(fill: Fill) -> String {
    match fill {
        Fill::Poison => "poisoned".into(),
        Fill::Constant { value } => format!("filled with {}", show(value)),
        Fill::Random { low, high } => format!("random in [{}, {})", show(low), show(high)),
    }
}
