#!/usr/bin/env bash
# The GPU checks, run on the device machine from the repo root with a
# release binary built elsewhere (target/release/gpuprof):
#   1. gpuprof report on examples/transpose (timed), outputs kept;
#   2. independent event timing of the same kernels, compared with
#      gpuprof's speedups (scripts/compare-timing.py, 2% tolerance);
#   3. the fault suite (tests/gpu/faults), checked by scripts/check-faults.py;
#   4. `gpuprof render` of the saved results, compared with the report.
# Everything lands in OUTDIR (default $OUT); a short table is printed last.
# ncu always runs with --clock-control none (the suites' default).
set -u
out=${1:-${OUT:?give an output folder}}
export PATH=/usr/local/cuda/bin:$PATH
bin=$PWD/target/release/gpuprof
mkdir -p "$out"
log=$out/gpu-check.log
exec > >(tee "$log") 2>&1
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
declare -a summary

echo "== device"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
ncu --version | tail -1

for suite in ${SUITES:-transpose}; do
    echo "== gpuprof report examples/$suite"
    t0=$(now)
    "$bin" report "examples/$suite/variants.toml" -o "$out/$suite"
    rc=$?
    summary+=("report $suite: exit $rc in $(since "$t0") s")
done

if [ -f "$out/transpose/analysis.json" ]; then
    echo "== independent event timing"
    work=$(mktemp -d)
    nvcc -O3 -arch=sm_90 -o "$work/event-timing" scripts/event-timing.cu && "$work/event-timing" 2048 8192 > "$out/event-timing.csv"
    cat "$out/event-timing.csv"
    python3 scripts/compare-timing.py "$out/transpose/analysis.json" "$out/event-timing.csv"
    summary+=("speedups vs event timing: exit $? ($(tail -1 "$log"))")
    echo "== render from results.json"
    mkdir -p "$work/render"
    "$bin" render "$out/transpose/results.json" -o "$work/render" > /dev/null
    if cmp -s "$work/render/report.html" "$out/transpose/report.html"; then same=identical; else same=DIFFERENT; fi
    summary+=("render from results.json: $same report.html")
fi

if [ -z "${SKIP_FAULTS:-}" ]; then
    echo "== fault suite"
    t0=$(now)
    "$bin" report tests/gpu/faults/variants.toml -o "$out/faults" --timeout 10
    rc=$?
    python3 scripts/check-faults.py "$out/faults/results.json"
    summary+=("fault suite: gpuprof exit $rc (3 expected), checks exit $? in $(since "$t0") s")
fi

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
