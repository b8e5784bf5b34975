//! Ingest: ncu's parsed raw and source pages → one [`Profile`] per profiled
//! launch. The harness numbers its profiled launches in order and ncu's
//! results come back in the same order, so result `i` belongs to the
//! harness's launch `i`; the kernel names must agree or ingest refuses.

use std::path::Path;

use crate::model::metrics;
use crate::model::results::Profile;
use crate::model::source::{OtherFile, SourceLine};
use crate::ncu::raw::RawLaunch;
use crate::ncu::source::SourceFile;

/// The fixed metric set (plus ncu's pass count) that a launch has; a metric
/// it lacks is absent, never zero.
pub fn fixed_metrics(launch: &RawLaunch) -> std::collections::BTreeMap<String, f64> {
    metrics::METRICS
        .iter()
        .map(|m| m.name)
        .chain([metrics::REPLAY_PASSES])
        .filter_map(|name| launch.number(name).map(|value| (name.to_string(), value)))
        .collect()
}

/// Builds the profile of one launch: the fixed metric set (plus ncu's pass
/// count), the source lines of `source_path` that carry counters, and the
/// totals of every other file's lines that carry counters.
pub fn profile_from_launch(
    launch: &RawLaunch,
    source: Result<Vec<SourceFile>, String>,
    source_path: &Path,
) -> Profile {
    match source {
        Err(reason) => profile_with(launch, Vec::new(), Some(reason)),
        Ok(files) => {
            let note = format!(
                "ncu attributed no counters to {}: was it compiled with line info (-lineinfo)?",
                source_path.display()
            );
            profile_of_blocks(launch, &files, own_block(&files, source_path), note)
        }
    }
}

/// A launch's profile with the lines of `own` (the kernel's file) that
/// carry counters, `note` when there are none, and the totals of every
/// other file block.
pub fn profile_of_blocks(
    launch: &RawLaunch,
    files: &[SourceFile],
    own: Option<&SourceFile>,
    note: String,
) -> Profile {
    let lines = own
        .map(|block| with_counters(&block.lines))
        .unwrap_or_default();
    let note = lines.is_empty().then_some(note);
    let other_files = files
        .iter()
        .filter(|f| !own.is_some_and(|own| std::ptr::eq(own, *f)))
        .map(|f| OtherFile::of(&f.path, &with_counters(&f.lines)))
        .filter(|f| f.lines > 0)
        .collect();
    Profile {
        other_files,
        ..profile_with(launch, lines, note)
    }
}

/// A launch's profile: its fixed metric set with the given source lines,
/// or why there are none.
pub fn profile_with(
    launch: &RawLaunch,
    source_lines: Vec<SourceLine>,
    source_note: Option<String>,
) -> Profile {
    Profile {
        ncu_id: launch.id,
        kernel_name: launch.kernel_name.clone(),
        metrics: fixed_metrics(launch),
        source_lines,
        source_note,
        other_files: Vec::new(),
        lines_at: None,
        breakdown: launch
            .values
            .keys()
            .filter(|column| metrics::is_breakdown_part(column))
            .filter_map(|column| Some((column.to_string(), launch.number(column)?)))
            .collect(),
    }
}

/// The block for `source_path`, matched by full path, else by file name.
fn own_block<'a>(files: &'a [SourceFile], source_path: &Path) -> Option<&'a SourceFile> {
    let wanted = source_path.to_string_lossy();
    let file_name = source_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    files.iter().find(|f| f.path == wanted).or_else(|| {
        files.iter().find(|f| {
            Path::new(&f.path)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                == file_name
        })
    })
}

/// The lines with at least one non-zero counter.
fn with_counters(lines: &[SourceLine]) -> Vec<SourceLine> {
    let carries_counters = |line: &SourceLine| {
        [
            line.warp_stall_samples,
            line.shared_wavefronts,
            line.global_sectors,
            line.instructions_executed,
        ]
        .iter()
        .any(|v| v.is_some_and(|v| v > 0.0))
    };
    lines
        .iter()
        .filter(|l| carries_counters(l))
        .cloned()
        .collect()
}

/// A kernel's name as ncu demangles it, less its return type and its
/// parameter list: ncu's `void reduce<(int)256, true>(const float *, int)`
/// is `reduce<(int)256, true>`; the parameters start at the first `(`
/// outside the template's angle brackets.
pub fn kernel_without_parameters(name: &str) -> &str {
    let name = name.trim();
    let name = name.strip_prefix("void ").unwrap_or(name);
    let mut depth = 0usize;
    for (at, c) in name.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            '(' if depth == 0 => return name[..at].trim_end(),
            _ => {}
        }
    }
    name
}

/// A kernel's bare name, however it is written: ncu's `void
/// ns::reduce<256u, true>(const float *, float *, int)` and an entry
/// `ns::reduce<256, true>` are both `reduce`. An anonymous namespace is a
/// namespace like any other, as ncu writes it (`<unnamed>::copy(float
/// *)`) or as c++filt does (`(anonymous namespace)::copy`).
fn base_name(name: &str) -> String {
    let named = name
        .replace("<unnamed>::", "")
        .replace("(anonymous namespace)::", "");
    let without_parameters = named.split('(').next().unwrap_or("");
    let without_arguments = without_parameters.split('<').next().unwrap_or("");
    let last_word = without_arguments.split_whitespace().last().unwrap_or("");
    last_word.rsplit("::").next().unwrap_or("").to_string()
}

/// Checks that ncu profiled the launches the harness reported, in order:
/// `expected[i]` is the kernel the harness launched `i`-th.
pub fn check_order(launches: &[RawLaunch], expected: &[String]) -> Result<(), String> {
    if launches.len() != expected.len() {
        return Err(format!(
            "ncu profiled {} launches but the harness made {} profiled launches; the report cannot be matched to variants",
            launches.len(),
            expected.len()
        ));
    }
    for (index, (launch, kernel)) in launches.iter().zip(expected).enumerate() {
        if base_name(&launch.kernel_name) != base_name(kernel) {
            return Err(format!(
                "ncu's result {index} is kernel `{}` but the harness launched `{kernel}` there",
                launch.kernel_name
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernels_name_loses_its_return_type_and_parameters_but_keeps_its_template_arguments() {
        for (ncu, shown) in [
            (
                "bitonicMergeGlobal(unsigned int *, unsigned int)",
                "bitonicMergeGlobal",
            ),
            (
                "void reduce<(int)256, true>(const float *, int)",
                "reduce<(int)256, true>",
            ),
            ("void ns::scan<float, 128>(float *)", "ns::scan<float, 128>"),
            ("copy", "copy"),
        ] {
            assert_eq!(kernel_without_parameters(ncu), shown);
        }
    }
    use crate::ncu::raw::parse_raw_page;
    use crate::ncu::source::parse_source_page;

    #[test]
    fn kernels_are_matched_by_their_bare_name_however_ncu_and_the_suite_write_them() {
        for (ncu, entry) in [
            ("copy_reference", "copy_reference"),
            (
                "transpose_naive(const float *, float *, int, int)",
                "transpose_naive",
            ),
            (
                "void reduce6<256u, true>(const float *, float *, unsigned int)",
                "reduce6<256, true>",
            ),
            (
                "void ns::reduce<(int)256, (bool)1>(const float *, float *, int)",
                "ns::reduce<256, true>",
            ),
            // Kernels in an anonymous namespace (the H100 run of a study
            // collection: every launch was refused as another kernel).
            (
                "<unnamed>::transpose_conflict_kernel(const float *, float *, int, int)",
                "transpose_conflict_kernel",
            ),
            (
                "void ns::<unnamed>::scale<float>(float *, int)",
                "scale<float>",
            ),
            ("(anonymous namespace)::copy(float *)", "copy"),
        ] {
            assert_eq!(base_name(ncu), base_name(entry), "{ncu} / {entry}");
        }
        assert_ne!(
            base_name("void reduce5<256u>(float *)"),
            base_name("reduce6<256>")
        );
    }

    const RAW: &str = include_str!("../../tests/fixtures/h200-probe/raw.csv");
    const TILED_SOURCE: &str =
        include_str!("../../tests/fixtures/h200-probe/source-sass-cuda-tiled.csv");

    #[test]
    fn a_profile_keeps_the_metric_set_and_the_lines_with_counters() {
        let launches = parse_raw_page(RAW).unwrap();
        let source = parse_source_page(TILED_SOURCE).map_err(|e| e.to_string());
        let profile = profile_from_launch(
            &launches[2],
            source,
            Path::new("/work/main/kernels/transpose/tiled.cu"),
        );
        assert_eq!(profile.ncu_id, 2);
        assert_eq!(profile.kernel_name, "transpose_tiled");
        assert_eq!(profile.metrics.len(), metrics::METRICS.len() + 1);
        assert_eq!(profile.metric(metrics::REPLAY_PASSES), Some(15.0));
        assert_eq!(
            profile.metric(metrics::SHARED_LOAD_INSTRUCTIONS),
            Some(131072.0)
        );
        let lines: Vec<u32> = profile.source_lines.iter().map(|l| l.line).collect();
        assert_eq!(lines, [7, 10, 11, 13, 14, 17, 18, 19, 21, 22, 25]);
        assert_eq!(profile.source_note, None);
    }

    #[test]
    fn another_file_s_lines_are_kept_as_its_totals_not_mixed_into_the_kernel_s() {
        let launches = parse_raw_page(RAW).unwrap();
        let mut files = parse_source_page(TILED_SOURCE).unwrap();
        // A header block, as ncu prints one for an inlined barrier: its
        // line 22 must not be taken for the kernel's line 22.
        let header = SourceFile {
            path: "/usr/local/cuda/include/cuda/barrier".into(),
            function: "transpose_tiled".into(),
            lines: vec![
                SourceLine {
                    line: 22,
                    warp_stall_samples: Some(300.0),
                    instructions_executed: Some(40.0),
                    ..SourceLine::default()
                },
                SourceLine {
                    line: 90,
                    ..SourceLine::default()
                },
            ],
        };
        files.push(header);
        let profile = profile_from_launch(
            &launches[2],
            Ok(files),
            Path::new("/work/main/kernels/transpose/tiled.cu"),
        );
        let kernel_22 = profile.source_lines.iter().find(|l| l.line == 22).unwrap();
        assert!(kernel_22.text.contains("tile"), "{}", kernel_22.text);
        assert_eq!(profile.other_files.len(), 1);
        let header = &profile.other_files[0];
        assert_eq!(header.path, "/usr/local/cuda/include/cuda/barrier");
        assert_eq!(header.lines, 1, "the line without counters is left out");
        assert_eq!(header.warp_stall_samples, 300.0);
        let own: f64 = profile
            .source_lines
            .iter()
            .filter_map(|l| l.warp_stall_samples)
            .sum();
        assert_eq!(profile.stall_samples(), own + 300.0);
    }

    #[test]
    fn a_source_file_elsewhere_is_found_by_name_and_a_missing_one_is_explained() {
        let launches = parse_raw_page(RAW).unwrap();
        let moved = profile_from_launch(
            &launches[2],
            parse_source_page(TILED_SOURCE).map_err(|e| e.to_string()),
            Path::new("/home/student/hw3/tiled.cu"),
        );
        assert_eq!(moved.source_lines.len(), 11);
        let other = profile_from_launch(
            &launches[2],
            parse_source_page(TILED_SOURCE).map_err(|e| e.to_string()),
            Path::new("/x/naive.cu"),
        );
        assert!(other.source_lines.is_empty());
        assert!(other.source_note.unwrap().contains("-lineinfo"));
        let failed = profile_from_launch(
            &launches[2],
            Err("export failed".into()),
            Path::new("/x/tiled.cu"),
        );
        assert_eq!(failed.source_note.as_deref(), Some("export failed"));
    }

    #[test]
    fn order_and_names_must_match_the_harness() {
        let launches = parse_raw_page(RAW).unwrap();
        let expected: Vec<String> = [
            "copy_reference",
            "transpose_naive",
            "transpose_tiled",
            "transpose_padded",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(check_order(&launches, &expected), Ok(()));
        let swapped: Vec<String> = expected.iter().rev().cloned().collect();
        assert!(
            check_order(&launches, &swapped)
                .unwrap_err()
                .contains("result 0 is kernel `copy_reference`")
        );
        assert!(
            check_order(&launches, &expected[..3])
                .unwrap_err()
                .contains("4 launches")
        );
    }

    #[test]
    fn the_breakdown_names_the_busiest_unit_of_each_launch() {
        let raw = include_str!("../../tests/fixtures/h200-breakdown/raw.csv");
        let launches = crate::ncu::raw::parse_raw_page(raw).unwrap();
        let tiled = profile_with(&launches[2], Vec::new(), None);
        assert_eq!(launches[2].kernel_name, "transpose_tiled");
        assert_eq!(tiled.breakdown.len(), 51);
        let (metric, percent) = tiled.busiest_part().unwrap();
        assert_eq!(
            metric,
            "l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed"
        );
        assert!((percent - 79.4).abs() < 0.05, "{percent}");
        assert_eq!(
            metrics::breakdown_part_label(metric),
            "L1/shared: data pipe LSU wavefronts"
        );
        // The naive transpose's busiest unit is L2's input from the
        // crossbar, which neither DRAM nor L1 throughput shows.
        let naive = profile_with(&launches[1], Vec::new(), None);
        let (metric, _) = naive.busiest_part().unwrap();
        assert_eq!(
            metrics::breakdown_part_label(metric),
            "L2: crossbar-to-L2 cycles active"
        );
    }
}
