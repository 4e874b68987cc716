#!/bin/bash
# Candidate reference solutions for lab 3 (transpose) and lab 2 (scan), on a
# GPU machine: each one graded by the kit itself, so that every element of
# every correctness size (the lab's own list: odd, non-square, large) is
# compared with the CPU reference on fresh random data, and timed the kit's
# way (CUDA events after a warm-up, L2 flushed before each run, median of the
# rubric's runs, a device-to-device copy of the same bytes timed interleaved
# in the same process). Shapes timed: the lab's chart plus non-square and odd
# ones, all well over the L2.
#
#   OUT=/tmp/out bash tests/gpu/ref_variants.sh [lab3] [lab3rect] [lab2] [solutions] [cub]
#
# The candidates are tests/gpu/variants/transpose_tile.cu and lab 2's
# reference solution, one copy per setting of their #define knobs (the lists
# below); "solutions"
# grades solutions/ the same way; "cub" times CUB's scan beside a copy
# (tests/gpu/variants/cub_scan.cu), the anchor of lab 2's handout. Each
# candidate is graded twice (two rounds, so run-to-run noise shows). Writes
# $OUT/variants/table.md, the JSON reports, and ptxas's register counts.
set -u
. "$(dirname "$0")/setup.sh"
steps=${*:-lab3 lab2 solutions cub}

# name:TILE:VEC:BLOCK_ROWS:SWIZZLE[:MIN_BLOCKS] (either list may be set in the environment)
LAB3_VARIANTS=${LAB3_VARIANTS:-"t32_scalar_32x8_padded:32:1:8:0 t32_scalar_32x8_swizzled:32:1:8:1
t32_float2_16x8_padded:32:2:8:0 t64_scalar_64x4_padded:64:1:4:0 t64_scalar_64x4_swizzled:64:1:4:1
t64_float2_32x4_padded:64:2:4:0 t64_float2_32x8_padded:64:2:8:0 t64_float2_32x16_padded:64:2:16:0
t64_float2_32x8_swizzled:64:2:8:1 t64_float4_16x8_padded:64:4:8:0 t64_float4_16x16_padded:64:4:16:0"}
# name:TILE_ROWS:TILE_COLS:THREADS:HINT:MIN_BLOCKS (tests/gpu/variants/transpose_rect.cu)
LAB3_RECT_VARIANTS=${LAB3_RECT_VARIANTS:-"r64c64_t256:64:64:256:0:0 r128c64_t256:128:64:256:0:0
r128c32_t256:128:32:256:0:0 r256c32_t256:256:32:256:0:0 r64c64_t256_stream:64:64:256:1:0
r128c32_t256_stream:128:32:256:1:0"}
# name:THREADS:ITEMS (knobs of solutions/lab2-blelloch-scan/scan.cu itself)
LAB2_VARIANTS=${LAB2_VARIANTS:-"s128_i16:128:16 s128_i8:128:8 s256_i8:256:8 s256_i16:256:16
s64_i16:64:16 s128_i32:128:32 s512_i8:512:8"}

say "machine and build"
gpu_setup variants
mkdir -p "$LOG/src"

# bench_rubric LAB SHAPES: the lab's rubric with these timed shapes and a band
# for this GPU (so that no reference solution is timed beside each candidate).
bench_rubric() {
	local ini=$(ls labs/"$1"-*/lab.ini)
	python3 - "$ini" "$2" "$GPU" >"$LOG/$1-bench.ini" <<'EOF'
import sys
ini, shapes, gpu = sys.argv[1:]
out, sec = [], None
for line in open(ini):
    s = line.strip()
    if s.startswith('['):
        sec = s
    if sec and sec.startswith('[gpu'):
        continue
    if sec == '[performance]' and s.startswith('chart_shapes'):
        line = 'chart_shapes = %s\n' % shapes
    out.append(line)
out.append('[gpu "%s"]\nlower_pct = 10\nupper_pct = 90\n' % gpu)
sys.stdout.write(''.join(out))
EOF
}

# candidate LAB NAME FILE: registers, then two graded rounds.
candidate() {
	local lab=$1 name=$2 file=$3
	timeout 300 "$NVCC" -O3 -arch="$ARCH" -std=c++17 -Icommon -c --resource-usage "$file" \
		-o /dev/null >"$LOG/$name.ptxas" 2>&1
	for round in 1 2; do
		local t0=$(date +%s%N)
		timeout 900 ./grade "$lab" --submission "$file" --rubric "$LOG/$lab-bench.ini" \
			--no-analysis --plot none --json "$LOG/$name.r$round.json" >"$LOG/$name.r$round.txt" 2>&1
		echo "$name round $round: exit $? in $((($(date +%s%N) - t0) / 1000000)) ms"
	done
}

# knobs SRC DEST NAME=VALUE...: a copy of SRC with its #define lines set.
knobs() {
	local src=$1 dest=$2
	shift 2
	cp "$src" "$dest"
	for kv in "$@"; do
		sed -i "s/^#define ${kv%%=*} .*/#define ${kv%%=*} ${kv#*=}/" "$dest"
	done
}

for step in $steps; do
	case $step in
	lab3)
		say "lab 3 candidates"
		bench_rubric lab3 "8192x8192 16384x16384 16384x8192 8192x16384 4096x32768 16383x16385 8191x3073"
		for v in $LAB3_VARIANTS; do
			IFS=: read -r name tile vec rows swz minb <<<"$v"
			knobs tests/gpu/variants/transpose_tile.cu "$LOG/src/$name.cu" TILE=$tile VEC=$vec \
				BLOCK_ROWS=$rows SWIZZLE=$swz MIN_BLOCKS=${minb:-0}
			candidate lab3 "lab3-$name" "$LOG/src/$name.cu"
		done
		;;
	lab3rect)
		say "lab 3 candidates, rectangular tiles"
		[ -f "$LOG/lab3-bench.ini" ] || bench_rubric lab3 "8192x8192 16384x16384 16384x8192 8192x16384 4096x32768 16383x16385 8191x3073"
		for v in $LAB3_RECT_VARIANTS; do
			IFS=: read -r name trows tcols threads hint minb <<<"$v"
			knobs tests/gpu/variants/transpose_rect.cu "$LOG/src/$name.cu" TILE_ROWS=$trows \
				TILE_COLS=$tcols THREADS=$threads HINT=$hint MIN_BLOCKS=$minb
			candidate lab3 "lab3-$name" "$LOG/src/$name.cu"
		done
		;;
	lab2)
		say "lab 2 candidates"
		bench_rubric lab2 "2^24 2^26 2^28 2^28+7"
		for v in $LAB2_VARIANTS; do
			IFS=: read -r name threads items <<<"$v"
			knobs solutions/lab2-blelloch-scan/scan.cu "$LOG/src/$name.cu" THREADS=$threads ITEMS=$items
			candidate lab2 "lab2-$name" "$LOG/src/$name.cu"
		done
		;;
	solutions)
		say "solutions/ as committed"
		[ -f "$LOG/lab3-bench.ini" ] || bench_rubric lab3 "8192x8192 16384x16384 16384x8192 8192x16384 4096x32768 16383x16385 8191x3073"
		[ -f "$LOG/lab2-bench.ini" ] || bench_rubric lab2 "2^24 2^26 2^28 2^28+7"
		candidate lab3 lab3-solution solutions/lab3-transpose/transpose.cu
		candidate lab2 lab2-solution solutions/lab2-blelloch-scan/scan.cu
		;;
	cub)
		say "CUB's DeviceScan::ExclusiveSum (not a submission: its own bench)"
		timeout 300 "$NVCC" -O3 -arch="$ARCH" -std=c++17 tests/gpu/variants/cub_scan.cu -o "$LOG/cub-scan" &&
			for round in 1 2; do timeout 300 "$LOG/cub-scan" 28 30; done | tee "$LOG/cub.txt"
		;;
	*) echo "unknown step $step (lab3 lab3rect lab2 solutions cub)"; exit 2 ;;
	esac
done

say "table"
python3 tests/gpu/ref_variants_table.py "$LOG" | tee "$LOG/table.md"
