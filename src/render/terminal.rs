//! The summary printed at the end of `gpuprof report` and `gpuprof
//! render`: one row per variant at the focus size (time, speedup against
//! the baseline, correctness, and the top problem or else what limits the
//! run), from the same view-model as the HTML report, with control
//! characters made visible.

use comfy_table::{Cell, Color, ContentArrangement, Table, presets};

use super::view::ReportView;
use crate::analysis::since::{Movement, RunChange, tally};

/// `text` with control characters shown as escapes (`\u{1b}`), so that
/// nothing read from a file can steer the terminal.
pub fn visible(text: &str) -> String {
    text.chars()
        .map(|c| match c.is_control() {
            true => c.escape_unicode().to_string(),
            false => c.to_string(),
        })
        .collect()
}

pub fn summary(view: &ReportView) -> String {
    let Some(size) = view
        .sizes
        .iter()
        .find(|s| s.label == view.focus_size)
        .or(view.sizes.last())
    else {
        return "no sizes were run\n".into();
    };
    let mut table = Table::new();
    // Always styled: the caller writes through anstream, which drops the
    // colours when stdout is not a terminal or NO_COLOR is set.
    table
        .enforce_styling()
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(vec![
            "variant",
            "median",
            "vs baseline",
            "correct",
            "top finding",
        ]);
    for row in &size.rows {
        let run = view
            .variants
            .iter()
            .find(|v| v.name == row.variant)
            .and_then(|v| v.runs.iter().find(|r| r.size == size.label));
        // A problem or warning first; otherwise what limits the run.
        let top = run
            .and_then(|r| r.findings.iter().find(|f| f.severity != "info"))
            .map(|f| f.title.clone())
            .or_else(|| {
                run?.limit
                    .as_ref()
                    .map(|l| format!("limit: {}", l.bottleneck))
            })
            .unwrap_or_default();
        let name = if row.ceiling {
            format!("{} (ceiling)", row.variant)
        } else {
            row.variant.clone()
        };
        let speedup = match row.vs_baseline.class {
            "faster" => Some(Color::Green),
            "slower" | "invalid" => Some(Color::Red),
            _ => None,
        };
        let correct = match row.state {
            "ok" => Some(Color::Green),
            "wrong" | "failed" => Some(Color::Red),
            _ => None,
        };
        table.add_row([
            Cell::new(visible(&name)),
            Cell::new(visible(&row.median)),
            coloured(&row.vs_baseline.text, speedup),
            coloured(&row.correctness, correct),
            Cell::new(visible(&top)),
        ]);
    }
    format!(
        "{} at {}\n{table}\n{}",
        visible(&view.header.suite),
        visible(&size.label),
        failures(view)
    )
}

/// Two runs of a suite compared (`gpuprof diff`): one row per variant and
/// size, faster in green and slower in red, and the tally last.
pub fn changes(changes: &[RunChange]) -> String {
    let mut table = Table::new();
    table
        .enforce_styling()
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header(vec!["variant", "size", "then → now"]);
    for change in changes {
        let colour = match change.movement {
            Movement::Faster => Some(Color::Green),
            Movement::Slower => Some(Color::Red),
            _ => None,
        };
        table.add_row([
            Cell::new(visible(&change.variant)),
            Cell::new(visible(&change.size)),
            coloured(&change.describe(), colour),
        ]);
    }
    format!("{table}\n{}\n", tally(changes))
}

/// A cell of `text` (control characters made visible) in `colour`.
fn coloured(text: &str, colour: Option<Color>) -> Cell {
    let cell = Cell::new(visible(text));
    match colour {
        Some(colour) => cell.fg(colour),
        None => cell,
    }
}

/// `text` in red, for a terminal (anstream drops the colour elsewhere).
fn red(text: &str) -> String {
    format!("\u{1b}[31m{text}\u{1b}[0m")
}

/// Lines of a compiler's message shown under the summary.
const SHOWN_COMPILER_LINES: usize = 12;

/// Every variant that did not compile, with the start of the compiler's
/// message (file:line), and every run that failed, with why.
fn failures(view: &ReportView) -> String {
    let mut text = String::new();
    for variant in &view.variants {
        if let Some(error) = &variant.build_error {
            text.push_str(&format!(
                "{} {} did not compile:\n",
                red("✗"),
                visible(&variant.name)
            ));
            let lines: Vec<&str> = error.lines().collect();
            for line in lines.iter().take(SHOWN_COMPILER_LINES) {
                text.push_str(&format!("    {}\n", visible(line)));
            }
            if lines.len() > SHOWN_COMPILER_LINES {
                text.push_str(&format!(
                    "    … {} more lines in the report\n",
                    lines.len() - SHOWN_COMPILER_LINES
                ));
            }
            continue;
        }
        for run in variant.runs.iter().filter(|r| r.state == "failed") {
            text.push_str(&format!(
                "{} {} at {}: {}\n",
                red("✗"),
                visible(&variant.name),
                visible(&run.size),
                visible(&run.status)
            ));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::analyze;
    use crate::ncu::probe::probe_results;
    use crate::render::view;

    #[test]
    fn one_row_per_variant_with_its_top_finding() {
        let results = probe_results();
        let text = summary(&view(&results, &analyze(&results)));
        assert!(text.starts_with("transpose-probe at N=2048\n"));
        assert!(text.contains("copy (ceiling)"));
        assert!(text.contains("32-way shared-memory bank conflicts on loads"));
        assert_eq!(
            text.lines().filter(|l| l.contains("not checked")).count(),
            4
        );
    }

    #[test]
    fn names_from_a_results_file_cannot_steer_the_terminal() {
        let mut results = probe_results();
        // Clears the screen, then sets the window title (OSC 0).
        results.variants[0].name = "naive\u{1b}[2J\u{1b}]0;owned\u{7}".into();
        results.suite.name = "suite\u{1b}[31m".into();
        let text = summary(&view(&results, &analyze(&results)));
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text}"
        );
        assert!(text.contains("naive\\u{1b}[2J"), "{text}");
        assert!(text.starts_with("suite\\u{1b}[31m at N=2048"), "{text}");
    }

    #[test]
    fn a_compile_error_shows_the_compiler_s_message_under_the_table() {
        let mut results = probe_results();
        let log: String = (1..=15)
            .map(|i| format!("tiled.cu({i}): error: identifier \"x{i}\" is undefined\n"))
            .collect();
        results.variants[2].build.error = Some(log);
        let text = summary(&view(&results, &analyze(&results)));
        let name = &results.variants[2].name;
        assert!(
            text.contains(&format!(
                "✗\u{1b}[0m {name} did not compile:\n    tiled.cu(1): error"
            )),
            "{text}"
        );
        assert!(text.contains("    tiled.cu(12): error"), "{text}");
        assert!(!text.contains("tiled.cu(13)"), "{text}");
        assert!(text.contains("… 3 more lines in the report"), "{text}");
    }
}
