//! The evidence the limiter weighs for one run, gathered once: how much of
//! the kernel's global sectors, shared wavefronts and stall samples each
//! access finding's lines carry, the stall mix by unit, waves per SM, the
//! changes the ladder has already applied, whether shared memory is used,
//! and each ceiling with whether it is a speed of light (its own
//! bandwidth near the device's DRAM peak) or no bound at all (this run is
//! faster). Thresholds come with a band: a value inside it reads
//! "between", never one side or the other.

use serde::Serialize;

use super::derived::{Derived, Key};
use super::findings::{Finding, FindingKind, Severity};
use super::{CeilingShare, format};
use crate::model::metrics as m;
use crate::model::results::{Profile, RunResult, VariantResult};
use crate::model::source::SourceLine;
use crate::model::variant::Role;
use crate::model::{Change, Results};

/// Where a value stands against a threshold with a band around it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    Below,
    Between,
    Above,
}

impl Level {
    /// `Below` under `low`, `Above` at or over `high`, else `Between`.
    pub fn of(value: f64, low: f64, high: f64) -> Level {
        if value >= high {
            Level::Above
        } else if value < low {
            Level::Below
        } else {
            Level::Between
        }
    }
}

/// What an access finding weighs in the whole kernel.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Weight {
    /// The excess sectors (or wavefronts) of its lines over the kernel's
    /// total sectors (or wavefronts).
    pub traffic: f64,
    /// Its lines' share of all warp-stall samples.
    pub stalls: f64,
}

impl Weight {
    /// The share of stall samples is what the finding can cost in time: at
    /// least 20% is material, under 10% is not, between is a smaller cost
    /// worth naming. Traffic under 10% of the kernel's is never material.
    pub fn level(&self) -> Level {
        if self.traffic < 0.10 {
            return Level::Below;
        }
        Level::of(self.stalls, 0.10, 0.20)
    }

    pub fn describe(&self, unit: &str) -> String {
        format!(
            "its lines carry {} of the kernel's {unit} as excess and {} of its stall samples",
            format::share(self.traffic),
            format::share(self.stalls)
        )
    }
}

/// A ceiling as this run is measured against it.
#[derive(Debug, Clone, PartialEq)]
pub struct Ceiling {
    pub share: CeilingShare,
    /// The ceiling's own bandwidth over the device's DRAM peak, for a
    /// bandwidth ceiling with a known device.
    pub of_device_peak: Option<f64>,
}

impl Ceiling {
    /// A bandwidth ceiling is a speed of light only when it itself runs
    /// near the device's DRAM peak (a copy reaches about 87% on the H200).
    pub fn speed_of_light(&self) -> Level {
        self.of_device_peak
            .map(|p| Level::of(p, 0.70, 0.80))
            .unwrap_or(Level::Below)
    }

    /// Above 105% this run is faster than the ceiling: it bounds nothing.
    pub fn bounds(&self) -> bool {
        self.share.share <= 1.05
    }
}

/// Everything [`super::limits::limit`] reads.
pub struct Evidence<'a> {
    pub derived: &'a Derived,
    pub findings: &'a [Finding],
    /// The profile the per-line counters come from: the run's own, or the
    /// same variant's at the size they were taken at.
    pub lines_profile: Option<&'a Profile>,
    pub profile: Option<&'a Profile>,
    pub ceilings: Vec<Ceiling>,
    /// The changes of this step and every step before it in the chain.
    pub applied: Vec<Change>,
}

impl<'a> Evidence<'a> {
    pub fn gather(
        results: &'a Results,
        variant: &'a VariantResult,
        run: &'a RunResult,
        lines_profile: Option<&'a Profile>,
        derived: &'a Derived,
        findings: &'a [Finding],
        ceilings: Vec<Ceiling>,
    ) -> Evidence<'a> {
        Evidence {
            derived,
            findings,
            lines_profile,
            profile: run.profile.as_ref(),
            ceilings,
            applied: applied(results, variant),
        }
    }

    /// The run's shares of its ceilings' speed, each with what the
    /// ceiling reaches of the device's DRAM peak where it is a bandwidth.
    pub fn ceilings(
        results: &Results,
        shares: &[CeilingShare],
        bytes_per_second: Option<f64>,
    ) -> Vec<Ceiling> {
        let peak = results
            .device
            .as_ref()
            .map(|d| d.peak_dram_bytes_per_second);
        shares
            .iter()
            .map(|share| Ceiling {
                of_device_peak: (share.measure == "bandwidth")
                    .then_some(())
                    .and(bytes_per_second.zip(peak))
                    .filter(|_| share.share > 0.0)
                    .map(|(mine, peak)| mine / share.share / peak),
                share: share.clone(),
            })
            .collect()
    }

    /// The per-line counters (of `lines_profile`; none without it).
    pub fn lines(&self) -> &'a [SourceLine] {
        self.lines_profile
            .map(|p| p.source_lines.as_slice())
            .unwrap_or_default()
    }

    pub fn get(&self, key: Key) -> Option<f64> {
        self.derived.get(key)
    }

    pub fn metric(&self, name: &str) -> Option<f64> {
        self.profile.and_then(|p| p.metric(name))
    }

    pub fn is_applied(&self, change: Change) -> bool {
        self.applied.contains(&change)
    }

    /// Whether the kernel touches shared memory at all.
    pub fn uses_shared_memory(&self) -> bool {
        let wavefronts = self.metric(m::SHARED_LOAD_WAVEFRONTS).unwrap_or(0.0)
            + self.metric(m::SHARED_STORE_WAVEFRONTS).unwrap_or(0.0);
        wavefronts > 0.0 || self.get(Key::SharedMemoryPerBlock).unwrap_or(0.0) > 0.0
    }

    /// A finding of this kind that is at least a warning.
    pub fn problem(&self, kind: FindingKind) -> Option<&'a Finding> {
        self.findings
            .iter()
            .find(|f| f.kind == kind && f.severity >= Severity::Warning)
    }

    /// The share of stall samples whose reason is in `reasons`.
    pub fn stall_share(&self, reasons: &[&str]) -> Option<f64> {
        let all: f64 = self.lines().iter().flat_map(|l| l.stalls.values()).sum();
        let some: f64 = self
            .lines()
            .iter()
            .flat_map(|l| l.stalls.iter())
            .filter(|(name, _)| reasons.contains(&name.as_str()))
            .map(|(_, count)| count)
            .sum();
        (all > 0.0).then(|| some / all)
    }

    /// What the lines of `finding` weigh: global sectors for uncoalesced
    /// access, shared wavefronts for bank conflicts.
    pub fn weight(&self, finding: &Finding) -> Option<Weight> {
        let on_lines: Vec<&SourceLine> = self
            .lines()
            .iter()
            .filter(|l| finding.lines.contains(&l.line))
            .collect();
        let samples = self.lines_profile.map_or(0.0, Profile::stall_samples);
        if on_lines.is_empty() || samples <= 0.0 {
            return None;
        }
        let (excess, total) = match finding.kind {
            FindingKind::Uncoalesced => (
                excess(&on_lines, |l| (l.global_sectors, l.global_sectors_ideal)),
                self.total([m::GLOBAL_LOAD_SECTORS, m::GLOBAL_STORE_SECTORS], |l| {
                    l.global_sectors
                }),
            ),
            _ => (
                excess(&on_lines, |l| {
                    (l.shared_wavefronts, l.shared_wavefronts_ideal)
                }),
                self.total(
                    [m::SHARED_LOAD_WAVEFRONTS, m::SHARED_STORE_WAVEFRONTS],
                    |l| l.shared_wavefronts,
                ),
            ),
        };
        let on_samples: f64 = on_lines.iter().filter_map(|l| l.warp_stall_samples).sum();
        (total > 0.0).then(|| Weight {
            traffic: excess / total,
            stalls: on_samples / samples,
        })
    }

    /// The kernel's total of two counters in the profile the lines come
    /// from (the same size as the lines), and never less than the source
    /// lines' own sum: the lines can miss code in headers, and the
    /// kernel's load and store counters leave out what the lines count
    /// besides (shared-memory atomics), so a share of it stays a share.
    fn total(&self, metrics: [&str; 2], per_line: fn(&SourceLine) -> Option<f64>) -> f64 {
        let metric = |name| self.lines_profile.and_then(|p| p.metric(name));
        let of_lines: f64 = self.lines().iter().filter_map(per_line).sum();
        let counted = metric(metrics[0]).unwrap_or(0.0) + metric(metrics[1]).unwrap_or(0.0);
        counted.max(of_lines)
    }
}

/// Actual minus ideal, summed over `lines`.
fn excess(lines: &[&SourceLine], pick: fn(&SourceLine) -> (Option<f64>, Option<f64>)) -> f64 {
    lines
        .iter()
        .map(|l| match pick(l) {
            (Some(actual), Some(ideal)) => (actual - ideal).max(0.0),
            _ => 0.0,
        })
        .sum()
}

/// The changes of `variant` and, for a step, of every step before it.
fn applied(results: &Results, variant: &VariantResult) -> Vec<Change> {
    if variant.role != Role::Step {
        return variant.changes.clone();
    }
    results
        .variants
        .iter()
        .filter(|v| v.role == Role::Step)
        .take_while(|v| v.name != variant.name)
        .chain(std::iter::once(variant))
        .flat_map(|v| v.changes.iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_inside_the_band_is_between() {
        assert_eq!(Level::of(0.05, 0.1, 0.2), Level::Below);
        assert_eq!(Level::of(0.15, 0.1, 0.2), Level::Between);
        assert_eq!(Level::of(0.2, 0.1, 0.2), Level::Above);
    }

    #[test]
    fn a_finding_weighs_by_its_stall_samples_once_its_traffic_counts() {
        let weight = |traffic, stalls| Weight { traffic, stalls }.level();
        assert_eq!(weight(0.29, 0.12), Level::Between);
        assert_eq!(weight(0.29, 0.005), Level::Below);
        assert_eq!(weight(0.06, 0.9), Level::Below, "6% excess is immaterial");
        assert_eq!(weight(0.78, 0.77), Level::Above);
    }

    #[test]
    fn a_ceiling_is_a_speed_of_light_only_near_the_device_peak() {
        let ceiling = |share, of_device_peak| Ceiling {
            share: CeilingShare {
                ceiling: "copy".into(),
                measure: "bandwidth",
                share,
            },
            of_device_peak,
        };
        assert_eq!(ceiling(0.9, Some(0.87)).speed_of_light(), Level::Above);
        assert_eq!(ceiling(0.9, Some(0.75)).speed_of_light(), Level::Between);
        assert_eq!(ceiling(0.9, Some(0.64)).speed_of_light(), Level::Below);
        assert_eq!(ceiling(0.9, None).speed_of_light(), Level::Below);
        assert!(ceiling(1.01, None).bounds());
        assert!(!ceiling(1.17, None).bounds());
    }
}
