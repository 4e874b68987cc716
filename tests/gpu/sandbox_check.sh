#!/bin/bash
# The sandbox on a GPU machine: the CUDA runtime, nvcc and the
# harness under bubblewrap's allowlist view, as a leased uid (run as root),
# with the harness writing only to its private /tmp. What CI cannot show
# (it has no GPU). Logs under $OUT.
#
#   sudo OUT=/tmp/out bash tests/gpu/sandbox_check.sh
#
# Expect: every line "ok". The single grades of the solutions score their
# maximum with "sandbox  bubblewrap: ... ran as uid 4000NN" in their report;
# the hostile include_shadow fixture "did not build" and no line of
# /etc/shadow in its report; the batch of tests/fixtures/hostile exits 0
# (its verdicts are checked by `make test`'s batch_e2e on the emulator).
set -u
OUT=${OUT:-build/sandbox-check}
mkdir -p "$OUT"
export NO_COLOR=1
fail=0
check() {	# check NAME COMMAND...: ok or FAIL, output kept
	if timeout 900 "${@:2}" >"$OUT/$1.txt" 2>&1; then echo "ok    $1"; else echo "FAIL  $1 (exit $?)"; fail=1; fi
}
[ "$(id -u)" = 0 ] || echo "note: not root, so no sandbox uid: run with sudo for the full check"
./grade --device || { echo "no GPU here"; exit 1; }
for lab in lab1 lab2 lab3 lab4; do
	check "solution-$lab" ./grade $lab --solution --backend cuda --plot none --json "$OUT/solution-$lab.json"
	grep -q "sandbox     bubblewrap" "$OUT/solution-$lab.txt" || { echo "FAIL  $lab: not under bubblewrap"; fail=1; }
done
./grade lab3 --submission tests/fixtures/hostile/include_shadow.cu --backend cuda --plot none \
	>"$OUT/include_shadow.txt" 2>&1
if [ -r /etc/shadow ] && grep -qF "$(head -1 /etc/shadow)" "$OUT/include_shadow.txt"; then
	echo "FAIL  include_shadow: /etc/shadow in the report"; fail=1
else
	echo "ok    include_shadow"
fi
check batch-hostile ./grade lab3 --batch tests/fixtures/hostile --out "$OUT/hostile-graded" --backend cuda \
	--plot none --jobs 2
cp "$OUT/hostile-graded/gradebook.csv" "$OUT/hostile-gradebook.csv" 2>/dev/null
exit $fail
