#!/usr/bin/env bash
# The Slurm recipe of the README, run for real on a one-node cluster on
# this machine, with the stand-ins for the harness and ncu (no GPU): starts
# munge, slurmctld and slurmd from a configuration of its own (installing
# Debian's Slurm and munge when they are missing), submits the transpose
# example as a job array of two shards (`--shard auto`), then a merge job
# that waits for the array (`--dependency=afterok`), and checks that the
# merged results equal a single-process run's: the same sizes, samples,
# checks and counters. The jobs ask for no `--gres=gpu:1`: this machine has
# no GPU. Stops the daemons it started. Needs root (the daemons).
# usage: scripts/slurm-test.sh GPUPROF_BINARY; prints a table last.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "${1:?usage: slurm-test.sh GPUPROF_BINARY}")
root=$PWD
if ! command -v sbatch > /dev/null || ! command -v slurmctld > /dev/null || ! command -v munged > /dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        slurmctld slurmd slurm-client munge > /dev/null
fi
work=$(mktemp -d /tmp/gpuprof-slurm.XXXXXX)
mkdir -p "$work/state" "$work/spool" "$work/log"
started=()
stop() {
    for pidfile in "${started[@]}"; do
        [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2> /dev/null || true
    done
}
trap stop EXIT

# munge: a key, and the daemon unless one runs.
if ! munge -n > /dev/null 2>&1 || ! munge -n | unmunge > /dev/null 2>&1; then
    [ -f /etc/munge/munge.key ] || mungekey --create
    mkdir -p /run/munge && chown munge:munge /run/munge
    runuser -u munge -- munged
    started+=(/run/munge/munged.pid)
fi

node=$(hostname -s)
cat > "$work/slurm.conf" << EOF
ClusterName=gpuprof-ci
SlurmctldHost=$node
SlurmctldPort=$((20000 + RANDOM % 20000))
SlurmdPort=$((40000 + RANDOM % 20000))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
NodeName=$node CPUs=$(nproc) State=UNKNOWN
PartitionName=ci Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$work/slurm.conf
slurmctld -c
started+=("$work/slurmctld.pid")
slurmd
started+=("$work/slurmd.pid")
for _ in $(seq 1 30); do
    sinfo -h -o %t 2> /dev/null | grep -q idle && break
    sleep 1
done
sinfo -h -o %t | grep -q idle || { cat "$work/log/"*.log; echo "slurm did not come up" >&2; exit 1; }

# The stand-ins replay the H200 run of the transpose example.
export GPUPROF_HARNESS=$root/tests/standin/harness
export GPUPROF_REPLAY=$root/tests/fixtures/h200-transpose
export XDG_CACHE_HOME=$work/cache
# Each shard runs one size and takes the per-line counters there, so the
# suite asks for them at every size (the recording has them there).
suite=$work/variants.toml
sed "s#\"../../kernels/#\"$root/kernels/#" "$root/examples/transpose/variants.toml" > "$suite"
printf '\n[profile]\nlines_at = "every"\n' >> "$suite"
ncu=$root/tests/standin/ncu
"$bin" report "$suite" --ncu "$ncu" --timeout 30 -o "$work/single" > "$work/single.log" 2>&1

# The README's recipe: one shard per array task, then the merge after all.
array=$(sbatch --parsable --array=1-2 --export=ALL -o "$work/shard-%a.log" \
    --wrap "$bin report $suite --shard auto --ncu $ncu --timeout 30 -o $work/shard-\$SLURM_ARRAY_TASK_ID")
sbatch --parsable --wait --dependency="afterok:$array" --export=ALL -o "$work/merge.log" \
    --wrap "$bin merge $work/shard-1 $work/shard-2 -o $work/merged" > /dev/null || {
    cat "$work"/shard-*.log "$work/merge.log" "$work/log/slurmctld.log" >&2
    exit 1
}

python3 - "$work" << 'PY'
import json, sys
work = sys.argv[1]
single = json.load(open(f"{work}/single/results.json"))
merged = json.load(open(f"{work}/merged/results.json"))
def runs(results):
    return {
        (v["name"], r["size"]): (
            r["samples_ms"],
            r.get("check"),
            (r.get("profile") or {}).get("metrics"),
            (r.get("profile") or {}).get("source_lines"),
        )
        for v in results["variants"]
        for r in v["runs"]
    }
a, b = runs(single), runs(merged)
shards = [(o["index"], o["sizes"], o.get("host")) for o in merged.get("merged_from", [])]
print(f"{'variant':<8} {'size':<8} {'samples':>7}  equal")
same = set(a) == set(b)
for key in sorted(a):
    equal = key in b and a[key] == b[key]
    same &= equal
    print(f"{key[0]:<8} {key[1]:<8} {len(a[key][0]):>7}  {'yes' if equal else 'NO'}")
print(f"shards merged: {shards}")
print("merged report equals the single-process one" if same else "MISMATCH between the merged and the single-process results")
sys.exit(0 if same else 1)
PY
