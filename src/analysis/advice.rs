//! What to try next, chosen from the evidence instead of a fixed map: each
//! bottleneck has candidate changes, each with a premise the counters must
//! support (shared memory in use or not, enough blocks to fill the GPU, a
//! 2-D shared index for padding), and a change the ladder has already
//! applied is never proposed again. [`Facts`] carries the same evidence to
//! the knowledge base, which prints a "next step" only where its premise
//! holds.

use serde::Serialize;

use super::derived::{Key, ratio};
use super::evidence::{Evidence, Level};
use super::findings::{Finding, FindingKind};
use super::limits::BusyUnit;
use super::{format, knowledge};
use crate::model::Change;
use crate::model::metrics as m;

/// A change to try, or plain words when no known change fits.
#[derive(Debug, Clone, PartialEq)]
pub struct Advice {
    pub change: Option<Change>,
    pub text: String,
}

impl Advice {
    pub fn plain(text: &str) -> Advice {
        Advice {
            change: None,
            text: text.into(),
        }
    }

    fn trying(change: Change, why: &str) -> Advice {
        Advice {
            change: Some(change),
            text: format!(
                "Try {} ({}): {why}",
                knowledge::entry(change).title.to_lowercase(),
                change.word()
            ),
        }
    }
}

/// The evidence the knowledge base's "next step" premises are checked on.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Facts {
    pub applied: Vec<Change>,
    /// A bandwidth ceiling that is a speed of light and bounds this run.
    pub bandwidth_ceiling: bool,
    pub bank_conflicts: bool,
    pub shared_memory: bool,
    /// At least one full wave of blocks per SM.
    pub full_waves: bool,
}

impl Facts {
    pub fn of(e: &Evidence) -> Facts {
        Facts {
            applied: e.applied.clone(),
            bandwidth_ceiling: e
                .ceilings
                .iter()
                .any(|c| c.bounds() && c.speed_of_light() == Level::Above),
            bank_conflicts: e.problem(FindingKind::BankConflicts).is_some(),
            shared_memory: e.uses_shared_memory(),
            full_waves: waves(e).is_none_or(|w| w >= 1.0),
        }
    }
}

fn waves(e: &Evidence) -> Option<f64> {
    e.metric(m::WAVES_PER_SM)
}

/// The first candidate not yet applied, else plain words saying so.
fn first_new(e: &Evidence, candidates: &[(Change, &str)]) -> Advice {
    candidates
        .iter()
        .find(|(change, _)| !e.is_applied(*change))
        .map(|(change, why)| Advice::trying(*change, why))
        .unwrap_or_else(|| {
            let words: Vec<&str> = candidates.iter().map(|(c, _)| c.word()).collect();
            Advice {
                change: None,
                text: format!(
                    "The ladder has already applied {}; gpuprof knows no further change for this limit.",
                    words.join(", ")
                ),
            }
        })
}

/// The changes that remove a bank conflict on a line of `code`, most
/// fitting first: colliding atomics (ncu's access operation on the line
/// says `Atomic`) are combined within the warp or spread over copies;
/// padding shifts the rows of a 2-D tile; a 1-D strided index needs
/// re-indexing; a line that shows no subscript (a continued expression)
/// gets the general layout change.
pub fn conflict_fixes(code: &str, access_operation: &str) -> Vec<(Change, &'static str)> {
    let layout = (
        Change::SharedMemoryLayout,
        "swizzle or transpose the layout so a warp's accesses spread over the banks",
    );
    if has_shared_atomics(access_operation) {
        return vec![
            (Change::WarpShuffle, COMBINE_WITHIN_THE_WARP),
            (
                Change::SharedMemoryLayout,
                "give each warp its own copy of the counters, spread over the banks, and add the copies at the end",
            ),
        ];
    }
    if code.contains("][") {
        vec![
            (
                Change::Padding,
                "where a warp reads down a column of the tile, pad its rows (for example [32][33]) so the column spreads over the 32 banks; where it reads along a row at a stride, re-index or swizzle that row instead",
            ),
            layout,
        ]
    } else if code.contains('[') {
        vec![
            (
                Change::SequentialAddressing,
                "index the 1-D array so consecutive threads touch consecutive words",
            ),
            layout,
        ]
    } else {
        vec![layout]
    }
}

/// How colliding atomic updates are made fewer without a copy per block.
const COMBINE_WITHIN_THE_WARP: &str = "combine the updates of equal addresses within the warp first (__match_any_sync, or a warp reduction where every lane adds to one counter), so each address takes one atomic per warp";

/// Whether ncu's access operation for a line (`Load,Atomic`) includes
/// atomics, as it does for shared-memory atomics: their extra wavefronts
/// are updates serialised on one bank, often on one address.
pub fn has_shared_atomics(access_operation: &str) -> bool {
    access_operation.split(',').any(|op| op.trim() == "Atomic")
}

/// Whether a line of `code` updates memory atomically: ncu says so, or the
/// code calls one of CUDA's `atomic…` functions (ncu lists a global
/// reduction, `RED`, by the line's other operations). Such updates go
/// where the data says and are serialised where they meet, so they are no
/// layout to straighten.
pub fn is_atomic(code: &str, access_operation: &str) -> bool {
    has_shared_atomics(access_operation) || calls_atomic(code)
}

/// Whether `code` calls a function named `atomic…` (`atomicAdd(`,
/// `atomicCAS (`, `atomicAdd_block(`).
fn calls_atomic(code: &str) -> bool {
    let identifier = |c: char| c.is_ascii_alphanumeric() || c == '_';
    code.match_indices("atomic").any(|(at, _)| {
        let before = code[..at].chars().next_back();
        let rest = code[at..].trim_start_matches(identifier);
        before.is_none_or(|c| !identifier(c)) && rest.trim_start().starts_with('(')
    })
}

/// The changes that take scattered global atomics off global memory, most
/// fitting first: a private copy per block in shared memory, then
/// combining equal addresses within the warp.
pub fn atomic_update_fixes() -> Vec<(Change, &'static str)> {
    vec![
        (
            Change::Privatization,
            "accumulate into a copy of the counters per block in shared memory, and add the copy to global memory once per block",
        ),
        (Change::WarpShuffle, COMBINE_WITHIN_THE_WARP),
    ]
}

/// For an access finding: the change that removes it.
pub fn access(e: &Evidence, finding: &Finding) -> Advice {
    let line = e
        .lines()
        .iter()
        .find(|l| finding.lines.first() == Some(&l.line));
    if finding.kind == FindingKind::BankConflicts {
        let (text, operation) =
            line.map_or(("", ""), |l| (l.text.as_str(), l.access_operation.as_str()));
        return first_new(e, &conflict_fixes(text, operation));
    }
    if line.is_some_and(|l| is_atomic(&l.text, &l.access_operation)) {
        return first_new(e, &atomic_update_fixes());
    }
    let factor = line.and_then(|l| ratio(l.global_sectors, l.global_sectors_ideal));
    if factor.is_some_and(|f| f <= 1.3) {
        // A small excess on data loaded several times (a stencil's taps at
        // shifted offsets) is the misalignment of the reloads, which the
        // caches serve: loading each byte once into shared memory removes
        // both, where aligning one start could not.
        let reloads = ratio(
            e.metric(m::GLOBAL_LOAD_SECTORS)
                .map(|sectors| sectors * 32.0),
            e.metric(m::DRAM_BYTES_READ),
        );
        if let Some(times) = reloads.filter(|r| *r >= 2.0)
            && !e.is_applied(Change::SharedMemoryTiling)
        {
            return Advice::trying(
                Change::SharedMemoryTiling,
                &format!(
                    "the kernel loads {} the bytes it reads from DRAM, at shifted offsets (the caches serve the reloads): load each once into shared memory and reuse it from there",
                    format::speedup(times)
                ),
            );
        }
        return first_new(
            e,
            &[(
                Change::Alignment,
                "start each warp's range on a 32-byte boundary",
            )],
        );
    }
    first_new(
        e,
        &[
            (
                Change::Coalescing,
                "make neighbouring threads touch neighbouring addresses",
            ),
            (
                Change::SharedMemoryTiling,
                "stage the data through shared memory so the global accesses are row by row",
            ),
        ],
    )
}

/// For a busy memory unit.
pub fn memory(e: &Evidence, unit: BusyUnit) -> Advice {
    if unit == BusyUnit::L1Shared {
        if !e.uses_shared_memory() {
            // The L1 traffic is global loads hitting in L1.
            return first_new(
                e,
                &[(
                    Change::SharedMemoryTiling,
                    "the L1 traffic is global loads (no shared memory is used); stage reused tiles in shared memory",
                )],
            );
        }
        if e.get(Key::SharedLoadsPerFma).is_some() {
            // Shared values feed FMAs: reuse them from registers.
            return first_new(
                e,
                &[
                    (
                        Change::RegisterBlocking,
                        "reuse each shared-memory value from registers",
                    ),
                    (
                        Change::WarpTiling,
                        "let a warp's threads share the rows and columns they load",
                    ),
                    (
                        Change::VectorizedAccess,
                        "load shared memory in fewer, wider instructions",
                    ),
                ],
            );
        }
        // No FMAs reuse the shared values (a reduction tree): fewer shared
        // accesses per element.
        let mut candidates = Vec::new();
        if waves(e).is_none_or(|w| w >= 1.0) {
            candidates.push((
                Change::WorkPerThread,
                "each thread combines several elements before the shared-memory steps",
            ));
        }
        candidates.push((
            Change::WarpShuffle,
            "do the in-warp steps in registers, without shared memory",
        ));
        return first_new(e, &candidates);
    }
    if e.problem(FindingKind::ExtraTraffic).is_some() {
        return first_new(
            e,
            &[(
                Change::SharedMemoryTiling,
                "fetch each element from DRAM once",
            )],
        );
    }
    if e.get(Key::DramThroughput).is_some_and(|d| d >= 80.0) {
        return Advice::plain(
            "DRAM is near its peak: only moving fewer bytes (reuse, fusion) makes it faster.",
        );
    }
    let mut candidates = vec![(
        Change::VectorizedAccess,
        "fewer, wider memory instructions keep more bytes in flight",
    )];
    if waves(e).is_none_or(|w| w >= 1.0) {
        candidates.push((
            Change::WorkPerThread,
            "give each thread several independent loads to keep in flight",
        ));
    }
    first_new(e, &candidates)
}

/// For instruction issue.
pub fn issue(e: &Evidence) -> Advice {
    first_new(
        e,
        &[
            (
                Change::LoopUnrolling,
                "issue fewer instructions for the same work",
            ),
            (
                Change::VectorizedAccess,
                "one wide load instead of several narrow ones",
            ),
        ],
    )
}

/// For latency: a grid smaller than the GPU needs more blocks, not more
/// work per thread; memory waits with enough blocks need more in flight.
pub fn latency(e: &Evidence, top_stall: Option<&str>) -> Advice {
    if let Some(w) = waves(e).filter(|w| *w < 1.0) {
        let blocks = e.metric(m::GRID_SIZE).map(|b| match b == 1.0 {
            true => "1 block".to_string(),
            false => format!("{} blocks", format::count(b)),
        });
        return Advice {
            change: Some(Change::ParameterTuning),
            text: format!(
                "The grid{} fills only {} of a wave: launch more, smaller blocks (parameter-tuning) so every SM has work; more work per thread would leave even more SMs idle.",
                blocks.map(|b| format!(" of {b}")).unwrap_or_default(),
                format::wave_share(w)
            ),
        };
    }
    if e.get(Key::AchievedOccupancy).is_some_and(|o| o < 40.0) {
        let limiters: Vec<&str> = e.derived.limiters.iter().map(|l| l.describe()).collect();
        return Advice {
            change: Some(Change::ParameterTuning),
            text: format!(
                "Few warps are resident{}: use smaller per-thread or per-block resources (parameter-tuning) so more warps hide the waits.",
                if limiters.is_empty() {
                    String::new()
                } else {
                    format!(" (limited by {})", limiters.join(" and "))
                }
            ),
        };
    }
    match top_stall {
        Some("long_sb" | "lg") => first_new(
            e,
            &[
                (
                    Change::WorkPerThread,
                    "give each thread several independent loads to keep in flight",
                ),
                (
                    Change::VectorizedAccess,
                    "fewer, wider loads keep more bytes in flight per instruction",
                ),
            ],
        ),
        _ => Advice::plain(
            "Look at the hottest source line's stall reason: it says what the warps wait on.",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_updates_are_told_by_the_access_operation_or_an_atomic_call() {
        assert!(has_shared_atomics("Load,Atomic"));
        assert!(!has_shared_atomics("Load,Store"));
        assert!(is_atomic("atomicAdd(&bins[b], 1u);", "Load"));
        assert!(is_atomic("old = atomicCAS (p, a, b);", ""));
        assert!(is_atomic("atomicAdd_block(&s[i], v);", ""));
        assert!(!is_atomic("my_atomicAdd(&s[i], v);", ""));
        assert!(!is_atomic("int atomicity = 3;", ""));
        assert!(!is_atomic("out[i] = in[i];", "Load,Store"));
    }
}
