//! What kind of thing a variant is and what part it plays: a step of the
//! optimization chain or a ceiling beside it, the library routines that a
//! variant may run instead of a kernel, and the compilers of kernels.

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

/// What a variant runs, as results.json records it: each kind carries only
/// the fields that mean something for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum VariantKind {
    /// A kernel gpuprof compiled and launched.
    Kernel {
        /// The source file, relative to the folder of the variants.toml.
        source: String,
        /// The kernel's name as the suite gave it.
        entry: String,
    },
    /// A library routine run instead of a kernel: timed and verified, not
    /// profiled (its kernels are the library's choice).
    Library { library: Library },
    /// The user's own program, profiled under ncu as it is.
    Command {
        /// ncu's kernel-name filter (a regular expression).
        kernel: String,
    },
    /// A launch read from existing ncu data (`gpuprof compare`).
    Imported {
        /// The file it came from, as the user named it.
        origin: String,
        /// The kernel's name as ncu printed it.
        kernel: String,
    },
}

impl VariantKind {
    /// Where the variant comes from, in a few words: the source path, the
    /// library, the command's filter or the imported file.
    pub fn source_label(&self) -> String {
        match self {
            VariantKind::Kernel { source, .. } => source.clone(),
            VariantKind::Library { library } => format!("library: {}", library.word()),
            VariantKind::Command { kernel } => format!("command, kernels matching `{kernel}`"),
            VariantKind::Imported { origin, .. } => origin.clone(),
        }
    }

    /// The kernel the variant names: its entry, the library routine, the
    /// command's filter or the imported launch's kernel.
    pub fn entry_label(&self) -> &str {
        match self {
            VariantKind::Kernel { entry, .. } => entry,
            VariantKind::Library { library } => library.word(),
            VariantKind::Command { kernel } | VariantKind::Imported { kernel, .. } => kernel,
        }
    }
}

/// The compiler of a kernel source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Compiler {
    /// NVRTC, at run time: device code only.
    Nvrtc,
    /// nvcc, for a file that holds host code too (`main`, launches, host
    /// headers): its device code is compiled to a CUBIN.
    Nvcc,
}

impl Compiler {
    pub fn word(self) -> &'static str {
        match self {
            Compiler::Nvrtc => "nvrtc",
            Compiler::Nvcc => "nvcc",
        }
    }
}
