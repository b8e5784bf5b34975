//! Kernels compile as `gpuprof report` compiles them, for real and without
//! a GPU: every kernel variant of every bundled suite; C++ kernels, template
//! instances, kernels in a namespace and `extern "C"` kernels through NVRTC
//! name expressions, with the toolkit's headers found and macros defined;
//! and a homework file with host code through nvcc, its kernel found among
//! the CUBIN's symbols. CI installs NVRTC and nvcc from PyPI and sets
//! GPUPROF_REQUIRE_NVRTC=1 and GPUPROF_REQUIRE_NVCC=1, so a missing
//! compiler fails there instead of skipping.

use std::path::{Path, PathBuf};

use gpuprof::build::{self, BuildError, Cache, Request, Settings, symbols, toolkit};
use gpuprof::model::variant::Compiler;

fn nvrtc_or_skip() -> bool {
    present_or_skip(
        build::nvrtc_available(),
        "GPUPROF_REQUIRE_NVRTC",
        "libnvrtc",
    )
}

fn nvcc_or_skip() -> bool {
    present_or_skip(toolkit::nvcc().is_some(), "GPUPROF_REQUIRE_NVCC", "nvcc")
}

fn present_or_skip(present: bool, requirement: &str, what: &str) -> bool {
    if present {
        return true;
    }
    assert!(
        std::env::var_os(requirement).is_none(),
        "{requirement} is set but {what} could not be found (PATH={:?}, LD_LIBRARY_PATH={:?})",
        std::env::var_os("PATH"),
        std::env::var_os("LD_LIBRARY_PATH")
    );
    eprintln!("{what} not found: skipping (set {requirement}=1 to make this an error)");
    false
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn cache() -> Cache {
    Cache::new(tempfile::tempdir().unwrap().path().join("cache"))
}

/// Compiles `entry` of `source` for sm_90 with `defines`.
fn compile(
    source: &Path,
    entry: &str,
    compiler: Compiler,
    defines: &[(String, i64)],
    cache: &Cache,
) -> Result<build::Compiled, BuildError> {
    let settings = Settings {
        defines,
        ..Settings::default()
    };
    let options = build::options_for((9, 0), compiler, settings);
    build::compile(
        Request {
            source,
            entries: &[entry.to_string()],
            compiler,
            device_only: false,
            options: &options,
        },
        cache,
    )
}

/// The kernels (symbols) of a compiled CUBIN.
fn symbols_of(compiled: &build::Compiled) -> Vec<String> {
    symbols::kernels_in(&std::fs::read(&compiled.cubin).unwrap()).unwrap()
}

fn suites(folder: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            suites(&path, found);
        } else if path.file_name().is_some_and(|n| n == "variants.toml") {
            found.push(path);
        }
    }
}

#[test]
fn every_kernel_variant_of_every_bundled_suite_compiles_for_sm_90() {
    if !nvrtc_or_skip() {
        return;
    }
    let mut found = Vec::new();
    suites(&root().join("examples"), &mut found);
    suites(&root().join("tests/gpu"), &mut found);
    found.sort();
    assert!(found.len() >= 6, "found only {found:?}");
    let cache = cache();
    let mut failures = Vec::new();
    let mut compiled_count = 0;
    for suite in &found {
        let plan = gpuprof::config::load(suite).unwrap_or_else(|e| panic!("{e}"));
        for variant in &plan.variants {
            let Some(kernel) = variant.kernel() else {
                continue;
            };
            if kernel.compiler == Compiler::Nvcc && !nvcc_or_skip() {
                continue;
            }
            if kernel.path.file_name().is_some_and(|n| n == "broken.cu") {
                continue;
            }
            for instance in &variant.instances {
                let settings = Settings {
                    extra: &kernel.compile_options,
                    include_dirs: &kernel.include_dirs,
                    defines: &instance.defines,
                };
                let options = build::options_for((9, 0), kernel.compiler, settings);
                let request = Request {
                    source: &kernel.path,
                    entries: &kernel.entries_at(instance),
                    compiler: kernel.compiler,
                    device_only: kernel.device_only,
                    options: &options,
                };
                match build::compile(request, &cache) {
                    Ok(compiled) => {
                        compiled_count += 1;
                        let kernels = symbols_of(&compiled);
                        assert!(
                            compiled.functions.iter().all(|f| kernels.contains(f)),
                            "{}: {:?} are not all among {kernels:?}",
                            variant.name,
                            compiled.functions
                        );
                    }
                    Err(error) => failures.push(format!("{}: {error}", suite.display())),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(
        compiled_count >= 20,
        "only {compiled_count} kernels compiled"
    );
}

#[test]
fn nvrtc_finds_templates_namespaces_cpp_and_extern_c_kernels_by_name() {
    if !nvrtc_or_skip() {
        return;
    }
    let source = root().join("tests/kernels/cpp/templated.cu");
    let cache = cache();
    let scale = [("SCALE".to_string(), 2)];
    for (entry, symbol) in [
        ("reduce6<256, true>", "_Z7reduce6ILj256ELb1EEvPKfPfj"),
        ("reduce6<128, false>", "_Z7reduce6ILj128ELb0EEvPKfPfj"),
        ("gemm::scale", "_ZN4gemm5scaleEPffi"),
        ("transposeNaive", "_Z14transposeNaivePfPKfii"),
        ("copy_reference", "copy_reference"),
    ] {
        let compiled = compile(&source, entry, Compiler::Nvrtc, &scale, &cache)
            .unwrap_or_else(|e| panic!("{entry}: {e}"));
        assert_eq!(compiled.functions[0], symbol, "{entry}");
        assert!(
            symbols_of(&compiled).contains(&compiled.functions[0]),
            "{entry}"
        );
        assert!(
            compiled
                .command
                .starts_with("NVRTC --gpu-architecture=sm_90 -lineinfo -std=c++17"),
            "{}",
            compiled.command
        );
    }
    // The macro is the variant's: without it, NVRTC says what is missing.
    match compile(&source, "copy_reference", Compiler::Nvrtc, &[], &cache) {
        Err(BuildError::Compile { log, compiler, .. }) => {
            assert_eq!(compiler, "NVRTC");
            assert!(log.contains("identifier \"SCALE\" is undefined"), "{log}");
            assert!(
                log.contains("templated.cu"),
                "the log names the real path: {log}"
            );
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

#[test]
fn nvcc_compiles_a_file_with_host_code_and_finds_an_instance_main_never_launches() {
    if !nvcc_or_skip() {
        return;
    }
    let source = root().join("tests/kernels/cpp/homework.cu");
    let cache = cache();
    for (entry, readable) in [
        ("tiledCopy<64>", "tiledCopy<64>"),
        ("naiveCopy", "naiveCopy"),
    ] {
        let compiled = compile(&source, entry, Compiler::Nvcc, &[], &cache)
            .unwrap_or_else(|e| panic!("{entry}: {e}"));
        assert_eq!(symbols::demangled(&compiled.functions[0]), readable);
        assert!(
            compiled
                .command
                .contains("-cubin -arch=sm_90 -lineinfo -std=c++17"),
            "{}",
            compiled.command
        );
        let binary = std::fs::read(&compiled.cubin).unwrap();
        let contains = |text: &str| binary.windows(text.len()).any(|w| w == text.as_bytes());
        let folder = source.parent().unwrap().display().to_string();
        assert!(
            contains(&folder) && contains("homework.cu"),
            "the line info names the user's own file (its folder and name)"
        );
    }
    match compile(&source, "missingKernel", Compiler::Nvcc, &[], &cache) {
        Err(BuildError::NoSuchKernel { found, .. }) => {
            assert!(found.contains(&"naiveCopy".to_string()), "{found:?}");
        }
        other => panic!("expected no such kernel, got {other:?}"),
    }
}

#[test]
fn a_source_with_a_comment_in_gbk_compiles_by_both_compilers() {
    if !nvrtc_or_skip() || !nvcc_or_skip() {
        return;
    }
    // "// 核函数" (kernel function) in GBK, then a plain kernel: the bytes
    // are not UTF-8, and both compilers take them as they are.
    let folder = tempfile::tempdir().unwrap();
    let source = folder.path().join("gbk.cu");
    let mut bytes = b"// \xba\xcb\xba\xaf\xca\xfd\n".to_vec();
    bytes.extend_from_slice(b"__global__ void scale(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2.0f; }\n");
    std::fs::write(&source, &bytes).unwrap();
    for compiler in [Compiler::Nvrtc, Compiler::Nvcc] {
        let compiled = compile(&source, "scale", compiler, &[], &cache())
            .unwrap_or_else(|e| panic!("{compiler:?}: {e}"));
        assert_eq!(symbols_of(&compiled), ["_Z5scalePfi"], "{compiler:?}");
    }
}

#[test]
fn an_instance_that_does_not_compile_is_named_by_its_entry_not_a_temporary_file() {
    if !nvcc_or_skip() {
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    let source = folder.path().join("red.cu");
    std::fs::write(
        &source,
        "template <int BS, int PER> __global__ void red(float *x) { x[threadIdx.x] *= BS * PER; }\nint main() { return 0; }\n",
    )
    .unwrap();
    match compile(
        &source,
        "red<256, PER_THREAD>",
        Compiler::Nvcc,
        &[],
        &cache(),
    ) {
        Err(BuildError::Compile { log, .. }) => {
            assert!(
                log.contains("the instance gpuprof compiles for `entry = \"red<256, PER_THREAD>\"`: error: identifier \"PER_THREAD\" is undefined"),
                "{log}"
            );
            assert!(!log.contains("instance.cu"), "{log}");
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
    // A file compiled as it is keeps its own path in the log.
    std::fs::write(
        &source,
        "__global__ void plain(float *x) { x[threadIdx.x] = undefined_name; }\nint main() { return 0; }\n",
    )
    .unwrap();
    match compile(&source, "plain", Compiler::Nvcc, &[], &cache()) {
        Err(BuildError::Compile { log, .. }) => assert!(
            log.contains(&format!(
                "{}(1): error: identifier \"undefined_name\" is undefined",
                source.display()
            )),
            "{log}"
        ),
        other => panic!("expected a compile error, got {other:?}"),
    }
}

#[test]
fn an_entry_nvrtc_cannot_find_says_so_before_its_name_map_errors() {
    if !nvrtc_or_skip() {
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    let source = folder.path().join("m.cu");
    std::fs::write(
        &source,
        "#define KERNEL(name) __global__ void name(float *a) { a[threadIdx.x] = 1; }\nKERNEL(k1)\n",
    )
    .unwrap();
    match compile(&source, "kk", Compiler::Nvrtc, &[], &cache()) {
        Err(BuildError::Compile { log, .. }) => assert!(
            log.starts_with("NVRTC could not find every entry (kk) among the kernels of"),
            "{log}"
        ),
        other => panic!("expected a compile error, got {other:?}"),
    }
    assert!(compile(&source, "k1", Compiler::Nvrtc, &[], &cache()).is_ok());
}

#[test]
fn a_compile_error_carries_the_compilers_log() {
    if !nvrtc_or_skip() {
        return;
    }
    let broken = root().join("tests/gpu/faults/broken.cu");
    match compile(&broken, "copy_broken", Compiler::Nvrtc, &[], &cache()) {
        Err(BuildError::Compile { log, .. }) => {
            assert!(log.contains("identifier \"j\" is undefined"), "{log}");
            assert!(
                log.contains("broken.cu"),
                "the log names the real path: {log}"
            );
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
}

#[test]
fn a_missing_header_is_named_with_where_to_list_its_folder_by_both_compilers() {
    let folder = tempfile::tempdir().unwrap();
    let source = folder.path().join("needs_helper.cu");
    std::fs::write(
        &source,
        "#include \"helper_math.h\"\nextern \"C\" __global__ void scale(float *x) { x[0] *= 2.0f; }\n",
    )
    .unwrap();
    let mut compilers = Vec::new();
    if nvrtc_or_skip() {
        compilers.push(Compiler::Nvrtc);
    }
    if nvcc_or_skip() {
        compilers.push(Compiler::Nvcc);
    }
    for compiler in compilers {
        let error = compile(&source, "scale", compiler, &[], &cache()).unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, BuildError::Compile { .. }), "{message}");
        assert!(message.contains("\n  command: "), "{message}");
        assert!(
            message.ends_with("\n  help: `helper_math.h` was not found: list the folder that holds it in `include_dirs` (relative to the variants.toml)"),
            "{message}"
        );
    }
}

#[test]
fn a_second_compile_comes_from_the_cache() {
    if !nvrtc_or_skip() {
        return;
    }
    let good = root().join("tests/gpu/faults/good.cu");
    let cache = cache();
    let entry = "copy";
    let first = compile(&good, entry, Compiler::Nvrtc, &[], &cache).unwrap();
    let second = compile(&good, entry, Compiler::Nvrtc, &[], &cache).unwrap();
    assert!(!first.from_cache);
    assert!(second.from_cache);
    assert_eq!(
        (first.cubin, first.functions),
        (second.cubin, second.functions)
    );
    let defined = [("UNUSED".to_string(), 1)];
    let other = compile(&good, entry, Compiler::Nvrtc, &defined, &cache).unwrap();
    assert!(!other.from_cache, "other macros are another binary");
}

/// Writes `files` into a new folder and drafts a suite from `source` with
/// `gpuprof init --from`; the drafted variants.toml.
fn drafted(files: &[(&str, &str)], source: &str) -> String {
    let folder = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(folder.path().join(name), text).unwrap();
    }
    let written =
        gpuprof::init::write_from(&folder.path().join("s"), &[folder.path().join(source)])
            .unwrap_or_else(|e| panic!("{e}"));
    std::fs::read_to_string(written).unwrap()
}

/// llm.c's way of naming its element type: an alias defined one way per
/// macro, in a header the kernel's file includes after choosing.
const PRECISION_HEADER: &str = r#"
#include <cuda_fp16.h>
#if defined(ENABLE_FP16)
typedef __half floatX;
#else
typedef float floatX;
#endif
"#;

const SCALE: &str = r#"
#define ENABLE_FP16
#include "precision.h"

__global__ void scale(floatX *out, const floatX *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * (floatX)2.0f;
}
"#;

#[test]
fn init_reads_the_element_types_the_text_hides_from_the_compiled_kernel() {
    if !nvrtc_or_skip() {
        return;
    }
    let text = drafted(
        &[("precision.h", PRECISION_HEADER), ("scale.cu", SCALE)],
        "scale.cu",
    );
    for line in [
        "# types read from the compiled kernel, as the file does not say them: `floatX *` is `__half*`, `const floatX *` is `__half const*`\n",
        "{ name = \"out\", buffer = \"f16\", count = \"N\", output = true },",
        "{ name = \"in\", buffer = \"f16\", count = \"N\", fill = \"random\" },",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
    assert!(!text.contains("cannot make"), "{text}");
}

/// A textbook's way of choosing its precision: an alias defined one way
/// per macro in the file itself, its size taken with `sizeof` by the host
/// code that allocates and launches.
const PRECISION_CHOSEN_IN_THE_FILE: &str = r#"
#include <cstdio>
#include <cstdlib>
#ifdef USE_DP
    typedef double real;
#else
    typedef float real;
#endif
const int N = 1 << 20;
const int BLOCK = 128;

__global__ void block_sums(const real *x, real *sums, const int n)
{
    extern __shared__ real partial[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? x[i] : 0;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}

int main()
{
    const int bytes = sizeof(real) * N;
    const int blocks = (N + BLOCK - 1) / BLOCK;
    real *x, *sums;
    cudaMalloc(&x, bytes);
    cudaMalloc(&sums, sizeof(real) * blocks);
    const int smem = sizeof(real) * BLOCK;
    block_sums<<<blocks, BLOCK, smem>>>(x, sums, N);
    cudaDeviceSynchronize();
    printf("done\n");
    return 0;
}
"#;

#[test]
fn init_sizes_an_alias_the_file_chooses_by_macro_as_the_compiler_saw_it() {
    if !nvcc_or_skip() {
        return;
    }
    let text = drafted(&[("sums.cu", PRECISION_CHOSEN_IN_THE_FILE)], "sums.cu");
    for line in [
        "shared_bytes = 512  # the file passes smem\n",
        "{ name = \"x\", buffer = \"f32\", count = \"N\", fill = \"random\" },  # the file allocates sizeof(real) * N for `x`\n",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
    assert!(!text.contains("shared_bytes = 0"), "{text}");
}

#[test]
fn init_says_why_the_types_it_could_not_read_are_left_to_fill_in() {
    if !nvrtc_or_skip() {
        return;
    }
    // The header that says what floatX is, is not there.
    let text = drafted(&[("scale.cu", SCALE)], "scale.cu");
    assert!(
        text.contains("# The file does not say what floatX *, const floatX * are; compiling it to read them failed\n# (NVRTC failed: "),
        "{text}"
    );
    assert!(text.contains("precision.h"), "{text}");
    assert!(
        text.contains("# fill in: `floatX *out` is a pointer to a type gpuprof cannot make"),
        "{text}"
    );
}

/// A template instance the file launches and a kernel an `#ifdef` leaves
/// out, beside the hidden alias.
const SCALE_MORE: &str = r#"
#define ENABLE_FP16
#include "precision.h"

template <bool twice>
__global__ void scale_by(floatX *out, const floatX *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = twice ? in[i] + in[i] : in[i];
}

#ifdef WITH_EXTRA
__global__ void extra(floatX *out, int n) { out[0] = (floatX)n; }
#endif

void run(floatX *out, const floatX *in, int n)
{
    scale_by<true><<<(n + 255) / 256, 256>>>(out, in, n);
}
"#;

#[test]
fn init_reads_a_launched_instances_types_and_marks_a_kernel_an_ifdef_leaves_out() {
    if !nvcc_or_skip() {
        return;
    }
    let text = drafted(
        &[("precision.h", PRECISION_HEADER), ("more.cu", SCALE_MORE)],
        "more.cu",
    );
    let variant = |name: &str| {
        text.split("\n[[variant]]\n")
            .find(|v| v.starts_with(&format!("name = \"{name}\"\n")))
            .unwrap_or_else(|| panic!("no variant {name}\n{text}"))
            .to_string()
    };
    let instance = variant("scale_by");
    assert!(
        instance.contains("{ name = \"out\", buffer = \"f16\""),
        "{instance}"
    );
    let extra = variant("extra");
    assert!(
        extra.contains(
            "# fill in: the compiled file holds no such kernel: an #if or #ifdef around it is off"
        ),
        "{extra}"
    );
}

/// A suite whose variants are the kernels of tests/kernels/cpp/homework.cu
/// (host code, so nvcc), one variant per `(name, entry)`, at two sizes.
fn homework_suite(folder: &Path, entries: &[(&str, &str)]) -> gpuprof::config::Plan {
    let source = root().join("tests/kernels/cpp/homework.cu");
    let mut toml = format!(
        "version = 1\n[suite]\nname = \"together\"\nsizes = [1024, 4096]\nbaseline = \"{}\"\n\
         [defaults]\nblock = [32]\ngrid = [\"cdiv(N, 32)\"]\nargs = [\n  \
         {{ name = \"out\", buffer = \"f32\", count = \"N\", output = true }},\n  \
         {{ name = \"in\", buffer = \"f32\", count = \"N\", fill = \"random\" }},\n  \
         {{ name = \"n\", scalar = \"i32\", value = \"N\" }},\n]\n",
        entries[0].0
    );
    for (name, entry) in entries {
        toml.push_str(&format!(
            "[[variant]]\nname = \"{name}\"\nsource = \"{}\"\nentry = \"{entry}\"\n",
            source.display()
        ));
    }
    let config = folder.join("variants.toml");
    std::fs::write(&config, toml).unwrap();
    gpuprof::config::load(&config).unwrap_or_else(|e| panic!("{e}"))
}

/// Builds every variant of `plan` together: each variant's outcome and
/// record, and how many compiler runs the progress bar counted.
fn build_together(
    plan: &gpuprof::config::Plan,
    cache: &Cache,
) -> (
    Vec<(build::Built, gpuprof::model::results::BuildRecord)>,
    u64,
) {
    let mut records: Vec<gpuprof::model::results::BuildRecord> =
        plan.variants.iter().map(|_| Default::default()).collect();
    let mut builds: Vec<build::VariantBuild> = plan
        .variants
        .iter()
        .zip(records.iter_mut())
        .map(|(variant, record)| build::VariantBuild {
            name: &variant.name,
            kernel: variant.kernel().unwrap(),
            instances: &variant.instances,
            record,
        })
        .collect();
    let progress =
        indicatif::ProgressBar::with_draw_target(Some(0), indicatif::ProgressDrawTarget::hidden());
    let outcomes = build::compile_variants(&mut builds, (9, 0), cache, &progress);
    drop(builds);
    (
        outcomes.into_iter().zip(records).collect(),
        progress.length().unwrap_or(0),
    )
}

#[test]
fn variants_of_one_file_are_built_by_one_compiler_run_and_a_bad_entry_fails_alone() {
    if !nvcc_or_skip() {
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    let cache = cache();
    let good = [
        ("naive", "naiveCopy"),
        ("tiled32", "tiledCopy<32>"),
        ("tiled64", "tiledCopy<64>"),
    ];
    let plan = homework_suite(folder.path(), &good);
    let (built, runs) = build_together(&plan, &cache);
    assert_eq!(runs, 1, "three variants at two sizes share one nvcc run");
    let cubins: std::collections::BTreeSet<PathBuf> = built
        .iter()
        .flat_map(|(outcome, _)| outcome.as_ref().unwrap().iter().map(|c| c.cubin.clone()))
        .collect();
    assert_eq!(cubins.len(), 1, "{cubins:?}");
    let symbols: Vec<&str> = built
        .iter()
        .map(|(outcome, _)| outcome.as_ref().unwrap()[1].functions[0].as_str())
        .collect();
    assert_eq!(
        symbols,
        [
            "_Z9naiveCopyPfPKfi",
            "_Z9tiledCopyILi32EEvPfPKfi",
            "_Z9tiledCopyILi64EEvPfPKfi"
        ]
    );
    let (_, tiled32) = &built[1];
    assert_eq!(tiled32.compiled_with, ["naive", "tiled64"]);
    assert!(tiled32.command.as_deref().unwrap().contains("nvcc -cubin"));
    assert!(tiled32.seconds > 0.0);

    // An instance that cannot exist fails the shared run: each variant is
    // then built alone, and only the bad one fails, with nvcc's words.
    let mut with_bad = good.to_vec();
    with_bad.insert(1, ("bad", "tiledCopy<-32>"));
    let plan = homework_suite(folder.path(), &with_bad);
    let (built, runs) = build_together(&plan, &cache);
    assert_eq!(runs, 1 + 4, "the shared run, then one run per variant");
    for (index, (outcome, record)) in built.iter().enumerate() {
        match (index, outcome) {
            (1, Err(BuildError::Compile { log, .. })) => assert!(
                log.contains("must be greater than zero") && log.contains("TILE=-32"),
                "nvcc's error on the bad instance: {log}"
            ),
            (1, other) => panic!("a tile of -32 floats should not compile: {other:?}"),
            (_, Ok(compiled)) => {
                assert_eq!(compiled.len(), 2);
                assert!(
                    record.compiled_with.is_empty(),
                    "{:?}",
                    record.compiled_with
                );
            }
            (_, Err(error)) => panic!("{}: {error}", plan.variants[index].name),
        }
    }
}

/// A PyTorch extension as such files are written: kernels, a helper
/// header that includes torch too, bindings made by a macro and a
/// `PYBIND11_MODULE`. Torch is not installed where the tests run.
const EXTENSION_HELPERS: &str = r#"#pragma once
#include <torch/types.h>
#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")
__device__ __forceinline__ float relu_of(float v) { return v > 0.f ? v : 0.f; }
"#;

const EXTENSION: &str = r#"#include <torch/extension.h>
#include "helpers.h"

template <int PER_THREAD>
__global__ void relu_kernel(const float *x, float *y, int n) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
  for (int k = 0; k < PER_THREAD; ++k)
    if (i + k < n) y[i + k] = relu_of(x[i + k]);
}

#define BINDING(name, PER)                                                 \
  void name(torch::Tensor x, torch::Tensor y) {                            \
    CHECK_CUDA(x);                                                         \
    int n = x.numel();                                                     \
    relu_kernel<PER><<<(n + 255) / 256, 256>>>(x.data_ptr<float>(),        \
                                               y.data_ptr<float>(), n);    \
  }
BINDING(relu_1, 1)
BINDING(relu_4, 4)

torch::Tensor relu(torch::Tensor x) {
  auto y = torch::empty_like(x);
  relu_1(x, y);
  return y;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("relu", &relu, "relu");
}
"#;

#[test]
fn a_pytorch_extension_is_compiled_from_its_device_code_alone() {
    if !nvcc_or_skip() {
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("helpers.h"), EXTENSION_HELPERS).unwrap();
    let source = folder.path().join("relu.cu");
    std::fs::write(&source, EXTENSION).unwrap();
    let cache = cache();
    let options = build::options_for((9, 0), Compiler::Nvcc, Settings::default());
    let entries = ["relu_kernel<4>".to_string()];
    let request = |device_only: bool| Request {
        source: &source,
        entries: &entries,
        compiler: Compiler::Nvcc,
        device_only,
        options: &options,
    };
    // As it is, it needs torch.
    match build::compile(request(false), &cache) {
        Err(BuildError::Compile { log, .. }) => assert!(log.contains("torch/"), "{log}"),
        other => panic!("expected torch to be missing, got {other:?}"),
    }
    let compiled = build::compile(request(true), &cache).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(symbols::demangled(&compiled.functions[0]), "relu_kernel<4>");
    for said in [
        "gpuprof compiled the device code of relu.cu alone (device_only = true)",
        "the macro call BINDING(…) left out (lines 18–19)",
        "the host function relu left out (line 21)",
        "the macro call PYBIND11_MODULE(…) left out (line 27)",
        "an empty header stood in for <torch/extension.h>, found nowhere",
        "an empty header stood in for <torch/types.h>, found nowhere",
    ] {
        assert!(compiled.log.contains(said), "{said}\n{}", compiled.log);
    }
    // The line info names the user's file, at its own lines.
    let binary = std::fs::read(&compiled.cubin).unwrap();
    let contains = |text: &str| binary.windows(text.len()).any(|w| w == text.as_bytes());
    assert!(contains("relu.cu") && !contains("device-code.cu"));
    // Reused from the cache, it says the same.
    let again = build::compile(request(true), &cache).unwrap();
    assert!(again.from_cache && again.log == compiled.log);

    // init drafts it so, and `--check` builds it.
    let suite = folder.path().join("s");
    let written = gpuprof::init::write_from(&suite, std::slice::from_ref(&source)).unwrap();
    let text = std::fs::read_to_string(&written).unwrap();
    assert!(
        text.contains("device_only = true  # <torch/extension.h>, <torch/types.h> found nowhere"),
        "{text}"
    );
    // The instance is launched only inside the bindings' macro: the user
    // names it.
    std::fs::write(&written, text.replace("relu_kernel<…>", "relu_kernel<4>")).unwrap();
    let checked = std::process::Command::new(env!("CARGO_BIN_EXE_gpuprof"))
        .args(["report", "--check"])
        .arg(&written)
        .env("XDG_CACHE_HOME", folder.path().join("cache"))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&checked.stdout);
    assert!(
        checked.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    assert!(
        out.contains("by nvcc (device_only = true: its device code alone"),
        "{out}"
    );
}

#[test]
fn a_source_saved_with_a_byte_order_mark_compiles_by_both_compilers() {
    if !nvrtc_or_skip() || !nvcc_or_skip() {
        return;
    }
    let folder = tempfile::tempdir().unwrap();
    let source = folder.path().join("bom.cu");
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(
        b"#define SCALE 2\n__global__ void scale(float *x) { x[threadIdx.x] *= SCALE; }\n",
    );
    std::fs::write(&source, &bytes).unwrap();
    let cache = cache();
    compile(&source, "scale", Compiler::Nvrtc, &[], &cache)
        .unwrap_or_else(|e| panic!("NVRTC: {e}"));
    let options = build::options_for((9, 0), Compiler::Nvcc, Settings::default());
    let entries = ["scale".to_string()];
    build::compile(
        Request {
            source: &source,
            entries: &entries,
            compiler: Compiler::Nvcc,
            device_only: true,
            options: &options,
        },
        &cache,
    )
    .unwrap_or_else(|e| panic!("nvcc, device code alone: {e}"));
}

/// The harness's L2 flush kernel (hand-written PTX, loaded by the driver at
/// run time) assembles, and its CUBIN holds the one kernel the harness
/// looks up by name.
#[test]
fn the_harness_l2_flush_kernel_assembles_and_is_named_read_flush() {
    if !nvcc_or_skip() {
        return;
    }
    let ptxas = toolkit::nvcc().unwrap().with_file_name("ptxas");
    let out = tempfile::tempdir().unwrap();
    let cubin = out.path().join("read_flush.cubin");
    let assembled = std::process::Command::new(&ptxas)
        .arg("-arch=sm_90")
        .arg(root().join("src/harness/read_flush.ptx"))
        .arg("-o")
        .arg(&cubin)
        .output()
        .unwrap();
    assert!(
        assembled.status.success(),
        "ptxas failed: {}",
        String::from_utf8_lossy(&assembled.stderr)
    );
    let kernels = symbols::kernels_in(&std::fs::read(&cubin).unwrap()).unwrap();
    assert_eq!(kernels, ["read_flush"]);
}
