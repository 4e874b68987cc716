/* The symbol check (see integrity.h). */
#include "steps/integrity.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steps/direct_syscalls.h"
#include "steps/known_symbols.h"
#include "sys/sandbox.h"

static int matches_any(char *const *patterns, int n, const char *symbol)
{
	for (int i = 0; i < n; i++)
		if (fnmatch(patterns[i], symbol, 0) == 0)
			return 1;
	return 0;
}

/* The harness's own controls of the emulator (emu/include/cuemu.h): a
 * submission that called them could, say, clear the metrics between a racy
 * kernel and a clean one, or choose which blocks are traced. Every
 * cuemu_set_* and cuemu_metrics_* is one, present or future. */
static int emulator_control(const char *s)
{
	static const char *const controls[] = { "cuemu_set_*", "cuemu_metrics_*", "cuemu_tracing",
						"cuemu_last_fault*", NULL };
	for (int i = 0; controls[i]; i++)
		if (fnmatch(controls[i], s, 0) == 0)
			return 1;
	return 0;
}

/* Libraries whose every export a submission may call: the math library,
 * the C++ runtime (what the rubric forbids of it, its file streams, is
 * refused first), the compiler's helpers, the CUDA runtime and, in an
 * emulated build, the emulator's runtime, which stands in for the GPU. */
static unsigned callable_sources(enum backend backend)
{
	return SYM_LIBM | SYM_LIBSTDCXX | SYM_LIBGCC | SYM_CUDART |
	       (backend == BACKEND_EMU ? SYM_EMULATOR : 0);
}

static const char *judge_call(const struct rubric *r, enum backend backend, struct symbol_set *known,
			      const struct object_symbol *s)
{
	if (backend == BACKEND_EMU && emulator_control(s->raw))
		return "calls the grader's controls of the emulator";
	if (matches_any(r->allow, r->n_allow, s->name))
		return NULL;
	/* The kit's own functions and libc's others (files, processes,
	 * sockets) are not callable unless the rubric allows them by name. */
	unsigned from = symbol_set_find(known, s->raw);
	if (from & callable_sources(backend) && !(from & SYM_KIT))
		return NULL;
	return "calls a function the lab does not allow";
}

static const char *judge_definition(struct symbol_set *known, const struct object_symbol *s)
{
	if (strcmp(s->raw, "main") == 0)
		return "defines a symbol of the grading kit";	/* the harness's main */
	/* A weak C++ definition is the compiler's copy of an inline function
	 * or a template the file uses (std::vector's members, say), or of the
	 * pointer to the exception personality routine (DW.ref.*) that every
	 * C++ object with unwind tables carries, the kit's own included; the
	 * linker keeps one copy of the same thing. */
	if ((s->type == 'W' || s->type == 'V') &&
	    (strncmp(s->raw, "_Z", 2) == 0 || strncmp(s->raw, "DW.ref.", 7) == 0))
		return NULL;
	unsigned from = symbol_set_find(known, s->raw);
	if (!from)
		return NULL;
	static char why[128];
	snprintf(why, sizeof why, "defines a symbol of %s", symbol_source_name(from));
	return why;
}

const char *integrity_judge(const struct rubric *r, enum backend backend, struct symbol_set *known,
			    const struct object_symbol *s)
{
	int defined = !strchr("Uwv", s->type);
	if (matches_any(r->forbid, r->n_forbid, s->name))
		return defined ? "defines a forbidden symbol" : "calls a forbidden function";
	return defined ? judge_definition(known, s) : judge_call(r, backend, known, s);
}

/* The global symbols of obj as `nm -P` lists them (raw names, no sort),
 * and the same list demangled (`nm -C -j`): line k of one is line k of the
 * other. */
static int list_symbols(const char *obj, const struct isolation_policy *tools, char **raw, char **shown,
			char *err, size_t errlen)
{
	char *raw_argv[] = { "nm", "-P", "-p", "-g", (char *)obj, NULL };
	char *shown_argv[] = { "nm", "-C", "-j", "-p", "-g", (char *)obj, NULL };
	char *const *argvs[] = { raw_argv, shown_argv };
	char **outs[] = { raw, shown };
	struct sandbox_limits lim = { .wall_s = 60, .output_cap = 16 << 20, .isolation = tools };
	for (int i = 0; i < 2; i++) {
		struct child_result res;
		*outs[i] = NULL;
		if (sandbox_run(argvs[i], &lim, &res, err, errlen) < 0)
			return -1;
		if (!res.exited || res.exit_status || res.output_dropped) {
			snprintf(err, errlen, "%.400s", res.output ? res.output : "nm failed");
			child_result_free(&res);
			return -1;
		}
		*outs[i] = res.output;
		res.output = NULL;
		child_result_free(&res);
	}
	return 0;
}

/* Judges every symbol; returns 1 with the first refused one's verdict in
 * why/name, 0 when all are allowed, -1 when the lists do not match up. */
static int judge_all(const struct rubric *r, enum backend backend, struct symbol_set *known, char *raw,
		     char *shown, const char **why, char *name, size_t len)
{
	char *rs, *ss, *rline = strtok_r(raw, "\n", &rs), *sline = strtok_r(shown, "\n", &ss);
	for (; rline && sline; rline = strtok_r(NULL, "\n", &rs), sline = strtok_r(NULL, "\n", &ss)) {
		char *sp = strchr(rline, ' ');
		if (!sp || !sp[1])
			return -1;
		*sp = '\0';
		struct object_symbol s = { rline, sline, sp[1] };
		*why = integrity_judge(r, backend, known, &s);
		if (*why) {
			snprintf(name, len, "%s", sline);
			return 1;
		}
	}
	return rline || sline ? -1 : 0;
}

/* The refusal's kind, from integrity_judge's own words above. */
static enum refusal refusal_of(const char *why)
{
	if (strncmp(why, "defines ", 8) == 0)
		return REFUSED_DEFINITION;
	if (strcmp(why, "calls a forbidden function") == 0)
		return REFUSED_CALL;
	if (strcmp(why, "calls a function the lab does not allow") == 0)
		return REFUSED_CALL_NOT_ALLOWED;
	return REFUSED_OTHER;
}

int integrity_check(const struct rubric *r, enum backend backend, const char *student_obj,
		    const struct isolation_policy *tools, struct grade *g)
{
	struct test_result *t = grade_add_test(g, "symbols", GROUP_INTEGRITY, 0);
	struct symbol_set known = { 0 };
	const char *why = NULL;
	char name[1024], err[512], *raw = NULL, *shown = NULL;
	int rc = known_symbols_load(backend, &known, err, sizeof err);
	if (rc < 0) {
		test_fail_as(t, FAILURE_SYMBOL_CHECK, "could not read the symbols the libraries define: %s",
			     err);
	} else if (list_symbols(student_obj, tools, &raw, &shown, err, sizeof err) < 0) {
		test_fail_as(t, FAILURE_SYMBOL_CHECK, "could not list the symbols of your object file (nm): "
			     "%s", err);
		rc = -1;
	} else if ((rc = judge_all(r, backend, &known, raw, shown, &why, name, sizeof name)) < 0) {
		test_fail_as(t, FAILURE_SYMBOL_CHECK, "could not read the symbols of your object file: nm's "
			     "two lists differ");
	} else if (rc > 0) {
		test_fail_as(t, FAILURE_REFUSED, "refused: your file %s: %s. The lab allows the CUDA runtime, the math "
			  "library, printing to stdout and stderr, and basic C library calls; "
			  "libraries that do the lab's work (CUB, Thrust), dynamic loading, files, "
			  "processes and sockets are not allowed, and no function of the C library, "
			  "the CUDA runtime or the kit may be defined again.", why, name);
		t->failure.refusal = refusal_of(why);
		snprintf(t->failure.name, sizeof t->failure.name, "%.160s", name);
	} else if ((rc = direct_syscall_find(student_obj, tools, name, sizeof name, err, sizeof err)) < 0) {
		test_fail_as(t, FAILURE_SYMBOL_CHECK, "could not read the code of your object file: %s",
			     err);
	} else if (rc > 0) {
		test_fail_as(t, FAILURE_REFUSED, "refused: your file makes a system call itself (an instruction in %s): "
			  "the lab's code calls the CUDA runtime and the C library, never the kernel "
			  "directly.", name);
	}
	free(raw);
	free(shown);
	symbol_set_free(&known);
	if (rc != 0)
		return 0;
	test_pass(t, "%s", "");
	return 1;
}
