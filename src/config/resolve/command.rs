//! Command variants, the user's own program run under ncu: the keys a
//! command refuses (a kernel's, a library's, `verify`), the `kernel`
//! filter and the `expect` pattern that must be regular expressions, the
//! launch count, the folder it runs in, and the `{N}` placeholders filled
//! at each size.

use std::path::PathBuf;

use toml::Spanned;

use super::variant::CommandLine;
use super::{Context, Doc, Merged, merged};
use crate::config::error::ConfigError;
use crate::config::plan::CommandVariant;
use crate::config::raw::RawVariant;
use crate::model::suite::Size;

/// Matching launches a command variant profiles by default.
const DEFAULT_LAUNCHES: u32 = 5;

/// `{N}` in a command's arguments becomes the size's value of N.
pub(super) fn fill_placeholders(
    doc: &Doc<'_>,
    argv: &[Spanned<String>],
    size: &Size,
) -> Result<Vec<String>, ConfigError> {
    argv.iter()
        .map(|arg| {
            let text = arg.get_ref();
            let mut filled = String::new();
            let mut rest = text.as_str();
            while let Some(open) = rest.find('{') {
                filled.push_str(&rest[..open]);
                let Some(close) = rest[open..].find('}') else {
                    return Err(doc
                        .error(
                            arg.span(),
                            format!("`{text}` opens a placeholder with {{ but never closes it"),
                        )
                        .help("write {N} for a size symbol"));
                };
                let symbol = &rest[open + 1..open + close];
                match size.symbols.get(symbol) {
                    Some(value) => filled.push_str(&value.to_string()),
                    None => {
                        let known: Vec<&str> = size.symbols.keys().map(String::as_str).collect();
                        return Err(doc
                            .error(arg.span(), format!("`{{{symbol}}}` is not a size symbol"))
                            .help(format!(
                                "the symbols at {} are: {}",
                                size.label,
                                known.join(", ")
                            )));
                    }
                }
                rest = &rest[open + close + 1..];
            }
            filled.push_str(rest);
            Ok(filled)
        })
        .collect()
}

impl Context<'_> {
    /// A command's outputs are its own: it takes no kernel, library or
    /// `verify` keys in the variant itself.
    pub(super) fn refuse_kernel_keys_of_command(
        &self,
        raw: &RawVariant,
        name: &str,
        command: &Merged<CommandLine>,
    ) -> Result<(), ConfigError> {
        let doc = self.doc;
        let library_or_verify = [
            ("library", raw.library.as_ref().map(|v| v.span())),
            ("verify", raw.verify.as_ref().map(|v| v.span())),
        ];
        for (key, given) in super::kernel_keys(raw).into_iter().chain(library_or_verify) {
            if let Some(span) = given {
                return Err(doc
                    .error(span, format!("variant `{name}` runs a command, so it takes no `{key}`"))
                    .help(format!(
                        "remove `{key}`, or remove `command` to run a kernel (line {}); a command's outputs are its own: its exit status and `expect` say whether it is correct",
                        doc.text[..command.value.span().start].matches('\n').count() + 1
                    )));
            }
        }
        Ok(())
    }

    /// The regular expression ncu matches kernel names against: `kernel`,
    /// required of a command.
    pub(super) fn kernel_filter(
        &self,
        raw: &RawVariant,
        missing: &dyn Fn(&str, &str) -> ConfigError,
    ) -> Result<String, ConfigError> {
        let kernel = merged(raw, self.defaults, |r| &r.kernel).ok_or_else(|| {
            missing(
                "kernel",
                "kernel = \"transpose\" (a regular expression ncu matches against kernel names)",
            )
        })?;
        self.regular_expression(
            kernel.value,
            "kernel",
            "write a regular expression matching the kernel's name, e.g. \"transpose_naive\" or \"^sgemm\"",
        )
    }

    /// `expect`, optional: a regular expression that some line the program
    /// prints must match for its result to count as correct.
    fn expect_pattern(&self, raw: &RawVariant) -> Result<Option<String>, ConfigError> {
        merged(raw, self.defaults, |r| &r.expect)
            .map(|expect| {
                self.regular_expression(
                    expect.value,
                    "expect",
                    "write a regular expression matching the line the program prints on success, e.g. \"Test PASSED\"",
                )
            })
            .transpose()
    }

    /// The text of `value`, refused with `help` unless it is a regular
    /// expression.
    fn regular_expression(
        &self,
        value: &Spanned<String>,
        key: &str,
        help: &str,
    ) -> Result<String, ConfigError> {
        if let Err(e) = regex::Regex::new(value.get_ref()) {
            let reason = crate::config::error::regex_reason(&e);
            return Err(self
                .doc
                .error(
                    value.span(),
                    format!("`{key}` is not a regular expression: {reason}"),
                )
                .help(help.to_string()));
        }
        Ok(value.get_ref().clone())
    }

    /// How a command variant is built, profiled and checked: its build
    /// line, kernel filter, launches (1 to 1000), `expect` pattern and the
    /// folder it runs in.
    pub(super) fn command_variant(&self, raw: &RawVariant) -> Result<CommandVariant, ConfigError> {
        let doc = self.doc;
        let d = self.defaults;
        Ok(CommandVariant {
            build: merged(raw, d, |r| &r.build).map(|m| m.value.clone()),
            kernel: merged(raw, d, |r| &r.kernel)
                .map(|m| m.value.get_ref().clone())
                .unwrap_or_default(),
            launches: match merged(raw, d, |r| &r.launches) {
                None => DEFAULT_LAUNCHES,
                Some(m) => match u32::try_from(*m.value.get_ref()) {
                    Ok(n) if (1..=1000).contains(&n) => n,
                    _ => {
                        return Err(doc
                            .error(m.value.span(), format!("`launches` is {}, but must be 1 to 1000", m.value.get_ref()))
                            .help("how many matching launches ncu profiles; their durations are the timing samples"));
                    }
                },
            },
            expect: self.expect_pattern(raw)?,
            folder: if doc.dir.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                doc.dir.to_path_buf()
            },
        })
    }
}
