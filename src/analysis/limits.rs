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

fn next_step(change: Change, why: &str) -> (Option<Change>, String) {
    let entry = knowledge::entry(change);
    (
        Some(change),
        format!(
            "Try {} ({}): {why}",
            entry.title.to_lowercase(),
            change.word()
        ),
    )
}

/// The limit of one run, from its derived metrics, findings and its share
/// of the ceilings; `None` without counters.
pub fn limit(derived: &Derived, findings: &[Finding], ceilings: &[CeilingShare]) -> Option<Limit> {
    let problem = |kind: FindingKind| {
        findings
            .iter()
            .find(|f| f.kind == kind && f.severity >= Severity::Warning)
    };
    if let Some(finding) = problem(FindingKind::Uncoalesced) {
        let (next, advice) = next_step(
            Change::Coalescing,
            "make neighbouring threads touch neighbouring addresses",
        );
        return Some(Limit {
            bottleneck: "uncoalesced global access".into(),
            evidence: finding.title.clone(),
            next,
            advice,
        });
    }
    if let Some(finding) = problem(FindingKind::BankConflicts) {
        let (next, advice) = next_step(
            Change::Padding,
            "spread a warp's shared accesses over the 32 banks",
        );
        return Some(Limit {
            bottleneck: "shared-memory bank conflicts".into(),
            evidence: finding.title.clone(),
            next,
            advice,
        });
    }
    if let Some(finding) = problem(FindingKind::Spills) {
        return Some(Limit {
            bottleneck: "register spills".into(),
            evidence: finding.title.clone(),
            next: None,
            advice: "Keep fewer values live per thread (a smaller per-thread tile, less unrolling) so nothing goes to local memory.".into(),
        });
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
    let best_ceiling = ceilings
        .iter()
        .filter(|c| c.measure == "bandwidth")
        .map(|c| (c.share, c.ceiling.as_str()))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    if memory >= 60.0 && memory >= compute {
        if let Some((share, ceiling)) = best_ceiling.filter(|(share, _)| *share >= 0.85) {
            return Some(Limit {
                bottleneck: "DRAM bandwidth".into(),
                evidence: format!("{} of `{ceiling}`'s bandwidth; {numbers}", format::share(share)),
                next: None,
                advice: "The kernel moves its bytes about as fast as a copy can: it is done, unless the algorithm can move fewer bytes (reuse, fusion).".into(),
            });
        }
        if l1 >= dram && l1 >= 60.0 {
            let (next, advice) = next_step(
                Change::RegisterBlocking,
                "reuse each shared-memory value from registers",
            );
            return Some(Limit {
                bottleneck: "L1/shared-memory throughput".into(),
                evidence: numbers,
                next,
                advice,
            });
        }
        if let Some(finding) = problem(FindingKind::ExtraTraffic) {
            let (next, advice) = next_step(
                Change::SharedMemoryTiling,
                "fetch each element from DRAM once",
            );
            return Some(Limit {
                bottleneck: "DRAM traffic above the minimum".into(),
                evidence: format!("{}; {numbers}", finding.title),
                next,
                advice,
            });
        }
        let (next, advice) = next_step(
            Change::VectorizedAccess,
            "fewer, wider memory instructions for the same bytes",
        );
        return Some(Limit {
            bottleneck: "memory throughput".into(),
            evidence: numbers,
            next,
            advice,
        });
    }
    if compute >= 60.0 {
        let (next, advice) = next_step(
            Change::LoopUnrolling,
            "issue fewer instructions for the same work",
        );
        return Some(Limit {
            bottleneck: "instruction issue".into(),
            evidence: numbers,
            next,
            advice,
        });
    }
    let occupancy = derived.get(Key::AchievedOccupancy).unwrap_or(100.0);
    let (next, advice) = next_step(
        Change::WorkPerThread,
        "give each thread several independent loads to keep in flight",
    );
    Some(Limit {
        bottleneck: if occupancy < 40.0 {
            "latency, with low occupancy"
        } else {
            "latency"
        }
        .into(),
        evidence: format!(
            "{numbers}; achieved occupancy {}",
            format::percent(occupancy)
        ),
        next,
        advice,
    })
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
