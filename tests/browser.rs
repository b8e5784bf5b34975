//! The report in a real browser (headless Chromium): every chart becomes an
//! inline SVG in the rendered page, the page asks the network for nothing
//! (the requests in Chromium's net log that a page started: the browser's
//! own update and account checks carry no origin as their initiator, and a
//! control page that loads an image shows the check sees a page's request)
//! and logs nothing to the console, its stylesheet
//! applies (the computed fonts and badge colours, read by a script added to
//! a copy of the page, are report.css's), and a screenshot is saved under
//! target/browser/. `.ci/run` installs Debian's chromium and sets
//! GPUPROF_REQUIRE_BROWSER=1, so there a missing browser fails the test.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    let candidate = std::env::var_os("GPUPROF_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/usr/bin/chromium".into());
    if candidate.is_file() {
        return Some(candidate);
    }
    assert!(
        std::env::var_os("GPUPROF_REQUIRE_BROWSER").is_none(),
        "GPUPROF_REQUIRE_BROWSER is set but {} is missing",
        candidate.display()
    );
    eprintln!("chromium not found: skipping (set GPUPROF_REQUIRE_BROWSER=1 to make this an error)");
    None
}

const STYLESHEET: &str = include_str!("../templates/report.css");

/// Runs headless Chromium on `url` with `extra` flags; returns stdout and
/// stderr.
fn run(browser: &Path, profile: &Path, url: &str, extra: &[String]) -> (String, String) {
    let output = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `gpuprof render` of examples/`suite` into `out`; returns report.html's path.
fn render(suite: &str, out: &Path) -> PathBuf {
    let status = Command::new(assert_cmd::cargo::cargo_bin("gpuprof"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["render", &format!("examples/{suite}/results.json"), "-o"])
        .arg(out)
        .output()
        .unwrap()
        .status;
    assert!(status.success());
    out.join("report.html")
}

/// Hosts of the requests a page started, from a Chromium net log: every
/// URL_REQUEST_START_JOB whose initiator is an origin (a `file://` page's
/// origin is opaque and logs as "null"); the browser's own background
/// requests (component updates, account checks) log "not an origin".
fn page_request_hosts(net_log: &Path) -> BTreeSet<String> {
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(net_log).unwrap()).unwrap();
    let start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
        .as_u64()
        .expect("the net log names its event types");
    let mut hosts = BTreeSet::new();
    for event in log["events"].as_array().unwrap() {
        let params = &event["params"];
        if event["type"].as_u64() != Some(start_job)
            || params["initiator"].as_str() == Some("not an origin")
        {
            continue;
        }
        if let Some(url) = params["url"].as_str()
            && let Some(rest) = url.split("://").nth(1)
            && !url.starts_with("file:")
            && !url.starts_with("data:")
        {
            hosts.insert(rest.split(['/', ':', '?']).next().unwrap_or("").to_string());
        }
    }
    hosts
}

/// Loads `url` with a net log; returns the hosts the page asked for.
fn hosts_asked_for(browser: &Path, work: &Path, name: &str, url: &str) -> BTreeSet<String> {
    let net_log = work.join(format!("{name}-net.json"));
    run(
        browser,
        &work.join(format!("{name}-profile")),
        url,
        &[
            format!("--log-net-log={}", net_log.display()),
            "--dump-dom".into(),
        ],
    );
    page_request_hosts(&net_log)
}

#[test]
fn a_page_that_loads_an_image_is_seen_asking_the_network() {
    let Some(browser) = chromium() else { return };
    let work = tempfile::tempdir().unwrap();
    let page = work.path().join("control.html");
    std::fs::write(
        &page,
        "<!doctype html><p>control</p><img src=\"http://gpuprof-control.invalid/x.png\">",
    )
    .unwrap();
    let hosts = hosts_asked_for(
        &browser,
        work.path(),
        "control",
        &format!("file://{}", page.display()),
    );
    assert_eq!(
        hosts.into_iter().collect::<Vec<_>>(),
        ["gpuprof-control.invalid"]
    );
}

#[test]
fn the_report_renders_every_chart_logs_nothing_and_fetches_nothing() {
    let Some(browser) = chromium() else { return };
    let work = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for suite in ["transpose", "matmul"] {
        let report = render(suite, &work.path().join(suite));
        let url = format!("file://{}", report.display());
        let (dom, log) = run(
            &browser,
            &work.path().join(format!("{suite}-profile")),
            &url,
            &[
                "--enable-logging=stderr".into(),
                "--v=0".into(),
                "--dump-dom".into(),
            ],
        );
        // Chromium logs every console message at level INFO, errors too;
        // the report runs no script, so any message is a blocked load or a
        // policy violation.
        let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
        assert!(
            console.is_empty(),
            "{suite}: the page logged to the console:\n{}",
            console.join("\n")
        );
        let charts = dom.matches("<figure class=\"chart\">").count();
        assert!(charts >= 5, "{suite}: only {charts} charts");
        assert_eq!(
            dom.matches("<svg").count(),
            charts,
            "{suite}: a chart did not become an SVG"
        );
        assert!(
            dom.contains("Optimization chain"),
            "{suite}: the page did not render"
        );

        let asked = hosts_asked_for(&browser, work.path(), suite, &url);
        assert!(
            asked.is_empty(),
            "{suite}: the report made the browser contact {asked:?}"
        );

        let shots = root.join("target/browser");
        std::fs::create_dir_all(&shots).unwrap();
        let shot = shots.join(format!("report-{suite}.png"));
        run(
            &browser,
            &work.path().join(format!("{suite}-shot")),
            &url,
            &[
                format!("--screenshot={}", shot.display()),
                "--window-size=1200,1900".into(),
            ],
        );
        let size = std::fs::metadata(&shot).unwrap().len();
        assert!(
            size > 50_000,
            "{suite}: the screenshot is only {size} bytes"
        );
    }
}

/// Computes, in the page, the font of the body and of code and the colours
/// of every kind of badge on it (one per class list), and writes them as
/// JSON into a `<pre id="computed">` at the end of the body.
const COMPUTE_STYLES: &str = r#"
const badges = {};
for (const badge of document.querySelectorAll('.state, .verdict')) {
  const style = getComputedStyle(badge);
  badges[badge.className] = { color: style.color, background: style.backgroundColor };
}
const computed = document.createElement('pre');
computed.id = 'computed';
computed.textContent = JSON.stringify({
  body_font: getComputedStyle(document.body).fontFamily,
  code_font: getComputedStyle(document.querySelector('code, pre, .mono')).fontFamily,
  badges,
});
document.body.append(computed);
"#;

/// The report `page` with COMPUTE_STYLES run at the end of its body; its
/// content security policy is the report's, plus leave to run that script.
fn with_computed_styles(page: &str) -> String {
    let policy = "default-src 'none';";
    assert!(page.contains(policy), "the report's policy changed");
    let page = page.replacen(policy, "default-src 'none'; script-src 'unsafe-inline';", 1);
    let end = page.rfind("</body>").expect("the report has a body");
    format!(
        "{}<script>{COMPUTE_STYLES}</script>\n{}",
        &page[..end],
        &page[end..]
    )
}

/// The value of `property` in the last rule of report.css that names
/// `selector` (alone or in a list) and sets it; a `var(--name)` is
/// replaced by :root's `--name`.
fn declared(selector: &str, property: &str) -> Option<String> {
    let value = STYLESHEET.split('}').rev().find_map(|rule| {
        let (selectors, declarations) = rule.split_once('{')?;
        if !selectors.split(',').any(|s| s.trim() == selector) {
            return None;
        }
        declarations.split(';').find_map(|declaration| {
            let (name, value) = declaration.split_once(':')?;
            (name.trim() == property).then(|| value.trim().to_string())
        })
    })?;
    match value.strip_prefix("var(").and_then(|v| v.strip_suffix(')')) {
        Some(variable) => declared(":root", variable),
        None => Some(value),
    }
}

/// `#rrggbb` as getComputedStyle writes it: `rgb(r, g, b)`.
fn rgb(hex: &str) -> String {
    let digits = hex
        .strip_prefix('#')
        .filter(|d| d.len() == 6)
        .unwrap_or_else(|| panic!("{hex} is not #rrggbb"));
    let channel = |i: usize| u8::from_str_radix(&digits[2 * i..2 * i + 2], 16).unwrap();
    format!("rgb({}, {}, {})", channel(0), channel(1), channel(2))
}

#[test]
fn the_stylesheet_reaches_the_browser_and_applies() {
    let Some(browser) = chromium() else { return };
    let work = tempfile::tempdir().unwrap();
    let body_font = declared("body", "font").expect("report.css sets the body's font");
    let (_size, body_family) = body_font.split_once(' ').unwrap();
    let code_family = declared("code", "font-family").expect("report.css sets code's font");
    for suite in ["transpose", "matmul"] {
        let report = render(suite, &work.path().join(suite));
        let page = std::fs::read_to_string(&report).unwrap();
        let style = page
            .split_once("<style>")
            .and_then(|(_, rest)| rest.split_once("</style>"))
            .expect("the report has a <style> element")
            .0;
        let differing = style
            .trim()
            .lines()
            .zip(STYLESHEET.trim().lines())
            .find(|(page, stylesheet)| page != stylesheet);
        assert!(
            style.trim() == STYLESHEET.trim(),
            "{suite}: the <style> element is not report.css as written (HTML-escaped?); \
             first differing line: {differing:?}"
        );

        let probe = report.with_file_name("computed-styles.html");
        std::fs::write(&probe, with_computed_styles(&page)).unwrap();
        let (dom, _) = run(
            &browser,
            &work.path().join(format!("{suite}-styles")),
            &format!("file://{}", probe.display()),
            &["--dump-dom".into()],
        );
        let json = dom
            .split_once("<pre id=\"computed\">")
            .and_then(|(_, rest)| rest.split_once("</pre>"))
            .unwrap_or_else(|| panic!("{suite}: the script wrote nothing"))
            .0;
        let computed: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(computed["body_font"], body_family, "{suite}: body font");
        assert_eq!(
            computed["code_font"],
            code_family.as_str(),
            "{suite}: code font"
        );

        let mut checked = 0;
        for (classes, colours) in computed["badges"].as_object().unwrap() {
            let selector: String = classes
                .split_whitespace()
                .map(|c| format!(".{c}"))
                .collect();
            for property in ["color", "background"] {
                if let Some(value) = declared(&selector, property) {
                    assert_eq!(
                        colours[property],
                        rgb(&value),
                        "{suite}: {property} of {selector}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(
            checked > 0,
            "{suite}: report.css colours no badge on the page"
        );
    }
}
