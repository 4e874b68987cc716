#!/bin/sh
# The copy of the kit that students get (make student-kit): the committed
# tree (HEAD) as a .tar.gz, without what would hand them the answers or
# another class's work:
#   solutions/      the reference solutions
#   tests/          the kit's own tests: fixtures that pass, conformance
#                   files that are whole lab solutions, GPU scripts
#   docs/results/   measured runs, with the variants of the solutions
#   lab 4's answers in plain text (below: the tables are hashed)
# and without history (an archive has no .git). Usage: student_kit.sh OUT
set -eu
out=${1:?usage: student_kit.sh OUT.tar.gz}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
cd "$(dirname "$0")/.."
git rev-parse --verify -q HEAD >/dev/null || { echo "student_kit.sh: not a git checkout" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
git archive --format=tar.gz --prefix=cuda-lab-kit/ -o "$out.tmp" HEAD -- . \
	':(exclude)solutions' ':(exclude)tests' ':(exclude)docs/results'
# Lab 4's answers: the calculator's source (it asks the toolkit's
# cuda_occupancy.h) is left out, and the stored tables are hashed
# (grader/steps/occupancy_digest.h): the copy checks a calculator without
# holding a table to paste into one.
hash=${OCC_HASH:-build/occupancy-hash}
[ -x "$hash" ] || make -s "$hash" >/dev/null || { echo "student_kit.sh: cannot build $hash" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$out.tmp" -C "$work"
occ=$work/cuda-lab-kit/grader/labs/occupancy
rm -f "$occ/occ_cuda.c" "$occ/occ_cuda.h" "$occ/make_table.c"
for table in "$occ"/sm_*.txt; do
	"$hash" "$table" "$table.hashed" && mv "$table.hashed" "$table" || exit 1
done
tar -czf "$out.tmp" -C "$work" cuda-lab-kit
mv "$out.tmp" "$out"
echo "student kit: $out (the committed tree less solutions/, tests/ and docs/results/)"
