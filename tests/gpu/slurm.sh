#!/bin/bash
# --slurm on the GPU backend: a single-host Slurm cluster whose gres are this
# machine's GPUs (tests/slurm/cluster.sh with SLURM_GPUS), then
#
#   - the lab 3 fixtures and the solution, graded locally (--batch) and
#     through --batch --slurm (each task asks for --gres gpu:1 and finds its
#     GPU in the CUDA_VISIBLE_DEVICES Slurm sets);
#   - one grade of the solution through ./grade lab3 --slurm.
#
#   OUT=/tmp/out bash tests/gpu/slurm.sh
#
# Needs root and Slurm and munge installed (mk/deps.sh slurm installs them
# where apt reaches a registry; elsewhere install the .deb files of
# slurmd slurmctld slurm-client slurm-wlm-basic-plugins munge libmunge2
# libhwloc15 libnuma1 libjson-c5 liblua5.1-0 libyaml-0-2 with dpkg -i
# first). Writes $OUT/slurm-gpu/: both gradebooks, each task's log, the
# single grade's report, and summary.txt. Expect: every student graded on
# both sides with the same verdicts (a performance score may differ by the
# GPU's run-to-run noise), each task's students with "gpu" "0" in their
# summary.json, and the single grade's report naming the GPU.
set -u
. "$(dirname "$0")/setup.sh"
gpu_setup slurm-gpu
command -v slurmctld >/dev/null && command -v munged >/dev/null ||
	{ echo "SKIP: Slurm is not installed here (see the header of $0)" | tee "$LOG/summary.txt"; exit 0; }
[ "$(id -u)" = 0 ] || { echo "SKIP: not root" | tee "$LOG/summary.txt"; exit 0; }

export SLURM_CONF=$PWD/build/slurm-gpu/slurm.conf
SLURM_GPUS=$(ls /dev/nvidia[0-9]* | tr '\n' ' ') timeout 120 sh tests/slurm/cluster.sh start build/slurm-gpu ||
	{ echo "FAILED: the cluster did not start"; exit 1; }
trap 'sh tests/slurm/cluster.sh stop build/slurm-gpu' EXIT
sinfo -o "%N %t %G" | tee "$LOG/sinfo.txt"

class=$LOG/class
mkdir -p "$class"
cp tests/fixtures/lab3/*.cu "$class/"
cp solutions/lab3-transpose/transpose.cu "$class/solution.cu"
chmod -R a+rX "$class"
args=(lab3 --batch "$class" --plot none --salt gpu-slurm-salt)

say "local batch"
t0=$(date +%s)
timeout 900 ./grade "${args[@]}" --out "$LOG/local" >"$LOG/local.log" 2>&1
echo "local: exit $? in $(($(date +%s) - t0)) s" | tee "$LOG/summary.txt"
say "--slurm batch"
t0=$(date +%s)
timeout 900 ./grade "${args[@]}" --out "$LOG/slurm" --slurm --time 0:15:00 >"$LOG/slurm.log" 2>&1
echo "slurm: exit $? in $(($(date +%s) - t0)) s" | tee -a "$LOG/summary.txt"
cp "$LOG"/slurm/.slurm/task-*.log "$LOG/" 2>/dev/null
{
	echo "local gradebook:"
	cat "$LOG/local/gradebook.csv"
	echo "--slurm gradebook:"
	cat "$LOG/slurm/gradebook.csv"
	echo "the GPU each task's students were graded on:"
	grep -h '"gpu"' "$LOG"/slurm/students/*/summary.json | sort | uniq -c
} | tee -a "$LOG/summary.txt"

say "one grade through srun"
timeout 900 ./grade lab3 --solution --plot none --slurm --time 0:15:00 >"$LOG/single.txt" 2>"$LOG/single.err"
echo "single: exit $?; $(grep -m1 'backend' "$LOG/single.txt")" | tee -a "$LOG/summary.txt"
