//! The report in a real browser (headless Chromium): every chart becomes an
//! inline SVG in the rendered page, the page asks the network for nothing
//! (Chromium's net log, against a blank page's as the baseline of the
//! browser's own chatter), and a screenshot is saved under
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

/// Runs headless Chromium on `url` with `extra` flags; returns stdout.
fn run(browser: &Path, profile: &Path, url: &str, extra: &[String]) -> String {
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
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Hosts of every URL in a Chromium net log.
fn hosts(net_log: &Path) -> BTreeSet<String> {
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(net_log).unwrap()).unwrap();
    let mut hosts = BTreeSet::new();
    for event in log["events"].as_array().unwrap() {
        for key in ["url", "original_url"] {
            if let Some(url) = event["params"][key].as_str()
                && let Some(rest) = url.split("://").nth(1)
                && !url.starts_with("file:")
                && !url.starts_with("data:")
            {
                hosts.insert(rest.split(['/', ':', '?']).next().unwrap_or("").to_string());
            }
        }
    }
    hosts
}

#[test]
fn the_report_renders_every_chart_and_fetches_nothing() {
    let Some(browser) = chromium() else { return };
    let work = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for suite in ["transpose", "matmul"] {
        let out = work.path().join(suite);
        let status = Command::new(assert_cmd::cargo::cargo_bin("gpuprof"))
            .current_dir(root)
            .args(["render", &format!("examples/{suite}/results.json"), "-o"])
            .arg(&out)
            .output()
            .unwrap()
            .status;
        assert!(status.success());
        let url = format!("file://{}", out.join("report.html").display());
        let page_log = work.path().join(format!("{suite}-net.json"));
        let dom = run(
            &browser,
            &work.path().join(format!("{suite}-profile")),
            &url,
            &[
                format!("--log-net-log={}", page_log.display()),
                "--dump-dom".into(),
            ],
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

        let blank_log = work.path().join(format!("{suite}-blank-net.json"));
        run(
            &browser,
            &work.path().join(format!("{suite}-blank")),
            "about:blank",
            &[
                format!("--log-net-log={}", blank_log.display()),
                "--dump-dom".into(),
            ],
        );
        let own: Vec<String> = hosts(&page_log)
            .difference(&hosts(&blank_log))
            .cloned()
            .collect();
        assert!(
            own.is_empty(),
            "{suite}: the report made the browser contact {own:?}"
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
