//! That a launch's arguments fit its kernel's declaration, before anything
//! is compiled: one argument per parameter, in order (a buffer bound to a
//! module variable with `symbol` is no parameter), a buffer where the
//! kernel takes a pointer and a scalar where it takes a value, and types
//! that a launch passes as the kernel reads them. The driver copies each
//! parameter's bytes from what gpuprof hands it, so a missing argument or
//! an `i32` where the kernel takes a `size_t` is garbage in the kernel, not
//! an error: it is refused here, at the line of the toml. Types the source
//! scan cannot name are left unchecked (`config::signature`).

use toml::Spanned;

use super::Context;
use super::args::ArgSpec;
use crate::config::error::ConfigError;
use crate::config::kernels::Kernel;
use crate::config::signature::{self, Parameter, Passed};

impl Context<'_> {
    /// That `args` fit the parameters of `kernel` (a kernel of the source
    /// whose type aliases are `aliases`), launched as `entry` by `launch`;
    /// a variant's own arguments also in the order the kernel names them
    /// (a sequence's steps pass the variant's buffers under the variant's
    /// names, and ping-pong between them on purpose); and how the launch
    /// passes its buffers, for [`Self::refuse_read_only_outputs`].
    pub(super) fn check_arguments(
        &self,
        entry: &Spanned<String>,
        kernel: &Kernel,
        aliases: &[(String, String)],
        args: &[&ArgSpec],
        launch: &Launcher,
    ) -> Result<Vec<PassedBuffer>, ConfigError> {
        let instance = signature::instance_arguments(entry.get_ref()).unwrap_or_default();
        let Some(parameters) = signature::parameters(
            &kernel.parameters,
            kernel.template.as_deref(),
            &instance,
            aliases,
        ) else {
            return Ok(Vec::new());
        };
        let passed: Vec<&ArgSpec> = args
            .iter()
            .copied()
            .filter(|arg| !matches!(arg, ArgSpec::Buffer(b) if b.symbol.is_some()))
            .collect();
        let listed = || {
            let written: Vec<&str> = parameters.iter().map(|p| p.written.as_str()).collect();
            format!(
                "`{}` is declared ({})",
                kernel.name,
                match written.is_empty() {
                    true => "no parameters".to_string(),
                    false => written.join(", "),
                }
            )
        };
        if passed.len() < parameters.len() {
            // Where every argument of a variant is named after a parameter,
            // the missing ones are the parameters no argument names;
            // otherwise (and in a step, whose buffers bear the variant's
            // names), by position, the last ones.
            let by_name = matches!(launch, Launcher::Variant(_))
                && passed.iter().all(|arg| {
                    parameters
                        .iter()
                        .any(|p| p.name().as_deref() == Some(arg.name()))
                });
            let missing: Vec<String> = parameters
                .iter()
                .enumerate()
                .filter(|(at, p)| match by_name {
                    true => !passed
                        .iter()
                        .any(|arg| p.name().as_deref() == Some(arg.name())),
                    false => *at >= passed.len(),
                })
                .map(|(_, p)| format!("`{}`", p.written))
                .collect();
            // A C++ default (`int *partial = NULL`) is the compiler's, at a
            // call it compiles; a launch through the driver passes every
            // parameter.
            let defaulted = parameters
                .iter()
                .skip(passed.len())
                .any(|p| p.written.contains('='));
            let default_note = match defaulted {
                true => {
                    "; a parameter's C++ default is not applied to a launch through the driver, so pass it (a buffer of one element where the kernel ignores a null pointer's place)"
                }
                false => "",
            };
            return Err(self
                .doc
                .error(
                    entry.span(),
                    format!(
                        "`{}` takes {} but {launch} passes {}",
                        kernel.name,
                        crate::analysis::format::counted(parameters.len(), "parameter"),
                        crate::analysis::format::counted(passed.len(), "argument")
                    ),
                )
                .note(listed())
                .help(format!(
                    "add an argument for {} to `args`: one per parameter, in order (a buffer with `symbol` fills a variable of the module and is no parameter){default_note}",
                    missing.join(", ")
                )));
        }
        if let Some(extra) = passed.get(parameters.len()) {
            return Err(self
                .doc
                .error(
                    extra.name_span(),
                    format!(
                        "{launch} passes {} but `{}` takes {}",
                        crate::analysis::format::counted(passed.len(), "argument"),
                        kernel.name,
                        crate::analysis::format::counted(parameters.len(), "parameter")
                    ),
                )
                .note(listed())
                .help(format!(
                    "remove `{}` and any argument after it, or give `entry` the kernel that takes them",
                    extra.name()
                )));
        }
        for (position, (arg, parameter)) in passed.iter().zip(&parameters).enumerate() {
            let passed = match arg {
                ArgSpec::Buffer(buffer) => Passed::Buffer {
                    name: &buffer.name,
                    element: buffer.element,
                },
                ArgSpec::Scalar(scalar) => Passed::Scalar {
                    name: &scalar.name,
                    element: scalar.element,
                },
            };
            if let Some((message, mut help)) = signature::mismatch(passed, parameter) {
                let declared_at = parameters
                    .iter()
                    .position(|p| p.name().as_deref() == Some(arg.name()));
                if let Some(elsewhere) = declared_at.filter(|&at| at != position) {
                    help = format!(
                        "`{}` is parameter {} of `{}`: list the arguments in the order the kernel declares them",
                        arg.name(),
                        elsewhere + 1,
                        kernel.name
                    );
                }
                return Err(self
                    .doc
                    .error(
                        arg.name_span(),
                        format!(
                            "{message}, but parameter {} of `{}` is `{}`",
                            position + 1,
                            kernel.name,
                            parameter.written
                        ),
                    )
                    .note(listed())
                    .help(help));
            }
        }
        if let Launcher::Variant(_) = launch {
            self.check_order(kernel, &parameters, &passed, launch)
                .map_err(|e| e.note(listed()))?;
        }
        Ok(passed
            .iter()
            .zip(&parameters)
            .enumerate()
            .filter(|(_, (arg, _))| matches!(arg, ArgSpec::Buffer(_)))
            .map(|(position, (arg, parameter))| PassedBuffer {
                name: arg.name().to_string(),
                read_only: parameter.points_to_const().then(|| {
                    format!(
                        "parameter {} of `{}`, `{}`",
                        position + 1,
                        kernel.name,
                        parameter.written
                    )
                }),
            })
            .collect())
    }

    /// That arguments named after the kernel's parameters stand where
    /// those parameters are: an argument named like another parameter,
    /// where another argument is named like this one's (`idata` passed
    /// first to `(float *odata, const float *idata)`), is two arguments
    /// swapped, which the types alone cannot show when they agree.
    fn check_order(
        &self,
        kernel: &Kernel,
        parameters: &[Parameter],
        passed: &[&ArgSpec],
        launch: &Launcher,
    ) -> Result<(), ConfigError> {
        let named = |at: usize| parameters[at].name();
        for (position, arg) in passed.iter().enumerate() {
            let here = named(position);
            if here.as_deref() == Some(arg.name()) {
                continue;
            }
            let declared_at = (0..parameters.len())
                .find(|&at| at != position && named(at).as_deref() == Some(arg.name()));
            let displaced = here.is_some_and(|here| {
                passed
                    .iter()
                    .enumerate()
                    .any(|(k, other)| k != position && other.name() == here)
            });
            if let (Some(declared_at), true) = (declared_at, displaced) {
                return Err(self
                    .doc
                    .error(
                        arg.name_span(),
                        format!(
                            "{launch} passes `{}` as parameter {} of `{}`, `{}`, but the kernel declares `{}` as parameter {}",
                            arg.name(),
                            position + 1,
                            kernel.name,
                            parameters[position].written,
                            arg.name(),
                            declared_at + 1
                        ),
                    )
                    .help(format!(
                        "list the arguments in the order the kernel declares them: {}",
                        parameters
                            .iter()
                            .map(|p| p.name().unwrap_or_else(|| "…".into()))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )));
            }
        }
        Ok(())
    }

    /// That every output buffer is passed to at least one parameter the
    /// kernel can write through: one that reaches only `const` pointers
    /// (`output = true` on `const float *in`) would be compared without
    /// ever being written. `passed` gathers how every launch of the
    /// variant passes its buffers.
    pub(super) fn refuse_read_only_outputs(
        &self,
        buffers: &[&ArgSpec],
        passed: &[PassedBuffer],
    ) -> Result<(), ConfigError> {
        for arg in buffers {
            let ArgSpec::Buffer(buffer) = arg else {
                continue;
            };
            if !buffer.output || buffer.symbol.is_some() {
                continue;
            }
            let mut uses = passed.iter().filter(|p| p.name == buffer.name).peekable();
            if uses.peek().is_none() {
                continue;
            }
            let read_only: Option<Vec<&str>> = uses.map(|p| p.read_only.as_deref()).collect();
            if let Some(parameters) = read_only {
                return Err(self
                    .doc
                    .error(
                        buffer.name_span.clone(),
                        format!(
                            "output buffer `{}` is passed only as {}: the kernel cannot write through a pointer to const",
                            buffer.name,
                            parameters.join(" and ")
                        ),
                    )
                    .help(
                        "mark as output (output = true) the buffer the kernel writes, and give this one a fill instead",
                    ));
            }
        }
        Ok(())
    }
}

/// Which launch passes arguments: a variant's one kernel, or a step of
/// its sequence (counted from 0).
pub(super) enum Launcher<'a> {
    Variant(&'a str),
    /// A step of a sequence, by its place (`2`, or `2.1` inside a group),
    /// and the variant.
    Step(&'a str, &'a str),
}

impl std::fmt::Display for Launcher<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Launcher::Variant(name) => write!(f, "variant `{name}`"),
            Launcher::Step(place, name) => write!(f, "step {place} of variant `{name}`"),
        }
    }
}

/// How a launch passes one of its buffers: by name, and the parameter
/// when it points to const (`parameter 1 of \`k\`, \`const float *in\``).
pub(super) struct PassedBuffer {
    name: String,
    read_only: Option<String>,
}
