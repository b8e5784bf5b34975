//! [`ConfigError`], the one error type of variants.toml loading, and its
//! rendering as a rustc-style diagnostic: the message, the file with line and
//! column, the offending line with a caret underline, notes and a help line
//! that says how to fix it. It also turns `toml`'s own syntax and type errors
//! into that shape, with a "did you mean" where one fits.

use std::fmt;
use std::io;
use std::ops::Range;
use std::path::{Path, PathBuf};

use super::suggest;

/// Why a variants.toml could not be turned into a plan. Its `Display` is the
/// complete user-facing diagnostic, `error: ` prefix included, without a
/// trailing newline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Boxed so that `Result<_, ConfigError>` stays small.
    details: Box<Details>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Details {
    message: String,
    path: PathBuf,
    snippet: Option<Snippet>,
    notes: Vec<String>,
    help: Option<String>,
    /// False for "cannot read": the message names the file already.
    show_path: bool,
}

/// The place an error points at, ready to print.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Snippet {
    /// 1-based.
    line: usize,
    /// 1-based, in characters.
    column: usize,
    /// The line's text with tabs expanded.
    text: String,
    /// Where the underline starts in `text`, in characters.
    caret_start: usize,
    /// At least 1.
    caret_width: usize,
}

const TAB: &str = "    ";

impl ConfigError {
    /// An error about the file at `path` (shown as given), with no location yet.
    pub(crate) fn new(message: impl Into<String>, path: &Path) -> ConfigError {
        ConfigError {
            details: Box::new(Details {
                message: message.into(),
                path: path.to_path_buf(),
                snippet: None,
                notes: Vec::new(),
                help: None,
                show_path: true,
            }),
        }
    }

    /// The file could not be read at all.
    pub(crate) fn read(path: &Path, error: &io::Error) -> ConfigError {
        let mut result = ConfigError::new(format!("cannot read {}: {error}", path.display()), path)
            .help(
                "give the path of an existing, readable variants.toml (see docs/variants-toml.md)",
            );
        result.details.show_path = false;
        result
    }

    /// Points the error at the byte range `span` of `text`, the file's contents.
    pub(crate) fn at(mut self, text: &str, span: Range<usize>) -> ConfigError {
        self.details.snippet = Some(Snippet::new(text, span));
        self
    }

    pub(crate) fn note(mut self, note: impl Into<String>) -> ConfigError {
        self.details.notes.push(note.into());
        self
    }

    pub(crate) fn help(mut self, help: impl Into<String>) -> ConfigError {
        self.details.help = Some(help.into());
        self
    }

    /// A syntax or type error reported by the `toml` crate while reading `text`.
    pub(crate) fn from_toml(error: &toml::de::Error, text: &str, path: &Path) -> ConfigError {
        let message = error.message().trim_end();
        let mut result = ConfigError::new(message, path);
        if let Some(span) = error.span() {
            result = result.at(text, span);
        }
        match toml_help(message) {
            Some(help) => result.help(help),
            None => result,
        }
    }

    /// The first line of the diagnostic, without `error: `.
    pub fn message(&self) -> &str {
        &self.details.message
    }

    /// 1-based line the error points at, if it points into the file.
    pub fn line(&self) -> Option<usize> {
        self.details.snippet.as_ref().map(|s| s.line)
    }

    /// 1-based column (in characters) the error points at, if it points into the file.
    pub fn column(&self) -> Option<usize> {
        self.details.snippet.as_ref().map(|s| s.column)
    }
}

impl Snippet {
    fn new(text: &str, span: Range<usize>) -> Snippet {
        let start = floor_char_boundary(text, span.start.min(text.len()));
        let end = floor_char_boundary(text, span.end.clamp(start, text.len()));
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let raw_line = text[line_start..line_end].trim_end_matches('\r');
        let line = text[..start].matches('\n').count() + 1;
        let before = &text[line_start..start];
        let column = before.chars().count() + 1;
        let underlined = &text[start..end.min(line_start + raw_line.len()).max(start)];
        Snippet {
            line,
            column,
            text: raw_line.replace('\t', TAB),
            caret_start: display_width(before),
            caret_width: display_width(underlined).max(1),
        }
    }
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

fn display_width(text: &str) -> usize {
    text.chars()
        .map(|c| if c == '\t' { TAB.len() } else { 1 })
        .sum()
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.details;
        write!(f, "error: {}", d.message)?;
        let gutter = d.snippet.as_ref().map_or(1, |s| s.line.to_string().len());
        let pad = " ".repeat(gutter);
        match &d.snippet {
            Some(s) => {
                write!(f, "\n{pad}--> {}:{}:{}", d.path.display(), s.line, s.column)?;
                write!(f, "\n{pad} |")?;
                write!(f, "\n{} | {}", s.line, s.text)?;
                write!(
                    f,
                    "\n{pad} | {}{}",
                    " ".repeat(s.caret_start),
                    "^".repeat(s.caret_width)
                )?;
            }
            None if d.show_path => write!(f, "\n{pad}--> {}", d.path.display())?,
            None => {}
        }
        for note in &d.notes {
            write!(f, "\n{pad} = note: {note}")?;
        }
        if let Some(help) = &d.help {
            write!(f, "\n{pad} = help: {help}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

/// A help line for a message of the `toml` crate or of serde.
fn toml_help(message: &str) -> Option<String> {
    if let Some(rest) = message.strip_prefix("unknown field ") {
        let (field, expected) = split_expected(rest);
        return Some(match suggest::closest(&field, &expected) {
            Some(best) => format!("did you mean `{best}`?"),
            None => {
                "remove the key, or check its spelling against docs/variants-toml.md".to_string()
            }
        });
    }
    if let Some(rest) = message.strip_prefix("missing field ") {
        let field = backticked(rest).into_iter().next().unwrap_or_default();
        return Some(match field.as_str() {
            "suite" => {
                "a variants.toml needs a [suite] table with name, sizes and baseline".to_string()
            }
            "sizes" => "add the problem sizes to [suite], e.g. sizes = [1024, 4096]".to_string(),
            _ => format!("add `{field} = ...` to this table (see docs/variants-toml.md)"),
        });
    }
    if message == "duplicate key" {
        return Some("each key may be set once per table: remove one of them".to_string());
    }
    if message.starts_with("invalid type") || message.starts_with("invalid value") {
        let expected = message.rsplit_once(", expected ").map(|(_, e)| e)?;
        return Some(format!("write {} here", describe_expected(expected)));
    }
    if message.starts_with("invalid length") {
        return Some("give the number of entries the key takes (see docs/variants-toml.md)".into());
    }
    Some("this is not valid TOML syntax (see https://toml.io)".to_string())
}

/// `"`x`, expected one of `a`, `b`"` → ("x", ["a", "b"]).
fn split_expected(rest: &str) -> (String, Vec<String>) {
    match rest.split_once(", expected ") {
        Some((field, expected)) => (
            backticked(field).into_iter().next().unwrap_or_default(),
            backticked(expected),
        ),
        None => (
            backticked(rest).into_iter().next().unwrap_or_default(),
            Vec::new(),
        ),
    }
}

/// The `quoted` words of a serde message, in order.
fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// serde's name of an expected type, in words a user of the file knows.
fn describe_expected(expected: &str) -> String {
    match expected {
        "u32" | "u64" => "a whole number (0 or more)".to_string(),
        "i64" | "i32" => "a whole number".to_string(),
        "f64" | "f32" => "a number".to_string(),
        "a boolean" => "true or false".to_string(),
        "a string" => "a string in quotes".to_string(),
        "a sequence" => "an array, e.g. [1, 2]".to_string(),
        other => other.to_string(),
    }
}

/// What is wrong with a regular expression, in one line (the regex crate
/// draws its own caret over several lines; its last line names the problem).
pub fn regex_reason(error: &regex::Error) -> String {
    let text = error.to_string();
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim_start_matches("error: ")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "[suite]\nname = \"t\"\nbaseline = \"naiv\"\n";

    #[test]
    fn renders_like_rustc_with_caret_under_the_span() {
        let start = TEXT.find("\"naiv\"").unwrap();
        let error = ConfigError::new("baseline \"naiv\" is not a variant", Path::new("v.toml"))
            .at(TEXT, start..start + 6)
            .help("the variants are: naive");
        assert_eq!(
            error.to_string(),
            "error: baseline \"naiv\" is not a variant\n \
             --> v.toml:3:12\n  |\n3 | baseline = \"naiv\"\n  |            ^^^^^^\n  \
             = help: the variants are: naive"
        );
        assert_eq!((error.line(), error.column()), (Some(3), Some(12)));
    }

    #[test]
    fn gutter_grows_with_the_line_number_and_notes_come_before_help() {
        let text = format!("{}x = 1\n", "\n".repeat(11));
        let start = text.find('x').unwrap();
        let error = ConfigError::new("bad", Path::new("a.toml"))
            .at(&text, start..start + 1)
            .note("a note")
            .help("a help");
        assert_eq!(
            error.to_string(),
            "error: bad\n  --> a.toml:12:1\n   |\n12 | x = 1\n   | ^\n   = note: a note\n   \
             = help: a help"
        );
    }

    #[test]
    fn empty_and_multi_line_spans_underline_at_least_one_character_on_the_first_line() {
        let text = "a = [\n  1,\n]\n";
        let error = ConfigError::new("m", Path::new("f")).at(text, 4..text.len());
        assert!(error.to_string().ends_with("1 | a = [\n  |     ^"));
        let error = ConfigError::new("m", Path::new("f")).at(text, 2..2);
        assert!(error.to_string().contains("  |   ^"));
        let error = ConfigError::new("m", Path::new("f")).at(text, text.len()..text.len());
        assert_eq!(error.line(), Some(4));
    }

    #[test]
    fn tabs_are_expanded_and_columns_count_characters() {
        let text = "\tname = \"é\" x";
        let start = text.find('x').unwrap();
        let error = ConfigError::new("m", Path::new("f")).at(text, start..start + 1);
        assert_eq!(error.column(), Some(13));
        assert!(
            error
                .to_string()
                .ends_with("1 |     name = \"é\" x\n  |                ^")
        );
    }

    #[test]
    fn read_errors_name_the_path_and_say_what_to_do() {
        let io = io::Error::new(io::ErrorKind::NotFound, "gone");
        let text = ConfigError::read(Path::new("x/v.toml"), &io).to_string();
        assert_eq!(
            text,
            "error: cannot read x/v.toml: gone\n  = help: give the path of an existing, \
             readable variants.toml (see docs/variants-toml.md)"
        );
    }

    #[test]
    fn toml_helps_suggest_the_closest_key_and_describe_types() {
        assert_eq!(
            toml_help("unknown field `nmae`, expected one of `name`, `sizes`").as_deref(),
            Some("did you mean `name`?")
        );
        assert_eq!(
            toml_help("unknown field `zzzzzz`, expected `name` or `x`").as_deref(),
            Some("remove the key, or check its spelling against docs/variants-toml.md")
        );
        assert_eq!(
            toml_help("invalid value: integer `-1`, expected u32").as_deref(),
            Some("write a whole number (0 or more) here")
        );
        assert_eq!(
            toml_help("missing field `baseline`").as_deref(),
            Some("add `baseline = ...` to this table (see docs/variants-toml.md)")
        );
        assert_eq!(
            toml_help("invalid basic string, expected `\"`").as_deref(),
            Some("this is not valid TOML syntax (see https://toml.io)")
        );
    }
}
