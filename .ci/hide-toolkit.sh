#!/bin/bash
# Runs a command where the CUDA toolkit is not: no nvcc on PATH, no CUDA
# headers where the compiler looks. Run it in a private mount namespace (as
# root):  unshare -m --propagation private .ci/hide-toolkit.sh COMMAND...
# The machine's own mounts are untouched; every hiding ends with COMMAND.
#
# HIDE_CRITERION=1 also hides Criterion, as a machine where only grading's
# packages are installed has it; HIDE_OPTIONAL=1 hides gnuplot and bubblewrap,
# which the kit uses where they are.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "hide-toolkit: needs root (mounts)" >&2; exit 2; }
grep -q " / / .*shared:" /proc/self/mountinfo &&
	{ echo "hide-toolkit: run me under unshare -m --propagation private" >&2; exit 2; }

scratch=$(mktemp -d /tmp/hide-toolkit.XXXXXX)
mount -t tmpfs -o mode=755 hide-toolkit "$scratch"
# The folder is made on the machine's own /tmp: it goes when COMMAND ends.
trap 'umount -l "$scratch" 2>/dev/null; rmdir "$scratch"' EXIT

# A whole folder: an empty one over it.
hide_dir() { mount -t tmpfs -o mode=755,size=1m hide-toolkit "$1"; }

# A program: an empty file that is not executable laid over it (a folder of
# links would do for headers, but not in /usr/bin, where gcc finds its own
# parts through the path it was started from).
blank=$scratch/not-installed
: > "$blank"
chmod 644 "$blank"
hide_program() { mount --bind "$blank" "$1"; }
executable() { local p; p=$(command -v "$1") && [ -x "$p" ] && [ -s "$p" ]; }

# Some entries of an include folder that also holds other things: the
# folder is seen through another path, and a folder of links to every other
# entry is laid over it.
hide_entries() {
	local dir=$1 n
	shift
	n=$(find "$scratch" -maxdepth 1 -name 'orig*' | wc -l)
	local orig=$scratch/orig$n stage=$scratch/stage$n
	mkdir "$orig" "$stage"
	mount --bind "$dir" "$orig"
	for e in "$orig"/* "$orig"/.[!.]*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		local name=${e##*/} skip=0
		for h; do [ "$name" = "$h" ] && skip=1; done
		[ $skip = 1 ] || ln -s "$e" "$stage/$name"
	done
	mount --bind "$stage" "$dir"
}

# The toolkit's own folders.
for d in /usr/local/cuda* /opt/cuda* ${CUDA_HOME:-} ${CUDA_PATH:-}; do
	if [ -d "$d" ] && [ ! -L "$d" ]; then
		hide_dir "$d"
	fi
done
# Whatever else provides nvcc (a wrapper in /usr/local/bin, a distribution's
# /usr/bin/nvcc), and the optional programs when asked.
programs=nvcc
[ "${HIDE_OPTIONAL:-0}" = 1 ] && programs="$programs gnuplot bwrap"
for prog in $programs; do
	while executable "$prog"; do
		hide_program "$(command -v "$prog")"
		hash -r
	done
done
# CUDA headers anywhere the compiler looks.
headers="cuda.h cuda_runtime.h cuda_runtime_api.h cuda_occupancy.h"
for inc in $(echo | ${CC:-gcc} -xc -E -v - 2>&1 | sed -n '/#include <...>/,/End of/{/^ /p}'); do
	found=""
	for h in $headers; do [ -e "$inc/$h" ] && found="$found $h"; done
	[ -z "$found" ] || hide_entries "$inc" $found
done
if [ "${HIDE_CRITERION:-0}" = 1 ]; then
	for inc in /usr/include /usr/local/include; do
		[ -d "$inc/criterion" ] && hide_dir "$inc/criterion"
	done
	for pc in $(pkg-config --variable pcfiledir criterion 2>/dev/null); do
		hide_entries "$pc" criterion.pc
	done
fi

# Proof that it worked, before anything relies on it.
for prog in $programs; do
	if executable "$prog"; then
		echo "hide-toolkit: $prog is still found: $(command -v "$prog")" >&2; exit 2
	fi
done
if echo '#include <cuda_runtime_api.h>' | ${CC:-gcc} -xc -E - >/dev/null 2>&1; then
	echo "hide-toolkit: cuda_runtime_api.h is still found" >&2; exit 2
fi
if [ "${HIDE_CRITERION:-0}" = 1 ] &&
   echo '#include <criterion/criterion.h>' | ${CC:-gcc} -xc -E - >/dev/null 2>&1; then
	echo "hide-toolkit: Criterion is still found" >&2; exit 2
fi
echo "hide-toolkit: not found from here on: $programs, CUDA headers$( [ "${HIDE_CRITERION:-0}" = 1 ] && echo ", Criterion")" >&2
"$@"
