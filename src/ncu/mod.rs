//! Nsight Compute: the argv gpuprof runs ncu with (`run`), the one routine
//! that reads an `.ncu-rep` back (`export`), the parsers of
//! the raw and source pages of its CSV exports (`raw`, `source`, `units`),
//! and the readers that turn parsed launches into the model's profiles:
//! `ingest` for the harness's own launches, `import` for `gpuprof compare`'s
//! launches from a user's exports. The metric set it asks for is the
//! model's (`model::metrics`). Knows nothing about reports or explanations.

pub mod export;
pub mod import;
pub mod ingest;
#[cfg(test)]
pub mod probe;
pub mod raw;
pub mod run;
pub mod source;
pub mod units;
