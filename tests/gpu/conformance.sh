#!/bin/bash
# The conformance suite on a GPU machine: every fixture of tests/conformance
# built by nvcc and by the emulator (cuemu-cc), both run by the same driver
# on the same seeded inputs for several sizes. Writes under $OUT/conformance:
#
#   table.md       fixture, size, seed, emulator verdict, GPU verdict, and
#                  whether the two outputs are bit-identical
#   grades.md      each fixture graded by ./grade on both backends: the
#                  integrity check's verdict and the correctness tests passed
#   sanitizer.md   compute-sanitizer's racecheck and synccheck on each
#                  fixture's GPU build, at one size (when it is installed)
#   logs/          every run's output
#
#   OUT=/tmp/out bash tests/gpu/conformance.sh [STEP...]
# Steps: build runs grades sanitize (default: all). Every command runs under
# timeout (CONFORMANCE_TIMEOUT seconds a run, 300 by default).
# CONFORMANCE_FIXTURES names the fixtures (default: tests/conformance/*.cu).
set -u
OUT=${OUT:-build/gpu-conformance}
DIR=$OUT/conformance
LIMIT=${CONFORMANCE_TIMEOUT:-300}
BIN=build/conformance
mkdir -p "$DIR/logs" "$DIR/data"
export DEPS_PREFIX=${DEPS_PREFIX:-.deps} KIT_NO_INSTALL=1 NO_COLOR=1
steps=${*:-build runs grades sanitize}
fixtures=${CONFORMANCE_FIXTURES:-tests/conformance/*.cu}
NVCC=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
[ -x "$NVCC" ] || NVCC=nvcc
scan_sizes="1 31 32 33 1000 1024 1025 65537 1048576 4194305"
transpose_sizes="1x1 1x33 33x1 31x33 32x32 33x65 100x1000 1024x1024 257x4099 4096x4096"
seeds="1 20261124"

lab_of() { sed -n 's/.*Conformance fixture, lab \([0-9]\).*/\1/p' "$1" | head -n 1; }
sizes_of() { [ "$(lab_of "$1")" = 3 ] && echo "$transpose_sizes" || echo "$scan_sizes"; }

# header FILE COLUMN...: starts a markdown table.
header() {
	local file=$1 line="|" rule="|"
	shift
	for c in "$@"; do
		line="$line $c |"
		rule="$rule --- |"
	done
	printf '%s\n%s\n' "$line" "$rule" >"$file"
}

# verdict EXE SIZE SEED DATAFILE LOG: "pass", "fail", "timeout" or "error
# (exit N)". The emulator's own watchdog (10 CPU seconds a launch) is raised
# to the run's limit: a big size is slow on a CPU, not wrong.
verdict() {
	CUEMU_KERNEL_TIMEOUT=$LIMIT timeout "$LIMIT" "$1" "$2" "$3" "$4" >"$5" 2>&1
	local rc=$?
	case $rc in
	0) echo pass ;;
	1) echo fail ;;
	124) echo "timeout" ;;
	*) echo "error (exit $rc)" ;;
	esac
}

for step in $steps; do
	case $step in
	build)
		{ nvidia-smi; "$NVCC" --version; date -u; } >"$DIR/machine.txt" 2>&1
		timeout 900 make -j16 all conformance-build >"$DIR/logs/build.log" 2>&1 ||
			{ tail -30 "$DIR/logs/build.log"; echo "BUILD FAILED"; }
		for f in $fixtures; do
			name=$(basename "$f" .cu)
			timeout "$LIMIT" "$NVCC" -O3 -arch=native -lineinfo -std=c++17 -D_GNU_SOURCE -Icommon -o "$BIN/$name.gpu" \
				"$f" tests/conformance/driver.c common/rng.c common/reference.c common/shape.c \
				common/parallel.c -lpthread \
				>"$DIR/logs/$name.nvcc.log" 2>&1 || echo "nvcc failed on $f (see logs/$name.nvcc.log)"
		done
		;;
	runs)
		table=$DIR/table.md
		header "$table" fixture size seed emulator GPU "outputs bit-identical"
		for f in $fixtures; do
			name=$(basename "$f" .cu)
			for size in $(sizes_of "$f"); do
				for seed in $seeds; do
					tag=$name-$size-$seed
					emu=$(verdict "$BIN/$name.emu" "$size" "$seed" "$DIR/data/emu.bin" "$DIR/logs/$tag.emu.log")
					gpu=$(verdict "$BIN/$name.gpu" "$size" "$seed" "$DIR/data/gpu.bin" "$DIR/logs/$tag.gpu.log")
					same=no
					[ -s "$DIR/data/emu.bin" ] && cmp -s "$DIR/data/emu.bin" "$DIR/data/gpu.bin" && same=yes
					rm -f "$DIR/data/emu.bin" "$DIR/data/gpu.bin"
					echo "| $name | $size | $seed | $emu | $gpu | $same |" | tee -a "$table"
				done
			done
		done
		;;
	grades)
		grades=$DIR/grades.md
		header "$grades" fixture backend exit integrity "correctness passed"
		for f in $fixtures; do
			name=$(basename "$f" .cu)
			for backend in emu cuda; do
				json=$DIR/logs/$name.$backend.json
				timeout 1800 ./grade "lab$(lab_of "$f")" --submission "$f" --backend "$backend" --plot none \
					--json "$json" >"$DIR/logs/$name.$backend.grade.txt" 2>&1
				rc=$?
				row=$(python3 - "$json" <<'PY' 2>/dev/null
import json, sys
j = json.load(open(sys.argv[1]))
t = j["tests"]
integ = [x for x in t if x["group"] == "integrity"]
corr = [x for x in t if x["group"] == "correctness"]
ok = "pass" if integ and all(x["passed"] for x in integ) else "REFUSED: " + (integ[0]["message"][:120] if integ else "no test")
print("%s | %d of %d" % (ok, sum(x["passed"] for x in corr), len(corr)))
PY
				) || row="(no JSON report) | -"
				echo "| $name | $backend | $rc | $row |" | tee -a "$grades"
			done
		done
		;;
	sanitize)
		san=$DIR/sanitizer.md
		CS=${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer
		[ -x "$CS" ] || CS=compute-sanitizer
		if ! command -v "$CS" >/dev/null 2>&1; then
			echo "compute-sanitizer not installed: sanitize step skipped" | tee "$san"
			continue
		fi
		header "$san" fixture size racecheck synccheck
		for f in $fixtures; do
			name=$(basename "$f" .cu)
			size=1025
			[ "$(lab_of "$f")" = 3 ] && size=100x1000
			row="| $name | $size |"
			for tool in racecheck synccheck; do
				timeout "$LIMIT" "$CS" --tool "$tool" --error-exitcode 99 "$BIN/$name.gpu" "$size" 1 \
					>"$DIR/logs/$name.$tool.log" 2>&1
				rc=$?
				case $rc in
				0) row="$row clean |" ;;
				99) row="$row errors (logs/$name.$tool.log) |" ;;
				*) row="$row did not run (exit $rc) |" ;;
				esac
			done
			echo "$row" | tee -a "$san"
		done
		;;
	*)
		echo "unknown step $step (build runs grades sanitize)" >&2
		exit 2
		;;
	esac
done
echo "conformance: tables under $DIR"
