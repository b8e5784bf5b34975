#!/usr/bin/env bash
# The build's cost, measured without a GPU: `gpuprof report --check` (which
# compiles every variant at every size as a run's build stage does, then
# prints the plan) of each suite, by an older gpuprof and by this one, each
# with an empty build cache of its own, REPEAT times (default 3) in turn;
# prints the median seconds of each and their ratio.
# usage: scripts/bench-build.sh OLD_GPUPROF NEW_GPUPROF SUITE_FOLDER...
set -u
old=${1:?usage: bench-build.sh OLD_GPUPROF NEW_GPUPROF SUITE_FOLDER...}
new=${2:?usage: bench-build.sh OLD_GPUPROF NEW_GPUPROF SUITE_FOLDER...}
shift 2
repeat=${REPEAT:-3}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
seconds() {
    local cache=$scratch/cache-$RANDOM$RANDOM
    local t0 t1
    t0=$(date +%s.%N)
    XDG_CACHE_HOME=$cache "$1" report "$2/variants.toml" --check > "$scratch/check.log" 2>&1 \
        || { echo "failed: $1 report $2/variants.toml --check" >&2; cat "$scratch/check.log" >&2; exit 1; }
    t1=$(date +%s.%N)
    rm -rf "$cache"
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }'
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
printf '%-28s %8s %8s %8s %7s  %s\n' suite variants 'old s' 'new s' 'old/new' 'built with others (new)'
for suite in "$@"; do
    olds="" news=""
    for _ in $(seq "$repeat"); do
        olds="$olds $(seconds "$old" "$suite")"
        news="$news $(seconds "$new" "$suite")"
    done
    o=$(echo "$olds" | median) n=$(echo "$news" | median)
    variants=$(grep -c '^\[\[variant\]\]' "$suite/variants.toml")
    runs=$(grep -c 'one compiler run with' "$scratch/check.log")
    printf '%-28s %8s %8s %8s %7.2f  %s\n' \
        "$(basename "$suite")" "$variants" "$o" "$n" "$(awk -v a="$o" -v b="$n" 'BEGIN { print a / b }')" "$runs"
done
