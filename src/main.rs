//! The `gpuprof` binary: parses the command line, runs the pipeline, prints
//! the summary or a one-paragraph error, and maps outcomes to the exit
//! codes documented in the README (0 all good, 1 output error, 2 bad input,
//! 3 report written but a variant failed, 4 missing GPU or tools).

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use gpuprof::cli::{Cli, Command};
use gpuprof::pipeline::{
    self, CompareRequest, Outcome, PipelineError, RenderRequest, ReportRequest,
};
use gpuprof::{analysis, harness, render};

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Ctrl-C: stop the harness and ncu (they run in their own process
    // groups), keep what was saved. results.json is written after every
    // variant and the previous report.html is only replaced at the end.
    let interrupted = ctrlc::set_handler(|| {
        gpuprof::process::stop_all();
        eprintln!(
            "\ninterrupted: results.json holds what was measured so far (`gpuprof render` makes a report of it); the previous report.html is untouched"
        );
        std::process::exit(130);
    });
    if let Err(error) = interrupted {
        eprintln!("warning: Ctrl-C will not stop child processes cleanly: {error}");
    }
    match cli.command {
        Command::Report {
            config,
            output,
            ncu,
            no_profile,
            timeout,
            open,
            force,
        } => {
            let request = ReportRequest {
                force,
                config,
                out_dir: output,
                ncu,
                skip_profile: no_profile,
                idle_timeout: Duration::from_secs(timeout.max(1)),
                command_line: command_line(),
            };
            finish(pipeline::report(&request), open)
        }
        Command::Render {
            results,
            output,
            dump_view,
            open,
        } => {
            if dump_view {
                return dump(&results);
            }
            finish(
                pipeline::render_saved(&RenderRequest {
                    results,
                    out_dir: output,
                }),
                open,
            )
        }
        Command::Init { folder } => match gpuprof::init::write(&folder) {
            Ok(written) => {
                for path in written {
                    anstream::println!("wrote {}", path.display());
                }
                anstream::println!(
                    "next: gpuprof report {}",
                    folder.join("variants.toml").display()
                );
                ExitCode::SUCCESS
            }
            Err(error) => {
                anstream::eprintln!("error: {error}");
                ExitCode::from(2)
            }
        },
        Command::Compare {
            inputs,
            names,
            kernel,
            output,
            ncu,
            open,
        } => finish(
            pipeline::compare(&CompareRequest {
                inputs,
                names,
                kernel,
                out_dir: output,
                ncu,
                command_line: command_line(),
            }),
            open,
        ),
        Command::Doctor { ncu, binary } => {
            let findings = gpuprof::doctor::check(ncu.as_deref(), binary.as_deref());
            anstream::print!("{}", gpuprof::doctor::render(&findings));
            let failed = findings
                .iter()
                .any(|f| f.state == gpuprof::doctor::State::Missing);
            if failed {
                ExitCode::from(4)
            } else {
                ExitCode::SUCCESS
            }
        }
        Command::Harness { job } => run_harness(&job),
    }
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

fn finish(outcome: Result<Outcome, PipelineError>, open: bool) -> ExitCode {
    match outcome {
        Ok(outcome) => {
            if open {
                open_in_browser(&outcome.report);
            }
            anstream::print!("{}", render::terminal::summary(&outcome.view));
            for notice in &outcome.results.notices {
                anstream::eprintln!("note: {notice}");
            }
            anstream::println!("report: {}", outcome.report.display());
            let failed = outcome
                .analysis
                .variants
                .iter()
                .flat_map(|v| &v.runs)
                .any(|run| !run.status.is_trusted());
            if failed {
                ExitCode::from(3)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(error) => {
            anstream::eprintln!("error: {error}");
            ExitCode::from(match error {
                PipelineError::Input(_) => 2,
                PipelineError::Environment(_) => 4,
                PipelineError::Output { .. } => 1,
            })
        }
    }
}

fn dump(path: &std::path::Path) -> ExitCode {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) => {
            anstream::eprintln!("error: cannot read {}: {error}", path.display());
            return ExitCode::from(2);
        }
    };
    match gpuprof::model::read_results(&text) {
        Ok(results) => {
            let view = render::view(&results, &analysis::analyze(&results));
            println!(
                "{}",
                serde_json::to_string_pretty(&view).expect("the view serializes")
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            anstream::eprintln!("error: {}:{error}", path.display());
            ExitCode::from(2)
        }
    }
}

/// The hidden harness subcommand: events on stdout, one per line, flushed
/// as they happen so the pipeline sees progress (and ncu passes it on).
fn run_harness(job: &std::path::Path) -> ExitCode {
    let job: harness::Job = match std::fs::read_to_string(job)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str(&text).map_err(|e| e.to_string()))
    {
        Ok(job) => job,
        Err(error) => {
            eprintln!(
                "error: cannot read the harness job {}: {error}",
                job.display()
            );
            return ExitCode::from(2);
        }
    };
    if !harness::driver_available() {
        eprintln!("error: the NVIDIA driver library (libcuda.so.1) was not found");
        return ExitCode::from(4);
    }
    let stdout = std::io::stdout();
    let mut emit = |event: harness::Event| {
        let mut out = stdout.lock();
        let _ = writeln!(out, "{}", event.to_line());
        let _ = out.flush();
    };
    match harness::run(&job, &mut emit) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(3)
        }
    }
}
