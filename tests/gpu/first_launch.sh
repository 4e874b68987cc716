#!/bin/bash
# first_launch.sh OUTDIR: P copies of first_launch at once (P = 1, 16, 32),
# with CUDA_MODULE_LOADING=LAZY and =EAGER in turn, 3 rounds each; per wave
# the copies' mean and largest context, first-launch and pinning times.
# Needs nvcc.
set -u
out=$1; mkdir -p "$out"
bin=$out/first_launch
arch=sm_$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')
nvcc -O2 -arch="$arch" -o "$bin" "$(dirname "$0")/first_launch.cu" || exit 1
for r in 1 2 3; do
	for mode in LAZY EAGER; do
		for p in 1 16 32; do
			for ((i = 0; i < p; i++)); do
				CUDA_MODULE_LOADING=$mode timeout 120 "$bin" >"$out/w-$i.txt" 2>&1 &
			done
			wait
			cat "$out"/w-*.txt | awk -v m=$mode -v p=$p -v r=$r '
				NF == 4 { c += $1; f += $2; s += $3; h += $4; n++
					  if ($1 > cm) cm = $1; if ($2 > fm) fm = $2; if ($4 > hm) hm = $4 }
				END { printf "round %d %-5s %2d copies: context %7.1f ms (largest %7.1f), first launch %7.1f ms (largest %7.1f), second %5.2f ms, 2 x 16 MiB pinned %7.1f ms (largest %7.1f); %d of %d ran\n", r, m, p, c / n, cm, f / n, fm, s / n, h / n, hm, n, p }'
			rm -f "$out"/w-*.txt
		done
	done
done
