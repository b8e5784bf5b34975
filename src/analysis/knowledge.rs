//! The knowledge base of optimizations (optimizations.toml, embedded in the
//! binary): for each `changes` word, the mechanism in plain words, the
//! derived metrics it should move and in which direction, and the usual
//! next step. Checked against the vocabulary by a test. The entry for
//! `other` expects nothing, so such a change gets no verdict.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

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
    fn padding_expects_fewer_shared_wavefronts() {
        let padding = entry(Change::Padding);
        assert_eq!(
            padding.expect[0].metric,
            Key::SharedLoadWavefrontsPerInstruction
        );
        assert_eq!(padding.expect[0].direction, Direction::Down);
    }
}
