#!/bin/sh
# The copy of the kit that students get (make student-kit): the committed
# tree (HEAD) as a .tar.gz, without what would hand them the answers or
# another class's work:
#   solutions/      the reference solutions
#   tests/          the kit's own tests: fixtures that pass, conformance
#                   files that are whole lab solutions, GPU scripts
#   docs/results/   measured runs, with the variants of the solutions
# and without history (an archive has no .git). Usage: student_kit.sh OUT
set -eu
out=${1:?usage: student_kit.sh OUT.tar.gz}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
cd "$(dirname "$0")/.."
git rev-parse --verify -q HEAD >/dev/null || { echo "student_kit.sh: not a git checkout" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
git archive --format=tar.gz --prefix=cuda-lab-kit/ -o "$out.tmp" HEAD -- . \
	':(exclude)solutions' ':(exclude)tests' ':(exclude)docs/results'
mv "$out.tmp" "$out"
echo "student kit: $out (the committed tree less solutions/, tests/ and docs/results/)"
