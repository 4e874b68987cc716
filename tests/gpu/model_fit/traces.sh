#!/bin/bash
# The emulator's prediction traces of lab files, as a grade's prediction step
# takes them (steps/traced_sizes.h): the largest of the rubric's emulator sizes
# of at most TRACED_MAX_ELEMENTS and the largest with at most half its
# elements, each a correctness run with a sample of blocks traced; and a CASES
# file for model_eval pairing them with the measured % of copy.
#
#   tests/gpu/model_fit/traces.sh MEASURED OUT_DIR > CASES
#
# MEASURED: lines "LAB FILE PERCENT" (the % of copy a GPU measured for FILE;
# "-" lines are skipped). CASES lines: "BIG.json SMALL.json FACTOR MIN_BYTES
# PERCENT" (FACTOR: graded elements / BIG's). Needs a built kit (make).
set -eu
measured=$1 out=$2
kit=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
# The largest size a grade traces (larger emulator sizes run untraced).
traced_max=$(( $(sed -n 's/^#define TRACED_MAX_ELEMENTS ((size_t)\(.*\))$/\1/p' "$kit/grader/steps/traced_sizes.h") ))

# elems SHAPE: a shape's elements (N, 2^K, 2^K+C, RxC).
elems() {
	case $1 in
	*x*) echo $(( ${1%x*} * ${1#*x} )) ;;
	*) echo $(( $(echo "$1" | sed 's/2^\([0-9]*\)/(1<<\1)/') )) ;;
	esac
}

while read -r lab file pct; do
	case $lab in "" | \#*) continue ;; esac
	[ "$pct" = - ] && continue
	ini=$(ls "$kit"/labs/"$lab"-*/lab.ini)
	graded=$(sed -n '/^\[performance\]/,/^\[/s/^shape *= *//p' "$ini" | head -1)
	shapes=$(sed -n '/^\[correctness\]/,/^\[/s/^emu_shapes *= *//p' "$ini" | tr ' ' '\n')
	big=$(for s in $shapes; do echo "$(elems "$s") $s"; done | sort -n | awk -v m="$traced_max" '$1 <= m' | tail -1)
	half=$(for s in $shapes; do echo "$(elems "$s") $s"; done | sort -n |
		awk -v b="${big% *}" '2 * $1 <= b' | tail -1)
	name=$lab-$(echo "${file%.cu}" | tr '/' '_')
	work=$(mktemp -d)
	cp "$file" "$work/s.cu"
	timeout 300 "$kit/build/emu/cuemu-cc" -I"$(dirname "$file")" -I"$kit/common" -c "$work/s.cu" -o "$work/s.o"
	timeout 300 "$kit/build/emu/cuemu-cc" -o "$work/h" -Wl,--wrap=exit "$kit/build/harness/emu/harness_main.o" \
		"$kit/build/harness/emu/bench.o" "$kit/build/harness/emu/gpu_share.o" "$kit/build/harness/emu/output_send.o" "$kit/build/harness/emu/predict.o" \
		"$kit/build/harness/harness/student_exit.o" \
		"$kit/build/harness/labs/${lab}_entry.o" "$work/s.o" "$kit/build/libkit.a"
	for which in big half; do
		s=${!which#* }
		(cd "$work" && timeout 120 ./h predict "$lab" "$s" 1 3>"$work/channel" >/dev/null) || true
		python3 - "$work/channel" "$out/$name.$which.json" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
at = 0
while at + 16 <= len(data):
    magic, kind, length = struct.unpack("<IIQ", data[at:at + 16])
    at += 16
    if kind == 6:	# MSG_METRICS
        open(sys.argv[2], "wb").write(data[at:at + length])
    at += length
PY
	done
	rm -rf "$work"
	ge=$(elems "$graded")
	echo "$out/$name.big.json $out/$name.half.json $(python3 -c "print($ge / $(elems "${big#* }"))") $(( 8 * ge )) $pct"
done <"$measured"
