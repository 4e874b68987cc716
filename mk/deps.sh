#!/bin/sh
# Checks what the kit needs and installs the missing Debian packages when it
# can (root with apt-get); otherwise prints the command to run, for
# Debian/Ubuntu and for Fedora.
#
#   sh mk/deps.sh grade   what grading needs: a C compiler, make, jansson, inih
#                         (gnuplot and bubblewrap optional)
#   sh mk/deps.sh test    the same, and Criterion and headless Chromium for `make test`
#   sh mk/deps.sh slurm   Slurm and munge, for make test-slurm's cluster
#
# Libraries are found with pkg-config (their headers as a fallback, for a
# system without it). DEPS_PREFIX: a folder holding packages unpacked with
# dpkg -x, for a machine that reaches no package registry.
# KIT_NO_INSTALL=1: never call apt-get.
set -u
what=${1:-grade}
prefix=${DEPS_PREFIX:-}
CC=${CC:-gcc}
missing=""	# "debian-name:fedora-name" of what the build cannot go without
optional=""	# charts and batch isolation; grading works without them

case $what in
grade|test|slurm) ;;
*) echo "deps: usage: sh mk/deps.sh grade|test|slurm" >&2; exit 2 ;;
esac

if [ -n "$prefix" ]; then
	PKG_CONFIG_PATH="$prefix/usr/lib/x86_64-linux-gnu/pkgconfig:$prefix/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
	export PKG_CONFIG_PATH
fi

have_program() {
	command -v "$1" >/dev/null 2>&1 || { [ -n "$prefix" ] && [ -x "$prefix/usr/bin/$1" ]; }
}
# have_library PKG-CONFIG-NAME HEADER
have_library() {
	if command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$1"; then
		return 0
	fi
	for d in /usr/include /usr/local/include ${prefix:+$prefix/usr/include}; do
		[ -f "$d/$2" ] && return 0
	done
	return 1
}
need() { missing="$missing $1"; }

if [ "$what" = slurm ]; then
	# slurm-wlm: slurmctld, slurmd and the commands (sbatch, squeue, ...)
	{ have_program slurmctld && have_program slurmd && have_program sbatch; } ||
		need slurm-wlm:slurm-slurmctld
	have_program munged || need munge:munge
	have_program pgrep || need procps:procps-ng	# the test finds a task's worker
else
	have_program "$CC" || need gcc:gcc
	have_program make || need make:make
	have_library jansson jansson.h || need libjansson-dev:jansson-devel
	have_library inih ini.h || need libinih-dev:inih-devel
	[ "$what" = test ] && { have_library criterion criterion/criterion.h || need libcriterion-dev:criterion-devel; }
	# The HTML report's tests load it in a real browser (they say so and
	# check the file alone where there is none, as on a GPU machine that
	# reaches no registry).
	[ "$what" = test ] && { have_program chromium || have_program chromium-browser || optional="$optional chromium:chromium"; }
	have_program gnuplot || optional="$optional gnuplot-nox:gnuplot"
	[ "$what" = grade ] && { have_program bwrap || optional="$optional bubblewrap:bubblewrap"; }
fi

[ -z "$missing$optional" ] && exit 0

# names N LIST: the Debian (N=1) or Fedora (N=2) names in LIST
names() {
	for p in $2; do
		if [ "$1" = 1 ]; then printf ' %s' "${p%%:*}"; else printf ' %s' "${p#*:}"; fi
	done
}
deb_missing=$(names 1 "$missing")
deb_optional=$(names 1 "$optional")

if [ "$(id -u 2>/dev/null)" = 0 ] && command -v apt-get >/dev/null 2>&1 && [ "${KIT_NO_INSTALL:-0}" != 1 ]; then
	echo "deps: installing$deb_missing$deb_optional" >&2
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086 # one word per package
	if apt-get install -y -q --no-install-recommends $deb_missing $deb_optional >&2 ||
	   { apt-get update -q >&2 &&
	     apt-get install -y -q --no-install-recommends $deb_missing $deb_optional >&2; }; then
		exit 0
	fi
fi
install_hint() {
	echo "deps:   Debian/Ubuntu:  sudo apt-get install$(names 1 "$1")" >&2
	echo "deps:   Fedora:         sudo dnf install$(names 2 "$1")" >&2
}
if [ -n "$missing" ]; then
	echo "deps: missing for $( [ "$what" = test ] && echo 'make test' || echo 'the grader'):$deb_missing" >&2
	echo "deps: install them with" >&2
	install_hint "$missing$optional"
	exit 1
fi
echo "deps: not installed:$deb_optional (charts, batch isolation or the HTML report's browser tests will be skipped); to add them:" >&2
install_hint "$optional"
exit 0
