#!/bin/sh
# Checks the Debian packages the kit needs and installs the missing ones when
# it can (root with apt-get); otherwise prints the one command to run.
#
# DEPS_PREFIX: a folder holding packages unpacked with dpkg -x, for a machine
# that reaches no package registry. KIT_NO_INSTALL=1: never call apt-get.
#
#   sh mk/deps.sh          what the kit needs to build and grade
#   sh mk/deps.sh slurm    Slurm and munge, for make test-slurm's cluster
set -u
set_name=${1:-kit}
prefix=${DEPS_PREFIX:-}
required=""	# the build cannot go on without these
optional=""	# charts and batch isolation; grading works without them

have_header() {
	for d in /usr/include ${prefix:+$prefix/usr/include}; do
		[ -f "$d/$1" ] && return 0
	done
	return 1
}
have_program() {
	command -v "$1" >/dev/null 2>&1 || { [ -n "$prefix" ] && [ -x "$prefix/usr/bin/$1" ]; }
}

case $set_name in
kit)
	have_header criterion/criterion.h || required="$required libcriterion-dev"
	have_header jansson.h || required="$required libjansson-dev"
	have_header ini.h || required="$required libinih-dev"
	have_program gnuplot || optional="$optional gnuplot-nox"
	have_program bwrap || optional="$optional bubblewrap"
	;;
slurm)	# slurm-wlm: slurmctld, slurmd and the commands (sbatch, squeue, ...)
	{ have_program slurmctld && have_program slurmd && have_program sbatch; } ||
		required="$required slurm-wlm"
	have_program munged || required="$required munge"
	have_program pgrep || required="$required procps"	# the test finds a task's worker
	;;
*)
	echo "deps: no package set called '$set_name' (kit, slurm)" >&2
	exit 2
	;;
esac

[ -z "$required$optional" ] && exit 0

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && [ "${KIT_NO_INSTALL:-0}" != 1 ]; then
	echo "deps: installing$required$optional" >&2
	export DEBIAN_FRONTEND=noninteractive
	if apt-get install -y -q --no-install-recommends $required $optional >&2 ||
	   { apt-get update -q >&2 &&
	     apt-get install -y -q --no-install-recommends $required $optional >&2; }; then
		exit 0
	fi
fi
if [ -n "$required" ]; then
	echo "deps: missing Debian packages:$required" >&2
	echo "deps: run:  sudo apt-get install$required$optional" >&2
	exit 1
fi
echo "deps: not installed:$optional (charts or batch isolation will be skipped;" \
     "sudo apt-get install$optional)" >&2
exit 0
