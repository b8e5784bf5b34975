#!/usr/bin/env bash
# The report screenshots, docs/report-SUITE.png: for each suite, a release
# build's `gpuprof render` of a copy of examples/SUITE/results.json (in a
# temporary folder, so the example's own report is left alone), taken by
# headless Chromium at 1280×2000 (the top of the page). SUITE--ANCHOR
# (docs/report-SUITE--ANCHOR.png) shows the section with that id instead,
# 1280×1400 from its heading. The suites are those given, or else
# transpose and every other one README.md shows as
# docs/report-SUITE.png (names that are no suite, such as the PDF's page,
# are left out). GPUPROF_CHROMIUM names the browser (default
# /usr/bin/chromium), as for tests/browser.rs.
# usage: scripts/screenshots.sh [SUITE[--ANCHOR]...]
set -euo pipefail
cd "$(dirname "$0")/.."
browser=${GPUPROF_CHROMIUM:-/usr/bin/chromium}
if [ $# -gt 0 ]; then
    suites=("$@")
else
    mapfile -t suites < <(
        { echo transpose; grep -o 'docs/report-[A-Za-z0-9_-]*\.png' README.md |
            sed 's|^docs/report-||; s|\.png$||'; } | awk '!seen[$0]++' |
            while read -r name; do [ -d "examples/${name%%--*}" ] && echo "$name"; done
    )
fi

cargo build --release --quiet
gpuprof=${CARGO_TARGET_DIR:-target}/release/gpuprof
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for shot_name in "${suites[@]}"; do
    suite=${shot_name%%--*}
    mkdir -p "$work/$suite"
    cp "examples/$suite/results.json" "$work/$suite/"
    "$gpuprof" render "$work/$suite/results.json" > /dev/null
    shot=$PWD/docs/report-$shot_name.png
    page="file://$work/$suite/report.html" size=1280,2000
    if [ "$shot_name" != "$suite" ]; then
        # A frame scrolled to the section: Chromium's screenshot of the
        # page itself ignores the fragment.
        printf '<html><body style="margin:0"><iframe src="report.html#%s" style="border:0;width:1280px;height:1400px"></iframe></body></html>' \
            "${shot_name#*--}" > "$work/$suite/section.html"
        page="file://$work/$suite/section.html" size=1280,1400
    fi
    if ! "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --allow-file-access-from-files --virtual-time-budget=3000 \
        --user-data-dir="$work/$shot_name-profile" --hide-scrollbars --window-size=$size \
        --screenshot="$shot" "$page" 2> "$work/$shot_name-chromium.log"; then
        cat "$work/$shot_name-chromium.log" >&2
        exit 1
    fi
    echo "$shot"
done
