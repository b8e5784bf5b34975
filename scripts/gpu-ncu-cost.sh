#!/usr/bin/env bash
# Where ncu's time per profiled launch goes, on the device machine, with a
# release binary built elsewhere. Profiles the transpose example with
# `gpuprof report` (for its metric set and its profile job), then times ncu
# over scripts/ncu-cost-probe.cu (a copy kernel launched K times) and over
# gpuprof's own harness job in the ways that could explain the cost: no
# launch profiled (start-up), one metric (one pass) with a profiler range
# per launch, one range for all and no ranges; gpuprof's metric set with
# little and with 4 GiB of other device memory (ncu saves and restores
# memory between passes), without cache flushes, with the SourceCounters
# section, in application replay; and two ncu processes side by side on
# the one GPU. Every ncu run uses --clock-control none. Prints a table
# last: wall and CPU seconds of each run, launches profiled, and seconds
# per launch beyond the run without profiled launches.
# usage: scripts/gpu-ncu-cost.sh OUTDIR
source "$(dirname "$0")/device-setup.sh"
nvcc -O3 -arch=sm_90 -lineinfo -o "$runs/probe" scripts/ncu-cost-probe.cu || exit 1
"$bin" report examples/transpose/variants.toml -o "$runs/transpose" > "$runs/transpose.log" 2>&1
echo "gpuprof report transpose: exit $?"
tail -3 "$runs/transpose.log"
python3 - "$runs" "$bin" "$out" <<'PY'
import glob, json, os, re, resource, subprocess, sys, time
runs, binary, out = sys.argv[1:]
results = json.load(open(f"{runs}/transpose/results.json"))
command = results["profiler"]["command"].split()
metric_set = command[command.index("--metrics") + 1]
job = sorted(glob.glob(f"{runs}/transpose/ncu/profile*-job.json"))[0]
probe = f"{runs}/probe"
harness = [binary, "harness", "--job", job]
base = ["ncu", "--clock-control", "none"]
rows = []

def ncu(name, options, target):
    return base + options + ["--log-file", f"{runs}/{name}.log", "-f", "-o", f"{runs}/{name}"] + target

def profiled(name):
    path = f"{runs}/{name}.log"
    if not os.path.exists(path):
        return 0
    return sum(1 for line in open(path, errors="replace") if re.match(r"==PROF== Profiling ", line))

def measure(name, commands, launches):
    """Runs the commands side by side; wall and CPU seconds of all."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    processes = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for c in commands]
    codes = [(p.wait(), p.stderr.read().decode(errors="replace")) for p in processes]
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    failed = [text.strip().splitlines()[-1:] for code, text in codes if code != 0]
    got = sum(profiled(f"{name}-{i}" if len(commands) > 1 else name) for i in range(len(commands)))
    rows.append((name, wall, cpu, launches, got, failed))
    print(f"{name}: {wall:.2f} s wall, {cpu:.2f} s CPU, {got} profiled {failed or ''}", flush=True)

one = ["--metrics", "gpu__time_duration.sum"]
ranges = ["--profile-from-start", "off"]
nothing = ["--kernel-name", "regex:^nothing_matches$"]
full = ["--metrics", metric_set]
source = ["--section", "SourceCounters", "--import-source", "yes"]
measure("probe-alone", [[probe, "each", "16", "0"]], 0)
measure("probe-start", [ncu("probe-start", ranges + one + nothing, [probe, "each", "16", "0"])], 0)
measure("probe-1pass-each-16", [ncu("probe-1pass-each-16", ranges + one, [probe, "each", "16", "0"])], 16)
measure("probe-1pass-each-32", [ncu("probe-1pass-each-32", ranges + one, [probe, "each", "32", "0"])], 32)
measure("probe-1pass-once-16", [ncu("probe-1pass-once-16", ranges + one, [probe, "once", "16", "0"])], 16)
measure("probe-1pass-none-16", [ncu("probe-1pass-none-16", one, [probe, "none", "16", "0"])], 16)
measure("probe-set-each-16", [ncu("probe-set-each-16", ranges + full, [probe, "each", "16", "0"])], 16)
measure("probe-set-each-8", [ncu("probe-set-each-8", ranges + full, [probe, "each", "8", "0"])], 8)
measure("probe-set-each-16-4GiB", [ncu("probe-set-each-16-4GiB", ranges + full, [probe, "each", "16", "4096"])], 16)
measure("probe-set-each-16-nocache", [ncu("probe-set-each-16-nocache", ranges + full + ["--cache-control", "none"], [probe, "each", "16", "0"])], 16)
measure("probe-set+src-each-16", [ncu("probe-set+src-each-16", ranges + full + source, [probe, "each", "16", "0"])], 16)
measure("probe-set-app-replay-16", [ncu("probe-set-app-replay-16", full + ["--replay-mode", "application"], [probe, "none", "16", "0"])], 16)
measure("probe-1pass-2procs-8+8", [ncu(f"probe-1pass-2procs-8+8-{i}", ranges + one, [probe, "each", "8", "0"]) for i in range(2)], 16)
measure("probe-set-2procs-8+8", [ncu(f"probe-set-2procs-8+8-{i}", ranges + full, [probe, "each", "8", "0"]) for i in range(2)], 16)
launches = len(json.load(open(job))["items"])
measure("harness-alone", [harness], 0)
measure("harness-start", [ncu("harness-start", ranges + one + nothing, harness)], 0)
measure("harness-1pass", [ncu("harness-1pass", ranges + one, harness)], launches)
measure("harness-set", [ncu("harness-set", ranges + full, harness)], launches)
measure("harness-set+src", [ncu("harness-set+src", ranges + full + source, harness)], launches)
json.dump(rows, open(f"{out}/ncu-cost.json", "w"), indent=1)
start = {"probe": next(r[1] for r in rows if r[0] == "probe-start"),
         "harness": next(r[1] for r in rows if r[0] == "harness-start")}
print(f"\n{'run':<28} {'wall s':>7} {'CPU s':>7} {'launches':>8} {'profiled':>8} {'s/launch beyond start':>22}")
for name, wall, cpu, launches, got, failed in rows:
    per = f"{(wall - start[name.split('-')[0]]) / launches:.3f}" if launches else "-"
    print(f"{name:<28} {wall:>7.2f} {cpu:>7.2f} {launches:>8} {got:>8} {per:>22} {'FAILED ' + str(failed) if failed else ''}")
PY
(cd "$runs" && tar czf "$out/ncu-cost.tgz" ./*.log transpose/results.json transpose/ncu/*.log 2>/dev/null)
