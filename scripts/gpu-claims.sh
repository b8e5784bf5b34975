#!/usr/bin/env bash
# The claims audit on the device machine, with a release binary built
# elsewhere (target/release/gpuprof): `gpuprof report` on every suite named
# in SUITES (default: the held-out-style Liu Xiandong reduction ladder and
# the bundled transpose), then `gpuprof audit` on each results.json. ncu
# runs with --clock-control none (the suites' default). Each suite's
# results.json, reports and ncu report are packed into OUTDIR/runs.tgz
# (default OUTDIR: $OUT), the log beside it; a table of the chain (speedup,
# what explains each step, what limits it) and the audit's count is
# printed last.
source "$(dirname "$0")/device-setup.sh"
for suite in ${SUITES:-examples/reduce-liu-xiandong examples/transpose}; do
    name=$(basename "$suite")
    echo "== gpuprof report $suite"
    start=$(date +%s.%N)
    "$bin" report "$suite/variants.toml" -o "$runs/$name" --force
    echo "exit $? after $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
    "$bin" audit --json "$runs/$name/results.json" > "$runs/$name/audit.json"
    echo "audit exit $?"
done
(cd "$runs" && tar czf "$out/runs.tgz" --exclude='*/ncu/source-*' --exclude='*/ncu/*job.json' .)
for dir in "$runs"/*/; do
    "$bin" render "$dir/results.json" --dump-view > "$dir/view.json"
done
python3 - "$runs" <<'PY'
import json, pathlib, sys
for suite in sorted(pathlib.Path(sys.argv[1]).iterdir()):
    view = json.loads((suite / "view.json").read_text())
    audit = json.loads((suite / "audit.json").read_text())
    print(f"\n{suite.name}: {audit['checked']} claims audited, {len(audit['unsupported'])} unsupported")
    for claim in audit["unsupported"]:
        print(f"  UNSUPPORTED {claim['variant']} [{claim['rule']}] {claim['claim']}: {claim['why']}")
    for row in view["chain"]:
        print(f"  {row['step'][:24]:24} {row['speedup']['text']:>8}  {row['explanation'][:70]:70}  | {row['limit'][:40]}")
PY
