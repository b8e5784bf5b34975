//! The data model: [`Results`] (results.json, with a schema version),
//! device facts from nvidia-smi and the driver, and the ingest step that
//! turns ncu's parsed exports into per-run profiles. Formats no numbers.

pub mod device;
pub mod import;
pub mod ingest;
#[cfg(test)]
pub mod probe;
pub mod results;

pub use device::Device;
pub use results::{Results, read_results, write_results};
