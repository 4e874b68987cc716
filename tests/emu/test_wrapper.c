/*
 * cuemu-cc, as the grader calls it: compiler messages name the student's
 * lines, constructs the emulator cannot run are refused with FILE:LINE,
 * and every lab file (skeletons, solutions, fixtures) compiles and runs.
 */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu_test.h"

static char dir[] = "/tmp/cuemu-test-XXXXXX";

static void make_dir(void)
{
	scratch_dir_make(dir);
}

static void remove_dir(void)
{
	scratch_dir_remove(dir);
}

/* Writes text to DIR/name and compiles it; returns the status and output. */
static int compile(const char *name, const char *text, char **out)
{
	char path[512], cmd[2048];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "%s/cuemu-cc -c %s -o %s.o", CUEMU_BUILD_DIR, path, path);
	return run_command(cmd, out);
}

static void expect_refused(const char *name, const char *text, int line, const char *words)
{
	char *out, at[256];
	int status = compile(name, text, &out);
	snprintf(at, sizeof at, "%s:%d:", name, line);
	cr_expect_neq(status, 0, "%s compiled", name);
	cr_expect(strstr(out, at) != NULL, "no %s in:\n%s", at, out);
	cr_expect(strstr(out, words) != NULL, "no '%s' in:\n%s", words, out);
	free(out);
}

TestSuite(wrapper, .init = make_dir, .fini = remove_dir);

Test(wrapper, compiler_errors_name_the_students_line)
{
	char *out;
	int status = compile("typo.cu", "#include <cuda_runtime.h>\n\n__global__ void k(int *p)\n{\n"
			     "\tp[threadIdx.x] = undeclared;\n}\n", &out);
	cr_expect_neq(status, 0);
	cr_expect(strstr(out, "typo.cu:5:") != NULL, "%s", out);
	free(out);
}

Test(wrapper, errors_after_a_launch_keep_their_line)
{
	char *out;
	int status = compile("after.cu", "__global__ void k(int *p, int n) { p[n] = n; }\n"
			     "void run(int *p)\n{\n\tk<<<\n\t\t1,\n\t\t32>>>(p,\n\t\t3);\n"
			     "\tint x = nothing;\n}\n", &out);
	cr_expect_neq(status, 0);
	cr_expect(strstr(out, "after.cu:8:") != NULL, "%s", out);
	free(out);
}

/* Inline PTX the emulator cannot run is refused, naming the instruction
 * (tests/emu/test_nvcc_compat.c runs the supported idioms). */
Test(wrapper, unsupported_inline_ptx_is_refused)
{
	expect_refused("ptx.cu", "__global__ void k(int *p)\n{\n\tint v;\n"
		       "\tasm(\"vote.sync.uni.pred %0, 1, 0xffffffff;\" : \"=r\"(v));\n\tp[0] = v;\n}\n", 4,
		       "the PTX instruction 'vote.sync.uni.pred' cannot run in the CPU emulator");
}

/* Refused after preprocessing: token pasting cannot hide asm that is no PTX. */
Test(wrapper, pasted_asm_is_refused)
{
	expect_refused("paste.cu", "#define CAT(a, b) a##b\n__global__ void k(int *p)\n{\n"
		       "\tCAT(__as, m__)(\"movl $1, %0\" : \"=m\"(p[0]));\n}\n", 4,
		       "constraint \"m\" cannot run");
}

/* A function kept out of the instrumentation would do its accesses unseen. */
Test(wrapper, attributes_that_hide_accesses_are_refused)
{
	expect_refused("hide.cu", "#define HIDE __attribute__((no_sanitize(\"thread\")))\n"
		       "HIDE __device__ void f(int *p) { p[0] = 1; }\n", 2, "no_sanitize is not allowed");
	expect_refused("hide2.cu", "__device__ int g;\n[[gnu::no_sanitize_thread]] __device__ void f(int *p)"
		       " { p[0] = g; }\n", 2, "no_sanitize_thread is not allowed");
}

/* Device code's ">>" is rewritten where it is surely a shift; one that
 * closes two template argument lists is left alone. */
Test(wrapper, template_closers_in_device_code_are_no_shifts)
{
	char *out;
	int status = compile("tpl.cu", "template <int N> struct W { static const int v = N; };\n"
			     "template <class T> struct Box { T t; };\n"
			     "__device__ int f(int x)\n{\n\tBox<W<(16 >> 2)>> b;\n\t(void)b;\n"
			     "\treturn x >> W<3>::v >> Box<Box<int>>{}.t.t;\n}\n", &out);
	cr_expect_eq(status, 0, "%s", out);
	free(out);
}

/* A shared array sized by a macro that shifts: after preprocessing the
 * rewriter sees the ">>" (and a template type's closing "> >"). */
Test(wrapper, shared_arrays_sized_by_shifting_macros_compile)
{
	char *out;
	int status = compile("pad.cu", "#define PADDED(i) ((i) + ((i) >> 5))\n"
			     "template <class T> struct Box { T t; };\n"
			     "__global__ void k(unsigned int *p)\n{\n"
			     "\t__shared__ unsigned int tile[PADDED(256)], other[PADDED(64) >> 1];\n"
			     "\t__shared__ Box<Box<int>> box;\n\ttile[threadIdx.x] = other[0] + box.t.t;\n"
			     "\tp[0] = tile[0];\n}\n", &out);
	cr_expect_eq(status, 0, "%s", out);
	free(out);
}

/* nvcc accepts both; so does the emulator. */
Test(wrapper, spaced_launches_and_launches_in_macros_compile)
{
	char *out;
	int status = compile("sp.cu", "__global__ void k(int *p) { p[threadIdx.x] = 1; }\n"
			     "#define LAUNCH(n, p) k<<<1, (n)>>>(p)\n"
			     "void f(int *p)\n{\n\tk<< <1, 32 >> >(p);\n\tk<<< 1, 32 > >>(p);\n"
			     "\tLAUNCH(32, p);\n\tLAUNCH(32, NULL);\n}\n", &out);
	cr_expect_eq(status, 0, "%s", out);
	free(out);
	status = compile("spe.cu", "__global__ void k(int *p) { p[threadIdx.x] = 1; }\n"
			 "#define LAUNCH(n, p) k<<<1, (n)>>>(p)\nvoid f(int *p)\n{\n\tLAUNCH(32, p);\n"
			 "\tint x = nothing;\n}\n", &out);
	cr_expect_neq(status, 0);
	cr_expect(strstr(out, "spe.cu:6:") != NULL, "a launch in a macro moved the lines after it:\n%s", out);
	free(out);
}

Test(wrapper, cooperative_launches_are_refused)
{
	expect_refused("lk.cu", "__global__ void k(void) {}\nvoid f(void)\n{\n"
		       "\tcudaLaunchCooperativeKernel((void *)k, dim3(1), dim3(1), 0, 0, 0);\n}\n", 4,
		       "cudaLaunchCooperativeKernel is not supported");
}

/* cudaLaunchKernel of a kernel known only as a void pointer: no parameter
 * types to read its arguments as, said at compile time. */
Test(wrapper, cuda_launch_kernel_needs_the_kernel_itself)
{
	char *out = NULL;
	int status = compile("lv.cu", "__global__ void k(int *p) { *p = 1; }\nvoid f(int *p)\n{\n"
				  "\tvoid *fn = (void *)k, *args[] = { &p };\n"
				  "\tcudaLaunchKernel(fn, dim3(1), dim3(1), args, 0, 0);\n}\n", &out);
	cr_expect_neq(status, 0);
	cr_expect(strstr(out, "needs the kernel itself") != NULL, "%s", out);
	cr_expect(strstr(out, "lv.cu:5") != NULL, "the student's line is not named:\n%s", out);
	free(out);
}

Test(wrapper, dynamic_parallelism_is_refused)
{
	expect_refused("dp.cu", "__global__ void child(void) {}\n__global__ void parent(void)\n{\n"
		       "\tchild<<<1, 1>>>();\n}\n", 4, "dynamic parallelism");
}

Test(wrapper, textures_are_refused)
{
	expect_refused("tex.cu", "__global__ void k(cudaTextureObject_t t, float *o)\n{\n"
		       "\to[0] = tex1Dfetch<float>(t, 0);\n}\n", 1, "textures and surfaces");
}

Test(wrapper, a_host_device_function_may_launch)
{
	char *out;
	int status = compile("hd.cu", "__global__ void k(void) {}\n__device__ int f(int x) { return x; }\n"
			     "__host__ void g(void) { k<<<1, 1>>>(); }\n", &out);
	cr_expect_eq(status, 0, "%s", out);
	free(out);
}

/* ---- every lab file ----------------------------------------------------------------- */

static void compile_all(const char *pattern)
{
	char pat[512];
	glob_t g;
	snprintf(pat, sizeof pat, "%s/%s", CUEMU_SOURCE_DIR, pattern);
	/* The kit ships these files: finding none is a broken checkout or a
	 * wrong pattern, and must not pass as "nothing to check". */
	if (glob(pat, 0, NULL, &g) != 0)
		cr_assert_fail("no file matches %s", pat);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char cmd[2048], *out;
		/* As grader/steps/build.c compiles them: the kit's common/ on the include path. */
		snprintf(cmd, sizeof cmd, "%s/cuemu-cc -I%s/common -c %s -o %s/lab%zu.o", CUEMU_BUILD_DIR,
			 CUEMU_SOURCE_DIR, g.gl_pathv[i], dir, i);
		int status = run_command(cmd, &out);
		/* A file that includes the toolkit's header-only occupancy header
		 * builds wherever nvcc does: not on a machine without the toolkit. */
		if (status != 0 && strstr(out, "cuda_occupancy.h: No such file"))
			cr_log_info("%s: skipped: it includes the CUDA toolkit's cuda_occupancy.h, which is "
				    "not installed here", g.gl_pathv[i]);
		else
			cr_expect_eq(status, 0, "%s does not compile:\n%s", g.gl_pathv[i], out);
		free(out);
	}
	globfree(&g);
}

Test(wrapper, lab_skeletons_compile, .timeout = 120)
{
	compile_all("labs/*/*.cu");
}

Test(wrapper, solutions_compile, .timeout = 120)
{
	compile_all("solutions/*/*.cu");
}

Test(wrapper, fixtures_compile, .timeout = 300)
{
	compile_all("tests/fixtures/lab*/*.cu");
}
