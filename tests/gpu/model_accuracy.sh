#!/bin/bash
# The performance model's accuracy: every skeleton, solution and fixture of
# labs 1-4 graded on this GPU, one --batch per lab. Each report carries the
# measured % of copy and, beside it, the model's prediction for this GPU from
# the file's emulator trace (metrics.predicted_percent_of_copy, predicted_for);
# tabulated: file, measured, predicted, error.
#
#   make && OUT=/tmp/out bash tests/gpu/model_accuracy.sh [LAB...]   (default: lab1 lab2 lab3 lab4)
#
# Labs may be run in separate calls with the same OUT: the table covers every lab
# run so far. BACKEND=emu (default cuda) tries the script without a GPU (no
# measured column then).
# Writes under $OUT/model-accuracy/: class-LAB/ (the files as a class: a fixture's
# own header, like lab 4's exact_occupancy.h, is pasted into its copy, since a
# batch compiles the student's file alone), cuda-LAB/ (the batch's gradebook and
# reports), progress.txt, and table.md: the table of docs/results/model-<gpu>.md.
set -u
OUT=${OUT:-build/gpu-evidence}
DIR=$OUT/model-accuracy
mkdir -p "$DIR"
export NO_COLOR=1
labs=${*:-lab1 lab2 lab3 lab4}
backend=${BACKEND:-cuda}

files_of() {
	local n=${1#lab}
	ls labs/lab"$n"-*/*.cu solutions/lab"$n"-*/*.cu tests/fixtures/lab"$n"/*.cu 2>/dev/null
}

# student_copy FILE DEST: FILE with its local #include "x.h" pasted in.
student_copy() {
	python3 tests/gpu/student_copy.py "$1" "$2"
}

for lab in $labs; do
	rm -rf "$DIR/class-$lab" "$DIR/cuda-$lab"
	mkdir -p "$DIR/class-$lab"
	: >"$DIR/files-$lab.txt"
	for f in $(files_of "$lab"); do
		name=$(echo "${f%.cu}" | tr '/' '_' | tr -c 'A-Za-z0-9_\n' '_')
		student_copy "$f" "$DIR/class-$lab/$name.cu"
		printf '%s %s %s\n' "$lab" "$f" "$name" >>"$DIR/files-$lab.txt"
	done
	t0=$(date +%s)
	timeout 540 ./grade "$lab" --batch "$DIR/class-$lab" --out "$DIR/cuda-$lab" --backend "$backend" \
		--plot none >"$DIR/cuda-$lab.log" 2>&1
	echo "cuda $lab batch exit $? in $(( $(date +%s) - t0 )) s" | tee -a "$DIR/progress.txt"
done

python3 - "$DIR" <<'PY'
import glob, json, os, statistics, sys
d = sys.argv[1]
rows, errors, gpus = [], [], set()
fmt = lambda v: "-" if v is None else "%.1f" % v
lines = [l for f in sorted(glob.glob(os.path.join(d, "files-lab*.txt"))) for l in open(f)]
for line in lines:
    lab, f, name = line.split()
    try:
        r = json.load(open(os.path.join(d, "cuda-" + lab, "students", name, "report.json")))
    except (OSError, ValueError):
        r = {}
    m = r.get("metrics") or {}
    meas, pred = m.get("percent_of_copy"), m.get("predicted_percent_of_copy")
    if r.get("device"):
        gpus.add("%s (predicted for %s)" % (r["device"], m.get("predicted_for", "-")))
    err = None if meas is None or pred is None else pred - meas
    if err is not None:
        errors.append(abs(err))
    why = m.get("predicted_bound") or ("no prediction: " + m["prediction_error"][:60] if m.get("prediction_error") else "")
    rows.append("| %s | %s | %s | %s | %s | %s |" % (lab, f, fmt(meas), fmt(pred), fmt(err), why))
out = ["GPU: %s" % ("; ".join(sorted(gpus)) or "?"), "",
       "| lab | file | measured % of copy | predicted % | error (points) | predicted bound |",
       "| --- | --- | --- | --- | --- | --- |"] + rows
if errors:
    out += ["", "%d files with both figures: median |error| %.1f points of copy, largest %.1f, %d within 10"
            % (len(errors), statistics.median(errors), max(errors), sum(e <= 10 for e in errors))]
open(os.path.join(d, "table.md"), "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
