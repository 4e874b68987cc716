#!/bin/bash
# Where one grade's wall time goes, on a GPU machine, for
# `./grade labN --solution --plot none` on the kit as it is.
#
#   OUT=/tmp/out bash tests/gpu/breakdown.sh [lab1 lab2 lab3 lab4]
#
# Per lab it costs about three grades' time (two whole grades and a replay).
#
# Measured from outside, so that it runs on any version of the kit unchanged:
#  1. whole grades, timed: twice as students run them (with
#     BREAKDOWN_VARIANTS=1 also without bubblewrap and without the emulator's
#     analysis);
#  2. the same grade replayed step by step with the programs the grader runs
#     (grader/build.c's compiler and link lines, the harness's verbs with the
#     grader's arguments), each timed: the build, every child process, the
#     grader's CPU work per size (reading the channel, generating the input,
#     the CPU reference, comparing every word; tests/gpu/breakdown_cpu.c,
#     linked with the kit's own library), the timed loops of the bench child
#     (from the harness's own wall_ms), and the emulator's analysis;
#  3. what a fresh CUDA process pays before its first kernel (breakdown_ctx.cu).
# Writes $OUT/breakdown/rows.tsv (every measurement) and $OUT/breakdown.md.
set -u
. "$(dirname "$0")/setup.sh"
labs=${*:-lab1 lab2 lab3 lab4}
say "machine and build"
gpu_setup breakdown
ROWS=$LOG/rows.tsv
KIT=$PWD
: >"$ROWS"

# row LAB STEP SECONDS NOTE: one measurement.
row() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$ROWS"; }

# timed LAB STEP CMD...: runs CMD under a time limit and records its wall time.
timed() {
	local lab=$1 step=$2
	shift 2
	local t0 t1 rc
	t0=$(date +%s%N)
	timeout 600 "$@"
	rc=$?
	t1=$(date +%s%N)
	row "$lab" "$step" "$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.4f", d / 1e9 }')" "exit $rc"
	return $rc
}

# The rubric's sizes, as shell variables (repeated keys add up, as in the grader).
rubric() {
	python3 - "$1" <<'EOF'
import sys, shlex
sec, vals = None, {}
for line in open(sys.argv[1]):
    line = line.split(';')[0].strip()
    if line.startswith('['):
        sec = line.strip('[]').split()[0]
    elif '=' in line and sec in ('correctness', 'performance', 'analysis'):
        k, v = (x.strip() for x in line.split('=', 1))
        key = sec + '_' + k
        vals[key] = (vals[key] + ' ' + v) if key in vals and k == 'shapes' else v
for k in ('correctness_shapes', 'performance_shape', 'performance_chart_shapes',
          'performance_runs', 'performance_sweep_runs', 'analysis_shape'):
    print('%s=%s' % (k, shlex.quote(vals.get(k, ''))))
EOF
}

TOOLS=$LOG/tools
mkdir -p "$TOOLS"
cppflags=""
[ -d "$DEPS_PREFIX/usr/include" ] && cppflags="-I$DEPS_PREFIX/usr/include"
gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror $cppflags tests/gpu/breakdown_cpu.c \
	build/libkit.a -lm -pthread -o "$TOOLS/breakdown-cpu" || { echo "breakdown-cpu did not build"; exit 1; }
timeout 300 "$NVCC" -O2 -arch="$ARCH" tests/gpu/breakdown_ctx.cu -o "$TOOLS/breakdown-ctx" ||
	{ echo "breakdown-ctx did not build"; exit 1; }

say "a fresh CUDA process"
for i in 1 2 3; do
	t0=$(date +%s%N)
	timeout 120 "$TOOLS/breakdown-ctx" >"$LOG/ctx-$i.txt"
	t1=$(date +%s%N)
	while IFS=$'\t' read -r step s; do row all "fresh process $i: $step" "$s" ""; done <"$LOG/ctx-$i.txt"
	row all "fresh process $i: whole process (exec to exit)" \
		"$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.4f", d / 1e9 }')" ""
done
timed all "device query child (build/harness/device-probe device)" \
	build/harness/device-probe device 3>"$LOG/device.chan"

for lab in $labs; do
	dir=$(cd labs && ls -d "$lab"-* | head -1)
	file=$(basename "$(ls labs/"$dir"/*.cu | head -1)")
	sol=$KIT/solutions/$dir/$file
	eval "$(rubric "labs/$dir/lab.ini")"
	W=$LOG/work-$lab
	rm -rf "$W"
	mkdir -p "$W"

	say "$lab: whole grades"
	timed "$lab" "whole grade: ./grade $lab --solution --plot none" \
		./grade "$lab" --solution --plot none --json "$LOG/$lab.json" >"$LOG/$lab.txt" 2>&1
	timed "$lab" "whole grade, again" \
		./grade "$lab" --solution --plot none >"$LOG/$lab-again.txt" 2>&1
	if [ -n "${BREAKDOWN_VARIANTS:-}" ]; then
		timed "$lab" "whole grade --no-isolation" \
			./grade "$lab" --solution --plot none --no-isolation >"$LOG/$lab-noiso.txt" 2>&1
		timed "$lab" "whole grade --no-analysis" \
			./grade "$lab" --solution --plot none --no-analysis >"$LOG/$lab-noanalysis.txt" 2>&1
	fi
	tail -5 "$LOG/$lab.txt"

	say "$lab: replayed step by step"
	timed "$lab" "build: nvcc -c (grader/build.c's line)" "$NVCC" -O3 -arch="$ARCH" -lineinfo \
		-std=c++17 -I"$KIT/common" -c "$sol" -o "$W/student-cuda.o"
	# The kit's kernels, as many as this version of the kit has (device_hash.cu,
	# device_fill.cu, or none).
	kit_kernels=(build/harness/cuda/device_*.o)
	[ -e "${kit_kernels[0]}" ] || kit_kernels=()
	timed "$lab" "build: link the harness (nvcc)" "$NVCC" -o "$W/harness-cuda" \
		-Xlinker --wrap=__cudaLaunchKernel -Xlinker --wrap=__cudaLaunchKernel_ptsz \
		-Xlinker --wrap=cudaLaunchKernel -Xlinker --wrap=cudaLaunchKernel_ptsz \
		-Xlinker --wrap=__cudaGetKernel -Xlinker --wrap=exit build/harness/cuda/harness_main.o \
		build/harness/cuda/bench.o build/harness/cuda/gpu_share.o build/harness/cuda/output_send.o build/harness/harness/student_exit.o build/harness/cuda/launch_log.o build/harness/cuda/launch_wrap.o \
		"${kit_kernels[@]}" "build/harness/labs/${lab}_entry.o" "$W/student-cuda.o" build/libkit.a
	i=0
	for shape in $correctness_shapes; do
		seed=$((1000 + i))
		i=$((i + 1))
		timed "$lab" "correct $shape: child (start, context, input, call, output back)" \
			"$W/harness-cuda" correct "$lab" "$shape" $seed 3>"$W/correct.chan"
		timeout 600 "$TOOLS/breakdown-cpu" correct "$lab" "$shape" $seed "$W/correct.chan" >>"$ROWS" ||
			echo "$lab $shape: the replayed output did not check out (see rows.tsv)"
		rm -f "$W/correct.chan"
	done
	# The grade runs every size in one process (one CUDA
	# context); an older harness refuses the extra arguments (exit 2).
	pairs=()
	i=0
	for shape in $correctness_shapes; do
		pairs+=("$shape" $((1000 + i)))
		i=$((i + 1))
	done
	timed "$lab" "shared child: every correctness size in one process" \
		"$W/harness-cuda" correct "$lab" "${pairs[@]}" 3>"$W/shared.chan"
	# Inside that process, per size: the harness's own clock (MSG_DONE's host_ms).
	"$TOOLS/breakdown-cpu" frames "$W/shared.chan" |
		python3 "$KIT/tests/gpu/host_ms.py" "$lab" "$correctness_shapes" >>"$ROWS"
	rm -f "$W/shared.chan"
	if [ "$lab" = lab4 ]; then
		row "$lab" "occupancy calculator check: not replayed (in the unaccounted time)" 0 ""
	fi
	bench_shapes=$performance_chart_shapes
	case " $bench_shapes " in *" $performance_shape "*) ;; *) bench_shapes="$bench_shapes $performance_shape" ;; esac
	# Lab 4's sweep is timed by the same child, after the sizes (harness_door.c).
	sweep=
	[ -n "$performance_sweep_runs" ] && sweep="sweep $performance_sweep_runs $performance_shape"
	# shellcheck disable=SC2086
	timed "$lab" "bench child: $performance_runs runs x ($bench_shapes)${sweep:+, then the sweep}" \
		"$W/harness-cuda" bench "$lab" "$performance_runs" 1 $bench_shapes $sweep 3>"$W/bench.chan"
	"$TOOLS/breakdown-cpu" frames "$W/bench.chan" >"$W/bench.frames"
	python3 - "$lab" "$W/bench.frames" >>"$ROWS" <<'EOF'
import json, sys, statistics
lab, path = sys.argv[1], sys.argv[2]
what = 'bench'
try:
    lines = open(path).read().splitlines()
except OSError:
    lines = []
for line in lines:
    kind, js = line.split('\t', 1)
    if kind != '5':
        continue
    t = json.loads(js)
    st, cp = t['student_ms'], t['copy_ms']
    label = '%s %s%s' % (what, t['shape'], '' if t.get('extra_shared', -1) < 0 else
                         ' (extra shared %d)' % t['extra_shared'])
    print('%s\t%s: timed loop (%d runs, L2 flush + call + flush + copy)\t%.4f\t'
          'median call %.3f ms, median copy %.3f ms' % (lab, label, len(st), t['wall_ms'] / 1e3,
          statistics.median(st), statistics.median(cp)))
EOF

	if [ -n "$analysis_shape" ]; then
		timed "$lab" "analysis: cuemu-cc -c" build/emu/cuemu-cc -I"$KIT/common" -c "$sol" -o "$W/student-emu.o"
		timed "$lab" "analysis: link the emulator's harness" build/emu/cuemu-cc -o "$W/harness-emu" \
			-Wl,--wrap=exit build/harness/emu/harness_main.o build/harness/emu/bench.o build/harness/emu/gpu_share.o build/harness/emu/output_send.o \
			build/harness/harness/student_exit.o \
			build/harness/emu/predict.o "build/harness/labs/${lab}_entry.o" "$W/student-emu.o" build/libkit.a
		timed "$lab" "analysis: child at $analysis_shape" "$W/harness-emu" analysis "$lab" "$analysis_shape" 7 \
			3>"$W/analysis.chan"
	fi
	rm -f "$W"/*.chan
done

say "table"
python3 "$KIT/tests/gpu/breakdown_table.py" "$ROWS" "$LOG/machine.txt" >"$OUT/breakdown.md"
cat "$OUT/breakdown.md"
