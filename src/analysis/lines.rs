//! Source lines compared between a step and the step before it: the lines
//! with excess shared wavefronts or global sectors in the previous variant
//! are matched to this variant's lines by their code, or, for a statement
//! that was edited, by the same kind of access (shared or global, load or
//! store) to the same array with the most similar code, so the report can
//! say "line 22's 32-way conflict is gone", "remains on line 21" or "got
//! worse: … on line 58, its edited form" (with the conflict's degree
//! worded by `findings::conflict_words`).

use serde::Serialize;

use super::findings::{HotLine, conflict_words};
use super::format;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineChange {
    /// The problem of the previous step's line is no longer there.
    Gone,
    /// The same code still has the problem, about as badly.
    Remains,
    /// The same code has the problem, less than half as badly.
    Reduced,
    /// The same code has the problem, more than half again as badly.
    Worse,
    /// A problem line that the previous step did not have.
    New,
}

/// One problem line followed from the previous step to this one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LineDiff {
    pub change: LineChange,
    /// The sentence the report shows.
    pub text: String,
}

/// What is wrong on a line: the kind of access (`shared-load`,
/// `global-store`…), its factor over ncu's ideal, and its words.
struct Problem {
    access: String,
    factor: f64,
    words: String,
}

fn problem(line: &HotLine) -> Option<Problem> {
    let shared = line
        .worst_shared()
        .map(|(kind, ways)| Problem {
            access: format!("shared-{kind}"),
            factor: ways,
            words: conflict_words(ways, &format!("shared-{kind} conflict")),
        })
        .or_else(|| {
            line.shared_ways.map(|w| Problem {
                access: "shared".into(),
                factor: w,
                words: conflict_words(w, "shared-memory conflict"),
            })
        })
        .filter(|p| p.factor > 1.5);
    let global = line
        .worst_global()
        .map(|(kind, f)| Problem {
            access: format!("global-{kind}"),
            factor: f,
            words: format!(
                "excess global {kind} sectors ({} the ideal)",
                format::speedup(f)
            ),
        })
        .or_else(|| {
            line.global_excess_factor.map(|f| Problem {
                access: "global".into(),
                factor: f,
                words: format!("excess global sectors ({} the ideal)", format::speedup(f)),
            })
        })
        .filter(|p| p.factor > 1.2);
    match (shared, global) {
        (Some(s), Some(g)) => Some(if s.factor >= g.factor { s } else { g }),
        (s, g) => s.or(g),
    }
}

/// `code` with its runs of whitespace as single spaces: the same statement
/// however it is indented.
pub(super) fn normalized(code: &str) -> String {
    code.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The arrays a line indexes: every identifier followed by `[`.
fn arrays(code: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let bytes = code.as_bytes();
    for (at, _) in code.match_indices('[') {
        let end = code[..at].trim_end().len();
        let start = code[..end]
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        if start < end && !bytes[start].is_ascii_digit() {
            found.push(&code[start..end]);
        }
    }
    found
}

/// The line of `current` that `before` most likely became when its
/// statement was edited: a problem line not yet matched, with the same
/// kind of access to an array they share, and the most similar code (at
/// least half alike).
fn edited<'a>(
    before: &HotLine,
    access: &str,
    current: &'a [HotLine],
    matched: &[u32],
) -> Option<(&'a HotLine, Problem)> {
    let code = normalized(&before.code);
    let names = arrays(&before.code);
    current
        .iter()
        .filter(|l| !matched.contains(&l.line))
        .filter(|l| arrays(&l.code).iter().any(|a| names.contains(a)))
        .filter_map(|l| {
            let found = problem(l).filter(|p| p.access == access)?;
            let alike = strsim::normalized_levenshtein(&code, &normalized(&l.code));
            (alike >= 0.5).then_some((l, found, alike))
        })
        .max_by(|a, b| a.2.total_cmp(&b.2))
        .map(|(l, found, _)| (l, found))
}

/// How a problem changed from `before` to `after` on a followed line.
fn compared(before: f64, after: f64) -> (LineChange, &'static str) {
    if after <= before / 2.0 {
        (LineChange::Reduced, "is reduced to")
    } else if after >= before * 1.5 {
        (LineChange::Worse, "got worse:")
    } else {
        (LineChange::Remains, "remains:")
    }
}

/// Follows every problem line of `previous` into `current`, then lists the
/// problem lines `current` has that `previous` did not.
pub fn diff(previous_name: &str, previous: &[HotLine], current: &[HotLine]) -> Vec<LineDiff> {
    let mut diffs = Vec::new();
    let mut matched = Vec::new();
    for before in previous {
        let Some(was) = problem(before) else {
            continue;
        };
        let same_code = current
            .iter()
            .find(|l| normalized(&l.code) == normalized(&before.code) && !l.code.is_empty());
        if let Some(line) = same_code {
            matched.push(line.line);
        }
        let after = match same_code {
            Some(line) => problem(line).map(|p| (line, p, false)),
            None => edited(before, &was.access, current, &matched).map(|(l, p)| (l, p, true)),
        };
        let origin = format!("`{previous_name}` line {} (`{}`)", before.line, before.code);
        let (change, text) = match after {
            None => (
                LineChange::Gone,
                match same_code {
                    Some(line) => format!(
                        "{origin}: its {} is gone (now line {}).",
                        was.words, line.line
                    ),
                    None => format!(
                        "{origin}: its {} is gone; that code is no longer a problem line.",
                        was.words
                    ),
                },
            ),
            Some((line, now, edited)) => {
                matched.push(line.line);
                let (change, verb) = compared(was.factor, now.factor);
                let place = match edited {
                    true => format!("on line {}, its edited form (`{}`)", line.line, line.code),
                    false => format!("on line {}", line.line),
                };
                (
                    change,
                    format!("{origin}: its {} {verb} {} {place}.", was.words, now.words),
                )
            }
        };
        diffs.push(LineDiff { change, text });
    }
    for line in current {
        if matched.contains(&line.line) {
            continue;
        }
        if let Some(found) = problem(line) {
            diffs.push(LineDiff {
                change: LineChange::New,
                text: format!(
                    "New: line {} (`{}`) has {}.",
                    line.line, line.code, found.words
                ),
            });
        }
    }
    diffs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::source::{Count, Split};

    fn line(number: u32, code: &str, shared: (f64, f64)) -> HotLine {
        HotLine {
            line: number,
            code: code.into(),
            sample_share: None,
            instruction_share: None,
            waits_for: None,
            shared_ways: Some(shared.0 / shared.1),
            shared_excess_wavefronts: Some(shared.0 - shared.1),
            global_excess_factor: None,
            global_excess_sectors: None,
            top_stall: None,
            access: String::new(),
            split: Split {
                shared_load_wavefronts: Count {
                    actual: shared.0,
                    ideal: shared.1,
                },
                ..Split::default()
            },
        }
    }

    #[test]
    fn a_fixed_conflict_is_gone_and_a_kept_one_remains() {
        let read = "out[i] = tile[threadIdx.x][j];";
        let fixed = diff(
            "tiled",
            &[line(22, read, (32.0, 1.0))],
            &[line(21, read, (1.0, 1.0))],
        );
        assert_eq!(fixed[0].change, LineChange::Gone);
        assert_eq!(
            fixed[0].text,
            "`tiled` line 22 (`out[i] = tile[threadIdx.x][j];`): its 32-way shared-load conflict is gone (now line 21)."
        );
        let kept = diff(
            "tiled",
            &[line(22, read, (32.0, 1.0))],
            &[line(30, read, (31.0, 1.0))],
        );
        assert_eq!(kept[0].change, LineChange::Remains);
        let halved = diff(
            "tiled",
            &[line(22, read, (32.0, 1.0))],
            &[line(30, read, (8.0, 1.0))],
        );
        assert_eq!(halved[0].change, LineChange::Reduced);
        assert!(halved[0].text.ends_with(
            "is reduced to shared-load conflict (on average 8.00× the ideal wavefronts) on line 30."
        ));
    }

    #[test]
    fn new_problem_lines_are_listed() {
        let found = diff(
            "a",
            &[],
            &[
                line(5, "x = s[t * 2];", (2.0, 1.0)),
                line(6, "y = 1;", (1.0, 1.0)),
            ],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].change, LineChange::New);
        assert_eq!(
            found[0].text,
            "New: line 5 (`x = s[t * 2];`) has shared-load conflict (on average 2.00× the ideal wavefronts)."
        );
    }

    #[test]
    fn an_edited_statement_is_followed_and_a_worse_conflict_said_so() {
        let found = diff(
            "strided",
            &[line(
                57,
                "sdata[2 * s * tid] += sdata[2 * s * tid + s];",
                (2.0, 1.0),
            )],
            &[
                line(40, "x = other[tid];", (1.0, 1.0)),
                line(
                    58,
                    "sdata[4 * s * tid] += sdata[4 * s * tid + s];",
                    (4.0, 1.0),
                ),
            ],
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].change, LineChange::Worse);
        assert_eq!(
            found[0].text,
            "`strided` line 57 (`sdata[2 * s * tid] += sdata[2 * s * tid + s];`): its shared-load conflict (on average 2.00× the ideal wavefronts) got worse: shared-load conflict (on average 4.00× the ideal wavefronts) on line 58, its edited form (`sdata[4 * s * tid] += sdata[4 * s * tid + s];`)."
        );
        // Another array, or code too different, is not the same statement.
        let unrelated = diff(
            "a",
            &[line(57, "sdata[2 * s * tid] += 1;", (2.0, 1.0))],
            &[line(58, "tile[ty][tx] = in[i];", (4.0, 1.0))],
        );
        assert_eq!(unrelated[0].change, LineChange::Gone);
        assert_eq!(unrelated[1].change, LineChange::New);
    }

    #[test]
    fn arrays_are_the_identifiers_before_a_bracket() {
        assert_eq!(
            arrays("out[i] = tile [threadIdx.x][j] + b[0];"),
            ["out", "tile", "b"]
        );
        assert!(arrays("x = 1;").is_empty());
    }
}
