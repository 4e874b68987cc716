#!/bin/bash
# Call 82: the tree with the first-call-only rule in the correctness step,
# the batch verdict of a timing that failed, and the emulator's SIMD
# intrinsics and cuComplex.h: the new conformance fixture built by nvcc and
# by the emulator and compared bit for bit; the two lab 3 fixtures of the
# rule on both backends; the GPU probes among the hostile fixtures; the
# suites that set the emulator beside the GPU; gpu/grade with the time left.
set -u
cd "$(dirname "$0")/.."
DOUT=$OUT
export DEPS_PREFIX=$PWD/.deps KIT_NO_INSTALL=1 NO_COLOR=1
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu
export PATH=$PWD/.deps/usr/bin:$PATH
L=/tmp/c82; rm -rf $L; mkdir -p $L/grades
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s)-t0 )) s] $*" | tee -a $L/stamps.txt; }
left() { [ $(( $(date +%s)-t0 )) -lt $1 ]; }
{ nvidia-smi; nproc; date -u; git log --oneline -1; } >$L/machine.txt 2>&1
timeout 360 make -j"$(nproc)" all build/tests/unit conformance-build >$L/build.log 2>&1; stamp "build $?"
tail -5 $L/build.log | grep -E "rror" && tail -30 $L/build.log
OUT=$L CONFORMANCE_TIMEOUT=120 CONFORMANCE_FIXTURES=tests/conformance/simd_complex.cu \
	timeout 240 bash tests/gpu/conformance.sh build runs grades >$L/conformance.log 2>&1
stamp "conformance $? rows $(grep -c '^| simd' $L/conformance/table.md) identical $(grep -c '| yes |$' $L/conformance/table.md)"
for F in tests/fixtures/lab3/ends_after_first_call.cu tests/fixtures/lab3/ends_at_third_call.cu; do
	n=$(basename $F .cu)
	for b in cuda emu; do
		/usr/bin/time -f "%e s" -o $L/grades/$n-$b.time timeout 300 ./grade lab3 --submission $F --backend $b --plot none \
			--json $L/grades/$n-$b.json >$L/grades/$n-$b.txt 2>&1
		stamp "$n $b exit $? $(grep -E '^Score' $L/grades/$n-$b.txt) in $(cat $L/grades/$n-$b.time)"
	done
done
timeout 300 env KIT_ROOT=$PWD build/tests/unit --filter '@(race_parity|bounds_parity|launch_match_gpu|shared_context_gpu|time_limits_gpu|answer_keys|batch_verdict)/*' --jobs 2 >$L/unit.txt 2>&1
stamp "unit exit $? $(grep Synthesis $L/unit.txt)"; grep -E "^\[FAIL\]" $L/unit.txt | head
left 420 && { timeout 200 env KIT_ROOT=$PWD build/tests/unit --filter 'gpu/hostile' --jobs 2 --verbose >$L/gpu-hostile.txt 2>&1
	stamp "gpu/hostile exit $? $(grep Synthesis $L/gpu-hostile.txt)"; grep -E "^\[FAIL\]|Assertion" $L/gpu-hostile.txt | head; }
left 480 && { timeout $(( 585 - ($(date +%s) - t0) )) env KIT_ROOT=$PWD build/tests/unit --filter 'gpu/grade' --jobs 1 --verbose >$L/gpu-grade.txt 2>&1
	stamp "gpu/grade exit $? $(grep Synthesis $L/gpu-grade.txt)"; grep -E "^\[FAIL\]|Assertion" $L/gpu-grade.txt | head; }
date -u >>$L/machine.txt
tar -czf $DOUT/c82.tgz -C /tmp c82
