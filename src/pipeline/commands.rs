//! Command variants under ncu: each one's program runs at every size in an
//! ncu process of its own, which profiles the first `launches` launches of
//! the kernels matching its filter. Their durations are its timing samples
//! and the last launch is its profile. The program checks its own result:
//! its exit status (which ncu passes on) and, with `expect`, a line it
//! prints. Each size writes its own `.ncu-rep`, named so that no two runs
//! share a file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use super::output::{save, write_atomic};
use super::profile::Ncu;
use super::progress::progress;
use super::{Folders, ReportRequest};
use crate::config::plan::{CommandVariant, Plan};
use crate::error::Error;
use crate::model::measurement::{Check, ProgramFailure};
use crate::model::notice::Notice;
use crate::model::results::{Failure, Profile, ProfilerRun, Results, Stage};
use crate::ncu::export::{SourcePages, export};
use crate::ncu::{import, run as ncu_run};
use crate::process::{self, Invocation, ToolError, ToolErrorKind};

/// One command variant at one size, with the file name its report gets.
struct CommandRun<'a> {
    variant: &'a str,
    size: &'a str,
    command: &'a CommandVariant,
    argv: &'a [String],
    /// Unique among the suite's command runs: `naive-N_4096`.
    slug: String,
}

/// Profiles every command variant at every size.
pub(super) fn profile_all(
    plan: &Plan,
    ncu: &Result<Ncu, String>,
    request: &ReportRequest,
    folders: &Folders,
    results: &mut Results,
) -> Result<(), Error> {
    let runs = command_runs(plan);
    if runs.is_empty() {
        return Ok(());
    }
    let absolute = |path: &Path| std::path::absolute(path).map_err(|e| Error::output(path, e));
    let (out_dir, work_dir) = (absolute(&folders.out)?, absolute(&folders.work)?);
    let clock_control = plan.profile.clock_control.as_ncu_value();
    let ncu = match ncu {
        Ok(found) => found,
        Err(reason) => {
            let message = format!("command variants are timed and profiled by ncu: {reason}");
            fail_all(plan, results, &message);
            return Ok(());
        }
    };
    let mut reports = Vec::new();
    let bar = progress(0, "profile");
    for run in &runs {
        let failed_before = results
            .run_mut(run.variant, run.size)
            .is_some_and(|r| r.failure.is_some());
        if failed_before {
            continue;
        }
        bar.set_message(format!("{} {}", run.variant, run.size));
        let measured = profile_one(
            run,
            ncu,
            request,
            clock_control,
            (&out_dir, &work_dir),
            results,
        );
        if let Some(record) = results.run_mut(run.variant, run.size) {
            match measured {
                Ok((samples, profile, check)) => {
                    record.samples_ms = samples;
                    record.profile = Some(profile);
                    record.check = Some(check);
                    reports.push(format!("{}.ncu-rep", run.slug));
                }
                Err(message) => {
                    record.failure = Some(Failure {
                        stage: Stage::Profile,
                        message,
                    })
                }
            }
        }
        save(&folders.results, results)?;
    }
    bar.finish_and_clear();
    if !reports.is_empty() {
        results.notices.push(Notice::CommandsTimedByNcu { reports });
    }
    Ok(())
}

/// Every command variant at every size, in plan order, each with a report
/// name of its own: the name and size with anything but letters, digits,
/// `-` and `_` replaced by `_`, and a number appended where two would
/// otherwise be the same (`Naive ` and `naive!` differ only in punctuation).
fn command_runs(plan: &Plan) -> Vec<CommandRun<'_>> {
    let mut taken = BTreeSet::new();
    let mut runs = Vec::new();
    for variant in &plan.variants {
        let Some(command) = variant.command() else {
            continue;
        };
        for instance in &variant.instances {
            let Some(argv) = instance.command.as_deref() else {
                continue;
            };
            let base: String = format!("{}-{}", variant.name, instance.size)
                .chars()
                .map(
                    |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        true => c,
                        false => '_',
                    },
                )
                .collect();
            let slug = (1..)
                .map(|n| match n {
                    1 => base.clone(),
                    n => format!("{base}-{n}"),
                })
                .find(|candidate| !taken.contains(&candidate.to_lowercase()))
                .unwrap_or(base);
            taken.insert(slug.to_lowercase());
            runs.push(CommandRun {
                variant: &variant.name,
                size: &instance.size,
                command,
                argv,
                slug,
            });
        }
    }
    runs
}

/// Runs one command under ncu and reads back its samples, its profile and
/// what the program said of its own result.
fn profile_one(
    run: &CommandRun,
    ncu: &Ncu,
    request: &ReportRequest,
    clock_control: &str,
    (out_dir, work_dir): (&Path, &Path),
    results: &mut Results,
) -> Result<(Vec<f64>, Profile, Check), String> {
    let (program, args) = run.argv.split_first().ok_or("the command is empty")?;
    let folder: PathBuf =
        std::path::absolute(&run.command.folder).unwrap_or_else(|_| run.command.folder.clone());
    let source_section = ncu_run::source_section_folder(work_dir);
    ncu_run::write_source_section(&source_section)
        .map_err(|e| format!("cannot write {}: {e}", source_section.display()))?;
    let ncu_request = ncu_run::ProfileRequest {
        selection: ncu_run::Selection::Kernel {
            regex: run.command.kernel.clone(),
            count: run.command.launches,
        },
        clock_control: clock_control.to_string(),
        report_base: out_dir.join(&run.slug),
        log_file: work_dir.join(format!("{}.log", run.slug)),
        source_section: Some(source_section),
        raw_page_in_log: false,
    };
    let target = Invocation::new(program).args(args);
    let invocation =
        ncu_run::profile_invocation(&ncu.path, &ncu_request, &target).in_folder(&folder);
    super::build::announce("running under ncu", run.argv, &folder);
    let started = Instant::now();
    let outcome = process::run_streaming(&invocation, Some(request.idle_timeout * 4), |_| {});
    let seconds = started.elapsed().as_secs_f64();
    let log = std::fs::read_to_string(&ncu_request.log_file).unwrap_or_default();
    let report = ncu_run::report_path(&ncu_request);
    results.profiler.get_or_insert_with(|| ProfilerRun {
        ncu_version: ncu.version.clone(),
        command: invocation.display(),
        clock_control: ncu_request.clock_control.clone(),
        report_file: format!("{}.ncu-rep", run.slug),
        passes_per_launch: None,
        seconds,
        started_early_s: None,
        lines_at: None,
        lines_run: None,
    });
    if !report.is_file() {
        return Err(match &outcome {
            Err(error) => ncu_run::explain_failure(&log, error),
            Ok(_) => format!(
                "no launch matched the kernel filter `{}`, so ncu wrote no report: check `kernel` against the names ncu prints ({})",
                run.command.kernel,
                process::last_lines(&log, 3)
            ),
        });
    }
    let (exit_code, stdout, stderr) = match &outcome {
        Ok(output) => (Some(0), &output.stdout, &output.stderr),
        Err(ToolError {
            kind: ToolErrorKind::Failed { status },
            stdout,
            stderr,
            ..
        }) => (status.code(), stdout, stderr),
        Err(error) => return Err(ncu_run::explain_failure(&log, error)),
    };
    let (samples, profile) = measure(&ncu.path, &report, work_dir, run)?;
    let printed = format!("{stdout}{stderr}");
    let check = own_check(exit_code, &printed, run.command.expect.as_deref());
    Ok((samples, profile, check))
}

/// What the program said of its own result: a non-zero exit status (or a
/// signal, `exit_code` `None`) fails it; with status 0, a line of what it
/// printed matching `expect` passes it, and without `expect` nothing was
/// checked.
fn own_check(exit_code: Option<i32>, printed: &str, expect: Option<&str>) -> Check {
    let failure = match (exit_code, expect) {
        (Some(0), None) => {
            return Check::NotChecked {
                reason: "the program exited with status 0, and gpuprof does not compare its outputs: `expect` names a line it prints when its own check passes".into(),
            };
        }
        (Some(0), Some(expect)) => {
            let pattern = regex::Regex::new(expect).ok();
            let matched = pattern.and_then(|p| printed.lines().find(|line| p.is_match(line)));
            if let Some(line) = matched {
                return Check::ProgramPassed {
                    expect: expect.to_string(),
                    line: line.to_string(),
                };
            }
            ProgramFailure::NoMatch {
                expect: expect.to_string(),
            }
        }
        (Some(code), _) => ProgramFailure::ExitStatus { code },
        (None, _) => ProgramFailure::Signal,
    };
    Check::ProgramFailed {
        failure,
        output_tail: process::last_lines(printed, 10),
    }
}

/// Reads one command's report: the launch durations (ms) and the profile
/// of the last launch, with its source lines.
fn measure(
    ncu: &Path,
    report: &Path,
    work_dir: &Path,
    run: &CommandRun,
) -> Result<(Vec<f64>, Profile), String> {
    let exported = export(ncu, report, SourcePages::Last, None).map_err(|e| e.to_string())?;
    write_atomic(
        &work_dir.join(format!("{}-raw.csv", run.slug)),
        exported.raw_csv.as_bytes(),
    )
    .map_err(|e| e.to_string())?;
    let launches = &exported.launches;
    let last = launches
        .len()
        .checked_sub(1)
        .ok_or("ncu profiled no launch")?;
    let samples: Vec<f64> = launches
        .iter()
        .filter_map(|l| l.number(crate::model::metrics::DURATION))
        .map(|ns| ns / 1e6)
        .collect();
    let source = exported
        .sources
        .into_iter()
        .find(|(index, _)| *index == last)
        .map(|(_, page)| page.files)
        .unwrap_or_else(|| Err("ncu exported no source page".into()));
    let mut profile = import::profile_of_launch(&launches[last], &source);
    let wanted = run.command.launches as usize;
    if launches.len() < wanted {
        profile.source_note.get_or_insert(format!(
            "ncu profiled {} launches of the {wanted} asked for: the program launched no more matching kernels",
            launches.len()
        ));
    }
    Ok((samples, profile))
}

/// Under `--no-profile`, command variants (which only ncu times) fail with
/// the reason, and the report says that profiling was skipped.
pub(super) fn record_skipped(plan: &Plan, results: &mut Results) {
    fail_all(
        plan,
        results,
        "command variants are timed by ncu, and --no-profile skipped it",
    );
    results.notices.push(Notice::ProfilingNotRequested);
}

/// Marks every run of every command variant failed with `message` (unless
/// it already failed).
fn fail_all(plan: &Plan, results: &mut Results, message: &str) {
    for run in command_runs(plan) {
        if let Some(record) = results.run_mut(run.variant, run.size) {
            record.failure.get_or_insert(Failure {
                stage: Stage::Profile,
                message: message.to_string(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_checks_itself_by_its_exit_status_and_expect() {
        let printed = "size 4096\nTest PASSED\n";
        assert_eq!(
            own_check(Some(0), printed, Some("^Test PASSED$")),
            Check::ProgramPassed {
                expect: "^Test PASSED$".into(),
                line: "Test PASSED".into()
            }
        );
        assert_eq!(
            own_check(Some(0), "Test FAILED\n", Some("PASSED")),
            Check::ProgramFailed {
                failure: ProgramFailure::NoMatch {
                    expect: "PASSED".into()
                },
                output_tail: "Test FAILED".into()
            }
        );
        let exited = own_check(Some(1), printed, Some("PASSED"));
        assert_eq!(
            exited,
            Check::ProgramFailed {
                failure: ProgramFailure::ExitStatus { code: 1 },
                output_tail: "size 4096\nTest PASSED".into()
            }
        );
        assert!(matches!(
            own_check(None, "", None),
            Check::ProgramFailed {
                failure: ProgramFailure::Signal,
                ..
            }
        ));
        assert!(matches!(
            own_check(Some(0), printed, None),
            Check::NotChecked { reason } if reason.contains("exited with status 0")
        ));
    }

    #[test]
    fn command_variants_whose_names_differ_in_punctuation_get_reports_of_their_own() {
        let text = r#"
[suite]
name = "programs"
sizes = [64]
baseline = "Naive "

[defaults]
launches = 1

[[variant]]
name = "Naive "
command = ["./prog", "{N}"]
kernel = "k"

[[variant]]
name = "naive!"
command = ["./prog", "{N}"]
kernel = "k"

[[variant]]
name = "naive?"
command = ["./prog", "{N}"]
kernel = "k"
"#;
        let plan = crate::config::parse(text, Path::new("variants.toml")).unwrap();
        let slugs: Vec<String> = command_runs(&plan).into_iter().map(|r| r.slug).collect();
        assert_eq!(slugs, ["Naive_-N_64", "naive_-N_64-2", "naive_-N_64-3"]);
    }
}
