//! Nsight Compute: the fixed metric set, the argv gpuprof runs ncu with,
//! and parsers for the raw and source pages of its CSV exports. Knows
//! nothing about reports or explanations.

pub mod metrics;
pub mod raw;
pub mod run;
pub mod source;
pub mod units;
