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
use crate::config::plan::ElementType;
use crate::config::signature::{self, CType, Parameter, Takes};

impl Context<'_> {
    /// That `args` fit the parameters of `kernel` (a kernel of the source
    /// whose type aliases are `aliases`), launched as `entry` by `launch`
    /// ("variant `x`", "step 2 of variant `x`").
    pub(super) fn check_arguments(
        &self,
        entry: &Spanned<String>,
        kernel: &Kernel,
        aliases: &[(String, String)],
        args: &[&ArgSpec],
        launch: &str,
    ) -> Result<(), ConfigError> {
        let instance = signature::instance_arguments(entry.get_ref()).unwrap_or_default();
        let Some(parameters) = signature::parameters(
            &kernel.parameters,
            kernel.template.as_deref(),
            &instance,
            aliases,
        ) else {
            return Ok(());
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
            // Where every argument is named after a parameter, the missing
            // ones are the parameters no argument names; otherwise, by
            // position, the last ones.
            let by_name = passed.iter().all(|arg| {
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
                    "add an argument for {} to `args`: one per parameter, in order (a buffer with `symbol` fills a variable of the module and is no parameter)",
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
            if let Some((message, mut help)) = mismatch(arg, parameter) {
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
        Ok(())
    }
}

/// What is wrong with passing `arg` to `parameter`, and how to fix it.
fn mismatch(arg: &ArgSpec, parameter: &Parameter) -> Option<(String, String)> {
    match (arg, &parameter.takes) {
        (ArgSpec::Buffer(buffer), Takes::Value(_)) => Some((
            format!("`{}` is a buffer", buffer.name),
            format!(
                "the kernel takes a value there: pass a scalar, {{ name = \"{}\", scalar = \"{}\", value = \"…\" }}",
                buffer.name,
                parameter.element().map(ElementType::name).unwrap_or("…")
            ),
        )),
        (ArgSpec::Scalar(scalar), Takes::Pointer(_)) => Some((
            format!("`{}` is a scalar", scalar.name),
            format!(
                "the kernel takes a pointer there: pass a buffer, {{ name = \"{}\", buffer = \"{}\", count = \"…\" }}",
                scalar.name,
                parameter.element().map_or("…", ElementType::name)
            ),
        )),
        (ArgSpec::Buffer(buffer), Takes::Pointer(Some(pointee)))
            if !holds(buffer.element, *pointee, parameter) =>
        {
            Some((
                format!(
                    "buffer `{}` holds {}",
                    buffer.name,
                    described(buffer.element)
                ),
                format!(
                    "declare buffer = \"{}\" to match the kernel's pointer",
                    parameter.element().map_or("…", ElementType::name)
                ),
            ))
        }
        (ArgSpec::Scalar(scalar), Takes::Value(c_type))
            if !passes(scalar.element, *c_type, parameter) =>
        {
            let help = match parameter.element().map(ElementType::name) {
                Some(element) => format!("declare scalar = \"{element}\""),
                None => format!(
                    "no scalar type of gpuprof ({}) passes a {}-byte {}: launch it from a kernel that takes one of those",
                    ElementType::ALL.map(ElementType::name).join(", "),
                    c_type.bytes,
                    match c_type.float {
                        true => "float",
                        false => "integer",
                    }
                ),
            };
            Some((
                format!("scalar `{}` is {}", scalar.name, described(scalar.element)),
                help,
            ))
        }
        _ => None,
    }
}

/// Whether a buffer of `element` is what a pointer to `pointee` reads:
/// the same kind and size (signedness aside, as C converts freely), and
/// for a 2-byte float the same one of f16 and bf16 where the text says.
fn holds(element: ElementType, pointee: CType, parameter: &Parameter) -> bool {
    if !matches!(pointee.bytes, 1 | 2 | 4 | 8) {
        return true;
    }
    let same_kind = pointee.float == element.is_float() && pointee.bytes == element.size_bytes();
    same_kind && (!pointee.float || pointee.bytes != 2 || same_half(element, parameter))
}

/// Whether a 2-byte float `element` is the one `parameter` declares (true
/// when the text does not say).
fn same_half(element: ElementType, parameter: &Parameter) -> bool {
    parameter
        .two_byte_float()
        .is_none_or(|declared| declared == element)
}

/// Whether a scalar of `element` is read right by a parameter of
/// `c_type`: a float of the same size (and the same 2-byte float), or an
/// integer at least as wide (the kernel reads its low bytes; the value was
/// checked to fit when it is small).
fn passes(element: ElementType, c_type: CType, parameter: &Parameter) -> bool {
    match (element.is_float(), c_type.float) {
        (true, true) => {
            element.size_bytes() == c_type.bytes
                && (c_type.bytes != 2 || same_half(element, parameter))
        }
        (false, false) => element.size_bytes() >= c_type.bytes,
        _ => false,
    }
}

/// `an f32 (4-byte float)`, `a u8 (1-byte integer)`.
fn described(element: ElementType) -> String {
    let kind = match element.is_float() {
        true => "float",
        false => "integer",
    };
    format!(
        "{} ({}-byte {kind})",
        element.with_article(),
        element.size_bytes()
    )
}
