//! A variant's section: its name, role, source, changes and notes, how it
//! is built or called (its compiler and command, library call or command), what its
//! outputs are compared with, the explanation of each of its changes with
//! the expectations checked, and one view per run.

use super::run::run_view;
use super::{ChangeView, ExpectationRow, Fact, VariantView, run_at, verdict_words};
use crate::analysis::{Analysis, ChangeAnalysis, ExpectationOutcome, VariantAnalysis, format};
use crate::model::measurement::Check;
use crate::model::results::VariantResult;
use crate::model::variant::{Role, VariantKind};

pub(super) fn variant_view(
    variant: &VariantResult,
    variant_analysis: &VariantAnalysis,
    analysis: &Analysis,
    anchor: String,
) -> VariantView {
    let previous = variant_analysis
        .previous
        .as_ref()
        .and_then(|p| analysis.variants.iter().find(|v| v.name == *p));
    VariantView {
        name: variant.name.clone(),
        anchor,
        role: match variant.role {
            Role::Step => "step",
            Role::Ceiling => "ceiling",
        },
        source: variant.kind.source_label(),
        entry: variant.kind.entry_label().to_string(),
        changes: variant
            .changes
            .iter()
            .map(|c| c.label().to_string())
            .collect(),
        notes: variant.notes.clone(),
        verify: variant
            .verify_against
            .as_ref()
            .map(|a| format!("outputs compared with `{a}`"))
            .unwrap_or_else(|| "outputs not compared".into()),
        build: build_facts(variant),
        build_error: variant.build.error.clone(),
        build_log: variant.build.log.clone(),
        change_explanations: variant_analysis.changes.iter().map(change_view).collect(),
        runs: variant_analysis
            .runs
            .iter()
            .zip(&variant.runs)
            .map(|(run, recorded)| {
                run_view(
                    run,
                    recorded,
                    previous.and_then(|p| run_at(p, &run.size)),
                    &variant.source_text,
                )
            })
            .collect(),
    }
}

/// How the variant is built or called: its kernel's resources, and its
/// compiler and command, library call or command.
fn build_facts(variant: &VariantResult) -> Vec<Fact> {
    let mut build_facts = Vec::new();
    if let Some(resources) = &variant.build.resources {
        build_facts.push(Fact::new(
            "registers / thread",
            resources.registers_per_thread.to_string(),
        ));
        build_facts.push(Fact::new(
            "static shared memory",
            format::bytes(f64::from(resources.static_shared_bytes)),
        ));
        build_facts.push(Fact::new(
            "local memory / thread",
            format::bytes(f64::from(resources.local_bytes_per_thread)),
        ));
    }
    match &variant.kind {
        VariantKind::Command { kernel } => {
            let commands: Vec<String> = variant
                .runs
                .iter()
                .filter_map(|r| r.command.as_ref().map(|c| format!("{}: {c}", r.size)))
                .collect();
            build_facts.push(Fact::new("command", commands.join(" · ")));
            if !variant.build.options.is_empty() {
                build_facts.push(Fact::new("built with", variant.build.options.join(" ")));
            }
            let checked_by_program = variant.runs.iter().any(|r| {
                matches!(r.check, Some(Check::ProgramPassed { .. } | Check::ProgramFailed { .. }))
            });
            let verification = match checked_by_program {
                true => "; its result is what the program reports of itself: its exit status, and a line matching `expect` where one is given",
                false => " (no verification: the program's outputs are its own)",
            };
            build_facts.push(Fact::new(
                "profiled",
                format!("kernels matching `{kernel}`, timed by ncu{verification}"),
            ));
        }
        VariantKind::Library { library } => build_facts.push(Fact::new(
            "library call",
            format!(
                "{} in FP32 (CUBLAS_PEDANTIC_MATH: no tensor cores); timed and verified like the kernels, not profiled (its kernels are cuBLAS's choice)",
                library.word()
            ),
        )),
        VariantKind::Kernel { .. } | VariantKind::Imported { .. } => {
            build_facts.extend(compiler_facts(&variant.build))
        }
    }
    build_facts
}

/// Which compiler built the kernel, why, its exact command and the
/// variants the same run built; runs recorded before the compiler was kept
/// show the NVRTC options they had.
fn compiler_facts(build: &crate::model::results::BuildRecord) -> Vec<Fact> {
    let mut facts = match (build.compiler, &build.command) {
        (Some(compiler), Some(command)) => vec![
            Fact::new(
                "compiler",
                match &build.compiler_reason {
                    Some(reason) => format!("{} ({reason})", compiler.word()),
                    None => compiler.word().to_string(),
                },
            ),
            Fact::new("command", command.clone()),
        ],
        _ => vec![Fact::new("NVRTC options", build.options.join(" "))],
    };
    if !build.compiled_with.is_empty() {
        facts.push(Fact::new(
            "built together with",
            format!(
                "{} (one compiler run for the variants of one file and options)",
                crate::analysis::format::names_briefly(&build.compiled_with)
            ),
        ));
    }
    facts
}

/// A change's explanation, with the expectations it was checked against.
fn change_view(change: &ChangeAnalysis) -> ChangeView {
    let (verdict, verdict_class) = verdict_words(change.verdict);
    ChangeView {
        title: change.title.clone(),
        word: change.change.word().to_string(),
        mechanism: change.mechanism.clone(),
        outcome: change.outcome.clone(),
        verdict,
        verdict_class,
        measured: change.measured.clone(),
        expectations: change.expectations.iter().map(expectation_row).collect(),
        next: change.next.clone(),
        size: change.size.clone().unwrap_or_default(),
    }
}

/// One expectation of a change: the metric, which way it should move and
/// why, its values before and after, and the verdict.
fn expectation_row(e: &ExpectationOutcome) -> ExpectationRow {
    let (verdict, verdict_class) = verdict_words(e.verdict);
    let show = |v: Option<f64>| v.map(|v| e.metric.format(v)).unwrap_or_else(|| "–".into());
    ExpectationRow {
        metric: e.label.to_string(),
        expected: format!(
            "{} — {}",
            match e.direction {
                crate::analysis::knowledge::Direction::Down => "down",
                crate::analysis::knowledge::Direction::Up => "up",
            },
            e.why
        ),
        before: show(e.before),
        after: show(e.after),
        verdict,
        verdict_class,
    }
}
