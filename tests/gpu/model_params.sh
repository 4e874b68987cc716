#!/bin/bash
# Measure the performance model's parameters on this GPU (docs/model.md).
# Builds tests/gpu/model_params.cu, runs it, keeps a key=value table and the log:
#
#   OUT=/tmp/out bash tests/gpu/model_params.sh [quick]
#
# Writes $OUT/model-params/<gpu name>.txt (the table) and build/run logs beside it.
set -u
OUT=${OUT:-build/gpu-evidence}
DIR=$OUT/model-params
mkdir -p "$DIR" build/gpu
{ nvidia-smi; nvcc --version; date -u; } >"$DIR/machine.txt" 2>&1
cc=$(timeout 60 nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d .)
arch=sm_${cc:-90}
if ! timeout 300 nvcc -O3 -arch="$arch" -o build/gpu/model_params tests/gpu/model_params.cu \
	>"$DIR/build.log" 2>&1; then
	cat "$DIR/build.log"
	echo "model_params: build failed" >&2
	exit 1
fi
timeout 900 build/gpu/model_params "$@" >"$DIR/table.txt" 2>"$DIR/run.err"
rc=$?
name=$(sed -n 's/^device.name=//p' "$DIR/table.txt" | tr ' /' '__')
[ -n "$name" ] && cp "$DIR/table.txt" "$DIR/$name.txt"
cat "$DIR/table.txt"
[ -s "$DIR/run.err" ] && cat "$DIR/run.err" >&2
echo "model_params: exit $rc (table: $DIR/${name:-table}.txt)"
exit $rc
