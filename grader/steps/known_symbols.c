/* The exports of the libraries and the kit (see known_symbols.h). */
#include "steps/known_symbols.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steps/known_symbols_cache.h"
#include "sys/cuda_toolkit.h"
#include "sys/kit_paths.h"
#include "sys/sandbox.h"
#include "sys/strvec.h"

/* Runs argv; returns its output (malloc'd) when it exited with 0, else NULL. */
static char *output_of(char *const argv[], char *err, size_t errlen)
{
	struct sandbox_limits lim = { .wall_s = 60, .output_cap = 32 << 20 };
	struct child_result res;
	if (sandbox_run(argv, &lim, &res, err, errlen) < 0)
		return NULL;
	char *out = NULL;
	if (res.exited && res.exit_status == 0 && !res.output_dropped) {
		out = res.output;
		res.output = NULL;
	} else {
		snprintf(err, errlen, "%s failed: %.300s", argv[0], res.output ? res.output : "");
	}
	child_result_free(&res);
	return out;
}

/* Adds what nm lists as defined globals of path (dynamic: a shared
 * library's exports). */
static int add_nm(struct symbol_set *set, const char *path, int dynamic, unsigned source, char *err,
		  size_t errlen)
{
	char *dyn_argv[] = { "nm", "-P", "-D", "--defined-only", (char *)path, NULL };
	char *obj_argv[] = { "nm", "-P", "-g", "--defined-only", (char *)path, NULL };
	char *out = output_of(dynamic ? dyn_argv : obj_argv, err, errlen);
	if (!out)
		return -1;
	long n = symbol_set_add_nm(set, out, source);
	free(out);
	if (n <= 0) {
		snprintf(err, errlen, "nm found no symbols in %s", path);
		return -1;
	}
	return 0;
}

/* The path of a library the C compiler links ("libc.so.6"), as it finds it. */
static int compiler_library(const char *name, char *path, size_t len, char *err, size_t errlen)
{
	char arg[128];
	snprintf(arg, sizeof arg, "-print-file-name=%s", name);
	char *argv[] = { "gcc", arg, NULL };
	char *out = output_of(argv, err, errlen);
	if (!out)
		return -1;
	out[strcspn(out, "\n")] = '\0';
	int found = out[0] == '/' && file_exists(out);
	snprintf(path, len, "%s", out);
	free(out);
	if (!found)
		snprintf(err, errlen, "the compiler does not find %s", name);
	return found ? 0 : -1;
}

/* The C and C++ libraries, as this compiler finds them; their paths go to found. */
static int add_system_libraries(struct symbol_set *set, struct strvec *found, char *err, size_t errlen)
{
	static const struct {
		const char *name;
		unsigned source;
		int dynamic;
	} libs[] = {
		{ "libc.so.6", SYM_LIBC, 1 },
		{ "libm.so.6", SYM_LIBM, 1 },
		{ "libstdc++.so.6", SYM_LIBSTDCXX, 1 },
		{ "libgcc_s.so.1", SYM_LIBGCC, 1 },
		{ "libgcc.a", SYM_LIBGCC, 0 },
	};
	char path[1024];
	for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
		if (compiler_library(libs[i].name, path, sizeof path, err, errlen) < 0 ||
		    add_nm(set, path, libs[i].dynamic, libs[i].source, err, errlen) < 0)
			return -1;
		strvec_push(found, path);
	}
	return 0;
}

/* libcudart's exports: the installed toolkit's, else the stored list. */
static void cudart_path(char *path, size_t len)
{
	if (!*cuda_toolkit_path("lib64/libcudart.so", path, len) || !file_exists(path))
		kit_path(path, len, "grader/steps/cudart_exports.txt");
}

static int add_cudart(struct symbol_set *set, const char *path, char *err, size_t errlen)
{
	char stored[1024];
	kit_path(stored, sizeof stored, "grader/steps/cudart_exports.txt");
	if (strcmp(path, stored) != 0 && add_nm(set, path, 1, SYM_CUDART, err, errlen) == 0)
		return 0;
	if (symbol_set_add_file(set, stored, SYM_CUDART) > 0)
		return 0;
	snprintf(err, errlen, "cannot read the list of the CUDA runtime's symbols %s", stored);
	return -1;
}

/* The kit's harness pieces: a submission that defined channel_send or
 * lab_entry_call would replace the kit's own. */
static int kit_objects(struct strvec *files, char *err, size_t errlen)
{
	/* The launch log, its wrapper and the kit's kernels are linked only into a GPU harness,
	 * and built only where the CUDA toolkit is (the Makefile). Without
	 * them no GPU harness links (build.c says so), and their names are
	 * nobody's to clash with; the checks of the rules still hold. */
	static const struct { const char *pattern; int cuda_only; } parts[] = {
		{ "build/libkit.a", 0 }, { "build/harness/*/harness_main.o", 0 },
		{ "build/harness/*/bench.o", 0 }, { "build/harness/emu/predict.o", 0 },
		{ "build/harness/labs/*.o", 0 }, { "build/harness/harness/student_exit.o", 0 },
		{ "build/harness/cuda/launch_*.o", 1 }, { "build/harness/cuda/device_*.o", 1 },
	};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		char pattern[1024];
		glob_t g;
		kit_path(pattern, sizeof pattern, parts[i].pattern);
		if (glob(pattern, 0, NULL, &g) != 0) {
			if (parts[i].cuda_only)
				continue;
			snprintf(err, errlen, "the kit is not built: nothing matches %s (run make)", pattern);
			return -1;
		}
		for (size_t k = 0; k < g.gl_pathc; k++)
			strvec_push(files, g.gl_pathv[k]);
		globfree(&g);
	}
	return 0;
}

/* The files the answer depends on that are found without running anything,
 * in this order: the compiler, the CUDA runtime (or its stored list), the
 * kit's objects, and last, for an emulated build, the emulator's runtime. */
enum { FIXED_COMPILER, FIXED_CUDART, FIXED_KIT_OBJECTS };

static int fixed_inputs(enum backend backend, struct strvec *fixed, char *err, size_t errlen)
{
	char path[1024];
	if (!find_program("gcc", path, sizeof path)) {
		snprintf(err, errlen, "gcc is not on PATH");
		return -1;
	}
	strvec_push(fixed, path);
	cudart_path(path, sizeof path);
	strvec_push(fixed, path);
	if (kit_objects(fixed, err, errlen) < 0)
		return -1;
	if (backend == BACKEND_EMU)
		strvec_push(fixed, kit_path(path, sizeof path, "build/emu/libcuemu.a"));
	return 0;
}

int known_symbols_load(enum backend backend, struct symbol_set *set, char *err, size_t errlen)
{
	struct strvec fixed = { 0 }, found = { 0 };
	char cache[1024];
	kit_path(cache, sizeof cache,
		 backend == BACKEND_EMU ? "build/known-symbols-emu.txt" : "build/known-symbols-cuda.txt");
	int rc = fixed_inputs(backend, &fixed, err, errlen);
	if (rc == 0 && fixed.failed) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	if (rc == 0 && known_cache_read(cache, fixed.v, set) < 0) {
		rc = add_system_libraries(set, &found, err, errlen) < 0 ||
				     add_cudart(set, fixed.v[FIXED_CUDART], err, errlen) < 0
			     ? -1 : 0;
		int emulator = backend == BACKEND_EMU ? fixed.n - 1 : -1;
		for (int i = FIXED_KIT_OBJECTS; rc == 0 && i < fixed.n; i++)
			rc = add_nm(set, fixed.v[i], 0, i == emulator ? SYM_EMULATOR : SYM_KIT, err, errlen);
		if (rc == 0 && !found.failed)
			known_cache_write(cache, fixed.v, found.v, set);
	}
	strvec_free(fixed.v);
	strvec_free(found.v);
	return rc;
}
