#!/usr/bin/env bash
# Profiling cost against what a user would do by hand and against the floor,
# measured in one run on the GPU machine (repo root, release binary built
# elsewhere). For each suite, over the very launches gpuprof profiles (its
# profile job, so the same profiler ranges):
#   gpuprof     `gpuprof report` of the suite, whole and its profile stage;
#   full        `ncu --set full --import-source yes`, as a user would by hand;
#   one-pass    ncu collecting only the kernel duration (one pass a launch):
#               ncu's start-up and per-launch cost with a single pass;
#   no-rules    gpuprof's own ncu command with `--apply-rules no`;
#   start-up    ncu over the harness with nothing to profile;
#   floor       start-up plus, for every profiled launch, replay passes ×
#               kernel duration.
# From these it derives ncu's cost per extra replay pass. Every ncu run uses
# --clock-control none.
# usage: scripts/bench-profiling.sh OUTDIR [SUITE...]; prints a table last.
set -u
out=${1:?usage: bench-profiling.sh OUTDIR [SUITE...]}
shift
export PATH=/usr/local/cuda/bin:$PATH
bin=$PWD/target/release/gpuprof
mkdir -p "$out"
: > "$out/times.txt"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
# ncu over the suite's profile job: timed, quiet. usage: over NAME OPTIONS...
over() {
    local name=$1
    shift
    local t0
    t0=$(now)
    ncu --clock-control none --profile-from-start off "$@" -f -o "$dir/$name" \
        "$bin" harness --job "$job" > "$dir/$name.log" 2>&1
    since "$t0"
}
for suite in "${@:-transpose}"; do
    dir=$out/$suite
    mkdir -p "$dir"
    t0=$(now)
    "$bin" report "examples/$suite/variants.toml" -o "$dir/gpuprof" > "$dir/gpuprof.log" 2>&1
    whole=$(since "$t0")
    job=$dir/gpuprof/ncu/profile-job.json
    full=$(over full --set full --import-source yes)
    ncu --import "$dir/full.ncu-rep" --csv --page raw --print-units base \
        --metrics profiler__replayer_passes,gpu__time_duration.sum > "$dir/full-raw.csv"
    one=$(over one-pass --metrics gpu__time_duration.sum)
    # gpuprof's own metric list and section, rules off.
    metrics=$(python3 -c 'import json,sys,re; c=json.load(open(sys.argv[1]))["profiler"]["command"]; print(re.search(r"--metrics (\S+)", c).group(1))' "$dir/gpuprof/results.json")
    norules=$(over no-rules --metrics "$metrics" --section SourceCounters --import-source yes --apply-rules no)
    t0=$(now)
    ncu --clock-control none --profile-from-start off -f -o "$dir/none" \
        "$bin" harness --job "$dir/gpuprof/ncu/device-job.json" > /dev/null 2>&1
    start=$(since "$t0")
    echo "$suite $whole $full $one $norules $start" >> "$out/times.txt"
done
python3 - "$out" <<'PY'
import csv, json, os, sys
out = sys.argv[1]
def rows(path):
    return list(csv.DictReader(open(path)))[1:]
head = f"{'suite':<10} {'launches':>8} {'report s':>9} {'ncu stage s':>11} {'no-rules s':>10} {'full s':>7} {'one-pass s':>10} {'start s':>7} {'floor s':>7} {'passes':>6} {'full passes':>11} {'stage/floor':>11} {'full/stage':>10} {'s per pass':>10}"
print(head)
for line in open(os.path.join(out, "times.txt")):
    suite, whole, full, one, norules, start = line.split()
    results = json.load(open(os.path.join(out, suite, "gpuprof", "results.json")))
    stage = results["profiler"]["seconds"]
    launches = rows(os.path.join(out, suite, "gpuprof", "ncu", "raw.csv"))
    kernel = [float(r["gpu__time_duration.sum"].replace(",", "")) * 1e-9 for r in launches]
    passes = max(float(r["profiler__replayer_passes"]) for r in launches)
    full_passes = max(float(r["profiler__replayer_passes"]) for r in rows(os.path.join(out, suite, "full-raw.csv")))
    floor = float(start) + passes * sum(kernel)
    # The stage less the one-pass run, less the extra passes' kernel time,
    # spread over every extra pass of every launch.
    per_pass = (stage - float(one) - (passes - 1) * sum(kernel)) / (len(launches) * (passes - 1))
    print(f"{suite:<10} {len(launches):>8} {float(whole):>9.1f} {stage:>11.1f} {float(norules):>10.1f} {float(full):>7.1f} {float(one):>10.1f} {float(start):>7.1f} {floor:>7.1f} {passes:>6.0f} {full_passes:>11.0f} {stage / floor:>11.2f} {float(full) / stage:>10.2f} {per_pass:>10.3f}")
PY
