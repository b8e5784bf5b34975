# Sourced by the scripts that run on the device machine: takes the output
# folder from the first argument or $OUT, puts the CUDA tools on PATH,
# names the release binary built elsewhere ($bin) and a scratch folder
# ($runs), sends everything printed to $out/<script name>.log as well, and
# prints the device, driver, ncu and nvcc versions.
set -u
out=${1:-${OUT:?give an output folder}}
export PATH=/usr/local/cuda/bin:$PATH
bin=$PWD/target/release/gpuprof
runs=$(mktemp -d)
mkdir -p "$out"
exec > >(tee "$out/$(basename "$0" .sh).log") 2>&1
echo "== device"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
ncu --version | tail -1
nvcc --version | tail -2
