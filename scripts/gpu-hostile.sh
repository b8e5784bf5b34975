#!/usr/bin/env bash
# Hostile kernels on the device machine (tests/gpu/hostile and the fault
# suite), with a release binary built elsewhere: printf floods, bytes that
# are not UTF-8, escape sequences, text without a newline, a launch that
# needs the dynamic-shared-memory opt-in, buffers larger than the GPU's
# memory, and a kernel that never ends. Prints a table last.
source "$(dirname "$0")/device-setup.sh"
echo "== hostile"
"$bin" report tests/gpu/hostile/variants.toml -o "$runs/hostile" --timeout 30
hostile=$?
echo "== buffers larger than the GPU"
sed 's/count = "N", fill = "random"/count = "N * 200000", fill = "random"/' tests/gpu/hostile/variants.toml > tests/gpu/hostile/oversized.toml
"$bin" report tests/gpu/hostile/oversized.toml -o "$runs/oversized" 2> "$runs/oversized.err"
oversized=$?
cat "$runs/oversized.err"
rm tests/gpu/hostile/oversized.toml
echo "== faults (a kernel that never ends, stopped by --timeout 10)"
start=$(date +%s)
"$bin" report tests/gpu/faults/variants.toml -o "$runs/faults" --timeout 10 --no-profile
faults=$?
faults_seconds=$(( $(date +%s) - start ))
(cd "$runs" && tar czf "$out/hostile.tgz" hostile/results.json hostile/report.md hostile/ncu/time-events.jsonl hostile/ncu/profile-events.jsonl faults/results.json oversized.err)
python3 - "$runs" "$hostile" "$oversized" "$faults" "$faults_seconds" <<'PY'
import json, sys
runs, hostile, oversized, faults, seconds = sys.argv[1:]
r = json.load(open(f"{runs}/hostile/results.json"))
print(f"{'variant':<14} {'samples':>7} {'check':<12} {'profiled':<8} kept output")
for v in r["variants"]:
    run = v["runs"][0]
    out = (run.get("output") or "").splitlines()
    check = (run.get("check") or {}).get("status") or (run.get("failure") or {}).get("stage")
    print(f"{v['name']:<14} {len(run['samples_ms']):>7} {str(check):<12} {str(bool(run.get('profile'))):<8} {len(out)} lines, last: {out[-1][:60] if out else '-'}")
f = json.load(open(f"{runs}/faults/results.json"))
hang = f["variants"][[v["name"] for v in f["variants"]].index("hang")]["runs"][0]
after = f["variants"][[v["name"] for v in f["variants"]].index("after")]["runs"][0]
events = [json.loads(l) for l in open(f"{runs}/hostile/ncu/time-events.jsonl")]
kinds = {}
for e in events:
    kinds[e["event"]] = kinds.get(e["event"], 0) + 1
print("time-stage report events: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
print(f"hostile exit {hostile}; oversized exit {oversized} (2 expected); faults exit {faults} (3 expected) in {seconds} s")
print(f"hang: {(hang.get('failure') or {}).get('message', '')[:90]}")
print(f"after the hang: {len(after['samples_ms'])} samples, {(after.get('check') or {}).get('status')}")
PY
