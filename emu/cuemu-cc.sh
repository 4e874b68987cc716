#!/bin/sh
# cuemu-cc: the CPU emulator's compiler driver, in the manner of nvcc.
#
#   cuemu-cc -c FILE.cu -o FILE.o [-I.. -D.. -O.. -g]   compile one CUDA source
#   cuemu-cc -o EXE OBJ... [-L.. -l..]                  link with libcuemu.a
#   cuemu-cc FILE.cu [OBJ...] -o EXE                    both
#   cuemu-cc -E FILE.cu [-o OUT] [-dM ...]              preprocess only, as nvcc -E
#
# A .cu file is preprocessed with cuemu_device.h force-included, rewritten
# (cuemu-rewrite: launches, __shared__; the line markers keep messages on
# the student's lines), then compiled as C++17 with ThreadSanitizer's
# instrumentation, whose hooks libcuemu.a implements. Links are -no-pie (call sites map to
# lines without relocation) and without TSan's runtime. .c and .cpp files
# are compiled plainly, with the emulator's headers on the include path.
#
# Environment: CUEMU_CXX (g++ or clang++), CUEMU_CC (gcc), CUEMU_OPT (-O2).
# Exit status: the compiler's; 1 when the source uses something the
# emulator cannot run (the reason on stderr, as FILE:LINE: error: ...).
#
# Word splitting of the flag strings and of the newline-separated lists is
# wanted throughout (see IFS below).
# shellcheck disable=SC2086
set -u

here=$(cd "$(dirname "$0")" && pwd)
inc=$here/include
[ -d "$inc" ] || inc=$here/../../emu/include
CXX=${CUEMU_CXX:-g++}
CC=${CUEMU_CC:-gcc}
OPT=${CUEMU_OPT:--O2}

die() {
	echo "cuemu-cc: $*" >&2
	exit 2
}

usage() {
	echo "usage: cuemu-cc -c FILE.cu -o FILE.o | cuemu-cc -o EXE OBJ... | cuemu-cc FILE.cu -o EXE | cuemu-cc -E FILE.cu" >&2
	exit 2
}

# Flags for g++ or clang++ that turn on the instrumentation.
tsan_flags() {
	if "$CXX" --version 2>/dev/null | grep -q clang; then
		echo "-fsanitize=thread -mllvm -tsan-instrument-func-entry-exit=0" \
		     "-mllvm -tsan-instrument-read-before-write=1"
	else
		echo "-fsanitize=thread --param=tsan-instrument-func-entry-exit=0"
	fi
}

# Keep each source line's accesses in instructions of their own, so that
# the requests and warps counted per line are those of the source:
# vectorising would merge a thread's accesses into wide ones the GPU would
# not make; tail merging, code hoisting and cross-jumping would make one
# access of an if and its else (attributed to one of the two lines).
# Jump threading copies the blocks after a branch into each of its arms
# ("v = i < n ? in[i] : 0;" then a loop of shuffles): a warp collective
# would then have one call site for the lanes that took each arm, and the
# lanes of one instruction would never meet.
# Stack-clash probes touch every page of a big frame, so a local array too
# big for a fiber's stack hits its guard page instead of another's stack.
line_flags() {
	if "$CXX" --version 2>/dev/null | grep -q clang; then
		echo "-fno-vectorize -fno-slp-vectorize -fstack-clash-protection"
	else
		echo "-fno-tree-vectorize -fno-tree-slp-vectorize -fno-tree-tail-merge" \
		     "-fno-code-hoisting -fno-crossjumping -fno-hoist-adjacent-loads -fno-thread-jumps" \
		     "-fstack-clash-protection"
	fi
}

# Every memcpy, memmove, memset and the like of the student's code goes to
# the runtime's traced copies (emu/runtime/mem_ops.c): g++ neither expands
# them inline (where the instrumentation would not see them) nor turns a
# struct copy into a library call; the explicit builtins become calls
# (cuemu_mem_ops.h); no tail call hides the caller's line.
# The library names are then renamed in the object (rename_for_trace).
MEM_OPS="memcpy memmove mempcpy memset bcopy bzero explicit_bzero memcmp bcmp memccpy \
wmemcpy wmemmove wmemset __memcpy_chk __memmove_chk __mempcpy_chk __memset_chk \
__memccpy_chk __wmemcpy_chk __wmemmove_chk __wmemset_chk"
mem_ops_flags() {	# one line, blank-separated
	printf '%s' "-fno-optimize-sibling-calls -include cuemu_mem_ops.h"
	if ! "$CXX" --version 2>/dev/null | grep -q clang; then
		printf ' %s' -minline-all-stringops
		IFS=' '
		for f in $MEM_OPS; do
			printf ' %s' "-fno-builtin-$f"
		done
	fi
}

# The student's __device__, __constant__ and __managed__ variables (and its
# host globals) are global memory to the trace, libc's data is not: every
# writable data section of the object (.data, .bss, their COMDAT and
# -fdata-sections forms, a section the file names itself) gets one of two
# names, whose bounds the linker defines (emu/runtime/state.c). Left alone:
# read-only data, thread-local data, the constructor tables, the section of
# the headers' __shared__ variables. Prints the objcopy options; fails on a
# section name objcopy could not be given.
data_sections() {	# data_sections OBJ
	LC_ALL=C readelf -SW "$1" | awk '
	/^ *\[ *[0-9]+\]/ {
		sub(/^ *\[ *[0-9]+\] /, "")
		k = 0
		for (i = 2; i <= NF && !k; i++)
			if ($i ~ /^(PROGBITS|NOBITS|INIT_ARRAY|FINI_ARRAY|PREINIT_ARRAY|NOTE|GROUP|RELA|REL|SYMTAB|STRTAB|X86_64_UNWIND|LOPROC\+|LOOS\+)/)
				k = i
		if (!k)
			next
		name = $1
		for (i = 2; i < k; i++)
			name = name " " $i
		flags = NF - k == 8 ? $(k + 5) : ""
		if (flags !~ /W/ || flags !~ /A/ || flags ~ /T/ || flags ~ /X/)
			next
		if (name ~ /^\.(init_array|fini_array|preinit_array|ctors|dtors)(\.|$)/ ||
		    name ~ /^\.data\.rel\.ro(\.|$)/ || name == "cuemu_shared" ||
		    name == "cuemu_gdata" || name == "cuemu_gbss")
			next
		if (name !~ /^[A-Za-z0-9._$]+$/) {
			print "cuemu-cc: data section \"" name "\": only letters, digits, dots and underscores" > "/dev/stderr"
			bad = 1
			exit 1
		}
		printf " --rename-section=%s=%s", name, ($k == "NOBITS" ? "cuemu_gbss" : "cuemu_gdata")
	}
	END { exit bad }'
}

rename_for_trace() {	# rename_for_trace OBJ
	ops=$(IFS=' '; for f in $MEM_OPS; do printf ' %s' "--redefine-sym=$f=cuemu_${f}_"; done)
	sections=$(data_sections "$1") || return 1
	IFS=' '
	objcopy $ops $sections "$1"
}

# The flags of a compile that still matter once the source is preprocessed:
# all but the preprocessor's (-D, -U, -I, -include...), which were applied
# already (a -DN=4 applied again would change an N the file #undef'd).
# Prints them one a line.
compile_only_flags() {
	skip=0
	for f in "$@"; do
		if [ $skip -eq 1 ]; then
			skip=0
			continue
		fi
		case $f in
		-D|-U|-I|-include|-isystem|-iquote|-idirafter|-imacros) skip=1 ;;
		-D*|-U*|-I*|-include*|-isystem*|-iquote*|-idirafter*|-imacros*) ;;
		*) printf '%s\n' "$f" ;;
		esac
	done
}

# The installed nvcc's version as -D flags for its macros and the runtime's
# CUDART_VERSION (the headers' own, 12.0, where there is none): on a GPU
# machine both builds of a file then see the same numbers.
cuda_version_flags() {
	nv=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
	[ -x "$nv" ] || nv=$(command -v nvcc 2>/dev/null) || return 0
	v=$("$nv" --version 2>/dev/null |
		sed -n 's/.*release [0-9.]*, V\([0-9]*\)\.\([0-9]*\)\.\([0-9]*\).*/\1 \2 \3/p' | head -n 1)
	[ -n "$v" ] || return 0
	set -- $v
	echo "-D__CUDACC_VER_MAJOR__=$1 -D__CUDACC_VER_MINOR__=$2 -D__CUDACC_VER_BUILD__=$3" \
	     "-DCUDART_VERSION=$(($1 * 1000 + $2 * 10))"
}

# The installed toolkit's headers, searched after the emulator's and the
# system's: a header-only one a lab file may include by name
# (cuda_occupancy.h, math_constants.h) is found as nvcc finds it, and
# never one the emulator provides itself (cuda_runtime.h and the rest come
# first from $inc). Nothing where no toolkit is installed.
toolkit_include_flags() {
	nv=$(command -v nvcc 2>/dev/null) || nv=''
	for d in "${CUDA_HOME:-/usr/local/cuda}/include" ${nv:+"$(dirname "$nv")/../include"}; do
		[ -f "$d/cuda_occupancy.h" ] && { echo "-idirafter $d"; return 0; }
	done
	return 0
}

# library_includes ERRORS PREPROCESSED
# Thrust, CUB and libcu++ (<thrust/...>, <cub/...>, <cuda/...>) are not run
# by the emulator, and they have too many header names to make each one
# #error as emu.mk does for cuBLAS's. Two ways a file meets them: g++'s "No
# such file or directory" (no toolkit on the path, or CUDA 13, which keeps
# them under include/cccl), or a copy found in a system folder (CUDA 12
# keeps them beside cuda_runtime.h, a distribution's package in
# /usr/include), which fails later with pages of errors. Either becomes
# one line on the file and line of the #include. A header of the program's
# own folder named cuda/... is found there first (-iquote: no system
# header) and is neither. Prints the line; status 0 when there is one.
library_includes() {
	why='Thrust, CUB and libcu++ (<thrust/...>, <cub/...>, <cuda/...>) are not supported by the CPU emulator, which runs CUDA C++ and the CUDA runtime API'
	msg=$(sed -n -E "s@^(.*):([0-9]+):[0-9]+: fatal error: ((thrust|cub|cuda)/[^:]*): No such file or directory\$@\1:\2: error: <\3>: $why (and the program has no header of that name)@p" "$1" | head -n 1)
	[ -n "$msg" ] || [ ! -s "$2" ] || msg=$(awk -v why="$why" '
	# Line markers: # LINE "FILE" FLAGS; flag 1 enters an #include, made
	# on the line that would have come next in the includer; flag 3 marks
	# a system header. A system header entered from the program itself
	# code is a library one when the #include there names one.
	/^# [0-9]+ "/ {
		match($0, /"[^"]*"/)
		f = substr($0, RSTART + 1, RLENGTH - 2)
		flags = " " substr($0, RSTART + RLENGTH) " "
		if (flags ~ / 1 / && flags ~ / 3 / && !sys && file != "") {
			text = ""
			for (k = 0; k < line && (getline text < file) > 0; k++)
				;
			close(file)
			if (k == line && match(text, /^[ \t]*#[ \t]*include[ \t]*[<"](thrust|cub|cuda)\/[^>"]*/)) {
				name = substr(text, RSTART, RLENGTH)
				sub(/^[^<"]*[<"]/, "", name)
				printf "%s:%d: error: <%s>: %s\n", file, line, name, why
				exit
			}
		}
		file = f
		line = $2
		sys = flags ~ / 3 /
		next
	}
	{ line++ }' "$2")
	[ -n "$msg" ] || return 1
	printf '%s\n' "$msg" >&2
	return 0
}

# preprocess SRC OUT FLAGS...
# The preprocessing of a .cu file, as nvcc's: the file sees nvcc's macros
# (cuemu_device.h defines them) and none of the emulator's own; GNU C++17,
# nvcc's default dialect (no __STRICT_ANSI__). The text goes to OUT by a
# redirection, not -o, which g++ deletes on an error: library_includes
# reads where a failed #include led.
preprocess() {
	src=$1 ppout=$2
	shift 2
	# shellcheck disable=SC2086
	"$CXX" -std=gnu++17 -E -iquote "$(dirname "$src")" -I"$inc" $cuda_version $toolkit_include \
		-include cuemu_device.h "$@" -x c++ "$src" >"$ppout"
}

# compile_cu SRC OBJ FLAGS...
# Preprocess (so that launches and refused constructs made by macros are
# seen as the compiler sees them; line markers keep the student's files and
# lines), rewrite, compile the result as C++ with the instrumentation.
# -fsanitize=shift-exponent: a shift by the type's width or more is reported
# (the runtime's __ubsan handler names the line) where x86 and the GPU differ.
compile_cu() {
	src=$1 obj=$2
	shift 2
	pp=$(mktemp "${obj}.XXXXXX") || die "cannot create a file next to $obj"
	dpp=$(mktemp "${obj}.XXXXXX") || { rm -f "$pp"; die "cannot create a file next to $obj"; }
	tmp=$(mktemp "${obj}.XXXXXX") || { rm -f "$pp" "$dpp"; die "cannot create a file next to $obj"; }
	derr=$(mktemp "${obj}.XXXXXX") || { rm -f "$pp" "$dpp" "$tmp"; die "cannot create a file next to $obj"; }
	herr=$(mktemp "${obj}.XXXXXX") || { rm -f "$pp" "$dpp" "$tmp" "$derr"; die "cannot create a file next to $obj"; }
	keep=$(compile_only_flags "$@")
	IFS=' '	# the flag strings below split on blanks
	# nvcc's two passes: the device pass sees __CUDA_ARCH__; where the
	# texts differ, the rewriter takes device code from it (rewrite/arch.c).
	# The passes run side by side (a tenth of a second of each build); the
	# device pass's messages follow the host pass's, and none are shown
	# twice: where the host pass fails, the device pass's are dropped.
	dev=''
	preprocess "$src" "$dpp" -D__CUDA_ARCH__="$arch" "$@" 2>"$derr" &
	dpid=$!
	preprocess "$src" "$pp" "$@" 2>"$herr"
	hrc=$?
	wait "$dpid"
	drc=$?
	if library_includes "$herr" "$pp"; then
		rm -f "$pp" "$dpp" "$tmp" "$derr" "$herr"
		exit 1
	fi
	cat "$herr" >&2
	[ $hrc -ne 0 ] || cat "$derr" >&2
	rm -f "$derr" "$herr"
	[ $hrc -eq 0 ] && [ $drc -eq 0 ] && {
		cmp -s "$pp" "$dpp" || dev=$dpp
	} &&
	"$here/cuemu-rewrite" --name "$src" --system "$inc" ${dev:+--device} ${dev:+"$dev"} "$pp" "$tmp" || {
		rc=$?
		[ $hrc -eq 0 ] || rc=$hrc
		rm -f "$pp" "$dpp" "$tmp"
		exit "$rc"
	}
	IFS=$nl
	set -- $keep
	IFS=' '
	# shellcheck disable=SC2046
	"$CXX" -std=gnu++17 $OPT -g -pipe $(tsan_flags) -fsanitize=shift-exponent $(line_flags) \
		-fno-strict-aliasing -I"$inc" -DCUEMU_REWRITTEN=1 -include cuemu_qualifiers.h \
		$(mem_ops_flags) "$@" -x c++ -c "$tmp" -o "$obj" &&
	rename_for_trace "$obj"
	rc=$?
	rm -f "$pp" "$dpp" "$tmp"
	[ $rc -eq 0 ] || exit $rc
	IFS=$nl
}

compile_other() {
	src=$1 obj=$2
	shift 2
	IFS=' '
	case $src in
	*.c) "$CC" -std=gnu11 $OPT -g -I"$inc" "$@" -c "$src" -o "$obj" || exit $? ;;
	*) "$CXX" -std=c++17 $OPT -g -I"$inc" "$@" -c "$src" -o "$obj" || exit $? ;;
	esac
	IFS=$nl
}

# Arguments are gathered into newline-separated lists and expanded with
# IFS set to a newline and globbing off: paths may hold blanks (a student's
# folder in a batch), not newlines.
nl='
'
append() {	# append LIST VALUE
	eval "$1=\"\${$1:+\${$1}\$nl}\$2\""
}

mode=link out='' sources='' objects='' cflags='' ldflags=''
arch=900	# __CUDA_ARCH__ of device code: sm_90, or -arch=sm_XY's
cuda_version=$(cuda_version_flags)
toolkit_include=$(toolkit_include_flags)
while [ $# -gt 0 ]; do
	case $1 in
	-c) mode=compile ;;
	-E) mode=preprocess ;;
	-o) [ $# -ge 2 ] || usage; out=$2; shift ;;
	-o*) out=${1#-o} ;;
	-arch=sm_*|--gpu-architecture=sm_*) arch=$(printf '%s' "${1#*=sm_}" | tr -cd 0-9)0 ;;
	-arch|--gpu-architecture)
		[ $# -ge 2 ] || usage
		arch=$(printf '%s' "${2#sm_}" | tr -cd 0-9)0
		shift ;;
	*.cu|*.c|*.cpp|*.cc|*.cxx) append sources "$1" ;;
	*.o|*.a|*.so) append objects "$1" ;;
	-l*|-L*|-Wl,*|-pthread|-rdynamic) append ldflags "$1" ;;
	-I|-D|-U|-include|-isystem|-iquote)
		[ $# -ge 2 ] || usage
		append cflags "$1"
		append cflags "$2"
		shift ;;
	-*) append cflags "$1" ;;
	*) die "do not know what to do with '$1'" ;;
	esac
	shift
done
# -E: the preprocessed .cu file, as nvcc -E gives it (on stdout without -o).
if [ "$mode" = preprocess ]; then
	set -f
	IFS=$nl
	set -- $sources
	[ $# -eq 1 ] || die "-E wants exactly one source file"
	src=$1
	set -- $cflags
	IFS=' '
	preprocess "$src" "${out:-/dev/stdout}" "$@" || exit $?
	exit 0
fi
[ -n "$out" ] || usage
[ -x "$here/cuemu-rewrite" ] || die "$here/cuemu-rewrite is missing: run make emu"
set -f
IFS=$nl

# shellcheck disable=SC2086
if [ "$mode" = compile ]; then
	set -- $sources
	[ $# -eq 1 ] || die "-c wants exactly one source file"
	case $1 in
	*.cu) compile_cu "$1" "$out" $cflags ;;
	*) compile_other "$1" "$out" $cflags ;;
	esac
	exit 0
fi

# Link, compiling any sources first.
built=''
cleanup() {
	[ -z "$built" ] || rm -f $built
}
trap cleanup EXIT
for src in $sources; do
	obj=$(mktemp "${out}.XXXXXX") || die "cannot create a file next to $out"
	append built "$obj"
	case $src in
	*.cu) compile_cu "$src" "$obj" $cflags ;;
	*) compile_other "$src" "$obj" $cflags ;;
	esac
done
[ -f "$here/libcuemu.a" ] || die "$here/libcuemu.a is missing: run make emu"
# shellcheck disable=SC2086
"$CXX" -no-pie -o "$out" $objects $built "$here/libcuemu.a" $ldflags -lm
