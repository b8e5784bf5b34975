#!/usr/bin/env bash
# gpuprof's trimmed source section (src/ncu/source-counters.section: only
# the SourceCounters columns gpuprof reads) against ncu's stock
# SourceCounters section, on the device machine with a release binary
# built elsewhere and $BASELINE, a gpuprof that takes the stock section:
#   1. the lines run of this binary's transpose report run again over its
#      job, alternately with the trimmed section and with the stock one
#      (3 times each): seconds, replay passes, and the source pages' read
#      columns compared row by row (instructions, shared wavefronts and
#      global sectors with their ideals, address space and access
#      operation must be equal; stall samples are sampled);
#   2. whole reports of SUITES (default: transpose reduction matmul), the
#      baseline's and this binary's in turn: their lines runs' seconds,
#      and every per-line counter of results.json compared (the same
#      columns).
# Every ncu run uses --clock-control none. Prints the tables last.
# usage: BASELINE=BIN [SUITES=..] scripts/gpu-source-section.sh OUTDIR
source "$(dirname "$0")/device-setup.sh"
: "${BASELINE:?name a gpuprof that takes the stock section in BASELINE}"
suites=${SUITES:-transpose reduction matmul}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }
: > "$out/whole.txt"
for suite in $suites; do
    for who in baseline gpuprof; do
        program=$bin
        [ "$who" = baseline ] && program=$BASELINE
        dir=$runs/$suite-$who
        t0=$(now)
        XDG_CACHE_HOME=$dir-cache "$program" report "examples/$suite/variants.toml" -o "$dir" > "$dir.log" 2>&1
        echo "$suite $who $(since "$t0") $(grep -o 'took .*' "$dir.log" | tr -s ' ')" | tee -a "$out/whole.txt"
    done
done
echo "== the lines run alone (transpose, this binary's command)"
dir=$runs/transpose-gpuprof
command=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["profiler"]["lines_run"]["command"])' "$dir/results.json")
echo "$command" | grep -o -- '--section-folder [^ ]* --section [^ ]*'
: > "$out/section.txt"
for round in 1 2 3; do
    for section in trimmed stock; do
        line=${command/ -o $dir\/profile-lines / -o $runs/section-$section }
        [ "$section" = stock ] && line=$(echo "$line" | sed 's/--section-folder [^ ]* --section GpuprofSourceCounters/--section SourceCounters/')
        t0=$(now)
        eval "$line" > /dev/null 2>&1
        rc=$?
        echo "$section $round $(since "$t0") rc=$rc" | tee -a "$out/section.txt"
    done
done
for section in trimmed stock; do
    ncu --import "$runs/section-$section.ncu-rep" --csv --page raw --print-units base \
        --metrics profiler__replayer_passes,gpu__time_duration.sum > "$runs/section-$section-raw.csv"
    ncu --import "$runs/section-$section.ncu-rep" --csv --page source --print-source sass,cuda \
        > "$out/section-$section-source.csv"
done
tar czf "$out/results.tgz" -C "$runs" $(cd "$runs" && ls -d */results.json 2> /dev/null) section-trimmed-raw.csv section-stock-raw.csv
python3 - "$runs" "$out" $suites <<'PY' | tee "$out/summary.txt"
import csv, io, json, os, statistics, sys
runs, out, suites = sys.argv[1], sys.argv[2], sys.argv[3:]
EXACT = ["Instructions Executed", "L1 Wavefronts Shared", "L1 Wavefronts Shared Ideal",
         "L2 Theoretical Sectors Global", "L2 Theoretical Sectors Global Ideal",
         "Address Space", "Access Operation"]
def blocks(path):
    """Per (file, function): the header and rows of the source page."""
    found, key, header = {}, None, None
    for row in csv.reader(open(path)):
        if not row:
            continue
        if row[0] in ("File Path", "File Name"):
            key = [row[1]]
        elif row[0] == "Function Name":
            key = (key[0], row[1]); header = None
        elif row[0] == "Line No":
            header = row; found[key] = (header, [])
        elif header is not None:
            found[key][1].append(row)
    return found
print("== whole reports")
for line in open(os.path.join(out, "whole.txt")):
    print(line.rstrip())
print("== lines runs' seconds in the whole reports (baseline: stock section; gpuprof: trimmed)")
for suite in suites:
    def lines_s(who):
        p = json.load(open(f"{runs}/{suite}-{who}/results.json"))["profiler"]
        return (p.get("lines_run") or {}).get("seconds"), p.get("lines_at")
    (b, at), (n, _) = lines_s("baseline"), lines_s("gpuprof")
    print(f"{suite:<10} lines at {at}: stock {b:.2f} s, trimmed {n:.2f} s" if b and n else f"{suite}: no lines run")
print("== per-line counters in results.json, baseline against gpuprof")
for suite in suites:
    def lines(who):
        r = json.load(open(f"{runs}/{suite}-{who}/results.json"))
        return {(v["name"], run["size"]): run["profile"]["source_lines"] for v in r["variants"] for run in v["runs"]
                if run.get("profile") and run["profile"].get("source_lines")}
    base, new = lines("baseline"), lines("gpuprof")
    fields = ["instructions_executed", "shared_wavefronts", "shared_wavefronts_ideal", "global_sectors",
              "global_sectors_ideal", "access_operation", "address_space"]
    compared = differ = 0
    examples = []
    for key in base:
        if key not in new:
            examples.append(f"{key} missing"); differ += 1; continue
        b = {l["line"]: l for l in base[key]}; n = {l["line"]: l for l in new[key]}
        if set(b) != set(n):
            examples.append(f"{key} lines {sorted(set(b) ^ set(n))[:5]}"); differ += 1
        for line in set(b) & set(n):
            for f in fields:
                compared += 1
                if b[line].get(f) != n[line].get(f):
                    differ += 1; examples.append(f"{key} line {line} {f} {b[line].get(f)} vs {n[line].get(f)}")
    print(f"{suite:<10} runs with lines {len(base)}/{len(new)}, values compared {compared}, differing {differ} {examples[:4]}")
print("== the lines run alone (seconds, transpose's 4 launches)")
rows = [l.split() for l in open(os.path.join(out, "section.txt"))]
for section in ["trimmed", "stock"]:
    t = [float(r[2]) for r in rows if r[0] == section]
    print(f"{section:<8} {' '.join(f'{x:.2f}' for x in t)} (median {statistics.median(t):.2f}) {set(r[3] for r in rows if r[0] == section)}")
for section in ["trimmed", "stock"]:
    raw = list(csv.DictReader(open(f"{runs}/section-{section}-raw.csv")))[1:]
    print(f"{section:<8} passes {[r['profiler__replayer_passes'] for r in raw]}")
trimmed, stock = blocks(f"{out}/section-trimmed-source.csv"), blocks(f"{out}/section-stock-source.csv")
print(f"source blocks: trimmed {len(trimmed)}, stock {len(stock)}; trimmed columns: {len(next(iter(trimmed.values()))[0]) if trimmed else 0}, stock: {len(next(iter(stock.values()))[0]) if stock else 0}")
compared = differ = 0
notes = []
for key, (header, rows_s) in stock.items():
    if key not in trimmed:
        notes.append(f"{key} missing"); continue
    header_t, rows_t = trimmed[key]
    if len(rows_s) != len(rows_t):
        notes.append(f"{key} rows {len(rows_s)} vs {len(rows_t)}"); continue
    for column in EXACT:
        if column not in header:
            continue
        if column not in header_t:
            notes.append(f"{column} missing from the trimmed page"); differ += 1; continue
        # From the end: a source text with quotes splits into more fields.
        a, b = header.index(column) - len(header), header_t.index(column) - len(header_t)
        for rs, rt in zip(rows_s, rows_t):
            compared += 1
            if rs[a] != rt[b]:
                differ += 1
print(f"source pages: values compared {compared}, differing {differ} {notes[:4]}")
PY
echo "== summary"
cat "$out/summary.txt"
