#!/bin/bash
# This GPU's bands for every lab, then the verdicts they give: run it on an
# H100 and on an H200 and compare the two summaries.
#
#   OUT=/tmp/out bash tests/gpu/bands.sh [lab1 lab2 lab3 lab4]
#
# For each lab: `./grade LAB --calibrate` (writes this GPU's [gpu "..."]
# section into labs/LAB*/lab.ini), then the reference solution and every
# [calibrate] fixture graded with the new band. Writes $OUT/bands/summary.md
# (one line per grade: performance points, % of copy, verdict) and the
# rubric diff (the lines to commit).
set -u
. "$(dirname "$0")/setup.sh"
labs=${*:-lab1 lab2 lab3 lab4}
gpu_setup bands
SUMMARY=$LOG/summary.md
printf '# Bands and verdicts on %s\n\n' "$GPU" >"$SUMMARY"

# grade LAB NAME FILE: one grade with the new band, one line in the summary.
grade() {
	timeout 900 ./grade "$1" --submission "$3" --plot none --no-analysis --json "$LOG/$1-$2.json" \
		>"$LOG/$1-$2.txt" 2>&1
	local rc=$?
	python3 - "$LOG/$1-$2.json" "$1" "$2" "$rc" >>"$SUMMARY" <<'EOF' || echo "| $1 | $2 | exit $rc, no report | | |" >>"$SUMMARY"
import json, sys
path, lab, name, rc = sys.argv[1:]
j = json.load(open(path))
perf = [t for t in j['tests'] if t['group'] == 'performance']
pts = sum(t['points'] for t in perf)
mx = sum(t['max_points'] for t in perf)
m = j.get('metrics', {})
pct = m.get('percent_of_copy')
verdict = 'zero' if pts == 0 else 'full' if abs(pts - mx) < 1e-6 else 'partial'
print('| %s | %s | %.2f / %.0f | %s | %s |' % (lab, name, pts, mx,
      '%.1f' % pct if pct is not None else '-', verdict))
EOF
}

for lab in $labs; do
	dir=$(cd labs && ls -d "$lab"-* | head -1)
	say "$lab"
	timeout 900 ./grade "$lab" --calibrate 2>&1 | tee "$LOG/calibrate-$lab.txt"
	printf '\n## %s\n\n' "$lab" >>"$SUMMARY"
	sed -n '/^\[gpu "'"$GPU"'"\]/,/^measured/p' "labs/$dir/lab.ini" | sed 's/^/    /' >>"$SUMMARY"
	printf '\n| lab | graded | performance points | %% of copy | verdict |\n| --- | --- | --- | --- | --- |\n' >>"$SUMMARY"
	grade "$lab" solution "solutions/$dir/$(basename "$(ls labs/"$dir"/*.cu | head -1)")"
	for f in $(sed -n '/^\[calibrate\]/,/^\[/{s/^\(zero\|partial\|full\) *= *//p}' "labs/$dir/lab.ini"); do
		grade "$lab" "$(basename "$f" .cu)" "$f"
	done
done
git diff -- labs/ >"$LOG/rubrics.diff"
echo
cat "$SUMMARY"
