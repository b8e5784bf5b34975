//! The summary printed at the end of `gpuprof report` and `gpuprof
//! render`: one row per variant at the focus size (time, speedup against
//! the baseline, correctness, top finding), from the same view-model as
//! the HTML report.

use comfy_table::{ContentArrangement, Table, presets};

use super::view::ReportView;

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
    table
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
        let top = view
            .variants
            .iter()
            .find(|v| v.name == row.variant)
            .and_then(|v| v.runs.iter().find(|r| r.size == size.label))
            .and_then(|r| r.findings.first())
            .map(|f| f.title.clone())
            .unwrap_or_default();
        let name = if row.ceiling {
            format!("{} (ceiling)", row.variant)
        } else {
            row.variant.clone()
        };
        table.add_row(vec![
            name,
            row.median.clone(),
            row.vs_baseline.text.clone(),
            row.correctness.clone(),
            top,
        ]);
    }
    format!("{} at {}\n{table}\n", view.header.suite, size.label)
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
}
