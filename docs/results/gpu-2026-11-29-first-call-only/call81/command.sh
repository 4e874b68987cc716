#!/bin/bash
# Call 81: the stop's last tree (the emulator's acceptance fixes merged) on one
# GPU: the four answer keys, and the lab 3 class of 64 once (its fixtures now
# include lab3/ends_after_first_call.cu), keeping any spurious time limit.
set -u
cd "$(dirname "$0")/.."
DOUT=$OUT
export DEPS_PREFIX=$PWD/.deps KIT_NO_INSTALL=1 NO_COLOR=1
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu
export PATH=$PWD/.deps/usr/bin:$PATH
L=/tmp/c81; rm -rf $L; mkdir -p $L/grades
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s)-t0 )) s] $*" | tee -a $L/stamps.txt; }
{ nvidia-smi; nproc; date -u; } >$L/machine.txt 2>&1
timeout 300 make -j"$(nproc)" all >$L/build.log 2>&1; stamp "build $?"
for l in lab1 lab2 lab3 lab4; do
	timeout 300 ./grade $l --solution --plot none --json $L/grades/key-$l.json >$L/grades/key-$l.txt 2>&1
	stamp "key-$l exit $? $(grep -E '^Score' $L/grades/key-$l.txt)"
done
OUT=$L BATCH_TIMEOUT=100 timeout 150 bash tests/gpu/class_scaling.sh >$L/class.log 2>&1
stamp "class $? $(cat $L/class_scaling/rates.txt)"
for d in $L/class_scaling/one-gpu-out/students/*/; do
	s=$(basename $d)
	case $s in hostile_infinite_loop|other_kernel_hang|other_one_fault_per_size) continue ;; esac
	grep -q "time limit" $d/report.txt 2>/dev/null && { mkdir -p $L/found/$s; cp $d/report.txt $d/report.json $L/found/$s/; stamp "found: $s"; }
done
cp $L/class_scaling/one-gpu-out/gradebook.csv $L/gradebook.csv
rm -rf $L/class_scaling/one-gpu-out
date -u >>$L/machine.txt
tar -czf $DOUT/c81.tgz -C /tmp c81
