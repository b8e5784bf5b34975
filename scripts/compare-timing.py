"""Compares gpuprof's speedups (a run's analysis.json) with independent
event timing (scripts/event-timing.cu output: size, variant, cold or hot,
median) and prints a table: each run's speedup over the baseline on its
headline samples (cold or hot, as analysis.json says) against the event
timer's on samples of the same kind. Exits 1 when any speedup differs by
more than the tolerance (default 2%).

usage: compare-timing.py ANALYSIS_JSON EVENT_TIMING_CSV [TOLERANCE]
"""
import csv
import json
import sys

analysis = json.load(open(sys.argv[1]))
events = {
    (r["size"], r["variant"], r["temperature"]): float(r["median_ms"])
    for r in csv.DictReader(open(sys.argv[2]))
}
tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 0.02
baseline = analysis["baseline"]
worst = 0.0
print(f"{'size':<8} {'variant':<8} {'kind':<5} {'gpuprof ms':>11} {'events ms':>10} {'gpuprof x':>10} {'events x':>9} {'diff':>7}")
for variant in analysis["variants"]:
    for run in variant["runs"]:
        size, name, timing = run["size"], variant["name"], run["timing"]
        if not timing or not run["vs_baseline"] or (size, name, timing["temperature"]) not in events:
            continue
        kind = timing["temperature"]
        mine = run["vs_baseline"]["speedup"]
        theirs = events[(size, baseline, kind)] / events[(size, name, kind)]
        diff = mine / theirs - 1
        worst = max(worst, abs(diff))
        print(f"{size:<8} {name:<8} {kind:<5} {timing['median_ms']:>11.4f} {events[(size, name, kind)]:>10.4f} {mine:>10.2f} {theirs:>9.2f} {diff:>+7.1%}")
print(f"largest speedup difference: {worst:.1%} (tolerance {tolerance:.0%})")
sys.exit(0 if worst <= tolerance else 1)
