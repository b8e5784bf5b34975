//! Library variants, a library routine timed and verified like a kernel:
//! the keys a library call refuses (`source`, `entry`), the routine's
//! name, the m, n and k of a GEMM, and the buffers a GEMM needs at each
//! size.

use std::ops::Range;

use toml::Spanned;

use super::values::Compiled;
use super::{Context, Doc, Merged};
use crate::config::error::ConfigError;
use crate::config::plan::{Arg, Instance};
use crate::config::raw::{RawLibrary, RawVariant};
use crate::model::variant::Library;

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

    /// The routine a library variant calls.
    pub(super) fn routine(
        &self,
        library: &Merged<Spanned<RawLibrary>>,
    ) -> Result<Library, ConfigError> {
        let routine = &library.value.get_ref().routine;
        match routine.get_ref().as_str() {
            "cublas-sgemm" => Ok(Library::CublasSgemm),
            other => Err(self.doc
                .error(routine.span(), format!("unknown library routine {other:?}"))
                .help("the routines gpuprof can call: \"cublas-sgemm\" (cuBLAS SGEMM, FP32, no tensor cores)")),
        }
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
