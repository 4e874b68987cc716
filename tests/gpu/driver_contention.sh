#!/bin/bash
# driver_contention.sh OUTDIR [mps|connections]: P copies of
# driver_contention at once (P = 1, 16, 32), all on GPU 0 or alternating
# over GPUs 0 and 1; per copy its driver start, context, pinned-buffer,
# allocation and release times, and the wall time of the whole wave, each
# wave run 3 times. With "mps", the same under the CUDA Multi-Process
# Service (a control daemon of this user's, started and stopped here).
# With "connections", P = 1 and 16 with CUDA_DEVICE_MAX_CONNECTIONS at 8
# (the driver's default), 2 and 1: each connection is a hardware work queue
# the context sets up. With "teardown", P = 16 and 32 on GPU 0, each copy
# releasing its context or leaving it to _exit() ("exit"), interleaved.
# Needs nvcc and (for "two") two GPUs.
set -u
out=$1; mkdir -p "$out"
bin=$out/driver_contention
nvcc -O2 -o "$bin" "$(dirname "$0")/driver_contention.cu" -lcuda || exit 1
wave() {	# P SPREAD(one|two) ROUND [MODE]
	local p=$1 spread=$2 r=$3 mode=${4:-} a b
	a=$(date +%s.%N)
	for ((i = 0; i < p; i++)); do
		local g=0; [ "$spread" = two ] && g=$((i % 2))
		CUDA_VISIBLE_DEVICES=$g timeout 120 "$bin" $mode >"$out/w-$p-$spread-$r-$i.txt" 2>&1 &
	done
	wait; b=$(date +%s.%N)
	cat "$out"/w-$p-$spread-$r-*.txt | awk -v p=$p -v s=$spread -v w=$(python3 -c "print(round($b-$a,2))") \
		-v conn="${CUDA_DEVICE_MAX_CONNECTIONS:-}" -v mode="$mode" '{i+=$1; c+=$2; h+=$3; m+=$4; r+=$5; t+=$6; n++} END {if (conn != "") printf "connections %s: ", conn; if (mode != "") printf "%s: ", mode; printf "%-3s %2d copies: wave %6.2f s; a copy: cuInit %6.1f ms, context %7.1f ms, pinned %6.1f ms, 4 x 1 GiB %6.1f ms, release %6.1f ms, all %7.1f ms (mean of %d)\n", s, p, w, i/n, c/n, h/n, m/n, r/n, t/n, n}'
	rm -f "$out"/w-$p-$spread-$r-*.txt
}
if [ "${2:-}" = mps ]; then
	export CUDA_MPS_PIPE_DIRECTORY=$out/mps-pipe CUDA_MPS_LOG_DIRECTORY=$out/mps-log
	mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
	nvidia-cuda-mps-control -d || exit 1
	trap 'echo quit | nvidia-cuda-mps-control' EXIT
	CUDA_VISIBLE_DEVICES=0 "$bin" >/dev/null	# the server's own start, not counted
fi
if [ "${2:-}" = connections ]; then
	for c in 8 2 1; do for p in 1 16; do for r in 1 2 3; do
		(export CUDA_DEVICE_MAX_CONNECTIONS=$c; wave $p one $r; wave $p two $r)
	done; done; done
	exit 0
fi
if [ "${2:-}" = teardown ]; then
	for p in 16 32; do for r in 1 2 3; do wave $p one $r; wave $p one $r exit; done; done
	exit 0
fi
for p in 1 16 32; do for r in 1 2 3; do wave $p one $r; wave $p two $r; done; done
