"""The table scripts/gpu-multi.sh prints last: for each suite it ran, the
one-GPU run against the `--gpus` run and against two shards merged.

usage: compare-multi.py RUNS_FOLDER

RUNS_FOLDER holds walls.txt (suite, way, exit status, seconds per line)
and, per suite and way (one, gpus, shards), the output folder SUITE-WAY
with its results.json and analysis.json, and the logs whose "took" lines
give the profile stage: SUITE-one.log, the shards' gpuprof.log under
SUITE-gpus/shards/, and SUITE-s1.log and SUITE-s2.log.
"""
import glob
import json
import os
import re
import sys

runs = sys.argv[1]

# Exact counts: the same launches give the same numbers on any H200.
EXACT = re.compile(r"(sectors|requests|inst_executed|wavefronts|bank_conflicts|inst)")
SAMPLED = re.compile(r"(pct|throughput|hit_rate|duration|cycles|per_second|ratio|active|elapsed)")


def load(path):
    with open(path) as f:
        return json.load(f)


def profile_seconds(log_paths):
    """The largest profile stage of the given gpuprof logs' "took" lines."""
    stages = []
    for path in log_paths:
        if not os.path.exists(path):
            continue
        match = re.search(r"took [0-9.]+ s:.*?profile ([0-9.]+) s", open(path).read())
        if match:
            stages.append(float(match.group(1)))
    return max(stages) if stages else None


def profiled(results):
    return {
        (v["name"], r["size"]): r["profile"]
        for v in results["variants"]
        for r in v["runs"]
        if r.get("profile")
    }


def counters(mine, theirs):
    """(exact counters compared, how many differ, largest relative
    difference of the sampled ones)."""
    exact, differ, sampled = 0, 0, 0.0
    for key in set(mine) & set(theirs):
        for name, value in mine[key]["metrics"].items():
            other = theirs[key]["metrics"].get(name)
            if not isinstance(value, (int, float)) or not isinstance(other, (int, float)):
                continue
            if SAMPLED.search(name):
                if max(abs(value), abs(other)) > 0:
                    sampled = max(sampled, abs(value - other) / max(abs(value), abs(other)))
            elif EXACT.search(name):
                exact += 1
                differ += value != other
    return exact, differ, sampled


def conclusions(analysis):
    """Finding kinds, limiters and change verdicts, run by run."""
    seen = {}
    for variant in analysis["variants"]:
        for run in variant["runs"]:
            seen[(variant["name"], run["size"])] = (
                sorted(f["kind"] for f in run["findings"]),
                (run.get("limiter") or {}).get("bottleneck"),
            )
        seen[(variant["name"], "changes")] = [c["verdict"] for c in variant["changes"]]
    return seen


def one_gpu_per_size(results):
    """Whether every size's timings came from one shard, whose GPU has a
    UUID."""
    origins = results.get("merged_from") or []
    sizes = [s for o in origins for s in o["sizes"]]
    named = all(o.get("gpu_uuid") for o in origins)
    return bool(origins) and len(sizes) == len(set(sizes)) and named


walls = {}
for line in open(os.path.join(runs, "walls.txt")):
    suite, way, status, seconds = line.split()
    walls[(suite, way)] = (int(status), float(seconds))

print(
    f"{'suite':<13} {'way':<7} {'exit':>4} {'wall s':>7} {'profile s':>9} {'×one':>5} "
    f"{'launches':>8} {'exact equal':>12} {'sampled max':>11} {'findings':>8} {'1 GPU/size':>10}"
)
for suite in sorted({s for s, _ in walls}):
    base = os.path.join(runs, f"{suite}-one")
    one_results, one_analysis = load(f"{base}/results.json"), load(f"{base}/analysis.json")
    one_profiled, one_conclusions = profiled(one_results), conclusions(one_analysis)
    one_profile = profile_seconds([f"{base}.log"])
    for way, logs in (
        ("one", [f"{base}.log"]),
        ("gpus", glob.glob(os.path.join(runs, f"{suite}-gpus", "shards", "*", "gpuprof.log"))),
        ("shards", [os.path.join(runs, f"{suite}-s1.log"), os.path.join(runs, f"{suite}-s2.log")]),
    ):
        status, wall = walls.get((suite, way), (-1, float("nan")))
        folder = os.path.join(runs, f"{suite}-{way}")
        if not os.path.exists(f"{folder}/results.json"):
            print(f"{suite:<13} {way:<7} {status:>4} {wall:>7.1f}  no results")
            continue
        results, analysis = load(f"{folder}/results.json"), load(f"{folder}/analysis.json")
        stage = profile_seconds(logs)
        speedup = f"{one_profile / stage:.2f}" if stage and one_profile else "-"
        mine = profiled(results)
        same_launches = "same" if set(mine) == set(one_profiled) else f"{len(mine)}/{len(one_profiled)}"
        exact, differ, sampled = counters(mine, one_profiled)
        same_conclusions = "same" if conclusions(analysis) == one_conclusions else "DIFFER"
        per_size = "-" if way == "one" else ("yes" if one_gpu_per_size(results) else "NO")
        print(
            f"{suite:<13} {way:<7} {status:>4} {wall:>7.1f} {stage or float('nan'):>9.1f} {speedup:>5} "
            f"{same_launches:>8} {exact - differ:>5}/{exact:<6} {sampled:>10.1%} {same_conclusions:>8} {per_size:>10}"
        )
