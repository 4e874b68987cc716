#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "steps/integrity.h"

static struct rubric r;

static void setup(void)
{
	char err[512];
	cr_assert_eq(rubric_load("labs/lab3-transpose/lab.ini", 2, &r, err, sizeof(err)), 0, "%s", err);
}

static void teardown(void)
{
	rubric_free(&r);
}

TestSuite(integrity, .init = setup, .fini = teardown);

Test(integrity, what_nvcc_emits_is_allowed)
{
	const char *calls[] = { "cudaMalloc", "cudaFree", "__cudaLaunchKernel", "__cudaRegisterFatBinary",
				"__cxa_guard_acquire", "atexit", "_Unwind_Resume", "__gxx_personality_v0",
				"printf", "memset", "operator new(unsigned long)" };
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		cr_expect_null(integrity_judge(&r, BACKEND_CUDA, calls[i], 0), "%s refused", calls[i]);
	cr_expect_null(integrity_judge(&r, BACKEND_CUDA, "transpose", 1));
	cr_expect_null(integrity_judge(&r, BACKEND_CUDA, "transpose_tiled(float const*, float*, int, int)", 1));
	cr_expect_null(integrity_judge(&r, BACKEND_EMU, "__tsan_read4", 0));
}

Test(integrity, forbidden_calls_are_refused)
{
	const char *calls[] = { "fork", "system", "dlsym", "fopen", "open", "execve", "popen", "syscall",
				"cub::CUB_300001_SM_900::DeviceScan::ExclusiveSum<unsigned int const*>(void*)",
				"thrust::inclusive_scan", "getaddrinfo" };
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		cr_expect_not_null(integrity_judge(&r, BACKEND_CUDA, calls[i], 0), "%s allowed", calls[i]);
	cr_expect_not_null(integrity_judge(&r, BACKEND_CUDA, "__tsan_read4", 0),
			   "emulator hooks only on the emulator");
}

Test(integrity, no_stand_ins_for_the_runtime)
{
	cr_expect_not_null(integrity_judge(&r, BACKEND_CUDA, "cudaEventElapsedTime", 1));
	cr_expect_not_null(integrity_judge(&r, BACKEND_CUDA, "main", 1));
	cr_expect_not_null(integrity_judge(&r, BACKEND_CUDA, "malloc", 1));
	cr_expect_not_null(integrity_judge(&r, BACKEND_EMU, "__tsan_write4", 1));
	cr_expect_not_null(integrity_judge(&r, BACKEND_EMU, "cuemu_metrics_reset", 0),
			   "the analysis must not be reset from inside the submission");
	cr_expect_not_null(integrity_judge(&r, BACKEND_EMU, "cuemu_set_tracing", 0));
}

/* Compiles C source text into an object with gcc (flags added), returns its path. */
static const char *object_of(const char *source, const char *flags)
{
	static char obj[64];
	char src[64], cmd[512];
	snprintf(src, sizeof(src), "/tmp/integrity-%d.c", (int)getpid());
	snprintf(obj, sizeof(obj), "/tmp/integrity-%d.o", (int)getpid());
	FILE *f = fopen(src, "w");
	cr_assert(f);
	fputs(source, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "gcc -c %s %s -o %s", flags, src, obj);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	unlink(src);
	return obj;
}

static const char *verdict(const char *obj, int *ok)
{
	static struct grade g;
	grade_init(&g, NULL);
	*ok = integrity_check(&r, BACKEND_CUDA, obj, &g);
	unlink(obj);
	return g.tests[0].message;
}

/* A weak stand-in for the runtime's timer links beside it: refused anyway. */
Test(integrity, a_weak_timer_is_refused)
{
	int ok;
	const char *msg = verdict(object_of("typedef int cudaError_t;\n"
					    "__attribute__((weak)) cudaError_t cudaEventElapsedTime(float *ms, void *a, void *b)\n"
					    "{ (void)a; (void)b; *ms = 0.001f; return 0; }\n"
					    "void transpose(const float *i, float *o, int r, int c) { (void)i; (void)o; (void)r; (void)c; }\n",
					    ""), &ok);
	cr_expect_eq(ok, 0);
	cr_expect(strstr(msg, "defines a function of the CUDA runtime or the C library: cudaEventElapsedTime"), "%s", msg);
}

/* _FORTIFY_SOURCE (Ubuntu's default) turns printf into __printf_chk: still allowed. */
Test(integrity, fortified_printf_is_allowed)
{
	int ok;
	const char *msg = verdict(object_of("#include <stdio.h>\n#include <string.h>\n"
					    "void transpose(const float *i, float *o, int r, int c)\n"
					    "{ char b[16]; memcpy(b, i, (size_t)r); printf(\"%d %s\\n\", c, b); (void)o; }\n",
					    "-O2 -D_FORTIFY_SOURCE=2"), &ok);
	cr_expect_eq(ok, 1, "%s", msg);
}

Test(integrity, a_real_fork_call_is_refused)
{
	int ok;
	const char *msg = verdict(object_of("#include <unistd.h>\nvoid transpose(const float *i, float *o, int r, int c)\n"
					    "{ (void)i; (void)o; (void)r; (void)c; fork(); }\n", ""), &ok);
	cr_expect_eq(ok, 0);
	cr_expect(strstr(msg, "calls a forbidden function: fork"), "%s", msg);
}
