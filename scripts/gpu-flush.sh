#!/usr/bin/env bash
# What a cold sample measures, by flush: on the device machine, with
# release binaries built elsewhere. The bundled transpose kernels are timed
# cold (the L2 flushed before each launch) by scripts/event-timing.cu with
# four flushes (a memset over twice the L2 with a new byte each time, a
# memset of zeros over the L2's size, reading a zeroed buffer of the L2's
# size, reading one of twice that), by gpuprof (examples/transpose
# --no-profile) as built ($bin) and as BASELINE (a path, optional), each
# twice in alternation, and by ncu itself (gpu__time_duration.sum with
# --cache-control all: ncu writes back and invalidates the caches before
# each launch, the cleanest cold there is). Prints last, per kernel and size,
# each timer's cold median and its speedup over naive against ncu's.
# Outputs land in OUTDIR (default $OUT). ncu runs with --clock-control none.
source "$(dirname "$0")/device-setup.sh"
nvcc -O3 -arch=sm_90 -o "$runs/event-timing" scripts/event-timing.cu || exit 1
for round in 1 2; do
    "$runs/event-timing" --flush memset --flush-times 2 2048 8192 > "$out/et-memset2-$round.csv"
    "$runs/event-timing" --flush memset --zero-flush 2048 8192 > "$out/et-memset1-$round.csv"
    "$runs/event-timing" 2048 8192 > "$out/et-read1-$round.csv"
    "$runs/event-timing" --flush-times 2 2048 8192 > "$out/et-read2-$round.csv"
    for who in new ${BASELINE:+old}; do
        exe=$bin; [ "$who" = old ] && exe=$PWD/$BASELINE
        "$exe" report examples/transpose/variants.toml --no-profile -o "$runs/$who-$round" --timeout 120 > "$runs/$who-$round.log" 2>&1
        echo "gpuprof $who round $round: exit $?"
        cp "$runs/$who-$round/results.json" "$out/gpuprof-$who-$round.json"
    done
done
LC_ALL=C ncu --clock-control none --cache-control all --kernel-name regex:"copy_reference|transpose_" --metrics gpu__time_duration.sum --csv --page raw --print-units base \
    "$runs/event-timing" --launch-only 2048 8192 > "$runs/ncu-cold.csv" 2> "$runs/ncu-cold.err"
echo "ncu cold: exit $?"
python3 - "$out" "$runs/ncu-cold.csv" <<'PY'
import csv, glob, json, os, statistics, sys
out, ncu_csv = sys.argv[1], sys.argv[2]
kernels = {"copy_reference": "copy", "transpose_naive": "naive", "transpose_tiled": "tiled", "transpose_padded": "padded"}
rows = [r for r in csv.DictReader(l for l in open(ncu_csv) if l.startswith('"'))]
for r in rows:
    r["gpu__time_duration.sum"] = r.get("gpu__time_duration.sum", "").replace(",", "")
rows = [r for r in rows if r["gpu__time_duration.sum"].replace(".", "").isdigit()]
# Launches come five per kernel, kernels in order, sizes in order (2048, 8192).
ncu = {}
for i, r in enumerate(rows):
    size = "N=2048" if i < len(rows) // 2 else "N=8192"
    name = next(v for k, v in kernels.items() if k in r["Kernel Name"])
    ncu.setdefault((size, name), []).append(float(r["gpu__time_duration.sum"]) / 1e6)
timers = {"ncu (cache-control all)": {k: statistics.median(v) for k, v in ncu.items()}}
for path in sorted(glob.glob(f"{out}/et-*.csv")):
    timers["events " + os.path.basename(path)[3:-4]] = {
        (r["size"], r["variant"]): float(r["median_ms"])
        for r in csv.DictReader(open(path)) if r["temperature"] == "cold"
    }
for path in sorted(glob.glob(f"{out}/gpuprof-*.json")):
    results = json.load(open(path))
    timers["gpuprof " + os.path.basename(path)[8:-5]] = {
        (r["size"], v["name"]): statistics.median(r["cold_samples_ms"])
        for v in results["variants"] for r in v["runs"] if r.get("cold_samples_ms")
    }
json.dump({k: {f"{s} {n}": t for (s, n), t in v.items()} for k, v in timers.items()}, open(f"{out}/cold-medians.json", "w"), indent=1)
reference = timers["ncu (cache-control all)"]
print(f"{'timer':<26} {'size':<7} {'kernel':<7} {'cold µs':>8} {'ncu µs':>8} {'speedup':>8} {'ncu x':>7} {'diff':>7}")
worst = {}
for timer, medians in timers.items():
    for (size, name), ms in sorted(medians.items()):
        base = medians.get((size, "naive"))
        if name == "naive" or ms is None or base is None or (size, name) not in reference:
            continue
        mine, theirs = base / ms, reference[(size, "naive")] / reference[(size, name)]
        diff = mine / theirs - 1
        worst[timer] = max(worst.get(timer, 0), abs(diff))
        print(f"{timer:<26} {size:<7} {name:<7} {ms*1000:>8.2f} {reference[(size, name)]*1000:>8.2f} {mine:>8.2f} {theirs:>7.2f} {diff:>+7.1%}")
print()
print(f"{'timer':<26} largest cold speedup difference from ncu's")
for timer, w in worst.items():
    print(f"{timer:<26} {w:.1%}")
PY
