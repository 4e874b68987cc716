#!/bin/bash
# Everything that needs a GPU, in one go: build, GPU tests, grades of every
# lab's skeleton, solution and fixtures, calibration, repeatability.
# Logs go under $OUT (the device tool brings them back) as one tarball.
#
#   OUT=/tmp/out bash tests/gpu/evidence.sh [STEP...]
# Steps: build tests quick gputests lab1 lab2 lab3 calibrate repeat batch class lab4 hostile
# (default: build tests lab1 lab2 lab3 calibrate repeat batch).
set -u
OUT=${OUT:-build/gpu-evidence}
LOG=$OUT/evidence
mkdir -p "$LOG"
export DEPS_PREFIX=${DEPS_PREFIX:-.deps} KIT_NO_INSTALL=1 NO_COLOR=1
steps=${*:-build tests lab1 lab2 lab3 calibrate repeat batch}

say() { printf '\n=== %s  [%s]\n' "$*" "$(date -u +%H:%M:%S)"; }

# grade NAME ARGS...: one ./grade run, its report and JSON kept, a line in the summary.
grade() {
	local name=$1
	shift
	local t0=$(date +%s%N)
	timeout 900 ./grade "$@" --plot none --json "$LOG/$name.json" >"$LOG/$name.txt" 2>"$LOG/$name.err"
	local rc=$?
	local t1=$(date +%s%N)
	local line
	line=$(python3 -c "import json,sys; j=json.load(open('$LOG/$name.json')); m=j.get('metrics',{}); \
print('%-28s exit %d  score %5.1f/%-5.1f  %s' % ('$name', $rc, j['score'], j['max_score'], \
('%.0f GB/s = %.1f%% of copy (%.0f GB/s)' % (m['gbps'], m['percent_of_copy'], m['copy_gbps'])) if 'gbps' in m else '-'))" \
		2>/dev/null) || line=$(printf '%-28s exit %d  (no JSON report)' "$name" $rc)
	printf '%s  %4d.%01ds\n' "$line" $(( (t1 - t0) / 1000000000 )) $(( (t1 - t0) / 100000000 % 10 )) |
		tee -a "$LOG/summary.txt"
}

# gpu_tests NAME FILTER TIMEOUT: the Criterion GPU tests (KIT_GPU_LABS, if set,
# picks the labs), every grade's report kept under $LOG/grades, summarised.
gpu_tests() {
	mkdir -p "$LOG/grades"
	KIT_EVIDENCE_DIR="$LOG/grades" KIT_ROOT="$PWD" timeout "$3" \
		build/tests/unit --filter "$2" --jobs 1 --verbose >"$LOG/$1.log" 2>&1
	echo "GPU tests ($2) exit $?"
	grep -E "Synthesis|FAIL|Assertion" "$LOG/$1.log" | head -20
	python3 tests/gpu/summarise.py "$LOG/grades" | tee "$LOG/grades-summary.txt"
}

for step in $steps; do
	case $step in
	build)
		say "machine"
		{ nvidia-smi; nvcc --version; uname -a; date -u; } >"$LOG/machine.txt" 2>&1
		head -12 "$LOG/machine.txt"
		say "build"
		timeout 600 make -j16 all DEPS_PREFIX="$DEPS_PREFIX" >"$LOG/build.log" 2>&1 || {
			tail -30 "$LOG/build.log"
			echo "BUILD FAILED"
		}
		tail -3 "$LOG/build.log"
		;;
	tests)
		say "make test (GPU tests included)"
		timeout 900 make test DEPS_PREFIX="$DEPS_PREFIX" >"$LOG/make-test.log" 2>&1
		echo "make test exit $?"
		grep -E "Synthesis|passed|skipp|SKIP|FAIL" "$LOG/make-test.log" | tail -15
		;;
	lab1 | lab2 | lab3)
		say "$step"
		dir=$(ls -d labs/$step-*)
		base=$(basename "$dir")
		grade "$step-skeleton" "$step"
		grade "$step-solution" "$step" --solution
		for f in tests/fixtures/$step/*.cu; do
			grade "$step-$(basename "$f" .cu)" "$step" --submission "$f"
		done
		;;
	calibrate)
		say "calibrate"
		for lab in lab1 lab2 lab3; do
			timeout 900 ./grade $lab --calibrate 2>&1 | tee "$LOG/calibrate-$lab.txt"
		done
		git diff --stat -- labs/ ; git diff -- labs/ >"$LOG/calibrated-rubrics.diff"
		# Grade again against the calibrated bands.
		for lab in lab1 lab2 lab3; do
			grade "$lab-solution-calibrated" $lab --solution
		done
		grade "lab3-naive-calibrated" lab3 --submission tests/fixtures/lab3/naive.cu
		grade "lab3-unpadded-calibrated" lab3 --submission tests/fixtures/lab3/unpadded.cu
		grade "lab3-padded-calibrated" lab3 --submission tests/fixtures/lab3/padded.cu
		grade "lab1-global_passes-calibrated" lab1 --submission tests/fixtures/lab1/global_passes.cu
		grade "lab1-block_scan-calibrated" lab1 --submission tests/fixtures/lab1/block_scan.cu
		grade "lab2-global_passes-calibrated" lab2 --submission tests/fixtures/lab2/global_passes.cu
		grade "lab2-hillis_steele-calibrated" lab2 --submission tests/fixtures/lab2/hillis_steele.cu
		;;
	quick)
		say "solutions and the fixtures that set the bands (no analysis)"
		for lab in lab1 lab2 lab3; do
			grade "$lab-solution-quick" $lab --solution --no-analysis
		done
		for f in lab3/naive lab3/unpadded lab3/padded lab1/global_passes lab1/block_scan \
			lab2/global_passes lab2/hillis_steele lab2/blelloch_unpadded; do
			grade "${f/\//-}-quick" ${f%%/*} --submission tests/fixtures/$f.cu --no-analysis
		done
		;;
	gputests)
		say "the GPU tests (every solution, skeleton and fixture; five repeated grades)"
		gpu_tests gpu-tests 'gpu/*' "${GPUTESTS_TIMEOUT:-480}"
		;;
	repeat)
		say "repeatability: the same submission graded five times"
		for i in 1 2 3 4 5; do
			grade "lab3-unpadded-repeat$i" lab3 --submission tests/fixtures/lab3/unpadded.cu
		done
		;;
	batch)
		say "batch"
		rm -rf build/gpu-batch-out
		t0=$(date +%s)
		timeout 900 ./grade lab3 --batch tests/fixtures/hostile --out build/gpu-batch-out \
			>"$LOG/batch.txt" 2>&1
		echo "batch exit $? in $(( $(date +%s) - t0 )) s"
		cp build/gpu-batch-out/gradebook.csv "$LOG/" 2>/dev/null
		cp build/gpu-batch-out/batch-times.txt "$LOG/" 2>/dev/null
		tail -5 "$LOG/batch.txt"
		;;
	lab4)
		# This GPU's occupancy API against the stored sm_90 table, the
		# lab calibrated, then every lab 4 file graded by the GPU tests.
		say "lab4: the occupancy API of this GPU"
		build/harness/occupancy-api "$LOG/occupancy-this-gpu.txt" 2>&1
		head -8 "$LOG/occupancy-this-gpu.txt"
		python3 tests/gpu/compare_occupancy.py grader/labs/occupancy/sm_90.txt \
			"$LOG/occupancy-this-gpu.txt" | tee "$LOG/occupancy-compare.txt"
		say "lab4: calibrate"
		timeout 300 ./grade lab4 --calibrate 2>&1 | tee "$LOG/calibrate-lab4.txt"
		git diff -- labs/lab4-occupancy/lab.ini >"$LOG/calibrated-lab4.diff" 2>/dev/null ||
			cp labs/lab4-occupancy/lab.ini "$LOG/lab4.ini"
		cp labs/lab4-occupancy/lab.ini "$LOG/lab4.ini"
		say "lab4: the GPU tests (solution, skeleton, fixtures)"
		KIT_GPU_LABS=lab4 gpu_tests gpu-tests-lab4 'gpu/grade*' "${GPUTESTS_TIMEOUT:-400}"
		;;
	hostile)
		# The GPU probes (a repeated call that copies an earlier
		# result, a reused pointer) get no speed points and say why; the
		# references, whose timed runs are now poisoned, shifted and checked,
		# still earn full speed points, and lab 4's sweep is still drawn.
		say "hostile GPU probes (${HOSTILE_TIMEOUT:-600} s at most)"
		gpu_tests gpu-hostile 'gpu/hostile*' "${HOSTILE_TIMEOUT:-600}"
		for f in tests/fixtures/hostile/gpu_*.cu; do
			grade "lab3-$(basename "$f" .cu)" lab3 --submission "$f" --no-analysis
			grep -h -A2 "bandwidth" "$LOG/lab3-$(basename "$f" .cu).txt" | head -4
		done
		for lab in lab1 lab2 lab3 lab4; do
			grade "$lab-solution-checked-runs" $lab --solution --no-analysis
		done
		python3 -c "import json; m=json.load(open('$LOG/lab4-solution-checked-runs.json'))['metrics']; \
print('lab4 sweep:', m.get('sweep_error') or ' '.join('%.0f%%:%.0f' % (p['occupancy_pct'], p['gbps']) for p in m.get('sweep', [])))" \
			2>&1 | tee -a "$LOG/summary.txt"
		;;
	class)
		# The class of 29: the hostile and known-good submissions, the lab 3
		# fixtures, the skeleton and the solution, one student each.
		say "class batch (${CLASS_TIMEOUT:-500} s at most; a rerun resumes)"
		class=${CLASS_DIR:-/tmp/class}
		rm -rf "$class" build/gpu-class-out
		mkdir -p "$class"
		cp tests/fixtures/hostile/*.cu "$class/"
		for f in tests/fixtures/lab3/*.cu; do cp "$f" "$class/fixture_$(basename "$f")"; done
		cp labs/lab3-transpose/transpose.cu "$class/skeleton.cu"
		cp solutions/lab3-transpose/transpose.cu "$class/solution.cu"
		t0=$(date +%s)
		timeout "${CLASS_TIMEOUT:-500}" ./grade lab3 --batch "$class" --out build/gpu-class-out \
			>"$LOG/class.txt" 2>&1
		echo "class batch exit $? in $(( $(date +%s) - t0 )) s, $(ls "$class" | wc -l) students"
		cp -r build/gpu-class-out "$LOG/class"
		tail -8 "$LOG/class.txt"
		;;
	esac
done
say "summary"
cat "$LOG/summary.txt"
tar -czf "$OUT/evidence.tar.gz" -C "$OUT" evidence
