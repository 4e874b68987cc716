#!/bin/bash
# One of CI's fresh-clone paths (.ci/run): fresh-clone.sh MODE KIT JOBS
#   private      clone KIT into a folder only root can enter, where the
#                sandbox's leased uid cannot reach it: the suites of the
#                sandbox and of the students' copy, then each lab's answer
#                key (exit 0) and skeleton (exit 1) graded in the emulator
#                (the whole of make test runs in the two other paths)
#   no-toolkit   clone KIT; with no nvcc, no CUDA headers and no Criterion:
#                make lab1 says once what it skipped, ./grade lab1 exits 1 on
#                the skeleton and 0 on the solution; then make test (with
#                Criterion, still no toolkit, and without the optional
#                gnuplot and bubblewrap: their tests say why they skip,
#                and leave nothing in /tmp)
set -euo pipefail
mode=$1 src=$2 jobs=$3
here=$(cd "$(dirname "$0")" && pwd)
top=$(mktemp -d)	# 0700: a private folder
trap 'rm -rf "$top"' EXIT
git clone -q "$src" "$top/kit"
cd "$top/kit"
echo "ci: fresh clone in $top/kit ($(stat -c %a "$top") parent)"

hidden() { unshare -m --propagation private "$here/hide-toolkit.sh" "$@"; }
expect() {	# expect STATUS COMMAND...
	local want=$1 rc=0
	shift
	"$@" || rc=$?
	[ "$rc" = "$want" ] || { echo "ci: '$*' exited $rc, not $want" >&2; exit 1; }
	echo "ci: '$*' exited $rc, as it should"
}

case $mode in
private)
	make -j"$jobs" test-build
	KIT_ROOT=$PWD build/tests/unit --jobs "$jobs" \
		--filter '@(sandbox|sandbox_errors|sandbox_limits|isolation|student_kit)/*'
	for lab in lab1 lab2 lab3 lab4; do
		expect 0 ./grade "$lab" --solution --backend emu --plot none --quiet
		expect 1 ./grade "$lab" --backend emu --plot none --quiet
	done
	;;
no-toolkit)
	export -f expect
	HIDE_CRITERION=1 KIT_NO_INSTALL=1 hidden bash -euo pipefail -c '
		make -j'"$jobs"' lab1 2>&1 | tee ../make.log
		n=$(grep -c "GPU backend not built" ../make.log || true)
		[ "$n" = 1 ] || { echo "ci: make said $n times what it skipped, not once" >&2; exit 1; }
		expect 1 ./grade lab1 --plot none
		expect 0 ./grade lab1 --solution --plot none'
	HIDE_OPTIONAL=1 KIT_NO_INSTALL=1 hidden bash -euo pipefail -c 'make -j'"$jobs"' test-build && '"$here"'/make-test.sh'
	;;
*)
	echo "fresh-clone.sh: no mode '$mode' (private or no-toolkit)" >&2
	exit 2
	;;
esac
