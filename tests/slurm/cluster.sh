#!/bin/sh
# A single-host Slurm cluster for `make test-slurm`: munged, slurmctld and
# slurmd, run as root, every file under DIR (build/slurm): its own munge
# key and socket, its own ports, so that it touches no Slurm or munge the
# machine may run. proctrack/linuxproc and task/none: no cgroups; no
# accounting database (sacct then has nothing to show). Two stand-in GPUs
# (gres "gpu" on /dev/null and /dev/zero) let jobs ask for --gres=gpu:1 and
# get CUDA_VISIBLE_DEVICES from Slurm as on a GPU node (SLURM_GPUS below).
#
#   cluster.sh start DIR     writes DIR/slurm.conf, starts the daemons,
#                            waits until the node is idle
#   cluster.sh stop DIR      stops them (by the pids they wrote)
#
# The commands find the cluster through SLURM_CONF=DIR/slurm.conf.
#
# SLURM_GPUS="/dev/nvidia0 ...": the node's real GPUs as its gres (default:
# two stand-ins).
set -eu
action=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
conf=$dir/slurm.conf

stop() {
	for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munged.pid"; do
		[ -f "$pidfile" ] || continue
		pid=$(cat "$pidfile")
		if [ -n "$pid" ] && kill "$pid" 2>/dev/null; then
			i=0
			while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
			kill -9 "$pid" 2>/dev/null || true
		fi
		rm -f "$pidfile"
	done
}

# A TCP port in 20000-59999 that nothing listens on (state 0A in /proc/net/tcp*).
free_port() {
	while :; do
		port=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 40000))
		hex=$(printf '%04X' "$port")
		if ! grep -q ":$hex [0-9A-F:]* 0A " /proc/net/tcp /proc/net/tcp6 2>/dev/null; then
			echo "$port"
			return
		fi
	done
}

start() {
	stop
	rm -rf "$dir/state" "$dir/spool"
	mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
	chmod 700 "$dir/munge"
	# A key of its own: the cluster trusts nothing else on the machine.
	dd if=/dev/urandom of="$dir/munge/munge.key" bs=1 count=1024 2>/dev/null
	chmod 400 "$dir/munge/munge.key"
	munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
		--pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed"
	host=$(hostname -s)
	cpus=$(nproc)
	mem=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
	cat >"$conf" <<CONF
ClusterName=kittest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmdTimeout=60
InactiveLimit=0
KillWait=5
# Ended jobs kept 10 minutes (Slurm's default is 5): with no accounting,
# --collect learns how a cancelled task ended from scontrol, once the job's
# other tasks are done, which on a busy 2-core machine can be minutes later.
MinJobAge=600
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem Gres=gpu:$(echo ${SLURM_GPUS:-a b} | wc -w) State=UNKNOWN
PartitionName=kit Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
	gpus=${SLURM_GPUS:-/dev/null /dev/zero}
	: >"$dir/gres.conf"
	for g in $gpus; do echo "Name=gpu File=$g" >>"$dir/gres.conf"; done
	SLURM_CONF=$conf slurmctld -f "$conf"
	SLURM_CONF=$conf slurmd -f "$conf"
	i=0
	until SLURM_CONF=$conf sinfo -h -o %t 2>/dev/null | grep -q '^idle'; do
		i=$((i + 1))
		if [ $i -gt 60 ]; then
			echo "cluster.sh: the node did not come up in 30 s:" >&2
			tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2
			stop
			exit 1
		fi
		sleep 0.5
	done
}

case $action in
start) start ;;
stop) stop ;;
*) echo "usage: cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
