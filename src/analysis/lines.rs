//! Source lines compared between a step and the step before it: the lines
//! with excess shared wavefronts or global sectors in the previous variant
//! are matched, by their code, to this variant's lines, so the report can
//! say "line 22's 32-way conflict is gone" or "remains on line 21" (with
//! the conflict's degree worded by `findings::conflict_words`).

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

/// What is wrong on a line, as a factor over ncu's ideal and its words.
fn problem(line: &HotLine) -> Option<(f64, String)> {
    let shared = line
        .worst_shared()
        .map(|(kind, ways)| {
            (
                ways,
                conflict_words(ways, &format!("shared-{kind} conflict")),
            )
        })
        .or_else(|| {
            line.shared_ways
                .map(|w| (w, conflict_words(w, "shared-memory conflict")))
        })
        .filter(|(w, _)| *w > 1.5);
    let global = line
        .worst_global()
        .map(|(kind, f)| {
            (
                f,
                format!(
                    "excess global {kind} sectors ({} the ideal)",
                    format::speedup(f)
                ),
            )
        })
        .or_else(|| {
            line.global_excess_factor.map(|f| {
                (
                    f,
                    format!("excess global sectors ({} the ideal)", format::speedup(f)),
                )
            })
        })
        .filter(|(f, _)| *f > 1.2);
    match (shared, global) {
        (Some(s), Some(g)) => Some(if s.0 >= g.0 { s } else { g }),
        (s, g) => s.or(g),
    }
}

fn normalized(code: &str) -> String {
    code.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Follows every problem line of `previous` into `current`, then lists the
/// problem lines `current` has that `previous` did not.
pub fn diff(previous_name: &str, previous: &[HotLine], current: &[HotLine]) -> Vec<LineDiff> {
    let mut diffs = Vec::new();
    let mut matched_current = Vec::new();
    for before in previous {
        let Some((before_factor, before_words)) = problem(before) else {
            continue;
        };
        let same_code = current
            .iter()
            .find(|l| normalized(&l.code) == normalized(&before.code) && !l.code.is_empty());
        let after = same_code.and_then(|l| problem(l).map(|p| (l, p)));
        if let Some(line) = same_code {
            matched_current.push(line.line);
        }
        let (change, text) = match after {
            None => (
                LineChange::Gone,
                match same_code {
                    Some(line) => format!(
                        "`{previous_name}` line {} (`{}`): its {before_words} is gone (now line {}).",
                        before.line, before.code, line.line
                    ),
                    None => format!(
                        "`{previous_name}` line {} (`{}`): its {before_words} is gone; that code is no longer a problem line.",
                        before.line, before.code
                    ),
                },
            ),
            Some((line, (after_factor, after_words))) => {
                let change = if after_factor <= before_factor / 2.0 {
                    LineChange::Reduced
                } else {
                    LineChange::Remains
                };
                let verb = if change == LineChange::Reduced {
                    "is reduced to"
                } else {
                    "remains:"
                };
                (
                    change,
                    format!(
                        "`{previous_name}` line {} (`{}`): its {before_words} {verb} {after_words} on line {}.",
                        before.line, before.code, line.line
                    ),
                )
            }
        };
        diffs.push(LineDiff { change, text });
    }
    for line in current {
        if matched_current.contains(&line.line) {
            continue;
        }
        if let Some((_, words)) = problem(line) {
            diffs.push(LineDiff {
                change: LineChange::New,
                text: format!("New: line {} (`{}`) has {words}.", line.line, line.code),
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
}
