//! Render: Results + Analysis → report.html (one self-contained file:
//! inline CSS and SVG, no network), report.md (for pasting into a homework
//! README) and the terminal summary. Builds a view-model of formatted
//! strings, draws the charts, and fills minijinja templates; reads nothing
//! but its two inputs.

pub mod charts;
mod figures;
pub mod pdf;
pub use figures::{CHARTS_FOLDER, is_chart_file_name};
pub mod launches;
pub mod terminal;
pub mod view;

use minijinja::{AutoEscape, Environment, UndefinedBehavior, context};

use crate::analysis::{Analysis, sweeps};
use crate::model::Results;

const HTML_TEMPLATE: &str = include_str!("../../templates/report.html.j2");
const MARKDOWN_TEMPLATE: &str = include_str!("../../templates/report.md.j2");
const CSS: &str = include_str!("../../templates/report.css");

fn environment() -> Environment<'static> {
    let mut environment = Environment::new();
    environment.set_undefined_behavior(UndefinedBehavior::Strict);
    environment.set_auto_escape_callback(|name| {
        if name.ends_with(".html.j2") {
            AutoEscape::Html
        } else {
            AutoEscape::None
        }
    });
    environment.add_filter("md", markdown_escape);
    environment.add_filter("md_code", markdown_code);
    environment.add_filter("breakable", breakable_html);
    environment
        .add_template("report.html.j2", HTML_TEMPLATE)
        .expect("the HTML template parses (checked by tests)");
    environment
        .add_template("report.md.j2", MARKDOWN_TEMPLATE)
        .expect("the Markdown template parses (checked by tests)");
    environment
}

/// A name HTML-escaped with a line-break opportunity (`<wbr>`) after each
/// comma and opening bracket, so that a sweep configuration's long name
/// (`sgemm[BM=128,BN=64,BK=8]`) wraps inside its table cell instead of
/// widening the table past the page.
fn breakable_html(text: String) -> minijinja::Value {
    let mut html = String::with_capacity(text.len() + 16);
    for piece in text.split_inclusive([',', '[']) {
        html.push_str(&minijinja::HtmlEscape(piece).to_string());
        if piece.ends_with([',', '[']) {
            html.push_str("<wbr>");
        }
    }
    minijinja::Value::from_safe_string(html)
}

/// Escapes what would break a Markdown table or inline markup. A code
/// span (text between two equal runs of backticks, as the analysis writes
/// `tiled` or `out[i] = in[i];`) is kept as it is, since backslashes are
/// literal inside it, but for `|`, which a table cell must escape even
/// there.
fn markdown_escape(text: String) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut escaped = String::with_capacity(text.len());
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        if c == '`' {
            let run = chars[at..].iter().take_while(|c| **c == '`').count();
            if let Some(end) = closing_run(&chars, at + run, run) {
                for c in &chars[at..end + run] {
                    match c {
                        '|' => escaped.push_str("\\|"),
                        '\n' => escaped.push(' '),
                        c => escaped.push(*c),
                    }
                }
                at = end + run;
                continue;
            }
            // Unmatched: escaped, so it cannot pair with a backtick of the
            // template and swallow what follows.
            for _ in 0..run {
                escaped.push_str("\\`");
            }
            at += run;
            continue;
        }
        match c {
            '|' | '*' | '_' | '<' | '>' | '[' | ']' | '\\' => {
                escaped.push('\\');
                escaped.push(c);
            }
            '\n' => escaped.push(' '),
            _ => escaped.push(c),
        }
        at += 1;
    }
    escaped
}

/// Where the run of exactly `run` backticks that closes a code span
/// opened before `from` starts, if there is one.
fn closing_run(chars: &[char], from: usize, run: usize) -> Option<usize> {
    let mut at = from;
    while at < chars.len() {
        if chars[at] != '`' {
            at += 1;
            continue;
        }
        let length = chars[at..].iter().take_while(|c| **c == '`').count();
        if length == run {
            return Some(at);
        }
        at += length;
    }
    None
}

/// `text` as a Markdown code span, fenced with more backticks than it
/// holds in a row, so that no text can end the span early.
fn markdown_code(text: String) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let text = text.replace('\n', " ");
    match longest {
        0 => format!("{fence}{text}{fence}"),
        _ => format!("{fence} {text} {fence}"),
    }
}

/// The view-model for these results, charts included. The charts leave
/// out the sweep configurations the report does not detail.
pub fn view(results: &Results, analysis: &Analysis) -> view::ReportView {
    let detailed = Analysis {
        variants: analysis
            .variants
            .iter()
            .filter(|v| sweeps::is_detailed(analysis, &v.name))
            .cloned()
            .collect(),
        focus_size: analysis.focus_size.clone(),
        steps: analysis.steps.clone(),
        ceilings: analysis.ceilings.clone(),
        sweeps: analysis.sweeps.clone(),
    };
    view::ReportView {
        charts: figures::figures(results, &detailed),
        ..view::build(results, analysis)
    }
}

/// report.html from the view-model (built once for every output).
pub fn html(view: &view::ReportView) -> Result<String, minijinja::Error> {
    environment()
        .get_template("report.html.j2")?
        .render(context! { view => minijinja::value::Serde(view), css => CSS })
}

/// report.md from the view-model.
pub fn markdown(view: &view::ReportView) -> String {
    environment()
        .get_template("report.md.j2")
        .and_then(|t| t.render(context! { view => minijinja::value::Serde(view) }))
        .unwrap_or_else(|e| format!("The Markdown report could not be rendered: {e}\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breakable_names_are_escaped_and_break_after_commas_and_brackets() {
        assert_eq!(
            breakable_html("k<T>[BM=64,BN=\"8\"]".into()).to_string(),
            "k&lt;T&gt;[<wbr>BM=64,<wbr>BN=&quot;8&quot;]"
        );
        assert_eq!(breakable_html("naive".into()).to_string(), "naive");
    }

    #[test]
    fn user_text_in_report_md_is_escaped_and_code_spans_cannot_be_ended() {
        let mut results = probe_results();
        results.suite.description = "see <script>alert(1)</script> | *bold* [link](x)".into();
        results.command = "gpuprof report `rm -rf /`.toml".into();
        let page = markdown(&view(&results, &analyze(&results)));
        assert!(
            page.contains("see \\<script\\>alert(1)\\</script\\> \\| \\*bold\\* \\[link\\](x)"),
            "{page}"
        );
        assert!(
            page.contains("Made by `` gpuprof report `rm -rf /`.toml ``."),
            "{page}"
        );
        assert_eq!(markdown_code("plain".into()), "`plain`");
    }

    #[test]
    fn code_spans_in_report_md_keep_their_text_and_a_lone_backtick_is_escaped() {
        assert_eq!(
            markdown_escape("`double_buffered` line 3 (`a[i] | b[i]`) is_slow".into()),
            "`double_buffered` line 3 (`a[i] \\| b[i]`) is\\_slow"
        );
        assert_eq!(
            markdown_escape("name`with <b>".into()),
            "name\\`with \\<b\\>"
        );
        assert_eq!(markdown_escape("``a`b``".into()), "``a`b``");
    }
    use crate::analysis::analyze;
    use crate::ncu::probe::probe_results;

    #[test]
    fn the_report_names_the_conflict_and_shows_the_line() {
        let results = probe_results();
        let page = html(&view(&results, &analyze(&results))).unwrap();
        assert!(page.starts_with("<!doctype html>"));
        assert!(page.contains("32-way shared-memory bank conflicts on loads"));
        assert!(page.contains("<span class=\"ln\">22</span>"));
        assert!(page.contains("uncoalesced global stores: 32.0 sectors per request"));
    }

    #[test]
    fn every_variant_section_has_an_id_of_its_own_and_every_link_finds_it() {
        let mut results = probe_results();
        let names = ["Naive ", "naive!", "ядро", "核心"];
        for (variant, name) in results.variants.iter_mut().zip(names) {
            variant.name = name.to_string();
        }
        results.suite.baseline = names[0].to_string();
        let report = view(&results, &analyze(&results));
        let ids: Vec<&str> = report.variants.iter().map(|v| v.anchor.as_str()).collect();
        assert_eq!(
            ids,
            [
                "variant-naive-",
                "variant-naive--2",
                "variant-ядро",
                "variant-核心"
            ]
        );
        let page = html(&report).unwrap();
        for id in ids {
            assert_eq!(page.matches(&format!("id=\"{id}\"")).count(), 1, "{id}");
            assert!(page.contains(&format!("href=\"#{id}\"")), "{id}");
        }
    }

    #[test]
    fn the_report_is_self_contained() {
        let results = probe_results();
        let page = html(&view(&results, &analyze(&results))).unwrap();
        assert!(page.contains("<svg"), "the charts are inline");
        // The SVG namespace names a URI; it is never fetched.
        let page = page.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
        for forbidden in [
            "http://", "https://", "<script", "<link", "@import", "src=\"", "url(",
        ] {
            assert!(!page.contains(forbidden), "the page contains {forbidden}");
        }
        assert!(page.contains("default-src 'none'"));
    }

    #[test]
    fn the_stylesheet_reaches_the_page_unescaped_and_cannot_end_its_element() {
        assert!(
            !CSS.to_ascii_lowercase().contains("</style"),
            "report.css would end the <style> element early"
        );
        let results = probe_results();
        let page = html(&view(&results, &analyze(&results))).unwrap();
        assert!(page.contains(CSS), "the stylesheet was escaped");
    }

    #[test]
    fn user_supplied_strings_are_escaped() {
        let mut results = probe_results();
        results.suite.description = "<img src=x onerror=alert(1)>".into();
        results.variants[1].name = "<script>alert(1)</script>".into();
        results.variants[1].notes = "a & b \"quoted\"".into();
        results.suite.baseline = results.variants[1].name.clone();
        let page = html(&view(&results, &analyze(&results))).unwrap();
        assert!(!page.contains("<script>alert(1)</script>"));
        assert!(!page.contains("<img src=x"));
        assert!(page.contains("&lt;script&gt;alert(1)&lt;&#x2f;script&gt;"));
        assert!(page.contains("a &amp; b &quot;quoted&quot;"));
        let md = markdown(&view(&results, &analyze(&results)));
        assert!(md.contains("\\<script\\>"), "{md}");
    }

    /// `results` with the first variant's run made a sequence of
    /// `launches` (kernel, duration in ns, DRAM %, SM %), its profile the
    /// launch gpuprof explains.
    fn with_sequence(mut results: Results, launches: &[(&str, f64, f64, f64)]) -> Results {
        use crate::model::metrics::{DRAM_THROUGHPUT, DURATION, SM_THROUGHPUT};
        let run = &mut results.variants[0].runs[0];
        let profiled = run.profile.clone().unwrap();
        run.steps = launches
            .iter()
            .enumerate()
            .map(|(index, (kernel, duration, dram, sm))| {
                let mut step = profiled.clone();
                step.ncu_id = 100 + index as u64;
                step.kernel_name = kernel.to_string();
                step.metrics.insert(DURATION.into(), *duration);
                step.metrics.insert(DRAM_THROUGHPUT.into(), *dram);
                step.metrics.insert(SM_THROUGHPUT.into(), *sm);
                step
            })
            .collect();
        run.explain_dominant_launch();
        results
    }

    /// A bitonic sort's 121 launches: a copy, then 120 stages of one
    /// kernel, 1 µs each but the 57th stage (launch 58), the longest.
    fn bitonic() -> Results {
        let mut launches = vec![("copy", 2000.0, 50.0, 10.0)];
        launches.extend((0..120).map(|stage| match stage {
            56 => ("bitonic_step<float>", 4000.0, 90.0, 30.0),
            _ => ("bitonic_step<float>", 1000.0, 60.0, 20.0),
        }));
        with_sequence(probe_results(), &launches)
    }

    #[test]
    fn a_long_sequence_has_a_row_per_run_of_one_kernel_with_totals_and_weighted_means() {
        let results = bitonic();
        let report = view(&results, &analyze(&results));
        let run = &report.variants[0].runs[0];
        let rows: Vec<_> = run
            .steps
            .iter()
            .map(|s| {
                (
                    s.number.as_str(),
                    s.kernel.as_str(),
                    s.times.as_str(),
                    s.duration.as_str(),
                    s.dram.as_str(),
                    s.sm.as_str(),
                    s.explained,
                    s.explained_launch,
                )
            })
            .collect();
        // 119 × 1 µs + 4 µs; DRAM (119 µs × 60% + 4 µs × 90%) / 123 µs,
        // where the plain mean of the launches would be 60.25%.
        assert_eq!(
            rows,
            [
                ("1", "copy", "", "2.00 µs", "50.0%", "10.0%", false, None),
                (
                    "2–121",
                    "bitonic_step<float>",
                    "×120",
                    "123 µs",
                    "61.0%",
                    "20.3%",
                    true,
                    Some(58)
                ),
            ]
        );
        assert_eq!(
            run.steps_note.as_deref(),
            Some(
                "121 launches in 2 rows: consecutive launches of one kernel share a row, whose time is their total and whose throughputs are their means weighted by each launch's time."
            )
        );

        let page = html(&report).unwrap();
        assert!(
            page.contains("<p class=\"small\">121 launches in 2 rows: "),
            "{page}"
        );
        assert!(page.contains("<th>time (ncu), total</th><th>DRAM throughput, weighted mean</th><th>SM throughput, weighted mean</th>"));
        assert!(
            page.contains("<tr><td class=\"num\">2–121</td><td><code>bitonic_step&lt;float&gt;</code> ×120 (launch 58: see below)</td><td class=\"num\">123 µs</td><td class=\"num\">61.0%</td><td class=\"num\">20.3%</td></tr>"),
            "{page}"
        );
        assert!(
            !page.contains("bitonic_step<float>"),
            "the kernel's name is escaped"
        );

        let md = markdown(&report);
        assert!(
            md.contains("121 launches in 2 rows: consecutive launches of one kernel share a row, whose time is their total and whose throughputs are their means weighted by each launch's time.\n\n- 1 · copy: 2.00 µs, DRAM 50.0%, SM 10.0%\n\n- 2–121 · bitonic\\_step\\<float\\> ×120: 123 µs, DRAM 61.0%, SM 20.3% (launch 58: see below)\n\nBelow, occupancy and the throughputs are those of launch 58 of 121, the longest launch of bitonic\\_step\\<float\\>, whose 120 launches take 98.4% of the sequence's time under ncu; counts, DRAM traffic, stall samples and source lines are totals over all 121 launches.\n"),
            "{md}"
        );
    }

    #[test]
    fn a_short_sequence_keeps_a_row_per_launch_as_before() {
        let launches = [
            ("reduce", 3000.0, 80.0, 40.0),
            ("reduce", 1000.0, 20.0, 10.0),
            ("<finish>", 500.0, 5.0, 5.0),
        ];
        let results = with_sequence(probe_results(), &launches);
        let report = view(&results, &analyze(&results));
        let run = &report.variants[0].runs[0];
        assert_eq!(run.steps_note, None);
        assert_eq!(run.steps.len(), 3);
        assert!(
            run.steps
                .iter()
                .all(|s| s.times.is_empty() && s.explained_launch.is_none())
        );
        let page = html(&report).unwrap();
        assert!(page.contains("<th>launch</th><th>kernel</th><th>time (ncu)</th><th>DRAM throughput</th><th>SM throughput</th>"));
        assert!(page.contains("<tr><td class=\"num\">1</td><td><code>reduce</code> (see below)</td><td class=\"num\">3.00 µs</td>"), "{page}");
        assert!(page.contains("<code>&lt;finish&gt;</code>"));
        let md = markdown(&report);
        assert!(
            md.contains("\n1. reduce: 3.00 µs, DRAM 80.0%, SM 40.0% (see below)\n\n2. reduce: 1.00 µs, DRAM 20.0%, SM 10.0%\n\n3. \\<finish\\>: 500 ns, DRAM 5.00%, SM 5.00%\n\nBelow, occupancy and the throughputs are those of launch 1 of 3, the longest launch of reduce, whose 2 launches take 88.9% of the sequence's time under ncu; counts, DRAM traffic, stall samples and source lines are totals over all 3 launches.\n"),
            "{md}"
        );
    }

    #[test]
    fn a_sequence_is_explained_by_the_kernel_that_takes_the_most_time_not_its_longest_launch() {
        // One 11.6 µs sort, then 81 merges of 3 µs: the merges take 95% of
        // the time, so a merge is explained, though the sort is longer.
        let mut launches = vec![("sortShared", 11_600.0, 1.4, 14.1)];
        launches.extend((0..81).map(|stride| match stride {
            40 => ("mergeGlobal", 3_300.0, 5.0, 2.3),
            _ => ("mergeGlobal", 3_000.0, 4.8, 2.2),
        }));
        let results = with_sequence(probe_results(), &launches);
        let run = &results.variants[0].runs[0];
        assert_eq!(run.explained_step(), Some(41));
        let report = view(&results, &analyze(&results));
        assert_eq!(
            report.variants[0].runs[0].steps_explained.as_deref(),
            Some(
                "Below, occupancy and the throughputs are those of launch 42 of 82, the longest launch of mergeGlobal, whose 81 launches take 95.4% of the sequence's time under ncu; counts, DRAM traffic, stall samples and source lines are totals over all 82 launches."
            )
        );
        let page = html(&report).unwrap();
        assert!(
            page.contains("<code>mergeGlobal</code> ×81 (launch 42: see below)</td>"),
            "{page}"
        );
        // The limiter carries its weight: the kernel it was chosen on and
        // that kernel's share of the time.
        let limit = report.variants[0].runs[0].limit.as_ref().unwrap();
        assert!(
            limit
                .bottleneck
                .ends_with(" (in mergeGlobal, 95.4% of the sequence's time)"),
            "{}",
            limit.bottleneck
        );
    }

    #[test]
    fn the_markdown_has_the_chain_table() {
        let results = probe_results();
        let md = markdown(&view(&results, &analyze(&results)));
        assert!(md.starts_with("# transpose-probe"));
        assert!(md.contains("| step | changes | speedup vs previous | what explains it |"));
        assert!(
            md.contains("| padded | padding against bank conflicts |"),
            "{md}"
        );
    }
}
