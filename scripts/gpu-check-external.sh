#!/usr/bin/env bash
# Issue 5's GPU checks: the command-variant suite (examples/external, built
# with nvcc there), `gpuprof doctor` on the device and on that binary, and
# `gpuprof compare` on the real .ncu-rep files the run wrote.
# usage (repo root, GPU machine): scripts/gpu-check-external.sh OUTDIR
set -u
out=${1:?usage: gpu-check-external.sh OUTDIR}
export PATH=/usr/local/cuda/bin:$PATH
bin=$PWD/target/release/gpuprof
mkdir -p "$out"
echo "== doctor"
"$bin" doctor --binary examples/external/transpose.cu > "$out/doctor-source.txt" 2>&1
echo "== report examples/external"
"$bin" report examples/external/variants.toml -o "$out/external"
echo "report exit $?"
"$bin" doctor --binary examples/external/transpose | tee "$out/doctor.txt"
echo "doctor exit ${PIPESTATUS[0]}"
echo "== compare"
"$bin" compare "$out"/external/naive-*.ncu-rep "$out"/external/padded-*.ncu-rep --name naive --name padded -o "$out/compare"
echo "compare exit $?"
