#!/bin/bash
# A grade stopped with Ctrl-Z while it holds the GPU's lock, and a second
# grade that needs the GPU meanwhile. Expected: the second says, within
# about 30 s, who holds the GPU ("... stopped"), waits, and once the first
# is resumed both finish with the scores they get alone: no size of the
# second is judged "time limit" for the wait. For a GPU machine, the kit
# built; about 2 minutes:
#
#   OUT=/tmp/out bash tests/gpu/stopped_grade.sh [LAB]
#
# STOP_S (default 45) is how long the first grade stays stopped.
# Writes $OUT/stopped_grade/{alone.txt,first.txt,second.txt,*.json,summary.txt}.
set -u
LAB=${1:-lab3}
STOP_S=${STOP_S:-45}
LOG=${OUT:-build}/stopped_grade
mkdir -p "$LOG"
LOG=$(cd "$LOG" && pwd)
LOCKS=${KIT_LOCK_DIR:-/tmp/cuda-lab-kit-locks}
say() { echo "[$(date -u +%H:%M:%S)] $*" | tee -a "$LOG/summary.txt"; }
score() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r.get('score'), 'of', r.get('max_score'))" "$1" 2>/dev/null || echo "no report"; }

# Alone first: the reference's times cached, and the score to compare with.
timeout 300 ./grade "$LAB" --solution --plot none --json "$LOG/alone.json" >"$LOG/alone.txt" 2>&1
say "alone: exit $?, score $(score "$LOG/alone.json")"

# held: whether anyone holds a GPU's lock file (only the first grade runs).
held() {
	local f ino
	for f in "$LOCKS"/gpu-*.lock; do
		[ -e "$f" ] || continue
		ino=$(stat -c %i "$f")
		awk -v ino="$ino" '$2 != "->" { split($6, a, ":"); if (a[3] == ino) found = 1 } END { exit !found }' \
			/proc/locks && return 0
	done
	return 1
}

setsid timeout 600 ./grade "$LAB" --solution --plot none --json "$LOG/first.json" >"$LOG/first.txt" 2>&1 &
first=$!
pgid=$(ps -o pgid= -p "$first" | tr -d ' ')
for _ in $(seq 600); do
	held && break
	sleep 0.05
done
if ! held; then
	say "the first grade never held the GPU's lock: nothing to test"
	wait "$first"
	exit 1
fi
# As Ctrl-Z does: the grader's process group, not its children's (each
# child has a group of its own), which go on and end holding the lock on
# the grader's open file.
kill -STOP -- "-$pgid"
say "first grade (group $pgid) stopped while its child held the GPU's lock"
grep -h . /proc/locks | head -20 >"$LOG/locks-at-stop.txt"

t0=$(date +%s.%N)
timeout 900 ./grade "$LAB" --solution --plot none --json "$LOG/second.json" >"$LOG/second.txt" 2>&1 &
second=$!
sleep "$STOP_S"
say "second grade's lines so far: $(grep -c . "$LOG/second.txt"); its notice: $(grep -m1 'waiting' "$LOG/second.txt" || echo none)"
kill -CONT -- "-$pgid"
say "first grade resumed"
wait "$second"
rc2=$?
t1=$(date +%s.%N)
wait "$first"
rc1=$?
say "first: exit $rc1, score $(score "$LOG/first.json")"
say "second: exit $rc2, score $(score "$LOG/second.json"), $(python3 -c "print(round($t1-$t0,1))") s"
say "second's failed sizes: $(grep -c 'time limit' "$LOG/second.txt")"
