#!/bin/bash
# The emulator's prediction traces of kit files at their graded sizes, and a
# CASES file for model_eval pairing each with its measured % of copy.
#
#   tests/gpu/model_fit/kit_traces.sh MEASURED OUT_DIR > CASES
#
# MEASURED: lines "LAB FILE PERCENT" (the % of copy a GPU measured for FILE).
# Needs a built kit (make). Runs the harness as the grader does in a grade's
# prediction step (harness predict LAB SHAPE SEED SMS), outside the sandbox.
set -eu
measured=$1 out=$2 sms=${SMS:-132}
kit=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
while read -r lab file pct; do
	case $lab in "" | \#*) continue ;; esac
	dir=$(ls -d "$kit"/labs/"$lab"-*)
	shape=$(sed -n '/^\[performance\]/,/^\[/s/^shape *= *//p' "$dir/lab.ini" | head -1)
	case $shape in
	*x*) elems=$(( ${shape%x*} * ${shape#*x} )) ;;
	2^*) elems=$(( 1 << ${shape#2^} )) ;;
	*) elems=$shape ;;
	esac
	name=$lab-$(echo "${file%.cu}" | tr '/' '_')
	work=$(mktemp -d)
	timeout 300 "$kit/build/emu/cuemu-cc" -I"$(dirname "$file")" -I"$kit/common" -c "$file" -o "$work/s.o"
	timeout 300 "$kit/build/emu/cuemu-cc" -o "$work/h" "$kit/build/harness/emu/harness_main.o" \
		"$kit/build/harness/labs/${lab}_entry.o" "$work/s.o" "$kit/build/libkit.a"
	(cd "$work" && timeout 120 ./h predict "$lab" "$shape" 1 "$sms" 3>"$work/channel" >/dev/null)
	python3 - "$work/channel" "$out/$name.json" <<'PY'
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
	rm -rf "$work"
	echo "$out/$name.json $(( 8 * elems )) $pct"
done <"$measured"
