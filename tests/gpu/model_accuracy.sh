#!/bin/bash
# The performance model's accuracy: grade every skeleton, solution and fixture
# of labs 1-4 on this GPU (measured % of copy) and in the emulator (the model's
# prediction), then tabulate file, measured, predicted, error.
#
#   OUT=/tmp/out bash tests/gpu/model_accuracy.sh [LAB...]      (default: lab1 lab2 lab3 lab4)
#
# Needs a built kit (make). Writes $OUT/model-accuracy/{cuda,emu}/*.json, one
# log per grade, and $OUT/model-accuracy/table.md (docs/results/model-<gpu>.md's table).
set -u
OUT=${OUT:-build/gpu-evidence}
DIR=$OUT/model-accuracy
mkdir -p "$DIR/cuda" "$DIR/emu"
export NO_COLOR=1
labs=${*:-lab1 lab2 lab3 lab4}

files_of() {
	local n=${1#lab}
	ls labs/lab"$n"-*/*.cu solutions/lab"$n"-*/*.cu tests/fixtures/lab"$n"/*.cu 2>/dev/null
}

: >"$DIR/files.txt"
for lab in $labs; do
	for f in $(files_of "$lab"); do
		name=$lab-$(echo "${f%.cu}" | tr '/' '_')
		printf '%s %s %s\n' "$lab" "$f" "$name" >>"$DIR/files.txt"
		for backend in cuda emu; do
			t0=$(date +%s)
			timeout 600 ./grade "$lab" --submission "$f" --backend $backend --plot none \
				--json "$DIR/$backend/$name.json" >"$DIR/$backend/$name.txt" 2>"$DIR/$backend/$name.err"
			echo "$backend $name exit $? in $(( $(date +%s) - t0 )) s"
		done
	done
done | tee "$DIR/progress.txt"

python3 - "$DIR" <<'PY'
import json, os, statistics, sys
d = sys.argv[1]
def load(path):
    try:
        with open(path) as f:
            return json.load(f).get("metrics", {})
    except (OSError, ValueError):
        return {}
rows, errors = [], []
for line in open(os.path.join(d, "files.txt")):
    lab, f, name = line.split()
    cuda = load(os.path.join(d, "cuda", name + ".json"))
    emu = load(os.path.join(d, "emu", name + ".json"))
    meas = cuda.get("percent_of_copy")
    pred = emu.get("predicted_percent_of_copy", cuda.get("predicted_percent_of_copy"))
    bound = emu.get("predicted_bound", "")
    err = None if meas is None or pred is None else pred - meas
    if err is not None:
        errors.append(abs(err))
    fmt = lambda v: "-" if v is None else "%.1f" % v
    rows.append("| %s | %s | %s | %s | %s | %s |" % (lab, f, fmt(meas), fmt(pred), fmt(err), bound))
gpu = ""
for line in open(os.path.join(d, "files.txt")):
    j = os.path.join(d, "cuda", line.split()[2] + ".json")
    try:
        gpu = json.load(open(j)).get("device", "")
        if gpu:
            break
    except (OSError, ValueError):
        pass
out = ["GPU: %s" % gpu, "",
       "| lab | file | measured % of copy | predicted % | error (points) | predicted bound |",
       "| --- | --- | --- | --- | --- | --- |"] + rows
if errors:
    out += ["", "%d files compared; median |error| %.1f points, largest %.1f, within 10 points: %d"
            % (len(errors), statistics.median(errors), max(errors), sum(e <= 10 for e in errors))]
open(os.path.join(d, "table.md"), "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
