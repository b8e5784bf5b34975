//! What a suite declares about its problem, as results.json records it:
//! the sizes (the symbols each binds) and the timing settings.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One problem size: the symbols it binds (`N = 2048`) plus the suite's
/// constants, which are bound at every size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Size {
    /// A short label such as `N=2048` or `M=1024, N=512` (constants left out).
    pub label: String,
    pub symbols: BTreeMap<String, i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    pub warmup: u32,
    pub repetitions: u32,
}
