#!/usr/bin/env bash
# Which part of ncu's start-up could be spent while another process still
# uses the GPU, on the device machine: runs scripts/ncu-startup-probe.cu
# (which stamps when main starts, when a gate file appears, when CUDA is
# initialised and when its launches are done) alone and under ncu with
# gpuprof's metric set, the gate open from the start or opened later, and
# times gpuprof's own profile job under ncu from the start to the
# harness's first event. Every ncu run uses --clock-control none. Prints a
# table last: seconds from the start to main, waiting at the gate, CUDA's
# initialisation, the launches, and from the last launch to the exit.
# usage: scripts/gpu-ncu-startup.sh OUTDIR
source "$(dirname "$0")/device-setup.sh"
nvcc -O3 -arch=sm_90 -o "$runs/probe" scripts/ncu-startup-probe.cu || exit 1
"$bin" report examples/transpose/variants.toml -o "$runs/transpose" > "$runs/transpose.log" 2>&1
echo "gpuprof report transpose: exit $?; $(grep '^took' "$runs/transpose.log")"
python3 - "$runs" "$bin" "$out" <<'PY'
import glob, json, os, subprocess, sys, threading, time
runs, binary, out = sys.argv[1:]
results = json.load(open(f"{runs}/transpose/results.json"))
command = results["profiler"]["command"].split()
metric_set = command[command.index("--metrics") + 1]
base = ["ncu", "--clock-control", "none", "--profile-from-start", "off"]
source = ["--section", "SourceCounters", "--import-source", "yes"]
rows = []

def probe(name, options, gate_after, launches=4, under_ncu=True):
    stamps, gate = f"{runs}/{name}.stamps", f"{runs}/{name}.gate"
    for path in (stamps, gate):
        if os.path.exists(path):
            os.remove(path)
    target = [f"{runs}/probe", stamps, gate, str(launches)]
    argv = base + options + ["--log-file", f"{runs}/{name}.log", "-f", "-o", f"{runs}/{name}"] + target if under_ncu else target
    start = time.time()
    opener = threading.Timer(gate_after, lambda: open(gate, "w").close())
    opener.start()
    code = subprocess.call(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    end = time.time()
    opener.join()
    marks = dict(line.split() for line in open(stamps))
    marks = {k: float(v) for k, v in marks.items()}
    row = (name, code, end - start, marks["main"] - start, marks["gate"] - marks["main"],
           marks["cuda"] - marks["gate"], marks["launched"] - marks["cuda"], end - marks["launched"])
    rows.append(row)
    print(" ".join(f"{x:.3f}" if isinstance(x, float) else str(x) for x in row), flush=True)

one = ["--metrics", "gpu__time_duration.sum"]
full = ["--metrics", metric_set]
for attempt in (1, 2):
    probe(f"alone-{attempt}", [], 0.0, under_ncu=False)
    probe(f"ncu-1pass-open-{attempt}", one, 0.0)
    probe(f"ncu-set-open-{attempt}", full, 0.0)
    probe(f"ncu-set+src-open-{attempt}", full + source, 0.0)
    probe(f"ncu-set+src-gate3s-{attempt}", full + source, 3.0)
    probe(f"ncu-set-0launches-gate3s-{attempt}", full, 3.0, launches=0)
# gpuprof's harness, its profile job: to its first event alone and under ncu.
job = sorted(glob.glob(f"{runs}/transpose/ncu/profile*-job.json"))[0]
harness = [binary, "harness", "--job", job]
for attempt in (1, 2):
    for name, argv in (("harness-alone", harness),
                       ("harness-ncu-set+src", base + full + source + ["--log-file", f"{runs}/h.log", "-f", "-o", f"{runs}/h"] + harness)):
        start = time.time()
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        first = None
        for line in process.stdout:
            if first is None and "{" in line:
                first = time.time() - start
        process.wait()
        whole = time.time() - start
        rows.append((f"{name}-{attempt}", process.returncode, whole, first or 0.0, 0.0, 0.0, 0.0, 0.0))
        print(f"{name}-{attempt}: {whole:.3f} s, first event at {first}", flush=True)
json.dump(rows, open(f"{out}/ncu-startup.json", "w"), indent=1)
print(f"\n{'run':<30} {'rc':>3} {'wall':>7} {'to main':>8} {'at gate':>8} {'cuda init':>9} {'launches':>8} {'to exit':>8}")
for name, code, wall, to_main, gate, cuda, launched, tail in rows:
    print(f"{name:<30} {code:>3} {wall:>7.3f} {to_main:>8.3f} {gate:>8.3f} {cuda:>9.3f} {launched:>8.3f} {tail:>8.3f}")
print("(harness rows: 'to main' is the time to the harness's first event)")
PY
