//! The checks across variants, once every variant is resolved: that a
//! variant's outputs can be compared with those of the variant it verifies
//! against (each has a counterpart of the same name, and element type
//! unless both are floats, and of the same count when compared
//! elementwise), and that no chain of
//! `verify` goes round in a circle.

use super::{Context, Doc, OutputSpans, Resolved};
use crate::config::error::ConfigError;
use crate::config::plan::{Arg, Compare, Instance, Verify};

impl Context<'_> {
    /// Checks that `resolved`'s outputs can be compared with its reference's.
    pub(super) fn check_outputs(
        &self,
        resolved: &Resolved,
        all: &[Resolved],
    ) -> Result<(), ConfigError> {
        let Verify::Against(reference_name) = &resolved.variant.verify else {
            return Ok(());
        };
        let name = &resolved.variant.name;
        let doc = self.doc;
        let Some(reference) = all.iter().find(|r| &r.variant.name == reference_name) else {
            return Ok(());
        };
        if resolved.outputs.is_empty() {
            return Err(doc
                .error(
                    resolved
                        .verify_span
                        .clone()
                        .unwrap_or(resolved.header.clone()),
                    format!(
                        "variant `{name}` verifies against `{reference_name}` but has no outputs"
                    ),
                )
                .help(
                    "mark the buffers the kernel writes with output = true, or write \
                     verify = \"none\"",
                ));
        }
        for (index, size) in self.sizes.iter().enumerate() {
            let ours = &resolved.variant.instances[index];
            let theirs = &reference.variant.instances[index];
            for output in &resolved.outputs {
                let Some(Arg::Buffer(mine)) = ours.args.iter().find(|a| arg_name(a) == output.name)
                else {
                    continue;
                };
                let counterpart = theirs.args.iter().find_map(|a| match a {
                    Arg::Buffer(b) if b.name == output.name && b.output => Some(b),
                    _ => None,
                });
                let Some(other) = counterpart else {
                    return Err(self.no_counterpart(output, name, reference_name, theirs));
                };
                // Two float types compare (each read as f64, held to the
                // coarser one's precision); an integer output must match.
                let both_float = other.element.is_float() && mine.element.is_float();
                if other.element != mine.element && !both_float {
                    return Err(doc
                        .error(
                            output.element_span.clone(),
                            format!(
                                "output `{}` is {} in `{name}` but {} in `{reference_name}`, which \
                                 it verifies against",
                                output.name,
                                mine.element.name(),
                                other.element.name()
                            ),
                        )
                        .help("an integer output is compared exactly, with an output of its own type: give both the same element type, or verify = \"none\" (float outputs of two precisions, f16 against f32, do compare)"));
                }
                if mine.compare == Compare::Elementwise && other.count != mine.count {
                    return Err(doc
                        .error(
                            output.count_span.clone(),
                            format!(
                                "output `{}` has {} elements in `{name}` but {} in \
                                 `{reference_name}` (its reference) at {}",
                                output.name, mine.count, other.count, size.label
                            ),
                        )
                        .help(
                            "elementwise verification needs the same count: fix the count, use \
                             compare = \"sum\" if only the sums must agree, or verify = \"none\"",
                        ));
                }
            }
        }
        Ok(())
    }

    /// The error for an output of `name` that its reference, with the
    /// arguments `theirs`, has no output of the same name for.
    fn no_counterpart(
        &self,
        output: &OutputSpans,
        name: &str,
        reference_name: &str,
        theirs: &Instance,
    ) -> ConfigError {
        let outputs: Vec<&str> = theirs
            .args
            .iter()
            .filter_map(|a| match a {
                Arg::Buffer(b) if b.output => Some(b.name.as_str()),
                _ => None,
            })
            .collect();
        let listed = if outputs.is_empty() {
            format!("`{reference_name}` has no outputs")
        } else {
            format!(
                "the outputs of `{reference_name}` are: {}",
                outputs.join(", ")
            )
        };
        self.doc
            .error(
                output.name_span.clone(),
                format!(
                    "output `{}` of `{name}` has no counterpart in `{reference_name}`, \
                     which it verifies against",
                    output.name
                ),
            )
            .note(listed)
            .help(
                "verification pairs outputs by name: name them alike, or choose \
                 another verify (\"none\" skips verification)",
            )
    }
}

fn arg_name(arg: &Arg) -> &str {
    match arg {
        Arg::Buffer(b) => &b.name,
        Arg::Scalar(s) => &s.name,
    }
}

/// Refuses verification chains that go round in a circle: then no variant
/// of the circle is checked against an independent result.
pub(super) fn check_verify_cycles(doc: &Doc, resolved: &[Resolved]) -> Result<(), ConfigError> {
    let target = |name: &str| {
        resolved
            .iter()
            .position(|r| r.variant.name == name)
            .and_then(|i| match &resolved[i].variant.verify {
                Verify::Against(t) => resolved.iter().position(|r| &r.variant.name == t),
                Verify::Skip => None,
            })
    };
    for (start, variant) in resolved.iter().enumerate() {
        let mut chain = vec![start];
        let mut current = target(&variant.variant.name);
        while let Some(next) = current {
            if next == start {
                let names: Vec<&str> = chain
                    .iter()
                    .chain([&start])
                    .map(|&i| resolved[i].variant.name.as_str())
                    .collect();
                let (span, culprit) = chain
                    .iter()
                    .find_map(|&i| resolved[i].verify_span.clone().map(|s| (s, i)))
                    .unwrap_or((variant.header.clone(), start));
                return Err(doc
                    .error(
                        span,
                        format!("verification goes round in a circle: {}", names.join(" → ")),
                    )
                    .help(format!(
                        "one variant must be checked against an independent result: point \
                         `{}` at another variant, or write verify = \"none\" on the one you trust",
                        resolved[culprit].variant.name
                    )));
            }
            if chain.contains(&next) {
                break;
            }
            chain.push(next);
            current = target(&resolved[next].variant.name);
        }
    }
    Ok(())
}
