#!/usr/bin/env bash
# Kernels as real code writes them, on the device machine, with a release
# binary built elsewhere (target/release/gpuprof): gpuprof report on
# tests/gpu/own-kernels (nvcc for host-code files, NVRTC name expressions
# for C++ names and template instances, defines, an output read before it is
# written) and on every suite named in SUITES (default: examples/transpose,
# to compare with its recorded run). ncu runs with --clock-control none (the
# suites' default). Each suite's results.json, reports and ncu reports are
# packed into OUTDIR/runs.tgz (default OUTDIR: $OUT), the log beside it; a
# table is printed last by scripts/check-own-kernels.py.
source "$(dirname "$0")/device-setup.sh"
for suite in tests/gpu/own-kernels ${SUITES:-examples/transpose}; do
    name=$(basename "$suite")
    echo "== gpuprof report $suite"
    start=$(date +%s.%N)
    "$bin" report "$suite/variants.toml" -o "$runs/$name" --force
    echo "exit $? after $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
done
(cd "$runs" && tar czf "$out/runs.tgz" --exclude='*/ncu/source-*' --exclude='*/ncu/*job.json' .)
python3 scripts/check-own-kernels.py "$runs"/*/results.json
