//! Unit tests of the limiter and its advice on hand-built evidence: one per
//! branch (a material or a light access finding, a saturated unit beating
//! it, issue named from the stall mix, "between" in a band, latency with a
//! small grid or low occupancy, a ceiling that is a speed of light, one
//! that is not, one this run outpaces, and advice that skips what the
//! ladder applied).

use std::collections::BTreeMap;

use super::*;
use crate::analysis::CeilingShare;
use crate::analysis::derived::Derived;
use crate::analysis::evidence::Ceiling;
use crate::analysis::findings::Finding;
use crate::model::metrics as m;
use crate::model::results::Profile;
use crate::model::source::SourceLine;

fn derived(values: &[(Key, f64)]) -> Derived {
    Derived {
        values: values.iter().copied().collect(),
        ..Derived::default()
    }
}

/// A source line with global sectors (actual, ideal), samples and stalls.
fn line(number: u32, text: &str, sectors: (f64, f64), samples: f64, stall: &str) -> SourceLine {
    SourceLine {
        line: number,
        text: text.into(),
        warp_stall_samples: Some(samples),
        global_sectors: Some(sectors.0),
        global_sectors_ideal: Some(sectors.1),
        stalls: BTreeMap::from([(stall.to_string(), samples)]),
        ..SourceLine::default()
    }
}

fn profile(metrics: &[(&str, f64)], lines: Vec<SourceLine>) -> Profile {
    Profile {
        ncu_id: 0,
        kernel_name: "k".into(),
        metrics: metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        source_lines: lines,
        source_note: None,
        other_files: Vec::new(),
        lines_at: None,
        breakdown: Default::default(),
    }
}

fn finding(kind: FindingKind, severity: Severity, title: &str, lines: Vec<u32>) -> Finding {
    Finding {
        kind,
        severity,
        title: title.into(),
        detail: String::new(),
        lines,
    }
}

fn evidence<'a>(
    derived: &'a Derived,
    findings: &'a [Finding],
    profile: Option<&'a Profile>,
    ceilings: Vec<Ceiling>,
    applied: Vec<Change>,
) -> Evidence<'a> {
    Evidence {
        derived,
        findings,
        lines_profile: profile,
        profile,
        ceilings,
        applied,
    }
}

fn copy(share: f64, of_device_peak: f64) -> Ceiling {
    Ceiling {
        share: CeilingShare {
            ceiling: "copy".into(),
            measure: "bandwidth",
            share,
        },
        of_device_peak: Some(of_device_peak),
    }
}

/// An epilogue line at 8× the ideal sectors, with `samples` of 100 stall
/// samples, in a kernel whose other line is issue-side work.
fn epilogue(samples: f64, units: &[(Key, f64)]) -> (Derived, Vec<Finding>, Profile) {
    let mut values = vec![(Key::MemoryThroughput, 55.0), (Key::SmThroughput, 50.0)];
    values.extend_from_slice(units);
    let lines = vec![
        line(
            136,
            "beta * C[i]",
            (4_194_304.0, 524_288.0),
            samples,
            "long_sb",
        ),
        line(105, "acc += a * b", (0.0, 0.0), 100.0 - samples, "selected"),
    ];
    let metrics = [
        (m::GLOBAL_LOAD_SECTORS, 21_000_000.0),
        (m::GLOBAL_STORE_SECTORS, 4_200_000.0),
    ];
    let found = vec![finding(
        FindingKind::Uncoalesced,
        Severity::Problem,
        "uncoalesced global loads: 4.85 sectors per request (8.00× the ideal on line 136)",
        vec![136],
    )];
    (derived(&values), found, profile(&metrics, lines))
}

#[test]
fn a_light_uncoalesced_line_is_a_smaller_cost_not_the_limit() {
    let (derived, found, profile) =
        epilogue(1.0, &[(Key::L1Throughput, 85.0), (Key::IssueActive, 50.0)]);
    let e = evidence(&derived, &found, Some(&profile), vec![], vec![]);
    let limit = limit(&e).unwrap();
    assert_eq!(limit.bottleneck, "L1/shared-memory throughput");
    assert!(
        limit
            .evidence
            .contains("is a smaller cost: its lines carry 1.00% of the stall samples"),
        "{}",
        limit.evidence
    );
}

#[test]
fn a_material_uncoalesced_line_is_the_limit_with_its_weight() {
    let (derived, found, profile) =
        epilogue(60.0, &[(Key::L1Throughput, 50.0), (Key::IssueActive, 20.0)]);
    let e = evidence(&derived, &found, Some(&profile), vec![], vec![]);
    let limit = limit(&e).unwrap();
    assert_eq!(limit.bottleneck, "uncoalesced global access");
    assert_eq!(limit.next, Some(Change::Coalescing));
    assert!(
        limit.evidence.ends_with("its lines carry 14.6% of the kernel's global sectors as excess and 60.0% of its stall samples"),
        "{}",
        limit.evidence
    );
    // Once the ladder applied coalescing, staging through shared memory.
    let e = evidence(
        &derived,
        &found,
        Some(&profile),
        vec![],
        vec![Change::Coalescing],
    );
    assert_eq!(limit_next(&e), Some(Change::SharedMemoryTiling));
}

fn limit_next(e: &Evidence) -> Option<Change> {
    limit(e).unwrap().next
}

#[test]
fn saturated_issue_beats_a_material_access_finding() {
    let (derived, found, profile) =
        epilogue(60.0, &[(Key::L1Throughput, 50.0), (Key::IssueActive, 84.0)]);
    let e = evidence(&derived, &found, Some(&profile), vec![], vec![]);
    let limit = limit(&e).unwrap();
    assert_eq!(limit.bottleneck, "instruction issue");
    assert_eq!(limit.next, Some(Change::LoopUnrolling));
}

#[test]
fn issue_is_named_from_issue_slots_and_the_stall_mix() {
    // 65% of issue slots: issue-bound only when the stalls are issue-side.
    let (derived, found, profile) =
        epilogue(5.0, &[(Key::L1Throughput, 40.0), (Key::IssueActive, 65.0)]);
    let e = evidence(&derived, &found, Some(&profile), vec![], vec![]);
    assert_eq!(limit(&e).unwrap().bottleneck, "instruction issue");
    let (derived, found, profile) =
        epilogue(15.0, &[(Key::L1Throughput, 40.0), (Key::IssueActive, 65.0)]);
    let mostly_memory = Profile {
        source_lines: profile
            .source_lines
            .iter()
            .cloned()
            .map(|mut l| {
                l.stalls = BTreeMap::from([("long_sb".to_string(), 1.0)]);
                l
            })
            .collect(),
        ..profile
    };
    let e = evidence(&derived, &found, Some(&mostly_memory), vec![], vec![]);
    assert_eq!(
        limit(&e).unwrap().bottleneck,
        "instruction issue or latency (between)"
    );
    // 43% of issue slots is not issue-bound, whatever the SM throughput.
    let (derived, found, profile) = epilogue(
        5.0,
        &[
            (Key::L1Throughput, 30.0),
            (Key::IssueActive, 43.0),
            (Key::SmThroughput, 70.0),
        ],
    );
    let e = evidence(&derived, &found, Some(&profile), vec![], vec![]);
    assert!(limit(&e).unwrap().bottleneck.starts_with("latency"));
}

#[test]
fn l1_advice_follows_whether_shared_memory_is_used() {
    let busy = derived(&[
        (Key::MemoryThroughput, 90.0),
        (Key::SmThroughput, 70.0),
        (Key::L1Throughput, 90.0),
    ]);
    let e = evidence(&busy, &[], None, vec![], vec![]);
    assert_eq!(
        limit_next(&e),
        Some(Change::SharedMemoryTiling),
        "no shared memory"
    );
    let tiled = derived(&[
        (Key::MemoryThroughput, 90.0),
        (Key::SmThroughput, 70.0),
        (Key::L1Throughput, 90.0),
        (Key::SharedMemoryPerBlock, 8192.0),
    ]);
    // Shared memory but no FMAs reusing it (a reduction tree).
    let e = evidence(&tiled, &[], None, vec![], vec![]);
    assert_eq!(limit_next(&e), Some(Change::WorkPerThread));
    let e = evidence(&tiled, &[], None, vec![], vec![Change::WorkPerThread]);
    assert_eq!(limit_next(&e), Some(Change::WarpShuffle));
    let mut values = tiled.values.clone();
    values.insert(Key::SharedLoadsPerFma, 0.5);
    let tiled = Derived {
        values,
        ..Derived::default()
    };
    let e = evidence(&tiled, &[], None, vec![], vec![]);
    assert_eq!(limit_next(&e), Some(Change::RegisterBlocking));
    let e = evidence(&tiled, &[], None, vec![], vec![Change::RegisterBlocking]);
    assert_eq!(limit_next(&e), Some(Change::WarpTiling), "not re-suggested");
    let all = vec![
        Change::RegisterBlocking,
        Change::WarpTiling,
        Change::VectorizedAccess,
    ];
    let e = evidence(&tiled, &[], None, vec![], all);
    let limit = limit(&e).unwrap();
    assert_eq!(limit.next, None);
    assert!(limit.advice.starts_with("The ladder has already applied"));
}

#[test]
fn a_grid_smaller_than_the_gpu_is_told_to_launch_more_blocks() {
    let idle = derived(&[
        (Key::MemoryThroughput, 20.0),
        (Key::SmThroughput, 20.0),
        (Key::AchievedOccupancy, 12.5),
    ]);
    let small = profile(&[(m::WAVES_PER_SM, 0.24), (m::GRID_SIZE, 64.0)], vec![]);
    let e = evidence(&idle, &[], Some(&small), vec![], vec![]);
    let small_grid = limit(&e).unwrap();
    assert_eq!(small_grid.bottleneck, "latency, with low occupancy");
    assert_eq!(small_grid.next, Some(Change::ParameterTuning));
    assert!(
        small_grid
            .advice
            .contains("of 64 blocks fills only 24.0% of a wave"),
        "{}",
        small_grid.advice
    );
    assert!(!small_grid.facts.full_waves);
    // L1/shared busy over its active cycles on the one SM a block
    // occupies is the grid's limit, not the unit's; DRAM, counted over the
    // whole GPU's time, still names itself.
    let one_sm = derived(&[
        (Key::MemoryThroughput, 1.0),
        (Key::SmThroughput, 1.0),
        (Key::L1Throughput, 85.0),
        (Key::DramThroughput, 0.03),
        (Key::IssueActive, 1.6),
    ]);
    let one_block = profile(&[(m::WAVES_PER_SM, 0.0), (m::GRID_SIZE, 1.0)], vec![]);
    let e = evidence(&one_sm, &[], Some(&one_block), vec![], vec![]);
    let tiny = limit(&e).unwrap();
    assert_eq!(tiny.bottleneck, "a grid too small to fill the GPU");
    assert!(
        tiny.evidence.contains(
            "ncu counts L1/shared-memory over its active cycles, so its 85.0% is of the few SMs the grid occupies (under 0.5% of one wave)"
        ),
        "{}",
        tiny.evidence
    );
    assert_eq!(tiny.next, Some(Change::ParameterTuning));
    assert_eq!(
        tiny.basis,
        Basis::SmallGrid {
            unit: BusyUnit::L1Shared,
            busy: 85.0,
            waves: 0.0
        }
    );
    let streaming = derived(&[
        (Key::MemoryThroughput, 90.0),
        (Key::SmThroughput, 10.0),
        (Key::DramThroughput, 90.0),
    ]);
    let half = profile(&[(m::WAVES_PER_SM, 0.45)], vec![]);
    let e = evidence(&streaming, &[], Some(&half), vec![], vec![]);
    assert_eq!(limit(&e).unwrap().bottleneck, "DRAM throughput");
    // A full grid at low occupancy: smaller per-thread resources.
    let full = profile(&[(m::WAVES_PER_SM, 4.0)], vec![]);
    let e = evidence(&idle, &[], Some(&full), vec![], vec![]);
    assert!(
        limit(&e)
            .unwrap()
            .advice
            .starts_with("Few warps are resident")
    );
}

#[test]
fn memory_waits_with_enough_blocks_want_more_loads_in_flight() {
    let waiting = derived(&[
        (Key::MemoryThroughput, 48.0),
        (Key::SmThroughput, 40.0),
        (Key::DramThroughput, 48.0),
        (Key::AchievedOccupancy, 72.0),
    ]);
    let lines = vec![line(5, "s += in[i]", (4.0, 4.0), 10.0, "long_sb")];
    let full = profile(&[(m::WAVES_PER_SM, 124.0)], lines);
    let e = evidence(&waiting, &[], Some(&full), vec![], vec![]);
    assert_eq!(limit_next(&e), Some(Change::WorkPerThread));
    let e = evidence(
        &waiting,
        &[],
        Some(&full),
        vec![],
        vec![Change::WorkPerThread],
    );
    assert_eq!(limit_next(&e), Some(Change::VectorizedAccess));
}

#[test]
fn a_kernel_at_a_speed_of_light_copy_is_done() {
    let at_limit = derived(&[
        (Key::MemoryThroughput, 90.0),
        (Key::SmThroughput, 30.0),
        (Key::DramThroughput, 88.0),
    ]);
    let e = evidence(&at_limit, &[], None, vec![copy(0.97, 0.87)], vec![]);
    let limit = limit(&e).unwrap();
    assert_eq!(limit.bottleneck, "DRAM bandwidth");
    assert_eq!(limit.next, None);
    assert!(
        limit.evidence.starts_with(
            "97.0% of `copy`'s bandwidth, and `copy` runs at 87.0% of the device's DRAM peak"
        ),
        "{}",
        limit.evidence
    );
    assert!(limit.facts.bandwidth_ceiling);
}

#[test]
fn a_slow_or_outpaced_ceiling_is_no_bound_and_says_so() {
    let busy = derived(&[
        (Key::MemoryThroughput, 74.0),
        (Key::SmThroughput, 37.0),
        (Key::DramThroughput, 74.0),
    ]);
    let e = evidence(&busy, &[], None, vec![copy(1.17, 0.64)], vec![]);
    let outpaced = limit(&e).unwrap();
    assert_eq!(outpaced.bottleneck, "DRAM throughput or latency (between)");
    assert!(
        outpaced.evidence.ends_with(
            "this run reaches 117% of `copy`'s bandwidth, so `copy` is not a bound for it"
        ),
        "{}",
        outpaced.evidence
    );
    assert!(!outpaced.facts.bandwidth_ceiling);
    let e = evidence(&busy, &[], None, vec![copy(0.95, 0.64)], vec![]);
    let limit = limit(&e).unwrap();
    assert_ne!(limit.bottleneck, "DRAM bandwidth");
    assert!(
        limit.evidence.ends_with("`copy` runs at 64.0% of the device's DRAM peak, under the 80% a speed of light needs, so reaching 95.0% of it does not make this run done"),
        "{}",
        limit.evidence
    );
    let mut shared_copy = copy(0.83, 0.70);
    shared_copy.share.ceiling = "copy-shared".into();
    let e = evidence(
        &busy,
        &[],
        None,
        vec![copy(0.95, 0.64), shared_copy],
        vec![],
    );
    let several = super::limit(&e).unwrap();
    assert!(
        several.evidence.ends_with("reaching 95.0% of `copy` (itself at 64.0%) and 83.0% of `copy-shared` (itself at 70.0%) does not make this run done: none of them runs at the 80% of the device's DRAM peak a speed of light needs"),
        "{}",
        several.evidence
    );
}

#[test]
fn bank_conflicts_get_padding_on_a_2d_tile_and_reindexing_on_a_1d_array() {
    let busy = derived(&[(Key::MemoryThroughput, 90.0), (Key::SmThroughput, 10.0)]);
    let conflict = |text: &str| {
        let mut l = line(22, text, (0.0, 0.0), 50.0, "mio");
        l.shared_wavefronts = Some(32.0);
        l.shared_wavefronts_ideal = Some(1.0);
        profile(&[(m::SHARED_LOAD_WAVEFRONTS, 40.0)], vec![l])
    };
    let found = [finding(
        FindingKind::BankConflicts,
        Severity::Problem,
        "32-way shared-memory bank conflicts on loads",
        vec![22],
    )];
    let continued = conflict("thread_tile_col_idx];");
    let e = evidence(&busy, &found, Some(&continued), vec![], vec![]);
    assert_eq!(limit_next(&e), Some(Change::SharedMemoryLayout));
    let tile = conflict("out[i] = tile[threadIdx.x][j];");
    let e = evidence(&busy, &found, Some(&tile), vec![], vec![]);
    assert_eq!(limit_next(&e), Some(Change::Padding));
    let strided = conflict("s[index] += s[index + stride];");
    let e = evidence(&busy, &found, Some(&strided), vec![], vec![]);
    assert_eq!(limit_next(&e), Some(Change::SequentialAddressing));
    let e = evidence(&busy, &found, Some(&tile), vec![], vec![Change::Padding]);
    assert_eq!(limit_next(&e), Some(Change::SharedMemoryLayout));
}

#[test]
fn without_source_counters_a_severe_finding_still_counts() {
    let busy = derived(&[(Key::MemoryThroughput, 60.0), (Key::SmThroughput, 10.0)]);
    let found = [finding(
        FindingKind::Uncoalesced,
        Severity::Problem,
        "uncoalesced global stores: 32.0 sectors per request",
        vec![],
    )];
    let e = evidence(&busy, &found, None, vec![], vec![]);
    assert_eq!(limit(&e).unwrap().bottleneck, "uncoalesced global access");
}

#[test]
fn without_counters_there_is_no_limit() {
    let nothing = Derived::default();
    assert_eq!(limit(&evidence(&nothing, &[], None, vec![], vec![])), None);
}

#[test]
fn a_misaligned_stencil_that_reloads_its_data_is_told_to_tile_not_to_align() {
    // A 7-tap stencil: every load is shifted by its tap (1.21× the ideal
    // sectors) and the kernel loads 5× the bytes it reads from DRAM.
    let busy = derived(&[(Key::MemoryThroughput, 45.0), (Key::SmThroughput, 40.0)]);
    let taps = line(
        38,
        "temp += array[start + j] * mask[j];",
        (17_825_786.0, 14_680_064.0),
        80.0,
        "long_sb",
    );
    let found = [finding(
        FindingKind::Uncoalesced,
        Severity::Warning,
        "uncoalesced global loads: 4.86 sectors per request (1.21× the ideal on line 38)",
        vec![38],
    )];
    let stencil = |dram_read: f64| {
        profile(
            &[
                (m::GLOBAL_LOAD_SECTORS, 17_825_786.0),
                (m::GLOBAL_STORE_SECTORS, 2_097_152.0),
                (m::DRAM_BYTES_READ, dram_read),
            ],
            vec![taps.clone()],
        )
    };
    let reloaded = stencil(115_000_000.0);
    let e = evidence(&busy, &found, Some(&reloaded), vec![], vec![]);
    let advice = advice::access(&e, &found[0]);
    assert_eq!(advice.change, Some(Change::SharedMemoryTiling));
    assert!(
        advice
            .text
            .contains("loads 4.96× the bytes it reads from DRAM"),
        "{}",
        advice.text
    );
    // Read once from DRAM (no reloads): the misalignment itself is the cost.
    let streamed = stencil(17_825_786.0 * 32.0);
    let e = evidence(&busy, &found, Some(&streamed), vec![], vec![]);
    assert_eq!(
        advice::access(&e, &found[0]).change,
        Some(Change::Alignment)
    );
    // Already tiled: alignment again.
    let e = evidence(
        &busy,
        &found,
        Some(&reloaded),
        vec![],
        vec![Change::SharedMemoryTiling],
    );
    assert_eq!(
        advice::access(&e, &found[0]).change,
        Some(Change::Alignment)
    );
}
