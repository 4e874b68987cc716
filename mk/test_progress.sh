#!/bin/sh
# make test's progress: reads a Criterion binary's --verbose output on stdin
# and prints one line per suite as its last test ends ("  cli: 6 tests, 6
# passed (41 s)"), every failure's own lines as they come, and the binary's
# synthesis. Exit status: 0 when the synthesis says nothing failed or
# crashed and some test ran, 1 otherwise (a binary that died before its synthesis too), so
# that a pipe into this script fails make as the binary would.
# Usage: BINARY --verbose --jobs N 2>&1 | sh mk/test_progress.sh NAME
name=${1:-tests}
start=$(date +%s)
echo "$name: running (a line per suite as it ends)"
awk -v name="$name" -v start="$start" '
function now() { return systime() - start }
function summary(s,   line) {
	line = sprintf("  %s: %d test%s, %d passed", s, done[s], done[s] == 1 ? "" : "s", pass[s])
	if (fail[s]) line = line sprintf(", %d FAILED", fail[s])
	if (skip[s]) line = line sprintf(", %d skipped", skip[s])
	return line
}
function show(s) {
	printf "%s (%d s)\n", summary(s), now()
	fflush()
	shown[s] = done[s]
	delete ready[s]
}
# A suite is shown once all its tests have ended and another suite reports
# (a parameterized test runs more instances than the suite announced).
/^\[====\] Running [0-9]+ tests? from / {
	s = $0; sub(/^\[====\] Running [0-9]+ tests? from /, "", s); sub(/:$/, "", s)
	n = $0; sub(/^\[====\] Running /, "", n); sub(/ .*/, "", n)
	total[s] += n; next
}
/^\[(PASS|FAIL|SKIP)\] / {
	t = $2; sub(/::.*/, "", t)
	if ($0 ~ /: Test is disabled$/) { total[t]--; next }	# left out by --filter
	for (s in ready) if (s != t) show(s)
	done[t]++
	if ($1 == "[PASS]") pass[t]++
	else if ($1 == "[FAIL]") { fail[t]++; print; fflush() }
	else skip[t]++
	if (!(t in shown) && done[t] >= total[t]) ready[t] = 1
	next
}
/^\[RUN \]/ { next }
/^\[----\] Criterion v/ { next }
/^\[====\] Synthesis: / {
	for (s in ready) show(s)
	for (s in shown) if (done[s] > shown[s]) printf "%s (in all)\n", summary(s)
	synth = 1; print; fflush()
	if ($0 !~ /Failing: 0 \| Crashing: 0/) bad = 1
	if ($0 ~ /Tested: 0 /) { print name ": no test ran"; bad = 1 }
	next
}
{ print; fflush() }	# a failure'"'"'s own lines, a crash, anything else
END {
	if (!synth) { print name ": no synthesis: the tests stopped before their end"; exit 1 }
	printf "%s: done in %d s\n", name, now()
	exit bad ? 1 : 0
}'
