//! The printed report (src/render/pdf.rs, report.css's `@media print`): the
//! transpose and matmul examples, rendered by the binary and printed by real
//! headless Chromium on A4 and on Letter, read back with poppler's tools.
//! Each is a PDF of that paper; its first part (header, summary, chain, the
//! charts over all variants, the verdict cards) takes at most five pages and
//! ends in a page break before the per-size details; page 1 shows the suite
//! and its summary; the chain's heading shares its page with the chain's
//! first step. Page 1 is saved as a PNG under target/pdf/ for a look.
//! `.ci/run` installs chromium and poppler-utils and sets
//! GPUPROF_REQUIRE_BROWSER=1, so there a missing tool fails the test.

use std::path::{Path, PathBuf};
use std::process::Command;

use gpuprof::render::pdf::{Paper, write_pdf};

/// The most pages the first part may take.
const FIRST_PART_PAGES: usize = 5;

/// Hides, in a copy of the report, what print moves behind the page break
/// (what the template marks print-details), so that the copy prints the
/// first part alone.
const FIRST_PART_ONLY: &str = "<style>@media print { .print-details, \
    .chart:has(> .print-details) { display: none !important; } }</style>";

fn required() -> bool {
    std::env::var_os("GPUPROF_REQUIRE_BROWSER").is_some()
}

/// Whether Chromium and poppler's pdfinfo, pdftotext and pdftoppm are here;
/// when GPUPROF_REQUIRE_BROWSER is set, a missing one fails the test.
fn tools() -> bool {
    if let Err(searched) = gpuprof::render::pdf::chromium() {
        assert!(
            !required(),
            "GPUPROF_REQUIRE_BROWSER is set but no Chromium was found: {searched}"
        );
        eprintln!(
            "chromium not found: skipping (set GPUPROF_REQUIRE_BROWSER=1 to make this an error)"
        );
        return false;
    }
    for tool in ["pdfinfo", "pdftotext", "pdftoppm"] {
        if Command::new(tool).arg("-v").output().is_err() {
            assert!(
                !required(),
                "GPUPROF_REQUIRE_BROWSER is set but {tool} (poppler-utils) is missing"
            );
            eprintln!(
                "{tool} (poppler-utils) not found: skipping (set GPUPROF_REQUIRE_BROWSER=1 to make this an error)"
            );
            return false;
        }
    }
    true
}

/// Runs a poppler tool on `pdf` (after `args`, before `then`); returns its
/// stdout.
fn poppler(tool: &str, args: &[&str], pdf: &Path, then: &[&str]) -> String {
    let output = Command::new(tool)
        .args(args)
        .arg(pdf)
        .args(then)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{tool} {args:?} {} failed: {}",
        pdf.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The value of `field` in pdfinfo's output.
fn info(pdf: &Path, field: &str) -> String {
    poppler("pdfinfo", &[], pdf, &[])
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{field}:")))
        .unwrap_or_else(|| panic!("pdfinfo {} has no {field}", pdf.display()))
        .trim()
        .to_string()
}

fn pages(pdf: &Path) -> usize {
    info(pdf, "Pages").parse().unwrap()
}

/// The text of page `page` (from 1), laid out as on the page.
fn page_text(pdf: &Path, page: usize) -> String {
    let page = page.to_string();
    poppler(
        "pdftotext",
        &["-layout", "-f", &page, "-l", &page],
        pdf,
        &["-"],
    )
}

/// Copies examples/`suite`/results.json into `folder` and renders it there
/// with the binary; returns report.html's path.
fn render(suite: &str, folder: &Path) -> PathBuf {
    std::fs::create_dir_all(folder).unwrap();
    let results = folder.join("results.json");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{suite}/results.json")),
        &results,
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_gpuprof"))
        .arg("render")
        .arg(&results)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{suite}: gpuprof render failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    folder.join("report.html")
}

/// The HTML-escaped text `page` holds between `start` and the next `<`,
/// after `after`.
fn text_after(page: &str, after: &str, start: &str) -> String {
    let from = page.find(after).unwrap_or_else(|| panic!("no {after}")) + after.len();
    let rest = &page[from..];
    let at = rest
        .find(start)
        .unwrap_or_else(|| panic!("no {start} after {after}"))
        + start.len();
    let text = &rest[at..];
    let text = &text[..text.find('<').unwrap_or(text.len())];
    [
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&quot;", "\""),
        ("&#x27;", "'"),
        ("&#x2f;", "/"),
        ("&amp;", "&"),
    ]
    .iter()
    .fold(text.to_string(), |text, (entity, c)| {
        text.replace(entity, c)
    })
}

#[test]
fn the_printed_report_puts_summary_chain_charts_and_verdicts_first() {
    if !tools() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/pdf");
    std::fs::create_dir_all(&shots).unwrap();
    for suite in ["transpose", "matmul"] {
        let html = render(suite, &work.path().join(suite));
        let page = std::fs::read_to_string(&html).unwrap();
        let name = text_after(&page, "<header>", "<h1>");
        let first_step = text_after(&page, "id=\"chain\"", "<tbody>\n<tr><td><a href=\"#");
        let first_step = first_step
            .split_once("\">")
            .map_or(first_step.as_str(), |(_, name)| name)
            .to_string();
        let head_end = page.find("</head>").unwrap();
        let first_part_only = html.with_file_name("first-part.html");
        std::fs::write(
            &first_part_only,
            format!(
                "{}{FIRST_PART_ONLY}{}",
                &page[..head_end],
                &page[head_end..]
            ),
        )
        .unwrap();

        for (paper, size) in [(Paper::A4, "(A4)"), (Paper::Letter, "(letter)")] {
            let what = format!("{suite} on {paper}");
            let pdf = html.with_file_name(format!("report-{paper}.pdf"));
            write_pdf(&html, &pdf, paper).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert!(
                std::fs::read(&pdf).unwrap().starts_with(b"%PDF-"),
                "{what}: not a PDF"
            );
            let page_size = info(&pdf, "Page size");
            assert!(page_size.ends_with(size), "{what}: page size {page_size}");
            let total = pages(&pdf);
            assert!(
                (FIRST_PART_PAGES + 1..100).contains(&total),
                "{what}: {total} pages"
            );

            // The first part alone: at most five pages, and the same pages
            // as the whole report's first ones, so that the details start on
            // a page of their own.
            let first = html.with_file_name(format!("first-part-{paper}.pdf"));
            write_pdf(&first_part_only, &first, paper).unwrap_or_else(|e| panic!("{what}: {e}"));
            let first_pages = pages(&first);
            eprintln!("{what}: first part {first_pages} pages of {total}");
            assert!(
                (1..=FIRST_PART_PAGES).contains(&first_pages),
                "{what}: the first part takes {first_pages} pages"
            );
            for n in 1..=first_pages {
                let (whole, alone) = (page_text(&pdf, n), page_text(&first, n));
                let differing = whole
                    .lines()
                    .map(str::trim)
                    .zip(alone.lines().map(str::trim))
                    .find(|(whole, alone)| whole != alone);
                assert!(
                    whole == alone,
                    "{what}: page {n} is not the first part's page {n} (the details do not start \
                     on a page of their own); first differing line: {differing:?}, lines: {} against {}",
                    whole.lines().count(),
                    alone.lines().count()
                );
            }
            assert!(
                !page_text(&pdf, first_pages + 1).trim().is_empty(),
                "{what}: page {} after the first part is empty",
                first_pages + 1
            );

            let one = page_text(&pdf, 1);
            assert!(
                one.trim_start().starts_with(&name),
                "{what}: page 1 does not open with the suite's name {name}:\n{one}"
            );
            assert!(
                one.contains("Summary"),
                "{what}: no summary on page 1:\n{one}"
            );

            // The chain's heading is not left alone at the foot of a page.
            let chain_page = (1..=first_pages)
                .map(|n| page_text(&pdf, n))
                .find(|text| text.contains("Optimization chain"))
                .unwrap_or_else(|| panic!("{what}: the chain is not in the first part"));
            let after_heading = chain_page.split_once("Optimization chain").unwrap().1;
            assert!(
                after_heading
                    .lines()
                    .any(|line| line.split_whitespace().next() == Some(first_step.as_str())),
                "{what}: the chain's first step {first_step} is not on the page of its heading:\n{chain_page}"
            );

            let prefix = shots.join(format!("report-{suite}-{paper}"));
            let status = Command::new("pdftoppm")
                .args(["-f", "1", "-l", "1", "-png", "-r", "50", "-singlefile"])
                .arg(&pdf)
                .arg(&prefix)
                .status()
                .unwrap();
            assert!(status.success(), "{what}: pdftoppm failed");
            let png = prefix.with_extension("png");
            let bytes = std::fs::read(&png).unwrap();
            assert!(bytes.starts_with(b"\x89PNG"), "{what}: not a PNG");
            assert!(
                bytes.len() > 20_000,
                "{what}: page 1 as PNG is only {} bytes",
                bytes.len()
            );
        }
    }
}
