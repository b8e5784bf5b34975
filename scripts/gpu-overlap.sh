#!/usr/bin/env bash
# The second ncu run's harness taking its job while the first ncu ends, and
# the SourceCounters section's rules left off, against $BASELINE (an older
# gpuprof), on the device machine with a release binary built elsewhere:
#   1. ROUNDS (default 3) rounds over SUITES (default: transpose
#      reduction), each a whole `gpuprof report` by the baseline and then by
#      this binary (fresh build caches); every "took" line, and per binary
#      the median whole time and profile stage;
#   2. whether the counters moved: the same launches' counters (global
#      sectors and requests, shared wavefronts, warp instructions, DRAM
#      bytes, durations) in the first round's two reports, against what
#      the baseline's own two reports differ by (load sectors, requests and
#      instructions repeat exactly; store sectors and shared wavefronts
#      move by up to about 1% between any two reports);
#   3. the rules alone: the lines run's ncu command of this binary's last
#      transpose report run again over its job, with `--apply-rules no`
#      and with the rules on, alternately, 3 times each, and the raw
#      counters of the two reports compared;
#   4. repeatability: headline medians above 50 µs of this binary's
#      consecutive reports, how many moved by more than 1%;
#   5. the bundled transpose kernels timed by scripts/event-timing.cu,
#      the speedups compared with this binary's last transpose report;
#   6. scripts/bench-profiling.sh over BENCH (default: transpose reduction
#      matmul): the whole report against `ncu --set full` alone.
# Every ncu run uses --clock-control none. Prints the tables last.
# usage: BASELINE=BIN [SUITES=..] [ROUNDS=N] [BENCH=..] scripts/gpu-overlap.sh OUTDIR
source "$(dirname "$0")/device-setup.sh"
: "${BASELINE:?name the older gpuprof in BASELINE}"
suites=${SUITES:-transpose reduction}
rounds=${ROUNDS:-3}
bench=${BENCH-transpose reduction matmul}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
: > "$out/whole.txt"
for suite in $suites; do
    for round in $(seq "$rounds"); do
        for who in baseline gpuprof; do
            program=$bin
            [ "$who" = baseline ] && program=$BASELINE
            dir=$runs/$suite-$who-$round
            t0=$(now)
            XDG_CACHE_HOME=$dir-cache "$program" report "examples/$suite/variants.toml" -o "$dir" \
                > "$dir.log" 2>&1
            echo "$suite $who $round $(since "$t0") $(grep -o 'took .*' "$dir.log" | tr -s ' ')" \
                | tee -a "$out/whole.txt"
        done
    done
done
echo "== the rules alone (transpose's lines run, this binary)"
dir=$runs/transpose-gpuprof-$rounds
command=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["profiler"]["lines_run"]["command"])' "$dir/results.json")
: > "$out/rules.txt"
for round in 1 2 3; do
    for rules in off on; do
        line=${command/ -o $dir\/profile-lines / -o $runs/rules-$rules }
        [ "$rules" = on ] && line=${line/ --apply-rules no/}
        t0=$(now)
        eval "$line" > /dev/null 2>&1
        echo "rules-$rules $round $(since "$t0")" | tee -a "$out/rules.txt"
    done
done
for rules in off on; do
    ncu --import "$runs/rules-$rules.ncu-rep" --csv --page raw --print-units base > "$runs/rules-$rules.csv"
    ncu --import "$runs/rules-$rules.ncu-rep" --csv --page source --print-source sass,cuda > "$runs/rules-$rules-source.csv"
done
python3 - "$runs" "$out" $suites <<'PY' | tee "$out/summary.txt"
import csv, json, os, statistics, sys
runs, out, suites = sys.argv[1], sys.argv[2], sys.argv[3:]
counters = ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
            "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
            "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
            "smsp__inst_executed.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"]
def profiles(path):
    results = json.load(open(path))
    return {(v["name"], r["size"]): r["profile"]["metrics"]
            for v in results["variants"] for r in v["runs"] if r.get("profile")}
def medians(path):
    analysis = json.load(open(path))
    return {(v["name"], r["size"]): r["timing"]["median_ms"]
            for v in analysis["variants"] for r in v["runs"] if r["timing"]}
whole = [line.split() for line in open(os.path.join(out, "whole.txt"))]
rounds = max(int(w[2]) for w in whole)
print("== whole reports (medians over the rounds)")
print(f"{'suite':<12} {'baseline s':>10} {'gpuprof s':>9} {'ratio':>6} {'base profile s':>14} {'new profile s':>13}")
for suite in suites:
    def of(who):
        times = [float(w[3]) for w in whole if w[0] == suite and w[1] == who]
        stage = [json.load(open(f"{runs}/{suite}-{who}-{r}/results.json"))["profiler"]["seconds"] for r in range(1, rounds + 1)]
        return statistics.median(times), statistics.median(stage)
    (bw, bp), (nw, np_) = of("baseline"), of("gpuprof")
    print(f"{suite:<12} {bw:>10.2f} {nw:>9.2f} {bw / nw:>6.3f} {bp:>14.2f} {np_:>13.2f}")
print("== counters, largest move over the launches: round 1's baseline against gpuprof, and the baseline's rounds 1 and 2")
def worst(a, b, metric):
    moves = [abs(b[k][metric] / a[k][metric] - 1) for k in a if k in b and a[k].get(metric) and b[k].get(metric)]
    return max(moves) if moves else 0.0
for suite in suites:
    base = profiles(f"{runs}/{suite}-baseline-1/results.json")
    new = profiles(f"{runs}/{suite}-gpuprof-1/results.json")
    base2 = profiles(f"{runs}/{suite}-baseline-2/results.json") if rounds > 1 else base
    for m in counters:
        print(f"{suite:<12} {m:<55} {worst(base, new, m):>7.2%} (baseline's own {worst(base, base2, m):.2%})")
print("== the rules alone (seconds of the lines run's ncu)")
rules = [line.split() for line in open(os.path.join(out, "rules.txt"))]
for state in ["off", "on"]:
    times = [float(r[2]) for r in rules if r[0] == f"rules-{state}"]
    print(f"rules {state}: {' '.join(f'{t:.2f}' for t in times)} (median {statistics.median(times):.2f})")
def raw(path):
    rows = list(csv.DictReader(open(path)))[1:]
    return rows
off, on = raw(f"{runs}/rules-off.csv"), raw(f"{runs}/rules-on.csv")
def rule_moves(m):
    number = lambda text: float(text.replace(",", ""))
    pairs = [(number(a[m]), number(b[m])) for a, b in zip(off, on) if a.get(m) and b.get(m)]
    pairs = [(a, b) for a, b in pairs if a]
    return max((abs(b / a - 1) for a, b in pairs), default=0.0)
print(f"raw pages: {len(off)} and {len(on)} launches; largest moves, rules off against on: "
      + ", ".join(f"{m.split('.')[0]} {rule_moves(m):.2%}" for m in counters))
source_lines = [sum(1 for _ in open(f"{runs}/rules-{s}-source.csv")) for s in ["off", "on"]]
print(f"source pages: {source_lines[0]} and {source_lines[1]} lines")
print("== repeatability: this binary's consecutive reports, medians above 50 µs")
for suite in suites:
    for r in range(1, rounds):
        a, b = medians(f"{runs}/{suite}-gpuprof-{r}/analysis.json"), medians(f"{runs}/{suite}-gpuprof-{r + 1}/analysis.json")
        moves = sorted(((abs(b[k] / a[k] - 1), k) for k in a if k in b and a[k] > 0.05), reverse=True)
        over = sum(m > 0.01 for m, _ in moves)
        print(f"{suite:<12} rounds {r}-{r + 1}: {len(moves)} runs, {over} moved >1%, largest {moves[0][0]:.2%} {moves[0][1]}" if moves else f"{suite} -")
PY
echo "== the event timer against this binary's last transpose report"
nvcc -O3 -arch=sm_90 -o "$runs/event-timing" scripts/event-timing.cu \
    && "$runs/event-timing" 2048 8192 > "$out/event-timing.csv" \
    && python3 scripts/compare-timing.py "$runs/transpose-gpuprof-$rounds/analysis.json" "$out/event-timing.csv" \
    | tee -a "$out/summary.txt"
tar czf "$out/results.tgz" -C "$runs" $(cd "$runs" && ls -d */results.json */analysis.json 2> /dev/null) 2> /dev/null
if [ -n "$bench" ]; then
    BASELINE= bash scripts/bench-profiling.sh "$runs/bench" $bench > "$out/bench.txt" 2>&1
    echo "== bench"
    tail -6 "$out/bench.txt"
fi
echo "== summary"
cat "$out/summary.txt"
