#!/bin/bash
# Call 85: the tree where the emulator's reference runs on one core
# (CUEMU_WORKERS=1) for the limits' base, in the units the emulator's
# watchdog counts. Lab 2's Hillis-Steele fixture, the first-call decoy and
# the answer key in the emulator, three rounds; the reference times the
# emulator measured on this 16-core machine (call 83 said 0.3 s at 2^24,
# measured on 8 workers); the time-limit suites.
set -u
cd "$(dirname "$0")/.."
DOUT=$OUT
export DEPS_PREFIX=$PWD/.deps KIT_NO_INSTALL=1 NO_COLOR=1
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu
export PATH=$PWD/.deps/usr/bin:$PATH
L=/tmp/c85; rm -rf $L; mkdir -p $L/grades
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s)-t0 )) s] $*" | tee -a $L/stamps.txt; }
{ nvidia-smi; nproc; date -u; } >$L/machine.txt 2>&1
timeout 300 make -j"$(nproc)" all build/tests/unit >$L/build.log 2>&1; stamp "build $?"
for r in 1 2 3; do
	for f in tests/fixtures/lab2/first_call_decoy.cu tests/fixtures/lab2/hillis_steele.cu solutions/lab2-blelloch-scan/scan.cu; do
		n=$(basename $(dirname $f))-$(basename $f .cu)-$r
		timeout 200 ./grade lab2 --submission $f --backend emu --plot none --seed $r --json $L/grades/$n.json >$L/grades/$n.txt 2>&1
		stamp "$n exit $? $(grep -E '^Score' $L/grades/$n.txt) $(grep -A1 'correctness 2^24' $L/grades/$n.txt | tail -1 | cut -c1-160)"
	done
done
cp build/reference-times/*emu* $L/ 2>/dev/null
timeout 200 env KIT_ROOT=$PWD build/tests/unit --filter '@(time_limits|time_limits_gpu|reference_cache)/*' --jobs 2 >$L/unit.txt 2>&1
stamp "unit exit $? $(grep Synthesis $L/unit.txt)"; grep -E "^\[FAIL\]" $L/unit.txt | head
date -u >>$L/machine.txt
tar -czf $DOUT/c85.tgz -C /tmp c85
