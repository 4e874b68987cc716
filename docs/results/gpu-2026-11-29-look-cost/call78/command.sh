#!/bin/bash
# Call 78: this tree's lock suites on a GPU (the sandbox's look at the lock's
# waiters changed), then the lab 3 class of 64 on one GPU, paired: this tree
# ("look") against the same tree with the look turned off ("nolook":
# .gpurun/nolook, SANDBOX_GPU_CHECK_S 1e9), in the order look nolook nolook
# look ..., to measure what the look at /proc/locks costs a class. Keeps the
# report of any student stopped at "time limit" but the three that hang.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD DOUT=$OUT
export DEPS_PREFIX=$PWD/.deps KIT_NO_INSTALL=1 NO_COLOR=1
export LD_LIBRARY_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu
export PATH=$PWD/.deps/usr/bin:$PATH
L=/tmp/c78; rm -rf $L; mkdir -p $L
t0=$(date +%s)
stamp() { echo "[$(( $(date +%s)-t0 )) s] $*" | tee -a $L/stamps.txt; }
left() { [ $(( $(date +%s)-t0 )) -lt $1 ]; }
{ nvidia-smi; nproc; date -u; } >$L/machine.txt 2>&1
timeout 300 make -j"$(nproc)" all build/tests/unit >$L/build.log 2>&1; stamp "build look $?"
(cd .gpurun/nolook && timeout 240 make -j"$(nproc)" all >$L/build-nolook.log 2>&1); stamp "build nolook $?"
timeout 150 env KIT_ROOT=$PWD build/tests/unit --filter '@(lock_waiters|machine_lock|gpu_lock|batch_gpu|gpu_children|sandbox)/*' --jobs 2 >$L/unit.txt 2>&1
stamp "unit exit $? $(grep Synthesis $L/unit.txt)"; grep -E "FAIL" $L/unit.txt | head
timeout 60 env KIT_ROOT=$PWD build/tests/unit --filter 'gpu/grades_at_once_each_time_the_gpu_alone' >$L/unit-atonce.txt 2>&1
stamp "gpu/grades_at_once exit $? $(grep Synthesis $L/unit-atonce.txt)"
class() {	# class KIT_DIR NAME
	(cd "$1" && OUT=$L/$2 BATCH_TIMEOUT=100 timeout 150 bash $ROOT/tests/gpu/class_scaling.sh >$L/$2.log 2>&1)
	stamp "$2 $? $(cat $L/$2/class_scaling/rates.txt)"
	for d in $L/$2/class_scaling/one-gpu-out/students/*/; do
		s=$(basename $d)
		case $s in hostile_infinite_loop|other_kernel_hang|other_one_fault_per_size) continue ;; esac
		if grep -q "time limit" $d/report.txt 2>/dev/null; then
			mkdir -p $L/found/$2-$s; cp $d/report.txt $d/report.json $d/gpu-waits.txt $L/found/$2-$s/
			stamp "found: $2 $s"
		fi
	done
	cp $L/$2/class_scaling/one-gpu-out/gradebook.csv $L/$2/gradebook.csv
	rm -rf $L/$2/class_scaling/one-gpu-out
}
k=1
for order in "look nolook" "nolook look" "look nolook" "nolook look" "look nolook"; do
	for kit in $order; do
		left 500 || break 2
		[ $kit = look ] && class $ROOT look-$k || class $ROOT/.gpurun/nolook nolook-$k
	done
	k=$((k + 1))
done
date -u >>$L/machine.txt
tar -czf $DOUT/c78.tgz -C /tmp c78
