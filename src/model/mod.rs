//! The data model, all of results.json's schema: [`Results`] (with a schema
//! version) and every type it holds — the suite's sizes and timing
//! settings, what kind of variant each is, the declared changes, the
//! verification outcome and kernel resources, how samples were taken, the fixed metric set that
//! names a profile's counters, per-line source counters, the device's
//! facts, the shares of a run split over several GPUs and the parameter sweeps. It is the leaf of the crate: every stage converts *into* these
//! types, and `analysis` and `render` read nothing else. It imports no
//! other module of the crate and formats no numbers.

pub mod change;
pub mod device;
pub mod measurement;
pub mod metrics;
mod migrate;
pub mod notice;
pub mod results;
pub mod shard;
pub mod source;
pub mod suite;
pub mod sweep;
pub mod timing;
pub mod variant;

pub use change::Change;
pub use device::Device;
pub use results::{Results, read_results, write_results};
