#!/bin/bash
# make test, failing also when a test suite ran no test at all (Criterion
# reports "Tested: 0" and exits 0 when, say, its tests cannot start), and
# when it left anything in /tmp: a test's temporary files must be gone when
# it ends, skipped or not. (/tmp is listed before and after, not replaced by
# a tmpfs: CI's clone itself may live under /tmp.)
set -euo pipefail
log=$(mktemp) before=$(mktemp) after=$(mktemp)
trap 'rm -f "$log" "$before" "$after"' EXIT
ls -A /tmp | sort >"$before"
make test 2>&1 | tee "$log"
ls -A /tmp | sort >"$after"
left=$(comm -13 "$before" "$after" || true)
if [ -n "$left" ]; then
	echo "ci: make test left these in /tmp:" $left >&2
	exit 1
fi
if grep -q "Synthesis: Tested: 0 " "$log"; then
	echo "ci: a test suite ran no test" >&2
	exit 1
fi
