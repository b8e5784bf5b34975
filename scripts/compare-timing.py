"""Compares gpuprof's speedups (results.json) with independent event timing
(scripts/event-timing.cu output) and prints a table; exits 1 when any
speedup differs by more than 5%.

usage: compare-timing.py RESULTS_JSON EVENT_TIMING_CSV
"""
import csv
import json
import statistics
import sys

results = json.load(open(sys.argv[1]))
events = {(r["size"], r["variant"]): float(r["median_ms"]) for r in csv.DictReader(open(sys.argv[2]))}
baseline = results["suite"]["baseline"]
worst = 0.0
print(f"{'size':<8} {'variant':<8} {'gpuprof ms':>11} {'events ms':>10} {'gpuprof x':>10} {'events x':>9} {'diff':>7}")
for variant in results["variants"]:
    for run in variant["runs"]:
        size, name = run["size"], variant["name"]
        base = next(v for v in results["variants"] if v["name"] == baseline)
        base_run = next(r for r in base["runs"] if r["size"] == size)
        if not run["samples_ms"] or (size, name) not in events:
            continue
        mine = statistics.median(run["samples_ms"])
        mine_speedup = statistics.median(base_run["samples_ms"]) / mine
        theirs_speedup = events[(size, baseline)] / events[(size, name)]
        diff = mine_speedup / theirs_speedup - 1
        worst = max(worst, abs(diff))
        print(f"{size:<8} {name:<8} {mine:>11.4f} {events[(size, name)]:>10.4f} {mine_speedup:>10.2f} {theirs_speedup:>9.2f} {diff:>+7.1%}")
print(f"largest speedup difference: {worst:.1%}")
sys.exit(0 if worst <= 0.05 else 1)
