#!/bin/bash
# Call 80: the tree with the emulator's calls again before its predicted
# speed: lab3/ends_after_first_call.cu graded on the GPU and in the emulator;
# the GPU suites that set the emulator beside the GPU; gpu/grade (every
# solution, skeleton and fixture of the four labs against its header, the
# new fixture included) with the time left.
set -u
cd "$(dirname "$0")/.."
DOUT=$OUT
export DEPS_PREFIX=$PWD/.deps KIT_NO_INSTALL=1 NO_COLOR=1
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu
export PATH=$PWD/.deps/usr/bin:$PATH
L=/tmp/c80; rm -rf $L; mkdir -p $L/grades
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s)-t0 )) s] $*" | tee -a $L/stamps.txt; }
left() { [ $(( $(date +%s)-t0 )) -lt $1 ]; }
{ nvidia-smi; nproc; date -u; } >$L/machine.txt 2>&1
timeout 300 make -j"$(nproc)" all build/tests/unit >$L/build.log 2>&1; stamp "build $?"
F=tests/fixtures/lab3/ends_after_first_call.cu
for b in cuda emu; do
	timeout 300 ./grade lab3 --submission $F --backend $b --plot none --json $L/grades/ends-$b.json >$L/grades/ends-$b.txt 2>&1
	stamp "ends_after_first_call $b exit $? $(grep -E '^Score' $L/grades/ends-$b.txt)"
done
timeout 240 env KIT_ROOT=$PWD build/tests/unit --filter '@(race_parity|bounds_parity|launch_match_gpu|shared_context_gpu|time_limits_gpu|answer_keys)/*' --jobs 2 >$L/unit.txt 2>&1
stamp "unit exit $? $(grep Synthesis $L/unit.txt)"; grep -E "^\[FAIL\]" $L/unit.txt | head
left 300 && { timeout $(( 560 - ($(date +%s) - t0) )) env KIT_ROOT=$PWD build/tests/unit --filter 'gpu/grade' --jobs 1 --verbose >$L/gpu-grade.txt 2>&1
	stamp "gpu/grade exit $? $(grep Synthesis $L/gpu-grade.txt)"; grep -E "^\[FAIL\]|Assertion" $L/gpu-grade.txt | head; }
date -u >>$L/machine.txt
tar -czf $DOUT/c80.tgz -C /tmp c80
