//! The analysis on the suites recorded on the H200 (examples/*/results.json):
//! what the report concludes from real runs, checked against what the
//! kernels were written to show, and the whole view of each report
//! (`gpuprof render --dump-view`) against its insta snapshot.

use std::path::Path;

use gpuprof::analysis::{Analysis, RunAnalysis, Verdict, analyze};
use gpuprof::model::{Results, read_results};

fn recorded(suite: &str) -> (Results, Analysis) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(suite)
        .join("results.json");
    let results = read_results(&std::fs::read_to_string(path).unwrap()).unwrap();
    let analysis = analyze(&results);
    (results, analysis)
}

fn run<'a>(analysis: &'a Analysis, variant: &str, size: &str) -> &'a RunAnalysis {
    let variant = analysis
        .variants
        .iter()
        .find(|v| v.name == variant)
        .unwrap();
    variant.runs.iter().find(|r| r.size == size).unwrap()
}

#[test]
fn transpose_follows_the_conflict_from_line_22_to_its_fix() {
    let (_, analysis) = recorded("transpose");
    let padded = run(&analysis, "padded", "N=8192");
    assert_eq!(
        padded.line_diffs[0].text,
        "`tiled` line 22 (`out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];`): its 32-way shared-load conflict is gone (now line 21)."
    );
    let tiled = run(&analysis, "tiled", "N=8192");
    assert!(
        tiled.line_diffs[0].text.contains("`naive` line 12"),
        "{:?}",
        tiled.line_diffs
    );
    assert!(
        tiled.line_diffs[0]
            .text
            .contains("excess global store sectors (8.00× the ideal) is gone")
    );
    // `padded` outruns the copy ceiling (117%), which itself reaches only
    // 64% of the device's DRAM peak: the ceiling bounds nothing, and the
    // report says so instead of calling the kernel done.
    let limit = padded.limit.as_ref().unwrap();
    assert_eq!(limit.bottleneck, "DRAM throughput or latency (between)");
    assert!(
        limit.evidence.ends_with(
            "this run reaches 117% of `copy`'s bandwidth, so `copy` is not a bound for it"
        ),
        "{}",
        limit.evidence
    );
}

#[test]
fn gemm_templates_epilogue_is_a_smaller_cost_not_the_limit() {
    let (_, analysis) = recorded("gemm-templates");
    for step in [
        "thread-tiling-2d",
        "transposed-a",
        "warp-tiling",
        "vectorized",
    ] {
        let limit = run(&analysis, step, "N=2048").limit.as_ref().unwrap();
        assert_ne!(limit.bottleneck, "uncoalesced global access", "{step}");
    }
    let limit = run(&analysis, "thread-tiling-2d", "N=2048")
        .limit
        .as_ref()
        .unwrap();
    assert!(
        limit.evidence.contains(
            "uncoalesced global loads: 4.85 sectors per request (8.00× the ideal on line 136) is a smaller cost: its lines carry 11.9% of the stall samples"
        ),
        "{}",
        limit.evidence
    );
    // The L1 traffic of the coalesced step is global loads: no shared
    // memory is used, so the advice is to stage tiles, not register blocking.
    let coalesced = run(&analysis, "coalesced", "N=2048")
        .limit
        .as_ref()
        .unwrap();
    assert_eq!(
        coalesced.next,
        Some(gpuprof::model::Change::SharedMemoryTiling)
    );
}

#[test]
fn a_grid_smaller_than_the_gpu_is_not_told_to_add_work_per_thread() {
    let (_, analysis) = recorded("matmul");
    let limit = run(&analysis, "regblock8x8", "N=1024")
        .limit
        .as_ref()
        .unwrap();
    assert_eq!(limit.next, Some(gpuprof::model::Change::ParameterTuning));
    assert!(
        limit.advice.contains("fills only 24.0% of a wave"),
        "{}",
        limit.advice
    );
}

#[test]
fn every_step_of_transpose_is_confirmed_and_faster_beyond_noise() {
    let (_, analysis) = recorded("transpose");
    for name in ["tiled", "padded"] {
        let variant = analysis.variants.iter().find(|v| v.name == name).unwrap();
        assert_eq!(variant.changes[0].verdict, Verdict::Confirmed, "{name}");
        let speedup = run(&analysis, name, "N=8192").vs_previous.unwrap();
        assert_eq!(
            speedup.verdict,
            gpuprof::analysis::stats::TimeVerdict::Faster,
            "{name}"
        );
    }
}

#[test]
fn the_reduction_ladder_ends_at_the_memory_limit() {
    let (_, analysis) = recorded("reduction");
    let best = run(&analysis, "vectorized", "N=67108864");
    let limit = best.limit.as_ref().unwrap();
    assert_eq!(limit.bottleneck, "DRAM bandwidth");
    assert_eq!(limit.next, None);
    let copy_share = best
        .ceilings
        .iter()
        .find(|c| c.ceiling == "copy")
        .unwrap()
        .share;
    assert!(copy_share >= 0.85, "the target: {copy_share}");
    // The step before the grid-stride loop waits on memory (long
    // scoreboard). `first_add` already applied work-per-thread, so the
    // advice is the one change for more bytes in flight not yet applied.
    let shuffle = run(&analysis, "warp_shuffle", "N=67108864");
    let limit = shuffle.limit.as_ref().unwrap();
    assert!(limit.bottleneck.contains("latency"), "{}", limit.bottleneck);
    assert_eq!(limit.next, Some(gpuprof::model::Change::VectorizedAccess));
    // The bank-conflicted strided tree is told to re-index, not to pad.
    let strided = run(&analysis, "interleaved_strided", "N=67108864");
    assert_eq!(
        strided.limit.as_ref().unwrap().next,
        Some(gpuprof::model::Change::SequentialAddressing)
    );
}

#[test]
fn matmul_reaches_half_of_cublas_and_cublas_is_verified() {
    let (results, analysis) = recorded("matmul");
    let best = run(&analysis, "double_buffered", "N=4096");
    let share = best
        .ceilings
        .iter()
        .find(|c| c.ceiling == "cublas")
        .unwrap();
    assert_eq!(share.measure, "FLOP/s");
    assert!(share.share >= 0.5, "{}", share.share);
    let cublas = results.variant("cublas").unwrap();
    assert!(cublas.runs.iter().all(|r| matches!(
        r.check,
        Some(gpuprof::model::measurement::Check::Passed { .. })
    )));
    assert!(
        cublas.runs.iter().all(|r| r.profile.is_none()),
        "library calls are not profiled"
    );
}

#[test]
fn the_access_ladder_sees_each_stride_and_the_misalignment() {
    let (_, analysis) = recorded("access");
    let titles = |name: &str| {
        run(&analysis, name, "N=67108864")
            .findings
            .iter()
            .map(|f| f.title.clone())
            .collect::<Vec<_>>()
    };
    assert!(
        titles("stride32")
            .iter()
            .any(|t| t.starts_with("uncoalesced global loads: 32.0 sectors per request"))
    );
    assert!(
        titles("stride2")
            .iter()
            .any(|t| t.starts_with("uncoalesced global loads: 8.00 sectors per request"))
    );
    assert!(
        titles("misaligned")
            .iter()
            .any(|t| t.starts_with("uncoalesced global loads: 5.00 sectors per request"))
    );
    assert!(
        !titles("stride1")
            .iter()
            .any(|t| t.starts_with("uncoalesced"))
    );
    let readonly = analysis
        .variants
        .iter()
        .find(|v| v.name == "readonly")
        .unwrap();
    assert_eq!(
        readonly.changes[0].verdict,
        Verdict::NotSeen,
        "a copy re-reads nothing"
    );
}

/// What the chain says explains a step at the suite's focus size.
fn explanation(analysis: &Analysis, variant: &str) -> String {
    let size = analysis.focus_size.as_deref().unwrap();
    run(analysis, variant, size)
        .explanation
        .clone()
        .unwrap()
        .text
}

#[test]
fn matmul_tiling_is_explained_by_fewer_global_loads_and_register_blocking_by_shared_loads() {
    let (_, analysis) = recorded("matmul");
    // L2 already held the matrices: DRAM bytes fell 8.6%, the global load
    // requests sixteen-fold.
    assert_eq!(
        explanation(&analysis, "tiled16"),
        "global load requests: 4,294,967,296 → 268,435,456 (16.0× fewer; not a declared expectation)"
    );
    let tiled16 = analysis
        .variants
        .iter()
        .find(|v| v.name == "tiled16")
        .unwrap();
    let dram = tiled16.changes[0]
        .expectations
        .iter()
        .find(|e| e.metric == gpuprof::analysis::derived::Key::DramBytes)
        .unwrap();
    assert_eq!(dram.verdict, Verdict::Small, "−8.6% is small, not unseen");
    // More registers are the price of register blocking, not its cause.
    assert_eq!(
        explanation(&analysis, "regblock8x8"),
        "shared loads per FMA (warp): 0.625 → 0.156 (confirmed)"
    );
}

#[test]
fn gemm_block_tiling_is_explained_by_its_global_loads_and_a_slowdown_is_never_confirmed() {
    let (_, analysis) = recorded("gemm-templates");
    assert_eq!(
        explanation(&analysis, "block-tiling"),
        "global load requests: 537,001,984 → 16,908,288 (31.8× fewer; not a declared expectation)"
    );
    assert_eq!(
        explanation(&analysis, "transposed-a"),
        "shared store wavefronts / instruction: 1.14 → 8.74 (contradicted)"
    );
}

#[test]
fn no_recorded_step_is_explained_by_a_confirmation_unless_it_got_faster() {
    use gpuprof::analysis::stats::TimeVerdict;
    for suite in recorded_suites() {
        let (_, analysis) = recorded(&suite);
        let size = analysis.focus_size.clone().unwrap();
        for step in analysis.steps.iter().skip(1) {
            let run = run(&analysis, step, &size);
            let text = run.explanation.clone().unwrap().text;
            let faster = run
                .vs_previous
                .is_some_and(|s| s.verdict == TimeVerdict::Faster);
            assert!(
                faster || !text.contains("(confirmed)"),
                "{suite} {step}: {text}"
            );
            for cost in ["registers / thread", "shared memory / block"] {
                assert!(!text.starts_with(cost), "{suite} {step}: {text}");
            }
        }
    }
}

#[test]
fn a_tree_reduction_s_conflicts_are_an_average_and_one_slow_launch_is_not_noise() {
    let (_, analysis) = recorded("reduction");
    let strided = run(&analysis, "interleaved_strided", "N=67108864");
    let conflict = strided
        .findings
        .iter()
        .find(|f| f.title.starts_with("shared-memory bank conflicts"))
        .unwrap();
    assert_eq!(
        conflict.title,
        "shared-memory bank conflicts on loads (on average 3.92× the ideal wavefronts)"
    );
    // The first timed launch of `padded` at N=2048 took 13.0 µs, the others
    // 8.2–9.4 µs: the standard deviation over the mean is 9.6%, the robust
    // spread about half of it.
    let (_, transpose) = recorded("transpose");
    let padded = run(&transpose, "padded", "N=2048").timing.unwrap();
    assert!(padded.relative_noise < 0.06, "{}", padded.relative_noise);
}

/// The folders of examples/ that hold a recorded results.json, sorted.
fn recorded_suites() -> Vec<String> {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut suites: Vec<String> = std::fs::read_dir(examples)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|folder| folder.join("results.json").is_file())
        .map(|folder| folder.file_name().unwrap().to_str().unwrap().to_string())
        .collect();
    suites.sort();
    suites
}

/// Every string each recorded report shows, as `gpuprof render --dump-view`
/// prints it, against its snapshot in tests/snapshots/: a change to a
/// finding, a number's format or a chart shows as a diff to review (`cargo
/// insta review`, or `INSTA_UPDATE=always cargo test` and `git diff`).
#[test]
fn the_view_of_each_recorded_example_matches_its_snapshot() {
    let root = env!("CARGO_MANIFEST_DIR");
    let suites = recorded_suites();
    assert!(suites.len() >= 6, "only {suites:?} recorded");
    for suite in &suites {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_gpuprof"))
            .current_dir(root)
            .env("NO_COLOR", "1")
            .args(["render", &format!("examples/{suite}/results.json")])
            .arg("--dump-view")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{suite}: {stderr}");
        let view = String::from_utf8(output.stdout).unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&view).unwrap();
        assert_eq!(parsed["header"]["suite"].as_str(), Some(suite.as_str()));
        // The view is built from results.json alone: the paths in it are
        // those recorded on the machine that ran the suite, never this
        // checkout's, so nothing is redacted.
        insta::with_settings!({
            prepend_module_to_snapshot => false,
            input_file => format!("examples/{suite}/results.json"),
        }, {
            insta::assert_snapshot!(format!("dump-view-{suite}"), view);
        });
    }
}

/// `gpuprof audit` over every recorded example: each claim its report makes
/// is supported by the counters in its results.json (exit 0, nothing
/// listed as unsupported), and the audit checked a claim for every
/// variant at least.
#[test]
fn every_claim_of_each_recorded_example_passes_the_audit() {
    let root = env!("CARGO_MANIFEST_DIR");
    for suite in recorded_suites() {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_gpuprof"))
            .current_dir(root)
            .args(["audit", "--json", &format!("examples/{suite}/results.json")])
            .output()
            .unwrap();
        let audit: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert!(
            output.status.success(),
            "{suite}: {:#}",
            audit["unsupported"]
        );
        let (results, _) = recorded(&suite);
        let checked = audit["checked"].as_u64().unwrap() as usize;
        assert!(
            checked >= results.variants.len(),
            "{suite}: {checked} claims"
        );
    }
}

fn change<'a>(analysis: &'a Analysis, variant: &str) -> &'a gpuprof::analysis::ChangeAnalysis {
    &analysis
        .variants
        .iter()
        .find(|v| v.name == variant)
        .unwrap()
        .changes[0]
}

/// A public ladder nobody here wrote: the divergence removal is carried by
/// the line that held the modulo, the unrolled loop by the `for` line that
/// went, and the shuffles' header (sm_30_intrinsics.hpp) is kept as a
/// file of its own, not mixed into the kernel's line numbers.
#[test]
fn the_public_reduction_ladder_points_at_the_lines_that_carry_each_change() {
    let (results, analysis) = recorded("reduce-liu-xiandong");
    let divergence = change(&analysis, "v1_no_divergence_branch");
    assert_eq!(divergence.verdict, Verdict::Confirmed);
    assert!(
        divergence.measured.contains(
            "is on `v0_baseline` line 21 (`if (tid % (2*s) == 0) {`), gone from this step"
        ),
        "{}",
        divergence.measured
    );
    let unrolled = change(&analysis, "v5_completely_unroll");
    assert!(
        unrolled
            .measured
            .contains("(`for (unsigned int s=blockDim.x/2; s>32; s>>=1) {`), gone from this step"),
        "{}",
        unrolled.measured
    );
    let shuffle = results.variant("v7_shuffle").unwrap().runs[0]
        .profile
        .as_ref()
        .unwrap();
    assert_eq!(shuffle.other_files.len(), 1);
    assert!(
        shuffle.other_files[0]
            .path
            .ends_with("sm_30_intrinsics.hpp")
    );
    // The strided step's conflict is on a 1-D array: re-index, never pad.
    let strided = run(&analysis, "v1_no_divergence_branch", "N=33554432");
    let limit = strided.limit.as_ref().unwrap();
    assert_eq!(limit.bottleneck, "shared-memory bank conflicts");
    assert!(
        limit.advice.contains("sequential-addressing"),
        "{}",
        limit.advice
    );
    let conflict = &strided.findings[0];
    assert!(!conflict.detail.contains("[32][33]"), "{}", conflict.detail);
}

/// Grids under 0.9 of a wave and a working set that fits in L2 qualify a
/// whole size, once, with the variants concerned.
#[test]
fn matmul_caveats_name_the_small_grids_and_the_l2_resident_size() {
    let (results, analysis) = recorded("matmul");
    let view = gpuprof::render::view(&results, &analysis);
    let small = &view.sizes[0];
    assert_eq!(small.label, "N=1024");
    assert_eq!(
        small.caveats,
        [
            "The working set fits in L2 (every variant)",
            "The grid fills 24.0% of one wave (`regblock8x8`, `vectorized`, `padded`, `double_buffered`)",
        ]
    );
    assert!(view.sizes.last().unwrap().caveats.is_empty());
}

/// The element-types suite recorded on the H200
/// (tests/fixtures/h200-element-types): a byte histogram whose shared
/// atomics collide on its bins.
#[test]
fn colliding_shared_atomics_are_named_as_such_and_weigh_no_more_than_the_kernel() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/h200-element-types/results.json");
    let results = read_results(&std::fs::read_to_string(path).unwrap()).unwrap();
    let analysis = analyze(&results);
    let shared = run(&analysis, "histogram-shared", "N=1048576");
    let finding = shared
        .findings
        .iter()
        .find(|f| f.title.starts_with("colliding shared-memory atomics"))
        .unwrap_or_else(|| panic!("{:#?}", shared.findings));
    assert_eq!(
        finding.title,
        "colliding shared-memory atomics (on average 3.15× the ideal wavefronts)"
    );
    assert!(finding.detail.contains("line 33"), "{}", finding.detail);
    assert!(
        finding.detail.contains("__match_any_sync"),
        "{}",
        finding.detail
    );
    assert!(
        !finding
            .detail
            .contains("several of its threads hit the same bank")
    );
    let limit = shared.limit.as_ref().unwrap();
    // The line's excess is a share of the kernel's wavefronts, which
    // include the atomics the load and store counters leave out.
    assert!(
        limit
            .evidence
            .contains("its lines carry 58.9% of the kernel's shared wavefronts as excess"),
        "{}",
        limit.evidence
    );
    assert_eq!(limit.next, Some(gpuprof::model::Change::WarpShuffle));
    assert!(
        limit.advice.contains("__match_any_sync"),
        "{}",
        limit.advice
    );
    // The global-atomic histogram before it: scattered atomics (ncu lists
    // the reduction by the line's load), to be privatized, not "coalesced".
    let global = run(&analysis, "histogram-global", "N=1048576");
    let finding = &global.findings[0];
    assert_eq!(
        finding.title,
        "scattered global atomics: 4.28× the ideal sectors on line 17"
    );
    assert!(
        finding
            .detail
            .contains("accumulate into a copy of the counters per block in shared memory"),
        "{}",
        finding.detail
    );
    assert!(
        !finding.detail.contains("consecutive addresses"),
        "{}",
        finding.detail
    );
    let limit = global.limit.as_ref().unwrap();
    assert_eq!(limit.next, Some(gpuprof::model::Change::Privatization));
}

/// The bitonic-sort suite recorded on the H200
/// (tests/fixtures/h200-bitonic-sort): sequences of 121 and 22 launches
/// unrolled from loops.
#[test]
fn a_sequence_of_many_launches_is_read_as_a_whole_line_by_line_and_in_its_counts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let fixture = root.join("tests/fixtures/h200-bitonic-sort/results.json");
    let results = read_results(&std::fs::read_to_string(&fixture).unwrap()).unwrap();
    let launches = |variant: &str| results.variant(variant).unwrap().runs[0].steps.len();
    assert_eq!((launches("bitonic"), launches("bitonic-shared")), (121, 22));
    let analysis = analyze(&results);
    // rank's scattered store (line 20) is in a kernel the bitonic sort never
    // launches, and its lines are all 121 launches' summed: the store is
    // gone.
    let bitonic = run(&analysis, "bitonic", "N=32768");
    let texts: Vec<&str> = bitonic.line_diffs.iter().map(|d| d.text.as_str()).collect();
    assert!(
        texts.contains(&"`rank` line 20 (`out[rank] = x;`): its excess global store sectors (7.97× the ideal) is gone; that code is no longer a problem line."),
        "{texts:#?}"
    );
    // The hot lines of the shared-memory sort are its sequence's: the
    // global stage's compare (line 42) and the barrier of the stages in
    // shared memory (line 67), from two kernels of its 22 launches.
    let shared = run(&analysis, "bitonic-shared", "N=32768");
    let hot: Vec<u32> = shared.hot_lines.iter().map(|l| l.line).collect();
    assert!(hot.contains(&42) && hot.contains(&67), "{hot:?}");
    // Counts are the sequence's totals: rank's 33.5 million load requests
    // against all 121 launches' requests, not one launch's.
    let explained = explanation(&analysis, "bitonic");
    assert!(explained.contains("33,555,456 → 190,464"), "{explained}");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_gpuprof"))
        .current_dir(root)
        .env("NO_COLOR", "1")
        .args(["render", fixture.to_str().unwrap(), "--dump-view"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let view: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let steps = |variant: &str| {
        view["variants"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == variant)
            .map(|v| v["runs"][0]["steps"].as_array().unwrap().clone())
            .unwrap()
    };
    let rows = steps("bitonic");
    assert_eq!(rows.len(), 2, "{rows:#?}");
    assert_eq!(rows[1]["number"], "2–121");
    assert_eq!(rows[1]["times"], "×120");
    assert_eq!(steps("bitonic-shared").len(), 12);
    every_claim_is_supported(&fixture);
}

/// NVIDIA's sortingNetworks sample recorded on an H100
/// (tests/fixtures/h100-cs-sorting-networks), while gpuprof still stored a
/// sequence's longest single launch as its profile.
#[test]
fn a_sequence_is_explained_by_the_kernel_that_takes_its_time_and_read_over_all_its_lines() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/h100-cs-sorting-networks/results.json");
    let results = read_results(&std::fs::read_to_string(&fixture).unwrap()).unwrap();
    // Odd-even merge sort: one chunk sort of 11.6 µs, then 81 global
    // merges of about 3 µs; a merge is explained.
    let odd_even = results.variant("odd-even-merge").unwrap();
    let merges = odd_even.run("N=65536").unwrap();
    let explained = merges.explained_step().unwrap();
    assert_eq!(merges.steps.len(), 82);
    assert!(
        merges.steps[explained]
            .kernel_name
            .starts_with("oddEvenMergeGlobal("),
        "{}",
        merges.steps[explained].kernel_name
    );
    let longest_single = merges
        .steps
        .iter()
        .max_by(|a, b| {
            let time = |p: &gpuprof::model::results::Profile| p.metric("gpu__time_duration.sum");
            time(a).partial_cmp(&time(b)).unwrap()
        })
        .unwrap();
    assert!(
        longest_single
            .kernel_name
            .starts_with("oddEvenMergeSortShared(")
    );

    // Both sorts' shared-memory accesses are at ncu's ideal on the source
    // page of every launch that makes them; with the lines summed over the
    // sequence, no bank conflict is claimed.
    let analysis = analyze(&results);
    for variant in ["bitonic", "odd-even-merge"] {
        let titles: Vec<&str> = run(&analysis, variant, "N=65536")
            .findings
            .iter()
            .map(|f| f.title.as_str())
            .collect();
        assert!(
            titles
                .iter()
                .any(|t| t.starts_with("shared accesses are conflict-free")),
            "{variant}: {titles:#?}"
        );
        assert!(
            !titles.iter().any(|t| t.contains("bank conflicts")),
            "{variant}: {titles:#?}"
        );
    }
    every_claim_is_supported(&fixture);
}

/// llm.c's LayerNorm recorded on an H100 (tests/fixtures/h100-llmc-layernorm):
/// kernel 6 stores through common.h's 16-byte store128cs, so its own file
/// holds none of its stores.
#[test]
fn stores_made_in_a_header_are_judged_against_the_ideal_for_their_width() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/h100-llmc-layernorm/results.json");
    let results = read_results(&std::fs::read_to_string(&fixture).unwrap()).unwrap();
    let analysis = analyze(&results);
    let tiled = analysis
        .variants
        .iter()
        .find(|v| v.name == "kernel6")
        .unwrap();
    let tiling = &tiled.changes[0];
    // Raw sectors per request rose from kernel 5's 4-byte stores (3.77) to
    // 16-byte ones (12.3); against their ideals both are at 1.
    assert!(
        tiling.measured.starts_with(
            "Global store sectors over ideal (source) was already at its ideal before this step: 1.00 → 1.00"
        ),
        "{}",
        tiling.measured
    );
    assert!(
        !tiling.measured.contains("wrong way"),
        "{}",
        tiling.measured
    );
    assert_eq!(tiling.verdict, Verdict::Confirmed);
    // Kernel 2's three launches take about a third of its time each: its
    // limiter says which one it was chosen on, and that kernel's share.
    let sequence = run(&analysis, "kernel2", "N=8192");
    assert_eq!(
        sequence.limit.as_ref().and_then(|l| l.scope.as_deref()),
        Some("normalization_kernel, 33.9% of the sequence's time")
    );
    every_claim_is_supported(&fixture);
}

/// That `gpuprof audit` finds every claim of the recorded run `fixture`
/// supported by its counters.
fn every_claim_is_supported(fixture: &Path) {
    let audit = std::process::Command::new(env!("CARGO_BIN_EXE_gpuprof"))
        .args(["audit", "--json", fixture.to_str().unwrap()])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&audit.stdout).unwrap();
    assert!(audit.status.success(), "{:#}", report["unsupported"]);
}
