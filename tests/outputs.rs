//! What `gpuprof render` writes beside report.html, end to end on a copy of
//! the committed transpose run: analysis.json says what report.md says
//! (speedups, explanations, change verdicts), and report.md's charts are
//! standalone SVG files beside it that its image links find, with the
//! chart files of an older report removed and any other file left alone.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use gpuprof::analysis::format;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A folder holding a copy of the transpose example's results.json and
/// whatever `prepare` puts there, after `gpuprof render` wrote into it.
fn rendered_transpose(prepare: impl FnOnce(&Path)) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join("examples/transpose/results.json"),
        folder.path().join("results.json"),
    )
    .unwrap();
    prepare(folder.path());
    Command::cargo_bin("gpuprof")
        .unwrap()
        .current_dir(folder.path())
        .env("NO_COLOR", "1")
        .args(["render", "results.json"])
        .assert()
        .success();
    folder
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The cells of the first table row of `section` whose first cell is
/// `first`.
fn row<'a>(section: &'a str, first: &str) -> Vec<&'a str> {
    let line = section
        .lines()
        .find(|l| l.starts_with(&format!("| {first} |")))
        .unwrap_or_else(|| panic!("no row for {first} in:\n{section}"));
    line.trim_matches('|').split(" | ").map(str::trim).collect()
}

/// The text of report.md from the heading `from` to the next heading of
/// the same level.
fn section<'a>(page: &'a str, from: &str) -> &'a str {
    let start = page
        .find(from)
        .unwrap_or_else(|| panic!("no {from} in report.md"));
    let level = from.split(' ').next().unwrap();
    let rest = &page[start + from.len()..];
    let end = rest.find(&format!("\n{level} ")).unwrap_or(rest.len());
    &rest[..end]
}

fn run_at<'a>(variant: &'a Value, size: &str) -> &'a Value {
    variant["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["size"] == size)
        .unwrap()
}

#[test]
fn analysis_json_says_what_report_md_says() {
    let folder = rendered_transpose(|_| {});
    let analysis: Value = serde_json::from_str(&read(&folder.path().join("analysis.json")))
        .expect("analysis.json is JSON");
    let page = read(&folder.path().join("report.md"));
    assert_eq!(analysis["schema"], "gpuprof-analysis");
    assert_eq!(analysis["version"], 2);
    let focus = analysis["focus_size"].as_str().unwrap();
    assert_eq!(focus, "N=8192");
    let variants = analysis["variants"].as_array().unwrap();
    let variant = |name: &str| variants.iter().find(|v| v["name"] == name).unwrap();

    let chain = section(&page, "## Optimization chain");
    let summary = section(&page, &format!("### {focus}"));
    let padded = run_at(variant("padded"), focus);
    let speedup = |comparison: &Value| format::speedup(comparison["speedup"].as_f64().unwrap());
    assert_eq!(padded["vs_previous"]["against"], "tiled");
    assert_eq!(padded["vs_previous"]["verdict"], "faster");
    assert_eq!(speedup(&padded["vs_previous"]), "2.20×");
    assert_eq!(row(chain, "padded")[2], speedup(&padded["vs_previous"]));
    assert_eq!(row(summary, "padded")[3], speedup(&padded["vs_baseline"]));
    assert_eq!(row(summary, "padded")[4], speedup(&padded["vs_previous"]));

    for name in analysis["chain"].as_array().unwrap().iter().skip(1) {
        let name = name.as_str().unwrap();
        let step = variant(name);
        let run = run_at(step, focus);
        let explanation = run["explanation"]["text"].as_str().unwrap();
        assert_eq!(row(chain, name)[3], explanation, "{name}");
        assert!(explanation.ends_with("(confirmed)"), "{explanation}");
        let findings = section(&page, &format!("### {name}"));
        for change in step["changes"].as_array().unwrap() {
            assert_eq!(change["verdict"], "confirmed", "{name}");
            let shown = format!("*{}* (confirmed)", change["title"].as_str().unwrap());
            assert!(
                findings.contains(&shown),
                "{name}: no {shown:?} in\n{findings}"
            );
        }
    }
}

#[test]
fn report_md_links_every_chart_to_a_standalone_svg_beside_it() {
    let folder = rendered_transpose(|folder| {
        let charts = folder.join("charts");
        std::fs::create_dir(&charts).unwrap();
        for name in [
            "99-chart-of-an-older-report.svg",
            "diagram.svg",
            "notes.txt",
        ] {
            std::fs::write(charts.join(name), "not gpuprof's").unwrap();
        }
    });
    let page = read(&folder.path().join("report.md"));
    let charts = section(&page, "## Charts");
    let links: Vec<(&str, &str)> = charts
        .lines()
        .filter_map(|l| l.strip_prefix("!["))
        .map(|l| {
            let (alt, rest) = l.split_once("](").unwrap();
            (alt, rest.strip_suffix(')').unwrap())
        })
        .collect();
    assert!(links.len() >= 5, "{charts}");
    for (alt, link) in &links {
        assert!(!alt.is_empty());
        assert!(
            link.starts_with("charts/") && link.ends_with(".svg"),
            "{link}"
        );
        let svg = read(&folder.path().join(link));
        let tag = &svg[..svg.find('>').unwrap()];
        assert!(tag.starts_with("<svg "), "{link}: {tag}");
        assert!(
            tag.contains("xmlns=\"http://www.w3.org/2000/svg\""),
            "{link}: {tag}"
        );
        let caption = charts
            .split(&format!("]({link})\n\n"))
            .nth(1)
            .and_then(|rest| rest.lines().next())
            .unwrap_or_default();
        assert!(!caption.is_empty(), "{link} has no caption");
    }
    let mut files: Vec<String> = std::fs::read_dir(folder.path().join("charts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    let mut expected: Vec<String> = links
        .iter()
        .map(|(_, link)| link.trim_start_matches("charts/").to_string())
        .chain(["diagram.svg".into(), "notes.txt".into()])
        .collect();
    expected.sort();
    assert_eq!(
        files, expected,
        "the older report's chart is gone, other files stay"
    );
}
