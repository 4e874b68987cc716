#!/bin/sh
# The copy of the kit that students get (make student-kit): the committed
# tree (HEAD) as a .tar.gz, without what would hand them the answers or is
# for instructors only:
#   solutions/                   the answer keys and tuned references
#   tests/                       the kit's own tests: fixtures that pass,
#                                conformance files that are whole lab
#                                solutions, GPU scripts
#   docs/results/lab3-variants/  whole variants of lab 3's tuned reference
#   handouts/instructors/        grading a class, the sandbox's limits
#   .ci/                         the kit's own CI
#   lab 4's answers in plain text (the calculator's source; the tables are hashed)
# with a copy of each skeleton under grader/labs/skeletons/ (see below)
# and without history (an archive has no .git). In the copy's markdown, a
# link to a file the copy leaves out becomes its text, marked as such, so
# that every link left resolves. Usage: student_kit.sh OUT
set -eu
out=${1:?usage: student_kit.sh OUT.tar.gz}
case $out in /*) ;; *) out=$(pwd)/$out ;; esac
cd "$(dirname "$0")/.."
git rev-parse --verify -q HEAD >/dev/null || { echo "student_kit.sh: not a git checkout" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git archive --format=tar --prefix=cuda-lab-kit/ HEAD -- . \
	':(exclude)solutions' ':(exclude)tests' ':(exclude).ci' ':(exclude)handouts/instructors' \
	':(exclude)docs/results/lab3-variants' | tar -x -C "$tmp"
# [text](target) whose target the copy lacks: "text (not in the students'
# copy)"; an image that is not there is dropped. Web links, anchors and
# code (fenced blocks, `spans`) stay as they are.
find "$tmp/cuda-lab-kit" -name '*.md' -exec perl -0777 -i -pe '
	use File::Basename;
	my @parts = split /(```.*?```|`[^`]*`)/s, $_;
	for (@parts) {
		next if /^`/;
		s{(!?)\[([^\]]*)\]\(([^)\s]+)\)}{
			my ($bang, $text, $target) = ($1, $2, $3);
			(my $path = $target) =~ s/#.*//;
			($target =~ m{^(https?:|mailto:|#)} or $path eq "" or -e dirname($ARGV) . "/$path")
				? "$bang\[$text\]($target)"
				: ($bang ? "" : "$text (not in the students\x27 copy)")
		}ge;
	}
	$_ = join "", @parts;' {} +
# The skeletons as shipped, where the grader finds them once the student
# has edited labs/ (grader/steps/given_lines.h): what the skeleton gave is
# not blamed on the student. A copy of labs/, made here, never committed.
for f in "$tmp"/cuda-lab-kit/labs/*/*.cu; do
	d=$tmp/cuda-lab-kit/grader/labs/skeletons/$(basename "$(dirname "$f")")
	mkdir -p "$d" && cp "$f" "$d/" || exit 1
done
# Lab 4's answers: the calculator's source (it asks the toolkit's
# cuda_occupancy.h) is left out, and the stored tables are hashed
# (grader/steps/occupancy_digest.h): the copy checks a calculator without
# holding a table to paste into one.
hash=${OCC_HASH:-build/occupancy-hash}
[ -x "$hash" ] || make -s "$hash" >/dev/null || { echo "student_kit.sh: cannot build $hash" >&2; exit 1; }
occ=$tmp/cuda-lab-kit/grader/labs/occupancy
rm -f "$occ/occ_cuda.c" "$occ/occ_cuda.h" "$occ/make_table.c"
for table in "$occ"/sm_*.txt; do
	"$hash" "$table" "$table.hashed" && mv "$table.hashed" "$table" || exit 1
done
tar -czf "$out.tmp" -C "$tmp" cuda-lab-kit
mv "$out.tmp" "$out"
echo "student kit: $out (the committed tree less solutions/, tests/, .ci/, the instructors' guide, lab 3's variants and lab 4's answers)"
