//! The knowledge base of optimizations (optimizations.toml, embedded in the
//! binary): for each `changes` word, the mechanism in plain words, the
//! derived metrics it should move and in which direction, and the usual
//! next step with its premises: the change it proposes (never printed once
//! the ladder has applied it) and what the run's evidence must show for
//! the sentence to hold (a speed-of-light bandwidth ceiling, bank
//! conflicts, a full wave of blocks). Checked against the vocabulary by a
//! test. The entry for `other` expects nothing, so such a change gets no
//! verdict.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::advice::Facts;
use super::derived::Key;
use crate::model::Change;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Direction {
    Up,
    Down,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expectation {
    pub metric: Key,
    pub direction: Direction,
    pub why: String,
    /// The metric's best possible value: when the previous step is already
    /// within 10% of it, there was nothing for this change to fix.
    #[serde(default)]
    pub ideal: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub title: String,
    pub mechanism: String,
    pub expect: Vec<Expectation>,
    pub next: String,
    /// The change `next` proposes, if it names one.
    #[serde(default)]
    pub next_change: Option<Change>,
    /// What must hold for `next` to apply.
    #[serde(default)]
    pub next_needs: Vec<Premise>,
}

/// A premise of a "next step" sentence, checked on the run's evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Premise {
    /// The sentence compares with a copy ceiling: the suite has one that
    /// is a speed of light and bounds this run.
    BandwidthCeiling,
    /// The sentence is about removing bank conflicts.
    BankConflicts,
    /// The sentence adds work per thread: the grid fills at least a wave.
    FullWaves,
}

impl Premise {
    fn holds(self, facts: &Facts) -> bool {
        match self {
            Premise::BandwidthCeiling => facts.bandwidth_ceiling,
            Premise::BankConflicts => facts.bank_conflicts,
            Premise::FullWaves => facts.full_waves,
        }
    }
}

const SOURCE: &str = include_str!("optimizations.toml");

/// Every entry by vocabulary word.
fn entries() -> &'static BTreeMap<String, Entry> {
    static ENTRIES: OnceLock<BTreeMap<String, Entry>> = OnceLock::new();
    ENTRIES.get_or_init(|| {
        toml::from_str(SOURCE).expect("optimizations.toml is checked by the knowledge tests")
    })
}

/// The entry for `change`.
pub fn entry(change: Change) -> &'static Entry {
    &entries()[change.word()]
}

/// The entry's "next step" where its premises hold on `facts`, else
/// nothing; without evidence (no counters) only a sentence with no
/// premise is printed.
pub fn next_step(change: Change, facts: Option<&Facts>) -> Option<String> {
    let entry = entry(change);
    let holds = match facts {
        Some(facts) => {
            entry
                .next_change
                .is_none_or(|c| !facts.applied.contains(&c))
                && entry.next_needs.iter().all(|p| p.holds(facts))
        }
        None => entry.next_needs.is_empty(),
    };
    holds.then(|| entry.next.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vocabulary_word_has_exactly_one_entry() {
        let words: Vec<&str> = entries().keys().map(String::as_str).collect();
        let mut vocabulary: Vec<&str> = Change::ALL.iter().map(|c| c.word()).collect();
        vocabulary.sort();
        assert_eq!(words, vocabulary);
        for change in Change::ALL {
            let entry = entry(change);
            assert_eq!(entry.expect.is_empty(), change == Change::Other, "{change}");
            assert!(
                entry.mechanism.split(". ").count() >= 2,
                "{change}: explain the mechanism in sentences"
            );
        }
    }

    #[test]
    fn a_change_without_knowledge_gets_no_verdict_and_a_known_layout_change_does() {
        use crate::analysis::{Verdict, analyze};
        let mut results = crate::ncu::probe::probe_results();
        let padded = results
            .variants
            .iter_mut()
            .find(|v| v.name == "padded")
            .unwrap();
        padded.changes = vec![
            Change::Other,
            Change::SharedMemoryLayout,
            Change::BlockReordering,
        ];
        let analysis = analyze(&results);
        let padded = analysis
            .variants
            .iter()
            .find(|v| v.name == "padded")
            .unwrap();
        let [other, layout, reordering] = &padded.changes[..] else {
            panic!("three changes were declared: {:?}", padded.changes);
        };
        assert_eq!(other.verdict, Verdict::NoExpectation);
        assert!(other.expectations.is_empty());
        assert!(
            other.measured.contains("no knowledge of this change"),
            "{}",
            other.measured
        );
        // The padded tile's column reads are conflict-free, as a swizzled
        // or transposed layout would make them.
        assert_eq!(layout.verdict, Verdict::Confirmed);
        let l2 = &reordering.expectations[0];
        assert_eq!(l2.metric, Key::L2HitRate);
        assert!(l2.before.is_some() && l2.after.is_some(), "{l2:?}");
    }

    #[test]
    fn a_next_step_is_printed_only_where_its_premise_holds() {
        let facts = Facts {
            full_waves: true,
            ..Facts::default()
        };
        // No copy ceiling: "compare with the copy ceiling" does not apply.
        assert_eq!(next_step(Change::Padding, Some(&facts)), None);
        let with_ceiling = Facts {
            bandwidth_ceiling: true,
            ..facts.clone()
        };
        assert!(next_step(Change::Padding, Some(&with_ceiling)).is_some());
        // Already applied: not proposed again.
        let applied = Facts {
            applied: vec![Change::VectorizedAccess],
            ..facts.clone()
        };
        assert!(next_step(Change::RegisterBlocking, Some(&facts)).is_some());
        assert_eq!(next_step(Change::RegisterBlocking, Some(&applied)), None);
        // Fewer blocks than SMs: no "more work per thread".
        let small_grid = Facts {
            full_waves: false,
            ..facts.clone()
        };
        assert_eq!(next_step(Change::WarpShuffle, Some(&small_grid)), None);
        // Conflicts to look for.
        assert_eq!(next_step(Change::DivergenceRemoval, Some(&facts)), None);
        let conflicted = Facts {
            bank_conflicts: true,
            ..facts
        };
        assert!(next_step(Change::DivergenceRemoval, Some(&conflicted)).is_some());
        // Without counters only premise-free sentences.
        assert!(next_step(Change::LoopUnrolling, None).is_some());
        assert_eq!(next_step(Change::Padding, None), None);
    }

    #[test]
    fn padding_expects_fewer_shared_wavefronts() {
        let padding = entry(Change::Padding);
        assert_eq!(
            padding.expect[0].metric,
            Key::SharedLoadWavefrontsPerInstruction
        );
        assert_eq!(padding.expect[0].direction, Direction::Down);
    }
}
