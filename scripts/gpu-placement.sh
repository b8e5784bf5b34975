#!/usr/bin/env bash
# Does a cold time depend on where the kernel's buffers land in device
# memory? On the device machine: the bundled transpose kernels at N=2048
# timed by scripts/event-timing.cu (read flush of the L2's size, as
# gpuprof's harness) with SHIFTS (default 0 2 6 14 30 62 126) MiB
# allocated before the kernels' buffers, every shift twice (all shifts,
# then all again). Prints last, per shift and round, each kernel's cold
# median and its speedup over naive; then per kernel the spread of those
# speedups across shifts against the largest difference between a
# shift's two rounds. Outputs land in OUTDIR (default $OUT).
source "$(dirname "$0")/device-setup.sh"
nvcc -O3 -arch=sm_90 -o "$runs/event-timing" scripts/event-timing.cu || exit 1
shifts=${SHIFTS:-0 2 6 14 30 62 126}
for round in 1 2; do
    for shift in $shifts; do
        "$runs/event-timing" --shift-mib "$shift" 2048 > "$runs/shift-$shift-$round.csv"
    done
done
python3 - "$runs" $shifts <<'PY'
import csv, sys
runs, shifts = sys.argv[1], sys.argv[2:]
kernels = ["naive", "copy", "tiled", "padded"]
cold = {}
for shift in shifts:
    for round in ("1", "2"):
        for r in csv.DictReader(open(f"{runs}/shift-{shift}-{round}.csv")):
            if r["temperature"] == "cold":
                cold[(shift, round, r["variant"])] = float(r["median_ms"]) * 1000
print(f"{'shift MiB':>9} {'round':>5} " + " ".join(f"{k + ' µs':>10}" for k in kernels) + " " + " ".join(f"{k + ' x':>9}" for k in kernels[1:]))
speedups = {}
for shift in shifts:
    for round in ("1", "2"):
        times = [cold[(shift, round, k)] for k in kernels]
        xs = [times[0] / t for t in times[1:]]
        for k, x in zip(kernels[1:], xs):
            speedups[(shift, round, k)] = x
        print(f"{shift:>9} {round:>5} " + " ".join(f"{t:>10.2f}" for t in times) + " " + " ".join(f"{x:>9.3f}" for x in xs))
print()
print(f"{'kernel':<8} {'naive µs range':>15} {'speedup range':>14} {'across shifts':>13} {'same shift, 2 rounds':>21}")
for k in kernels[1:]:
    xs = [speedups[(s, r, k)] for s in shifts for r in ("1", "2")]
    ns = [cold[(s, r, "naive")] for s in shifts for r in ("1", "2")]
    repeat = max(abs(speedups[(s, "1", k)] / speedups[(s, "2", k)] - 1) for s in shifts)
    print(f"{k:<8} {min(ns):>7.2f}–{max(ns):<7.2f} {min(xs):>6.3f}–{max(xs):<7.3f} {max(xs) / min(xs) - 1:>13.1%} {repeat:>21.1%}")
PY
