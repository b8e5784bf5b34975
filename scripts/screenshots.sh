#!/usr/bin/env bash
# The report screenshots, docs/report-SUITE.png: for each suite, a release
# build's `gpuprof render` of a copy of examples/SUITE/results.json (in a
# temporary folder, so the example's own report is left alone), taken by
# headless Chromium at 1280×2000. The suites are those given, or else
# transpose, matmul and every other one README.md shows as
# docs/report-SUITE.png. GPUPROF_CHROMIUM names the browser (default
# /usr/bin/chromium), as for tests/browser.rs.
# usage: scripts/screenshots.sh [SUITE...]
set -euo pipefail
cd "$(dirname "$0")/.."
browser=${GPUPROF_CHROMIUM:-/usr/bin/chromium}
if [ $# -gt 0 ]; then
    suites=("$@")
else
    mapfile -t suites < <(
        { echo transpose; echo matmul; grep -o 'docs/report-[A-Za-z0-9_-]*\.png' README.md |
            sed 's|^docs/report-||; s|\.png$||'; } | awk '!seen[$0]++'
    )
fi

cargo build --release --quiet
gpuprof=${CARGO_TARGET_DIR:-target}/release/gpuprof
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for suite in "${suites[@]}"; do
    mkdir "$work/$suite"
    cp "examples/$suite/results.json" "$work/$suite/"
    "$gpuprof" render "$work/$suite/results.json" > /dev/null
    shot=$PWD/docs/report-$suite.png
    if ! "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$work/$suite-profile" --hide-scrollbars --window-size=1280,2000 \
        --screenshot="$shot" "file://$work/$suite/report.html" 2> "$work/$suite-chromium.log"; then
        cat "$work/$suite-chromium.log" >&2
        exit 1
    fi
    echo "$shot"
done
