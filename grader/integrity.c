/* The symbol check (see integrity.h). */
#include "integrity.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit_paths.h"
#include "sandbox.h"

static int matches_any(char *const *patterns, int n, const char *symbol)
{
	for (int i = 0; i < n; i++)
		if (fnmatch(patterns[i], symbol, 0) == 0)
			return 1;
	return 0;
}

/*
 * On the emulator, the CUDA API, threadIdx, __syncthreads() and the memory
 * hooks the compiler inserts are all defined by libcuemu.a: what it defines
 * is what an emulated submission may call (and must not define itself).
 */
static char *emulator_names;	/* "\nname\nname\n...": every global libcuemu.a defines */

static void load_emulator_names(void)
{
	char lib[1024];
	kit_path(lib, sizeof(lib), "build/emu/libcuemu.a");
	char *argv[] = { "nm", "-P", "-g", "--defined-only", lib, NULL };
	struct sandbox_limits lim = { .wall_s = 60, .output_cap = 4 << 20 };
	struct child_result res;
	char err[256];
	emulator_names = calloc(1, 2);
	if (sandbox_run(argv, &lim, &res, err, sizeof(err)) < 0)
		return;
	size_t len = 1, cap = res.output_len + 2;
	char *names = realloc(emulator_names, cap), *save;
	if (!names) {
		child_result_free(&res);
		return;
	}
	names[0] = '\n';
	/* Lines are "NAME TYPE VALUE SIZE", or "libcuemu.a[file.o]:" headers. */
	for (char *line = strtok_r(res.output, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');
		if (!sp)
			continue;
		memcpy(names + len, line, (size_t)(sp - line));
		len += (size_t)(sp - line);
		names[len++] = '\n';
	}
	names[len] = '\0';
	emulator_names = names;
	child_result_free(&res);
}

static int emulator_symbol(const char *s)
{
	if (!emulator_names)
		load_emulator_names();
	char key[512];
	snprintf(key, sizeof(key), "\n%s\n", s);
	return strstr(emulator_names, key) != NULL;
}

const char *integrity_judge(const struct rubric *r, enum backend backend, const char *symbol,
			    int defined)
{
	if (matches_any(r->forbid, r->n_forbid, symbol))
		return defined ? "defines a forbidden symbol" : "calls a forbidden function";
	if (backend == BACKEND_EMU && emulator_symbol(symbol))
		return defined ? "defines a symbol of the emulator" : NULL;
	if (defined) {
		/* A definition that shadows a library function or the program's
		 * entry would let student code stand in for the harness's tools. */
		if (strcmp(symbol, "main") == 0 || matches_any(r->allow, r->n_allow, symbol))
			return "defines a function of the CUDA runtime or the C library";
		return NULL;
	}
	return matches_any(r->allow, r->n_allow, symbol) ? NULL : "calls a function the lab does not allow";
}

/* One line of `nm -C -P`: "NAME TYPE [VALUE [SIZE]]"; NAME may hold spaces.
 * Returns the type letter and cuts the line to the name, or 0. */
static char split_nm_line(char *line)
{
	size_t len = strlen(line);
	while (len && isspace((unsigned char)line[len - 1]))
		line[--len] = '\0';
	/* From the right, the first token of one letter is the type. */
	for (int tokens = 0; tokens < 3 && len; tokens++) {
		char *sp = strrchr(line, ' ');
		if (!sp)
			return 0;
		if (strlen(sp + 1) == 1 && isalpha((unsigned char)sp[1])) {
			char type = sp[1];
			*sp = '\0';
			return type;
		}
		*sp = '\0';
		len = strlen(line);
	}
	return 0;
}

int integrity_check(const struct rubric *r, enum backend backend, const char *student_obj,
		    struct grade *g)
{
	struct test_result *t = grade_add_test(g, "symbols", GROUP_INTEGRITY, 0);
	char *argv[] = { "nm", "-C", "-P", (char *)student_obj, NULL };
	struct sandbox_limits lim = { .wall_s = 60, .output_cap = 16 << 20 };
	struct child_result res;
	char err[256];
	if (sandbox_run(argv, &lim, &res, err, sizeof(err)) < 0 || !res.exited || res.exit_status) {
		test_fail(t, "could not list the symbols of your object file (nm): %s",
			  res.output ? res.output : err);
		child_result_free(&res);
		return 0;
	}
	int ok = 1;
	char *save;
	for (char *line = strtok_r(res.output, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char type = split_nm_line(line);
		/* Lower-case types are local to the file, except weak references (w, v)
		 * and unique globals (u); only global names matter. */
		if (!type || (islower((unsigned char)type) && !strchr("wvu", type)))
			continue;
		int defined = !strchr("Uwv", type);	/* w, v: weak references */
		const char *why = integrity_judge(r, backend, line, defined);
		if (why) {
			test_fail(t, "refused: your file %s: %s. The lab allows the CUDA runtime and basic "
				  "C library calls; libraries that do the lab's work (CUB, Thrust), dynamic "
				  "loading, files and processes are not allowed.", why, line);
			ok = 0;
			break;
		}
	}
	if (ok)
		test_pass(t, "%s", "");
	child_result_free(&res);
	return ok;
}
