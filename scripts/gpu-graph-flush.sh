#!/usr/bin/env bash
# Do kernels under 10 µs still get their CUDA graph with the L2 flush in
# it? On the device machine, with a release binary built elsewhere: SUITES
# (default: tests/gpu/blog-shared-memory tests/gpu/element-types, whose
# kernels take a few µs) reported with --no-profile; prints last, per
# suite, how many runs each timing method took, any reason a graph was
# refused, and each run's cold and hot medians. Outputs land in OUTDIR
# (default $OUT).
source "$(dirname "$0")/device-setup.sh"
for suite in ${SUITES:-tests/gpu/blog-shared-memory tests/gpu/element-types}; do
    name=$(basename "$suite")
    "$bin" report "$suite/variants.toml" --no-profile -o "$runs/$name" --timeout 120 > "$runs/$name.log" 2>&1
    echo "== $name: exit $?"
    cp "$runs/$name/results.json" "$out/$name-results.json"
done
python3 - "$out" <<'PY'
import collections, glob, json, statistics, sys
for path in sorted(glob.glob(f"{sys.argv[1]}/*-results.json")):
    results = json.load(open(path))
    methods, refused, rows = collections.Counter(), set(), []
    for variant in results["variants"]:
        for run in variant["runs"]:
            timing = run.get("timing")
            if not timing:
                continue
            method = timing["method"]
            methods[method["kind"]] += 1
            if method.get("graph_refused"):
                refused.add(method["graph_refused"])
            cold = statistics.median(run["cold_samples_ms"]) * 1000 if run.get("cold_samples_ms") else float("nan")
            hot = statistics.median(run["samples_ms"]) * 1000 if run.get("samples_ms") else float("nan")
            rows.append(f"  {variant['name'][:28]:<28} {run['size']:<12} {method['kind']:<7} cold {cold:8.2f} µs  hot {hot:8.2f} µs")
    print(path.rsplit("/", 1)[1], dict(methods), "refused:", sorted(refused) or "none")
    print("\n".join(rows))
PY
