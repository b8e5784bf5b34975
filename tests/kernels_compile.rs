//! Every bundled kernel compiles with NVRTC exactly as `gpuprof report`
//! compiles it (sm_90, -lineinfo, program named by its path), and a kernel
//! with an error gives NVRTC's log. NVRTC runs without a GPU: CI installs it
//! from PyPI (`nvidia-cuda-nvrtc`) and sets GPUPROF_REQUIRE_NVRTC=1, so a
//! missing NVRTC fails there instead of skipping.

use std::path::{Path, PathBuf};

use gpuprof::build::{self, BuildError, Cache};

fn nvrtc_or_skip() -> bool {
    if build::nvrtc_available() {
        return true;
    }
    assert!(
        std::env::var_os("GPUPROF_REQUIRE_NVRTC").is_none(),
        "GPUPROF_REQUIRE_NVRTC is set but libnvrtc could not be loaded (LD_LIBRARY_PATH={:?})",
        std::env::var_os("LD_LIBRARY_PATH")
    );
    eprintln!("NVRTC not found: skipping (set GPUPROF_REQUIRE_NVRTC=1 to make this an error)");
    false
}

fn sources(folder: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "cu") {
            found.push(path);
        }
    }
}

#[test]
fn every_bundled_kernel_compiles_for_sm_90() {
    if !nvrtc_or_skip() {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    sources(&root.join("kernels"), &mut found);
    sources(&root.join("tests/gpu"), &mut found);
    found.retain(|p| p.file_name().is_some_and(|n| n != "broken.cu"));
    found.sort();
    assert!(found.len() >= 4, "found only {found:?}");
    let cache = Cache::new(tempfile::tempdir().unwrap().path().join("cache"));
    let options = build::options_for((9, 0), &[]);
    let mut failures = Vec::new();
    for source in &found {
        match build::compile(source, &options, &cache) {
            Ok(compiled) => {
                let binary = std::fs::read(&compiled.cubin).unwrap();
                assert_eq!(
                    &binary[..4],
                    b"\x7fELF",
                    "{} did not give a CUBIN",
                    source.display()
                );
                if !compiled.log.is_empty() {
                    failures.push(format!(
                        "{} compiled with warnings:\n{}",
                        source.display(),
                        compiled.log
                    ));
                }
            }
            Err(error) => failures.push(error.to_string()),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_compile_error_carries_nvrtc_log() {
    if !nvrtc_or_skip() {
        return;
    }
    let broken = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gpu/faults/broken.cu");
    let cache = Cache::new(tempfile::tempdir().unwrap().path().join("cache"));
    match build::compile(&broken, &build::options_for((9, 0), &[]), &cache) {
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
fn a_second_compile_comes_from_the_cache() {
    if !nvrtc_or_skip() {
        return;
    }
    let good = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gpu/faults/good.cu");
    let cache = Cache::new(tempfile::tempdir().unwrap().path().join("cache"));
    let options = build::options_for((9, 0), &[]);
    let first = build::compile(&good, &options, &cache).unwrap();
    let second = build::compile(&good, &options, &cache).unwrap();
    assert!(!first.from_cache);
    assert!(second.from_cache);
    assert_eq!(first.cubin, second.cubin);
    let other = build::compile(&good, &build::options_for((8, 0), &[]), &cache).unwrap();
    assert!(!other.from_cache, "another architecture is another binary");
}
