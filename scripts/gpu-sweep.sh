#!/usr/bin/env bash
# The sweep example on the device machine, with a release binary built
# elsewhere: `gpuprof report` on tests/gpu/sweep-matmul (a register-blocked
# SGEMM swept over BM, BN, BK, TM, TN: 28 configurations kept by its
# constraint, timed, verified against the naive kernel, the best three and
# the slowest profiled), then `gpuprof audit`. The run's folder is packed
# into OUTDIR/sweep.tgz (default OUTDIR: $OUT), to become examples/ once
# looked at; a table of the configurations by time is printed last.
source "$(dirname "$0")/device-setup.sh"
echo "== gpuprof report tests/gpu/sweep-matmul"
"$bin" report tests/gpu/sweep-matmul/variants.toml -o "$runs/sweep-matmul"
echo "exit $?"
"$bin" audit "$runs/sweep-matmul/results.json"
echo "audit exit $?"
(cd "$runs" && tar czf "$out/sweep.tgz" --exclude='*/ncu/*source-*' --exclude='*/ncu/*job.json' sweep-matmul)
python3 - "$runs/sweep-matmul/analysis.json" "$runs/sweep-matmul/results.json" <<'PY'
import json, statistics, sys
results = json.load(open(sys.argv[2]))
rows = []
for v in results["variants"]:
    run = v["runs"][0]
    samples = run.get("samples_ms") or []
    median = statistics.median(samples) if samples else None
    failure = (run.get("failure") or {}).get("stage")
    check = (run.get("check") or {}).get("status")
    rows.append((median if median is not None else float("inf"), v["name"], failure or check, bool(run.get("profile"))))
for median, name, state, profiled in sorted(rows):
    shown = f"{median * 1000:9.1f} µs" if median != float("inf") else "        –   "
    print(f"{name:<42} {shown}  {str(state):<12} {'profiled' if profiled else ''}")
PY
