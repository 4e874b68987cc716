#!/bin/sh
# Checks the Debian packages the kit needs and installs the missing ones when
# it can (root with apt-get); otherwise prints the one command to run.
# DEPS_PREFIX: a folder holding the packages unpacked (dpkg -x), for a machine
# that reaches no package registry.
set -u
prefix=${DEPS_PREFIX:-}
inc="/usr/include $prefix/usr/include"
missing=""

have_header() {
	for d in $inc; do [ -f "$d/$1" ] && return 0; done
	return 1
}
have_header criterion/criterion.h || missing="$missing libcriterion-dev"
have_header jansson.h || missing="$missing libjansson-dev"
have_header ini.h || missing="$missing libinih-dev"
# gnuplot is optional for grading (charts are skipped without it) but the
# kit's tests render a real chart, so the build installs it like the rest.
command -v gnuplot >/dev/null 2>&1 || [ -x "$prefix/usr/bin/gnuplot" ] || missing="$missing gnuplot-nox"
# bubblewrap isolates batch submissions where present; optional elsewhere.
command -v bwrap >/dev/null 2>&1 || [ -x "$prefix/usr/bin/bwrap" ] || optional="bubblewrap"

if [ -z "$missing" ]; then
	exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing$missing ${optional:-}" >&2
	export DEBIAN_FRONTEND=noninteractive
	if apt-get install -y -q --no-install-recommends $missing ${optional:-} >&2 ||
	   { apt-get update -q >&2 && apt-get install -y -q --no-install-recommends $missing ${optional:-} >&2; }; then
		exit 0
	fi
	echo "deps: apt-get could not install:$missing" >&2
	exit 1
fi
echo "deps: missing Debian packages:$missing" >&2
echo "deps: run:  sudo apt-get install$missing ${optional:-}" >&2
exit 1
