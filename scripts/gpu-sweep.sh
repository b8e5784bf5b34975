#!/usr/bin/env bash
# The sweep example on the device machine, with a release binary built
# elsewhere: `gpuprof report` on tests/gpu/sweep-matmul (a register-blocked
# SGEMM swept over BM, BN, BK, TM, TN: 28 configurations kept by its
# constraint, timed, verified against the naive kernel, the best three and
# the slowest profiled), then `gpuprof audit`. The run's folder is packed
# into OUTDIR/sweep.tgz (default OUTDIR: $OUT), to become examples/ once
# looked at; a table of the configurations by their headline median (cold
# or hot, as the report says) is printed last.
source "$(dirname "$0")/device-setup.sh"
echo "== gpuprof report tests/gpu/sweep-matmul"
"$bin" report tests/gpu/sweep-matmul/variants.toml -o "$runs/sweep-matmul"
echo "exit $?"
"$bin" audit "$runs/sweep-matmul/results.json"
echo "audit exit $?"
(cd "$runs" && tar czf "$out/sweep.tgz" --exclude='*/ncu/*source-*' --exclude='*/ncu/*job.json' sweep-matmul)
python3 - "$runs/sweep-matmul/analysis.json" "$runs/sweep-matmul/results.json" <<'PY'
import json, sys
analysis, results = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
profiled = {v["name"] for v in results["variants"] if v["runs"][0].get("profile")}
rows = []
for v in analysis["variants"]:
    run = v["runs"][0]
    timing = run["timing"]
    median = timing["median_ms"] if timing else float("inf")
    kind = timing["temperature"] if timing else ""
    rows.append((median, v["name"], kind, run["correctness"]["status"], v["name"] in profiled))
for median, name, kind, state, was_profiled in sorted(rows):
    shown = f"{median * 1000:9.1f} µs {kind:<4}" if median != float("inf") else "        –        "
    print(f"{name:<42} {shown}  {state:<12} {'profiled' if was_profiled else ''}")
PY
