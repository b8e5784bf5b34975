//! What limits a variant now, and what to try next: the bottleneck (an
//! access problem, DRAM bandwidth, L1/shared throughput, instruction issue,
//! or latency) with the numbers that show it, and the optimization from the
//! knowledge base most likely to help.

use serde::Serialize;

use super::derived::{Derived, Key};
use super::findings::{Finding, FindingKind, Severity};
use super::{CeilingShare, format, knowledge};
use crate::model::Change;

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
}

impl Limit {
    /// A bottleneck whose advice is to try `change`, for `why`.
    fn trying(bottleneck: &str, evidence: String, change: Change, why: &str) -> Limit {
        let entry = knowledge::entry(change);
        Limit {
            bottleneck: bottleneck.into(),
            evidence,
            next: Some(change),
            advice: format!(
                "Try {} ({}): {why}",
                entry.title.to_lowercase(),
                change.word()
            ),
        }
    }
}

/// The limit of one run, from its derived metrics, findings and its share
/// of the ceilings; `None` without counters.
pub fn limit(derived: &Derived, findings: &[Finding], ceilings: &[CeilingShare]) -> Option<Limit> {
    if let Some(limit) = access_problem(findings) {
        return Some(limit);
    }
    let memory = derived.get(Key::MemoryThroughput)?;
    let compute = derived.get(Key::SmThroughput)?;
    let dram = derived.get(Key::DramThroughput).unwrap_or(0.0);
    let l1 = derived.get(Key::L1Throughput).unwrap_or(0.0);
    let numbers = format!(
        "memory {} and SM {} of peak (DRAM {}, L1/shared {})",
        format::percent(memory),
        format::percent(compute),
        format::percent(dram),
        format::percent(l1)
    );
    if memory >= 60.0 && memory >= compute {
        return Some(memory_limit(findings, ceilings, numbers, dram, l1));
    }
    if compute >= 60.0 {
        return Some(Limit::trying(
            "instruction issue",
            numbers,
            Change::LoopUnrolling,
            "issue fewer instructions for the same work",
        ));
    }
    let occupancy = derived.get(Key::AchievedOccupancy).unwrap_or(100.0);
    Some(Limit::trying(
        if occupancy < 40.0 {
            "latency, with low occupancy"
        } else {
            "latency"
        },
        format!(
            "{numbers}; achieved occupancy {}",
            format::percent(occupancy)
        ),
        Change::WorkPerThread,
        "give each thread several independent loads to keep in flight",
    ))
}

/// A finding of this kind that is at least a warning.
fn problem(findings: &[Finding], kind: FindingKind) -> Option<&Finding> {
    findings
        .iter()
        .find(|f| f.kind == kind && f.severity >= Severity::Warning)
}

/// Uncoalesced access, bank conflicts or spills, which limit a run before
/// any throughput does.
fn access_problem(findings: &[Finding]) -> Option<Limit> {
    let fixable = [
        (
            FindingKind::Uncoalesced,
            "uncoalesced global access",
            Change::Coalescing,
            "make neighbouring threads touch neighbouring addresses",
        ),
        (
            FindingKind::BankConflicts,
            "shared-memory bank conflicts",
            Change::Padding,
            "spread a warp's shared accesses over the 32 banks",
        ),
    ];
    for (kind, bottleneck, change, why) in fixable {
        if let Some(finding) = problem(findings, kind) {
            return Some(Limit::trying(
                bottleneck,
                finding.title.clone(),
                change,
                why,
            ));
        }
    }
    problem(findings, FindingKind::Spills).map(|finding| Limit {
        bottleneck: "register spills".into(),
        evidence: finding.title.clone(),
        next: None,
        advice: "Keep fewer values live per thread (a smaller per-thread tile, less unrolling) so nothing goes to local memory.".into(),
    })
}

/// What limits a memory-bound run: DRAM bandwidth when it is close to a
/// copy ceiling, else L1/shared throughput, DRAM traffic above the minimum
/// or the memory instructions themselves. `numbers` are the throughputs.
fn memory_limit(
    findings: &[Finding],
    ceilings: &[CeilingShare],
    numbers: String,
    dram: f64,
    l1: f64,
) -> Limit {
    let best_ceiling = ceilings
        .iter()
        .filter(|c| c.measure == "bandwidth")
        .map(|c| (c.share, c.ceiling.as_str()))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if let Some((share, ceiling)) = best_ceiling.filter(|(share, _)| *share >= 0.85) {
        return Limit {
            bottleneck: "DRAM bandwidth".into(),
            evidence: format!("{} of `{ceiling}`'s bandwidth; {numbers}", format::share(share)),
            next: None,
            advice: "The kernel moves its bytes about as fast as a copy can: it is done, unless the algorithm can move fewer bytes (reuse, fusion).".into(),
        };
    }
    if l1 >= dram && l1 >= 60.0 {
        return Limit::trying(
            "L1/shared-memory throughput",
            numbers,
            Change::RegisterBlocking,
            "reuse each shared-memory value from registers",
        );
    }
    if let Some(finding) = problem(findings, FindingKind::ExtraTraffic) {
        return Limit::trying(
            "DRAM traffic above the minimum",
            format!("{}; {numbers}", finding.title),
            Change::SharedMemoryTiling,
            "fetch each element from DRAM once",
        );
    }
    Limit::trying(
        "memory throughput",
        numbers,
        Change::VectorizedAccess,
        "fewer, wider memory instructions for the same bytes",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::derived::Derived;

    fn derived(values: &[(Key, f64)]) -> Derived {
        Derived {
            values: values.iter().copied().collect(),
            ..Derived::default()
        }
    }

    #[test]
    fn a_kernel_at_the_copy_bandwidth_is_done() {
        let at_limit = derived(&[
            (Key::MemoryThroughput, 90.0),
            (Key::SmThroughput, 30.0),
            (Key::DramThroughput, 88.0),
        ]);
        let ceiling = [CeilingShare {
            ceiling: "copy".into(),
            measure: "bandwidth",
            share: 0.97,
        }];
        let limit = limit(&at_limit, &[], &ceiling).unwrap();
        assert_eq!(limit.bottleneck, "DRAM bandwidth");
        assert_eq!(limit.next, None);
        assert!(
            limit.evidence.starts_with("97.0% of `copy`'s bandwidth"),
            "{}",
            limit.evidence
        );
    }

    #[test]
    fn low_throughput_everywhere_is_latency() {
        let idle = derived(&[
            (Key::MemoryThroughput, 20.0),
            (Key::SmThroughput, 10.0),
            (Key::AchievedOccupancy, 24.0),
        ]);
        let limit = limit(&idle, &[], &[]).unwrap();
        assert_eq!(limit.bottleneck, "latency, with low occupancy");
        assert_eq!(limit.next, Some(Change::WorkPerThread));
    }

    #[test]
    fn an_access_problem_comes_first() {
        let busy = derived(&[(Key::MemoryThroughput, 90.0), (Key::SmThroughput, 10.0)]);
        let finding = Finding {
            kind: FindingKind::BankConflicts,
            severity: Severity::Problem,
            title: "32-way shared-memory bank conflicts on loads".into(),
            detail: String::new(),
            lines: vec![22],
        };
        let limit = limit(&busy, &[finding], &[]).unwrap();
        assert_eq!(limit.next, Some(Change::Padding));
        assert_eq!(
            limit.evidence,
            "32-way shared-memory bank conflicts on loads"
        );
    }

    #[test]
    fn without_counters_there_is_no_limit() {
        assert_eq!(limit(&Derived::default(), &[], &[]), None);
    }
}
