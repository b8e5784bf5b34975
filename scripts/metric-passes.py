#!/usr/bin/env python3
"""Which of gpuprof's metrics cost Nsight Compute replay passes, measured.

Run on the GPU machine from the repo root: `python3 scripts/metric-passes.py
OUTDIR [SECONDS [PHASE...]]` (phases: combos wall singles leave-1 subsets;
all but subsets by default). It builds the fixture probe
(tests/fixtures/probe) with nvcc and profiles its `transpose_tiled` launch (N = 1024) under ncu
(`--clock-control none`) many times, each time with another metric set,
reading `profiler__replayer_passes` from the report:

  combos    the metric set as gpuprof asks for it, its parts alone, and
            candidate reductions: the source metrics gpuprof reads asked
            for by name (ncu refuses the section's `derived__` names, exit
            9) and as a trimmed section file (gpuprof.section);
  wall      the same sets over all four probe launches at N = 8192, timed;
  singles   every metric of src/ncu/metrics.rs alone, and every metric the
            SourceCounters section file names, alone;
  leave-1   the whole set less one metric, for every metric;
  subsets   the whole set less every subset of the metrics that cost
            passes of their own (OPTIONAL below), with the section.

Rows go to OUTDIR/passes.tsv as they are measured (kind, name, exit code,
passes, wall seconds, ncu's last error line); the SourceCounters section
file, ncu's help and the source pages of the candidate sets are copied
next to it. Stops starting new runs after SECONDS (default 480) and prints
a table last.
"""
import csv
import glob
import io
import itertools
import os
import re
import subprocess
import sys
import tempfile
import time

OUT = sys.argv[1]
BUDGET = float(sys.argv[2]) if len(sys.argv) > 2 else 480.0
START = time.time()
os.makedirs(OUT, exist_ok=True)
WORK = tempfile.mkdtemp()
os.environ["PATH"] = "/usr/local/cuda/bin:" + os.environ["PATH"]
NCU = "ncu"
PROBE = os.path.join(WORK, "probe")
TSV = os.path.join(OUT, "passes.tsv")

PHASES = sys.argv[3:] or ["combos", "wall", "singles", "leave-1"]
# Metrics that replay more often than once on their own (singles, measured
# on the H200: the throughput breakdowns and the L2 hit rate), and the L1
# hit rate, which the report only shows, like the L2 ones.
OPTIONAL = [
    "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    "l1tex__throughput.avg.pct_of_peak_sustained_active",
    "lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "lts__t_sector_hit_rate.pct",
    "l1tex__t_sector_hit_rate.pct",
]
METRICS = [
    line.strip()
    for line in open("tests/fixtures/probe/metrics.txt")
    if line.strip() and not line.startswith("#")
]


def sh(command, timeout=180):
    try:
        return subprocess.run(command, shell=True, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(command, 124, "", f"ERROR: timed out after {timeout} s")


def definitions_block(text):
    """The section's MetricDefinitions block, verbatim."""
    start = text.find("MetricDefinitions {")
    if start < 0:
        return ""
    depth = 0
    for at in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[at], 0)
        if depth == 0 and text[at] == "}":
            return text[start : at + 1]
    return ""


def custom_section(text, names):
    """A section that collects only `names` (and the section's derived
    metrics), written to its own folder; returns the ncu options."""
    folder = os.path.join(WORK, "sections")
    os.makedirs(folder, exist_ok=True)
    entries = "\n".join(f'  Metrics {{\n    Name: "{n}"\n  }}' for n in names)
    section = (
        'Identifier: "GpuprofSource"\nDisplayName: "gpuprof source counters"\n'
        f"{definitions_block(text)}\nMetrics {{\n{entries}\n}}\n"
    )
    for where in (folder, OUT):
        with open(os.path.join(where, "gpuprof.section"), "w") as f:
            f.write(section)
    return f"--section-folder {folder} --section GpuprofSource"


def section_file():
    found = sorted(glob.glob(os.environ.get("NCU_SECTIONS", "/usr/local/cuda*/nsight-compute*/sections") + "/SourceCounters.section"))
    found += sorted(glob.glob("/opt/nvidia/nsight-compute/*/sections/SourceCounters.section"))
    return found[0] if found else None


def section_metric_names(text):
    """Every metric name the section collects (Name: entries outside
    MetricDefinitions, whose names are expressions of others)."""
    names = []
    depth_of_definitions = None
    depth = 0
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("MetricDefinitions") and depth_of_definitions is None:
            depth_of_definitions = depth
        depth += stripped.count("{") - stripped.count("}")
        if depth_of_definitions is not None and depth <= depth_of_definitions:
            depth_of_definitions = None
            continue
        if depth_of_definitions is None:
            for name in re.findall(r'\bName:\s*"([^"]+)"', stripped):
                if name not in names:
                    names.append(name)
    return names


def passes_of(report):
    result = sh(
        f"{NCU} --import {report} --csv --page raw --print-units base "
        f"--metrics profiler__replayer_passes"
    )
    rows = list(csv.reader(io.StringIO(result.stdout)))
    if len(rows) < 3 or "profiler__replayer_passes" not in rows[0]:
        return ""
    at = rows[0].index("profiler__replayer_passes")
    return ",".join(sorted({r[at] for r in rows[2:] if len(r) > at}))


def profile(kind, name, options, n=1024, only_tiled=True, keep_source=False):
    if time.time() - START > BUDGET:
        return None
    report = os.path.join(WORK, re.sub(r"[^A-Za-z0-9_.-]", "_", f"{kind}-{name}")[:80])
    select = "-k regex:transpose_tiled" if only_tiled else ""
    t0 = time.time()
    result = sh(
        f"{NCU} --clock-control none --profile-from-start off {select} {options} "
        f"-f -o {report} {PROBE} {n}"
    )
    wall = time.time() - t0
    errors = [l for l in (result.stdout + result.stderr).splitlines() if "ERROR" in l or "error" in l]
    passes = passes_of(report + ".ncu-rep") if os.path.exists(report + ".ncu-rep") else ""
    row = [kind, name, str(result.returncode), passes, f"{wall:.2f}", (errors[-1] if errors else "")[:200]]
    with open(TSV, "a") as f:
        f.write("\t".join(row) + "\n")
    if keep_source and os.path.exists(report + ".ncu-rep"):
        page = sh(f"{NCU} --import {report}.ncu-rep --csv --page source --print-source sass,cuda")
        with open(os.path.join(OUT, f"source-{name}.csv"), "w") as f:
            f.write(page.stdout[:400000])
    return row


def main():
    with open(TSV, "w") as f:
        f.write("kind\tname\trc\tpasses\twall_s\tlast_error\n")
    build = sh(f"nvcc -O3 -arch=sm_90 -lineinfo -o {PROBE} tests/fixtures/probe/transpose_probe.cu")
    if build.returncode:
        print(build.stderr)
        sys.exit(1)
    with open(os.path.join(OUT, "ncu-help.txt"), "w") as f:
        f.write(sh(f"{NCU} --version").stdout + sh(f"{NCU} --help").stdout)
    path = section_file()
    section_text = open(path).read() if path else ""
    with open(os.path.join(OUT, "SourceCounters.section"), "w") as f:
        f.write(f"# {path}\n{section_text}")
    source_metrics = section_metric_names(section_text)
    print("SourceCounters collects:", ", ".join(source_metrics))

    all_metrics = ",".join(METRICS)
    wanted_source = [
        m
        for m in source_metrics
        if re.match(
            r"^(inst_executed|memory_l1_wavefronts_shared(_ideal)?|"
            r"memory_l2_theoretical_sectors_global(_ideal)?|group:smsp__pcsamp.*|smsp__pcsamp.*|"
            r".*address_space.*|.*access_op.*|memory_type|memory_access.*|derived__memory_l1_wavefronts_shared_excessive|"
            r"derived__memory_l2_theoretical_sectors_global_excessive)$",
            m,
        )
    ]
    print("source metrics gpuprof reads:", ", ".join(wanted_source))
    combos = [
        ("current", f"--metrics {all_metrics} --section SourceCounters"),
        ("metrics-only", f"--metrics {all_metrics}"),
        ("section-only", "--section SourceCounters"),
        ("duration-only", "--metrics gpu__time_duration.sum"),
        ("metrics+source-by-name", f"--metrics {all_metrics},{','.join(wanted_source)}"),
        ("source-by-name-only", f"--metrics {','.join(wanted_source)}"),
        ("metrics+custom-section", f"--metrics {all_metrics} " + custom_section(section_text, wanted_source)),
        ("current-no-rules", f"--metrics {all_metrics} --section SourceCounters --apply-rules no"),
    ]
    if "combos" in PHASES:
        for name, options in combos:
            profile("combo", name, options, keep_source=name in ("current", "metrics+source-by-name"))
    if "wall" in PHASES:
        for name, options in combos[:4]:
            profile("wall-8192", name, options, n=8192, only_tiled=False)
    if "singles" in PHASES:
        for metric in METRICS:
            profile("single", metric, f"--metrics {metric}")
        for metric in source_metrics:
            profile("single-source", metric, f"--metrics {metric}")
    if "leave-1" in PHASES:
        for metric in METRICS:
            rest = ",".join(m for m in METRICS if m != metric)
            profile("leave-1", metric, f"--metrics {rest} --section SourceCounters")
    if "subsets" in PHASES:
        # Fewest dropped first, so that a cut-off budget loses the big drops.
        for size in range(1, len(OPTIONAL) + 1):
            for dropped in itertools.combinations(OPTIONAL, size):
                rest = ",".join(m for m in METRICS if m not in dropped)
                name = "-".join(str(OPTIONAL.index(d)) for d in dropped)
                profile("drop", name, f"--metrics {rest} --section SourceCounters")

    rows = list(csv.reader(open(TSV), delimiter="\t"))[1:]
    print(f"\n{'kind':<10} {'name':<52} {'rc':>3} {'passes':>6} {'wall s':>7}")
    for kind, name, rc, passes, wall, error in rows:
        print(f"{kind:<10} {name[:52]:<52} {rc:>3} {passes:>6} {wall:>7}  {error[:40]}")
    print(f"{len(rows)} runs in {time.time() - START:.0f} s")


main()
