#!/usr/bin/env bash
# What users wait for, against what they would do by hand, measured in one
# run on the GPU machine (repo root, release binary built elsewhere). For
# each suite:
#   gpuprof     `gpuprof report` of the suite, whole, with its stage times
#               (the "took" line) and its ncu runs (results.json);
#   full        `ncu --set full --import-source yes` alone, as a user would
#               by hand, over exactly the launches gpuprof profiled (its
#               profile jobs merged into one, so the same profiler ranges);
#   start-up    ncu over the harness with nothing to profile, and the same
#               started early: the harness waits for its job (written 3 s
#               later), as gpuprof's ncu runs do (opening the GPU at once
#               where the binary has `harness --open-on`), and the start-up
#               left is what follows the job.
# It prints, per suite: full ÷ whole report (the goal is 3×, matmul 4×) and
# the profiling overhead per launch: gpuprof's ncu seconds (from each run's
# job to its end) less one start-up per ncu run (the start-up left after
# the job for a run started early) and less every launch's replay passes ×
# its kernel duration, over the launches (the goal is at most 0.6 s). Also
# the replay passes of gpuprof's runs and of `--set full` (their ratio bounds
# what any cut outside ncu can win) and where the per-line counters were
# taken. Every ncu run uses
# --clock-control none. Also writes, for the transpose probe launches, a raw
# export with the throughput breakdowns (breakdown.csv), to read which unit
# limits.
# A SUITE is an example's name (examples/NAME) or a suite's folder
# (tests/gpu/cs-reduction). Every gpuprof report starts with an empty build
# cache of its own, so its build stage compiles. With BASELINE=/path/to/an
# older gpuprof, each suite is also reported by that binary first (same
# call, same GPU) and the table gives both whole times and their ratio.
# usage: [BASELINE=BIN] scripts/bench-profiling.sh OUTDIR [SUITE...];
# prints a table last.
set -u
out=${1:?usage: bench-profiling.sh OUTDIR [SUITE...]}
shift
export PATH=/usr/local/cuda/bin:$PATH
bin=$PWD/target/release/gpuprof
mkdir -p "$out"
: > "$out/times.txt"
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
for name in "${@:-transpose}"; do
    case $name in
        */*) config=$name/variants.toml; suite=$(basename "$name") ;;
        *) config=examples/$name/variants.toml; suite=$name ;;
    esac
    dir=$out/$suite
    mkdir -p "$dir"
    before=-
    if [ -n "${BASELINE:-}" ]; then
        t0=$(now)
        XDG_CACHE_HOME=$dir/cache-baseline "$BASELINE" report "$config" -o "$dir/baseline" \
            > "$dir/baseline.log" 2>&1
        before=$(since "$t0")
    fi
    t0=$(now)
    XDG_CACHE_HOME=$dir/cache "$bin" report "$config" -o "$dir/gpuprof" > "$dir/gpuprof.log" 2>&1
    whole=$(since "$t0")
    # One job with every profiled launch of gpuprof's ncu runs.
    python3 - "$dir/gpuprof/ncu" "$dir/all-job.json" <<'PY'
import glob, json, sys
jobs = [json.load(open(p)) for p in sorted(glob.glob(sys.argv[1] + "/profile*-job.json"))]
job = jobs[0]
job["items"] = [item for j in jobs for item in j["items"]]
json.dump(job, open(sys.argv[2], "w"))
PY
    t0=$(now)
    ncu --clock-control none --profile-from-start off --set full --import-source yes \
        -f -o "$dir/full" "$bin" harness --job "$dir/all-job.json" > "$dir/full.log" 2>&1
    full=$(since "$t0")
    ncu --import "$dir/full.ncu-rep" --csv --page raw --print-units base \
        --metrics profiler__replayer_passes,gpu__time_duration.sum > "$dir/full-raw.csv"
    t0=$(now)
    ncu --clock-control none --profile-from-start off -f -o "$dir/none" \
        "$bin" harness --job "$dir/gpuprof/ncu/device-job.json" > /dev/null 2>&1
    start=$(since "$t0")
    # The same, its harness waiting for its job, written 3 s later (and
    # opening the GPU at once, as gpuprof's do once the device is probed,
    # where the binary can).
    rm -f "$dir/early-job.json"
    open_on=()
    if "$bin" harness --help 2> /dev/null | grep -q -- --open-on; then
        : > "$dir/early-open"
        open_on=(--open-on "$dir/early-open")
    fi
    t0=$(now)
    ncu --clock-control none --profile-from-start off -f -o "$dir/early" \
        "$bin" harness --job "$dir/early-job.json" --wait-for $$ "${open_on[@]}" > /dev/null 2>&1 &
    sleep 3
    cp "$dir/gpuprof/ncu/device-job.json" "$dir/early-job.tmp" && mv "$dir/early-job.tmp" "$dir/early-job.json"
    wait $!
    early=$(awk -v s="$(since "$t0")" 'BEGIN { printf "%.2f", s - 3 }')
    echo "$suite $whole $full $start $before $early" >> "$out/times.txt"
done
# The throughputs' breakdowns on the transpose probe's launches.
if [ -f "$out/transpose/all-job.json" ]; then
    ncu --clock-control none --profile-from-start off \
        --metrics breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed,breakdown:gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,profiler__replayer_passes \
        -f -o "$out/breakdown" "$bin" harness --job "$out/transpose/all-job.json" > "$out/breakdown.log" 2>&1
    ncu --import "$out/breakdown.ncu-rep" --csv --page raw --print-units base > "$out/breakdown.csv"
fi
python3 - "$out" <<'PY'
import csv, glob, json, os, re, sys
out = sys.argv[1]
def rows(path):
    return list(csv.DictReader(open(path)))[1:]
def number(text):
    return float(text.replace(",", ""))
print(f"{'suite':<22} {'launches':>8} {'report s':>8} {'full s':>7} {'full/report':>11} {'ncu s':>6} {'ncu runs':>8} {'start s':>11} {'overhead s/launch':>17} {'passes':>6} {'full passes':>11} {'lines at':>9}  stages")
baselines = []
for line in open(os.path.join(out, "times.txt")):
    suite, whole, full, start, before, early = line.split()
    if before != "-":
        log = open(os.path.join(out, suite, "baseline.log")).read()
        took = re.search(r"took [^\n]*", log)
        baselines.append((suite, float(before), float(whole), took.group(0) if took else "-"))
    results = json.load(open(os.path.join(out, suite, "gpuprof", "results.json")))
    profiler = results.get("profiler") or {}
    runs = [profiler] + ([profiler["lines_run"]] if profiler.get("lines_run") else [])
    stage = profiler.get("seconds", 0.0)  # both runs
    ncu_runs = len(runs)
    starts = sum(float(early) if run.get("started_early_s") is not None else float(start) for run in runs)
    launches = []
    for raw in glob.glob(os.path.join(out, suite, "gpuprof", "ncu", "profile*-raw.csv")):
        launches += rows(raw)
    passes = [number(r["profiler__replayer_passes"]) for r in launches]
    kernel = [number(r["gpu__time_duration.sum"]) * 1e-9 for r in launches]
    own = sum(p * k for p, k in zip(passes, kernel))
    overhead = (stage - starts - own) / max(len(launches), 1)
    full_passes = sorted({int(number(r["profiler__replayer_passes"])) for r in rows(os.path.join(out, suite, "full-raw.csv"))})
    log = open(os.path.join(out, suite, "gpuprof.log")).read()
    took = re.search(r"took [^\n]*", log)
    stages = took.group(0) if took else "-"
    print(f"{suite:<22} {len(launches):>8} {float(whole):>8.1f} {float(full):>7.1f} {float(full) / float(whole):>11.2f} {stage:>6.1f} {ncu_runs:>8} {float(start):>5.1f}/{float(early):>5.2f} {overhead:>17.3f} {'/'.join(str(int(p)) for p in sorted(set(passes))):>6} {'/'.join(map(str, full_passes)):>11} {str(profiler.get('lines_at') or 'every'):>9}  {stages}")
if baselines:
    print()
    print(f"{'suite':<22} {'baseline s':>10} {'report s':>8} {'baseline/report':>15}  baseline stages")
    for suite, before, whole, stages in baselines:
        print(f"{suite:<22} {before:>10.1f} {whole:>8.1f} {before / whole:>15.2f}  {stages}")
PY
