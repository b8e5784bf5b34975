#!/usr/bin/env bash
# Are gpuprof's timings repeatable, and do its speedups agree with an
# independent timer? On the device machine, with a release binary built
# elsewhere: each suite of SUITES (default: transpose reduction matmul,
# from examples/) timed twice in a row with --no-profile (PROFILE=1:
# profiled too), then the bundled
# transpose kernels timed by scripts/event-timing.cu (cold and hot) and
# compared with the first transpose run's speedups (scripts/compare-timing.py,
# 2% tolerance; only when SUITES has transpose). Prints last, per suite: the runs above 50 µs, how many of
# their headline medians moved by more than 1% between the two runs and the
# largest move; then the speedup comparison. Analyses land in OUTDIR
# (default $OUT) as SUITE-1.json and SUITE-2.json (KEEP_RUNS=1: the first
# runs' whole output folders too, below).
source "$(dirname "$0")/device-setup.sh"
suites=${SUITES:-transpose reduction matmul}
# PROFILE=1 profiles too, so that ncu's waiting harnesses (their contexts
# open while the kernels are timed) are there as in a whole report.
no_profile=--no-profile
[ "${PROFILE:-0}" = 1 ] && no_profile=
for suite in $suites; do
    for round in 1 2; do
        echo "== $suite, run $round"
        start=$(date +%s)
        "$bin" report "examples/$suite/variants.toml" $no_profile -o "$runs/$suite-$round" --timeout 120
        echo "exit $? in $(( $(date +%s) - start )) s"
        cp "$runs/$suite-$round/analysis.json" "$out/$suite-$round.json"
        cp "$runs/$suite-$round/results.json" "$out/$suite-$round-results.json"
    done
done
# KEEP_RUNS=1: the first run's output folders (reports, results, ncu
# reports; not the harness jobs) packed into OUTDIR/runs.tgz.
if [ "${KEEP_RUNS:-0}" = 1 ]; then
    (cd "$runs" && tar czf "$out/runs.tgz" --exclude='*/ncu/source-*' --exclude='*/ncu/*job.json' ./*-1)
fi
case " $suites " in
*" transpose "*)
    echo "== independent event timing"
    nvcc -O3 -arch=sm_90 -o "$runs/event-timing" scripts/event-timing.cu && "$runs/event-timing" 2048 8192 > "$out/event-timing.csv"
    cat "$out/event-timing.csv" ;;
esac
echo "== summary"
python3 - "$out" $suites <<'PY'
import json, sys
out, suites = sys.argv[1], sys.argv[2:]
def medians(path):
    analysis = json.load(open(path))
    return {
        (v["name"], r["size"]): (r["timing"]["temperature"], r["timing"]["median_ms"])
        for v in analysis["variants"] for r in v["runs"] if r["timing"]
    }
print(f"{'suite':<22} {'runs >50 µs':>11} {'moved >1%':>9} {'largest move':>13}  where")
for suite in suites:
    first, second = medians(f"{out}/{suite}-1.json"), medians(f"{out}/{suite}-2.json")
    moves = []
    for key, (kind, a) in first.items():
        if key in second and second[key][0] == kind and a > 0.05:
            moves.append((abs(second[key][1] / a - 1), key, kind, a, second[key][1]))
    moves.sort(reverse=True)
    over = sum(1 for m in moves if m[0] > 0.01)
    where = f"{moves[0][1][0]} {moves[0][1][1]} ({moves[0][2]}: {moves[0][3]*1000:.1f} → {moves[0][4]*1000:.1f} µs)" if moves else "-"
    largest = f"{moves[0][0]:.2%}" if moves else "-"
    print(f"{suite:<22} {len(moves):>11} {over:>9} {largest:>13}  {where}")
PY
if [ -f "$out/event-timing.csv" ]; then
    python3 scripts/compare-timing.py "$out/transpose-1.json" "$out/event-timing.csv"
fi
