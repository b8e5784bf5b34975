#!/usr/bin/env bash
# Does starting ncu early (while the kernels are timed) cost the timings
# anything, and what does it save? On the device machine, with a release
# binary built elsewhere and an older one in $BASELINE:
#   1. ncu over a harness waiting for its job (`harness --wait-for`): after
#      2 s, which of ncu's and the harness's processes hold a GPU device
#      file open, and what nvidia-smi lists as compute processes (nothing
#      may touch the GPU before the job is written); then the same with
#      its gate written at once (`--open-on`, as gpuprof's ncu harnesses
#      once the device is probed): the harness holds a context, and the
#      GPU's compute mode;
#   2. scripts/bench-profiling.sh over SUITES (default: transpose reduction
#      matmul), the baseline reported first in the same call;
#   3. the headline medians of runs above 50 µs, this binary's report
#      against the baseline's in the same call (whatever each does beside
#      its timing stage: since 2026-12-06's evening, two idle contexts of
#      ncu's harnesses): how many moved by more than 1%.
# Every ncu run uses --clock-control none. Prints the tables last.
# usage: BASELINE=BIN scripts/gpu-early-start.sh OUTDIR
source "$(dirname "$0")/device-setup.sh"
: "${BASELINE:?name the older gpuprof in BASELINE}"
suites=${SUITES:-transpose reduction matmul}
"$bin" report examples/transpose/variants.toml --no-profile -o "$runs/device" > /dev/null 2>&1
job=$runs/early-job.json
ncu --clock-control none --profile-from-start off -f -o "$runs/early" \
    "$bin" harness --job "$job" --wait-for $$ > /dev/null 2>&1 &
sleep 2
echo "== 2 s into ncu's start, the job not yet written"
for pid in $(pgrep -f "early-job.json"); do
    held=$(ls -l /proc/$pid/fd 2> /dev/null | grep -c "/dev/nvidia")
    echo "pid $pid ($(tr '\0' ' ' < /proc/$pid/cmdline | cut -c1-80)): $held GPU device files open"
done | tee "$out/waiting.txt"
nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader | sed 's/^/compute process: /' | tee -a "$out/waiting.txt"
cp "$runs/device/ncu/device-job.json" "$job.tmp" && mv "$job.tmp" "$job"
wait $!
echo "ncu with the job written: exit $?"
# The same with the gate written at once (`--open-on`): the harness opens
# the GPU while it waits, as gpuprof's do once the device is probed.
job=$runs/open-job.json
: > "$runs/open-gate"
ncu --clock-control none --profile-from-start off -f -o "$runs/open" \
    "$bin" harness --job "$job" --wait-for $$ --open-on "$runs/open-gate" > /dev/null 2>&1 &
sleep 3
echo "== 3 s into ncu's start, the gate written, the job not" | tee -a "$out/waiting.txt"
for pid in $(pgrep -f "open-job.json"); do
    held=$(ls -l /proc/$pid/fd 2> /dev/null | grep -c "/dev/nvidia")
    echo "pid $pid ($(tr '\0' ' ' < /proc/$pid/cmdline | cut -c1-80)): $held GPU device files open"
done | tee -a "$out/waiting.txt"
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader | sed 's/^/compute process: /' | tee -a "$out/waiting.txt"
nvidia-smi --query-gpu=compute_mode --format=csv,noheader | sed 's/^/compute mode: /' | tee -a "$out/waiting.txt"
cp "$runs/device/ncu/device-job.json" "$job.tmp" && mv "$job.tmp" "$job"
wait $!
echo "ncu with the job written: exit $?"
BASELINE=$BASELINE bash scripts/bench-profiling.sh "$runs/bench" $suites > "$out/bench.txt" 2>&1
python3 - "$runs/bench" "$out" $suites <<'PY' | tee "$out/medians.txt"
import json, os, sys
bench, out, suites = sys.argv[1], sys.argv[2], sys.argv[3:]
def medians(path):
    analysis = json.load(open(path))
    return {(v["name"], r["size"]): r["timing"]["median_ms"]
            for v in analysis["variants"] for r in v["runs"] if r["timing"]}
print(f"{'suite':<12} {'runs >50 µs':>11} {'moved >1%':>9} {'largest move':>13}  where")
for suite in suites:
    before = medians(os.path.join(bench, suite, "baseline", "analysis.json"))
    after = medians(os.path.join(bench, suite, "gpuprof", "analysis.json"))
    moves = [(abs(after[k] / before[k] - 1), k) for k in before if k in after and before[k] > 0.05]
    worst = max(moves)
    print(f"{suite:<12} {len(moves):>11} {sum(m > 0.01 for m, _ in moves):>9} {worst[0] * 100:>12.2f}%  {worst[1][0]} {worst[1][1]}")
PY
echo "== bench"
tail -12 "$out/bench.txt"
echo "== waiting"
cat "$out/waiting.txt"
