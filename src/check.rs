//! `gpuprof report --check`: everything a run can find wrong without a GPU.
//! The suite is resolved (every key and expression, at every size), every
//! kernel variant is compiled at every size (its defines may differ by
//! size) by the compiler a run would use (where it is
//! installed) for the architecture given, and the resolved plan is printed:
//! per variant its kind, compiler and kernel symbol, and per size its
//! launch geometry, shared memory, buffers, bytes and flops.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

use comfy_table::{ContentArrangement, Table, presets};

use crate::analysis::format;
use crate::build::{self, BuildError, Cache, VariantBuild};
use crate::config::plan::{
    Arg, Instance, KernelSource, Plan, Step, StepArg, SweepProfiling, Variant, VariantKind,
};
use crate::error::Error;
use crate::model::results::BuildRecord;
use crate::model::variant::Compiler;
use crate::render::launches;

/// What the check found: the plan as text, and the variants whose kernel
/// failed to compile (empty when every kernel that could be compiled here
/// compiled).
pub struct Checked {
    pub text: String,
    pub failed: Vec<String>,
    /// The variants left uncompiled because their compiler is not
    /// installed here.
    pub not_compiled: Vec<String>,
}

/// Resolves `config` and compiles its kernels for compute capability
/// `architecture`.
pub fn check(config: &Path, architecture: (u32, u32)) -> Result<Checked, Error> {
    let plan = crate::config::load(config)?;
    let cache = Cache::default_location();
    let mut text = format!(
        "{}: {} at {} ({}), baseline `{}`; compiled for sm_{}{}\n",
        plan.suite.name,
        format::counted(plan.variants.len(), "variant"),
        format::counted(plan.suite.sizes.len(), "size"),
        plan.suite
            .sizes
            .iter()
            .map(|s| s.label.as_str())
            .collect::<Vec<_>>()
            .join("; "),
        plan.suite.baseline,
        architecture.0,
        architecture.1
    );
    text.push_str(&unfilled_lines(config));
    let mut failed: Vec<String> = Vec::new();
    let mut not_compiled: Vec<String> = Vec::new();
    // Each distinct compiler error with the first variant that met it, so
    // that a file failing the same way for every variant is shown once.
    let mut errors_seen: Vec<(String, String)> = Vec::new();
    let mut records: Vec<BuildRecord> = plan
        .variants
        .iter()
        .map(|_| BuildRecord::default())
        .collect();
    let mut builds: Vec<VariantBuild> = plan
        .variants
        .iter()
        .zip(records.iter_mut())
        .filter_map(|(variant, record)| match &variant.kind {
            VariantKind::Kernel(kernel) => Some(VariantBuild {
                name: &variant.name,
                kernel,
                instances: &variant.instances,
                record,
            }),
            _ => None,
        })
        .collect();
    let mut outcomes = build::compile_variants(
        &mut builds,
        architecture,
        &cache,
        &indicatif::ProgressBar::hidden(),
    )
    .into_iter();
    drop(builds);
    for (variant, record) in plan.variants.iter().zip(records) {
        let built = match &variant.kind {
            VariantKind::Kernel(kernel) => {
                let outcome = outcomes
                    .next()
                    .expect("compile_variants gives an outcome per kernel variant");
                kernel_line(variant, kernel, record, outcome)
            }
            VariantKind::Library { library } => {
                Built::Fine(format!("library call {}", library.label()))
            }
            VariantKind::Command(command) => {
                let build = command
                    .build
                    .as_ref()
                    .map(|argv| format!("; built with `{}` (not run by --check)", argv.join(" ")))
                    .unwrap_or_default();
                Built::Fine(format!(
                    "command, ncu profiles kernels matching `{}`{build}",
                    command.kernel
                ))
            }
        };
        let line = match built {
            Built::Fine(line) => line,
            Built::NotCompiled(line) => {
                not_compiled.push(variant.name.clone());
                line
            }
            Built::Failed { described, error } => {
                failed.push(variant.name.clone());
                match errors_seen.iter().find(|(seen, _)| *seen == error) {
                    Some((_, first)) => {
                        format!("{described}\n  FAILED: the same error as `{first}` above")
                    }
                    None => {
                        errors_seen.push((error.clone(), variant.name.clone()));
                        format!("{described}\n  FAILED: {error}")
                    }
                }
            }
        };
        let _ = writeln!(text, "\n{}: {line}", variant.name);
        text.push_str(&sizes_table(&plan, variant));
    }
    text.push_str(&profiled_launches(&plan));
    Ok(Checked {
        text,
        failed,
        not_compiled,
    })
}

/// How many kernel launches a run profiles under ncu: every launch of
/// every kernel variant at every size, of a sweep only the configurations
/// `[profile] sweeps` keeps (counted as the ones with the most launches,
/// since which are fastest is known only once they are timed). A loop of
/// launches makes this grow fast, and each launch costs ncu its passes.
fn profiled_launches(plan: &Plan) -> String {
    let kept = match plan.profile.sweeps {
        SweepProfiling::All => usize::MAX,
        SweepProfiling::Extremes { best, worst } => (best + worst) as usize,
    };
    let mut total = 0;
    for size in 0..plan.suite.sizes.len() {
        let launches = |variant: &Variant| match (&variant.kind, variant.instances.get(size)) {
            (VariantKind::Kernel(_), Some(instance)) => instance.launches().len(),
            _ => 0,
        };
        let mut sweeps: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for variant in &plan.variants {
            match &variant.sweep {
                Some(point) => sweeps
                    .entry(&point.group)
                    .or_default()
                    .push(launches(variant)),
                None => total += launches(variant),
            }
        }
        for counts in sweeps.values_mut() {
            counts.sort_unstable_by(|a, b| b.cmp(a));
            total += counts.iter().take(kept).sum::<usize>();
        }
    }
    let sequences = plan
        .variants
        .iter()
        .any(|v| v.instances.iter().any(|i| i.sequence.len() > 1));
    match total {
        0 => String::new(),
        _ => format!(
            "\nprofiling: a run profiles {} under ncu{}; each costs ncu its kernel's replay passes and 0.4–0.9 s more (measured on an H200: benchmarks/README.md), {} in all\n",
            match total {
                1 => "1 kernel launch".to_string(),
                _ => format!("{} kernel launches", format::count(total as f64)),
            },
            match sequences {
                true => ", every launch of every sequence among them",
                false => "",
            },
            ncu_time(total)
        ),
    }
}

/// What `launches` cost ncu beyond the kernels' own replays, at the
/// 0.4–0.9 s a launch measured on the H200: "4–8 s", "28–63 min".
fn ncu_time(launches: usize) -> String {
    let (low, high) = (launches as f64 * 0.4, launches as f64 * 0.9);
    let (low, high, unit) = match high < 120.0 {
        true => (low.max(1.0).round(), high.max(1.0).round(), "s"),
        false => (low / 60.0, high / 60.0, "min"),
    };
    let shown = |value: f64| match value < 10.0 && unit == "min" {
        true => format!("{value:.1}"),
        false => format!("{value:.0}"),
    };
    match shown(low) == shown(high) {
        true => format!("about {} {unit}", shown(low)),
        false => format!("{}–{} {unit}", shown(low), shown(high)),
    }
}

/// A warning naming the lines of `config` that still carry the comment
/// `gpuprof init --from` puts after a guessed value (empty when none do).
fn unfilled_lines(config: &Path) -> String {
    let text = std::fs::read_to_string(config).unwrap_or_default();
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .filter(|(_, line)| line.contains(crate::init::FILL_IN))
        .map(|(index, _)| (index + 1).to_string())
        .collect();
    match lines.len() {
        0 => String::new(),
        count => format!(
            "warning: {} of {} still {} `{}` (line{} {}): gpuprof init guessed those values; check each, then delete the comment\n",
            format::counted(count, "line"),
            crate::render::terminal::visible(&config.display().to_string()),
            if count == 1 { "says" } else { "say" },
            crate::init::FILL_IN,
            if count == 1 { "" } else { "s" },
            lines.join(", ")
        ),
    }
}

/// How a variant is built: a line to print (also when there is nothing
/// to compile or its compiler is not installed here), or what it is and
/// the compiler's error.
enum Built {
    Fine(String),
    NotCompiled(String),
    Failed { described: String, error: String },
}

/// How a kernel variant is built and whether it compiled, from what
/// building it gave (`outcome`) and its build's `record`.
fn kernel_line(
    variant: &Variant,
    kernel: &KernelSource,
    record: BuildRecord,
    outcome: build::Built,
) -> Built {
    let described = format!(
        "`{}` of {}, by {} ({})",
        kernel.entry,
        kernel.path.display(),
        kernel.compiler.word(),
        kernel.compiler_reason
    );
    match outcome {
        Ok(compiled) => {
            let builds: BTreeSet<&Path> = compiled.iter().map(|c| c.cubin.as_path()).collect();
            let sizes = match builds.len() {
                0 | 1 => String::new(),
                distinct => {
                    let differ = |of: &dyn Fn(&crate::config::plan::Instance) -> String| {
                        variant.instances.windows(2).any(|w| of(&w[0]) != of(&w[1]))
                    };
                    let why = match (
                        differ(&|i| format!("{:?}", i.defines)),
                        differ(&|i| i.entries.join(",")),
                    ) {
                        (true, true) => "its defines and template arguments differ by size",
                        (false, true) => "its template arguments differ by size",
                        _ => "its defines differ by size",
                    };
                    format!(" ({distinct} builds: {why})")
                }
            };
            // A build served from the cache names a scratch folder that is
            // gone: say it was reused, and of which build the line is.
            let reused = !compiled.is_empty() && compiled.iter().all(|c| c.from_cache);
            let which = match (builds.len() > 1, reused) {
                (false, false) => "command",
                (true, false) => "command of the first build",
                (false, true) => "command (reused from the build cache; as first built)",
                (true, true) => {
                    "command of the first build (reused from the build cache; as first built)"
                }
            };
            let together = match record.compiled_with.is_empty() {
                true => String::new(),
                false => format!(
                    "\n  one compiler run with: {}",
                    format::names_briefly(&record.compiled_with)
                ),
            };
            // What the compiler printed, and what gpuprof did to build
            // the file's device code alone.
            let said: String = record
                .log
                .lines()
                .filter(|line| !line.trim().is_empty())
                .map(|line| format!("\n  | {}", crate::render::terminal::visible(line)))
                .collect();
            Built::Fine(format!(
                "{described}\n  compiled at every size{sizes}: symbol {}{together}\n  {which}: {}{said}",
                compiled
                    .first()
                    .map(|c| c.functions.join(", "))
                    .unwrap_or_default(),
                record.command.unwrap_or_default()
            ))
        }
        Err(BuildError::NvrtcMissing) if kernel.compiler == Compiler::Nvrtc => Built::NotCompiled(
            format!("{described}\n  not compiled: {}", BuildError::NvrtcMissing),
        ),
        Err(missing @ BuildError::NvccMissing { .. }) => {
            Built::NotCompiled(format!("{described}\n  not compiled: {missing}"))
        }
        Err(error) => Built::Failed {
            described,
            error: error.to_string(),
        },
    }
}

/// The variant's values at every size.
fn sizes_table(plan: &Plan, variant: &Variant) -> String {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .set_header([
            "size",
            "grid",
            "block",
            "dynamic shared",
            "buffers",
            "bytes",
            "flops",
        ]);
    // A library call or a command has no launch geometry of its own.
    let has_geometry = matches!(variant.kind, VariantKind::Kernel(_));
    let geometry = |grid, block, shared| match has_geometry {
        true => [grid, block, shared],
        false => ["–".into(), "–".into(), "–".into()],
    };
    for (instance, size) in variant.instances.iter().zip(&plan.suite.sizes) {
        let entries = variant
            .kernel()
            .map(|k| k.entries_at(instance))
            .unwrap_or_default();
        let totals = [
            buffers(instance),
            instance.bytes.map_or("–".into(), format::bytes),
            instance.flops.map_or("–".into(), format::count),
        ];
        if instance.sequence.len() < 2 {
            let [grid, block, shared] = geometry(
                dims(instance.grid),
                dims(instance.block),
                format!("{} B", instance.shared_bytes),
            );
            let [buffers, bytes, flops] = totals;
            table.add_row([
                size.label.clone(),
                grid,
                block,
                shared,
                buffers,
                bytes,
                flops,
            ]);
            continue;
        }
        // A sequence: one row per launch, the buffers and totals on the
        // first; a long one, one row per run of launches of one kernel,
        // its geometry a range where it changes along the run.
        let rows = launches::rows(&instance.sequence, |step| step.kernel);
        for (index, row) in rows.iter().enumerate() {
            let steps = &instance.sequence[row.range()];
            let each =
                |of: fn(&Step) -> String| launches::span(&steps.iter().map(of).collect::<Vec<_>>());
            let [grid, block, shared] = geometry(
                each(|s| dims(s.grid)),
                each(|s| dims(s.block)),
                each(|s| format!("{} B", s.shared_bytes)),
            );
            let kernel = entries.get(steps[0].kernel).map_or("", String::as_str);
            let passed = arguments(steps, instance);
            let launch = match row.collapsed() {
                true => format!(
                    "{} · {} {kernel} {}{passed}",
                    size.label,
                    row.numbers(),
                    row.times()
                ),
                false => format!("{} · {} {kernel}{passed}", size.label, row.numbers()),
            };
            let [buffers, bytes, flops] = match index {
                0 => totals.clone(),
                _ => [String::new(), String::new(), String::new()],
            };
            table.add_row([launch, grid, block, shared, buffers, bytes, flops]);
        }
    }
    format!("{table}\n")
}

/// The arguments a row's launches pass, ` (in, out+2048, size 2048, stride
/// 1024 … 1)`: buffers by name (and the element they start from), scalars
/// by name and value; a range where a value changes along the row (a loop
/// variable, buffers swapped between launches).
fn arguments(steps: &[Step], instance: &Instance) -> String {
    let Some(first) = steps.first() else {
        return String::new();
    };
    let shown = |arg: &StepArg| match arg {
        StepArg::Buffer { index, offset } => {
            let name = match instance.args.get(*index) {
                Some(Arg::Buffer(buffer)) => buffer.name.as_str(),
                _ => "?",
            };
            match offset {
                0 => name.to_string(),
                offset => format!("{name}+{offset}"),
            }
        }
        StepArg::Scalar(scalar) => number(scalar),
    };
    let passed: Vec<String> = first
        .args
        .iter()
        .enumerate()
        .map(|(at, arg)| {
            let values: Vec<String> = steps
                .iter()
                .filter_map(|step| step.args.get(at).map(shown))
                .collect();
            let values = launches::span(&values);
            match arg {
                StepArg::Scalar(scalar) => format!("{} {values}", scalar.name),
                StepArg::Buffer { .. } => values,
            }
        })
        .collect();
    match passed.is_empty() {
        true => String::new(),
        false => format!(" ({})", passed.join(", ")),
    }
}

/// A scalar's value as the launch passes it: a whole number without a
/// fraction, an f32 to the digits an f32 holds.
fn number(scalar: &crate::config::plan::Scalar) -> String {
    let value = scalar.value;
    match (value.fract() == 0.0 && value.abs() < 1e15, scalar.element) {
        (true, _) => format!("{}", value as i64),
        (false, crate::config::plan::ElementType::F32) => format!("{}", value as f32),
        (false, _) => format!("{value}"),
    }
}

fn dims(d: [u32; 3]) -> String {
    format!("{}×{}×{}", d[0], d[1], d[2])
}

/// Each buffer: name, element count and bytes, and its part.
fn buffers(instance: &Instance) -> String {
    instance
        .args
        .iter()
        .filter_map(|arg| match arg {
            Arg::Buffer(b) => Some(format!(
                "{} {}×{} ({}){}",
                b.name,
                format::count(b.count as f64),
                b.element.name(),
                format::bytes(b.count as f64 * b.element.size_bytes() as f64),
                if b.output { ", output" } else { "" }
            )),
            Arg::Scalar(_) => None,
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan of a suite (`variants`, at sizes 16 and 1024) over a file
    /// with a copy, a halving step of a reduction and a finishing launch.
    fn plan_of(variants: &str) -> Plan {
        let folder = tempfile::tempdir().unwrap();
        std::fs::write(
            folder.path().join("k.cu"),
            "extern \"C\" __global__ void copy(const float* in, float* out, int n) {}\n\
             extern \"C\" __global__ void halve(float* data, int n) {}\n\
             extern \"C\" __global__ void finish(float* data) {}\n",
        )
        .unwrap();
        let text = format!(
            "[suite]\nname = \"loops\"\nsizes = [16, 1024]\nbaseline = \"reduce\"\n\n\
             [defaults]\nsource = \"k.cu\"\nargs = [\n\
               {{ name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" }},\n\
               {{ name = \"out\", buffer = \"f32\", count = \"N\", output = true }},\n]\n\n\
             {variants}"
        );
        crate::config::parse(&text, &folder.path().join("variants.toml")).unwrap()
    }

    #[test]
    fn the_launches_a_run_profiles_are_counted_sequences_and_kept_sweep_configurations_included() {
        // The reduction: 6 launches at N=16, 12 at N=1024; a one-launch
        // copy swept over 6 block sizes, of which [profile] keeps 3 + 1.
        let plan = plan_of(
            "[[variant]]\nname = \"reduce\"\nsequence = [\n\
               { entry = \"copy\", grid = [1], block = [2], args = [{ name = \"in\" }, { name = \"out\" }, { name = \"n\", scalar = \"i32\", value = \"N\" }] },\n\
               { entry = \"halve\", repeat = [{ for = \"n\", from = \"N / 2\", while = \"n >= 1\", next = \"floor(n / 2)\" }], grid = [\"n\"], block = [1], args = [{ name = \"out\" }, { name = \"n\", scalar = \"i32\", value = \"n\" }] },\n\
               { entry = \"finish\", grid = [1], block = [1], args = [{ name = \"out\" }] },\n]\n\n\
             [[variant]]\nname = \"copy\"\nentry = \"copy\"\nverify = \"none\"\n\
             sweep = { B = [32, 64, 128, 256, 512, 1024] }\ngrid = [1]\nblock = [\"B\"]\n\
             args = [\n\
               { name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" },\n\
               { name = \"out\", buffer = \"f32\", count = \"N\", output = true },\n\
               { name = \"n\", scalar = \"i32\", value = \"N\" },\n]\n",
        );
        assert_eq!(
            profiled_launches(&plan),
            "\nprofiling: a run profiles 26 kernel launches under ncu, every launch of every sequence among them; each costs ncu its kernel's replay passes and 0.4–0.9 s more (measured on an H200: benchmarks/README.md), 10–23 s in all\n",
            "6 + 12 launches of the sequence and 4 of the 6 configurations at each of 2 sizes"
        );
    }

    #[test]
    fn ncu_time_is_said_in_seconds_or_minutes() {
        assert_eq!(ncu_time(1), "about 1 s");
        assert_eq!(ncu_time(26), "10–23 s");
        assert_eq!(ncu_time(144), "1.0–2.2 min");
        assert_eq!(ncu_time(4190), "28–63 min");
    }

    #[test]
    fn a_scalar_shows_the_digits_its_type_holds() {
        use crate::config::plan::{ElementType, Scalar};
        let scalar = |element, value| Scalar {
            name: "step".into(),
            element,
            value,
        };
        let step = 0.0035 / 24000.0;
        assert_eq!(number(&scalar(ElementType::F32, step)), "0.00000014583334");
        assert_eq!(number(&scalar(ElementType::F64, step)), format!("{step}"));
        assert_eq!(number(&scalar(ElementType::I32, 4096.0)), "4096");
    }

    #[test]
    fn a_long_sequence_shows_a_row_per_run_of_one_kernel_and_a_short_one_a_row_per_launch() {
        // n = N/2, N/4, … 1: 4 halvings at N=16 (6 launches, a row each),
        // 10 at N=1024 (12 launches: the halvings in one row, their grid
        // shrinking launch by launch).
        let plan = plan_of(
            "[[variant]]\nname = \"reduce\"\nsequence = [\n\
               { entry = \"copy\", grid = [\"N / 2\"], block = [2], args = [{ name = \"in\" }, { name = \"out\" }, { name = \"n\", scalar = \"i32\", value = \"N\" }] },\n\
               { entry = \"halve\", repeat = [{ for = \"n\", from = \"N / 2\", while = \"n >= 1\", next = \"floor(n / 2)\" }], grid = [\"n\"], block = [\"min(n, 4)\"], args = [{ name = \"out\" }, { name = \"n\", scalar = \"i32\", value = \"n\" }] },\n\
               { entry = \"finish\", grid = [1], block = [1], args = [{ name = \"out\" }] },\n]\n",
        );
        let table = sizes_table(&plan, &plan.variants[0]);
        insta::assert_snapshot!(table, @r"
        ┌──────────────────────────────────────────┬─────────────────┬───────────────┬────────────────┬─────────────────────────────────────────────────────────┬───────┬───────┐
        │ size                                     ┆ grid            ┆ block         ┆ dynamic shared ┆ buffers                                                 ┆ bytes ┆ flops │
        ╞══════════════════════════════════════════╪═════════════════╪═══════════════╪════════════════╪═════════════════════════════════════════════════════════╪═══════╪═══════╡
        │ N=16 · 1 copy (in, out, n 16)            ┆ 8×1×1           ┆ 2×1×1         ┆ 0 B            ┆ in 16×f32 (64.0 B); out 16×f32 (64.0 B), output         ┆ –     ┆ –     │
        │ N=16 · 2 halve (out, n 8)                ┆ 8×1×1           ┆ 4×1×1         ┆ 0 B            ┆                                                         ┆       ┆       │
        │ N=16 · 3 halve (out, n 4)                ┆ 4×1×1           ┆ 4×1×1         ┆ 0 B            ┆                                                         ┆       ┆       │
        │ N=16 · 4 halve (out, n 2)                ┆ 2×1×1           ┆ 2×1×1         ┆ 0 B            ┆                                                         ┆       ┆       │
        │ N=16 · 5 halve (out, n 1)                ┆ 1×1×1           ┆ 1×1×1         ┆ 0 B            ┆                                                         ┆       ┆       │
        │ N=16 · 6 finish (out)                    ┆ 1×1×1           ┆ 1×1×1         ┆ 0 B            ┆                                                         ┆       ┆       │
        │ N=1024 · 1 copy (in, out, n 1024)        ┆ 512×1×1         ┆ 2×1×1         ┆ 0 B            ┆ in 1,024×f32 (4.10 kB); out 1,024×f32 (4.10 kB), output ┆ –     ┆ –     │
        │ N=1024 · 2–11 halve ×10 (out, n 512 … 1) ┆ 512×1×1 … 1×1×1 ┆ 4×1×1 … 1×1×1 ┆ 0 B            ┆                                                         ┆       ┆       │
        │ N=1024 · 12 finish (out)                 ┆ 1×1×1           ┆ 1×1×1         ┆ 0 B            ┆                                                         ┆       ┆       │
        └──────────────────────────────────────────┴─────────────────┴───────────────┴────────────────┴─────────────────────────────────────────────────────────┴───────┴───────┘
        ");
    }
}
