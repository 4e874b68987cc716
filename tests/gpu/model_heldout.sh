#!/bin/bash
# The performance model against code that did not train it: every file of the
# held-out set (tests/gpu/heldout/) and of the training set
# (tests/gpu/model_fit/training.txt) graded on this GPU, the measured % of copy
# kept; the microbenchmarks of the model's mechanisms (model_physics.cu), the
# parameters' sweep (model_params.cu quick) and each file's registers per
# thread (ptxas). On a GPU machine, the kit built (make -j16 all):
#
#   OUT=/tmp/out bash tests/gpu/model_heldout.sh
#
# Writes at most 8 files under $OUT: machine.txt, physics.txt, params.txt,
# registers.txt, measured.tsv (set, lab, file, measured % of copy, score),
# progress.txt, grades.tar.gz (every grade's JSON report and log). Stops
# grading at BUDGET_S seconds (default 340) so the whole run stays under 7
# minutes; the held-out set goes first. Without a GPU, BACKEND=emu REGISTERS=0
# BUDGET_S=20 tries the script's steps.
set -u
OUT=${OUT:-build/gpu-evidence/model-heldout}
BUDGET_S=${BUDGET_S:-340}
mkdir -p "$OUT" build/gpu
WORK=$(mktemp -d)
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
export NO_COLOR=1
{ timeout 30 nvidia-smi; timeout 30 nvcc --version; date -u; git rev-parse HEAD 2>/dev/null; } >"$OUT/machine.txt" 2>&1
cc=$(timeout 30 nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d .)
arch=sm_${cc:-90}
: >"$OUT/progress.txt"
log() { echo "[$(elapsed) s] $*" | tee -a "$OUT/progress.txt"; }

# student_copy FILE DEST: FILE with its local #include "x.h" pasted in (a
# submission is compiled alone).
student_copy() {
	python3 tests/gpu/student_copy.py "$1" "$2"
}

lists() {
	for f in tests/gpu/heldout/*.cu; do
		b=$(basename "$f")
		echo "heldout ${b%%_*} $f"
	done
	grep -v '^#' tests/gpu/model_fit/training.txt | awk 'NF == 2 { print "training", $1, $2 }'
}
lists >"$WORK/all.txt"

# Registers per thread of every kernel (the model's occupancy term), in the
# background while the GPU measures: CPU only.
(
	[ "${REGISTERS:-1}" = 1 ] || exit 0
	while read -r set lab f; do
		name=$(echo "${f%.cu}" | tr '/' '_')
		student_copy "$f" "$WORK/reg_$name.cu"
		echo "== $set $lab $f"
		timeout 60 nvcc -arch="$arch" -Icommon -c -Xptxas -v -o /dev/null "$WORK/reg_$name.cu" 2>&1 |
			grep -E "Compiling entry|Used [0-9]+ registers"
	done <"$WORK/all.txt" >"$OUT/registers.txt" 2>&1
) &
regs_pid=$!

# The mechanisms first (about 30 s).
if timeout 120 nvcc -O3 -arch="$arch" -o build/gpu/model_physics tests/gpu/model_physics.cu tests/gpu/model_physics_rows.cu tests/gpu/model_physics_path.cu >"$WORK/physics-build.log" 2>&1; then
	timeout 90 build/gpu/model_physics >"$OUT/physics.txt" 2>&1
	log "model_physics exit $?"
else
	cp "$WORK/physics-build.log" "$OUT/physics.txt"
	log "model_physics build failed"
fi

printf 'set\tlab\tfile\tmeasured_pct_of_copy\tscore\tpredicted_pct\n' >"$OUT/measured.tsv"
mkdir -p "$WORK/grades"
while read -r set lab f; do
	if [ "$(elapsed)" -ge "$BUDGET_S" ]; then
		log "budget spent: $set $f not graded"
		continue
	fi
	name=$(echo "${f%.cu}" | tr '/' '_')
	case "$lab" in lab3) sub="$WORK/$name/transpose.cu" ;; lab4) sub="$WORK/$name/occupancy.cu" ;; *) sub="$WORK/$name/scan.cu" ;; esac
	mkdir -p "$(dirname "$sub")"
	student_copy "$f" "$sub"
	json="$WORK/grades/$name.json"
	timeout 60 ./grade "$lab" --submission "$sub" --backend "${BACKEND:-cuda}" --plot none --json "$json" \
		>"$WORK/grades/$name.log" 2>&1
	rc=$?
	python3 - "$json" "$set" "$lab" "$f" >>"$OUT/measured.tsv" <<'PY'
import json, sys
path, s, lab, f = sys.argv[1:]
try:
    r = json.load(open(path))
except (OSError, ValueError):
    r = {}
m = r.get("metrics") or {}
pct = m.get("percent_of_copy")
pred = m.get("predicted_percent_of_copy")
print("%s\t%s\t%s\t%s\t%s\t%s" % (s, lab, f, "-" if pct is None else "%.2f" % pct, r.get("score", "-"),
                               "-" if pred is None else "%.2f" % pred))
PY
	log "$set $f: grade exit $rc"
done <"$WORK/all.txt"

# The parameters' own sweep (stream, scatter, launches), if time is left.
left=$(( 380 - $(elapsed) ))
if [ "$left" -gt 40 ] && timeout 120 nvcc -O3 -arch="$arch" -o build/gpu/model_params tests/gpu/model_params.cu >/dev/null 2>&1; then
	timeout "$(( left - 10 ))" build/gpu/model_params quick >"$OUT/params.txt" 2>&1
	log "model_params quick exit $?"
fi
wait "$regs_pid"
tar -czf "$OUT/grades.tar.gz" -C "$WORK" grades
rm -rf "$WORK"
log "done"
