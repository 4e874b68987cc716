#!/bin/bash
# make test-slurm: --slurm against a real Slurm, a single-host cluster
# started here (tests/slurm/cluster.sh), in the emulator:
#
#   1. a class -- the hostile fixtures, and a student whose name a shell
#      would run -- graded locally and through --batch --slurm: the same
#      gradebook, row for row; the salt in no job script, job environment
#      or file of OUT but OUT/.slurm/salt
#   2. one grade through ./grade LAB --slurm: the report and exit status of
#      the same grade run here
#   3. a worker killed (a grader error, in the gradebook as such) and an
#      array task killed mid-way (scancel): its students ungraded, none
#      half-written; the same command resubmits only those students; the
#      gradebook then equals the local one, nothing lost, nothing twice
#
# It needs root (the daemons) and Slurm and munge (installed through
# mk/deps.sh slurm); where it cannot run it says why and passes as skipped.
set -u
cd "$(dirname "$0")/../.."
kit=$PWD
dir=$kit/build/slurm
salt="slurm-test-salt-$$-$RANDOM"
passed=0
failed=0
started=$(date +%s)

skip() {
	echo "test-slurm: skipped: $*"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
}
ok() {
	echo "  ok: $*"
	passed=$((passed + 1))
}
not_ok() {
	echo "  FAILED: $*"
	failed=$((failed + 1))
}
check() {	# check WHAT COMMAND...
	local what=$1
	shift
	if "$@"; then ok "$what"; else not_ok "$what"; fi
}

[ "$(uname -s)" = Linux ] || skip "Slurm's daemons run on Linux only"
[ "$(id -u)" = 0 ] || skip "it starts munged, slurmctld and slurmd, which needs root (sudo make test-slurm)"
if ! sh mk/deps.sh slurm; then
	command -v apt-get >/dev/null 2>&1 || skip "Slurm and munge are not installed and there is no apt-get"
	skip "Slurm and munge could not be installed (see above)"
fi
[ -x build/grade ] && [ -x build/emu/cuemu-cc ] || { echo "test-slurm: run make first" >&2; exit 1; }
# The class and its outputs outside the kit (a batch refuses an --out inside it).
work=$(mktemp -d /tmp/test-slurm-XXXXXX)

export SLURM_CONF=$dir/slurm.conf
sh tests/slurm/cluster.sh start "$dir" || { echo "test-slurm: the cluster did not start" >&2; exit 1; }
trap 'sh tests/slurm/cluster.sh stop "$dir"; rm -rf "$work"' EXIT
rm -rf "$work"
mkdir -p "$work/class"
chmod 711 "$work"

# The lab's rubric with short limits: the endless loop costs seconds.
awk '/^\[/ { sec = $0 }
     /^timeout_s/ && sec == "[correctness]" { print "timeout_s = 10"; next }
     /^timeout_s/ && sec == "[analysis]" { print "timeout_s = 20"; next }
     { print }' labs/lab3-transpose/lab.ini >"$work/lab.ini"
cp tests/fixtures/hostile/*.cu "$work/class/"
# A name that a shell line would run: the commands take argv, never a line.
cp tests/fixtures/lab3/padded.cu "$work/class/it's \$(touch PWNED); \`id\` name.cu"
chmod -R a+rX "$work/class" "$work/lab.ini"
students=$(ls "$work/class" | wc -l)
args=(lab3 --batch "$work/class" --backend emu --rubric "$work/lab.ini" --plot none)

echo "test-slurm: $students students, on a cluster of $(nproc) CPUs"
echo "1. the class, locally and through --slurm"
t0=$(date +%s.%N)
./grade "${args[@]}" --out "$work/local" --salt "$salt" --jobs "$(nproc)" >"$work/local.log" 2>&1
rc=$?
t1=$(date +%s.%N)
check "the local batch exits 0 (got $rc)" [ $rc = 0 ]
./grade "${args[@]}" --out "$work/slurm" --salt "$salt" --slurm >"$work/slurm.log" 2>&1
rc=$?
t2=$(date +%s.%N)
check "the --slurm batch exits 0 (got $rc)" [ $rc = 0 ]
[ $rc = 0 ] || { echo "  its last lines:"; tail -8 "$work/slurm.log" | sed 's/^/    /'; }
check "the gradebooks are equal, row for row" cmp -s "$work/local/gradebook.csv" "$work/slurm/gradebook.csv"
check "one row per student" [ "$(($(wc -l <"$work/slurm/gradebook.csv") - 1))" = "$students" ]
for f in report.txt report.json results.json summary.json; do
	n=$(ls "$work"/slurm/students/*/"$f" 2>/dev/null | wc -l)
	check "every student has $f ($n)" [ "$n" = "$students" ]
done
check "no shell ran a student's name" test ! -e PWNED -a ! -e "$work/PWNED" -a ! -e "$dir/PWNED"
check "OUT/.slurm is private (0700)" [ "$(stat -c %a "$work/slurm/.slurm")" = 700 ]
check "the salt file is private (0600)" [ "$(stat -c %a "$work/slurm/.slurm/salt")" = 600 ]
leaks=$(grep -rlF -- "$salt" "$work/slurm" | grep -v "/.slurm/salt$")
check "the salt is in no file of OUT but .slurm/salt${leaks:+: $leaks}" [ -z "$leaks" ]
awk -v n="$students" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
	printf "  throughput: locally %.0f s (%.1f students/min), through Slurm %.0f s (%.1f students/min)\n",
		b - a, n * 60 / (b - a), c - b, n * 60 / (c - b) }'

echo "2. one grade through srun"
one=(lab3 --backend emu --submission tests/fixtures/lab3/no_bounds.cu --rubric "$work/lab.ini" --plot none --seed 7)
./grade "${one[@]}" >"$work/one-local.txt" 2>/dev/null
rc_local=$?
./grade "${one[@]}" --slurm >"$work/one-slurm.txt" 2>"$work/one-slurm.err"
rc_slurm=$?
check "the same exit status ($rc_local here, $rc_slurm through srun)" [ $rc_local = $rc_slurm ]
# The same but for the addresses of the bad accesses (each process's own).
check "the same report" cmp -s <(sed 's/0x[0-9a-f]*/ADDR/g' "$work/one-local.txt") \
	<(sed 's/0x[0-9a-f]*/ADDR/g' "$work/one-slurm.txt")
check "it ran as a Slurm job" \
	bash -c 'scontrol -o show job | grep "JobName=grade-lab3 " | grep -v ArrayJobId= | grep -q "Command=$1"' _ \
	"$kit/grader/slurm/task.sh"

# KIT_APPTAINER: the node runs the grade in the image (a stand-in apptainer
# here, first on PATH, that notes its arguments and runs the rest).
mkdir -p "$work/bin"
cat >"$work/bin/apptainer" <<'FAKE'
#!/bin/sh
echo "$@" >"$(dirname "$0")/apptainer.args"
shift 3
exec "$@"
FAKE
chmod +x "$work/bin/apptainer"
PATH=$work/bin:$PATH KIT_APPTAINER=/images/kit.sif ./grade "${one[@]}" --slurm >"$work/one-apptainer.txt" 2>/dev/null
rc=$?
check "KIT_APPTAINER: the grade runs in the image with the GPU (--nv), same status ($rc)" \
	test $rc = $rc_local -a "$(cut -d' ' -f1-3 "$work/bin/apptainer.args" 2>/dev/null)" = "exec --nv /images/kit.sif"

echo "3. a worker and a task killed mid-way, then the same command again"
# --gres: each task asks for one of the cluster's two stand-in GPUs.
./grade "${args[@]}" --out "$work/kill" --salt "$salt" --slurm --gres gpu:1 --no-wait \
	>"$work/kill-submit.log" 2>&1
job=$(sed -n 's/^Submitted job \([0-9]*\).*/\1/p' "$work/kill-submit.log")
check "--no-wait submits and returns (job ${job:-none})" [ -n "$job" ]
# A grade that fails for the kit's own reasons: one task's worker (a forked
# grade, the same command line as its task) killed as the OOM killer would.
mine="--slurm-task $work/kill/.slurm"
worker="" worker_task=""
for _ in $(seq 1 600); do
	for pid in $(pgrep -f -- "$mine"); do
		parent=$(ps -o ppid= -p "$pid" | tr -d ' ')
		if pgrep -f -- "$mine" | grep -qx "$parent"; then
			worker_task=$(tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | sed -n 's/^SLURM_ARRAY_TASK_ID=//p')
			[ -n "$worker_task" ] && kill -9 "$pid" && worker=$pid && break 2
		fi
	done
	sleep 0.2
done
check "a worker of task $worker_task was killed (pid ${worker:-none})" [ -n "$worker" ]
killed=""
for _ in $(seq 1 600); do
	for task in $(squeue -h -r -j "$job" -t RUNNING -o %i 2>/dev/null); do
		if [ "${task#*_}" != "$worker_task" ] && grep -q '^\[1/' "$work/kill/.slurm/task-$task.log" 2>/dev/null; then
			killed=$task
			break 2
		fi
	done
	sleep 0.2
done
leaks=$(grep -rlF -- "$salt" "$dir/state" "$dir/spool" 2>/dev/null)
check "the salt is in no job script or environment Slurm keeps${leaks:+: $leaks}" [ -z "$leaks" ]
check "the tasks asked for a GPU (--gres gpu:1)" \
	bash -c 'scontrol -o show job "$1" | grep -q "gres:gpu:1"' _ "$job"
check "scontrol show job does not show the salt" \
	bash -c '! scontrol -dd show job "$1" | grep -qF -- "$2"' _ "$job" "$salt"
scancel "$killed"
check "a task was killed after its first student ($killed)" [ -n "$killed" ]
while squeue -h -j "$job" 2>/dev/null | grep -q .; do sleep 0.5; done
./grade lab3 --batch "$work/class" --out "$work/kill" --collect --rubric "$work/lab.ini" --plot none \
	>"$work/collect.log" 2>&1
rc=$?
check "--collect exits 4: students are missing (got $rc)" [ $rc = 4 ]
check "--collect says how many are not graded" grep -q "students* not graded" "$work/collect.log"
check "--collect names the cancelled task" grep -q "task ${killed#*_}: CANCELLED" "$work/collect.log"
rows=$(($(wc -l <"$work/kill/gradebook.csv") - 1))
ungraded=$(grep -c "not graded: Slurm task ${killed} ended CANCELLED" "$work/kill/gradebook.csv")
summaries=$(ls "$work"/kill/students/*/summary.json | wc -l)
check "the gradebook lists every student ($rows of $students)" [ "$rows" = "$students" ]
errors=$(grep -c "grader error: the grading process was killed by signal 9" "$work/kill/gradebook.csv")
check "the killed worker's student is a grader error in the gradebook ($errors)" [ "$errors" = 1 ]
check "the killed task's ungraded students say so ($ungraded), the rest have a summary ($summaries)" \
	test "$ungraded" -gt 0 -a $((ungraded + summaries)) = "$students"
half=0
for s in "$work"/kill/students/*/; do
	if grep -q '"complete": true' "$s/summary.json" 2>/dev/null; then
		for f in report.txt report.json results.json; do [ -e "$s/$f" ] || half=$((half + 1)); done
	fi
done
complete=$(grep -l '"complete": true' "$work"/kill/students/*/summary.json | wc -l)
check "no student is half-written: each of the $complete graded has its reports" \
	test $half = 0 -a "$complete" = $((summaries - errors))
./grade "${args[@]}" --out "$work/kill" --salt "$salt" --slurm --gres gpu:1 >"$work/resume.log" 2>&1
rc=$?
check "the same command again exits 0 (got $rc)" [ $rc = 0 ]
check "it submits only the $ungraded missing students and the grader error" \
	grep -q "^Submitted job [0-9]*: $((ungraded + 1)) of $students students" "$work/resume.log"
check "the gradebook equals the local one" cmp -s "$work/local/gradebook.csv" "$work/kill/gradebook.csv"
dups=$(cut -d, -f1 "$work/kill/gradebook.csv" | sort | uniq -d)
check "no student twice${dups:+: $dups}" [ -z "$dups" ]

echo "test-slurm: $(($(date +%s) - started)) s (load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "test-slurm: $passed passed, $failed failed"
[ $failed = 0 ]
