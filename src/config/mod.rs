//! variants.toml → [`Plan`]: the raw serde mirror of the file, the
//! expression language of its geometry and sizes, and the resolution step
//! that checks everything (paths, entry points, names, expressions at every
//! size) and reports errors with file, line and column.

pub mod change;
pub mod plan;

pub use change::Change;
pub use plan::Plan;
