#!/bin/bash
# Call 84: the tree where a time limit is no ending for the first-call-only
# rule: lab2/first_call_decoy.cu in the emulator again (46.43 in call 83,
# its 2^24 failed by the rule after a time limit), three times, beside
# lab 2's Hillis-Steele fixture and answer key in the emulator: how near
# its 2^24 limit the Hillis-Steele scan runs on this 16-core machine.
set -u
cd "$(dirname "$0")/.."
DOUT=$OUT
export DEPS_PREFIX=$PWD/.deps KIT_NO_INSTALL=1 NO_COLOR=1
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu
export PATH=$PWD/.deps/usr/bin:$PATH
L=/tmp/c84; rm -rf $L; mkdir -p $L/grades
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s)-t0 )) s] $*" | tee -a $L/stamps.txt; }
{ nvidia-smi; nproc; date -u; } >$L/machine.txt 2>&1
timeout 300 make -j"$(nproc)" all >$L/build.log 2>&1; stamp "build $?"
for r in 1 2 3; do
	for f in tests/fixtures/lab2/first_call_decoy.cu tests/fixtures/lab2/hillis_steele.cu solutions/lab2-blelloch-scan/scan.cu; do
		n=$(basename $(dirname $f))-$(basename $f .cu)-$r
		timeout 200 ./grade lab2 --submission $f --backend emu --plot none --seed $r --json $L/grades/$n.json >$L/grades/$n.txt 2>&1
		stamp "$n exit $? $(grep -E '^Score' $L/grades/$n.txt) $(grep -A1 'correctness 2^24' $L/grades/$n.txt | tail -1 | cut -c1-160)"
	done
done
date -u >>$L/machine.txt
tar -czf $DOUT/c84.tgz -C /tmp c84
