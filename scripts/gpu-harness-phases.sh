#!/usr/bin/env bash
# Where the timing stage's seconds go, on the device machine, with a
# release binary built elsewhere: for each suite, `gpuprof report
# --no-profile` (its stage times and the seconds its runs spent sampling),
# then the same timing job run twice by `gpuprof harness` alone with every
# line it reports stamped with the time since it started, so the gaps
# between events show what comes before sampling (CUDA set-up, fills,
# uploads, verification launches, downloads, comparisons). Also times how
# fast this machine's host memory is touched for the first time (1 GiB,
# twice, each in a new process). Prints a table last.
# usage: scripts/gpu-harness-phases.sh OUTDIR [SUITE...]
source "$(dirname "$0")/device-setup.sh"
for suite in "${@:2}"; do
    "$bin" report "examples/$suite/variants.toml" --no-profile -o "$runs/$suite" > "$runs/$suite.log" 2>&1
    echo "$suite: exit $?; $(grep '^took' "$runs/$suite.log")"
done
for attempt in 1 2; do
    python3 -c "
import time
start = time.monotonic(); memory = bytearray(1 << 30); memory[::4096] = b'x' * (1 << 18)
print(f'first touch of 1 GiB of host memory: {time.monotonic() - start:.3f} s')"
done
python3 - "$runs" "$bin" "$out" "${@:2}" <<'PY'
import json, subprocess, sys, time
runs, binary, out, *suites = sys.argv[1:]
table = []
for suite in suites:
    results = json.load(open(f"{runs}/{suite}/results.json"))
    sampling = sum((run.get("timing") or {}).get("seconds", 0.0) for v in results["variants"] for run in v["runs"])
    for attempt in (1, 2):
        start = time.monotonic()
        process = subprocess.Popen([binary, "harness", "--job", f"{runs}/{suite}/ncu/time-job.json"],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        stamped = [(time.monotonic() - start, line.rstrip("\n")) for line in process.stdout]
        process.wait()
        whole = time.monotonic() - start
        with open(f"{out}/{suite}-harness-{attempt}.txt", "w") as log:
            previous = 0.0
            for at, line in stamped:
                log.write(f"{at:8.3f} +{at - previous:7.3f}  {line[:200]}\n")
                previous = at
        kinds = {}
        previous, first = 0.0, None
        for at, line in stamped:
            try:
                event = json.loads(line[line.index("{"):])
            except ValueError:
                continue
            kind = event.get("event", "?")
            if first is None:
                first = at
            kinds[kind] = kinds.get(kind, 0.0) + at - previous
            previous = at
        gaps = ", ".join(f"before {k} {v:.2f}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))
        table.append((suite, attempt, whole, first or 0.0, sampling, whole - previous, gaps))
print(f"\n{'suite':<12} {'run':>3} {'harness s':>9} {'to 1st event':>12} {'sampling s':>10} {'after last':>10}  seconds before each kind of event")
for suite, attempt, whole, first, sampling, tail, gaps in table:
    print(f"{suite:<12} {attempt:>3} {whole:>9.2f} {first:>12.2f} {sampling:>10.2f} {tail:>10.2f}  {gaps}")
PY
