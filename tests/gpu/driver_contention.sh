#!/bin/bash
# driver_contention.sh OUTDIR: P copies of driver_contention at once (P = 1,
# 16, 32), all on GPU 0 or alternating over GPUs 0 and 1; per copy its
# context, pinned-buffer and allocation times, and the wall time of the
# whole wave, each wave run 3 times. Needs nvcc and (for "two") two GPUs.
set -u
out=$1; mkdir -p "$out"
bin=$out/driver_contention
nvcc -O2 -o "$bin" "$(dirname "$0")/driver_contention.cu" || exit 1
wave() {	# P SPREAD(one|two) ROUND
	local p=$1 spread=$2 r=$3 a b
	a=$(date +%s.%N)
	for ((i = 0; i < p; i++)); do
		local g=0; [ "$spread" = two ] && g=$((i % 2))
		CUDA_VISIBLE_DEVICES=$g timeout 120 "$bin" >"$out/w-$p-$spread-$r-$i.txt" 2>&1 &
	done
	wait; b=$(date +%s.%N)
	cat "$out"/w-$p-$spread-$r-*.txt | awk -v p=$p -v s=$spread -v w=$(python3 -c "print(round($b-$a,2))") \
		'{i+=$1; h+=$2; m+=$3; t+=$4; n++} END {printf "%-3s %2d copies: wave %6.2f s; a copy: context %7.1f ms, pinned %6.1f ms, 4 x 1 GiB %7.1f ms, all %7.1f ms (mean of %d)\n", s, p, w, i/n, h/n, m/n, t/n, n}'
	rm -f "$out"/w-$p-$spread-$r-*.txt
}
for p in 1 16 32; do for r in 1 2 3; do wave $p one $r; wave $p two $r; done; done
