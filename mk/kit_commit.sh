#!/bin/sh
# The commit ./grade --version names (the Makefile's build/kit-commit): HEAD
# of the kit's own clone, with "-modified" when a kit file differs from it.
# The students' files under labs/ (their .cu and any header beside it) do
# not count: editing them is what a student does, and the kit is still the
# commit it was; a lab's rubric (lab.ini) does count. "unknown" outside a
# git clone of the kit (an unpacked copy inside another repository too).
# Usage: kit_commit.sh [KIT_DIR]
cd "${1:-.}" || exit 1
c=unknown
if [ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$(pwd -P)" ]; then
	c=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
	if [ "$c" != unknown ] && ! git diff --quiet HEAD -- . ':(exclude)labs/*/*.cu' \
		':(exclude)labs/*/*.cuh' ':(exclude)labs/*/*.h' 2>/dev/null; then
		c="$c-modified"
	fi
fi
echo "$c"
