#!/usr/bin/env bash
# Issue 15's goals measured in one call on the device machine (repo root,
# release binary built elsewhere): every suite of SUITES (default:
# transpose reduction matmul) reported whole twice in a row and its
# timings compared (scripts/gpu-repeat.sh with PROFILE=1: medians above
# 50 µs within 1%, transpose's speedups against the event timer within
# 2%), then the whole report against `ncu --set full` alone
# (scripts/bench-profiling.sh: 3×, matmul 4×; overhead at most 0.6 s a
# launch). With BASELINE=/path/to/an older gpuprof the bench reports each
# suite with it too. The device tool brings back at most 8 files, so
# everything is packed: OUTDIR/goals.log (the summaries, printed last
# too), OUTDIR/repeat.tgz (analyses, results, logs and the first reports'
# folders) and OUTDIR/bench.tgz (the bench's logs and exports, less ncu's
# reports) (default OUTDIR: $OUT).
set -u
out=${1:-${OUT:?give an output folder}}
suites=${SUITES:-transpose reduction matmul}
here=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
mkdir -p "$out"
SUITES=$suites PROFILE=1 KEEP_RUNS=1 bash "$here/gpu-repeat.sh" "$scratch/repeat" > /dev/null 2>&1
echo "repeat: exit $?" > "$scratch/status"
mkdir -p "$scratch/bench"
bench_log=$scratch/bench/bench.log
# shellcheck disable=SC2086 # one suite per word
bash "$here/bench-profiling.sh" "$scratch/bench" $suites > "$bench_log" 2>&1
echo "bench: exit $?" >> "$scratch/status"
{
    cat "$scratch/status"
    echo "== device"
    sed -n '/^== device/,/^==/p' "$scratch/repeat/gpu-repeat.log" | sed '1d;$d'
    echo "== repeatability and the event timer"
    sed -n '/^== summary/,$p' "$scratch/repeat/gpu-repeat.log" | sed 1d
    echo "== whole report against ncu --set full"
    sed -n '/^suite /,$p' "$bench_log"
} | tee "$out/goals.log"
(cd "$scratch" && tar czf "$out/repeat.tgz" repeat && tar czf "$out/bench.tgz" --exclude='*.ncu-rep' --exclude='*/cache*' --exclude='*/gpuprof/ncu/source-*' bench)
ls -la "$out"
