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
///
/// Written as the routine's name alone (`"cublas-sgemm"`) when alpha and
/// beta are the defaults, as every results.json before them was, and as a
/// table (`{ "routine": "cublas-sgemm", "alpha": 0.5, "beta": 3.0 }`)
/// otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(from = "WrittenLibrary", into = "WrittenLibrary")]
pub enum Library {
    /// cuBLAS SGEMM, C = alpha·A·B + beta·C with row-major A (m×k), B (k×n),
    /// C (m×n): the first two f32 input buffers and the first f32 output
    /// buffer. alpha 1 and beta 0 (C = A·B, C not read) unless the suite
    /// says otherwise. Run in CUBLAS_PEDANTIC_MATH mode: FP32 arithmetic,
    /// no tensor cores.
    CublasSgemm { alpha: f32, beta: f32 },
}

/// alpha and beta are finite (the config refuses anything else, and JSON
/// holds no NaN), so `==` is an equivalence.
impl Eq for Library {}

impl Library {
    /// cuBLAS SGEMM computing C = A·B.
    pub const CUBLAS_SGEMM: Library = Library::CublasSgemm {
        alpha: 1.0,
        beta: 0.0,
    };

    pub fn word(self) -> &'static str {
        match self {
            Library::CublasSgemm { .. } => "cublas-sgemm",
        }
    }

    /// The routine with its alpha and beta where they are not 1 and 0:
    /// `cublas-sgemm` or `cublas-sgemm, alpha 0.5, beta 3`.
    pub fn label(self) -> String {
        match self {
            Library::CublasSgemm { alpha, beta } if self != Library::CUBLAS_SGEMM => {
                format!("{}, alpha {alpha}, beta {beta}", self.word())
            }
            Library::CublasSgemm { .. } => self.word().to_string(),
        }
    }
}

/// How [`Library`] is written: the routine's name, or a table with it.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum WrittenLibrary {
    Routine(Routine),
    Scaled {
        routine: Routine,
        #[serde(default = "one")]
        alpha: f32,
        #[serde(default)]
        beta: f32,
    },
}

fn one() -> f32 {
    1.0
}

#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Routine {
    CublasSgemm,
}

impl From<WrittenLibrary> for Library {
    fn from(written: WrittenLibrary) -> Library {
        match written {
            WrittenLibrary::Routine(Routine::CublasSgemm) => Library::CUBLAS_SGEMM,
            WrittenLibrary::Scaled {
                routine: Routine::CublasSgemm,
                alpha,
                beta,
            } => Library::CublasSgemm { alpha, beta },
        }
    }
}

impl From<Library> for WrittenLibrary {
    fn from(library: Library) -> WrittenLibrary {
        match library {
            Library::CublasSgemm { .. } if library == Library::CUBLAS_SGEMM => {
                WrittenLibrary::Routine(Routine::CublasSgemm)
            }
            Library::CublasSgemm { alpha, beta } => WrittenLibrary::Scaled {
                routine: Routine::CublasSgemm,
                alpha,
                beta,
            },
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
            VariantKind::Library { library } => format!("library: {}", library.label()),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_library_is_written_as_its_name_unless_alpha_or_beta_differ() {
        let plain = serde_json::to_value(Library::CUBLAS_SGEMM).unwrap();
        assert_eq!(plain, serde_json::json!("cublas-sgemm"));
        let scaled = Library::CublasSgemm {
            alpha: 0.5,
            beta: 3.0,
        };
        let written = serde_json::to_value(scaled).unwrap();
        assert_eq!(
            written,
            serde_json::json!({ "routine": "cublas-sgemm", "alpha": 0.5, "beta": 3.0 })
        );
        for (value, library) in [(plain, Library::CUBLAS_SGEMM), (written, scaled)] {
            assert_eq!(serde_json::from_value::<Library>(value).unwrap(), library);
        }
        assert_eq!(scaled.label(), "cublas-sgemm, alpha 0.5, beta 3");
        assert_eq!(Library::CUBLAS_SGEMM.label(), "cublas-sgemm");
    }
}
