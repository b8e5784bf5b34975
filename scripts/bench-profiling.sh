#!/usr/bin/env bash
# Profiling cost against what a user would do by hand and against the floor,
# measured in one run on the GPU machine (repo root, release binary built
# elsewhere):
#   gpuprof     `gpuprof report` of the suite, whole and its profile stage;
#   full        `ncu --set full` over the same harness launches (the same
#               profiler ranges, so the same launches are profiled);
#   floor       ncu's start-up (a run that profiles nothing) plus, for every
#               profiled launch, replay passes × kernel duration.
# usage: scripts/bench-profiling.sh OUTDIR [SUITE...]; prints ratios last.
set -u
out=${1:?usage: bench-profiling.sh OUTDIR [SUITE...]}
shift
export PATH=/usr/local/cuda/bin:$PATH
bin=$PWD/target/release/gpuprof
mkdir -p "$out"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
for suite in "${@:-transpose}"; do
    dir=$out/$suite
    t0=$(now); "$bin" report "examples/$suite/variants.toml" -o "$dir/gpuprof" > /dev/null; gp=$(since "$t0")
    job=$dir/gpuprof/ncu/profile-job.json
    t0=$(now)
    ncu --clock-control none --profile-from-start off --set full --import-source yes -f -o "$dir/full" \
        "$bin" harness --job "$job" > /dev/null 2>&1
    full=$(since "$t0")
    ncu --import "$dir/full.ncu-rep" --csv --page raw --print-units base --metrics profiler__replayer_passes,gpu__time_duration.sum > "$dir/full-raw.csv"
    t0=$(now)
    ncu --clock-control none --profile-from-start off -f -o "$dir/none" "$bin" harness --job "$dir/gpuprof/ncu/device-job.json" > /dev/null 2>&1
    start=$(since "$t0")
    echo "$suite $gp $full $start" >> "$out/times.txt"
done
python3 - "$out" <<'PY'
import csv, json, os, sys
out = sys.argv[1]
print(f"{'suite':<10} {'launches':>8} {'gpuprof s':>10} {'profile s':>10} {'full s':>8} {'floor s':>8} {'passes':>7} {'full passes':>11} {'profile/floor':>13} {'full/profile':>12}")
for line in open(os.path.join(out, "times.txt")):
    suite, gp, full, start = line.split()
    results = json.load(open(os.path.join(out, suite, "gpuprof", "results.json")))
    profile_s = results["profiler"]["seconds"]
    rows = list(csv.DictReader(open(os.path.join(out, suite, "gpuprof", "ncu", "raw.csv"))))[1:]
    kernel_s = sum(float(r["profiler__replayer_passes"]) * float(r["gpu__time_duration.sum"].replace(",", "")) * 1e-9 for r in rows)
    passes = max(float(r["profiler__replayer_passes"]) for r in rows)
    full_rows = list(csv.DictReader(open(os.path.join(out, suite, "full-raw.csv"))))[1:]
    full_passes = max(float(r["profiler__replayer_passes"]) for r in full_rows)
    floor = float(start) + kernel_s
    print(f"{suite:<10} {len(rows):>8} {float(gp):>10.1f} {profile_s:>10.1f} {float(full):>8.1f} {floor:>8.1f} {passes:>7.0f} {full_passes:>11.0f} {profile_s / floor:>13.2f} {float(full) / profile_s:>12.2f}")
PY
