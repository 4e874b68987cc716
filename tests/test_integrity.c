#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "steps/integrity.h"
#include "steps/known_symbols.h"
#include "sys/kit_paths.h"

static struct rubric r;
static struct symbol_set known_cuda, known_emu;

static void setup(void)
{
	char err[512];
	cr_assert_eq(rubric_load("labs/lab3-transpose/lab.ini", 2, &r, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(known_symbols_load(BACKEND_CUDA, &known_cuda, err, sizeof err), 0, "%s", err);
	cr_assert_eq(known_symbols_load(BACKEND_EMU, &known_emu, err, sizeof err), 0, "%s", err);
}

static void teardown(void)
{
	rubric_free(&r);
	symbol_set_free(&known_cuda);
	symbol_set_free(&known_emu);
}

TestSuite(integrity, .init = setup, .fini = teardown);

/* The verdict on a call (defined 0) or a strong definition (defined 1) of
 * a name whose raw and demangled forms are the same. */
static const char *judge(enum backend b, const char *name, int defined)
{
	struct object_symbol s = { name, name, defined ? 'T' : 'U' };
	return integrity_judge(&r, b, b == BACKEND_EMU ? &known_emu : &known_cuda, &s);
}

Test(integrity, what_nvcc_emits_is_allowed)
{
	const char *calls[] = { "cudaMalloc", "cudaFree", "__cudaLaunchKernel", "__cudaRegisterFatBinary",
				"__cxa_guard_acquire", "atexit", "_Unwind_Resume", "__gxx_personality_v0",
				"printf", "memset", "operator new(unsigned long)" };
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		cr_expect_null(judge(BACKEND_CUDA, calls[i], 0), "%s refused", calls[i]);
	cr_expect_null(judge(BACKEND_CUDA, "transpose", 1));
	struct object_symbol tiled = { "_Z15transpose_tiledPKfPfii", "transpose_tiled(float const*, float*, int, int)", 'T' };
	cr_expect_null(integrity_judge(&r, BACKEND_CUDA, &known_cuda, &tiled));
	cr_expect_null(judge(BACKEND_EMU, "__tsan_read4", 0));
}

/* What harmless host code calls: stdio to stdout and stderr (fwrite is
 * what gcc makes of fprintf(stderr, "text\n")), and the math library. */
Test(integrity, printing_and_math_are_allowed)
{
	const char *calls[] = { "fwrite", "fputs", "puts", "putchar", "fflush", "log2", "frexp", "ceil",
				"sqrtf", "exp2", "ldexp", "snprintf" };
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		cr_expect_null(judge(BACKEND_CUDA, calls[i], 0), "%s refused", calls[i]);
		cr_expect_null(judge(BACKEND_EMU, calls[i], 0), "%s refused on the emulator", calls[i]);
	}
}

/* Names are the student's own unless a library defines them: a cudaCheck
 * helper, a namespace cuda. */
Test(integrity, own_names_that_look_like_the_runtime_are_allowed)
{
	cr_expect_null(judge(BACKEND_CUDA, "cudaCheck", 1));
	cr_expect_null(judge(BACKEND_EMU, "cudaCheck", 1));
	struct object_symbol ns = { "_ZN4cuda4scanEPKjPjm", "cuda::scan(unsigned int const*, unsigned int*, unsigned long)", 'T' };
	cr_expect_null(integrity_judge(&r, BACKEND_CUDA, &known_cuda, &ns));
	struct object_symbol check = { "_Z9cudaCheck9cudaErrorPKci", "cudaCheck(cudaError, char const*, int)", 'T' };
	cr_expect_null(integrity_judge(&r, BACKEND_EMU, &known_emu, &check));
}

Test(integrity, forbidden_calls_are_refused)
{
	const char *calls[] = { "fork", "system", "dlsym", "fopen", "open", "execve", "popen", "syscall",
				"cub::CUB_300001_SM_900::DeviceScan::ExclusiveSum<unsigned int const*>(void*)",
				"thrust::inclusive_scan", "getaddrinfo", "write", "pthread_create", "channel_send" };
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		cr_expect_not_null(judge(BACKEND_CUDA, calls[i], 0), "%s allowed", calls[i]);
	cr_expect_not_null(judge(BACKEND_CUDA, "__tsan_read4", 0), "emulator hooks only on the emulator");
	struct object_symbol ofs = { "_ZNSt14basic_ofstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode",
				     "std::basic_ofstream<char, std::char_traits<char> >::basic_ofstream(char const*, std::_Ios_Openmode)", 'U' };
	cr_expect_not_null(integrity_judge(&r, BACKEND_CUDA, &known_cuda, &ofs), "a file stream allowed");
}

Test(integrity, no_stand_ins_for_the_runtime)
{
	cr_expect_not_null(judge(BACKEND_CUDA, "cudaEventElapsedTime", 1));
	cr_expect_not_null(judge(BACKEND_EMU, "cudaEventElapsedTime", 1));
	cr_expect_not_null(judge(BACKEND_CUDA, "main", 1));
	cr_expect_not_null(judge(BACKEND_CUDA, "malloc", 1));
	cr_expect_not_null(judge(BACKEND_CUDA, "write", 1), "libc's write() defined");
	cr_expect_not_null(judge(BACKEND_CUDA, "channel_send", 1), "the kit's channel defined");
	cr_expect_not_null(judge(BACKEND_EMU, "channel_send", 1));
	cr_expect_not_null(judge(BACKEND_CUDA, "lab_entry_call", 1));
	cr_expect_not_null(judge(BACKEND_CUDA, "log2", 1));
	cr_expect_not_null(judge(BACKEND_EMU, "__tsan_write4", 1));
	cr_expect_not_null(judge(BACKEND_EMU, "cuemu_metrics_reset", 0),
			   "the analysis must not be reset from inside the submission");
	cr_expect_not_null(judge(BACKEND_EMU, "cuemu_set_tracing", 0));
}

/* The kit's kernels' entry points are the kit's names too, where the CUDA
 * toolkit built them (the only place a GPU harness links them). */
Test(integrity, no_stand_ins_for_the_kits_kernels)
{
	char fill_o[1024];
	kit_path(fill_o, sizeof fill_o, "build/harness/cuda/device_fill.o");
	if (access(fill_o, R_OK) != 0)
		cr_skip_test("the kit's kernels are not built (no CUDA toolkit)");
	cr_expect_not_null(judge(BACKEND_CUDA, "kit_device_fill", 1), "the kit's fill defined");
	cr_expect_not_null(judge(BACKEND_CUDA, "kit_device_hash", 1), "the kit's hash defined");
}

/* A weak C++ copy of an inline function, or of the personality pointer, is
 * the compiler's, not a stand-in; a weak C definition of a library function
 * is one. */
Test(integrity, weak_definitions)
{
	struct object_symbol inl = { "_ZNSt6vectorIjSaIjEE17_M_realloc_insertIJRKjEEEvN9__gnu_cxx17__normal_iteratorIPjS1_EEDpOT_",
				     "void std::vector<unsigned int>::_M_realloc_insert<unsigned int const&>(...)", 'W' };
	cr_expect_null(integrity_judge(&r, BACKEND_CUDA, &known_cuda, &inl));
	/* nvcc's object has it, and so does the kit's hash kernel. */
	struct object_symbol personality = { "DW.ref.__gxx_personality_v0", "DW.ref.__gxx_personality_v0", 'V' };
	cr_expect_null(integrity_judge(&r, BACKEND_CUDA, &known_cuda, &personality));
	struct object_symbol w = { "write", "write", 'W' };
	cr_expect_not_null(integrity_judge(&r, BACKEND_CUDA, &known_cuda, &w));
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
	*ok = integrity_check(&r, BACKEND_CUDA, obj, NULL, &g);
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
	cr_expect(strstr(msg, "defines a symbol of the CUDA runtime: cudaEventElapsedTime"), "%s", msg);
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

/* A cudaCheck helper that reports on stderr (gcc makes the literal's
 * fprintf a fwrite), host math for the grid size, a namespace cuda. */
Test(integrity, an_ordinary_error_helper_and_grid_math_are_allowed)
{
	int ok;
	const char *msg = verdict(object_of("#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\n"
					    "typedef int cudaError_t;\n"
					    "void cudaCheck(cudaError_t e) { if (e) { fprintf(stderr, \"CUDA error\\n\"); fputs(\"x\", stderr); exit(1); } }\n"
					    "int cuda_blocks(double n) { int e; frexp(n, &e); return (int)log2(n) + e; }\n"
					    "void transpose(const float *i, float *o, int r, int c) { (void)i; (void)o; cudaCheck(cuda_blocks(r * c)); }\n",
					    "-O2"), &ok);
	cr_expect_eq(ok, 1, "%s", msg);
}

Test(integrity, defining_write_is_refused)
{
	int ok;
	const char *msg = verdict(object_of("#include <stddef.h>\n"
					    "long write(int fd, const void *b, size_t n) { (void)fd; (void)b; return (long)n; }\n"
					    "void transpose(const float *i, float *o, int r, int c) { (void)i; (void)o; (void)r; (void)c; }\n",
					    ""), &ok);
	cr_expect_eq(ok, 0);
	cr_expect(strstr(msg, "defines a symbol of the C library: write"), "%s", msg);
}

/* Host code that makes a system call itself (inline asm) is refused on a
 * GPU build, where nothing else sees it; the same code without one is not. */
Test(integrity, a_system_call_instruction_is_refused)
{
	int ok;
	const char *msg = verdict(object_of("void leave(void) { __asm__ volatile(\"mov $231, %eax\\n\\tsyscall\"); }\n"
					    "void transpose(const float *i, float *o, int r, int c)\n"
					    "{ (void)i; (void)o; (void)c; if (r < 0) leave(); }\n", ""), &ok);
	cr_expect_eq(ok, 0);
	cr_expect(strstr(msg, "makes a system call itself (an instruction in leave)"), "%s", msg);
	msg = verdict(object_of("int leave(int x) { return x * 3 + 1; }\n"
				"void transpose(const float *i, float *o, int r, int c)\n"
				"{ (void)i; (void)o; (void)c; if (r < 0) leave(r); }\n", ""), &ok);
	cr_expect_eq(ok, 1, "%s", msg);
}
