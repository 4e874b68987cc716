#!/bin/sh
# Runs every conformance fixture's emulator build (conformance.mk) on the
# awkward sizes and two seeds each; every run must print "pass".
#
#   sh tests/conformance/run.sh SRC_DIR BUILD_DIR
#
# A fixture's header names its lab ("Conformance fixture, lab 3"), which
# says whether SIZE is n (a scan) or ROWSxCOLS (a transpose). Each run has
# a time limit (CONFORMANCE_TIMEOUT seconds, 120). Exit status 1 when any
# run failed, with the failures listed.
set -u
src=$1 build=$2
limit=${CONFORMANCE_TIMEOUT:-120}
scan_sizes="1 31 32 33 1000 1023 1024 1025 65537 1048576"
transpose_sizes="1x1 1x33 33x1 31x33 32x32 33x65 100x1000 1024x1024 257x4099"
seeds="1 20261124"

lab_of() {
	sed -n 's/.*Conformance fixture, lab \([0-9]\).*/\1/p' "$1" | head -n 1
}

runs=0 failed=0
for f in "$src"/*.cu; do
	name=$(basename "$f" .cu)
	case $(lab_of "$f") in
	1|2) sizes=$scan_sizes ;;
	3) sizes=$transpose_sizes ;;
	*) echo "conformance: $f does not name its lab in its header" >&2; exit 2 ;;
	esac
	before=$failed
	for size in $sizes; do
		for seed in $seeds; do
			runs=$((runs + 1))
			out=$(timeout "$limit" "$build/$name.emu" "$size" "$seed" 2>&1)
			rc=$?
			if [ $rc -ne 0 ] || [ "$(printf '%s\n' "$out" | tail -n 1)" != pass ]; then
				failed=$((failed + 1))
				echo "FAIL $name size $size seed $seed (exit $rc): $(printf '%s' "$out" | tail -n 3)"
			fi
		done
	done
	# Progress, a line a fixture: make test is never silent for long.
	echo "  conformance $name: $(($(echo $sizes | wc -w) * $(echo $seeds | wc -w))) runs, $((failed - before)) failed"
done
echo "conformance: $runs runs, $failed failed"
[ $failed -eq 0 ]
