//! What limits a variant now: the bottleneck with the numbers that show it.
//! An access finding (uncoalesced global access, bank conflicts) is the
//! limiter only when its lines carry a material share of the kernel's
//! traffic and stall samples and no unit it does not load is saturated;
//! otherwise the busiest unit decides (DRAM, L2, L1/shared, or instruction
//! issue named from issue-slot use and the stall mix), with "between" when
//! it sits in a threshold's band, and latency when nothing is busy; a
//! unit ncu counts over its active cycles (L1/shared, issue) does not
//! stand for the GPU under half a wave, where the grid is the limit. A
//! bandwidth ceiling ends the ladder only when it is itself a speed of
//! light; one this run outpaces is said to bound nothing. What to try next
//! is chosen from the evidence in `advice`.

use serde::Serialize;

use super::advice::{self, Advice};
use super::derived::Key;
use super::evidence::{Evidence, Level, Weight};
use super::findings::{FindingKind, Severity, dominant_stall, stall_reason};
use super::format;
use crate::model::Change;
use crate::model::metrics;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Limit {
    /// e.g. "DRAM bandwidth".
    pub bottleneck: String,
    /// The numbers that show it.
    pub evidence: String,
    /// The knowledge-base change most likely to help, if any.
    pub next: Option<Change>,
    /// What to do, in a sentence.
    pub advice: String,
    /// What the knowledge base's "next step" sentences may assume.
    pub facts: advice::Facts,
    /// The numbers the bottleneck was chosen on, for the claims audit.
    pub basis: Basis,
    /// For a sequence of several kernels, the kernel whose launch the
    /// bottleneck was chosen on and its share of the sequence's time
    /// (`oddEvenMergeGlobal, 95.5% of the sequence's time`): the weight
    /// the limiter carries. None for one launch or one kernel.
    pub scope: Option<String>,
}

impl Limit {
    /// The bottleneck as the report names it, with its scope.
    pub fn shown(&self) -> String {
        match &self.scope {
            Some(scope) => format!("{} (in {scope})", self.bottleneck),
            None => self.bottleneck.clone(),
        }
    }
}

/// Why a bottleneck was named, with the numbers its rule weighed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "rule")]
pub enum Basis {
    /// An access finding that carries its weight; `weight` is absent
    /// without source counters, where only a severe finding counts.
    Access {
        finding: FindingKind,
        weight: Option<Weight>,
    },
    Spills,
    /// At 90% or more of a bandwidth ceiling that is a speed of light.
    SpeedOfLight {
        ceiling: String,
        share: f64,
        of_device_peak: f64,
    },
    /// The busiest unit, in percent of its peak, in or above its band.
    Unit {
        unit: BusyUnit,
        busy: f64,
        level: Level,
        /// The share of stall samples that are issue-side, for issue.
        issue_stalls: Option<f64>,
    },
    /// Nothing busy: the busiest unit's percent of peak.
    Latency {
        busiest: f64,
    },
    /// A unit whose throughput ncu counts over its active cycles (L1/shared,
    /// issue) is busy, but the grid fills under half a wave (`waves`, ncu's
    /// waves per SM): the share is of the few SMs in use, and the GPU as a
    /// whole waits on too few blocks.
    SmallGrid {
        unit: BusyUnit,
        busy: f64,
        waves: f64,
    },
}

/// Under this many waves per SM most SMs have no block: a throughput
/// counted over active cycles then describes the few SMs in use.
pub const SMALL_GRID_WAVES: f64 = 0.5;

/// Stall reasons that mean a warp was ready and the issue slots were the
/// constraint (or the pipes behind them).
const ISSUE_STALLS: [&str; 6] = [
    "selected",
    "not_selected",
    "dispatch",
    "math",
    "wait",
    "branch_resolving",
];

/// The limit of one run; `None` without throughput counters.
pub fn limit(e: &Evidence) -> Option<Limit> {
    e.get(Key::MemoryThroughput)?;
    e.get(Key::SmThroughput)?;
    let units = Units::of(e);
    let Verdict {
        bottleneck,
        evidence,
        advice,
        basis,
    } = access_limit(e, &units)
        .or_else(|| spills(e))
        .or_else(|| at_speed_of_light(e, &units))
        .unwrap_or_else(|| units.limit(e));
    let notes: Vec<String> = minor_findings(e)
        .into_iter()
        .chain(ceiling_notes(e))
        .collect();
    Some(Limit {
        bottleneck,
        evidence: std::iter::once(evidence)
            .chain(notes)
            .collect::<Vec<_>>()
            .join("; "),
        next: advice.change,
        advice: advice.text,
        facts: advice::Facts::of(e),
        basis,
        scope: None,
    })
}

/// A unit the limiter compares, by the throughput it is judged on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BusyUnit {
    Issue,
    Dram,
    L1Shared,
}

impl BusyUnit {
    /// The derived metric whose percent of peak the verdict rests on.
    pub fn key(self) -> Key {
        match self {
            BusyUnit::Issue => Key::IssueActive,
            BusyUnit::Dram => Key::DramThroughput,
            BusyUnit::L1Shared => Key::L1Throughput,
        }
    }

    /// How the report names it.
    pub fn name(self) -> &'static str {
        match self {
            BusyUnit::Issue => "instruction issue",
            BusyUnit::Dram => "DRAM",
            BusyUnit::L1Shared => "L1/shared-memory",
        }
    }
}

/// A bottleneck, the numbers that show it, what to do and why it was named.
struct Verdict {
    bottleneck: String,
    evidence: String,
    advice: Advice,
    basis: Basis,
}

/// The throughputs the limiter compares, in percent of peak.
struct Units {
    dram: f64,
    l1: f64,
    issue: Option<f64>,
    issue_stalls: Option<f64>,
    /// The busiest unit in ncu's throughput breakdown, in words, and its
    /// percent of peak (when the breakdowns were collected).
    busiest_part: Option<(String, f64)>,
}

impl Units {
    fn of(e: &Evidence) -> Units {
        Units {
            dram: e.get(Key::DramThroughput).unwrap_or(0.0),
            l1: e.get(Key::L1Throughput).unwrap_or(0.0),
            issue: e.get(Key::IssueActive),
            issue_stalls: e.stall_share(&ISSUE_STALLS),
            busiest_part: e
                .profile
                .and_then(|p| p.busiest_part())
                .map(|(metric, percent)| (metrics::breakdown_part_label(metric), percent)),
        }
    }

    /// The busier of DRAM and L1/shared (L2 carries the DRAM traffic of a
    /// streaming kernel, so it names no limit of its own), and its percent.
    fn memory(&self) -> (BusyUnit, f64) {
        if self.l1 > self.dram {
            (BusyUnit::L1Shared, self.l1)
        } else {
            (BusyUnit::Dram, self.dram)
        }
    }

    /// Issue-bound at 80% of issue slots, or at 60% when at least half of
    /// the stall samples are issue-side; "between" from 60%.
    fn issue_level(&self) -> Level {
        let Some(issue) = self.issue else {
            return Level::Below;
        };
        match Level::of(issue, 60.0, 80.0) {
            Level::Between if self.issue_stalls.is_some_and(|s| s >= 0.5) => Level::Above,
            level => level,
        }
    }

    fn numbers(&self) -> String {
        let issue = match (self.issue, self.issue_stalls) {
            (Some(i), Some(s)) => format!(
                "issue slots {} busy, {} of stall samples issue-side",
                format::percent(i),
                format::share(s)
            ),
            (Some(i), None) => format!("issue slots {} busy", format::percent(i)),
            _ => "issue slots not collected".into(),
        };
        let part = match &self.busiest_part {
            Some((label, percent)) => format!(
                "; the busiest unit in ncu's throughput breakdown is {label} at {} of its peak",
                format::percent(*percent)
            ),
            None => String::new(),
        };
        format!(
            "DRAM {}, L1/shared {} of peak; {issue}{part}",
            format::percent(self.dram),
            format::percent(self.l1)
        )
    }

    /// The busiest unit, or latency when none is in or above its band.
    fn limit(&self, e: &Evidence) -> Verdict {
        let (unit, busy) = self.memory();
        let memory = Level::of(busy, 60.0, 80.0);
        let issue = self.issue_level();
        let issue_first = issue > memory || (issue == memory && self.issue.unwrap_or(0.0) > busy);
        let (level, name, advice, basis) = if issue_first {
            (
                issue,
                BusyUnit::Issue.name().to_string(),
                advice::issue(e),
                Basis::Unit {
                    unit: BusyUnit::Issue,
                    busy: self.issue.unwrap_or(0.0),
                    level: issue,
                    issue_stalls: self.issue_stalls,
                },
            )
        } else {
            (
                memory,
                format!("{} throughput", unit.name()),
                advice::memory(e, unit),
                Basis::Unit {
                    unit,
                    busy,
                    level: memory,
                    issue_stalls: None,
                },
            )
        };
        let counted_when_active =
            matches!(&basis, Basis::Unit { unit, .. } if *unit != BusyUnit::Dram);
        let waves = e.metric(metrics::WAVES_PER_SM);
        if let (true, Level::Above | Level::Between, Some(waves)) =
            (counted_when_active, level, waves)
            && waves < SMALL_GRID_WAVES
            && let Basis::Unit { unit, busy, .. } = basis
        {
            return small_grid(e, self, (unit, busy), waves);
        }
        match level {
            Level::Above => Verdict {
                bottleneck: name,
                evidence: self.numbers(),
                advice,
                basis,
            },
            Level::Between => Verdict {
                bottleneck: format!("{name} or latency (between)"),
                evidence: format!(
                    "{} (60–80% is the band where neither is clear)",
                    self.numbers()
                ),
                advice,
                basis,
            },
            Level::Below => latency(e, self),
        }
    }
}

/// A unit busy on the few SMs a grid of under half a wave occupies: the
/// GPU waits on too few blocks, whatever that unit does on them.
fn small_grid(e: &Evidence, units: &Units, (unit, busy): (BusyUnit, f64), waves: f64) -> Verdict {
    let top = dominant_stall(e.lines()).map(|(name, _, _)| name);
    Verdict {
        bottleneck: "a grid too small to fill the GPU".into(),
        evidence: format!(
            "{}; ncu counts {} over its active cycles, so its {} is of the few SMs the grid occupies ({} of one wave)",
            units.numbers(),
            unit.name(),
            format::percent(busy),
            format::wave_share(waves)
        ),
        advice: advice::latency(e, top),
        basis: Basis::SmallGrid { unit, busy, waves },
    }
}

/// Nothing is busy: warps wait. The dominant stall reason and occupancy
/// say on what.
fn latency(e: &Evidence, units: &Units) -> Verdict {
    let occupancy = e.get(Key::AchievedOccupancy);
    let low = occupancy.is_some_and(|o| o < 40.0);
    let top = dominant_stall(e.lines()).map(|(name, _, _)| name);
    let mut evidence = units.numbers();
    if let Some(o) = occupancy {
        evidence.push_str(&format!("; achieved occupancy {}", format::percent(o)));
    }
    if let Some(name) = top {
        evidence.push_str(&format!("; top stall: {}", stall_reason(name)));
    }
    let bottleneck = if low {
        "latency, with low occupancy"
    } else {
        "latency"
    };
    Verdict {
        bottleneck: bottleneck.into(),
        evidence,
        advice: advice::latency(e, top),
        basis: Basis::Latency {
            busiest: units.memory().1.max(units.issue.unwrap_or(0.0)),
        },
    }
}

/// The first access finding that carries its weight and is not beaten by
/// a saturated unit it does not load.
fn access_limit(e: &Evidence, units: &Units) -> Option<Verdict> {
    let candidates = [
        (
            FindingKind::Uncoalesced,
            "uncoalesced global access",
            "global sectors",
        ),
        (
            FindingKind::BankConflicts,
            "shared-memory bank conflicts",
            "shared wavefronts",
        ),
    ];
    candidates.into_iter().find_map(|(kind, bottleneck, unit)| {
        let finding = e.problem(kind)?;
        let weight = e.weight(finding);
        let material = match weight {
            Some(w) => w.level() == Level::Above,
            // Without source counters only the kernel-wide factor is known.
            None => finding.severity == Severity::Problem,
        };
        // Conflicts load L1/shared and uncoalesced access every memory
        // unit; issue, and DRAM for conflicts, are the others.
        let other = match kind {
            FindingKind::Uncoalesced => units.issue.unwrap_or(0.0),
            _ => units.issue.unwrap_or(0.0).max(units.dram),
        };
        if !material || other >= 80.0 {
            return None;
        }
        let evidence = match weight {
            Some(w) => format!("{}: {}", finding.title, w.describe(unit)),
            None => finding.title.clone(),
        };
        Some(Verdict {
            bottleneck: bottleneck.to_string(),
            evidence,
            advice: advice::access(e, finding),
            basis: Basis::Access {
                finding: kind,
                weight,
            },
        })
    })
}

fn spills(e: &Evidence) -> Option<Verdict> {
    e.problem(FindingKind::Spills).map(|finding| Verdict {
        bottleneck: "register spills".into(),
        evidence: finding.title.clone(),
        advice: Advice::plain("Keep fewer values live per thread (a smaller per-thread tile, less unrolling) so nothing goes to local memory."),
        basis: Basis::Spills,
    })
}

/// DRAM bandwidth, done: at 90% or more of a ceiling that is itself a
/// speed of light, and still bounded by it.
fn at_speed_of_light(e: &Evidence, units: &Units) -> Option<Verdict> {
    let ceiling = e.ceilings.iter().find(|c| {
        c.share.measure == "bandwidth"
            && c.bounds()
            && c.share.share >= 0.90
            && c.speed_of_light() == Level::Above
    })?;
    let of_device_peak = ceiling.of_device_peak?;
    Some(Verdict {
        bottleneck: "DRAM bandwidth".into(),
        evidence: format!(
            "{} of `{}`'s bandwidth, and `{}` runs at {} of the device's DRAM peak; {}",
            format::share(ceiling.share.share),
            ceiling.share.ceiling,
            ceiling.share.ceiling,
            format::share(of_device_peak),
            units.numbers()
        ),
        advice: Advice::plain(
            "The kernel moves its bytes about as fast as a copy can: it is done, unless the algorithm can move fewer bytes (reuse, fusion).",
        ),
        basis: Basis::SpeedOfLight {
            ceiling: ceiling.share.ceiling.clone(),
            share: ceiling.share.share,
            of_device_peak,
        },
    })
}

/// Access findings too light to be the limiter but too heavy to drop.
fn minor_findings(e: &Evidence) -> Vec<String> {
    [FindingKind::Uncoalesced, FindingKind::BankConflicts]
        .into_iter()
        .filter_map(|kind| {
            let finding = e.problem(kind)?;
            let weight = e.weight(finding)?;
            (weight.level() != Level::Above).then(|| {
                format!(
                    "{} is a smaller cost: its lines carry {} of the stall samples",
                    finding.title,
                    format::share(weight.stalls)
                )
            })
        })
        .collect()
}

/// What each bandwidth ceiling does not mean for this run: one it
/// outpaces bounds nothing, and one it comes close to (75% or more) that
/// is not itself near the device's DRAM peak does not make it done.
/// Several ceilings close but short of a speed of light are named in one
/// sentence.
fn ceiling_notes(e: &Evidence) -> Vec<String> {
    let bandwidth = e.ceilings.iter().filter(|c| c.share.measure == "bandwidth");
    let mut notes: Vec<String> = bandwidth
        .clone()
        .filter(|c| !c.bounds())
        .map(|c| {
            let name = &c.share.ceiling;
            format!(
                "this run reaches {} of `{name}`'s bandwidth, so `{name}` is not a bound for it",
                format::share(c.share.share)
            )
        })
        .collect();
    // (name, its share of the device's DRAM peak, this run's share of it)
    let short_of_light: Vec<(&str, f64, f64)> = bandwidth
        .filter(|c| c.bounds() && c.share.share >= 0.75 && c.speed_of_light() != Level::Above)
        .filter_map(|c| Some((c.share.ceiling.as_str(), c.of_device_peak?, c.share.share)))
        .collect();
    match short_of_light.as_slice() {
        [] => {}
        [(name, peak, reached)] => notes.push(format!(
            "`{name}` runs at {} of the device's DRAM peak, under the 80% a speed of light needs, so reaching {} of it does not make this run done",
            format::share(*peak),
            format::share(*reached)
        )),
        several => {
            let reached: Vec<String> = several
                .iter()
                .map(|(name, peak, reached)| {
                    format!(
                        "{} of `{name}` (itself at {})",
                        format::share(*reached),
                        format::share(*peak)
                    )
                })
                .collect();
            notes.push(format!(
                "reaching {} does not make this run done: none of them runs at the 80% of the device's DRAM peak a speed of light needs",
                join_words(&reached)
            ));
        }
    }
    notes
}

/// `a`, `a and b`, `a, b and c`.
fn join_words(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
#[path = "limits_tests.rs"]
mod tests;
