#!/usr/bin/env bash
# --gpus and shards for real, on a device machine with two GPUs or more
# (nvidia-h200-x2), with a release binary built elsewhere. For the matmul
# suite and the sweep suite (tests/gpu/sweep-matmul), in one call:
#   one     `gpuprof report SUITE` on GPU 0 alone (CUDA_VISIBLE_DEVICES=0);
#   gpus    `gpuprof report SUITE --gpus 0,1`: a shard per GPU, merged;
#   shards  `--shard 1/2` on GPU 0 and `--shard 2/2` on GPU 1 as two
#           processes at once, then `gpuprof merge`.
# It prints last, per suite and way: the wall time, the profile stage (the
# slowest shard's, from the "took" line each gpuprof prints; the target
# is 1.7× faster on two GPUs), and against the one-GPU run: the same
# launches profiled, exact counters (sectors, requests, instructions,
# wavefronts, bank conflicts) equal, the largest relative difference of
# the sampled ones (throughputs, hit rates, durations), the same finding
# kinds, limiters and change verdicts; and whether each size's timings
# came from one GPU, named by its UUID. Everything lands in OUTDIR (default
# $OUT) as multi.tgz. ncu runs with the suites' --clock-control none.
source "$(dirname "$0")/device-setup.sh"
count=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
if [ "$count" -lt 2 ]; then
    echo "this machine has $count GPU(s); gpu-multi.sh needs two"
    exit 2
fi
nvidia-smi --query-gpu=index,name,uuid --format=csv,noheader
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
: > "$runs/walls.txt"
for suite in examples/matmul/variants.toml tests/gpu/sweep-matmul/variants.toml; do
    name=$(basename "$(dirname "$suite")")
    echo "== $name on GPU 0 alone"
    start=$(now)
    CUDA_VISIBLE_DEVICES=0 "$bin" report "$suite" -o "$runs/$name-one" > "$runs/$name-one.log" 2>&1
    echo "$name one $? $(since "$start")" | tee -a "$runs/walls.txt"
    echo "== $name with --gpus 0,1"
    start=$(now)
    "$bin" report "$suite" --gpus 0,1 -o "$runs/$name-gpus" > "$runs/$name-gpus.log" 2>&1
    echo "$name gpus $? $(since "$start")" | tee -a "$runs/walls.txt"
    echo "== $name as two shards, then merge"
    start=$(now)
    CUDA_VISIBLE_DEVICES=0 "$bin" report "$suite" --shard 1/2 -o "$runs/$name-s1" > "$runs/$name-s1.log" 2>&1 &
    CUDA_VISIBLE_DEVICES=1 "$bin" report "$suite" --shard 2/2 -o "$runs/$name-s2" > "$runs/$name-s2.log" 2>&1 &
    wait
    "$bin" merge "$runs/$name-s1" "$runs/$name-s2" -o "$runs/$name-shards" > "$runs/$name-merge.log" 2>&1
    echo "$name shards $? $(since "$start")" | tee -a "$runs/walls.txt"
done
(cd "$runs" && tar czf "$out/multi.tgz" --exclude='*.ncu-rep' --exclude='*/ncu/*' --exclude='*/charts/*' .)
python3 "$(dirname "$0")/compare-multi.py" "$runs"
