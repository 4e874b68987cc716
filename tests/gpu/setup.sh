# Sourced by the GPU scripts (breakdown.sh, ref_variants.sh, bands.sh).
#
# gpu_setup NAME: $LOG becomes $OUT/NAME (absolute; OUT defaults to
# build/NAME), the environment the kit builds in is exported, the machine is
# described in $LOG/machine.txt and the kit built (the script stops if it
# does not build). Sets NVCC, ARCH (sm_XY of GPU 0) and GPU (its name).
# say WORDS: a step's heading, with the time.
say() { printf '\n=== %s  [%s]\n' "$*" "$(date -u +%H:%M:%S)"; }

gpu_setup() {
	OUT=${OUT:-build/$1}
	LOG=$OUT/$1
	mkdir -p "$LOG"
	LOG=$(cd "$LOG" && pwd)
	export DEPS_PREFIX=${DEPS_PREFIX:-.deps} KIT_NO_INSTALL=1 NO_COLOR=1
	{ nvidia-smi; nvcc --version; uname -a; nproc; date -u; git log --oneline -1; } >"$LOG/machine.txt" 2>&1
	head -15 "$LOG/machine.txt"
	timeout 900 make -j"$(nproc)" all DEPS_PREFIX="$DEPS_PREFIX" >"$LOG/build.log" 2>&1 ||
		{ tail -30 "$LOG/build.log"; echo "BUILD FAILED"; exit 1; }
	NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
	[ -x "$NVCC" ] || NVCC=$(command -v nvcc)
	ARCH=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')
	GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
}
