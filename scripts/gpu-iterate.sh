#!/usr/bin/env bash
# How an engineer iterates, on the device machine with a release binary
# built elsewhere: `gpuprof report` on a suite (SUITE, default
# examples/transpose) with --format json, the same suite again with --force
# into the same folder (it ends with what changed since the first run),
# `gpuprof diff` of the two results, `gpuprof compare` of the first run's
# own .ncu-rep (its launches grouped into variants and sizes) as CSV, and
# `gpuprof audit`. The runs are packed into OUTDIR/iterate.tgz; a short
# table is printed last.
source "$(dirname "$0")/device-setup.sh"
suite=${SUITE:-examples/transpose}
first=$runs/first
echo "== report --format json"
"$bin" report "$suite/variants.toml" -o "$first" --format json > "$runs/first.json" 2> "$runs/first.err"
echo "exit $?"
cat "$runs/first.err"
cp "$first/results.json" "$runs/first-results.json"
echo "== report --force into the same folder"
"$bin" report "$suite/variants.toml" -o "$first" --force > "$runs/second.out" 2> "$runs/second.err"
echo "exit $?"
cat "$runs/second.out" "$runs/second.err"
echo "== diff"
"$bin" diff "$runs/first-results.json" "$first/results.json"
echo "== compare the first run's report, as CSV"
"$bin" compare "$first/profile.ncu-rep" -o "$runs/compare" --format csv > "$runs/compare.csv"
echo "exit $?"
cat "$runs/compare.csv"
echo "== the source page of every launch in one export (for the export-once work)"
start=$(date +%s.%N)
ncu --import "$first/profile.ncu-rep" --csv --page source --print-source sass,cuda > "$out/source-all.csv" 2> "$out/source-all.err"
echo "exit $? after $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s, $(wc -c < "$out/source-all.csv") bytes"
grep -n '^"File Path"\|^"Function Name"\|^"Kernel Name"\|^==' "$out/source-all.csv" | head -20
echo "== audit"
"$bin" audit "$first/results.json"
"$bin" audit "$runs/compare/results.json"
(cd "$runs" && tar czf "$out/iterate.tgz" --exclude='*/ncu/source-*' --exclude='*/ncu/*job.json' .)
python3 - "$runs" <<'PY'
import json, sys
runs = sys.argv[1]
first = json.load(open(f"{runs}/first.json"))
print(f"\nanalysis on stdout: schema {first['schema']} v{first['version']}, {len(first['variants'])} variants")
for line in open(f"{runs}/second.err"):
    if line.startswith(("since the previous run", "took ")):
        print(line.rstrip())
rows = open(f"{runs}/compare.csv").read().splitlines()
print(f"compare of the .ncu-rep: {len(rows) - 1} rows (variant x size)")
PY
