#!/bin/bash
# A class of lab 3 graded with --batch on one GPU, then on every GPU of the
# host: students an hour each way, what binds (the batch's "pace:" line),
# and per student what its worker waited for (the GPU's shared and timed
# turns, from gpu-waits.txt) and where its grade's seconds went (the
# report's step_seconds). For a GPU machine; keep it under 8 minutes:
#
#   OUT=/tmp/out bash tests/gpu/class_scaling.sh
#
# CLASS_SIZE (default 64) students: the lab's fixtures, the skeleton, the
# solution, the GPU variants, the shared-context, emulator-fault and
# time-limit fixtures and a dozen of the hostile files (a hang, an exit(),
# a crash, a fork bomb...), then copies of the solution, the tiled and
# naive fixtures and a variant (each with its own name, as students would
# be) until the class is full. BATCH_TIMEOUT (default 200) bounds each batch;
# a batch cut short still writes what it graded.
# Writes $OUT/class_scaling/{machine.txt,build.log,one-gpu.txt,all-gpus.txt,
# waits-*.tsv,summary.md}.
set -u
. "$(dirname "$0")/setup.sh"
say "machine and build"
gpu_setup class_scaling
N=${CLASS_SIZE:-64}
T=${BATCH_TIMEOUT:-200}
GPUS=$(nvidia-smi --query-gpu=index --format=csv,noheader | wc -l)
CLASS=$(mktemp -d /tmp/class-XXXXXX)

say "the class: $N lab 3 submissions"
add() { [ "$(ls "$CLASS" | wc -l)" -lt "$N" ] && cp "$1" "$CLASS/$2.cu"; }
for f in tests/fixtures/lab3/*.cu; do add "$f" "fixture_$(basename "$f" .cu)"; done
add labs/lab3-transpose/transpose.cu skeleton
add solutions/lab3-transpose/transpose.cu solution
for f in tests/gpu/variants/transpose_*.cu tests/fixtures/shared/*.cu tests/fixtures/emu_faults/*.cu \
	tests/fixtures/time_limits/*.cu; do
	add "$f" "other_$(basename "$f" .cu)"
done
# A few of the broken and hostile files a real class has, not all of them.
for f in exit_in_entry infinite_loop segfault write_past_end big_output deep_recursion fork_bomb \
	gpu_pointer_reuse good_padded good_solution lab3_naive lab3_unpadded; do
	add "tests/fixtures/hostile/$f.cu" "hostile_$f"
done
k=0
while [ "$(ls "$CLASS" | wc -l)" -lt "$N" ]; do
	for f in solutions/lab3-transpose/transpose.cu tests/fixtures/lab3/padded.cu \
		tests/fixtures/lab3/unpadded.cu tests/fixtures/lab3/naive.cu \
		tests/gpu/variants/transpose_tile.cu tests/fixtures/lab3/no_sync.cu; do
		add "$f" "student_$k"
		k=$((k + 1))
	done
done
ls "$CLASS" | wc -l

# Warm the reference's times (build/reference-times/) and the known
# symbols' cache as the kit's first grade would, outside the timings.
timeout 120 ./grade lab3 --solution --plot none >"$LOG/warm.txt" 2>&1

# run NAME VISIBLE: one batch of the class, its pace line and its waits.
run() {
	local name=$1 visible=$2 out=$LOG/$1-out t0 t1
	rm -rf "$out"
	t0=$(date +%s.%N)
	if [ -n "$visible" ]; then
		CUDA_VISIBLE_DEVICES=$visible timeout "$T" ./grade lab3 --batch "$CLASS" --out "$out" \
			--plot none >"$LOG/$name.txt" 2>&1
	else
		timeout "$T" ./grade lab3 --batch "$CLASS" --out "$out" --plot none >"$LOG/$name.txt" 2>&1
	fi
	echo "exit $?" >>"$LOG/$name.txt"
	t1=$(date +%s.%N)
	local graded
	graded=$(ls "$out"/students/*/summary.json 2>/dev/null | wc -l)
	awk -v a="$t0" -v b="$t1" -v n="$graded" -v name="$name" 'BEGIN {
		printf "%s: %d students in %.1f s = %.0f an hour\n", name, n, b - a, n * 3600 / (b - a) }' |
		tee -a "$LOG/rates.txt"
	grep '^pace:' "$LOG/$name.txt"
	python3 - "$out" "$LOG/waits-$name.tsv" <<'PY'
import glob, json, os, sys
out, tsv = sys.argv[1], sys.argv[2]
rows = []
for d in sorted(glob.glob(os.path.join(out, "students", "*"))):
    w = {}
    try:
        for kv in open(os.path.join(d, "gpu-waits.txt")).read().split():
            k, v = kv.split("=", 1)
            w[k] = v
        steps = json.load(open(os.path.join(d, "report.json"))).get("step_seconds", {})
    except (OSError, ValueError):
        continue
    rows.append((os.path.basename(d), w, steps))
names = ["build", "integrity", "correctness", "prediction", "reference", "performance", "analysis"]
with open(tsv, "w") as f:
    f.write("student\tgpu\tworker_s\twait_shared_s\theld_shared_s\twait_alone_s\theld_alone_s\t" +
            "correctness_processes\t" + "\t".join(n + "_s" for n in names) + "\n")
    for s, w, steps in rows:
        f.write("\t".join([s, w.get("gpu", "-"), w.get("worker_s", ""), w.get("wait_shared_s", ""),
                           w.get("held_shared_s", ""), w.get("wait_alone_s", ""), w.get("held_alone_s", ""),
                           w.get("correctness_processes", "")] +
                          ["%.2f" % steps.get(n, 0) for n in names]) + "\n")
def mean(k):
    v = [float(w[k]) for _, w, _ in rows if k in w]
    return sum(v) / len(v) if v else 0
print("  per student, on average: worker %.1f s; waited %.1f s for a shared turn (held %.1f s), "
      "%.1f s for a timed one (held %.1f s); %.2f correctness processes (CUDA contexts)" %
      (mean("worker_s"), mean("wait_shared_s"), mean("held_shared_s"), mean("wait_alone_s"),
       mean("held_alone_s"), mean("correctness_processes")))
PY
}

say "one GPU"
run one-gpu 0
if [ "$GPUS" -gt 1 ]; then
	say "all $GPUS GPUs"
	run all-gpus ""
fi

{
	echo "# A lab 3 class of $N, --batch, $(date -u +%Y-%m-%d)"
	echo
	echo "GPU: $GPU x $GPUS; $(nproc) cores; kit $(git log --oneline -1 | cut -c1-60)"
	echo
	echo '```'
	cat "$LOG/rates.txt"
	grep -h '^pace:' "$LOG"/one-gpu.txt "$LOG"/all-gpus.txt 2>/dev/null
	echo '```'
	echo
	echo "Per student (waits-one-gpu.tsv, waits-all-gpus.tsv): what each worker waited for on the"
	echo "GPU and held it for, and its grade's steps in seconds."
} >"$LOG/summary.md"
cat "$LOG/summary.md"
rm -rf "$CLASS"
