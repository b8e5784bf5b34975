//! A variant that launches several kernels in order (`sequence`), such as
//! a two-pass reduction or a kernel and its finishing kernel. The variant's
//! `args` declare the buffers the steps share; each step names a kernel of
//! the variant's source, its geometry, and its arguments: `{ name = "in" }`
//! passes the variant's buffer, a scalar is written as in `args`. Compiled
//! once here, evaluated at every size.

use std::ops::Range;
use std::path::Path;

use toml::Spanned;

use super::Context;
use super::args::ArgSpec;
use super::values::{Compiled, grid_bounds, shared_bytes_bounds};
use crate::config::error::ConfigError;
use crate::config::kernels::Kernels;
use crate::config::plan::{Arg, Step, StepArg};
use crate::config::raw::RawVariant;
use crate::model::suite::Size;

/// One step, compiled.
pub(super) struct StepValues<'a> {
    kernel: usize,
    grid: Vec<Compiled<'a>>,
    block: Vec<Compiled<'a>>,
    block_span: Range<usize>,
    shared: Option<Compiled<'a>>,
    args: Vec<StepSpec<'a>>,
}

/// A step's argument: the index of one of the variant's buffers, or a
/// scalar of its own.
enum StepSpec<'a> {
    /// The variant's buffer `index`, from element `offset` on.
    Buffer {
        index: usize,
        offset: Option<super::values::Compiled<'a>>,
    },
    Scalar(ArgSpec<'a>),
}

impl<'c> Context<'c> {
    /// The refusals of a sequence variant: no `entry`, `grid`, `block` or
    /// `shared_bytes` of its own, and `args` holding buffers only.
    pub(super) fn check_sequence_keys(
        &self,
        raw: &RawVariant,
        name: &str,
    ) -> Result<(), ConfigError> {
        let Some(sequence) = &raw.sequence else {
            return Ok(());
        };
        let own = [
            ("entry", raw.entry.as_ref().map(Spanned::span)),
            ("grid", raw.grid.as_ref().map(Spanned::span)),
            ("block", raw.block.as_ref().map(Spanned::span)),
            ("shared_bytes", raw.shared_bytes.as_ref().map(Spanned::span)),
        ];
        if let Some((key, Some(span))) = own.into_iter().find(|(_, span)| span.is_some()) {
            return Err(self
                .doc
                .error(
                    span,
                    format!(
                        "variant `{name}` launches a `sequence`, so it takes no `{key}` of its own"
                    ),
                )
                .help(format!("give `{key}` in each step of `sequence`")));
        }
        if sequence.get_ref().is_empty() {
            return Err(self
                .doc
                .error(sequence.span(), format!("the `sequence` of variant `{name}` is empty"))
                .help("list its launches in order: sequence = [{ entry = \"...\", grid = [...], block = [...], args = [...] }]"));
        }
        Ok(())
    }

    /// The sequence's steps compiled, and the distinct kernels they launch
    /// in order of first use; `buffers` are the variant's `args`.
    pub(super) fn sequence_steps(
        &self,
        raw: &'c RawVariant,
        name: &str,
        source: (&Path, &Kernels),
        buffers: &[ArgSpec<'c>],
    ) -> Result<(Vec<String>, Vec<StepValues<'c>>), ConfigError> {
        let Some(sequence) = &raw.sequence else {
            return Ok((Vec::new(), Vec::new()));
        };
        if let Some(scalar) = buffers.iter().find(|a| matches!(a, ArgSpec::Scalar(_))) {
            // Args a sequence variant takes from [defaults] (written for the
            // suite's one-launch variants) hold scalars as a rule.
            let (whose, help) = match raw.args.is_none() {
                true => (
                    "the `args` it takes from [defaults]",
                    "give this variant its own `args`, listing only the buffers its steps share, and the scalars in the `args` of each step of `sequence`",
                ),
                false => (
                    "its `args`",
                    "give scalars in the `args` of each step of `sequence`",
                ),
            };
            return Err(self
                .doc
                .error(scalar.name_span(), format!("variant `{name}` launches a `sequence`, so {whose} declare the buffers its steps share; scalar `{}` belongs to a step", scalar.name()))
                .help(help));
        }
        // Errors name the source as the toml does, not its canonical path.
        let shown = self.shown_source(raw, source.0);
        let mut entries: Vec<String> = Vec::new();
        let mut steps = Vec::new();
        let mut passes = Vec::new();
        for (index, step) in sequence.get_ref().iter().enumerate() {
            let step = step.get_ref();
            self.check_entry(&step.entry, &shown, source.1)?;
            let entry = step.entry.get_ref().clone();
            let kernel = match entries.iter().position(|e| *e == entry) {
                Some(known) => known,
                None => {
                    entries.push(entry);
                    entries.len() - 1
                }
            };
            let scope =
                |key: &str, _: bool| format!("{key} of step {} of variant `{name}`", index + 1);
            let geometry = |value| super::Merged {
                value,
                inherited: false,
            };
            let args: Vec<StepSpec> = step
                .args
                .iter()
                .map(|arg| self.step_arg(arg, buffers, &|key: &str| scope(key, false)))
                .collect::<Result<_, _>>()?;
            if let Some(declared) = source.1.find(step.entry.get_ref()) {
                let passed: Vec<&ArgSpec> = args
                    .iter()
                    .map(|arg| match arg {
                        StepSpec::Buffer { index, .. } => &buffers[*index],
                        StepSpec::Scalar(spec) => spec,
                    })
                    .collect();
                let launch = super::parameters::Launcher::Step(index, name);
                let aliases = &source.1.aliases;
                passes.extend(self.check_arguments(
                    &step.entry,
                    declared,
                    aliases,
                    &passed,
                    &launch,
                )?);
            }
            steps.push(StepValues {
                kernel,
                grid: self.geometry(&geometry(&step.grid), "grid", &scope)?,
                block: self.geometry(&geometry(&step.block), "block", &scope)?,
                block_span: step.block.span(),
                shared: match &step.shared_bytes {
                    Some(value) => Some(self.compile(value, scope("shared_bytes", false))?),
                    None => None,
                },
                args,
            });
        }
        // A buffer no step passes would be filled, timed and compared, yet
        // no kernel would ever see it (a module variable is set by name).
        let passed = |at: usize| {
            steps.iter().any(|step| {
                step.args
                    .iter()
                    .any(|a| matches!(a, StepSpec::Buffer { index, .. } if *index == at))
            })
        };
        if let Some(unused) = buffers.iter().enumerate().find_map(|(at, arg)| match arg {
            ArgSpec::Buffer(buffer) if buffer.symbol.is_none() && !passed(at) => Some(arg),
            _ => None,
        }) {
            return Err(self
                .doc
                .error(
                    unused.name_span(),
                    format!(
                        "buffer `{}` of variant `{name}` is passed by no step of its `sequence`",
                        unused.name()
                    ),
                )
                .help(format!(
                    "pass it in the `args` of the step that uses it, {{ name = \"{}\" }}, or remove it",
                    unused.name()
                )));
        }
        let buffers: Vec<&ArgSpec> = buffers.iter().collect();
        self.refuse_read_only_outputs(&buffers, &passes)?;
        Ok((entries, steps))
    }

    /// A step's argument: `{ name = "in" }` names one of the variant's
    /// buffers (`offset = "256"` passes it from that element on); anything
    /// more is a scalar.
    fn step_arg(
        &self,
        arg: &'c Spanned<crate::config::raw::RawArg>,
        buffers: &[ArgSpec<'c>],
        scope: &dyn Fn(&str) -> String,
    ) -> Result<StepSpec<'c>, ConfigError> {
        let raw = arg.get_ref();
        let name = raw.name.get_ref();
        if raw.buffer.is_some() {
            return Err(self
                .doc
                .error(arg.span(), format!("step argument `{name}` declares a buffer"))
                .help("declare buffers in the variant's `args`; a step passes one as { name = \"...\" }"));
        }
        if raw.scalar.is_some() {
            return Ok(StepSpec::Scalar(self.arg(arg, scope)?));
        }
        match buffers.iter().position(|b| b.name() == name) {
            Some(index) => Ok(StepSpec::Buffer {
                index,
                offset: match &raw.offset {
                    Some(offset) => {
                        Some(self.compile(offset, scope(&format!("the offset into `{name}`")))?)
                    }
                    None => None,
                },
            }),
            None => {
                let names: Vec<&str> = buffers.iter().map(ArgSpec::name).collect();
                Err(self
                    .doc
                    .error(raw.name.span(), format!("`{name}` is not a buffer of the variant"))
                    .help(format!(
                        "a step passes one of the variant's `args` by name ({}), or a scalar {{ name, scalar = TYPE, value }}",
                        names.join(", ")
                    )))
            }
        }
    }

    /// The steps at `size`, where the variant's buffers are `buffers_at`.
    pub(super) fn steps_at(
        &self,
        steps: &[StepValues],
        size: &Size,
        buffers_at: &[Arg],
    ) -> Result<Vec<Step>, ConfigError> {
        steps
            .iter()
            .map(|step| {
                Ok(Step {
                    kernel: step.kernel,
                    grid: self.dims(&step.grid, size, grid_bounds)?,
                    block: self.block(&step.block, step.block_span.clone(), size)?,
                    shared_bytes: match &step.shared {
                        Some(c) => self.whole(c, size, &shared_bytes_bounds())? as u32,
                        None => 0,
                    },
                    args: step
                        .args
                        .iter()
                        .map(|arg| match arg {
                            StepSpec::Buffer { index, offset } => Ok(StepArg::Buffer {
                                index: *index,
                                offset: match offset {
                                    Some(offset) => {
                                        self.buffer_offset(offset, &buffers_at[*index], size)?
                                    }
                                    None => 0,
                                },
                            }),
                            StepSpec::Scalar(spec) => match self.instantiate(spec, size)? {
                                Arg::Scalar(scalar) => Ok(StepArg::Scalar(scalar)),
                                Arg::Buffer(_) => {
                                    unreachable!("a scalar spec instantiates to a scalar")
                                }
                            },
                        })
                        .collect::<Result<_, _>>()?,
                })
            })
            .collect()
    }
}

impl Context<'_> {
    /// The element a step passes `buffer` from at `size`: a whole number
    /// inside the buffer.
    fn buffer_offset(
        &self,
        offset: &super::values::Compiled,
        buffer: &Arg,
        size: &Size,
    ) -> Result<u64, ConfigError> {
        let Arg::Buffer(buffer) = buffer else {
            return Ok(0);
        };
        let bounds = super::values::Bounds {
            min: 0.0,
            max: buffer.count.saturating_sub(1) as f64,
            max_text: format!(
                "{} (the last element of `{}`, {} at {})",
                buffer.count.saturating_sub(1),
                buffer.name,
                crate::analysis::format::counted(buffer.count as usize, "element"),
                size.label
            ),
            help: "an offset counts elements of the buffer, from 0".into(),
        };
        Ok(self.whole(offset, size, &bounds)? as u64)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::resolve::tests::{err, help, ok, suite};

    #[test]
    fn a_step_passes_a_buffer_from_an_element_on() {
        use crate::config::plan::StepArg;
        let halves = |offset: &str| {
            suite(
                "",
                "",
                &format!(
                    "[[variant]]\nname = \"plain\"\nsource = \"kernels/scale.cu\"\n\
                     args = [\n\
                       {{ name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" }},\n\
                       {{ name = \"out\", buffer = \"f32\", count = \"N\", output = true }},\n]\n\
                     sequence = [\n\
                       {{ entry = \"scale_by<2>\", grid = [\"N / 512\"], block = [256], args = [{{ name = \"in\" }}, {{ name = \"out\" }}, {{ name = \"n\", scalar = \"i32\", value = \"N / 2\" }}] }},\n\
                       {{ entry = \"scale_by<2>\", grid = [\"N / 512\"], block = [256], args = [{{ name = \"in\", offset = {offset} }}, {{ name = \"out\", offset = {offset} }}, {{ name = \"n\", scalar = \"i32\", value = \"N / 2\" }}] }},\n]"
                ),
            )
            .replace("entry = \"scale\"\n\n", "\n")
        };
        let plan = ok(&halves("\"N / 2\""));
        let second = &plan.variants[0].instances[1].sequence[1];
        assert_eq!(
            second.args[..2],
            [
                StepArg::Buffer {
                    index: 0,
                    offset: 2048
                },
                StepArg::Buffer {
                    index: 1,
                    offset: 2048
                }
            ]
        );
        let e = err(&halves("\"N\""));
        assert_eq!(
            e.message(),
            "the offset into `in` of step 2 of variant `plain` is 1024 at N=1024, but must be at most 1023 (the last element of `in`, 1024 elements at N=1024)"
        );
        // Outside a step an offset means nothing.
        let e = err(&suite(
            "",
            "grid = [1]\nblock = [1]\nargs = [{ name = \"in\", buffer = \"f32\", count = \"N\", fill = 0, offset = 4 }]",
            "[[variant]]\nname = \"plain\"",
        ));
        assert_eq!(e.message(), "argument `in` cannot have `offset` here");
    }

    #[test]
    fn a_sequence_launches_its_steps_in_order_sharing_the_variants_buffers() {
        use crate::config::plan::StepArg;
        let buffers = r#"args = [
      { name = "in", buffer = "f32", count = "N", fill = "random" },
      { name = "partial", buffer = "f32", count = 64, fill = "zeros" },
      { name = "out", buffer = "f32", count = 1, output = true },
    ]"#;
        let steps = r#"sequence = [
      { entry = "scale_by<2>", grid = ["cdiv(N, 256)"], block = [256], args = [{ name = "in" }, { name = "partial" }, { name = "n", scalar = "i32", value = "N" }] },
      { entry = "scale", grid = [1], block = [64], shared_bytes = 256, args = [{ name = "partial" }, { name = "out" }, { name = "f", scalar = "f32", value = 0.5 }, { name = "n", scalar = "i32", value = 64 }] },
    ]"#;
        let text = suite(
            "",
            "",
            &format!(
                "[[variant]]\nname = \"plain\"\nsource = \"kernels/scale.cu\"\n{buffers}\n{steps}"
            ),
        )
        .replace("entry = \"scale\"\n\n", "\n");
        let plan = ok(&text);
        let variant = &plan.variants[0];
        assert_eq!(
            variant.kernel().unwrap().entries(),
            ["scale_by<2>", "scale"]
        );
        let instance = &variant.instances[1];
        assert_eq!(instance.sequence.len(), 2);
        assert_eq!(
            (instance.grid, instance.block),
            ([16, 1, 1], [256, 1, 1]),
            "the first step's"
        );
        let second = &instance.sequence[1];
        assert_eq!(
            (
                second.kernel,
                second.grid,
                second.block,
                second.shared_bytes
            ),
            (1, [1, 1, 1], [64, 1, 1], 256)
        );
        assert_eq!(
            second.args[..2],
            [
                StepArg::Buffer {
                    index: 1,
                    offset: 0
                },
                StepArg::Buffer {
                    index: 2,
                    offset: 0
                }
            ]
        );
        assert!(matches!(&second.args[2], StepArg::Scalar(s) if s.value == 0.5));

        let e = err(&text.replace(
            "{ name = \"partial\" }, { name = \"out\" }",
            "{ name = \"partial\" }, { name = \"result\" }",
        ));
        assert_eq!(e.message(), "`result` is not a buffer of the variant");
        assert!(help(&e).contains("(in, partial, out)"), "{e}");
        let e = err(&text.replace(
            "source = \"kernels/scale.cu\"\n",
            "source = \"kernels/scale.cu\"\ngrid = [1]\n",
        ));
        assert_eq!(
            e.message(),
            "variant `plain` launches a `sequence`, so it takes no `grid` of its own"
        );
        let e = err(&text.replace(
            "{ name = \"out\", buffer",
            "{ name = \"k\", scalar = \"i32\", value = 1 },\n  { name = \"out\", buffer",
        ));
        assert!(e.message().contains("scalar `k` belongs to a step"), "{e}");
        // Args from [defaults], written for one-launch variants, say so.
        let inherited = suite(
            "",
            "args = [\n  { name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" },\n  { name = \"n\", scalar = \"i32\", value = \"N\" },\n]",
            "[[variant]]\nname = \"plain\"\nsource = \"kernels/scale.cu\"\nsequence = [\n  { entry = \"scale_by<2>\", grid = [1], block = [32], args = [{ name = \"in\" }, { name = \"in\" }, { name = \"n\", scalar = \"i32\", value = \"N\" }] },\n]",
        )
        .replace("entry = \"scale\"\n", "");
        let e = err(&inherited);
        assert_eq!(
            e.message(),
            "variant `plain` launches a `sequence`, so the `args` it takes from [defaults] declare the buffers its steps share; scalar `n` belongs to a step"
        );
        assert!(
            help(&e).starts_with("give this variant its own `args`"),
            "{e}"
        );
        let e = err(&text.replace(
            "entry = \"scale\", grid = [1]",
            "entry = \"scal\", grid = [1]",
        ));
        assert_eq!(
            e.message(),
            "`scal` is not a kernel of tests/configs/errors/kernels/scale.cu"
        );
        let e = err(&text.replace(
            "{ name = \"out\", buffer = \"f32\", count = 1, output = true },",
            "{ name = \"out\", buffer = \"f32\", count = 1, output = true },\n      { name = \"spare\", buffer = \"f32\", count = 1, output = true },",
        ));
        assert_eq!(
            e.message(),
            "buffer `spare` of variant `plain` is passed by no step of its `sequence`"
        );
    }
}
