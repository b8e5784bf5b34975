#!/usr/bin/env bash
# Does the order in which ncu's two waiting harnesses open the GPU make
# consecutive reports time alike? On the device machine (repo root), with
# the release binary and SERIAL=/path to another build to compare it with
# (the experiment that settled it compared a build whose harnesses opened
# side by side, as gpuprof's did before they chained their gates, with
# one whose second harness opened once the first had: the harness's
# --then-open chain since): ROUNDS rounds (default 5) over examples/transpose,
# each timing it the WAYS (default all three, in this order): with
# --no-profile (no ncu harness on the GPU, "alone"), a whole report of the
# release binary ("side") and a whole report of the SERIAL one ("serial").
# Prints last, per way: every run above 50 µs whose headline median moved
# by more than 1% between consecutive rounds, the largest such move and
# the naive kernel's cold medians at N=2048 round by round; then each
# way's first report against the event timer (scripts/compare-timing.py).
# The analyses (WAY-ROUND.json) and the event timer's table land packed in
# OUTDIR/open-order.tgz, the log beside it (default OUTDIR: $OUT).
source "$(dirname "$0")/device-setup.sh"
serial=${SERIAL:?SERIAL=/path/to/the one-after-the-other build}
rounds=${ROUNDS:-5}
ways=${WAYS:-alone side serial}
mkdir -p "$runs/json"
for round in $(seq "$rounds"); do
    for way in $ways; do
        case $way in
        alone) cmd=("$bin" report examples/transpose/variants.toml --no-profile) ;;
        side) cmd=("$bin" report examples/transpose/variants.toml) ;;
        serial) cmd=("$serial" report examples/transpose/variants.toml) ;;
        esac
        "${cmd[@]}" -o "$runs/$way-$round" --force > "$runs/$way-$round.log" 2>&1
        echo "$way $round: exit $?; $(grep '^took' "$runs/$way-$round.log")"
        cp "$runs/$way-$round/analysis.json" "$runs/json/$way-$round.json"
    done
done
nvcc -O3 -arch=sm_90 -o "$runs/event-timing" scripts/event-timing.cu && "$runs/event-timing" 2048 8192 > "$runs/json/event-timing.csv"
echo "== summary"
python3 - "$runs/json" "$rounds" $ways <<'PY'
import json, sys
out, rounds, ways = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def medians(path):
    analysis = json.load(open(path))
    return {
        (v["name"], r["size"], r["timing"]["temperature"]): r["timing"]["median_ms"]
        for v in analysis["variants"] for r in v["runs"] if r["timing"]
    }
print(f"{'way':<7} {'runs >50 µs':>11} {'moves >1%':>9} {'largest':>8}  naive N=2048 cold, round by round (µs)")
for way in ways:
    series = [medians(f"{out}/{way}-{r}.json") for r in range(1, rounds + 1)]
    moves = []
    for before, after in zip(series, series[1:]):
        for key, a in before.items():
            if key in after and a > 0.05:
                moves.append(abs(after[key] / a - 1))
    over = sum(1 for m in moves if m > 0.01)
    naive = " ".join(f"{s.get(('naive', 'N=2048', 'cold'), float('nan')) * 1000:.1f}" for s in series)
    timed = sum(1 for a in series[0].values() if a > 0.05)
    print(f"{way:<7} {timed:>11} {over:>9} {max(moves, default=0):>8.2%}  {naive}")
PY
for way in $ways; do
    echo "== $way, round 1, against the event timer"
    python3 scripts/compare-timing.py "$runs/json/$way-1.json" "$runs/json/event-timing.csv" | tail -7
done
(cd "$runs" && tar czf "$out/open-order.tgz" json)
