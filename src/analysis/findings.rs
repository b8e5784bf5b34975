//! Findings for one run, as plain text with the numbers that support them:
//! uncoalesced global access (sectors per request against the ideal, and
//! the source line with the excess), shared-memory bank conflicts (on
//! average how many times the ideal wavefronts, "32-way" only when the
//! average is the 32 banks' maximum; ncu's raw counter beside it and a note
//! when the two disagree), occupancy and what limits it, what bounds the
//! kernel (memory, compute or latency), spills, extra DRAM traffic, and
//! working sets small enough to live in L2. Also the source lines that cost
//! most.

use serde::Serialize;

use super::derived::{Derived, Key, Limiter, ratio};
use super::format;
use super::timing::fits_in_l2;
use crate::model::Device;
use crate::model::results::Profile;
use crate::model::source::{Count, SourceLine, Split};
use crate::model::timing::Temperature;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    Info,
    Warning,
    Problem,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FindingKind {
    Uncoalesced,
    BankConflicts,
    Occupancy,
    Waves,
    OtherFiles,
    Spills,
    ExtraTraffic,
    CacheResident,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    pub kind: FindingKind,
    pub severity: Severity,
    /// One line, e.g. "32-way shared-memory bank conflicts on loads".
    pub title: String,
    /// The evidence and what to do, in sentences.
    pub detail: String,
    /// Source lines the finding points at.
    pub lines: Vec<u32>,
}

/// A source line worth looking at, with what ncu attributed to it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HotLine {
    pub line: u32,
    pub code: String,
    /// Share of all warp-stall samples of the kernel.
    pub sample_share: Option<f64>,
    /// Share of all instructions the kernel executed.
    pub instruction_share: Option<f64>,
    /// Where the line's wait really comes from, in a clause, when its
    /// samples are a wait for other lines: stores draining at exit, or a
    /// barrier.
    pub waits_for: Option<String>,
    /// Shared wavefronts over ncu's ideal, averaged over the line's
    /// executions (see [`conflict_words`]).
    pub shared_ways: Option<f64>,
    pub shared_excess_wavefronts: Option<f64>,
    /// Global sectors over ncu's ideal.
    pub global_excess_factor: Option<f64>,
    pub global_excess_sectors: Option<f64>,
    /// The stall reason with the most samples on this line, in words.
    pub top_stall: Option<String>,
    /// What the line does to memory, as ncu says (`Load(4),Store(4)`).
    pub access: String,
    /// The line's counters by direction, from its SASS instructions.
    pub split: Split,
}

impl HotLine {
    /// The global direction with the most excess sectors, and its factor.
    pub fn worst_global(&self) -> Option<(&'static str, f64)> {
        worst_direction(
            self.split.global_load_sectors,
            self.split.global_store_sectors,
        )
    }

    /// The shared direction with the most excess wavefronts, and its factor.
    pub fn worst_shared(&self) -> Option<(&'static str, f64)> {
        worst_direction(
            self.split.shared_load_wavefronts,
            self.split.shared_store_wavefronts,
        )
    }
}

fn worst_direction(load: Count, store: Count) -> Option<(&'static str, f64)> {
    let excess = |c: Count| c.actual - c.ideal;
    let (kind, count) = if excess(store) > excess(load) {
        ("store", store)
    } else {
        ("load", load)
    };
    count.factor().map(|f| (kind, f))
}

/// The most wavefronts per ideal one a warp's shared access can take: one
/// per bank.
const MAX_WAYS: f64 = 32.0;

/// `what` (e.g. "shared-load conflict") with its degree. The counters give
/// only the average of wavefronts per ideal one, and accesses of different
/// degrees (a tree's 2-, 4- and 8-way levels) average to a number no access
/// has; only when the average is at the maximum (within 0.5%) was every
/// access that bad, so only then is it called "32-way".
pub fn conflict_words(ways: f64, what: &str) -> String {
    if ways >= MAX_WAYS * 0.995 {
        format!("{MAX_WAYS}-way {what}")
    } else {
        format!(
            "{what} (on average {} the ideal wavefronts)",
            format::speedup(ways)
        )
    }
}

/// Above this many wavefronts per ideal one, a line or kernel is called
/// conflicted.
const EXCESS_FACTOR: f64 = 1.5;

/// Above this many global sectors per ideal one, a line or kernel is
/// called uncoalesced: a misaligned warp (5 sectors for 4) already counts.
const SECTOR_EXCESS_FACTOR: f64 = 1.2;

pub fn stall_reason(name: &str) -> String {
    let words = match name {
        "long_sb" => "waiting for global or local memory (long scoreboard)",
        "short_sb" => "waiting for shared memory or special functions (short scoreboard)",
        "mio" => "shared-memory / special-function queue full (MIO throttle)",
        "lg" => "global-memory queue full (LG throttle)",
        "barrier" => "waiting at __syncthreads (barrier)",
        "math" => "math pipe busy (math throttle)",
        "wait" => "fixed-latency dependency (wait)",
        "not_selected" => "ready, another warp issued (not selected)",
        "selected" => "issuing (selected)",
        "dispatch" => "dispatch stall",
        "branch_resolving" => "resolving a branch",
        "no_inst" => "instruction cache miss (no instruction)",
        "drain" => "draining stores at exit",
        "membar" => "memory barrier",
        "imc" => "constant cache miss",
        "tex" => "texture queue full",
        "sleep" => "sleeping",
        "misc" => "miscellaneous",
        other => other,
    };
    words.to_string()
}

fn code_line(source_text: &str, line: u32) -> String {
    source_text
        .lines()
        .nth(line.saturating_sub(1) as usize)
        .unwrap_or("")
        .trim()
        .to_string()
}

/// A line needs this share of the kernel's stall samples to be listed for
/// its samples alone.
const HOT_SHARE: f64 = 0.05;

/// A line needs this share of the kernel's executed instructions to be
/// listed for them alone (what costs an issue-bound kernel).
const BUSY_SHARE: f64 = 0.10;

/// The line a stall on `line` waits for, when it is another line: stores
/// draining at exit wait for the kernel's store lines; a barrier wait
/// lands on the barrier itself or after it, so the nearest barrier at or
/// above the line is named.
fn waits_for(
    top_stall: &str,
    line: u32,
    lines: &[SourceLine],
    source_text: &str,
) -> Option<String> {
    match top_stall {
        "drain" => {
            let stores: Vec<String> = lines
                .iter()
                .filter(|l| l.line != line && l.access_operation.contains("Store"))
                .filter(|l| l.address_space.contains("Global") || l.address_space.is_empty())
                .map(|l| l.line.to_string())
                .collect();
            (!stores.is_empty()).then(|| {
                format!(
                    "the stores of line {} must finish before the warps exit",
                    stores.join(", ")
                )
            })
        }
        "barrier" => {
            let is_barrier = |code: &str| {
                code.contains("__syncthreads")
                    || code.contains(".sync()")
                    || code.contains("__syncwarp")
            };
            let barrier = (1..=line)
                .rev()
                .find(|n| is_barrier(&code_line(source_text, *n)))?;
            Some(match barrier == line {
                true => "warps wait here for the slowest of the block".into(),
                false => format!(
                    "the wait belongs to the barrier on line {barrier}, where warps wait for the slowest of the block"
                ),
            })
        }
        _ => None,
    }
}

/// The lines that cost most: up to three lines with at least 5% of the
/// stall samples, up to three with at least 10% of the executed
/// instructions, plus every line with excess shared wavefronts or global
/// sectors, worst first.
pub fn hot_lines(profile: &Profile, source_text: &str) -> Vec<HotLine> {
    let lines = &profile.source_lines;
    let total_samples = profile.stall_samples();
    let total_instructions = profile.instructions_executed();
    let top_stall = |l: &SourceLine| {
        l.stalls
            .iter()
            .filter(|(name, _)| !matches!(name.as_str(), "selected" | "not_selected"))
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(name, _)| name.clone())
    };
    let to_hot = |l: &SourceLine| HotLine {
        line: l.line,
        // The kernel's own text when the run kept it, else the line as ncu
        // printed it (an imported report).
        code: match code_line(source_text, l.line) {
            code if code.is_empty() => l.text.trim().to_string(),
            code => code,
        },
        sample_share: l
            .warp_stall_samples
            .filter(|_| total_samples > 0.0)
            .map(|s| s / total_samples),
        instruction_share: l
            .instructions_executed
            .filter(|_| total_instructions > 0.0)
            .map(|i| i / total_instructions),
        waits_for: top_stall(l).and_then(|stall| waits_for(&stall, l.line, lines, source_text)),
        shared_ways: ratio(l.shared_wavefronts, l.shared_wavefronts_ideal),
        shared_excess_wavefronts: l.shared_wavefronts_excessive,
        global_excess_factor: ratio(l.global_sectors, l.global_sectors_ideal),
        global_excess_sectors: l.global_sectors_excessive,
        top_stall: top_stall(l).map(|name| stall_reason(&name)),
        access: l.access_operation.clone(),
        split: l.by_instruction,
    };
    let mut by_samples: Vec<&SourceLine> = lines
        .iter()
        .filter(|l| {
            total_samples > 0.0 && l.warp_stall_samples.unwrap_or(0.0) / total_samples >= HOT_SHARE
        })
        .collect();
    by_samples.sort_by(|a, b| {
        b.warp_stall_samples
            .unwrap_or(0.0)
            .total_cmp(&a.warp_stall_samples.unwrap_or(0.0))
    });
    let mut chosen: Vec<&SourceLine> = by_samples.into_iter().take(3).collect();
    let mut by_instructions: Vec<&SourceLine> = lines
        .iter()
        .filter(|l| {
            total_instructions > 0.0
                && l.instructions_executed.unwrap_or(0.0) / total_instructions >= BUSY_SHARE
        })
        .collect();
    by_instructions.sort_by(|a, b| {
        b.instructions_executed
            .unwrap_or(0.0)
            .total_cmp(&a.instructions_executed.unwrap_or(0.0))
    });
    for line in by_instructions.into_iter().take(3) {
        if !chosen.iter().any(|c| c.line == line.line) {
            chosen.push(line);
        }
    }
    for line in lines {
        let excessive = line.shared_wavefronts_excessive.unwrap_or(0.0) > 0.0
            || line.global_sectors_excessive.unwrap_or(0.0) > 0.0;
        if excessive && !chosen.iter().any(|c| c.line == line.line) {
            chosen.push(line);
        }
    }
    let mut hot: Vec<HotLine> = chosen.into_iter().map(to_hot).collect();
    hot.sort_by(|a, b| {
        let weight = |h: &HotLine| {
            h.shared_excess_wavefronts.unwrap_or(0.0) + h.global_excess_sectors.unwrap_or(0.0)
        };
        weight(b).total_cmp(&weight(a)).then(
            b.sample_share
                .unwrap_or(0.0)
                .total_cmp(&a.sample_share.unwrap_or(0.0)),
        )
    });
    hot
}

/// The data a run moves: the suite's declared `bytes`, and its buffers'
/// bytes together (the most it can touch).
#[derive(Debug, Clone, Copy, Default)]
pub struct DataSize {
    pub declared: Option<f64>,
    pub buffers: Option<f64>,
}

/// Everything the run's numbers say, most severe first.
pub fn findings(
    derived: &Derived,
    profile: Option<&Profile>,
    lines: Option<&Profile>,
    hot: &[HotLine],
    device: Option<&Device>,
    data: DataSize,
    timed: Option<Temperature>,
) -> Vec<Finding> {
    let declared_bytes = data.declared;
    let mut found = Vec::new();
    // The data it moves: the declared bytes, else its buffers together.
    let working_set = match (data.declared, data.buffers) {
        (Some(bytes), _) => Some((bytes, "The problem moves")),
        (None, Some(bytes)) => Some((bytes, "Its buffers hold")),
        (None, None) => None,
    };
    if let Some(device) = device
        && let Some((bytes, moves)) =
            working_set.filter(|(b, _)| fits_in_l2(Some(device), Some(*b)))
    {
        let consequence = match timed {
            Some(Temperature::Cold) => {
                "so the time shown is the cold one, with the L2 flushed before each sample; hot launches right after the kernel ran find much of the data in L2 and describe the cache as much as DRAM"
            }
            _ => {
                "so back-to-back timed launches find much of the data in L2: the event timing and its GB/s describe the cache as much as DRAM (this run has no cold samples, taken with the L2 flushed). ncu flushes the caches before it profiles, so its duration can be longer"
            }
        };
        found.push(Finding {
            kind: FindingKind::CacheResident,
            severity: Severity::Info,
            title: "the working set fits in L2".into(),
            detail: format!(
                "{moves} {} and the L2 cache holds {}, {consequence}. Use a larger size to measure DRAM.",
                format::bytes(bytes),
                format::bytes(device.l2_cache_bytes as f64)
            ),
            lines: Vec::new(),
        });
    }
    if let Some(lines) = lines {
        other_files(lines, &mut found);
    }
    let Some(profile) = profile else { return found };
    uncoalesced(derived, hot, &mut found);
    bank_conflicts(derived, hot, &mut found);
    occupancy(derived, profile, &mut found);
    waves(profile, &mut found);
    if let Some(sectors) = derived.get(Key::LocalMemorySectors).filter(|s| *s > 0.0) {
        found.push(Finding {
            kind: FindingKind::Spills,
            severity: Severity::Warning,
            title: "registers spill to local memory".into(),
            detail: format!(
                "{} local-memory sectors moved: values that did not fit in registers ({} per thread) go through the memory hierarchy. Reduce the per-thread working set or the unrolling.",
                format::count(sectors),
                derived.get(Key::RegistersPerThread).map(format::count).unwrap_or_else(|| "?".into())
            ),
            lines: Vec::new(),
        });
    }
    if let (Some(measured), Some(minimum)) = (
        derived.get(Key::DramBytes),
        declared_bytes.filter(|b| *b > 0.0),
    ) && measured > 1.5 * minimum
    {
        found.push(Finding {
            kind: FindingKind::ExtraTraffic,
            severity: Severity::Warning,
            title: format!("{} the minimum DRAM traffic", format::speedup(measured / minimum)),
            detail: format!(
                "ncu counted {} of DRAM traffic where the problem needs {} (the suite's `bytes`): data is fetched more than once, or whole sectors are fetched for a few useful bytes.",
                format::bytes(measured),
                format::bytes(minimum)
            ),
            lines: Vec::new(),
        });
    }
    // Most severe first, in the order found among equals.
    found.sort_by_key(|f| std::cmp::Reverse(f.severity));
    found
}

/// Which direction a line's access operation names: `Load(4)` → load,
/// `Store(16)` → store, both or neither → `None`.
fn line_direction(access_operation: &str) -> Option<&'static str> {
    match (
        access_operation.contains("Load"),
        access_operation.contains("Store"),
    ) {
        (true, false) => Some("load"),
        (false, true) => Some("store"),
        _ => None,
    }
}

fn severity_of(factor: f64) -> Severity {
    if factor >= 2.0 {
        Severity::Problem
    } else {
        Severity::Warning
    }
}

fn uncoalesced(derived: &Derived, hot: &[HotLine], found: &mut Vec<Finding>) {
    let accesses = GlobalAccesses::new(derived, hot);
    let Some(factor) = accesses.excess_factor() else {
        return;
    };
    if factor <= SECTOR_EXCESS_FACTOR {
        return;
    }
    let direction = accesses.direction();
    found.push(Finding {
        kind: FindingKind::Uncoalesced,
        severity: severity_of(factor),
        title: accesses.title(direction, factor),
        detail: accesses.detail(),
        lines: accesses.worst.iter().map(|h| h.line).collect(),
    });
}

/// What a run's counters say about its global accesses.
struct GlobalAccesses<'a> {
    /// The hot lines with more global sectors than ncu's ideal, worst first.
    worst: Vec<&'a HotLine>,
    /// The whole kernel's global sectors over the ideal (source counters).
    kernel_excess: Option<f64>,
    /// Sectors per request of stores, then of loads.
    per_request: [(&'static str, Option<f64>); 2],
}

impl<'a> GlobalAccesses<'a> {
    fn new(derived: &Derived, hot: &'a [HotLine]) -> GlobalAccesses<'a> {
        GlobalAccesses {
            worst: hot
                .iter()
                .filter(|h| {
                    h.global_excess_factor
                        .is_some_and(|f| f > SECTOR_EXCESS_FACTOR)
                })
                .collect(),
            kernel_excess: derived.get(Key::GlobalExcessSectors),
            per_request: [
                ("store", derived.get(Key::GlobalStoreSectorsPerRequest)),
                ("load", derived.get(Key::GlobalLoadSectorsPerRequest)),
            ],
        }
    }

    /// The direction with the most sectors per request, and that number.
    fn largest(&self) -> Option<(&'static str, f64)> {
        self.per_request
            .iter()
            .filter_map(|(kind, v)| v.map(|v| (*kind, v)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// How many times the ideal sectors the kernel moves, or None when
    /// nothing says it moves more.
    fn excess_factor(&self) -> Option<f64> {
        // With source counters ncu's ideal decides; without, only sectors
        // per request above what even 16-byte vector accesses need (16)
        // count.
        match (self.kernel_excess, self.worst.first()) {
            (_, Some(line)) => Some(
                line.global_excess_factor
                    .unwrap_or(1.0)
                    .max(self.kernel_excess.unwrap_or(1.0)),
            ),
            (Some(excess), None) => Some(excess),
            (None, None) => match self.largest() {
                Some((_, v)) if v > 16.0 => Some(v / 4.0),
                _ => None,
            },
        }
    }

    /// "load", "store" or, when nothing tells them apart, "access".
    fn direction(&self) -> &'static str {
        // The worst line's own operation names the direction; a line that
        // both loads and stores is attributed only when one direction's
        // sectors per request are more than twice the other's.
        let dominant = match (self.per_request[0].1, self.per_request[1].1) {
            (Some(store), Some(load)) if store > 2.0 * load => Some("store"),
            (Some(store), Some(load)) if load > 2.0 * store => Some("load"),
            (Some(_), None) => Some("store"),
            (None, Some(_)) => Some("load"),
            _ => None,
        };
        match self.worst.first() {
            Some(line) => line
                .worst_global()
                .map(|(kind, _)| kind)
                .or_else(|| line_direction(&line.access))
                .or(dominant),
            None => self.largest().map(|(kind, _)| kind),
        }
        .unwrap_or("access")
    }

    /// The sectors per request, the kernel's excess and the worst line.
    fn detail(&self) -> String {
        let directions: Vec<String> = self
            .per_request
            .iter()
            .filter_map(|(kind, v)| {
                v.map(|v| format!("{} sectors per {kind} request", format::ratio(v)))
            })
            .collect();
        let mut detail = format!(
            "The kernel's global accesses touch {} (a warp of 4-byte accesses needs 4, of 16-byte accesses 16).",
            directions.join(" and ")
        );
        if let Some(excess) = self.kernel_excess {
            detail.push_str(&format!(
                " Over the whole kernel ncu counts {} the ideal number of global sectors.",
                format::speedup(excess)
            ));
        }
        if let Some(line) = self.worst.first() {
            let remedy = match super::advice::is_atomic(&line.code, &line.access) {
                true => format!(
                    "Its atomics update addresses the data chooses, so a warp's updates scatter over many sectors and are serialised where they meet: {}",
                    super::advice::atomic_update_fixes()[0].1
                ),
                false => "Make consecutive threads (threadIdx.x) touch consecutive addresses there, or stage the data through shared memory".into(),
            };
            let whole = line.global_excess_factor.unwrap_or(1.0);
            // Where the line's SASS splits its loads from its stores and
            // the worse of them is off the line's own figure (a transpose's
            // line reads along a row and writes down a column), both.
            let factor = match line.worst_global() {
                Some((kind, factor)) if format::speedup(factor) != format::speedup(whole) => {
                    format!(
                        "its {kind}s touch {} the ideal sectors, its loads and stores together {}",
                        format::speedup(factor),
                        format::speedup(whole)
                    )
                }
                _ => format!("{} the ideal sectors", format::speedup(whole)),
            };
            detail.push_str(&format!(
                " The worst line is {} (`{}`): {factor}, {} sectors too many. {remedy}.",
                line.line,
                line.code,
                format::count(line.global_excess_sectors.unwrap_or(0.0))
            ));
        }
        detail
    }

    /// Names the direction's sectors per request and the worst line, where
    /// known.
    fn title(&self, direction: &str, factor: f64) -> String {
        let per_request_of_direction = self
            .per_request
            .iter()
            .find(|(kind, _)| *kind == direction)
            .and_then(|(_, v)| *v);
        // The line's factor for the direction named, when its SASS split
        // it; else the line's loads and stores together, said so.
        let line_factor = |line: &HotLine| match line.worst_global() {
            Some((kind, factor)) if kind == direction => {
                format!(
                    "{} the ideal on line {}",
                    format::speedup(factor),
                    line.line
                )
            }
            _ => format!(
                "line {}: {} the ideal sectors, its loads and stores together",
                line.line,
                format::speedup(line.global_excess_factor.unwrap_or(1.0))
            ),
        };
        match (per_request_of_direction, self.worst.first()) {
            (_, Some(line)) if super::advice::is_atomic(&line.code, &line.access) => format!(
                "scattered global atomics: {} the ideal sectors on line {}",
                format::speedup(line.global_excess_factor.unwrap_or(1.0)),
                line.line
            ),
            (Some(v), Some(line)) => format!(
                "uncoalesced global {direction}s: {} sectors per request ({})",
                format::ratio(v),
                line_factor(line)
            ),
            (Some(v), None) => format!(
                "uncoalesced global {direction}s: {} sectors per request",
                format::ratio(v)
            ),
            (None, Some(line)) => format!(
                "uncoalesced global access: {} the ideal sectors on line {}",
                format::speedup(line.global_excess_factor.unwrap_or(1.0)),
                line.line
            ),
            (None, None) => format!(
                "uncoalesced global access: {} the ideal sectors",
                format::speedup(factor)
            ),
        }
    }
}

fn bank_conflicts(derived: &Derived, hot: &[HotLine], found: &mut Vec<Finding>) {
    let accesses = SharedAccesses::new(derived, hot);
    let raw_numbers = accesses.raw_numbers();
    if raw_numbers.is_empty() {
        return;
    }
    let conflicted = accesses.conflicted();
    for (kind, ways) in &conflicted {
        found.push(accesses.conflicts(kind, *ways, &raw_numbers));
    }
    if conflicted.is_empty()
        && accesses
            .directions
            .iter()
            .any(|d| d.2.is_some_and(|c| c > 0.0))
    {
        found.push(accesses.conflict_free(&raw_numbers));
    }
}

/// What a run's counters say about its shared-memory accesses.
struct SharedAccesses<'a> {
    /// The hot lines with more wavefronts than ncu's ideal, worst first.
    lines: Vec<&'a HotLine>,
    /// Whether source counters (ncu's ideal wavefronts) were collected.
    with_source: bool,
    /// Per direction, loads then stores: wavefronts per instruction and
    /// ncu's raw bank-conflict counter.
    directions: [(&'static str, Option<f64>, Option<f64>); 2],
}

impl<'a> SharedAccesses<'a> {
    fn new(derived: &Derived, hot: &'a [HotLine]) -> SharedAccesses<'a> {
        SharedAccesses {
            lines: hot
                .iter()
                .filter(|h| h.shared_ways.is_some_and(|w| w > EXCESS_FACTOR))
                .collect(),
            with_source: derived.get(Key::SharedExcessWavefronts).is_some(),
            directions: [
                (
                    "load",
                    derived.get(Key::SharedLoadWavefrontsPerInstruction),
                    derived.get(Key::SharedLoadBankConflicts),
                ),
                (
                    "store",
                    derived.get(Key::SharedStoreWavefrontsPerInstruction),
                    derived.get(Key::SharedStoreBankConflicts),
                ),
            ],
        }
    }

    fn per_instruction(&self, kind: &str) -> Option<f64> {
        self.directions
            .iter()
            .find(|d| d.0 == kind)
            .and_then(|d| d.1)
    }

    /// Wavefronts per instruction and the raw counter, per direction
    /// measured.
    fn raw_numbers(&self) -> Vec<String> {
        let counter_text = |counter: Option<f64>| {
            counter
                .map(format::count)
                .unwrap_or_else(|| "not collected".into())
        };
        self.directions
            .iter()
            .filter_map(|(kind, ratio, counter)| {
                ratio.map(|r| {
                    format!(
                        "{} wavefronts per shared {kind} instruction (raw bank-conflict counter {})",
                        format::ratio(r),
                        counter_text(*counter)
                    )
                })
            })
            .collect()
    }

    /// The conflicted directions and their ways.
    fn conflicted(&self) -> Vec<(&'static str, f64)> {
        // With source counters, ncu's ideal wavefronts (which allow for 8-
        // and 16-byte accesses) decide; without, one wavefront per
        // instruction.
        if !self.with_source {
            return self
                .directions
                .iter()
                .filter_map(|(kind, ratio, _)| {
                    ratio.filter(|r| *r > EXCESS_FACTOR).map(|r| (*kind, r))
                })
                .collect();
        }
        let Some(line) = self.lines.first() else {
            return Vec::new();
        };
        match line.worst_shared() {
            Some((kind, ways)) => vec![(kind, ways)],
            None => {
                let kind = line_direction(&line.access).unwrap_or_else(|| {
                    let (ld, st) = (
                        self.directions[0].2.unwrap_or(0.0),
                        self.directions[1].2.unwrap_or(0.0),
                    );
                    if ld >= st { "load" } else { "store" }
                });
                vec![(kind, line.shared_ways.unwrap_or(1.0))]
            }
        }
    }

    /// The finding for conflicts of on average `ways` wavefronts per ideal
    /// one on one direction.
    fn conflicts(&self, kind: &str, ways: f64, raw_numbers: &[String]) -> Finding {
        if let Some(line) = self
            .lines
            .first()
            .filter(|line| super::advice::has_shared_atomics(&line.access))
        {
            return self.colliding_atomics(line, raw_numbers);
        }
        let mut detail = format!(
            "Each warp's shared {kind} takes on average {} wavefronts per ideal one because several of its threads hit the same bank: {}.",
            format::ratio(ways),
            raw_numbers.join("; ")
        );
        match self.lines.first() {
            Some(line) => detail.push_str(&format!(
                " The line is {} (`{}`): {} wavefronts per ideal one, {} extra. {}.",
                line.line,
                line.code,
                format::ratio(line.shared_ways.unwrap_or(1.0)),
                format::count(line.shared_excess_wavefronts.unwrap_or(0.0)),
                format::capitalize(super::advice::conflict_fixes(&line.code, &line.access)[0].1)
            )),
            None => detail.push_str(" (Judged against 1 wavefront per instruction, the ideal for 4-byte accesses; no source counters were collected.)"),
        }
        Finding {
            kind: FindingKind::BankConflicts,
            severity: severity_of(ways),
            title: conflict_words(ways, &format!("shared-memory bank conflicts on {kind}s")),
            detail,
            lines: self.lines.iter().map(|h| h.line).collect(),
        }
    }

    /// The finding for shared atomics on `line` that take more wavefronts
    /// than ncu's ideal: the lanes of a warp update addresses in one bank
    /// (with data-dependent indices, such as a histogram's bins, often the
    /// same address), and the updates are serialised. The kernel-wide load
    /// and store counters do not count atomics, so they are quoted as what
    /// they are.
    fn colliding_atomics(&self, line: &HotLine, raw_numbers: &[String]) -> Finding {
        let ways = line.shared_ways.unwrap_or(1.0);
        Finding {
            kind: FindingKind::BankConflicts,
            severity: severity_of(ways),
            title: conflict_words(ways, "colliding shared-memory atomics"),
            detail: format!(
                "The shared-memory atomics of line {} (`{}`) take {} wavefronts per ideal one, {} extra: lanes of a warp update addresses in the same bank (with data-dependent indices, often the same address), and those updates are serialised. {}. The kernel's shared load and store counters, which do not count atomics, read {}.",
                line.line,
                line.code,
                format::ratio(ways),
                format::count(line.shared_excess_wavefronts.unwrap_or(0.0)),
                format::capitalize(super::advice::conflict_fixes(&line.code, &line.access)[0].1),
                raw_numbers.join("; ")
            ),
            lines: self.lines.iter().map(|h| h.line).collect(),
        }
    }

    /// The finding that the accesses are conflict-free although the raw
    /// counter is not zero.
    fn conflict_free(&self, raw_numbers: &[String]) -> Finding {
        let ratios: Vec<String> = ["load", "store"]
            .iter()
            .filter_map(|kind| self.per_instruction(kind).map(|r| (kind, r)))
            .enumerate()
            .map(|(i, (kind, r))| {
                let unit = if i == 0 { " wavefronts" } else { "" };
                format!("{}{unit} per {kind}", format::ratio(r))
            })
            .collect();
        let title = match (self.with_source, self.per_instruction("load")) {
            (false, Some(ld)) => format!(
                "shared loads are conflict-free ({} wavefronts per instruction)",
                format::ratio(ld)
            ),
            _ => format!(
                "shared accesses are conflict-free ({}: ncu's ideal)",
                ratios.join(", ")
            ),
        };
        Finding {
            kind: FindingKind::BankConflicts,
            severity: Severity::Info,
            title,
            detail: format!(
                "{}. The raw counter is not zero, but the wavefronts are at the conflict-free value{}. On this GPU the counter also counts wavefronts replayed for reasons other than bank conflicts, so gpuprof judges by the wavefronts.",
                format::capitalize(&raw_numbers.join("; ")),
                if self.with_source {
                    " ncu computes for these accesses on the source page"
                } else {
                    " for 4-byte accesses"
                }
            ),
            lines: Vec::new(),
        }
    }
}

fn occupancy(derived: &Derived, profile: &Profile, found: &mut Vec<Finding>) {
    let (Some(achieved), Some(theoretical)) = (
        derived.get(Key::AchievedOccupancy),
        derived.get(Key::TheoreticalOccupancy),
    ) else {
        return;
    };
    let limiters: Vec<&str> = derived.limiters.iter().map(|l| l.describe()).collect();
    let limit_text = match (derived.blocks_per_sm, limiters.is_empty()) {
        (Some(blocks), false) => format!(
            "{} blocks fit on an SM, limited by {}",
            format::count(blocks),
            limiters.join(" and ")
        ),
        _ => "the limiter was not collected".into(),
    };
    let resources = format!(
        "{} registers per thread, {} of shared memory per block, {} threads per block",
        derived
            .get(Key::RegistersPerThread)
            .map(format::count)
            .unwrap_or_else(|| "?".into()),
        derived
            .get(Key::SharedMemoryPerBlock)
            .map(format::bytes)
            .unwrap_or_else(|| "?".into()),
        profile
            .metric(crate::model::metrics::BLOCK_SIZE)
            .map(format::count)
            .unwrap_or_else(|| "?".into()),
    );
    let severity = if theoretical < 50.0 || achieved < 0.8 * theoretical {
        Severity::Warning
    } else {
        Severity::Info
    };
    let mut detail = format!(
        "{} of the warp slots were busy on average, of {} possible: {limit_text} ({resources}).",
        format::percent(achieved),
        format::percent(theoretical)
    );
    if theoretical < 50.0 {
        let hint = match derived.limiters.first() {
            Some(Limiter::Registers) => {
                "use fewer registers per thread (smaller per-thread tiles, or __launch_bounds__)"
            }
            Some(Limiter::SharedMemory) => "use less shared memory per block (smaller tiles)",
            Some(Limiter::Warps) | Some(Limiter::Blocks) => "use a larger block",
            None => "check the launch configuration",
        };
        detail.push_str(&format!(" Low occupancy leaves little to hide latency with: {hint}, unless each warp already has enough independent work."));
    } else if achieved < 0.8 * theoretical {
        let why = match profile.metric(crate::model::metrics::WAVES_PER_SM) {
            Some(w) if w < 1.0 => format!(
                "the grid is {} of a wave, too small to fill the SMs",
                format::waves(w)
            ),
            Some(w) => match Tail::of(w) {
                Some(tail) => format!(
                    "the grid is {} waves and its last wave is {} full",
                    format::ratio(w),
                    format::share(tail.last_wave_full)
                ),
                None => format!(
                    "the grid is {} waves, so not its size: warps or blocks finish unevenly",
                    format::ratio(w)
                ),
            },
            None => "blocks finish unevenly or the grid is small (waves not collected)".into(),
        };
        detail.push_str(&format!(" Achieved is well below theoretical: {why}."));
    }
    found.push(Finding {
        kind: FindingKind::Occupancy,
        severity,
        title: format!(
            "occupancy {} of {} theoretical",
            format::percent(achieved),
            format::percent(theoretical)
        ),
        detail,
        lines: Vec::new(),
    });
}

/// Counters in other files than the kernel's (toolkit headers, included
/// helpers) are not listed line by line: their share is named when it
/// reaches 5% of the stall samples or of the executed instructions, or
/// when they hold excess sectors or wavefronts.
fn other_files(profile: &Profile, found: &mut Vec<Finding>) {
    let (samples, instructions) = (profile.stall_samples(), profile.instructions_executed());
    let share = |part: f64, whole: f64| if whole > 0.0 { part / whole } else { 0.0 };
    let others = &profile.other_files;
    let sample_share = share(others.iter().map(|f| f.warp_stall_samples).sum(), samples);
    let instruction_share = share(
        others.iter().map(|f| f.instructions_executed).sum(),
        instructions,
    );
    let excess = others
        .iter()
        .any(|f| f.shared_wavefronts_excessive > 0.0 || f.global_sectors_excessive > 0.0);
    if sample_share < 0.05 && instruction_share < 0.05 && !excess {
        return;
    }
    let mut by_weight: Vec<_> = others.iter().collect();
    by_weight.sort_by(|a, b| b.warp_stall_samples.total_cmp(&a.warp_stall_samples));
    let files: Vec<String> = by_weight
        .iter()
        .take(3)
        .map(|f| {
            format!(
                "{} ({} of the stall samples on {})",
                f.path,
                format::share(share(f.warp_stall_samples, samples)),
                format::counted(f.lines, "line")
            )
        })
        .collect();
    let excess_text = match excess {
        true => " Some of those lines move excess global sectors or shared wavefronts.",
        false => "",
    };
    found.push(Finding {
        kind: FindingKind::OtherFiles,
        severity: Severity::Info,
        title: format!(
            "{} of the stall samples fall in other files",
            format::share(sample_share)
        ),
        detail: format!(
            "ncu attributes {} of the stall samples and {} of the executed instructions to lines outside the kernel's file: {}. These are code the kernel calls into (a barrier, an intrinsic, a library routine); their cost belongs to the calls in the kernel, which the per-line tables here do not list, and the shares of the kernel's own lines are of the whole.{excess_text}",
            format::share(sample_share),
            format::share(instruction_share),
            files.join("; ")
        ),
        lines: Vec::new(),
    });
}

/// The idle end of a grid of more than one wave whose last wave is short.
struct Tail {
    /// How full the last wave is, in 0..1.
    last_wave_full: f64,
    /// The share of the SMs' time the short last wave leaves idle, when
    /// every block takes the same time.
    idle: f64,
}

impl Tail {
    /// The tail of a grid of `waves` waves (ncu's waves per SM), when it
    /// leaves at least 10% of the SMs' time idle.
    fn of(waves: f64) -> Option<Tail> {
        let whole = waves.floor();
        let last_wave_full = waves - whole;
        if waves < 1.0 || last_wave_full <= 0.0 {
            return None;
        }
        let idle = (1.0 - last_wave_full) / waves.ceil();
        (idle >= 0.10).then_some(Tail {
            last_wave_full,
            idle,
        })
    }
}

/// How the grid fills the GPU: under 0.9 of a wave (ncu's waves per SM)
/// SMs stay empty whatever the occupancy; a short last wave idles part of
/// the GPU at the end.
fn waves(profile: &Profile, found: &mut Vec<Finding>) {
    let Some(waves) = profile.metric(crate::model::metrics::WAVES_PER_SM) else {
        return;
    };
    let grid = profile.metric(crate::model::metrics::GRID_SIZE);
    let blocks = grid
        .map(|b| match b == 1.0 {
            true => "its 1 block ".to_string(),
            false => format!("its {} blocks ", format::count(b)),
        })
        .unwrap_or_default();
    let fill = match grid {
        Some(1.0) => "fills",
        Some(_) => "fill",
        None => "it fills",
    };
    // Just under one wave (0.9 or more) leaves a tenth of the slots or
    // less empty: not worth a warning.
    if waves < 0.9 {
        found.push(Finding {
            kind: FindingKind::Waves,
            severity: Severity::Warning,
            title: format!("the grid fills {} of one wave", format::wave_share(waves)),
            detail: format!(
                "ncu counts {} waves per SM: {blocks}{fill} {} of what the GPU holds at once (SMs × resident blocks per SM), so SMs stay idle whatever the occupancy. Launch more blocks (smaller blocks, or less work per block) so that every SM gets work.",
                format::waves(waves),
                format::wave_share(waves)
            ),
            lines: Vec::new(),
        });
    } else if let Some(tail) = Tail::of(waves) {
        found.push(Finding {
            kind: FindingKind::Waves,
            severity: Severity::Info,
            title: format!(
                "a short last wave: {} waves per SM",
                format::ratio(waves)
            ),
            detail: format::capitalize(&format!(
                "{blocks}run in {} waves and the last is {} full: if blocks take equal time, about {} of the SMs' time in this kernel idles in the tail. A grid of whole waves (or many more waves) avoids it.",
                waves.ceil(),
                format::share(tail.last_wave_full),
                format::share(tail.idle)
            )),
            lines: Vec::new(),
        });
    }
}

/// The stall reason with the most samples over `lines` (`selected` and
/// `not_selected` are issue, not stalls): its name, its samples and the
/// samples of every stall reason together.
pub(super) fn dominant_stall(lines: &[SourceLine]) -> Option<(&str, f64, f64)> {
    let mut totals: std::collections::BTreeMap<&str, f64> = std::collections::BTreeMap::new();
    for line in lines {
        for (name, count) in &line.stalls {
            if !matches!(name.as_str(), "selected" | "not_selected") {
                *totals.entry(name).or_default() += count;
            }
        }
    }
    let all: f64 = totals.values().sum();
    let (name, count) = totals.into_iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    Some((name, count, all))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_working_set_in_l2_is_said_from_the_declared_bytes_or_else_the_buffers() {
        let results =
            crate::model::read_results(include_str!("../../examples/transpose/results.json"))
                .unwrap();
        let derived = super::super::derived::derive(None, None, None);
        let said = |declared: Option<f64>, buffers: Option<f64>| {
            findings(
                &derived,
                None,
                None,
                &[],
                results.device.as_ref(),
                DataSize { declared, buffers },
                Some(Temperature::Cold),
            )
            .into_iter()
            .find(|f| matches!(f.kind, FindingKind::CacheResident))
            .map(|f| f.detail)
        };
        let declared = said(Some(1e6), Some(9e6)).unwrap();
        assert!(
            declared.starts_with("The problem moves 1.00 MB and"),
            "{declared}"
        );
        let buffers = said(None, Some(9e6)).unwrap();
        assert!(
            buffers.starts_with("Its buffers hold 9.00 MB and"),
            "{buffers}"
        );
        assert_eq!(said(None, None), None);
        assert_eq!(said(None, Some(1e12)), None);
    }

    #[test]
    fn only_an_average_at_the_32_bank_maximum_is_called_32_way() {
        assert_eq!(
            conflict_words(32.0, "shared-load conflict"),
            "32-way shared-load conflict"
        );
        assert_eq!(
            conflict_words(31.9, "shared-load conflict"),
            "32-way shared-load conflict"
        );
        // A tree whose levels are 2-, 4- and 8-way averages to about 4:
        // no access was 4-way, so only the average is said.
        assert_eq!(
            conflict_words(3.88, "shared-memory bank conflicts on loads"),
            "shared-memory bank conflicts on loads (on average 3.88× the ideal wavefronts)"
        );
    }

    fn launch(metrics: &[(&str, f64)]) -> Profile {
        Profile {
            ncu_id: 0,
            kernel_name: "kernel".into(),
            metrics: metrics
                .iter()
                .map(|(name, value)| (name.to_string(), *value))
                .collect(),
            source_lines: Vec::new(),
            source_note: None,
            other_files: Vec::new(),
            lines_at: None,
            breakdown: Default::default(),
        }
    }

    fn waves_finding(waves_per_sm: f64) -> Option<Finding> {
        let mut found = Vec::new();
        waves(
            &launch(&[
                (crate::model::metrics::WAVES_PER_SM, waves_per_sm),
                (crate::model::metrics::GRID_SIZE, 64.0),
            ]),
            &mut found,
        );
        found.pop()
    }

    #[test]
    fn waves_name_a_grid_under_one_wave_and_a_short_tail_only() {
        let small = waves_finding(0.06).unwrap();
        assert_eq!(small.severity, Severity::Warning);
        assert_eq!(small.title, "the grid fills 6.00% of one wave");
        assert!(
            small.detail.contains("its 64 blocks fill 6.00%"),
            "{}",
            small.detail
        );
        // One block of a GPU that holds thousands: ncu prints 0 waves.
        let mut found = Vec::new();
        waves(
            &launch(&[
                (crate::model::metrics::WAVES_PER_SM, 0.0),
                (crate::model::metrics::GRID_SIZE, 1.0),
            ]),
            &mut found,
        );
        let one = found.pop().unwrap();
        assert_eq!(one.title, "the grid fills under 0.5% of one wave");
        assert!(
            one.detail.starts_with(
                "ncu counts under 0.01 waves per SM: its 1 block fills under 0.5% of what"
            ),
            "{}",
            one.detail
        );
        // 1.2 waves: the second wave is 20% full, idling 40% of 2 waves.
        let tail = waves_finding(1.2).unwrap();
        assert_eq!(tail.title, "a short last wave: 1.20 waves per SM");
        assert!(
            tail.detail.contains("about 40.0% of the SMs' time"),
            "{}",
            tail.detail
        );
        assert!(
            tail.detail.starts_with("Its 64 blocks run in 2 waves"),
            "{}",
            tail.detail
        );
        // Whole waves, or so many that the tail is a small share: nothing.
        assert_eq!(waves_finding(2.0), None);
        assert_eq!(waves_finding(124.3), None);
        assert_eq!(waves_finding(1.0), None);
        assert_eq!(waves_finding(0.97), None);
    }

    #[test]
    fn drain_and_barrier_waits_are_attributed_to_the_stores_and_the_barrier() {
        let source = "__global__ void k(float *out) {\n  tile[t] = in[t];\n  __syncthreads();\n  float v = tile[t ^ 1];\n  out[t] = v;\n}\n";
        let store = SourceLine {
            line: 5,
            access_operation: "Store(4)".into(),
            address_space: "Global(4)".into(),
            ..SourceLine::default()
        };
        let lines = [store];
        assert_eq!(
            waits_for("drain", 6, &lines, source).as_deref(),
            Some("the stores of line 5 must finish before the warps exit")
        );
        assert_eq!(
            waits_for("barrier", 4, &lines, source).as_deref(),
            Some(
                "the wait belongs to the barrier on line 3, where warps wait for the slowest of the block"
            )
        );
        assert_eq!(
            waits_for("barrier", 3, &lines, source).as_deref(),
            Some("warps wait here for the slowest of the block")
        );
        assert_eq!(waits_for("long_sb", 4, &lines, source), None);
        assert_eq!(waits_for("barrier", 2, &lines, source), None);
    }

    #[test]
    fn a_material_share_in_other_files_is_named_and_a_trace_is_not() {
        let with_header = |samples: f64| {
            let mut profile = launch(&[]);
            profile.source_lines = vec![SourceLine {
                line: 7,
                warp_stall_samples: Some(800.0),
                instructions_executed: Some(1000.0),
                ..SourceLine::default()
            }];
            profile.other_files = vec![crate::model::source::OtherFile {
                path: "cuda/barrier".into(),
                lines: 2,
                warp_stall_samples: samples,
                ..Default::default()
            }];
            let mut found = Vec::new();
            other_files(&profile, &mut found);
            found
        };
        let named = with_header(200.0);
        assert_eq!(
            named[0].title,
            "20.0% of the stall samples fall in other files"
        );
        assert!(
            named[0]
                .detail
                .contains("cuda/barrier (20.0% of the stall samples on 2 lines)"),
            "{}",
            named[0].detail
        );
        assert!(with_header(8.0).is_empty());
    }
}
