//! What kind of thing a variant is and what part it plays: a step of the
//! optimization chain or a ceiling beside it, and the library routines that
//! a variant may run instead of a kernel.

use serde::{Deserialize, Serialize};

/// Whether a variant is a step of the optimization chain or a reference
/// ceiling (a plain copy, a vendor library) shown beside the chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    Step,
    Ceiling,
}

/// A library routine run as a variant, as the ceiling a suite's kernels are
/// measured against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Library {
    /// cuBLAS SGEMM, C = A·B with row-major A (m×k), B (k×n), C (m×n):
    /// the first two f32 input buffers and the first f32 output buffer.
    /// Run in CUBLAS_PEDANTIC_MATH mode: FP32 arithmetic, no tensor cores.
    CublasSgemm,
}

impl Library {
    pub fn word(self) -> &'static str {
        match self {
            Library::CublasSgemm => "cublas-sgemm",
        }
    }
}
