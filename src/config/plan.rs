//! The resolved plan: what `gpuprof report` will run, with every expression
//! of variants.toml already evaluated at every problem size. It is plain data
//! (Serialize + Deserialize) so that the pipeline can hand it to the hidden
//! `gpuprof harness` subprocess as JSON, and so that results.json can record
//! exactly what was launched.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::model::Change;
use crate::model::suite::{Size, Timing};
use crate::model::sweep::{Sweep, SweepPoint};
use crate::model::variant::{Compiler, Library, Role};

/// Everything needed to run one suite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub suite: Suite,
    pub timing: Timing,
    pub profile: ProfileSettings,
    /// Variants in file order; the chain of steps is this order with the
    /// ceilings left out. A sweep's configurations stand where it was
    /// written, one variant each.
    pub variants: Vec<Variant>,
    /// The parameter sweeps, with the combinations their constraints skipped.
    #[serde(default)]
    pub sweeps: Vec<Sweep>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Suite {
    /// `[A-Za-z0-9_-]+`; names the default output folder.
    pub name: String,
    pub description: String,
    /// The variants.toml this plan came from (absolute).
    pub config_path: PathBuf,
    pub sizes: Vec<Size>,
    /// Name of the variant every speedup is measured against.
    pub baseline: String,
    /// Seed of the random buffer contents; the same seed gives every variant
    /// the same inputs.
    pub seed: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileSettings {
    /// Passed to `ncu --clock-control`: `none` (default; never touches the
    /// card's clocks) or `base`.
    pub clock_control: ClockControl,
    /// At which size the per-line source counters are taken.
    #[serde(default)]
    pub lines_at: LinesAt,
    /// Which configurations of each sweep are profiled.
    #[serde(default)]
    pub sweeps: SweepProfiling,
}

/// Which configurations of a sweep ncu profiles (all are timed):
/// `[profile] sweeps = { best = 3, worst = 1 }` or `sweeps = "all"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum SweepProfiling {
    /// The `best` fastest and the `worst` slowest that verified.
    Extremes {
        best: u32,
        worst: u32,
    },
    All,
}

/// How many of the fastest configurations of a sweep are profiled by default.
pub const DEFAULT_BEST: u32 = 3;
/// How many of the slowest configurations of a sweep are profiled by default.
pub const DEFAULT_WORST: u32 = 1;

impl Default for SweepProfiling {
    fn default() -> Self {
        SweepProfiling::Extremes {
            best: DEFAULT_BEST,
            worst: DEFAULT_WORST,
        }
    }
}

/// At which size the per-line source counters (ncu's SourceCounters
/// section, which runs an instrumented copy of the kernel at tens of times
/// its duration) are taken: access patterns do not depend on the size.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LinesAt {
    /// Chosen from the timed durations (`pipeline::profile::lines_size`).
    #[default]
    Auto,
    /// At every size.
    Every,
    /// At the size of this label.
    Size(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClockControl {
    None,
    Base,
}

impl ClockControl {
    pub fn as_ncu_value(self) -> &'static str {
        match self {
            ClockControl::None => "none",
            ClockControl::Base => "base",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Variant {
    pub name: String,
    pub role: Role,
    /// What it runs: a kernel, a library routine or the user's program.
    pub kind: VariantKind,
    /// Optimizations this variant makes relative to the previous step.
    pub changes: Vec<Change>,
    pub notes: String,
    pub verify: Verify,
    pub tolerance: Tolerance,
    /// One entry per suite size, in the suite's size order.
    pub instances: Vec<Instance>,
    /// The sweep this variant is a configuration of, and its values.
    #[serde(default)]
    pub sweep: Option<SweepPoint>,
}

/// What a variant runs; each stage matches on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum VariantKind {
    /// A kernel that gpuprof compiles and launches.
    Kernel(KernelSource),
    /// A vendor-library routine instead of a kernel.
    Library { library: Library },
    /// The user's own program, profiled under ncu as it is.
    Command(CommandVariant),
}

/// A kernel's source and how to compile it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelSource {
    /// The source file (absolute path); also the NVRTC program name, so
    /// that ncu's source page can find the file.
    pub path: PathBuf,
    /// The `extern "C"` entry point in `path`.
    pub entry: String,
    /// Extra compiler options, e.g. `--use_fast_math`.
    pub compile_options: Vec<String>,
    /// Which compiler builds it, and why that one.
    pub compiler: Compiler,
    pub compiler_reason: String,
    /// Folders searched for `#include "…"` (absolute), besides the toolkit's.
    pub include_dirs: Vec<PathBuf>,
    /// Only the file's device code is compiled (`device_only = true`): its
    /// host functions and file-scope macro calls are left out, and an
    /// empty header stands in for each header found nowhere.
    #[serde(default)]
    pub device_only: bool,
    /// For a variant that launches several kernels (`sequence`): the
    /// distinct entries its steps launch, in order of first use (the first
    /// is `entry`); empty for a single launch.
    #[serde(default)]
    pub sequence: Vec<String>,
}

impl KernelSource {
    /// Every kernel the variant launches: `entry`, or its sequence's.
    pub fn entries(&self) -> Vec<String> {
        match self.sequence.is_empty() {
            true => vec![self.entry.clone()],
            false => self.sequence.clone(),
        }
    }

    /// The kernels the variant launches at `instance`'s size: its own
    /// where the entry depends on the size, else [`Self::entries`].
    pub fn entries_at(&self, instance: &Instance) -> Vec<String> {
        match instance.entries.is_empty() {
            true => self.entries(),
            false => instance.entries.clone(),
        }
    }
}

/// One launch of a variant that launches several kernels in order, sharing
/// its buffers; the variant is timed, verified and profiled as the whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Which of [`KernelSource::entries`] it launches.
    pub kernel: usize,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub args: Vec<StepArg>,
}

/// A step's kernel parameter: one of the variant's buffers (by its index in
/// the instance's `args`) or a scalar of its own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum StepArg {
    /// One of the variant's buffers, from element `offset` on (a step that
    /// works on part of it, `d_data + blockSize`).
    Buffer {
        index: usize,
        #[serde(default, skip_serializing_if = "is_zero")]
        offset: u64,
    },
    Scalar(Scalar),
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// A program of the user's, profiled under ncu as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandVariant {
    /// Run once, before any size, in `folder` (e.g. a make or nvcc line).
    pub build: Option<Vec<String>>,
    /// ncu's kernel-name filter (a regular expression).
    pub kernel: String,
    /// How many matching launches ncu profiles; their durations are the
    /// timing samples.
    pub launches: u32,
    /// A regular expression some line of the program's output must match
    /// for its result to count as correct.
    pub expect: Option<String>,
    /// Where the build and the command run: the toml's folder.
    pub folder: PathBuf,
}

/// What a variant's outputs are compared against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "variant")]
pub enum Verify {
    /// Compare with the outputs of the named variant at the same size.
    Against(String),
    /// Not compared (for example a copy kernel used as a ceiling).
    Skip,
}

/// A mismatch is an element where `|got - want| > abs + rel * |want|`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Tolerance {
    pub rel: f64,
    pub abs: f64,
}

/// A variant at one size: launch geometry and arguments as numbers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    pub size: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub args: Vec<Arg>,
    /// Minimum DRAM traffic of the problem in bytes, if declared.
    pub bytes: Option<f64>,
    /// Arithmetic of the problem in floating-point operations, if declared.
    pub flops: Option<f64>,
    /// (m, n, k) of a GEMM library call.
    #[serde(default)]
    pub gemm: Option<[u32; 3]>,
    /// A command variant's argv at this size (placeholders filled in).
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// Preprocessor macros the kernel is compiled with at this size
    /// (`defines = { BLOCK = 256 }`), in name order.
    #[serde(default)]
    pub defines: Vec<(String, i64)>,
    /// The launches of a `sequence` variant at this size, in order (its
    /// `args` are then the buffers they share, and `grid`, `block` and
    /// `shared_bytes` are the first launch's); empty for a single launch.
    #[serde(default)]
    pub sequence: Vec<Step>,
    /// The kernels this size launches when the entry depends on the size
    /// (`reduce<256, {N / 32768}>` filled in), in the order of
    /// [`KernelSource::entries`]; empty when they are the variant's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub entries: Vec<String>,
}

/// One argument of one launch, as [`Instance::launches`] lists them.
#[derive(Debug, Clone, Copy)]
pub enum LaunchArg<'a> {
    /// The instance's buffer `index`, passed from element `offset` on.
    Buffer {
        index: usize,
        buffer: &'a Buffer,
        offset: u64,
    },
    Scalar(&'a Scalar),
}

/// One launch of an instance: which of the variant's entries it launches
/// (0 for a single launch), its geometry and its arguments in the kernel's
/// parameter order.
#[derive(Debug, Clone)]
pub struct Launch<'a> {
    pub kernel: usize,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub args: Vec<LaunchArg<'a>>,
}

impl Instance {
    /// Every launch of the instance, in order; a buffer bound to a module
    /// variable (`symbol`) is no parameter.
    pub fn launches(&self) -> Vec<Launch<'_>> {
        let buffer = |index: usize, offset: u64| match &self.args[index] {
            Arg::Buffer(buffer) => LaunchArg::Buffer {
                index,
                buffer,
                offset,
            },
            Arg::Scalar(scalar) => LaunchArg::Scalar(scalar),
        };
        if self.sequence.is_empty() {
            let args = self
                .args
                .iter()
                .enumerate()
                .filter(|(_, arg)| !matches!(arg, Arg::Buffer(b) if b.symbol.is_some()))
                .map(|(index, _)| buffer(index, 0))
                .collect();
            return vec![Launch {
                kernel: 0,
                grid: self.grid,
                block: self.block,
                shared_bytes: self.shared_bytes,
                args,
            }];
        }
        self.sequence
            .iter()
            .map(|step| Launch {
                kernel: step.kernel,
                grid: step.grid,
                block: step.block,
                shared_bytes: step.shared_bytes,
                args: step
                    .args
                    .iter()
                    .map(|arg| match arg {
                        StepArg::Buffer { index, offset } => buffer(*index, *offset),
                        StepArg::Scalar(scalar) => LaunchArg::Scalar(scalar),
                    })
                    .collect(),
            })
            .collect()
    }

    /// The device bytes of its buffers together (those in module
    /// variables included); `None` past 2^64 bytes.
    pub fn buffer_bytes(&self) -> Option<u64> {
        self.args
            .iter()
            .map(|arg| match arg {
                Arg::Buffer(b) => b.count.checked_mul(b.element.size_bytes() as u64),
                Arg::Scalar(_) => Some(0),
            })
            .try_fold(0u64, |sum, bytes| sum.checked_add(bytes?))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Arg {
    Buffer(Buffer),
    Scalar(Scalar),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Buffer {
    pub name: String,
    pub element: ElementType,
    pub count: u64,
    pub fill: Fill,
    /// Outputs are compared against the reference after the launch.
    pub output: bool,
    pub compare: Compare,
    /// When set, the buffer is not passed as a kernel parameter: its contents
    /// are copied into the module's `__constant__`/`__device__` variable of
    /// this name before each launch.
    pub symbol: Option<String>,
}

/// The type of a buffer's elements or of a scalar, as the kernel declares
/// it: `f16` is CUDA's `__half`, `bf16` its `__nv_bfloat16`, `u8` an
/// `unsigned char` (`uint8_t`), `i16` a `short`, and so on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElementType {
    F32,
    F64,
    I32,
    U32,
    I64,
    U64,
    F16,
    Bf16,
    I8,
    U8,
    I16,
    U16,
}

impl ElementType {
    /// Every element type, in the order messages list them.
    pub const ALL: [ElementType; 12] = [
        ElementType::F16,
        ElementType::Bf16,
        ElementType::F32,
        ElementType::F64,
        ElementType::I8,
        ElementType::U8,
        ElementType::I16,
        ElementType::U16,
        ElementType::I32,
        ElementType::U32,
        ElementType::I64,
        ElementType::U64,
    ];

    pub fn size_bytes(self) -> usize {
        match self {
            ElementType::I8 | ElementType::U8 => 1,
            ElementType::F16 | ElementType::Bf16 | ElementType::I16 | ElementType::U16 => 2,
            ElementType::F32 | ElementType::I32 | ElementType::U32 => 4,
            ElementType::F64 | ElementType::I64 | ElementType::U64 => 8,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElementType::F16 | ElementType::Bf16 | ElementType::F32 | ElementType::F64
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            ElementType::F32 => "f32",
            ElementType::F64 => "f64",
            ElementType::I32 => "i32",
            ElementType::U32 => "u32",
            ElementType::I64 => "i64",
            ElementType::U64 => "u64",
            ElementType::F16 => "f16",
            ElementType::Bf16 => "bf16",
            ElementType::I8 => "i8",
            ElementType::U8 => "u8",
            ElementType::I16 => "i16",
            ElementType::U16 => "u16",
        }
    }

    /// The name with its article, as read aloud: `an f16`, `a u8`, `a bf16`.
    pub fn with_article(self) -> String {
        let article = match self {
            ElementType::U8
            | ElementType::U16
            | ElementType::U32
            | ElementType::U64
            | ElementType::Bf16 => "a",
            _ => "an",
        };
        format!("{article} {}", self.name())
    }
}

impl Tolerance {
    /// The tolerance a variant gets when it gives none (and the value of a
    /// key it leaves out): right for f32 and f64 outputs.
    pub const DEFAULT: Tolerance = Tolerance {
        rel: 1e-5,
        abs: 1e-6,
    };

    /// The tolerance an output of `got` is compared with a reference of
    /// `want` with: [`Self::for_element`] of each, the looser of the two
    /// key by key (an f16 kernel checked against an f32 one is held to
    /// f16's precision, whichever side it is on).
    pub fn for_elements(self, got: ElementType, want: ElementType) -> Tolerance {
        let (a, b) = (self.for_element(got), self.for_element(want));
        Tolerance {
            rel: a.rel.max(b.rel),
            abs: a.abs.max(b.abs),
        }
    }

    /// The tolerance an output of `element` is compared with. The f32
    /// default is tighter than a 2-byte float can resolve (f16 steps by
    /// 2^-10 ≈ 9.8e-4 of a value, bf16 by 2^-7 ≈ 7.8e-3), so for f16 and
    /// bf16 outputs a key left at its default takes the type's own: two
    /// such steps relative (rel 2e-3 for f16, 1.6e-2 for bf16) and abs
    /// 1e-5. Integer arithmetic does not round, so integer outputs are
    /// compared exactly (a relative 1e-5 of a 2e9 sum would let 20,000
    /// lost elements through). A key set to another value is kept as
    /// written (a value written equal to the f32 default cannot be told
    /// from the default).
    pub fn for_element(self, element: ElementType) -> Tolerance {
        let (rel, abs) = match element {
            ElementType::F16 => (2e-3, 1e-5),
            ElementType::Bf16 => (1.6e-2, 1e-5),
            ElementType::F32 | ElementType::F64 => return self,
            ElementType::I8
            | ElementType::U8
            | ElementType::I16
            | ElementType::U16
            | ElementType::I32
            | ElementType::U32
            | ElementType::I64
            | ElementType::U64 => (0.0, 0.0),
        };
        Tolerance {
            rel: if self.rel == Tolerance::DEFAULT.rel {
                rel
            } else {
                self.rel
            },
            abs: if self.abs == Tolerance::DEFAULT.abs {
                abs
            } else {
                self.abs
            },
        }
    }
}

/// Initial contents of a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Fill {
    /// Seeded uniform values in `[low, high)` (integers: `[low, high)` rounded down).
    Random { low: f64, high: f64 },
    /// Every element set to this value.
    Constant { value: f64 },
    /// Every byte 0xFF: NaN for floats, all ones for integers, so that an
    /// element the kernel never writes cannot pass verification. The default
    /// for outputs.
    Poison,
}

/// How an output buffer is compared with the reference's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Compare {
    /// Element by element (the counts must match).
    Elementwise,
    /// Only the sum of all elements, for outputs whose layout differs
    /// between variants (per-block partial sums of a reduction).
    Sum,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Scalar {
    pub name: String,
    pub element: ElementType,
    pub value: f64,
}

impl Plan {
    pub fn variant(&self, name: &str) -> Option<&Variant> {
        self.variants.iter().find(|v| v.name == name)
    }
}

impl Variant {
    /// The kernel, for a kernel variant.
    pub fn kernel(&self) -> Option<&KernelSource> {
        match &self.kind {
            VariantKind::Kernel(kernel) => Some(kernel),
            _ => None,
        }
    }

    /// The program, for a command variant.
    pub fn command(&self) -> Option<&CommandVariant> {
        match &self.kind {
            VariantKind::Command(command) => Some(command),
            _ => None,
        }
    }
}

/// A single launch of `args` at one size, for the tests of what reads an
/// instance.
#[cfg(test)]
pub(crate) fn instance_of(args: Vec<Arg>) -> Instance {
    Instance {
        size: "N=8".into(),
        grid: [1, 1, 1],
        block: [8, 1, 1],
        shared_bytes: 0,
        args,
        bytes: None,
        flops: None,
        gemm: None,
        command: None,
        defines: Vec::new(),
        sequence: Vec::new(),
        entries: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_list_each_kernels_parameters_in_order() {
        let buffer = |name: &str, symbol: Option<&str>| {
            Arg::Buffer(Buffer {
                name: name.into(),
                element: ElementType::F32,
                count: 8,
                fill: Fill::Poison,
                output: false,
                compare: Compare::Elementwise,
                symbol: symbol.map(str::to_string),
            })
        };
        let n = Scalar {
            name: "n".into(),
            element: ElementType::I32,
            value: 4.0,
        };
        let mut instance = instance_of(vec![
            buffer("filter", Some("c_filter")),
            buffer("x", None),
            Arg::Scalar(n.clone()),
        ]);
        let named = |launch: &Launch| -> Vec<String> {
            launch
                .args
                .iter()
                .map(|arg| match arg {
                    LaunchArg::Buffer { buffer, offset, .. } => format!("{}+{offset}", buffer.name),
                    LaunchArg::Scalar(s) => s.name.clone(),
                })
                .collect()
        };
        // One launch: the symbol buffer is no parameter.
        let single = instance.launches();
        assert_eq!(single.len(), 1);
        assert_eq!(named(&single[0]), ["x+0", "n"]);
        instance.sequence = vec![
            Step {
                kernel: 0,
                grid: [1, 1, 1],
                block: [4, 1, 1],
                shared_bytes: 0,
                args: vec![
                    StepArg::Buffer {
                        index: 1,
                        offset: 0,
                    },
                    StepArg::Scalar(n.clone()),
                ],
            },
            Step {
                kernel: 1,
                grid: [3, 1, 1],
                block: [4, 1, 1],
                shared_bytes: 16,
                args: vec![StepArg::Buffer {
                    index: 1,
                    offset: 4,
                }],
            },
        ];
        let steps = instance.launches();
        assert_eq!(
            (steps[1].kernel, steps[1].grid, steps[1].shared_bytes),
            (1, [3, 1, 1], 16)
        );
        assert_eq!(named(&steps[0]), ["x+0", "n"]);
        assert_eq!(named(&steps[1]), ["x+4"]);
    }

    #[test]
    fn element_types_are_named_and_sized_as_cuda_declares_them() {
        let named: Vec<(&str, usize, bool)> = ElementType::ALL
            .iter()
            .map(|e| (e.name(), e.size_bytes(), e.is_float()))
            .collect();
        assert_eq!(
            named,
            [
                ("f16", 2, true),
                ("bf16", 2, true),
                ("f32", 4, true),
                ("f64", 8, true),
                ("i8", 1, false),
                ("u8", 1, false),
                ("i16", 2, false),
                ("u16", 2, false),
                ("i32", 4, false),
                ("u32", 4, false),
                ("i64", 8, false),
                ("u64", 8, false),
            ]
        );
        // The plan handed to the harness names them the same way.
        for element in ElementType::ALL {
            let json = serde_json::to_string(&element).unwrap();
            assert_eq!(json, format!("\"{}\"", element.name()));
            assert_eq!(serde_json::from_str::<ElementType>(&json).unwrap(), element);
        }
        assert_eq!(ElementType::U8.with_article(), "a u8");
        assert_eq!(ElementType::Bf16.with_article(), "a bf16");
        assert_eq!(ElementType::F16.with_article(), "an f16");
        assert_eq!(ElementType::I8.with_article(), "an i8");
    }

    #[test]
    fn two_byte_floats_widen_a_default_tolerance_to_their_precision() {
        let default = Tolerance::DEFAULT;
        assert_eq!(
            default.for_element(ElementType::F16),
            Tolerance {
                rel: 2e-3,
                abs: 1e-5
            }
        );
        assert_eq!(
            default.for_element(ElementType::Bf16),
            Tolerance {
                rel: 1.6e-2,
                abs: 1e-5
            }
        );
        // Two steps of the type's resolution (2^-10 and 2^-7 of a value).
        assert!(2e-3 >= 2.0 * 2f64.powi(-10) && 1.6e-2 >= 2.0 * 2f64.powi(-7));
        for element in [ElementType::F32, ElementType::F64] {
            assert_eq!(default.for_element(element), default, "{}", element.name());
        }
        // Integers do not round: compared exactly, unless a key says else.
        let exact = Tolerance { rel: 0.0, abs: 0.0 };
        for element in ElementType::ALL.into_iter().filter(|e| !e.is_float()) {
            assert_eq!(default.for_element(element), exact, "{}", element.name());
        }
        let loose = Tolerance {
            rel: 1e-3,
            abs: 1.0,
        };
        assert_eq!(loose.for_element(ElementType::U32), loose);
        // A key written to another value is kept; the other still widens.
        let written = Tolerance {
            rel: 0.0,
            abs: 1e-6,
        };
        assert_eq!(
            written.for_element(ElementType::F16),
            Tolerance {
                rel: 0.0,
                abs: 1e-5
            }
        );
        let loose = Tolerance { rel: 0.1, abs: 0.5 };
        assert_eq!(loose.for_element(ElementType::Bf16), loose);
    }
}
