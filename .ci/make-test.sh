#!/bin/bash
# make test, failing also when a test suite ran no test at all (Criterion
# reports "Tested: 0" and exits 0 when, say, its tests cannot start).
set -euo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
make test 2>&1 | tee "$log"
if grep -q "Synthesis: Tested: 0 " "$log"; then
	echo "ci: a test suite ran no test" >&2
	exit 1
fi
