#!/bin/bash
# Call 88: the lab 3 fixtures that now include padded_and_naive.cuh (a header
# beside the file) on the GPU, and gpu/grade.
set -u
cd "$(dirname "$0")/.."
DOUT=$OUT
export DEPS_PREFIX=$PWD/.deps KIT_NO_INSTALL=1 NO_COLOR=1
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu
export PATH=$PWD/.deps/usr/bin:$PATH
L=/tmp/c88; rm -rf $L; mkdir -p $L/grades
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s)-t0 )) s] $*" | tee -a $L/stamps.txt; }
left() { [ $(( $(date +%s)-t0 )) -lt $1 ]; }
{ nvidia-smi; nproc; date -u; } >$L/machine.txt 2>&1
timeout 360 make -j"$(nproc)" all build/tests/unit >$L/build.log 2>&1; stamp "build $?"
for c in "lab3 tests/fixtures/lab3/first_call_decoy.cu" "lab3 tests/fixtures/lab3/first_call_warm_up.cu" \
	 "lab3 tests/fixtures/lab3/first_call_dilution.cu" "lab3 tests/fixtures/lab3/second_call_dilution.cu" \
	 "lab3 tests/fixtures/lab3/ends_after_first_call.cu" "lab3 tests/fixtures/lab3/ends_at_third_call.cu"; do
	set -- $c
	n=$1-$(basename $2 .cu)
	for b in cuda; do
		timeout 300 ./grade $1 --submission $2 --backend $b --plot none --json $L/grades/$n-$b.json >$L/grades/$n-$b.txt 2>&1
		stamp "$n $b exit $? $(grep -E '^Score' $L/grades/$n-$b.txt)"
	done
done
left 330 && { timeout $(( 585 - ($(date +%s) - t0) )) env KIT_ROOT=$PWD build/tests/unit --filter 'gpu/grade' --jobs 1 --verbose >$L/gpu-grade.txt 2>&1
	stamp "gpu/grade exit $? $(grep Synthesis $L/gpu-grade.txt)"; grep -E "^\[FAIL\]|Assertion" $L/gpu-grade.txt | head; }
date -u >>$L/machine.txt
tar -czf $DOUT/c88.tgz -C /tmp c88
