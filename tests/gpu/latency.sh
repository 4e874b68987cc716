#!/bin/bash
# The latencies of lab 4's section 4 on this GPU (tests/gpu/latency.cu):
# dependent FP32 FMA in cycles, the warps and occupancy that hide it, and a
# dependent global load from DRAM and from the L2.
#
#   OUT=/tmp/out bash tests/gpu/latency.sh
#
# Writes $OUT/latency/latency.md (the table: its rows, keyed sm_XY_..., go
# into docs/results/latency.md, which the handout's test reads), and the
# machine, build and run logs beside it.
set -u
OUT=${OUT:-build/gpu-evidence}
DIR=$OUT/latency
mkdir -p "$DIR" build/gpu
{ nvidia-smi; nvcc --version; date -u; git rev-parse HEAD 2>/dev/null; } >"$DIR/machine.txt" 2>&1
cc=$(timeout 60 nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d .)
arch=sm_${cc:-90}
if ! timeout 300 nvcc -O3 -arch="$arch" -o build/gpu/latency tests/gpu/latency.cu >"$DIR/build.log" 2>&1; then
	cat "$DIR/build.log"
	echo "latency: build failed" >&2
	exit 1
fi
timeout 300 build/gpu/latency >"$DIR/latency.md" 2>"$DIR/run.err"
rc=$?
cat "$DIR/latency.md"
[ -s "$DIR/run.err" ] && cat "$DIR/run.err" >&2
echo "latency: exit $rc (table: $DIR/latency.md)"
exit $rc
