//! The binary, end to end, without a GPU: `render` on the committed example
//! run, `report` through stand-ins for the harness and ncu that replay a
//! real H200 run (tests/fixtures/h200-transpose, tests/standin/), ncu's
//! failure modes, and bad input with file, line and column. What a failing
//! command prints on stderr is held in inline insta snapshots, so the text a
//! user reads sits in the test; `cargo insta test --accept --test cli`
//! rewrites them after a deliberate change (review the diff).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn gpuprof() -> Command {
    let mut command = Command::cargo_bin("gpuprof").unwrap();
    command.current_dir(root()).env("NO_COLOR", "1");
    command
}

/// The stderr of a finished command, for a snapshot: the temporary folder
/// `temp` (if any) reads [TEMP] and this checkout [ROOT], as both differ
/// from run to run and machine to machine.
fn stderr_of(assert: &assert_cmd::assert::Assert, temp: Option<&Path>) -> String {
    let mut text = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    if let Some(temp) = temp {
        text = text.replace(&temp.display().to_string(), "[TEMP]");
    }
    text.replace(&root().display().to_string(), "[ROOT]")
}

#[test]
fn a_reader_that_closes_the_pipe_early_is_a_normal_end() {
    use std::io::Read;
    // Read one line of the (multi-megabyte) view, then hang up, as `| head -1`
    // does: gpuprof must end quietly with 0, not panic with 101.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("gpuprof"))
        .current_dir(root())
        .args(["render", "examples/matmul/results.json", "--dump-view"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 1];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(first, *b"{");
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn render_reproduces_the_committed_example_report() {
    let out = tempfile::tempdir().unwrap();
    gpuprof()
        .args(["render", "examples/transpose/results.json", "-o"])
        .arg(out.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("transpose at N=8192"));
    // Every file the render writes is the committed one, byte for byte.
    let committed = root().join("examples/transpose");
    let charts = std::fs::read_dir(committed.join("charts"))
        .unwrap()
        .map(|entry| format!("charts/{}", entry.unwrap().file_name().to_string_lossy()));
    let files: Vec<String> = ["report.html", "report.md", "analysis.json"]
        .map(String::from)
        .into_iter()
        .chain(charts)
        .collect();
    assert!(files.len() > 5, "{files:?}");
    for file in files {
        let rendered = std::fs::read(out.path().join(&file)).unwrap();
        assert!(
            rendered == std::fs::read(committed.join(&file)).unwrap(),
            "gpuprof render gives a different {file} than the committed one"
        );
    }
}

#[test]
fn the_example_report_shows_what_the_issue_asks() {
    let page = std::fs::read_to_string(root().join("examples/transpose/report.html")).unwrap();
    assert!(page.contains("uncoalesced global stores: 32.0 sectors per request"));
    assert!(page.contains("32-way shared-memory bank conflicts on loads"));
    assert!(page.contains("out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];"));
    assert!(page.contains("shared accesses are conflict-free (1.09 wavefronts per load, 1.03 per store: ncu&#x27;s ideal)"), "the padded tile is about 1-way");
    assert!(page.contains("NVIDIA H200"));
}

fn nvrtc_present() -> bool {
    if gpuprof::build::nvrtc_available() {
        return true;
    }
    assert!(
        std::env::var_os("GPUPROF_REQUIRE_NVRTC").is_none(),
        "GPUPROF_REQUIRE_NVRTC is set but NVRTC is missing"
    );
    eprintln!("NVRTC not found: skipping (set GPUPROF_REQUIRE_NVRTC=1 to make this an error)");
    false
}

/// gpuprof with the stand-ins for the harness and ncu replaying the
/// recorded H200 run, its cache under `out`.
fn replaying(out: &Path) -> Command {
    let mut command = gpuprof();
    command
        .env("GPUPROF_HARNESS", root().join("tests/standin/harness"))
        .env(
            "GPUPROF_REPLAY",
            root().join("tests/fixtures/h200-transpose"),
        )
        .env("XDG_CACHE_HOME", out.join("cache"));
    command
}

/// `gpuprof report` on the transpose example with the stand-ins replaying
/// the recorded H200 run.
fn replayed_report(out: &Path, ncu_mode: &str) -> assert_cmd::assert::Assert {
    replayed_report_of(
        out,
        &root().join("examples/transpose/variants.toml"),
        ncu_mode,
    )
}

/// `gpuprof report` on `config` with the stand-ins replaying the recorded
/// H200 run of the transpose example.
fn replayed_report_of(out: &Path, config: &Path, ncu_mode: &str) -> assert_cmd::assert::Assert {
    replayed_report_command(out, config)
        .env("STANDIN_NCU", ncu_mode)
        .assert()
}

/// The command of `gpuprof report` on `config` with the stand-ins (as
/// [`replaying`]), into `out/report`, for a test to set the stand-ins'
/// variables on before it runs.
fn replayed_report_command(out: &Path, config: &Path) -> Command {
    let mut command = replaying(out);
    command
        .arg("report")
        .arg(config)
        .args(["--timeout", "5", "--ncu"])
        .arg(root().join("tests/standin/ncu"))
        .arg("-o")
        .arg(out.join("report"));
    command
}

/// The transpose example written into `folder` (its kernels named by
/// absolute path) with `profile` as its `[profile]` table: the recorded
/// run took the per-line counters at every size, which `lines_at =
/// "every"` asks for.
fn transpose_suite(folder: &Path, profile: &str) -> PathBuf {
    let kernels = format!("\"{}/kernels/", root().display());
    let suite = std::fs::read_to_string(root().join("examples/transpose/variants.toml"))
        .unwrap()
        .replace("\"../../kernels/", &kernels)
        + &format!("\n[profile]\n{profile}\n");
    let config = folder.join("variants.toml");
    std::fs::write(&config, suite).unwrap();
    config
}

/// [`transpose_suite`] with the per-line counters at every size, as
/// recorded.
const EVERY_SIZE: &str = "lines_at = \"every\"";

fn read_results(path: &Path) -> gpuprof::model::Results {
    gpuprof::model::read_results(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn report_through_the_stand_ins_gives_the_recorded_results() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    replayed_report(out.path(), "")
        .success()
        .stdout(predicate::str::contains(
            "32-way shared-memory bank conflicts",
        ))
        // The closing line: the time each stage took.
        .stderr(predicate::str::is_match(
            r"took [0-9.]+ s: prepare [0-9.]+ s · build [0-9.]+ s · ncu start [0-9.]+ s · time [0-9.]+ s · profile [0-9.]+ s · reports [0-9.]+ s",
        )
        .unwrap());
    let produced = read_results(&out.path().join("report/results.json"));
    let recorded = read_results(&root().join("examples/transpose/results.json"));
    assert_eq!(produced.variants.len(), recorded.variants.len());
    for (mine, theirs) in produced.variants.iter().zip(&recorded.variants) {
        assert_eq!(
            mine.build.resources, theirs.build.resources,
            "{}",
            mine.name
        );
        for (a, b) in mine.runs.iter().zip(&theirs.runs) {
            assert_eq!(a.samples_ms, b.samples_ms, "{} {}", mine.name, a.size);
            assert_eq!(a.check, b.check, "{} {}", mine.name, a.size);
            // The per-line counters are taken at N=8192 only (the recording
            // took them at both sizes): N=2048 keeps its counters and says
            // where its lines come from.
            let (a, b) = (a.profile.as_ref().unwrap(), b.profile.as_ref().unwrap());
            match a.lines_at.as_deref() {
                // ncu numbers the launches of each of its reports.
                None => assert_eq!(
                    (&a.metrics, &a.source_lines),
                    (&b.metrics, &b.source_lines),
                    "{} N=8192",
                    mine.name
                ),
                Some(at) => {
                    assert_eq!(at, "N=8192", "{}", mine.name);
                    assert_eq!(a.metrics, b.metrics, "{} N=2048", mine.name);
                    assert!(a.source_lines.is_empty(), "{} N=2048", mine.name);
                }
            }
        }
    }
    assert_eq!(
        produced.profiler.as_ref().unwrap().lines_at.as_deref(),
        Some("N=8192")
    );
    assert_eq!(
        produced.device,
        recorded.device.map(|d| gpuprof::model::Device {
            nvidia_smi: None,
            driver_version: None,
            ..d
        })
    );
    let profiler = produced.profiler.unwrap();
    assert_eq!(profiler.ncu_version, "2025.3.1.0");
    assert_eq!(profiler.passes_per_launch, Some(15.0));
    assert!(
        profiler
            .command
            .contains("--clock-control none --profile-from-start off")
    );
    assert!(out.path().join("report/report.html").is_file());
}

#[test]
fn refused_counter_access_keeps_the_timings_and_names_the_fix() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    // Every variant verified, but no counters: a code of its own.
    replayed_report(out.path(), "permission").code(6).stderr(
        predicate::str::contains("ERR_NVGPUCTRPERM").and(predicate::str::contains(
            "NVreg_RestrictProfilingToAdminUsers=0",
        )),
    );
    let results = read_results(&out.path().join("report/results.json"));
    assert!(results.variants.iter().all(|v| {
        v.runs
            .iter()
            .all(|r| r.samples_ms.len() == 30 && r.profile.is_none())
    }));
    let page = std::fs::read_to_string(out.path().join("report/report.html")).unwrap();
    assert!(page.contains("NVreg_RestrictProfilingToAdminUsers=0"));
}

#[test]
fn ncu_started_early_and_not_needed_ends_unused() {
    if !nvrtc_present() {
        return;
    }
    // The naive kernel alone, dying at both sizes: the two ncu processes
    // started while it was timed get nothing to profile.
    let out = tempfile::tempdir().unwrap();
    let example = std::fs::read_to_string(root().join("examples/transpose/variants.toml")).unwrap();
    let header = &example[..example.find("[[variant]]").unwrap()];
    let naive = format!(
        "[[variant]]\nname = \"naive\"\nsource = \"{}/kernels/transpose/naive.cu\"\nentry = \"transpose_naive\"\n",
        root().display()
    );
    let config = out.path().join("variants.toml");
    std::fs::write(&config, format!("{header}{naive}")).unwrap();
    let log = out.path().join("standin.log");
    replaying(out.path())
        .env("STANDIN_LOG", &log)
        .env("STANDIN_HARNESS", "crash:naive")
        .arg("report")
        .arg(&config)
        .args(["--timeout", "5", "--ncu"])
        .arg(root().join("tests/standin/ncu"))
        .arg("-o")
        .arg(out.path().join("report"))
        .assert()
        .code(3);
    let text = std::fs::read_to_string(&log).unwrap();
    for job in ["profile-job.json", "profile-lines-job.json"] {
        assert!(
            text.lines().any(|l| l == format!("waiting {job}")),
            "{text}"
        );
    }
    assert!(!text.lines().any(|l| l.starts_with("profile ")), "{text}");
    let results = read_results(&out.path().join("report/results.json"));
    assert!(results.profiler.is_none());
    assert!(
        results.variants[0]
            .runs
            .iter()
            .all(|r| r.failure.is_some() && r.profile.is_none())
    );
}

#[test]
fn ncu_harnesses_open_the_gpu_early_and_the_second_takes_its_job_as_the_first_ncu_ends() {
    if !nvrtc_present() {
        return;
    }
    // Where the device lets processes share it, both ncu processes'
    // harnesses open their contexts once the device is probed and before
    // the timing harness starts, and the second gets its job once the
    // first harness has run its items, while the first ncu still writes
    // its report (a second, here); where it does not (an exclusive compute
    // mode), they open nothing until their jobs come, the second once the
    // first ncu has ended, and profile as well.
    for (mode, opens) in [("default", true), ("exclusive", false)] {
        let out = tempfile::tempdir().unwrap();
        let log = out.path().join("standin.log");
        let config = root().join("examples/transpose/variants.toml");
        let done = replayed_report_command(out.path(), &config)
            .env("STANDIN_LOG", &log)
            .env("STANDIN_NCU_TAIL", "1")
            .env("STANDIN_COMPUTE_MODE", mode)
            .env("STANDIN_OPEN_SECONDS", "0.3")
            .env("CUDA_VISIBLE_DEVICES", "0")
            .assert()
            .success();
        let text = std::fs::read_to_string(&log).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let at = |line: &str| lines.iter().position(|l| *l == line);
        let first_timed = lines.iter().position(|l| l.starts_with("time "));
        let probed = at("device on gpu 0");
        for job in ["profile-job.json", "profile-lines-job.json"] {
            let opened = at(&format!("opened {job}"));
            match opens {
                true => assert!(
                    probed < opened && opened.is_some() && opened < first_timed,
                    "{text}"
                ),
                false => assert_eq!(opened, None, "{text}"),
            }
        }
        // One after the other: the second harness is let in only once the
        // first has opened the GPU (two contexts made at once place the
        // timed buffers after them differently from run to run).
        if opens {
            assert!(
                at("opened profile-job.json") < at("gate profile-lines-job.json"),
                "{text}"
            );
        }
        // The lines run (N=8192) goes first; the other run's items are
        // read by its harness before or after the first ncu has ended.
        let second_job = lines.iter().position(|l| *l == "profile naive N=2048");
        let first_ended = at("ended profile-lines");
        assert!(second_job.is_some() && first_ended.is_some(), "{text}");
        assert_eq!(second_job < first_ended, opens, "{text}");
        let took = String::from_utf8_lossy(&done.get_output().stderr).into_owned();
        assert_eq!(took.contains("ncu start"), opens, "{took}");
        let results = read_results(&out.path().join("report/results.json"));
        assert!(results.profiler.as_ref().unwrap().lines_run.is_some());
        assert!(
            results
                .variants
                .iter()
                .all(|v| v.runs.iter().all(|r| r.profile.is_some())),
            "{mode}"
        );
    }
}

#[test]
fn a_harness_that_dies_loses_only_the_variant_it_was_running() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    replaying(out.path())
        .env("STANDIN_HARNESS", "crash:tiled")
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--no-profile",
            "-o",
        ])
        .arg(out.path().join("report"))
        .assert()
        .code(3);
    let results = read_results(&out.path().join("report/results.json"));
    for variant in &results.variants {
        for run in &variant.runs {
            if variant.name == "tiled" {
                let failure = run.failure.as_ref().expect("tiled failed");
                assert!(
                    failure.message.contains("the harness ended"),
                    "{}",
                    failure.message
                );
            } else {
                assert_eq!(
                    run.samples_ms.len(),
                    30,
                    "{} {} kept its timings",
                    variant.name,
                    run.size
                );
            }
        }
    }
}

#[test]
fn a_fresh_harness_is_told_which_runs_faulted_so_it_does_not_run_that_reference_again() {
    if !nvrtc_present() {
        return;
    }
    // The baseline every variant verifies against faults (a fatal CUDA
    // error): the harness ends after reporting it, and the next one must
    // not run it again as a reference (its fault would end that one too,
    // before the variant it verifies had run).
    let out = tempfile::tempdir().unwrap();
    let log = out.path().join("standin.log");
    replaying(out.path())
        .env("STANDIN_HARNESS", "fault:naive")
        .env("STANDIN_LOG", &log)
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--no-profile",
            "-o",
        ])
        .arg(out.path().join("report"))
        .assert()
        .code(3);
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(
        log.contains("failed naive N=2048\ntime tiled N=2048"),
        "the second attempt knows naive failed at N=2048:\n{log}"
    );
    assert!(
        log.contains("failed naive N=8192\ntime tiled N=8192"),
        "{log}"
    );
    let results = read_results(&out.path().join("report/results.json"));
    for variant in &results.variants {
        for run in &variant.runs {
            match variant.name.as_str() {
                "naive" => assert!(
                    run.failure
                        .as_ref()
                        .is_some_and(|f| f.message.contains("CUDA_ERROR_ILLEGAL_ADDRESS")),
                    "{run:?}"
                ),
                _ => assert_eq!(run.samples_ms.len(), 30, "{} {}", variant.name, run.size),
            }
        }
    }
}

#[test]
fn config_errors_name_file_line_and_column() {
    let assert = gpuprof()
        .args(["report", "tests/configs/errors/baseline-not-variant.toml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--> tests/configs/errors/baseline-not-variant.toml:",
        ))
        .stderr(predicate::str::contains("= help:"));
    insta::assert_snapshot!(stderr_of(&assert, None), @r#"
    error: baseline "naiv" is not a variant
     --> tests/configs/errors/baseline-not-variant.toml:4:12
      |
    4 | baseline = "naiv"
      |            ^^^^^^
      = help: the variants are: naive, copy, tiled, padded (did you mean "naive"?)
    "#);
}

#[test]
fn a_missing_config_is_a_clear_error() {
    let assert = gpuprof()
        .args(["report", "no/such/variants.toml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no/such/variants.toml"))
        .stderr(predicate::str::contains("panicked").not());
    insta::assert_snapshot!(stderr_of(&assert, None), @"
    error: cannot read no/such/variants.toml: No such file or directory (os error 2)
      = help: give the path of an existing, readable variants.toml (see docs/variants-toml.md)
    ");
}

#[test]
fn broken_results_json_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "cut.json",
            "{\"schema_version\": 1, \"gpuprof_version\": ",
            "results.json is written by `gpuprof report`",
        ),
        ("other.json", "{\"hello\": 1}", "not a gpuprof results.json"),
        (
            "future.json",
            "{\"schema_version\": 99}",
            "schema version 99",
        ),
    ];
    let mut stderr = String::new();
    for (name, text, expected) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let assert = gpuprof().arg("render").arg(&path).assert().code(2).stderr(
            predicate::str::contains(expected).and(predicate::str::contains("panicked").not()),
        );
        stderr += &stderr_of(&assert, Some(dir.path()));
    }
    insta::assert_snapshot!(stderr, @r#"
    error: [TEMP]/cut.json:1:41: EOF while parsing a value at line 1 column 41 (results.json is written by `gpuprof report`; re-run it if the file was edited or cut short)
    error: [TEMP]/other.json: this JSON has no "schema_version": it is not a gpuprof results.json
    error: [TEMP]/future.json: schema version 99 is not one this gpuprof reads (1 to 2); render it with the gpuprof that wrote it, or re-run `gpuprof report`
    "#);
}

#[test]
fn audit_prints_its_count_and_refuses_what_is_not_results_json() {
    gpuprof()
        .args(["audit", "examples/transpose/results.json"])
        .assert()
        .code(0)
        .stdout(predicate::str::ends_with("claims checked, 0 unsupported\n"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.json");
    std::fs::write(&path, "{\"hello\": 1}").unwrap();
    gpuprof()
        .arg("audit")
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a gpuprof results.json"));
}

#[test]
fn a_file_meant_for_another_command_names_that_command() {
    let cases = [
        (
            vec!["report", "examples/transpose/results.json"],
            "`gpuprof render examples/transpose/results.json`",
        ),
        (
            vec!["render", "examples/transpose/variants.toml"],
            "`gpuprof report examples/transpose/variants.toml`",
        ),
        (
            vec!["compare", "examples/transpose/variants.toml"],
            "`gpuprof report examples/transpose/variants.toml`",
        ),
        (
            vec!["render", "examples/transpose/profile.ncu-rep"],
            "`gpuprof compare examples/transpose/profile.ncu-rep`",
        ),
        (
            vec!["report", "kernels/transpose/naive.cu"],
            "--from kernels/transpose/naive.cu`",
        ),
        (
            vec!["report", "examples/transpose"],
            "`gpuprof report examples/transpose/variants.toml`",
        ),
    ];
    for (args, expected) in cases {
        gpuprof().args(&args).assert().code(2).stderr(
            predicate::str::contains(expected).and(predicate::str::contains("panicked").not()),
        );
    }
}

#[test]
fn format_json_and_csv_print_the_conclusions_for_a_script() {
    let out = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join("examples/transpose/results.json"),
        out.path().join("results.json"),
    )
    .unwrap();
    let results = out.path().join("results.json");
    let json = gpuprof()
        .arg("render")
        .arg(&results)
        .args(["--format", "json"])
        .assert()
        .success()
        .stderr(predicate::str::contains("report: "));
    let conclusions: serde_json::Value = serde_json::from_slice(&json.get_output().stdout).unwrap();
    assert_eq!(conclusions["schema"], "gpuprof-analysis");
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("analysis.json")).unwrap())
            .unwrap();
    assert_eq!(conclusions, written, "stdout is analysis.json");
    let csv = gpuprof()
        .arg("render")
        .arg(&results)
        .args(["--format", "csv"])
        .assert()
        .success();
    let text = String::from_utf8(csv.get_output().stdout.clone()).unwrap();
    assert!(text.starts_with("suite,size,variant,"), "{text}");
    assert_eq!(
        text.lines().count(),
        1 + 2 * 4,
        "a header and 4 variants at 2 sizes"
    );
}

#[test]
fn a_rerun_says_what_changed_and_diff_compares_two_runs() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    replayed_report(out.path(), "")
        .success()
        .stderr(predicate::str::contains("since the previous run").not());
    // The stand-ins replay the same launches: nothing moved.
    replayed_report(out.path(), "")
        .success()
        .stderr(predicate::str::contains(
            "since the previous run in this folder: 8 the same",
        ));
    // The same results, with `padded` made 30% slower by hand.
    let before = out.path().join("report/results.json");
    let mut slower: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&before).unwrap()).unwrap();
    for variant in slower["variants"].as_array_mut().unwrap() {
        if variant["name"] == "padded" {
            for run in variant["runs"].as_array_mut().unwrap() {
                for sample in run["samples_ms"].as_array_mut().unwrap() {
                    *sample = (sample.as_f64().unwrap() * 1.3).into();
                }
            }
        }
    }
    let after = out.path().join("slower.json");
    std::fs::write(&after, slower.to_string()).unwrap();
    gpuprof()
        .arg("diff")
        .arg(&before)
        .arg(&after)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("30.0% slower")
                .and(predicate::str::ends_with("2 slower, 6 the same\n")),
        );
}

#[test]
fn pdf_is_printed_last_and_a_missing_browser_keeps_the_report() {
    let out = tempfile::tempdir().unwrap();
    std::fs::copy(
        root().join("examples/transpose/results.json"),
        out.path().join("results.json"),
    )
    .unwrap();
    gpuprof()
        .env("GPUPROF_CHROMIUM", "/nonexistent/chromium")
        .env("PATH", "/nonexistent")
        .arg("render")
        .arg(out.path().join("results.json"))
        .args(["--pdf", "--paper", "letter"])
        .assert()
        .code(4)
        .stderr(predicate::str::contains("apt install chromium"));
    assert!(
        out.path().join("report.html").is_file(),
        "written before the PDF"
    );
    assert!(!out.path().join("report.pdf").exists());
    if std::env::var_os("GPUPROF_REQUIRE_BROWSER").is_none()
        && !Path::new("/usr/bin/chromium").is_file()
    {
        eprintln!("chromium not found: skipping the printed PDF");
        return;
    }
    gpuprof()
        .arg("render")
        .arg(out.path().join("results.json"))
        .args(["--pdf", "--paper", "letter"])
        .assert()
        .success()
        .stderr(predicate::str::contains("pdf: "));
    let pdf = std::fs::read(out.path().join("report.pdf")).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    for command in [
        "report", "render", "audit", "diff", "compare", "doctor", "init",
    ] {
        gpuprof()
            .args([command, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Example:"));
    }
}

#[test]
fn compare_builds_the_report_from_a_real_csv_export() {
    let out = tempfile::tempdir().unwrap();
    gpuprof()
        .args([
            "compare",
            "tests/fixtures/h200-probe/raw.csv",
            "--kernel",
            "transpose_(naive|tiled)",
            "-o",
        ])
        .arg(out.path())
        .assert()
        .success()
        .stdout(
            predicate::str::contains("raw/transpose_naive")
                .and(predicate::str::contains("raw/transpose_tiled")),
        )
        .stdout(predicate::str::contains(
            "32-way shared-memory bank conflicts on loads",
        ))
        .stdout(predicate::str::contains("copy_reference").not());
    let results = read_results(&out.path().join("results.json"));
    assert_eq!(results.variants.len(), 2);
    assert_eq!(results.device.unwrap().name, "NVIDIA H200");
    assert!(out.path().join("report.html").is_file());
}

#[test]
fn compare_reads_an_ncu_report_through_ncu_with_source_lines() {
    let out = tempfile::tempdir().unwrap();
    gpuprof()
        .env(
            "GPUPROF_REPLAY",
            root().join("tests/fixtures/h200-transpose"),
        )
        .args([
            "compare",
            "tests/fixtures/h200-transpose/profile.ncu-rep",
            "--kernel",
            "tiled",
            "--ncu",
        ])
        .arg(root().join("tests/standin/ncu"))
        .arg("-o")
        .arg(out.path())
        .assert()
        .success();
    let results = read_results(&out.path().join("results.json"));
    // One kernel at two grids: one variant, its two launch configurations
    // two sizes.
    assert_eq!(results.variants.len(), 1);
    assert_eq!(
        results.variants[0].runs.len(),
        2,
        "the tiled kernel at both sizes"
    );
    assert_eq!(results.suite.sizes.len(), 2);
    let page = std::fs::read_to_string(out.path().join("report.html")).unwrap();
    assert!(
        page.contains("out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];"),
        "per-line counters came through"
    );
}

#[test]
fn compare_explains_bad_input() {
    let bad_regex = gpuprof()
        .args([
            "compare",
            "tests/fixtures/h200-probe/raw.csv",
            "--kernel",
            "(",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not a regular expression"));
    insta::assert_snapshot!(stderr_of(&bad_regex, None), @r#"error: --kernel "(" is not a regular expression: unclosed group"#);
    let no_match = gpuprof()
        .args([
            "compare",
            "tests/fixtures/h200-probe/raw.csv",
            "--kernel",
            "sgemm",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no launch's kernel name matches --kernel \"sgemm\"",
        ));
    insta::assert_snapshot!(stderr_of(&no_match, None), @r#"error: tests/fixtures/h200-probe/raw.csv: no launch's kernel name matches --kernel "sgemm""#);
    let wrong_page = gpuprof()
        .args(["compare", "tests/fixtures/h200-probe/source-cuda-tiled.csv"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("this is not the raw page"));
    insta::assert_snapshot!(stderr_of(&wrong_page, None), @r#"error: tests/fixtures/h200-probe/source-cuda-tiled.csv: this is not the raw page (its header has no "ID" column and starts with "File Name"); export it with `ncu --import REPORT.ncu-rep --csv --page raw > raw.csv`"#);
}

/// `gpuprof doctor` with the stand-in ncu replaying the H200 transpose
/// fixture, and no NVRTC or driver library to be found.
fn doctor_with_the_standin_ncu() -> Command {
    let mut command = gpuprof();
    command
        .env(
            "GPUPROF_REPLAY",
            root().join("tests/fixtures/h200-transpose"),
        )
        .env("LD_LIBRARY_PATH", "/nonexistent")
        .args(["doctor", "--ncu"])
        .arg(root().join("tests/standin/ncu"));
    command
}

#[test]
fn doctor_names_the_library_headers_a_partial_toolkit_lacks() {
    let toolkit = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(toolkit.path().join("include")).unwrap();
    for header in ["cuda_runtime_api.h", "cublas_v2.h"] {
        std::fs::write(toolkit.path().join("include").join(header), "").unwrap();
    }
    let output = doctor_with_the_standin_ncu()
        .env("CUDA_HOME", toolkit.path())
        .output()
        .unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains(&format!(
            "CUDA headers          {} (without cuda_profiler_api.h, curand_kernel.h: a file that includes one needs the full toolkit, or a stand-in in `include_dirs`)",
            toolkit.path().join("include").display()
        )),
        "{text}"
    );
}

#[test]
fn doctor_names_each_missing_piece_and_its_fix() {
    let output = doctor_with_the_standin_ncu().output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.contains("ok   Nsight Compute        2025.3.1.0"),
        "{text}"
    );
    assert!(text.contains("performance counters"), "{text}");
    if !gpuprof::harness::driver_available() {
        assert_eq!(output.status.code(), Some(4));
        assert!(
            text.contains("FAIL NVIDIA driver         libcuda.so.1 not found"),
            "{text}"
        );
        assert!(text.contains("fix: install the NVIDIA driver"), "{text}");
    }
}

#[test]
fn compare_reads_the_exports_of_a_users_program() {
    let out = tempfile::tempdir().unwrap();
    gpuprof()
        .args([
            "compare",
            "tests/fixtures/h200-external/naive-N_4096-raw.csv",
            "tests/fixtures/h200-external/padded-N_4096-raw.csv",
            "--name",
            "naive",
            "--name",
            "padded",
            "-o",
        ])
        .arg(out.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("naive").and(predicate::str::contains("padded")));
    // Five launches of each program's kernel: two variants, five samples
    // each, and speedups that are the programs', not launch against launch.
    let results = read_results(&out.path().join("results.json"));
    assert_eq!(results.variants.len(), 2);
    assert!(
        results
            .variants
            .iter()
            .all(|v| v.runs[0].samples_ms.len() == 5)
    );
    let page = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        page.contains("ncu's kernel duration (gpu\\_\\_time\\_duration)"),
        "{page}"
    );
    gpuprof()
        .args([
            "compare",
            "tests/fixtures/h200-external/naive-N_4096-raw.csv",
            "--baseline",
            "other",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--baseline \"other\" is none of the compared kernels: naive-N_4096-raw",
        ));
}

#[test]
fn the_external_example_mixes_command_and_harness_variants() {
    let results = read_results(&root().join("examples/external/results.json"));
    let naive = results.variant("naive").unwrap();
    assert_eq!(
        naive.runs[0].samples_ms.len(),
        5,
        "timed by the five profiled launches"
    );
    assert_eq!(
        naive.runs[0].command.as_deref(),
        Some("./transpose naive 4096")
    );
    assert!(
        naive.runs[0]
            .profile
            .as_ref()
            .unwrap()
            .source_lines
            .iter()
            .any(|l| l.line == 17)
    );
    let bundled = results.variant("bundled-padded").unwrap();
    assert_eq!(bundled.runs[0].samples_ms.len(), 20, "timed by CUDA events");
    let page = std::fs::read_to_string(root().join("examples/external/report.html")).unwrap();
    assert!(page.contains("uncoalesced global stores: 32.1 sectors per request"));
}

/// Three programs that check themselves, run under the stand-in ncu: one
/// passes, one prints that it failed, one exits with status 1.
const SELF_CHECKING_PROGRAMS: &str = r#"
version = 1

[suite]
name = "self-checking"
sizes = [64]
baseline = "passes"

[defaults]
kernel = "transpose"
launches = 1
expect = "^Test PASSED$"

[[variant]]
name = "passes"
command = ["sh", "-c", "echo size {N}; echo Test PASSED"]

[[variant]]
name = "prints-failed"
command = ["sh", "-c", "echo Test FAILED"]
changes = ["other"]
notes = "fused the bias add into the kernel"

[[variant]]
name = "exits-1"
command = ["sh", "-c", "echo Test PASSED; echo CUDA error >&2; exit 1"]
"#;

#[test]
fn a_command_that_checks_itself_is_verified_or_wrong_by_its_own_word() {
    use gpuprof::model::measurement::{Check, ProgramFailure};
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    std::fs::write(out.path().join("variants.toml"), SELF_CHECKING_PROGRAMS).unwrap();
    replaying(out.path())
        .arg("report")
        .arg(out.path().join("variants.toml"))
        .arg("--ncu")
        .arg(root().join("tests/standin/ncu"))
        .arg("-o")
        .arg(out.path().join("report"))
        .assert()
        .code(3);
    let results = read_results(&out.path().join("report/results.json"));
    let check = |name: &str| results.variant(name).unwrap().runs[0].check.clone();
    assert_eq!(
        check("passes"),
        Some(Check::ProgramPassed {
            expect: "^Test PASSED$".into(),
            line: "Test PASSED".into()
        })
    );
    assert!(matches!(
        check("prints-failed"),
        Some(Check::ProgramFailed { failure: ProgramFailure::NoMatch { .. }, output_tail }) if output_tail == "Test FAILED"
    ));
    assert!(matches!(
        check("exits-1"),
        Some(Check::ProgramFailed { failure: ProgramFailure::ExitStatus { code: 1 }, output_tail }) if output_tail == "Test PASSED\nCUDA error"
    ));
    let page = std::fs::read_to_string(out.path().join("report/report.md")).unwrap();
    for shown in [
        "correct by its own check: the program exited with status 0 and printed `Test PASSED`, which matches `expect` = `^Test PASSED$`",
        "WRONG: the program exited with status 0, but no line it printed matches `expect` = `^Test PASSED$`; its last lines: Test FAILED",
        "WRONG: the program exited with status 1; its last lines: Test PASSED",
        "| prints-failed | other change (see notes) |",
        "(no expectation): gpuprof has no knowledge of this change",
    ] {
        assert!(page.contains(shown), "report.md lacks {shown:?}:\n{page}");
    }
    for verdict in ["confirmed", "not seen", "contradicted"] {
        assert!(
            !page.contains(&format!("({verdict})")),
            "{verdict} in:\n{page}"
        );
    }
}

/// Runs the transpose suite with a stand-in harness that hangs on `tiled`,
/// waits until `naive` is saved, then sends gpuprof `signal`; gpuprof's
/// output, the hung harness's pid and the output folder.
fn stopped_during_a_hang(signal: i32) -> (std::process::Output, i32, tempfile::TempDir) {
    let out = tempfile::tempdir().unwrap();
    let pidfile = out.path().join("harness.pid");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("gpuprof"))
        .current_dir(root())
        .env("GPUPROF_HARNESS", root().join("tests/standin/harness"))
        .env(
            "GPUPROF_REPLAY",
            root().join("tests/fixtures/h200-transpose"),
        )
        .env("STANDIN_HARNESS", "hang:tiled")
        .env("STANDIN_PIDFILE", &pidfile)
        .env("XDG_CACHE_HOME", out.path().join("cache"))
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--no-profile",
            "-o",
        ])
        .arg(out.path().join("report"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while !pidfile.is_file() || std::fs::read_to_string(&pidfile).unwrap().is_empty() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "the stand-in never hung"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // Wait until gpuprof has saved what came before the hang.
    let saved = out.path().join("report/results.json");
    while !std::fs::read_to_string(&saved)
        .ok()
        .and_then(|t| gpuprof::model::read_results(&t).ok())
        .is_some_and(|r| {
            r.variant("naive")
                .and_then(|v| v.run("N=2048"))
                .is_some_and(|r| r.samples_ms.len() == 30)
        })
    {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "naive was never saved"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let harness: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // SAFETY: signals the gpuprof process this test started.
    unsafe { libc::kill(child.id() as i32, signal) };
    (child.wait_with_output().unwrap(), harness, out)
}

/// Whether process `pid` still runs (a zombie waiting to be reaped does not).
fn still_running(pid: i32) -> bool {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let alive = status
            .lines()
            .any(|l| l.starts_with("State:") && !l.contains("zombie") && !l.contains("dead"));
        if !alive || std::time::Instant::now() > deadline {
            return alive;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn ctrl_c_stops_the_harness_and_keeps_what_was_measured() {
    if !nvrtc_present() {
        return;
    }
    let (output, harness, out) = stopped_during_a_hang(libc::SIGINT);
    assert_eq!(output.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "interrupted: results.json, report.html and report.md hold what was measured so far"
        ),
        "{stderr}"
    );
    assert!(!still_running(harness), "the harness outlived gpuprof");
    let results = read_results(&out.path().join("report/results.json"));
    assert!(
        results
            .notices
            .iter()
            .any(|n| matches!(n, gpuprof::model::notice::Notice::Interrupted { ran, total } if ran < total)),
        "{:?}",
        results.notices
    );
    // The reports match results.json: they say the run is incomplete.
    let page = std::fs::read_to_string(out.path().join("report/report.md")).unwrap();
    assert!(
        page.contains("incomplete: the run was interrupted"),
        "{page}"
    );
    // A run the interrupt kept from finishing is "not run", not a failure.
    assert!(page.contains("| not run |"), "{page}");
    assert!(!page.contains("failed (run)"), "{page}");
    let naive = results.variant("naive").unwrap();
    assert_eq!(
        naive.run("N=2048").unwrap().samples_ms.len(),
        30,
        "measured before the interrupt, kept"
    );
    assert!(
        results
            .variant("tiled")
            .unwrap()
            .run("N=2048")
            .unwrap()
            .samples_ms
            .is_empty()
    );
}

#[test]
fn term_and_hup_stop_like_ctrl_c_and_kill_leaves_no_harness_behind() {
    if !nvrtc_present() {
        return;
    }
    for signal in [libc::SIGTERM, libc::SIGHUP] {
        let (output, harness, out) = stopped_during_a_hang(signal);
        assert_eq!(output.status.code(), Some(130), "signal {signal}");
        assert!(
            !still_running(harness),
            "signal {signal}: the harness outlived gpuprof"
        );
        let results = read_results(&out.path().join("report/results.json"));
        assert_eq!(
            results.variant("naive").unwrap().runs[0].samples_ms.len(),
            30
        );
    }
    // SIGKILL runs no handler: the harness dies with its parent all the same.
    let (output, harness, _out) = stopped_during_a_hang(libc::SIGKILL);
    assert_eq!(output.status.code(), None, "killed by the signal");
    assert!(
        !still_running(harness),
        "SIGKILL: the harness outlived gpuprof"
    );
}

#[test]
fn open_hands_the_report_to_the_desktop() {
    let out = tempfile::tempdir().unwrap();
    let bin = out.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let opener = bin.join("xdg-open");
    let marker = out.path().join("opened");
    // Written aside and moved into place, so that the marker never exists
    // empty while the test polls for it.
    std::fs::write(
        &opener,
        format!(
            "#!/bin/sh\necho \"$1\" > {marker}.part && mv {marker}.part {marker}\n",
            marker = marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&opener, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    gpuprof()
        .env("PATH", path)
        .args(["render", "examples/transpose/results.json", "--open", "-o"])
        .arg(out.path().join("r"))
        .assert()
        .success();
    let started = std::time::Instant::now();
    while !marker.is_file() && started.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let opened = std::fs::read_to_string(&marker).unwrap();
    assert_eq!(
        opened.trim(),
        out.path().join("r/report.html").display().to_string()
    );
}

#[test]
fn check_names_the_lines_init_from_a_file_left_to_fill_in() {
    let out = tempfile::tempdir().unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/cpp/homework.cu");
    gpuprof()
        .arg("init")
        .arg(out.path().join("s"))
        .arg("--from")
        .arg(&source)
        .assert()
        .success();
    let written = std::fs::read_to_string(out.path().join("s/variants.toml")).unwrap();
    let marked: Vec<String> = written
        .lines()
        .enumerate()
        .filter(|(_, line)| line.contains("# fill in:"))
        .map(|(index, _)| (index + 1).to_string())
        .collect();
    assert!(marked.len() > 4, "{written}");
    let checked = gpuprof()
        .args(["report", "--check"])
        .arg(out.path().join("s/variants.toml"))
        .assert();
    let stdout = String::from_utf8_lossy(&checked.get_output().stdout).into_owned();
    assert!(
        stdout.contains(&format!(
            "warning: {} lines of {} still say `# fill in:` (lines {}): gpuprof init guessed those values",
            marked.len(),
            out.path().join("s/variants.toml").display(),
            marked.join(", ")
        )),
        "{stdout}"
    );
}

#[test]
fn check_warns_about_variants_whose_compiler_is_not_installed() {
    if Path::new("/usr/local/cuda/bin/nvcc").exists() {
        // nvcc is found there whatever the environment says.
        return;
    }
    let output = gpuprof()
        .args(["report", "tests/gpu/own-kernels/variants.toml", "--check"])
        .env("PATH", "/usr/bin:/bin")
        .env_remove("CUDA_HOME")
        .env_remove("CUDA_PATH")
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("variants not compiled here (")
            && stderr.contains(
                "their compiler is not installed, so this check does not show that they compile"
            ),
        "{stderr}"
    );
}

#[test]
fn init_writes_a_suite_that_loads() {
    let out = tempfile::tempdir().unwrap();
    gpuprof()
        .arg("init")
        .arg(out.path().join("s"))
        .assert()
        .success()
        .stdout(predicate::str::contains("next: gpuprof report"));
    assert!(gpuprof::config::load(&out.path().join("s/variants.toml")).is_ok());
    let again = gpuprof()
        .arg("init")
        .arg(out.path().join("s"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already exists"));
    insta::assert_snapshot!(stderr_of(&again, Some(out.path())), @"error: [TEMP]/s/variants.toml already exists: gpuprof init writes only new files; choose an empty folder (`gpuprof init my-suite`)");
}

#[test]
fn a_second_run_reuses_what_did_not_change_and_force_runs_it_all() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    // A copy of the transpose suite whose kernels this test may edit.
    let suite = out.path().join("suite");
    std::fs::create_dir_all(suite.join("kernels")).unwrap();
    for kernel in ["copy", "naive", "tiled", "padded"] {
        std::fs::copy(
            root().join(format!("kernels/transpose/{kernel}.cu")),
            suite.join(format!("kernels/{kernel}.cu")),
        )
        .unwrap();
    }
    let toml = std::fs::read_to_string(root().join("examples/transpose/variants.toml"))
        .unwrap()
        .replace("../../kernels/transpose/", "kernels/");
    std::fs::write(suite.join("variants.toml"), toml).unwrap();
    let log = out.path().join("harness.log");
    let run = |extra: &[&str]| {
        let _ = std::fs::remove_file(&log);
        replaying(out.path())
            .env("STANDIN_LOG", &log)
            .arg("report")
            .arg(suite.join("variants.toml"))
            .args(["--ncu"])
            .arg(root().join("tests/standin/ncu"))
            .arg("-o")
            .arg(out.path().join("report"))
            .args(extra)
            .assert()
            .success();
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        text.lines()
            .filter(|l| {
                !["device", "export", "waiting", "gate", "opened"]
                    .iter()
                    .any(|what| l.starts_with(what))
            })
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(run(&[]).len(), 16, "first run: 8 timed and 8 profiled");
    assert!(run(&[]).is_empty(), "nothing changed: nothing runs");
    // Nothing to profile: the ncu processes started with the run were ended
    // before their harnesses opened the GPU.
    let second = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!second.contains("opened"), "{second}");
    let padded = suite.join("kernels/padded.cu");
    let edited = std::fs::read_to_string(&padded).unwrap() + "\n// edited\n";
    std::fs::write(&padded, edited).unwrap();
    let third = run(&[]);
    assert_eq!(
        third,
        [
            "time padded N=2048",
            "time padded N=8192",
            // The per-line counters' size first (their own ncu run).
            "profile padded N=8192",
            "profile padded N=2048"
        ]
    );
    let results = read_results(&out.path().join("report/results.json"));
    assert!(results.variants.iter().all(|v| {
        v.runs
            .iter()
            .all(|r| r.profile.is_some() && r.samples_ms.len() == 30)
    }));
    assert!(
        results
            .notices
            .contains(&gpuprof::model::notice::Notice::Reused { runs: 6 }),
        "{:?}",
        results.notices
    );
    assert_eq!(run(&["--force"]).len(), 16, "--force runs everything");
}

#[test]
fn a_failing_or_missing_ncu_keeps_the_timings_and_says_so() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    replayed_report(out.path(), "fail").code(6).stderr(
        predicate::str::contains("profiling failed").and(predicate::str::contains(
            "An error was reported by the driver",
        )),
    );
    let results = read_results(&out.path().join("report/results.json"));
    assert!(
        results
            .variants
            .iter()
            .all(|v| v.runs.iter().all(|r| r.samples_ms.len() == 30))
    );
    replaying(out.path())
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--force",
            "--ncu",
            "/nonexistent/ncu",
            "-o",
        ])
        .arg(out.path().join("missing"))
        .assert()
        .code(6)
        .stderr(predicate::str::contains(
            "profiling was skipped: --ncu /nonexistent/ncu: no such file",
        ));
}

#[test]
fn check_compiles_every_kernel_and_prints_the_plan_without_a_gpu() {
    if !nvrtc_present() {
        return;
    }
    let nvcc = gpuprof::build::toolkit::nvcc().is_some();
    assert!(
        nvcc || std::env::var_os("GPUPROF_REQUIRE_NVCC").is_none(),
        "GPUPROF_REQUIRE_NVCC is set but nvcc is missing"
    );
    let output = gpuprof()
        .args([
            "report",
            "tests/gpu/own-kernels/variants.toml",
            "--check",
            "--arch",
            "sm_90",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert!(stdout.starts_with("own-kernels: 9 variants at 1 size (N=1048576), baseline `naive-copy`; compiled for sm_90"), "{stdout}");
    // A sequence shows every launch's geometry and scalars.
    assert!(
        stdout.contains("│ N=1048576 · 2 reduce6<32, true> (partial, out, n 64)"),
        "{stdout}"
    );
    for symbol in [
        "copy_reference",
        "_Z14transposeNaivePfPKfii",
        "_Z7reduce6ILj256ELb1EEvPKfPfj",
    ] {
        assert!(
            stdout.contains(&format!("compiled at every size: symbol {symbol}\n")),
            "{symbol}: {stdout}"
        );
    }
    if nvcc {
        assert!(
            stdout.contains("compiled at every size: symbol _Z9tiledCopyILi64EEvPfPKfi\n"),
            "{stdout}"
        );
        assert!(
            stdout.contains("by nvcc (the file holds host code: it defines `main`)"),
            "{stdout}"
        );
    }
    assert!(
        stdout.contains("│ N=1048576 ┆ 32×128×1 ┆ 32×8×1 ┆ 0 B"),
        "{stdout}"
    );
    assert!(
        stdout.contains("partial 64×f32 (256 B), output"),
        "{stdout}"
    );
}

#[test]
fn check_fails_a_kernel_that_does_not_compile_with_the_compilers_message() {
    if !nvrtc_present() {
        return;
    }
    let output = gpuprof()
        .args(["report", "tests/gpu/faults/variants.toml", "--check"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(3), "{stdout}");
    assert!(stdout.contains("broken: `copy_broken` of"), "{stdout}");
    assert!(stdout.contains("identifier \"j\" is undefined"), "{stdout}");
    assert!(
        stdout.contains("\n  command: NVRTC --gpu-architecture="),
        "{stdout}"
    );
    assert!(stdout.contains("good: `copy` of"), "{stdout}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.trim(),
        "error: 1 variant did not compile (broken): their compiler errors are above, marked FAILED"
    );
    let bad_arch = gpuprof()
        .args([
            "report",
            "tests/gpu/faults/variants.toml",
            "--check",
            "--arch",
            "ninety",
        ])
        .output()
        .unwrap();
    assert_eq!(bad_arch.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad_arch.stderr)
            .contains("\"ninety\" is not a compute capability")
    );
}

#[test]
fn one_gpuprof_at_a_time_writes_an_output_folder() {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let folder = out.path().join("report");
    std::fs::create_dir_all(&folder).unwrap();
    let mut held = std::fs::File::create(folder.join(".gpuprof.lock")).unwrap();
    write!(held, "4242").unwrap();
    // SAFETY: flock(2) on a file this test owns, as another gpuprof would.
    assert_eq!(
        unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let assert = replayed_report(out.path(), "replay").code(1);
    insta::assert_snapshot!(stderr_of(&assert, Some(out.path())), @"error: another gpuprof (pid 4242) is writing [TEMP]/report: wait for it to finish, or give this run another folder with -o");
    assert!(
        !folder.join("results.json").exists(),
        "the running one's folder is left alone"
    );
    drop(held);
    replayed_report(out.path(), "replay").success();
    let owner = std::fs::read_to_string(folder.join(".gpuprof.lock")).unwrap();
    assert!(
        owner.parse::<u32>().is_ok(),
        "the lock names its owner: {owner:?}"
    );
}

/// A command variant with a build line, in a folder of its own.
const BUILT_PROGRAM: &str = r#"
version = 1

[suite]
name = "built"
sizes = [64]
baseline = "program"

[[variant]]
name = "program"
build = ["sh", "-c", "echo built > built.txt"]
command = ["sh", "-c", "echo Test PASSED"]
kernel = "transpose"
launches = 1
expect = "^Test PASSED$"
"#;

#[test]
fn build_and_command_lines_are_shown_before_they_run_and_no_profile_builds_nothing() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    std::fs::write(out.path().join("variants.toml"), BUILT_PROGRAM).unwrap();
    let run = |extra: &[&str]| {
        let assert = replaying(out.path())
            .arg("report")
            .arg(out.path().join("variants.toml"))
            .arg("--ncu")
            .arg(root().join("tests/standin/ncu"))
            .arg("-o")
            .arg(out.path().join("report"))
            .args(extra)
            .assert();
        stderr_of(&assert, Some(out.path()))
    };
    let skipped = run(&["--no-profile"]);
    assert!(
        !out.path().join("built.txt").exists(),
        "--no-profile runs no build line"
    );
    assert!(!skipped.contains("building:"), "{skipped}");
    let ran = run(&[]);
    assert!(out.path().join("built.txt").exists());
    assert!(
        ran.contains("building: sh -c 'echo built > built.txt'   (in [TEMP])"),
        "{ran}"
    );
    assert!(
        ran.contains("running under ncu: sh -c 'echo Test PASSED'   (in [TEMP])"),
        "{ran}"
    );
}

#[test]
fn files_gpuprof_did_not_write_are_not_overwritten_without_force() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let folder = out.path().join("report");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("report.html"), "<p>my own notes</p>").unwrap();
    let assert = replayed_report(out.path(), "replay").code(1);
    insta::assert_snapshot!(stderr_of(&assert, Some(out.path())), @"error: [TEMP]/report/report.html would be overwritten, but no results.json of gpuprof's is beside it: give another folder with -o, or --force to overwrite it");
    assert_eq!(
        std::fs::read_to_string(folder.join("report.html")).unwrap(),
        "<p>my own notes</p>"
    );
    std::fs::write(folder.join("results.json"), "{\"schema_version\": 99}").unwrap();
    let assert = replayed_report(out.path(), "replay").code(1);
    assert!(stderr_of(&assert, Some(out.path())).contains("results.json would be overwritten, but gpuprof cannot read it (schema version 99 is not one this gpuprof reads"));
    replaying(out.path())
        .env("STANDIN_NCU", "replay")
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--force",
            "--ncu",
        ])
        .arg(root().join("tests/standin/ncu"))
        .arg("-o")
        .arg(&folder)
        .assert()
        .success();
    read_results(&folder.join("results.json"));
}

#[test]
fn limits_that_would_overflow_are_refused_on_the_command_line_and_in_the_suite() {
    let output = gpuprof()
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--timeout",
            "4611686018427387904",
        ])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("4611686018427387904 is not in 1..=604800")
    );
    let out = tempfile::tempdir().unwrap();
    let suite = std::fs::read_to_string(root().join("examples/transpose/variants.toml"))
        .unwrap()
        .replace("repetitions = 30", "repetitions = 4294967295");
    std::fs::write(out.path().join("variants.toml"), suite).unwrap();
    let output = gpuprof()
        .args(["report", "--check"])
        .arg(out.path().join("variants.toml"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("repetitions = 4294967295 is more than gpuprof times (1000000)")
    );
}

#[test]
fn a_rerun_that_fails_before_measuring_keeps_the_previous_results() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    replayed_report(out.path(), "replay").success();
    let saved = std::fs::read(out.path().join("report/results.json")).unwrap();
    // The same suite again, with NVRTC gone: it fails at the build.
    replaying(out.path())
        .env("LD_LIBRARY_PATH", "")
        .env("STANDIN_NCU", "replay")
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--force",
            "--ncu",
        ])
        .arg(root().join("tests/standin/ncu"))
        .arg("-o")
        .arg(out.path().join("report"))
        .assert()
        .code(4);
    assert_eq!(
        std::fs::read(out.path().join("report/results.json")).unwrap(),
        saved,
        "the previous run's results.json is untouched"
    );
}

/// The launches whose source pages the stand-in ncu's `log` shows
/// exported, in order, once per export.
fn launches_exported(log: &str) -> Vec<usize> {
    let mut launches: Vec<usize> = log
        .lines()
        .filter_map(|l| l.strip_prefix("export source "))
        .flat_map(|range| {
            let (first, count) = range.split_once('+').expect("a range of launches");
            let (first, count): (usize, usize) = (first.parse().unwrap(), count.parse().unwrap());
            first..first + count
        })
        .collect();
    launches.sort_unstable();
    launches
}

#[test]
fn per_line_counters_taken_at_one_size_stand_for_the_other_sizes_and_say_so() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let config = transpose_suite(out.path(), "lines_at = \"N=2048\"");
    let log = out.path().join("standin.log");
    replaying(out.path())
        .env("STANDIN_LOG", &log)
        .env("STANDIN_EXPORT_WAITS_FOR", r"^profile \S+ N=8192$")
        .args(["report", "--timeout", "5", "--ncu"])
        .arg(root().join("tests/standin/ncu"))
        .arg(&config)
        .arg("-o")
        .arg(out.path().join("report"))
        .assert()
        .success();
    // Two ncu runs: N=2048 with the per-line counters, then N=8192 without
    // them, both started while the kernels were timed: their harnesses waited
    // for their jobs, and profiled nothing until the timing had ended.
    let profiled = std::fs::read_to_string(&log).unwrap();
    for job in ["profile-job.json", "profile-lines-job.json"] {
        assert!(
            profiled.lines().any(|l| l == format!("waiting {job}")),
            "{profiled}"
        );
    }
    let lines: Vec<&str> = profiled.lines().collect();
    let last_timed = lines.iter().rposition(|l| l.starts_with("time "));
    let first_profiled = lines.iter().position(|l| l.starts_with("profile "));
    assert!(last_timed < first_profiled, "{profiled}");
    let runs: Vec<&str> = profiled
        .lines()
        .filter(|l| l.starts_with("profile "))
        .collect();
    assert_eq!(runs.len(), 8, "{profiled}");
    assert!(
        runs[..4].iter().all(|l| l.ends_with("N=2048")),
        "{profiled}"
    );
    assert!(
        runs[4..].iter().all(|l| l.ends_with("N=8192")),
        "{profiled}"
    );
    // The N=2048 report's source pages are exported while the N=8192 run
    // profiles: the exports, which wait for that run to start, end after
    // it did. Both raw pages come from ncu's logs: none is exported.
    let first = |line: &dyn Fn(&str) -> bool| profiled.lines().position(line);
    assert!(
        first(&|l| l.starts_with("profile ") && l.ends_with("N=8192"))
            < first(&|l| l.starts_with("exported source")),
        "{profiled}"
    );
    assert!(!profiled.contains("export raw"), "{profiled}");
    // The lines run's four source pages come from contiguous ranges of
    // launches exported side by side, which cover each launch once.
    assert_eq!(launches_exported(&profiled), [0, 1, 2, 3], "{profiled}");
    let results = read_results(&out.path().join("report/results.json"));
    let profiler = results.profiler.as_ref().unwrap();
    assert_eq!(profiler.lines_at.as_deref(), Some("N=2048"));
    assert_eq!(
        results
            .variant("naive")
            .unwrap()
            .run("N=8192")
            .unwrap()
            .profile
            .as_ref()
            .unwrap()
            .lines_at
            .as_deref(),
        Some("N=2048")
    );
    assert!(
        !profiler.command.contains("SourceCounters"),
        "{}",
        profiler.command
    );
    let lines_run = profiler.lines_run.as_ref().unwrap();
    assert!(
        lines_run
            .command
            .contains("--section GpuprofSourceCounters")
    );
    // gpuprof's own source section, in the folder the command names.
    let folder = lines_run
        .command
        .split(" --section-folder ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap();
    let section =
        std::fs::read_to_string(Path::new(folder).join("gpuprof-source-counters.section")).unwrap();
    assert!(section.contains("Identifier: \"GpuprofSourceCounters\""));
    // The commands shown run as they are: the harness does not wait.
    assert!(
        !profiler.command.contains("--wait-for") && !profiler.command.contains("--open-on"),
        "{}",
        profiler.command
    );
    assert!(profiler.started_early_s.is_some_and(|s| s > 0.0));
    assert!(lines_run.started_early_s.is_some_and(|s| s > 0.0));
    // Each run's passes, from its own report (the recording's are 15).
    assert_eq!(profiler.passes_per_launch, Some(15.0));
    assert_eq!(lines_run.passes_per_launch, Some(15.0));
    assert_eq!(lines_run.report_file, "profile-lines.ncu-rep");
    let tiled = results.variant("tiled").unwrap();
    let big = tiled.run("N=8192").unwrap().profile.as_ref().unwrap();
    assert!(big.source_lines.is_empty());
    assert!(
        big.source_note
            .as_deref()
            .unwrap()
            .contains("taken at N=2048 only")
    );
    assert!(
        !tiled
            .run("N=2048")
            .unwrap()
            .profile
            .as_ref()
            .unwrap()
            .source_lines
            .is_empty()
    );
    // The analysis at N=8192 shows the conflict on line 22 from N=2048's
    // lines, and says where they come from.
    let analysis: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.path().join("report/analysis.json")).unwrap(),
    )
    .unwrap();
    let tiled = analysis["variants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "tiled")
        .unwrap();
    let big = tiled["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["size"] == "N=8192")
        .unwrap();
    assert_eq!(big["lines_taken_at"], "N=2048");
    assert_eq!(big["hot_lines"][0]["line"], 22);
    let page = std::fs::read_to_string(out.path().join("report/report.html")).unwrap();
    assert!(
        page.contains("per-line counters taken at N=2048"),
        "the run says where its lines come from"
    );
    assert!(
        page.contains("taken at N=2048 only, by an ncu run of their own ("),
        "the header names the lines run"
    );
    assert!(page.contains(", 15 replay passes per launch; they cost"));
    // Both reports, and both ncu commands, are named.
    assert!(
        page.contains("<code>profile.ncu-rep</code> and <code>profile-lines.ncu-rep</code> (the per-line counters' run), beside this file"),
        "the header names both reports"
    );
    assert!(
        page.contains("the per-line counters&#x27; run:")
            || page.contains("the per-line counters' run:")
    );
    assert_eq!(page.matches("--section GpuprofSourceCounters").count(), 1);
}

#[test]
fn the_raw_page_comes_from_ncus_log_and_the_profiles_stay_the_same() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let log = out.path().join("standin.log");
    replaying(out.path())
        .env("STANDIN_LOG", &log)
        .arg("report")
        .arg(transpose_suite(out.path(), EVERY_SIZE))
        .args(["--timeout", "5", "--ncu"])
        .arg(root().join("tests/standin/ncu"))
        .arg("-o")
        .arg(out.path().join("report"))
        .assert()
        .success();
    // ncu printed the raw page into its log as it profiled: no export of
    // it from the report, and the log kept apart holds only ncu's messages.
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(!text.contains("export raw"), "{text}");
    let ncu_log = std::fs::read_to_string(out.path().join("report/ncu/profile-ncu.log")).unwrap();
    assert!(ncu_log.contains("\"ID\","), "ncu's own log keeps the page");
    // The eight launches' source pages, each exported once.
    assert_eq!(launches_exported(&text), [0, 1, 2, 3, 4, 5, 6, 7], "{text}");
    let work = out.path().join("report/ncu");
    assert!(work.join("profile-raw.csv").is_file());
    for launch in 0..8 {
        assert!(work.join(format!("profile-source-{launch}.csv")).is_file());
    }
    let produced = read_results(&out.path().join("report/results.json"));
    let recorded = read_results(&root().join("examples/transpose/results.json"));
    for (mine, theirs) in produced.variants.iter().zip(&recorded.variants) {
        for (a, b) in mine.runs.iter().zip(&theirs.runs) {
            assert_eq!(a.profile, b.profile, "{} {}", mine.name, a.size);
        }
    }
}

#[test]
fn a_raw_page_with_other_launches_than_profiled_has_the_source_pages_it_lists_exported() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let log = out.path().join("standin.log");
    replaying(out.path())
        .env("STANDIN_LOG", &log)
        .env("STANDIN_REPORT_LAUNCHES", "3")
        .arg("report")
        .arg(transpose_suite(out.path(), EVERY_SIZE))
        .args(["--timeout", "5", "--ncu"])
        .arg(root().join("tests/standin/ncu"))
        .arg("-o")
        .arg(out.path().join("report"))
        .assert()
        .code(6);
    // The ranges exported beside the raw page cover the eight launches the
    // harness profiled; the raw page lists three, whose pages are then
    // exported again, and no others.
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        launches_exported(&text),
        [0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 7],
        "{text}"
    );
    let work = out.path().join("report/ncu");
    for launch in 0..3 {
        assert!(work.join(format!("profile-source-{launch}.csv")).is_file());
    }
    assert!(!work.join("profile-source-3.csv").exists());
    let results = read_results(&out.path().join("report/results.json"));
    assert!(
        results.notices.iter().any(|notice| matches!(
            notice,
            gpuprof::model::notice::Notice::LaunchMismatch { reason }
                if reason.starts_with("ncu profiled 3 launches but the harness made 8")
        )),
        "{:?}",
        results.notices
    );
}

#[test]
fn what_a_kernel_prints_is_kept_under_its_run_and_loses_no_measurement() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    replaying(out.path())
        .env("STANDIN_HARNESS", "printf:tiled")
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--no-profile",
            "-o",
        ])
        .arg(out.path().join("report"))
        .assert()
        .success();
    let results = read_results(&out.path().join("report/results.json"));
    for variant in &results.variants {
        assert!(
            variant.runs.iter().all(|r| r.samples_ms.len() == 30),
            "{}",
            variant.name
        );
    }
    let tiled = &results.variant("tiled").unwrap().runs[0];
    let output = tiled.output.as_deref().unwrap();
    assert!(
        output.starts_with("block 0 says \u{fffd} hello\nblock 1 says"),
        "{output}"
    );
    assert_eq!(output.lines().count(), 21, "{output}");
    assert!(output.ends_with("… and 6 more lines\n"), "{output}");
    let page = std::fs::read_to_string(out.path().join("report/report.md")).unwrap();
    assert!(page.contains("The kernel printed: `block 0 says"), "{page}");
}

#[test]
fn an_export_too_large_to_read_whole_is_refused_with_how_to_filter_it() {
    let out = tempfile::tempdir().unwrap();
    let huge = out.path().join("huge.csv");
    let file = std::fs::File::create(&huge).unwrap();
    file.set_len((256 << 20) + 1).unwrap();
    let output = gpuprof()
        .arg("compare")
        .arg(&huge)
        .arg("-o")
        .arg(out.path().join("report"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("more than gpuprof reads of one export"),
        "{stderr}"
    );
    assert!(stderr.contains("--kernel-name regex:NAME"), "{stderr}");
}

/// A report whose harness reports cold and hot samples: the stand-in
/// replays the recorded run with `STANDIN_TIMING=mode`.
fn sampled_report(out: &Path, mode: &str) -> String {
    replaying(out)
        .env("STANDIN_TIMING", mode)
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--no-profile",
            "-o",
        ])
        .arg(out.join("report"))
        .assert()
        .success();
    std::fs::read_to_string(out.join("report/report.md")).unwrap()
}

#[test]
fn cold_samples_are_the_headline_where_the_data_fits_in_l2_and_both_are_recorded() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let md = sampled_report(out.path(), "sampled");
    let results = read_results(&out.path().join("report/results.json"));
    let naive = results.variant("naive").unwrap();
    assert_eq!(naive.runs[0].cold_samples_ms.len(), 30);
    let record = naive.runs[0].timing.as_ref().expect("a timing record");
    assert_eq!(record.throttled_samples, 2);
    // N=2048 fits in L2: cold is the headline, hot shown beside it as it
    // differs (by 25%); N=8192 does not: hot, the same as cold.
    assert!(
        md.contains("| naive | 90.2 µs cold (hot 72.1 µs) |"),
        "{md}"
    );
    assert!(md.contains("| naive | 1.05 ms hot |"), "{md}");
    assert!(
        md.contains("cold samples (the L2 flushed before each) and hot ones"),
        "{md}"
    );
    assert!(
        md.contains("2 samples left out while it was below 90.0% of the maximum"),
        "{md}"
    );
    assert!(
        md.contains("interleaved round-robin with the other 3 variants"),
        "{md}"
    );
    let analysis = std::fs::read_to_string(out.path().join("report/analysis.json")).unwrap();
    assert!(analysis.contains("\"temperature\": \"cold\""), "{analysis}");
}

#[test]
fn a_throttled_run_and_a_missing_nvml_are_said() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let md = sampled_report(out.path(), "throttled");
    assert!(
        md.contains("below 90.0% of the maximum throughout, so no sample was left out"),
        "{md}"
    );
    assert!(md.contains("SM clock is throttled"), "{md}");
    let out = tempfile::tempdir().unwrap();
    let md = sampled_report(out.path(), "no-nvml");
    assert!(
        md.contains("SM clock not read (libnvidia-ml.so.1 could not be loaded: not found)"),
        "{md}"
    );
}

/// `gpuprof report --shard SPEC` on the transpose example with the
/// stand-ins, into `out/<folder>`.
fn replayed_shard(out: &Path, spec: &str, folder: &str) -> assert_cmd::assert::Assert {
    replaying(out)
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--timeout",
            "5",
            "--shard",
            spec,
            "--ncu",
        ])
        .arg(root().join("tests/standin/ncu"))
        .arg("-o")
        .arg(out.join(folder))
        .assert()
}

fn merged(out: &Path, shards: &[&str], folder: &str) -> assert_cmd::assert::Assert {
    gpuprof()
        .arg("merge")
        .args(shards.iter().map(|s| out.join(s)))
        .arg("-o")
        .arg(out.join(folder))
        .assert()
}

#[test]
fn shards_merged_give_the_single_runs_results_and_findings() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let out = out.path();
    // Each shard runs one size, so takes its lines there: the single run
    // takes them at every size to compare.
    replayed_report_of(out, &transpose_suite(out, EVERY_SIZE), "").success();
    replayed_shard(out, "1/2", "s1").success();
    replayed_shard(out, "2/2", "s2").success();
    let first = read_results(&out.join("s1/results.json"));
    let shard = first.shard.as_ref().unwrap();
    assert_eq!((shard.index, shard.count), (1, 2));
    assert_eq!(shard.sizes, ["N=2048"]);
    assert_eq!(first.suite.sizes.len(), 1);
    let partial = std::fs::read_to_string(out.join("s1/report.md")).unwrap();
    assert!(
        partial.contains("shard 1 of 2: sizes N=2048; N=8192 in other shards"),
        "{partial}"
    );

    merged(out, &["s2", "s1"], "merged").success();
    let whole = read_results(&out.join("report/results.json"));
    let joined = read_results(&out.join("merged/results.json"));
    assert_eq!(joined.suite.sizes, whole.suite.sizes);
    assert_eq!(joined.variants.len(), whole.variants.len());
    for (mine, theirs) in joined.variants.iter().zip(&whole.variants) {
        assert_eq!(mine.runs.len(), theirs.runs.len(), "{}", mine.name);
        for (a, b) in mine.runs.iter().zip(&theirs.runs) {
            assert_eq!(a.size, b.size);
            assert_eq!(a.samples_ms, b.samples_ms, "{} {}", mine.name, a.size);
            assert_eq!(a.check, b.check, "{} {}", mine.name, a.size);
            // ncu numbers launches within each shard's own report.
            let metrics = |r: &gpuprof::model::results::RunResult| {
                r.profile
                    .as_ref()
                    .map(|p| (p.metrics.clone(), p.source_lines.clone()))
            };
            assert_eq!(metrics(a), metrics(b), "{} {}", mine.name, a.size);
        }
    }
    let origins: Vec<_> = joined
        .merged_from
        .iter()
        .map(|o| (o.index, o.sizes.clone(), o.report_file.clone()))
        .collect();
    assert_eq!(
        origins,
        [
            (
                1,
                vec!["N=2048".to_string()],
                Some("profile-shard-1-of-2.ncu-rep".into())
            ),
            (
                2,
                vec!["N=8192".to_string()],
                Some("profile-shard-2-of-2.ncu-rep".into())
            ),
        ]
    );
    assert!(out.join("merged/profile-shard-2-of-2.ncu-rep").is_file());
    let findings = |folder: &str| {
        let text = std::fs::read_to_string(out.join(folder).join("analysis.json")).unwrap();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        value["variants"].clone()
    };
    assert_eq!(findings("merged"), findings("report"));
    let page = std::fs::read_to_string(out.join("merged/report.md")).unwrap();
    assert!(page.contains("shard 2 of 2"), "{page}");
    assert!(page.contains("profile-shard-2-of-2.ncu-rep"), "{page}");
}

/// A shard of several sizes takes its per-line counters at one of them in
/// a run of its own: the merged report says where, per shard, and names
/// both of its ncu reports as copied, not the shard's own file names.
#[test]
fn a_merged_report_says_at_which_size_each_shard_took_its_lines() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let out = out.path();
    replayed_shard(out, "1/1", "s1").success();
    let shard = read_results(&out.join("s1/results.json"));
    assert_eq!(
        shard.profiler.as_ref().unwrap().lines_at.as_deref(),
        Some("N=8192")
    );
    merged(out, &["s1"], "merged").success();
    let joined = read_results(&out.join("merged/results.json"));
    let profiler = joined.profiler.as_ref().unwrap();
    assert_eq!((&profiler.lines_at, &profiler.lines_run), (&None, &None));
    let origin = &joined.merged_from[0];
    assert_eq!(origin.lines_at.as_deref(), Some("N=8192"));
    assert_eq!(
        origin.lines_report_file.as_deref(),
        Some("profile-lines-shard-1-of-1.ncu-rep")
    );
    assert!(
        out.join("merged/profile-lines-shard-1-of-1.ncu-rep")
            .is_file()
    );
    let page = std::fs::read_to_string(out.join("merged/report.md")).unwrap();
    assert!(
        page.contains("taken at N=8192 (shard 1 of 1): each shard chose among its own sizes"),
        "{page}"
    );
    assert!(
        page.contains(
            "ncu reports profile-shard-1-of-1.ncu-rep and profile-lines-shard-1-of-1.ncu-rep (its per-line counters' run)"
        ),
        "{page}"
    );
    assert!(!page.contains("taken at N=8192 only"), "{page}");
    let html = std::fs::read_to_string(out.join("merged/report.html")).unwrap();
    assert!(
        !html.contains("<code>profile-lines.ncu-rep</code>"),
        "{html}"
    );
}

#[test]
fn gpus_run_one_shard_per_gpu_side_by_side_and_merge_them() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let out = out.path();
    let log = out.join("standin.log");
    replaying(out)
        .env("STANDIN_LOG", &log)
        .env_remove("CUDA_VISIBLE_DEVICES")
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--timeout",
            "5",
            "--gpus",
            "0,GPU-7b",
            "--ncu",
        ])
        .arg(root().join("tests/standin/ncu"))
        .arg("-o")
        .arg(out.join("both"))
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "running 2 shards side by side, one per GPU (0, GPU-7b)",
        ))
        .stderr(predicate::str::is_match(r"GPU 0: shard 1/2 done in [0-9.]+ s").unwrap())
        .stderr(predicate::str::is_match(r"GPU GPU-7b: shard 2/2 done in [0-9.]+ s").unwrap());
    // Each shard's device query ran on its own GPU.
    let text = std::fs::read_to_string(&log).unwrap();
    let mut gpus: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("device on gpu"))
        .collect();
    gpus.sort_unstable();
    assert_eq!(gpus, ["device on gpu 0", "device on gpu GPU-7b"], "{text}");
    for shard in ["shard-1-of-2", "shard-2-of-2"] {
        let folder = out.join("both/shards").join(shard);
        assert!(folder.join("results.json").is_file());
        // What the shard printed is kept beside it, its stage times too.
        let printed = std::fs::read_to_string(folder.join("gpuprof.log")).unwrap();
        assert!(
            printed.contains("took ") && printed.contains(" · profile "),
            "{printed}"
        );
    }
    let joined = read_results(&out.join("both/results.json"));
    let sizes: Vec<&str> = joined
        .suite
        .sizes
        .iter()
        .map(|s| s.label.as_str())
        .collect();
    assert_eq!(sizes, ["N=2048", "N=8192"]);
    assert_eq!(joined.merged_from.len(), 2);
    assert!(
        joined
            .variants
            .iter()
            .all(|v| v.runs.iter().all(|r| r.samples_ms.len() == 30))
    );
    // A list that names no GPU is refused before anything runs.
    gpuprof()
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--gpus",
            ",",
            "--no-profile",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("names no GPU"));
}

#[test]
fn merge_refuses_shards_that_did_not_run_alike_or_overlap() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let out = out.path();
    replayed_shard(out, "1/2", "s1").success();
    replayed_shard(out, "2/2", "s2").success();
    let edited = |folder: &str, edit: &dyn Fn(&mut gpuprof::model::Results)| {
        let mut results = read_results(&out.join("s2/results.json"));
        edit(&mut results);
        std::fs::create_dir_all(out.join(folder)).unwrap();
        std::fs::write(
            out.join(folder).join("results.json"),
            gpuprof::model::write_results(&results),
        )
        .unwrap();
    };
    edited("a100", &|r| {
        r.device.as_mut().unwrap().name = "NVIDIA A100".into()
    });
    let refused = merged(out, &["s1", "a100"], "m").code(2);
    let text = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
    assert!(
        text.contains("the shards disagree on the GPU model: \"NVIDIA H200\" in ")
            && text.contains("s1 but \"NVIDIA A100\" in ")
            && text.contains("a100; `gpuprof merge` joins the shards of one suite run alike"),
        "{text}"
    );
    edited("other-suite", &|r| {
        r.suite.file_sha256 = Some("0123".into())
    });
    merged(out, &["s1", "other-suite"], "m")
        .code(2)
        .stderr(predicate::str::contains(
            "the shards disagree on the suite file (SHA-256 of variants.toml)",
        ));
    edited("overlap", &|r| {
        let shard = r.shard.as_mut().unwrap();
        shard.sizes = vec!["N=2048".into()];
    });
    merged(out, &["s1", "overlap"], "m")
        .code(2)
        .stderr(predicate::str::contains(
            "the size N=2048 is in two shards:",
        ));
    merged(out, &["s1", "s1"], "m")
        .code(2)
        .stderr(predicate::str::contains(
            "are both shard 1 of 2: give each shard's folder once",
        ));
    // A missing shard: merged anyway, the report names the sizes, exit 7.
    merged(out, &["s1"], "m")
        .code(7)
        .stderr(predicate::str::contains(
            "incomplete: the sizes N=8192 did not run",
        ));
    assert!(out.join("m/report.html").is_file());
}

#[test]
fn shard_numbers_come_from_the_command_line_or_the_slurm_array() {
    gpuprof()
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--shard",
            "3/2",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: shard 3 of 2 does not exist: give --shard 1/2 to --shard 2/2",
        ));
    gpuprof()
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--shard",
            "0/2",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("shards count from 1"));
    gpuprof()
        .env_remove("SLURM_ARRAY_TASK_ID")
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--shard",
            "auto",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "SLURM_ARRAY_TASK_ID, which is not set",
        ));
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let out = out.path();
    replaying(out)
        .env("SLURM_ARRAY_TASK_ID", "11")
        .env("SLURM_ARRAY_TASK_MIN", "10")
        .env("SLURM_ARRAY_TASK_MAX", "11")
        .env("SLURM_ARRAY_TASK_COUNT", "2")
        .args([
            "report",
            "examples/transpose/variants.toml",
            "--shard",
            "auto",
            "--no-profile",
            "-o",
        ])
        .arg(out.join("auto"))
        .assert()
        .success();
    let shard = read_results(&out.join("auto/results.json")).shard.unwrap();
    assert_eq!(
        (shard.index, shard.count, shard.sizes.as_slice()),
        (2, 2, &["N=8192".to_string()][..])
    );
    // More shards than sizes: the third has nothing to run, and says so.
    replayed_shard(out, "3/3", "empty").success();
    let empty = read_results(&out.join("empty/results.json"));
    assert!(empty.shard.unwrap().sizes.is_empty());
    assert!(empty.variants.iter().all(|v| v.runs.is_empty()));
}

#[test]
fn a_sweep_is_timed_whole_and_profiled_at_its_extremes() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    replayed_report_command(out.path(), &root().join("tests/sweep/variants.toml"))
        .env("STANDIN_SYNTHESIZE", "copy")
        .assert()
        .success();
    let analysis: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.path().join("report/analysis.json")).unwrap(),
    )
    .unwrap();
    let sweep = &analysis["sweeps"][0];
    assert_eq!(sweep["group"], "items");
    assert_eq!(sweep["best"], sweep["configurations"][0]["name"]);
    assert_eq!(sweep["configurations"][0]["times_best"], 1.0);
    assert_eq!(sweep["skipped"][0]["parameters"]["ITEMS"], 4);
    assert!(
        sweep["configurations"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["correctness"]["status"] == "failed"),
        "{sweep}"
    );
    let results = read_results(&out.path().join("report/results.json"));
    let names: Vec<&str> = results.variants.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "plain",
            "items[ITEMS=1,BLOCK=128]",
            "items[ITEMS=1,BLOCK=256]",
            "items[ITEMS=4,BLOCK=128]",
            "items[ITEMS=16,BLOCK=128]",
            "items[ITEMS=16,BLOCK=256]"
        ]
    );
    assert_eq!(results.sweeps.len(), 1);
    assert_eq!(
        results.sweeps[0].skipped[0].reason,
        "ITEMS * BLOCK != 1024 is false (1024 != 1024)"
    );
    // The configurations that do not compile are reported as such, and
    // the run still succeeds (.success() above) as others ran correctly.
    let broken = results.variant("items[ITEMS=16,BLOCK=256]").unwrap();
    assert!(
        broken
            .build
            .error
            .as_deref()
            .is_some_and(|e| e.contains("at most 8 items per thread")),
        "{:?}",
        broken.build
    );
    // Every configuration is timed; only the fastest and the slowest are
    // profiled ([profile] sweeps = { best = 1, worst = 1 }).
    let ranked = gpuprof::analysis::sweeps::ranked(&results, "items", "N=2048");
    assert_eq!(ranked.len(), 3);
    let profiled = |name: &str| results.variant(name).unwrap().runs[0].profile.is_some();
    assert!(profiled(&ranked[0].variant.name));
    assert!(!profiled(&ranked[1].variant.name));
    assert!(profiled(&ranked[2].variant.name));
    assert!(ranked[0].median_ms < ranked[2].median_ms);
    // The chain has the sweep as one step, its best configuration; the
    // report has a section with the table and the skipped combination.
    let markdown = std::fs::read_to_string(out.path().join("report/report.md")).unwrap();
    let chain = markdown.split("## Sweep").next().unwrap();
    assert_eq!(chain.matches("| items\\[").count(), 1, "{chain}");
    assert!(chain.contains(&format!(
        "| {} |",
        ranked[0].variant.name.replace('[', "\\[").replace(']', "\\]")
    )));
    assert!(markdown.contains("## Sweep items at N=2048"));
    // Sections of their own only for the best and the profiled.
    let section = |name: &str| format!("### {}\n", name.replace('[', "\\[").replace(']', "\\]"));
    assert!(
        markdown.contains(&section(&ranked[0].variant.name)),
        "{markdown}"
    );
    assert!(
        !markdown.contains(&section(&ranked[1].variant.name)),
        "{markdown}"
    );
    // Two parameters: a heat map of the time over ITEMS and BLOCK.
    let heat_map = out
        .path()
        .join("report/charts/07-sweep-items-at-n-2048.svg");
    let svg = std::fs::read_to_string(&heat_map).unwrap();
    assert!(svg.contains("1.00×") && svg.contains("no time"), "{svg}");
    // It stands in the sweep's own section, not among the other charts.
    let in_sweep = markdown.split("## Sweep items").nth(1).unwrap();
    let (in_sweep, after) = in_sweep.split_once("## Summary").unwrap();
    assert!(
        in_sweep.contains("(charts/07-sweep-items-at-n-2048.svg)"),
        "{in_sweep}"
    );
    assert!(!after.contains("sweep-items-at-n-2048"), "{after}");
    let page = std::fs::read_to_string(out.path().join("report/report.html")).unwrap();
    let sweep_html =
        &page[page.find("id=\"sweep-items\"").unwrap()..page.find("id=\"charts\"").unwrap()];
    assert!(
        sweep_html.contains("<title>Sweep items at N=2048</title>"),
        "{sweep_html}"
    );
    assert!(markdown.contains("Darker is faster"));
    assert!(markdown.contains("**Best against slowest profiled:**"));
    assert!(markdown.contains("ncu profiled 2 of the 5 configurations"));
    assert!(
        markdown.contains("- ITEMS=4, BLOCK=256: ITEMS \\* BLOCK != 1024 is false (1024 != 1024)")
    );
    assert!(
        markdown.contains("- items\\[ITEMS=16,BLOCK=128\\]: ✗ failed (compile): ")
            && markdown.contains("at most 8 items per thread"),
        "{markdown}"
    );
}

#[test]
fn a_sweep_run_in_shards_and_merged_gives_the_single_runs_sweep() {
    if !nvrtc_present() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let out = out.path();
    // The sweep suite at the two sizes the recording has, so that each
    // shard takes one size with all its configurations.
    let kernels = format!("\"{}/tests/configs/", root().display());
    let suite = std::fs::read_to_string(root().join("tests/sweep/variants.toml"))
        .unwrap()
        .replace("\"../configs/", &kernels)
        .replace("sizes = [2048]", "sizes = [2048, 8192]");
    let config = out.join("variants.toml");
    std::fs::write(&config, suite).unwrap();
    let run = |extra: &[&str], folder: &str| {
        replaying(out)
            .env("STANDIN_SYNTHESIZE", "copy")
            .args(["report", "--timeout", "5", "--ncu"])
            .arg(root().join("tests/standin/ncu"))
            .args(extra)
            .arg(&config)
            .arg("-o")
            .arg(out.join(folder))
            .assert()
            .success();
    };
    run(&[], "single");
    run(&["--shard", "1/2"], "s1");
    run(&["--shard", "2/2"], "s2");
    merged(out, &["s1", "s2"], "merged").success();
    let analysis = |folder: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(out.join(folder).join("analysis.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    };
    let (single, joined) = (analysis("single"), analysis("merged"));
    assert_eq!(single["sweeps"][0]["size"], "N=8192");
    assert_eq!(
        single["sweeps"][0]["configurations"]
            .as_array()
            .unwrap()
            .len(),
        5
    );
    assert_eq!(joined["sweeps"], single["sweeps"]);
    assert_eq!(joined["chain"], single["chain"]);
    assert_eq!(joined["variants"], single["variants"]);
    // Which configurations ncu profiled is decided size by size, so each
    // shard profiled the same ones as the single run.
    let profiled = |folder: &str| -> Vec<(String, String)> {
        let results = read_results(&out.join(folder).join("results.json"));
        results
            .variants
            .iter()
            .flat_map(|v| {
                v.runs
                    .iter()
                    .filter(|r| r.profile.is_some())
                    .map(|r| (v.name.clone(), r.size.clone()))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    assert_eq!(profiled("merged"), profiled("single"));
}
