#!/bin/bash
# One honest grade on a GPU: the grades that the weights promise, measured.
#
#   OUT=/tmp/out bash tests/gpu/honest_grade.sh
#
# Grades with ./grade LAB --backend cuda the files whose grade the rubric
# bounds: each lab's reference solution and good fixtures (at least 95 of
# 100), lab 2's Hillis-Steele scans and lab 3's naive transpose (at most 70),
# and a file that does not build and one the integrity check refuses (0 of
# 100: one scale). Writes $OUT/honest_grade/table.txt: file, score, max, the
# bound, and whether it holds; each grade's text and JSON report beside it.
# Every GPU command runs under timeout.
set -u
. "$(dirname "$0")/setup.sh"
gpu_setup honest_grade
TABLE=$LOG/table.txt

# row LAB FILE BOUND: one grade (FILE "" grades the solution); BOUND is
# ">=95", "<=70" or "=0".
row() {
	local lab=$1 file=$2 bound=$3 name
	name=$lab-$(basename "${file:-solution}" .cu)
	local args=(--backend cuda --plot none --json "$LOG/$name.json")
	if [ -n "$file" ]; then args+=(--submission "$file"); else args+=(--solution); fi
	timeout 900 ./grade "$lab" "${args[@]}" >"$LOG/$name.txt" 2>"$LOG/$name.err"
	local rc=$?
	python3 - "$LOG/$name.json" "$lab" "${file:-solutions/}" "$bound" "$rc" >>"$TABLE" <<'PY'
import json, sys
path, lab, file, bound, rc = sys.argv[1:]
try:
    j = json.load(open(path))
    score, top = j["score"], j["max_score"]
    ok = {">=95": score >= 95, "<=70": score <= 70, "=0": score == 0}[bound]
    perf = j.get("metrics", {}).get("percent_of_copy")
    pct = "%.1f%%" % perf if perf is not None else "-"
    print("%-5s %-46s %7.2f %6.2f  %-5s %-4s %8s  exit %s" % (lab, file, score, top, bound,
          "ok" if ok and top == 100 else "NO", pct, rc))
except Exception as e:
    print("%-5s %-46s  no report (exit %s): %s" % (lab, file, rc, e))
PY
	tail -1 "$TABLE"
}

say "grades on $GPU"
printf '%-5s %-46s %7s %6s  %-5s %-4s %8s\n' lab file score max bound held "% copy" >"$TABLE"
for lab in lab1 lab2 lab3 lab4; do
	row $lab "" ">=95"
done
row lab1 tests/fixtures/lab1/block_scan.cu ">=95"
row lab2 tests/fixtures/lab2/hillis_steele.cu "<=70"
row lab2 tests/fixtures/lab2/hillis_steele_warp.cu "<=70"
row lab3 labs/lab3-transpose/transpose.cu "<=70"
row lab3 tests/fixtures/lab3/naive.cu "<=70"
row lab3 tests/fixtures/lab3/padded.cu ">=95"
row lab3 tests/fixtures/hostile/good_padded.cu ">=95"
row lab3 tests/fixtures/hostile/thrust_call.cu "=0"
row lab2 tests/fixtures/lab3/padded.cu "=0"
say "table"
cat "$TABLE"
