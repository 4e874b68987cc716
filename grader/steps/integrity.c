/* The symbol check (see integrity.h). */
#include "steps/integrity.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/kit_paths.h"
#include "sys/sandbox.h"

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

/* The harness's own controls of the emulator (emu/include/cuemu.h): a
 * submission that called them could, say, clear the metrics between a racy
 * kernel and a clean one. */
static int emulator_control(const char *s)
{
	static const char *const controls[] = { "cuemu_metrics_reset", "cuemu_metrics_json",
						"cuemu_set_tracing", "cuemu_set_traced_blocks",
						"cuemu_tracing", "cuemu_last_fault", NULL };
	for (int i = 0; controls[i]; i++)
		if (strcmp(s, controls[i]) == 0)
			return 1;
	return 0;
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
	if (backend == BACKEND_EMU && emulator_control(symbol))
		return defined ? "defines a symbol of the emulator" : "calls the grader's controls of the emulator";
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

/* Names, one a line, from `nm -C -j` (just the symbols: demangled names hold
 * spaces, so nothing is parsed out of a line). which: "--defined-only" with
 * -g for the globals the file defines, "-u" for what it calls. Returns the
 * first refused name's verdict in why/name, 0 when all are allowed, -1 when
 * nm failed. */
static int judge_names(const struct rubric *r, enum backend backend, const char *obj,
		       const char *which, int defined, const char **why, char *name, size_t len,
		       char *err, size_t errlen)
{
	/* -u alone lists every undefined name, weak references too. */
	char *defined_argv[] = { "nm", "-C", "-j", "-g", (char *)which, (char *)obj, NULL };
	char *called_argv[] = { "nm", "-C", "-j", "-u", (char *)obj, NULL };
	char **argv = defined ? defined_argv : called_argv;
	struct sandbox_limits lim = { .wall_s = 60, .output_cap = 16 << 20 };
	struct child_result res;
	if (sandbox_run(argv, &lim, &res, err, errlen) < 0 || !res.exited || res.exit_status) {
		if (res.output)
			snprintf(err, errlen, "%.400s", res.output);
		child_result_free(&res);
		return -1;
	}
	int refused = 0;
	char *save;
	for (char *line = strtok_r(res.output, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		*why = integrity_judge(r, backend, line, defined);
		if (*why) {
			snprintf(name, len, "%s", line);
			refused = 1;
			break;
		}
	}
	child_result_free(&res);
	return refused;
}

int integrity_check(const struct rubric *r, enum backend backend, const char *student_obj,
		    struct grade *g)
{
	struct test_result *t = grade_add_test(g, "symbols", GROUP_INTEGRITY, 0);
	const char *why = NULL;
	char name[1024], err[512];
	int rc = judge_names(r, backend, student_obj, "--defined-only", 1, &why, name, sizeof(name),
			     err, sizeof(err));
	if (rc == 0)
		rc = judge_names(r, backend, student_obj, NULL, 0, &why, name, sizeof(name), err,
				 sizeof(err));
	if (rc < 0) {
		test_fail(t, "could not list the symbols of your object file (nm): %s", err);
		return 0;
	}
	if (rc > 0) {
		test_fail(t, "refused: your file %s: %s. The lab allows the CUDA runtime and basic "
			  "C library calls; libraries that do the lab's work (CUB, Thrust), dynamic "
			  "loading, files and processes are not allowed.", why, name);
		return 0;
	}
	test_pass(t, "%s", "");
	return 1;
}
