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
}

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
}
