//! The vocabulary of `changes`: the optimizations a variant may declare
//! relative to the previous step. One word per mechanism; the knowledge base
//! in `src/analysis/` explains each and says which metrics it should move.
//! `other` declares a change outside the vocabulary (the variant's notes
//! say what it is): it is shown, and nothing is expected of it.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    Coalescing,
    SharedMemoryTiling,
    Padding,
    VectorizedAccess,
    RegisterBlocking,
    LoopUnrolling,
    DoubleBuffering,
    ConstantMemory,
    ReadOnlyCache,
    WarpShuffle,
    DivergenceRemoval,
    SequentialAddressing,
    Privatization,
    WorkPerThread,
    Alignment,
    SharedMemoryLayout,
    BlockReordering,
    WarpTiling,
    ParameterTuning,
    Other,
}

impl Change {
    pub const ALL: [Change; 20] = [
        Change::Coalescing,
        Change::SharedMemoryTiling,
        Change::Padding,
        Change::VectorizedAccess,
        Change::RegisterBlocking,
        Change::LoopUnrolling,
        Change::DoubleBuffering,
        Change::ConstantMemory,
        Change::ReadOnlyCache,
        Change::WarpShuffle,
        Change::DivergenceRemoval,
        Change::SequentialAddressing,
        Change::Privatization,
        Change::WorkPerThread,
        Change::Alignment,
        Change::SharedMemoryLayout,
        Change::BlockReordering,
        Change::WarpTiling,
        Change::ParameterTuning,
        Change::Other,
    ];

    /// The word used in variants.toml.
    pub fn word(self) -> &'static str {
        match self {
            Change::Coalescing => "coalescing",
            Change::SharedMemoryTiling => "shared-memory-tiling",
            Change::Padding => "padding",
            Change::VectorizedAccess => "vectorized-access",
            Change::RegisterBlocking => "register-blocking",
            Change::LoopUnrolling => "loop-unrolling",
            Change::DoubleBuffering => "double-buffering",
            Change::ConstantMemory => "constant-memory",
            Change::ReadOnlyCache => "read-only-cache",
            Change::WarpShuffle => "warp-shuffle",
            Change::DivergenceRemoval => "divergence-removal",
            Change::SequentialAddressing => "sequential-addressing",
            Change::Privatization => "privatization",
            Change::WorkPerThread => "work-per-thread",
            Change::Alignment => "alignment",
            Change::SharedMemoryLayout => "shared-memory-layout",
            Change::BlockReordering => "block-reordering",
            Change::WarpTiling => "warp-tiling",
            Change::ParameterTuning => "parameter-tuning",
            Change::Other => "other",
        }
    }

    /// A short human label for tables and headings.
    pub fn label(self) -> &'static str {
        match self {
            Change::Coalescing => "coalesced access",
            Change::SharedMemoryTiling => "shared-memory tiling",
            Change::Padding => "padding against bank conflicts",
            Change::VectorizedAccess => "vectorized access",
            Change::RegisterBlocking => "register blocking",
            Change::LoopUnrolling => "loop unrolling",
            Change::DoubleBuffering => "double buffering",
            Change::ConstantMemory => "constant memory",
            Change::ReadOnlyCache => "read-only cache",
            Change::WarpShuffle => "warp shuffle",
            Change::DivergenceRemoval => "divergence removal",
            Change::SequentialAddressing => "sequential addressing",
            Change::Privatization => "privatized counters",
            Change::WorkPerThread => "more work per thread",
            Change::Alignment => "aligned access",
            Change::SharedMemoryLayout => "shared-memory layout",
            Change::BlockReordering => "block reordering",
            Change::WarpTiling => "warp tiling",
            Change::ParameterTuning => "parameter tuning",
            Change::Other => "other change (see notes)",
        }
    }

    pub fn from_word(word: &str) -> Option<Change> {
        Change::ALL.into_iter().find(|c| c.word() == word)
    }

    /// The words of the vocabulary that a word people write for an
    /// optimization (`bank-conflicts`, `tiling`, `float4`, `swizzle`) may
    /// mean, by the effect or technique it names; empty when it names
    /// none. Spelling aside: `-`, `_` and spaces are alike.
    pub fn meant_by(word: &str) -> &'static [Change] {
        let plain: String = word
            .trim()
            .to_lowercase()
            .chars()
            .map(|c| if c == '_' || c == ' ' { '-' } else { c })
            .collect();
        MEANT_BY
            .iter()
            .find(|(words, _)| words.contains(&plain.as_str()))
            .map_or(&[], |(_, changes)| changes)
    }
}

/// Words people write for an optimization, and what they mean in the
/// vocabulary.
const MEANT_BY: [(&[&str], &[Change]); 14] = [
    (
        &[
            "bank-conflicts",
            "bank-conflict",
            "bank-conflict-free",
            "no-bank-conflicts",
            "conflict-free",
            "bank-conflict-avoidance",
            "avoid-bank-conflicts",
        ],
        &[Change::Padding, Change::SharedMemoryLayout],
    ),
    (
        &["swizzle", "swizzling", "xor-swizzle", "permuted-layout"],
        &[Change::SharedMemoryLayout],
    ),
    (
        &[
            "tiling",
            "tiled",
            "shared-memory",
            "smem",
            "shared",
            "shared-tiling",
            "blocking",
        ],
        &[Change::SharedMemoryTiling],
    ),
    (
        &[
            "vectorization",
            "vectorize",
            "vectorized",
            "float4",
            "float2",
            "vector-loads",
            "half2",
            "vectorised",
        ],
        &[Change::VectorizedAccess],
    ),
    (
        &["unroll", "unrolled", "unrolling", "pragma-unroll"],
        &[Change::LoopUnrolling],
    ),
    (
        &[
            "shuffle",
            "shfl",
            "warp-reduce",
            "warp-reduction",
            "warp-primitives",
        ],
        &[Change::WarpShuffle],
    ),
    (
        &[
            "coalesce",
            "coalesced",
            "coalesced-access",
            "memory-coalescing",
        ],
        &[Change::Coalescing],
    ),
    (
        &[
            "coarsening",
            "thread-coarsening",
            "more-work-per-thread",
            "grid-stride",
            "grid-stride-loop",
            "multiple-elements-per-thread",
        ],
        &[Change::WorkPerThread],
    ),
    (
        &[
            "atomics",
            "shared-atomics",
            "local-histogram",
            "per-block-histogram",
        ],
        &[Change::Privatization],
    ),
    (
        &[
            "ldg",
            "__ldg",
            "restrict",
            "__restrict__",
            "texture",
            "read-only",
        ],
        &[Change::ReadOnlyCache],
    ),
    (
        &[
            "prefetch",
            "prefetching",
            "pipelining",
            "cp-async",
            "async-copy",
        ],
        &[Change::DoubleBuffering],
    ),
    (
        &[
            "register-tiling",
            "thread-tiling",
            "2d-blocktiling",
            "1d-blocktiling",
            "outer-product",
        ],
        &[Change::RegisterBlocking],
    ),
    (
        &["autotuning", "tuning", "block-size", "launch-configuration"],
        &[Change::ParameterTuning],
    ),
    (
        &[
            "divergence",
            "branch-divergence",
            "warp-divergence",
            "interleaved-addressing",
        ],
        &[Change::DivergenceRemoval],
    ),
];

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_round_trips_through_serde_and_from_word() {
        for change in Change::ALL {
            let json = serde_json::to_string(&change).unwrap();
            assert_eq!(json, format!("\"{}\"", change.word()));
            assert_eq!(Change::from_word(change.word()), Some(change));
        }
        assert_eq!(Change::from_word("tiling"), None);
    }

    #[test]
    fn common_names_of_optimizations_point_into_the_vocabulary() {
        assert_eq!(
            Change::meant_by("Bank_Conflicts"),
            [Change::Padding, Change::SharedMemoryLayout]
        );
        assert_eq!(Change::meant_by("tiling"), [Change::SharedMemoryTiling]);
        assert_eq!(Change::meant_by("float4"), [Change::VectorizedAccess]);
        assert!(Change::meant_by("magic").is_empty());
        // Every word maps once, and never to a word of the vocabulary.
        let words: Vec<&str> = MEANT_BY
            .iter()
            .flat_map(|(w, _)| w.iter().copied())
            .collect();
        for word in &words {
            assert_eq!(words.iter().filter(|w| *w == word).count(), 1, "{word}");
            assert_eq!(Change::from_word(word), None, "{word}");
        }
    }
}
