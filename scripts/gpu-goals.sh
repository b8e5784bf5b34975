#!/usr/bin/env bash
# Issue 15's goals measured in one call on the device machine (repo root,
# release binary built elsewhere): every suite of SUITES (default:
# transpose reduction matmul) reported whole twice in a row and its
# timings compared (scripts/gpu-repeat.sh with PROFILE=1: medians above
# 50 µs within 1%, transpose's speedups against the event timer within
# 2%), then the whole report against `ncu --set full` alone
# (scripts/bench-profiling.sh: 3×, matmul 4×; overhead at most 0.6 s a
# launch). With BASELINE=/path/to/an older gpuprof the bench reports each
# suite with it too. Outputs land in OUTDIR/repeat (with the first
# reports' folders in runs.tgz) and OUTDIR/bench (default OUTDIR: $OUT);
# both summaries are printed last.
set -u
out=${1:-${OUT:?give an output folder}}
suites=${SUITES:-transpose reduction matmul}
here=$(dirname "$0")
SUITES=$suites PROFILE=1 KEEP_RUNS=1 bash "$here/gpu-repeat.sh" "$out/repeat" > /dev/null 2>&1
echo "repeat: exit $?"
# shellcheck disable=SC2086 # one suite per word
bash "$here/bench-profiling.sh" "$out/bench" $suites > "$out/bench.log" 2>&1
echo "bench: exit $?"
echo "== device"
sed -n '/^== device/,/^==/p' "$out/repeat/gpu-repeat.log" | sed '1d;$d'
echo "== repeatability and the event timer"
sed -n '/^== summary/,$p' "$out/repeat/gpu-repeat.log" | sed 1d
echo "== whole report against ncu --set full"
sed -n '/^suite /,$p' "$out/bench.log"
