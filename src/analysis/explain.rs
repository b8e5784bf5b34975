//! What explains a step of the chain: the counter that moved clearly (see
//! [`movement`](super::movement)) in the direction consistent with the
//! change of time. A faster step is explained by a counter that got better,
//! a slower one by a counter that got worse, and a step whose time did not
//! change beyond the noise by nothing. The declared changes' expectations
//! are preferred ("confirmed" when a faster step's expected benefit came,
//! "contradicted" when a slower step's expected benefit went the other
//! way); when none of them moved clearly that way, the counter that moved
//! most that way is named as such (a percentage only when it moved by 5
//! points or more). Metrics with no better side (registers,
//! shared memory per block, throughputs) are costs or consequences, never
//! explanations; the raw bank-conflict counters are left to the wavefronts
//! per instruction, which they over-count; the kernel's own duration is the
//! time being explained.

use serde::Serialize;

use super::derived::{Derived, Key, Unit};
use super::format;
use super::knowledge::{self, Direction};
use super::movement::{self, Move, Size};
use super::stats::{Speedup, TimeVerdict};
use crate::model::Change;

/// The sentence the chain shows for a step, and the counter it cites.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    pub text: String,
    /// Absent when no counter is cited (no change of time, no counters,
    /// or none moved the same way).
    pub counter: Option<Cited>,
}

/// A counter the explanation cites, as it was read.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cited {
    pub key: Key,
    pub before: f64,
    pub after: f64,
    /// Whether a declared change expected the move.
    pub declared: bool,
    /// Whether the step was faster (else slower) than the previous one.
    pub faster: bool,
}

impl Explanation {
    fn plain(text: String) -> Explanation {
        Explanation {
            text,
            counter: None,
        }
    }
}

/// A counter that explains the step, and whether a declared change
/// expected its move.
#[derive(Clone)]
struct Evidence {
    key: Key,
    before: f64,
    after: f64,
    moved: Move,
    declared: bool,
}

impl Evidence {
    /// The factor it moved by (above 1 either way); none for a move to
    /// or from zero.
    fn factor(&self) -> Option<f64> {
        (self.before > 0.0 && self.after > 0.0)
            .then(|| (self.after / self.before).max(self.before / self.after))
    }

    fn explanation(&self, faster: bool) -> Explanation {
        Explanation {
            text: self.sentence(faster),
            counter: Some(Cited {
                key: self.key,
                before: self.before,
                after: self.after,
                declared: self.declared,
                faster,
            }),
        }
    }

    fn sentence(&self, faster: bool) -> String {
        let why = match (self.declared, faster) {
            (true, true) => "confirmed".to_string(),
            (true, false) => "contradicted".to_string(),
            (false, _) => format!("{}; not a declared expectation", self.fold()),
        };
        format!(
            "{}: {} → {} ({why})",
            self.key.info().label,
            self.key.format(self.before),
            self.key.format(self.after)
        )
    }

    /// "16.0× fewer", "2.00× more", or "to zero" / "from zero".
    fn fold(&self) -> String {
        match (self.before > 0.0, self.after > 0.0) {
            (true, true) if self.moved.up => {
                format!("{} more", format::speedup(self.after / self.before))
            }
            (true, true) => format!("{} fewer", format::speedup(self.before / self.after)),
            (true, false) => "to zero".into(),
            _ => "from zero".into(),
        }
    }
}

/// Whether `key` can explain a change of time at all.
pub fn explanatory(key: Key) -> bool {
    key.info().lower_is_better.is_some()
        && !matches!(
            key,
            Key::Time
                | Key::KernelDuration
                | Key::SharedLoadBankConflicts
                | Key::SharedStoreBankConflicts
        )
}

/// The metrics the declared changes expect to get better (a count per
/// request or instruction stands for its ratio to the ideal, too).
fn declared(changes: &[Change]) -> Vec<Key> {
    changes
        .iter()
        .flat_map(|c| knowledge::entry(*c).expect.iter())
        .filter(|e| {
            let lower_is_better = e.metric.info().lower_is_better;
            lower_is_better == Some(e.direction == Direction::Down)
        })
        .map(|e| e.metric)
        .collect()
}

/// The counter that best explains a step `faster` (or slower) than the
/// previous by `time_factor` (above 1): a declared expectation first, then
/// the largest clear move; but a declared counter whose factor is under
/// the square root of the time's gives way to the undeclared counter that
/// moved by the largest factor beyond its own (DRAM bytes 1.3× fewer do
/// not explain a step 54× faster in which the global load requests fell
/// 128×).
fn evidence(
    changes: &[Change],
    before: &Derived,
    after: &Derived,
    faster: bool,
    time_factor: f64,
) -> Option<Evidence> {
    let candidates = candidates(changes, before, after, faster);
    let by_preference = |x: &&Evidence, y: &&Evidence| {
        (x.declared, x.moved.relative.abs())
            .partial_cmp(&(y.declared, y.moved.relative.abs()))
            .unwrap_or(std::cmp::Ordering::Equal)
    };
    let preferred = candidates.iter().max_by(by_preference)?;
    let outweighs = candidates
        .iter()
        .filter(|e| !e.declared)
        .filter_map(|e| Some((e, e.factor()?)))
        .filter(|(_, factor)| {
            preferred.declared
                && preferred
                    .factor()
                    .is_some_and(|p| p * p < time_factor && *factor > p)
        })
        .max_by(|(_, a), (_, b)| a.total_cmp(b))
        .map(|(e, _)| e);
    Some(outweighs.unwrap_or(preferred).clone())
}

/// A percentage (a hit rate, an occupancy) must move by this many points
/// to explain a step: an L2 hit rate going from 3.1% to 0.5% is a large
/// relative move, but the misses it adds are 2.6% more of the traffic.
pub const PERCENT_POINTS: f64 = 5.0;

/// Whether a move of `key` from `before` to `after` is of a kind that can
/// explain a step: any counter's, but a percentage's only by
/// [`PERCENT_POINTS`] or more.
pub fn material(key: Key, before: f64, after: f64) -> bool {
    key.info().unit != Unit::Percent || (after - before).abs() >= PERCENT_POINTS
}

/// Every counter that moved clearly the way of the time, by a material
/// amount.
fn candidates(
    changes: &[Change],
    before: &Derived,
    after: &Derived,
    faster: bool,
) -> Vec<Evidence> {
    let declared = declared(changes);
    after
        .values
        .iter()
        .filter(|(key, _)| explanatory(**key) && key.comparable(before, after) == **key)
        .filter_map(|(key, after)| {
            let before = before.get(*key)?;
            let moved = movement::between(*key, before, *after);
            let material = material(*key, before, *after);
            (moved.size == Size::Clear && material && moved.better(*key) == Some(faster)).then(
                || Evidence {
                    key: *key,
                    before,
                    after: *after,
                    moved,
                    declared: declared
                        .iter()
                        .any(|d| d == key || d.over_ideal() == Some(*key)),
                },
            )
        })
        .collect()
}

/// The sentence the chain shows for a step against the previous one.
pub fn explain(
    changes: &[Change],
    vs_previous: Option<Speedup>,
    before: &Derived,
    after: &Derived,
) -> Explanation {
    let Some(speedup) = vs_previous else {
        return Explanation::plain("no time to compare with the previous step's at this size (one was not timed, or they have no kind of samples in common: cold or hot)".into());
    };
    let faster = match speedup.verdict {
        TimeVerdict::Same => {
            return Explanation::plain(format!(
                "no change of time beyond the noise ({} holds 1, or the medians differ by 1% or less)",
                speedup.interval_text()
            ));
        }
        TimeVerdict::Faster => true,
        TimeVerdict::Slower => false,
    };
    let counted = |d: &Derived| d.values.keys().any(|k| explanatory(*k));
    if !counted(before) || !counted(after) {
        return Explanation::plain("no counters recorded".into());
    }
    let time_factor = speedup.ratio.max(1.0 / speedup.ratio);
    match evidence(changes, before, after, faster, time_factor) {
        Some(evidence) => evidence.explanation(faster),
        None => Explanation::plain(format!(
            "{}, but no counter moved clearly the same way",
            if faster { "faster" } else { "slower" }
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn derived(values: &[(Key, f64)]) -> Derived {
        Derived {
            values: values.iter().copied().collect(),
            ..Derived::default()
        }
    }

    fn speedup(verdict: TimeVerdict) -> Option<Speedup> {
        Some(Speedup {
            ratio: match verdict {
                TimeVerdict::Faster => 1.4,
                TimeVerdict::Slower => 0.8,
                TimeVerdict::Same => 1.0,
            },
            verdict,
            interval: [0.9, 1.1],
        })
    }

    #[test]
    fn a_percentage_explains_only_by_points_not_by_its_relative_move() {
        // cuda-samples' histogram256 after histogram64, recorded on the
        // H200: the L2 hit rate fell 2.70% → 0.33% (88% of itself, under 3
        // points), occupancy 92.6% → 17.0%.
        let before = derived(&[(Key::L2HitRate, 2.70), (Key::AchievedOccupancy, 92.6)]);
        let after = derived(&[(Key::L2HitRate, 0.33), (Key::AchievedOccupancy, 17.0)]);
        let explained = explain(&[], speedup(TimeVerdict::Slower), &before, &after);
        assert_eq!(explained.counter.unwrap().key, Key::AchievedOccupancy);
        let alone = explain(
            &[],
            speedup(TimeVerdict::Slower),
            &derived(&[(Key::L2HitRate, 2.70)]),
            &derived(&[(Key::L2HitRate, 0.33)]),
        );
        assert_eq!(alone.counter, None);
    }

    #[test]
    fn an_undeclared_counter_explains_when_the_declared_one_barely_moved() {
        // Tiling whose data the L2 already held: DRAM bytes fall 8.6%, the
        // global load requests sixteen-fold.
        let before = derived(&[
            (Key::DramBytes, 18.5e9),
            (Key::GlobalLoadRequests, 67_108_864.0),
        ]);
        let after = derived(&[
            (Key::DramBytes, 16.9e9),
            (Key::GlobalLoadRequests, 4_194_304.0),
        ]);
        let text = explain(
            &[Change::SharedMemoryTiling],
            speedup(TimeVerdict::Faster),
            &before,
            &after,
        )
        .text;
        assert_eq!(
            text,
            "global load requests: 67,108,864 → 4,194,304 (16.0× fewer; not a declared expectation)"
        );
    }

    #[test]
    fn a_declared_move_far_smaller_than_the_step_gives_way_to_a_larger_one() {
        // Tiling and register blocking over a naive kernel: DRAM bytes fall
        // 1.29× (declared, clear), the global load requests 128×, the time
        // 53.7×. On a step of 1.4× the same declared move would explain.
        let before = derived(&[
            (Key::DramBytes, 46.9e6),
            (Key::GlobalLoadRequests, 536_870_912.0),
        ]);
        let after = derived(&[
            (Key::DramBytes, 36.3e6),
            (Key::GlobalLoadRequests, 4_194_304.0),
        ]);
        let changes = [Change::SharedMemoryTiling, Change::RegisterBlocking];
        let large = Speedup {
            ratio: 53.7,
            verdict: TimeVerdict::Faster,
            interval: [53.0, 54.0],
        };
        let text = explain(&changes, Some(large), &before, &after).text;
        assert_eq!(
            text,
            "global load requests: 536,870,912 → 4,194,304 (128× fewer; not a declared expectation)"
        );
        let small = explain(&changes, speedup(TimeVerdict::Faster), &before, &after).text;
        assert_eq!(small, "DRAM bytes: 46.9 MB → 36.3 MB (confirmed)");
    }

    #[test]
    fn a_declared_benefit_is_preferred_and_more_registers_never_explain() {
        let before = derived(&[
            (Key::RegistersPerThread, 32.0),
            (Key::SharedLoadsPerFma, 0.625),
            (Key::WarpInstructions, 100.0),
        ]);
        let after = derived(&[
            (Key::RegistersPerThread, 128.0),
            (Key::SharedLoadsPerFma, 0.5),
            (Key::WarpInstructions, 10.0),
        ]);
        let text = explain(
            &[Change::RegisterBlocking],
            speedup(TimeVerdict::Faster),
            &before,
            &after,
        )
        .text;
        assert_eq!(
            text,
            "shared loads per FMA (warp): 0.625 → 0.500 (confirmed)"
        );
    }

    #[test]
    fn a_slower_step_is_explained_by_what_got_worse_never_by_a_confirmation() {
        let before = derived(&[
            (Key::SharedStoreWavefrontsPerInstruction, 1.14),
            (Key::WarpInstructions, 100.0),
        ]);
        let after = derived(&[
            (Key::SharedStoreWavefrontsPerInstruction, 8.74),
            (Key::WarpInstructions, 50.0),
        ]);
        let text = explain(
            &[Change::SharedMemoryLayout],
            speedup(TimeVerdict::Slower),
            &before,
            &after,
        )
        .text;
        assert_eq!(
            text,
            "shared store wavefronts / instruction: 1.14 → 8.74 (contradicted)"
        );
        let text = explain(&[], speedup(TimeVerdict::Slower), &before, &after).text;
        assert!(
            text.ends_with("(7.67× more; not a declared expectation)"),
            "{text}"
        );
    }

    #[test]
    fn no_time_change_no_clear_move_no_counters_and_no_timing_say_so() {
        let before = derived(&[(Key::WarpInstructions, 100.0)]);
        let after = derived(&[(Key::WarpInstructions, 95.0)]);
        let changes = [Change::LoopUnrolling];
        assert_eq!(
            explain(&changes, speedup(TimeVerdict::Same), &before, &after).text,
            "no change of time beyond the noise (95% interval 0.900×–1.10× holds 1, or the medians differ by 1% or less)"
        );
        assert_eq!(
            explain(&changes, speedup(TimeVerdict::Faster), &before, &after).text,
            "faster, but no counter moved clearly the same way"
        );
        let untimed = derived(&[(Key::Time, 1.0)]);
        assert_eq!(
            explain(&changes, speedup(TimeVerdict::Faster), &untimed, &after).text,
            "no counters recorded"
        );
        assert_eq!(
            explain(&changes, None, &before, &after).text,
            "no time to compare with the previous step's at this size (one was not timed, or they have no kind of samples in common: cold or hot)"
        );
    }

    #[test]
    fn moves_to_and_from_zero_are_named_without_a_factor() {
        let before = derived(&[(Key::LocalMemorySectors, 4096.0)]);
        let after = derived(&[(Key::LocalMemorySectors, 0.0)]);
        let text = explain(&[], speedup(TimeVerdict::Faster), &before, &after).text;
        assert_eq!(
            text,
            "local-memory sectors (spills): 4,096 → 0 (to zero; not a declared expectation)"
        );
        let text = explain(&[], speedup(TimeVerdict::Slower), &after, &before).text;
        assert!(text.contains("(from zero;"), "{text}");
    }

    #[test]
    fn across_a_change_of_access_width_the_ratio_to_the_ideal_explains() {
        // 32-bit to 128-bit shared loads: wavefronts per instruction rise
        // from 1 to 4 (the ideal for 16 bytes), while the wavefronts over
        // ncu's ideal fall from 3 to 1.
        let before = derived(&[
            (Key::SharedLoadWavefrontsPerInstruction, 1.0),
            (Key::SharedLoadExcessWavefronts, 3.0),
        ]);
        let after = derived(&[
            (Key::SharedLoadWavefrontsPerInstruction, 4.0),
            (Key::SharedLoadExcessWavefronts, 1.0),
        ]);
        let explanation = explain(
            &[Change::SharedMemoryLayout],
            speedup(TimeVerdict::Faster),
            &before,
            &after,
        );
        assert_eq!(
            explanation.text,
            "shared load wavefronts over ideal (source): 3.00 → 1.00 (confirmed)"
        );
        let slower = explain(&[], speedup(TimeVerdict::Slower), &before, &after);
        assert_eq!(slower.counter, None, "{}", slower.text);
    }
}
