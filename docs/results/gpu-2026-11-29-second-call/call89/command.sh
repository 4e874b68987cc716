#!/bin/bash
# Call 89: a lab 3 file that launches through cudaLaunchKernel, now accepted
# by the emulator, on both backends; the launch check's GPU suite.
set -u
cd "$(dirname "$0")/.."
DOUT=$OUT
export DEPS_PREFIX=$PWD/.deps KIT_NO_INSTALL=1 NO_COLOR=1
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu
export PATH=$PWD/.deps/usr/bin:$PATH
L=/tmp/c89; rm -rf $L; mkdir -p $L/grades
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s)-t0 )) s] $*" | tee -a $L/stamps.txt; }
left() { [ $(( $(date +%s)-t0 )) -lt $1 ]; }
{ nvidia-smi; nproc; date -u; } >$L/machine.txt 2>&1
timeout 360 make -j"$(nproc)" all build/tests/unit >$L/build.log 2>&1; stamp "build $?"
for c in "lab3 tests/fixtures/lab3/launch_kernel_api.cu" "lab3 tests/fixtures/lab3/padded.cu"; do
	set -- $c
	n=$1-$(basename $2 .cu)
	for b in cuda emu; do
		timeout 300 ./grade $1 --submission $2 --backend $b --plot none --json $L/grades/$n-$b.json >$L/grades/$n-$b.txt 2>&1
		stamp "$n $b exit $? $(grep -E '^Score' $L/grades/$n-$b.txt)"
	done
done
timeout 200 env KIT_ROOT=$PWD build/tests/unit --filter '@(launch_match|launch_match_gpu)/*' --jobs 2 >$L/unit.txt 2>&1
stamp "unit exit $? $(grep Synthesis $L/unit.txt)"; grep -E "^\[FAIL\]" $L/unit.txt | head
date -u >>$L/machine.txt
tar -czf $DOUT/c89.tgz -C /tmp c89
