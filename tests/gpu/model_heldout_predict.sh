#!/bin/bash
# The emulator's prediction for every file of the held-out and training sets
# (tests/gpu/model_heldout.sh grades the same files on a GPU): each graded with
# --backend emu, the report's predicted % of copy kept. No GPU needed.
#
#   OUT=/tmp/pred [GPU="NVIDIA H200"] bash tests/gpu/model_heldout_predict.sh [heldout|training]
#
# An emulated grade predicts for the H100 wherever the rubric has its section
# (steps/prediction.c); GPU: predict for that GPU instead, each lab graded with
# --rubric, a copy of its lab.ini without the other GPUs' sections.
# Writes $OUT/predicted.tsv (set, lab, file, predicted % of copy, score,
# predicted bound, grade exit status, seconds) and each grade's JSON and log.
set -u
OUT=${OUT:-build/model-heldout-predict}
only=${1:-}
GPU=${GPU:-}
mkdir -p "$OUT"
export NO_COLOR=1
{
	for f in tests/gpu/heldout/*.cu; do b=$(basename "$f"); echo "heldout ${b%%_*} $f"; done
	grep -v '^#' tests/gpu/model_fit/training.txt | awk 'NF == 2 { print "training", $1, $2 }'
} >"$OUT/files.txt"
printf 'set\tlab\tfile\tpredicted_pct\tscore\tbound\texit\tseconds\n' >"$OUT/predicted.tsv"
while read -r set lab f; do
	[ -n "$only" ] && [ "$set" != "$only" ] && continue
	name=$(echo "${f%.cu}" | tr '/' '_')
	case "$lab" in lab3) sub=$OUT/$name/transpose.cu ;; lab4) sub=$OUT/$name/occupancy.cu ;; *) sub=$OUT/$name/scan.cu ;; esac
	mkdir -p "$(dirname "$sub")"
	# A submission is compiled alone: its local headers pasted in.
	python3 tests/gpu/student_copy.py "$f" "$sub"
	rubric=()
	if [ -n "$GPU" ]; then
		rubric=(--rubric "$OUT/$lab.ini")
		awk -v keep="[gpu \"$GPU\"]" '/^\[/ { skip = /^\[gpu / && $0 != keep } !skip' labs/"$lab"-*/lab.ini >"$OUT/$lab.ini"
	fi
	t0=$(date +%s.%N)
	timeout 300 ./grade "$lab" --submission "$sub" --backend emu --plot none --json "$OUT/$name.json" \
		"${rubric[@]}" >"$OUT/$name.log" 2>&1
	rc=$?
	python3 - "$OUT/$name.json" "$set" "$lab" "$f" "$rc" "$t0" >>"$OUT/predicted.tsv" <<'PY'
import json, sys, time
path, s, lab, f, rc, t0 = sys.argv[1:]
try:
    r = json.load(open(path))
except (OSError, ValueError):
    r = {}
m = r.get("metrics") or {}
p = m.get("predicted_percent_of_copy")
print("%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f" % (s, lab, f, "-" if p is None else "%.2f" % p, r.get("score", "-"),
                                         m.get("predicted_bound") or ("none: " + m.get("prediction_error", "?")[:80]),
                                         rc, time.time() - float(t0)))
PY
done <"$OUT/files.txt"
