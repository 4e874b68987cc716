#!/bin/bash
# Call 79: on one GPU, the four answer keys, and two files right only at their
# first call in a process that abort() at their second (.gpurun/crash/: the
# lab 3 answer key and a naive transpose) against the wrong-after-first-call
# fixture, each graded on the GPU and in the emulator; the lock's suites.
set -u
cd "$(dirname "$0")/.."
DOUT=$OUT
export DEPS_PREFIX=$PWD/.deps KIT_NO_INSTALL=1 NO_COLOR=1
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu
export PATH=$PWD/.deps/usr/bin:$PATH
L=/tmp/c79; rm -rf $L; mkdir -p $L/grades
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s)-t0 )) s] $*" | tee -a $L/stamps.txt; }
left() { [ $(( $(date +%s)-t0 )) -lt $1 ]; }
{ nvidia-smi; nproc; date -u; } >$L/machine.txt 2>&1
timeout 300 make -j"$(nproc)" all build/tests/unit >$L/build.log 2>&1; stamp "build $?"
grade() {	# grade NAME LAB ARGS...
	local name=$1 lab=$2; shift 2
	timeout 300 ./grade $lab "$@" --plot none --json $L/grades/$name.json >$L/grades/$name.txt 2>&1
	stamp "$name exit $? $(grep -E '^Score' $L/grades/$name.txt)"
}
for l in lab1 lab2 lab3 lab4; do grade key-$l $l --solution; done
grade key_abort lab3 --submission .gpurun/crash/key_abort.cu
grade naive_abort lab3 --submission .gpurun/crash/naive_abort.cu
grade wrong_after_first_call lab3 --submission tests/fixtures/shared/wrong_after_first_call.cu
for f in key_abort naive_abort wrong_after_first_call; do
	timeout 300 ./grade lab3 --submission $( [ $f = wrong_after_first_call ] && echo tests/fixtures/shared/$f.cu || echo .gpurun/crash/$f.cu ) \
		--backend emu --plot none --json $L/grades/$f-emu.json >$L/grades/$f-emu.txt 2>&1
	stamp "$f emu exit $? $(grep -E '^Score' $L/grades/$f-emu.txt)"
done
timeout 150 env KIT_ROOT=$PWD build/tests/unit --filter '@(lock_waiters|machine_lock|gpu_lock|batch_gpu|gpu_children|sandbox)/*' --jobs 2 >$L/unit.txt 2>&1
stamp "unit exit $? $(grep Synthesis $L/unit.txt)"; grep -E "FAIL" $L/unit.txt | head
date -u >>$L/machine.txt
tar -czf $DOUT/c79.tgz -C /tmp c79
