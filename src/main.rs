//! The `gpuprof` binary: parses the command line, runs the pipeline, prints
//! the summary or the error (once, with `error: `), and maps outcomes to the
//! exit codes of `gpuprof::error::exit_code` (documented in the README). A
//! reader that closes the pipe early (`gpuprof render … --dump-view | head`)
//! is a normal end, not a panic.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use gpuprof::analysis::conclusions::Conclusions;
use gpuprof::analysis::since::Movement;
use gpuprof::analysis::sweeps::is_tolerated_failure;
use gpuprof::cli::{Cli, Command, Format, PaperSize, ShardArg, Written};
use gpuprof::error::{Error, exit_code};
use gpuprof::pipeline::{
    self, CompareRequest, MergeRequest, Outcome, RenderRequest, ReportRequest, ShardSpec,
};
use gpuprof::render::pdf::Paper;
use gpuprof::{analysis, harness, render};

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(wrong) = misrouted_input(&cli.command) {
        return fail(&Error::Input(wrong));
    }
    stop_children_on_ctrl_c(matches!(cli.command, Command::Report { check: false, .. }));
    match cli.command {
        Command::Report {
            config,
            check: true,
            arch,
            ..
        } => check(&config, arch),
        Command::Report {
            config,
            output,
            ncu,
            no_profile,
            timeout,
            written,
            force,
            shard,
            balance_from,
            gpus,
            ..
        } => {
            let shard = match shard.map(resolve_shard).transpose() {
                Ok(shard) => shard,
                Err(error) => return fail(&error),
            };
            let request = ReportRequest {
                shard,
                balance_from,
                force,
                config,
                out_dir: output,
                ncu,
                skip_profile: no_profile,
                idle_timeout: Duration::from_secs(timeout.max(1)),
                command_line: command_line(),
            };
            match gpus {
                Some(gpus) => finish(pipeline::report_on_gpus(&request, &gpus), &written),
                None => finish(pipeline::report(&request), &written),
            }
        }
        Command::Render {
            results,
            dump_view: true,
            ..
        } => dump(&results),
        Command::Render {
            results,
            output,
            written,
            ..
        } => finish(
            pipeline::render_saved(&RenderRequest {
                results,
                out_dir: output,
            }),
            &written,
        ),
        Command::Audit { results, json } => audit(&results, json),
        Command::Diff {
            before,
            after,
            json,
        } => diff(&before, &after, json),
        Command::Init { folder, from } => init(&folder, &from),
        Command::Compare {
            inputs,
            names,
            baseline,
            kernel,
            output,
            ncu,
            written,
        } => finish(
            pipeline::compare(&CompareRequest {
                inputs,
                names,
                kernel,
                baseline,
                out_dir: output,
                ncu,
                command_line: command_line(),
            }),
            &written,
        ),
        Command::Merge {
            shards,
            output,
            force,
            written,
        } => finish(
            pipeline::merge(&MergeRequest {
                inputs: shards,
                out_dir: output,
                command_line: command_line(),
                force,
            }),
            &written,
        ),
        Command::Doctor { ncu, binary } => doctor(ncu.as_deref(), binary.as_deref()),
        Command::Harness {
            job,
            wait_for,
            open_on,
            then_open,
        } => run_harness(
            &job,
            wait_for,
            Gates {
                open_on: open_on.as_deref(),
                then_open: then_open.as_deref(),
            },
        ),
    }
}

/// The shard `--shard` names: as given, or from the Slurm array task.
fn resolve_shard(shard: ShardArg) -> Result<ShardSpec, Error> {
    match shard {
        ShardArg::Part { index, count } => ShardSpec::new(index, count).map_err(Error::Input),
        ShardArg::Auto => ShardSpec::from_slurm(|name| std::env::var(name).ok()),
    }
}

/// A file given to a command that does not read it (a results.json to
/// `report`, a suite to `compare`…): what it is and which command takes it.
fn misrouted_input(command: &Command) -> Option<String> {
    use gpuprof::routing::{Reader, misrouted};
    match command {
        Command::Report { config, .. } => misrouted(Reader::Report, config),
        Command::Render { results, .. } | Command::Audit { results, .. } => {
            misrouted(Reader::Render, results)
        }
        Command::Diff { before, after, .. } => {
            misrouted(Reader::Render, before).or_else(|| misrouted(Reader::Render, after))
        }
        Command::Compare { inputs, .. } => inputs
            .iter()
            .find_map(|input| misrouted(Reader::Compare, input)),
        Command::Init { from, .. } => from
            .iter()
            .find_map(|source| misrouted(Reader::InitFrom, source)),
        _ => None,
    }
}

/// Ctrl-C, SIGTERM and SIGHUP (`timeout`, CI cancellation, Slurm, a dropped
/// SSH session) stop the harness and ncu (they run in their own process
/// groups); a report (`graceful`) then saves what was measured with reports
/// that match it and exits with 130, any other command exits at once.
fn stop_children_on_ctrl_c(graceful: bool) {
    let signals = std::sync::atomic::AtomicU32::new(0);
    let interrupted = ctrlc::set_handler(move || {
        gpuprof::process::interrupt();
        // A report saves what it has and ends by itself; a second signal,
        // or any other command, ends at once.
        if graceful && signals.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
            eprintln!(
                "\nstopping: the harness and ncu are stopped; saving what was measured (press Ctrl-C again to quit at once)"
            );
            return;
        }
        eprintln!("\ninterrupted");
        std::process::exit(exit_code::INTERRUPTED.into());
    });
    if let Err(error) = interrupted {
        eprintln!("warning: Ctrl-C and SIGTERM will not stop child processes cleanly: {error}");
    }
}

/// `gpuprof report --check`: the plan and the compilers' verdicts, without
/// a GPU; a kernel that does not compile fails the check.
fn check(config: &std::path::Path, architecture: (u32, u32)) -> ExitCode {
    match gpuprof::check::check(config, architecture) {
        Ok(checked) if checked.failed.is_empty() => {
            let printed = print_out(&checked.text, ExitCode::from(exit_code::SUCCESS));
            if !checked.not_compiled.is_empty() {
                eprintln!(
                    "warning: {} not compiled here ({}): their compiler is not installed, so this check does not show that they compile",
                    gpuprof::analysis::format::counted(checked.not_compiled.len(), "variant"),
                    gpuprof::render::terminal::visible(&checked.not_compiled.join(", "))
                );
            }
            printed
        }
        Ok(checked) => {
            let printed = print_out(&checked.text, ExitCode::from(exit_code::VARIANT_FAILED));
            eprintln!(
                "error: {} did not compile ({}): their compiler errors are above, marked FAILED",
                gpuprof::analysis::format::counted(checked.failed.len(), "variant"),
                gpuprof::render::terminal::visible(&checked.failed.join(", "))
            );
            printed
        }
        Err(error) => fail(&error),
    }
}

/// `gpuprof init`: writes a starting suite and says what to run next.
fn init(folder: &std::path::Path, from: &[std::path::PathBuf]) -> ExitCode {
    let written = match from.is_empty() {
        false => gpuprof::init::write_from(folder, from).map(|path| vec![path]),
        true => gpuprof::init::write(folder),
    };
    match written {
        Ok(written) => {
            let mut text: String = written
                .iter()
                .map(|path| format!("wrote {}\n", path.display()))
                .collect();
            let toml = folder.join("variants.toml");
            text.push_str(&match from.first() {
                Some(_) => format!(
                    "next: fill in what is marked `fill in`, then check it without a GPU: gpuprof report {} --check\n",
                    toml.display()
                ),
                None => format!("next: gpuprof report {}\n", toml.display()),
            });
            print_out(&text, ExitCode::SUCCESS)
        }
        Err(error) => fail(&Error::Input(error)),
    }
}

/// `gpuprof doctor`: every check with its fix; fails when one is missing.
fn doctor(ncu: Option<&std::path::Path>, binary: Option<&std::path::Path>) -> ExitCode {
    let findings = gpuprof::doctor::check(ncu, binary);
    let failed = findings
        .iter()
        .any(|f| f.state == gpuprof::doctor::State::Missing);
    let code = match failed {
        true => exit_code::ENVIRONMENT,
        false => exit_code::SUCCESS,
    };
    print_out(&gpuprof::doctor::render(&findings), ExitCode::from(code))
}

fn command_line() -> String {
    let mut parts: Vec<String> = std::env::args().collect();
    if let Some(first) = parts.first_mut() {
        *first = "gpuprof".into();
    }
    parts.join(" ")
}

/// Opens `report` with the desktop's handler (xdg-open, or open on macOS),
/// without waiting for the browser.
fn open_in_browser(report: &std::path::Path) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    if let Err(error) = std::process::Command::new(opener)
        .arg(report)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        anstream::eprintln!(
            "note: could not open the report with {opener} ({error}); open {} yourself",
            report.display()
        );
    }
}

/// Ends a command that wrote a report: opens it when asked, prints the
/// summary table, the conclusions as JSON or the summary as CSV, then the
/// notices, and maps the outcome to its exit code.
fn finish(outcome: Result<Outcome, Error>, written: &Written) -> ExitCode {
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(error) => return fail(&error),
    };
    if written.pdf {
        let paper = match written.paper {
            PaperSize::A4 => Paper::A4,
            PaperSize::Letter => Paper::Letter,
        };
        let pdf = outcome.out_dir.join("report.pdf");
        if let Err(error) = render::pdf::write_pdf(&outcome.report, &pdf, paper) {
            // report.html, report.md and results.json are written already.
            return fail(&error.into());
        }
        anstream::eprintln!("pdf: {}", pdf.display());
    }
    if written.open {
        open_in_browser(&outcome.report);
    }
    let conclusions = || Conclusions::of(&outcome.results, &outcome.analysis);
    let shown = match written.format {
        Format::Table => render::terminal::summary(&outcome.view),
        Format::Json => conclusions().to_json(),
        Format::Csv => conclusions().summary_csv(),
    };
    if let Err(code) = write_stdout(&shown) {
        return code;
    }
    for notice in &outcome.results.notices {
        anstream::eprintln!("note: {notice}");
    }
    if let Some(changes) = outcome.since_previous.as_deref().filter(|c| !c.is_empty()) {
        anstream::eprintln!(
            "since the previous run in this folder: {}",
            gpuprof::analysis::since::tally(changes)
        );
        for change in changes
            .iter()
            .filter(|c| matches!(c.movement, Movement::Faster | Movement::Slower))
        {
            anstream::eprintln!(
                "  {} at {}: {}",
                render::terminal::visible(&change.variant),
                render::terminal::visible(&change.size),
                change.describe()
            );
        }
    }
    if let Some(stages) = &outcome.stages {
        anstream::eprintln!("{}", stages.line());
    }
    let failed = outcome.analysis.variants.iter().any(|v| {
        v.runs.iter().any(|run| {
            !run.status.is_trusted()
                && !is_tolerated_failure(&outcome.analysis, &v.name, &run.status)
        })
    });
    let profiling_failed = outcome
        .results
        .notices
        .iter()
        .any(|n| n.is_profiling_failure());
    let incomplete = outcome.results.notices.iter().any(|n| n.is_incomplete());
    let code = match (failed, incomplete, profiling_failed) {
        (true, _, _) => exit_code::VARIANT_FAILED,
        (false, true, _) => exit_code::INCOMPLETE,
        (false, false, true) => exit_code::PROFILING_FAILED,
        (false, false, false) => exit_code::SUCCESS,
    };
    let path = format!("report: {}\n", outcome.report.display());
    match written.format {
        Format::Table => print_out(&path, ExitCode::from(code)),
        Format::Json | Format::Csv => {
            anstream::eprint!("{path}");
            ExitCode::from(code)
        }
    }
}

/// Prints the error once and ends with its exit code.
fn fail(error: &Error) -> ExitCode {
    anstream::eprintln!("{}", error.diagnostic());
    ExitCode::from(error.exit_code())
}

/// Writes `text` to stdout and ends with `code` (see [`write_stdout`]).
fn print_out(text: &str, code: ExitCode) -> ExitCode {
    write_stdout(text).map_or_else(|stop| stop, |()| code)
}

/// Writes `text` to stdout; on failure, the code to end with at once: a
/// reader that closed the pipe early (`| head`) is a quiet, successful end.
fn write_stdout(text: &str) -> Result<(), ExitCode> {
    let mut stdout = anstream::stdout();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Err(ExitCode::SUCCESS),
        Err(error) => {
            eprintln!("error: cannot write to standard output: {error}");
            Err(ExitCode::from(exit_code::OUTPUT_FAILED))
        }
    }
}

/// `gpuprof audit`: the claims of a saved run checked against its
/// counters; fails with `CLAIMS_UNSUPPORTED` when any is unsupported.
fn audit(path: &std::path::Path, json: bool) -> ExitCode {
    let results = match pipeline::read_saved(path) {
        Ok(results) => results,
        Err(error) => return fail(&error),
    };
    let audit = analysis::audit::audit(&results, &analysis::analyze(&results));
    let code = match audit.unsupported.is_empty() {
        true => exit_code::SUCCESS,
        false => exit_code::CLAIMS_UNSUPPORTED,
    };
    let text = if json {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&audit).expect("the audit serializes")
        )
    } else {
        let mut text: String = audit
            .unsupported
            .iter()
            .map(|claim| {
                format!(
                    "unsupported: {}\n",
                    render::terminal::visible(&claim.to_string())
                )
            })
            .collect();
        text.push_str(&format!(
            "{} claims checked, {} unsupported\n",
            audit.checked,
            audit.unsupported.len()
        ));
        text
    };
    print_out(&text, ExitCode::from(code))
}

/// `gpuprof diff`: every run of the newer results against the older, as a
/// table or JSON.
fn diff(before: &std::path::Path, after: &std::path::Path, json: bool) -> ExitCode {
    let read = |path| pipeline::read_saved(path);
    let (before, after) = match (read(before), read(after)) {
        (Ok(b), Ok(a)) => (b, a),
        (Err(error), _) | (_, Err(error)) => return fail(&error),
    };
    let changes = gpuprof::analysis::since::since(&before, &after);
    let text = match json {
        true => format!(
            "{}\n",
            serde_json::to_string_pretty(&changes).expect("the changes serialize")
        ),
        false => render::terminal::changes(&changes),
    };
    print_out(&text, ExitCode::SUCCESS)
}

fn dump(path: &std::path::Path) -> ExitCode {
    match pipeline::read_saved(path) {
        Ok(results) => {
            let view = render::view(&results, &analysis::analyze(&results));
            let json = serde_json::to_string_pretty(&view).expect("the view serializes");
            print_out(&format!("{json}\n"), ExitCode::SUCCESS)
        }
        Err(error) => fail(&error),
    }
}

/// The files a waiting harness opens the GPU on and writes once it has.
#[derive(Clone, Copy)]
struct Gates<'a> {
    open_on: Option<&'a std::path::Path>,
    then_open: Option<&'a std::path::Path>,
}

/// The hidden harness subcommand: events one per line as they happen, on
/// the report descriptor the pipeline gave it (stdout when run by hand).
/// With `wait_for`, the job file is not written yet: the harness waits for
/// it while that process lives, touching the GPU only once the file
/// `open_on` appears, if it does (it then opens its context, writes the
/// file `then_open` for the next harness, and waits on).
fn run_harness(job_path: &std::path::Path, wait_for: Option<u32>, gates: Gates) -> ExitCode {
    // Under ncu, the harness's parent is ncu: it goes when ncu goes.
    gpuprof::process::die_with_parent();
    // Events go on the pipeline's report descriptor, what kernels print
    // is captured apart; run by hand, both go to stdout.
    let mut reporter =
        match harness::capture::Reporter::from_env(gpuprof::process::REPORT_FD_VARIABLE) {
            Ok(reporter) => reporter,
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::from(exit_code::ENVIRONMENT);
            }
        };
    let mut emit = |event: harness::Event| match reporter.as_mut() {
        Some(reporter) => reporter.emit(&event),
        None => {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", event.to_line());
            let _ = out.flush();
        }
    };
    let opened = match wait_for {
        Some(writer) => match wait_for_job(job_path, writer, gates, &mut emit) {
            Ok(opened) => opened,
            Err(error) => {
                eprintln!("error: {error}");
                return ExitCode::from(exit_code::ENVIRONMENT);
            }
        },
        None => None,
    };
    let job: harness::Job = match std::fs::read_to_string(job_path)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
    {
        Ok(job) => job,
        Err(error) => {
            eprintln!(
                "error: cannot read the harness job {}: {error}",
                job_path.display()
            );
            return ExitCode::from(exit_code::BAD_INPUT);
        }
    };
    if let Err(error) = driver_loadable() {
        eprintln!("error: {error}");
        return ExitCode::from(exit_code::ENVIRONMENT);
    }
    match harness::run(&job, opened, &mut emit) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(exit_code::VARIANT_FAILED)
        }
    }
}

/// Whether the harness can load the NVIDIA driver library (cudarc panics
/// on first use otherwise), and what to say when it cannot.
fn driver_loadable() -> Result<(), String> {
    match harness::driver_available() {
        true => Ok(()),
        false => Err("the NVIDIA driver library (libcuda.so.1) was not found".into()),
    }
}

/// Waits for the job file `job` (written whole, by a rename) while the
/// process `writer` lives, saying so once a second; once the file
/// `open_on` appears, opens the GPU (once), says whether it could and
/// writes `then_open`.
fn wait_for_job(
    job: &std::path::Path,
    writer: u32,
    gates: Gates,
    emit: &mut dyn FnMut(harness::Event),
) -> Result<Option<harness::OpenedEarly>, String> {
    use std::time::{Duration, Instant};
    let mut said = None::<Instant>;
    let mut gate = gates.open_on;
    let mut opened = None;
    while !job.exists() {
        if !gpuprof::process::is_alive(writer) {
            return Err(format!(
                "the gpuprof process {writer}, which was to write the job {}, has ended",
                job.display()
            ));
        }
        if let Some(file) = gate
            && file.exists()
        {
            gate = None;
            let attempt = driver_loadable()
                .and_then(|()| harness::open_early().map_err(|error| error.to_string()));
            match attempt {
                Ok(context) => {
                    opened = Some(context);
                    emit(harness::Event::Opened);
                }
                Err(message) => emit(harness::Event::OpenFailed { message }),
            }
            // The next harness's turn; gpuprof writes it itself if this
            // one cannot.
            if let Some(next) = gates.then_open {
                let _ = std::fs::write(next, b"");
            }
        }
        if said.is_none_or(|at| at.elapsed() >= Duration::from_secs(1)) {
            emit(harness::Event::Waiting);
            said = Some(Instant::now());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(opened)
}
