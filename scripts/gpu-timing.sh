#!/usr/bin/env bash
# Cold and hot timing on the device machine, with a release binary built
# elsewhere: the transpose and reduction examples with --no-profile (about
# a minute of GPU time each: 26 runs of at most `time_limit` = 1 s of
# sampling, plus compiling and verifying). Prints last, per variant and
# size: samples kept (cold/hot), samples left out for a throttled clock,
# the cold and hot medians, their relative spreads, the timing method, why
# sampling stopped, and the SM clock seen. Look for: cold > hot where the
# data fits in L2 (N=2048, the first reduction size), cold ≈ hot above;
# spreads near or under 1%; "graph" for the kernels under 10 µs; a clock
# near its maximum and few samples left out; an "interleaved" schedule.
source "$(dirname "$0")/device-setup.sh"
status=0
for suite in transpose reduction; do
    echo "== $suite"
    start=$(date +%s)
    "$bin" report "examples/$suite/variants.toml" --no-profile -o "$runs/$suite" --timeout 60 || status=$?
    echo "$suite took $(( $(date +%s) - start )) s"
done
(cd "$runs" && tar czf "$out/timing.tgz" transpose/results.json transpose/report.md reduction/results.json reduction/report.md transpose/ncu/time-events.jsonl reduction/ncu/time-events.jsonl)
python3 - "$runs" "$status" <<'PY'
import json, statistics, sys
runs, status = sys.argv[1:]
def spread(samples):
    if not samples:
        return "-"
    m = statistics.median(samples)
    mad = statistics.median(abs(s - m) for s in samples)
    return f"{1.4826 * mad / m * 100:.2f}%" if m else "-"
def median(samples):
    return f"{statistics.median(samples) * 1000:.2f}" if samples else "-"
print(f"{'suite':<10} {'variant':<22} {'size':<11} {'kept c/h':>11} {'thr':>4} {'cold µs':>9} {'hot µs':>9} {'spread c/h':>15} {'method':<10} {'stopped':<15} {'SM MHz':<16} schedule")
for suite in ("transpose", "reduction"):
    r = json.load(open(f"{runs}/{suite}/results.json"))
    for v in r["variants"]:
        for run in v["runs"]:
            t = run.get("timing") or {}
            cold, hot = run.get("cold_samples_ms", []), run["samples_ms"]
            method = t.get("method", {})
            m = method.get("kind", "-")
            if m == "graph":
                m += f"x{method['launches_per_hot_sample']}"
            if method.get("graph_refused"):
                m += "(refused)"
            clock = t.get("clock", {})
            if clock.get("kind") == "read":
                sm = f"{clock['median_mhz']}/{clock['max_mhz']}" + (" THROTTLED" if clock["throttled_throughout"] else "")
            else:
                sm = "none: " + clock.get("reason", "-")[:30]
            failure = (run.get("failure") or {}).get("message", "")
            print(f"{suite:<10} {v['name']:<22} {run['size']:<11} {len(cold):>5}/{len(hot):<5} {t.get('throttled_samples', '-'):>4} {median(cold):>9} {median(hot):>9} {spread(cold):>7}/{spread(hot):<7} {m:<10} {t.get('stopped', '-'):<15} {sm:<16} {t.get('schedule', {}).get('kind', '-')} {failure[:60]}")
notices = [n for suite in ("transpose", "reduction") for n in json.load(open(f"{runs}/{suite}/results.json"))["notices"] if n.get("kind") == "throttled"]
print(f"exit status {status}; throttled notices: {len(notices)}")
PY
