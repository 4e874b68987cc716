/*
 * cuemu-cc shows a .cu file what nvcc shows it: nvcc's macros and none of
 * the emulator's own (a file that could tell the two apart could be two
 * programs, one analysed and another timed).
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emu_test.h"

static char dir[] = "/tmp/cuemu-nvcc-XXXXXX";

static void make_dir(void)
{
	scratch_dir_make(dir);
}

static void remove_dir(void)
{
	scratch_dir_remove(dir);
}

/* Writes text to DIR/name; returns the path (static). */
static const char *write_source(const char *name, const char *text)
{
	return scratch_source(dir, name, text);
}

/* 1 if s holds word, case aside. */
static int has_word_nocase(const char *s, const char *word)
{
	size_t n = strlen(word);
	for (; *s; s++)
		if (strncasecmp(s, word, n) == 0)
			return 1;
	return 0;
}

TestSuite(nvcc_compat, .init = make_dir, .fini = remove_dir);

Test(nvcc_compat, the_file_sees_nvccs_macros_and_none_of_the_emulators)
{
	char cmd[1024], *out;
	const char *src = write_source("m.cu", "#include <cuda_runtime.h>\n#include <cooperative_groups.h>\n"
				       "#include <cooperative_groups/scan.h>\n#include <cuda_fp16.h>\n"
				       "#include <cuda.h>\n#include <cuda_profiler_api.h>\n"
				       "#include <device_launch_parameters.h>\nint x;\n");
	snprintf(cmd, sizeof cmd, "%s/cuemu-cc -E -dM %s", CUEMU_BUILD_DIR, src);
	cr_assert_eq(run_command(cmd, &out), 0, "%s", out);
	cr_expect(strstr(out, "#define __NVCC__ 1\n") != NULL, "no __NVCC__");
	cr_expect(strstr(out, "#define __CUDACC__ 1\n") != NULL, "no __CUDACC__");
	cr_expect(strstr(out, "#define __CUDACC_VER_MAJOR__ ") != NULL, "no __CUDACC_VER_MAJOR__");
	cr_expect(strstr(out, "#define CUDART_VERSION ") != NULL, "no CUDART_VERSION");
	cr_expect(strstr(out, "#define __CUDA_ARCH__") == NULL, "__CUDA_ARCH__ in host code");
	/* Line by line: a macro whose name says "emu" is the emulator's. */
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char name[128];
		if (sscanf(line, "#define %127[A-Za-z0-9_]", name) != 1)
			continue;
		cr_expect(!has_word_nocase(name, "emu"), "the file can test the emulator's macro %s", name);
		cr_expect(strcmp(name, "__ldg") != 0 && strcmp(name, "atomicAdd_block") != 0 &&
				  strcmp(name, "__expf") != 0 && strcmp(name, "__STRICT_ANSI__") != 0,
			  "%s is a macro, not as under nvcc", name);
	}
	free(out);
}

/* The toolkit's header-only headers that a lab file may include beside
 * the runtime (the occupancy calculator, the math constants) compile with
 * the emulator's headers: no name of ours clashes with theirs. Where the
 * toolkit is installed; the test says so when it is not. */
Test(nvcc_compat, toolkit_headers_do_not_clash_with_the_emulators)
{
	static const char *const headers[] = { "cuda_occupancy.h", "math_constants.h" };
	const char *home = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
	char cmd[2048], *out;
	int found = 0;
	for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/include/%s", home, headers[i]);
		if (access(path, R_OK) != 0)
			continue;
		/* Alone in a folder: the toolkit's cuda_runtime.h must not come with it. */
		snprintf(cmd, sizeof cmd, "mkdir -p %s/tk && cp %s %s/tk/", dir, path, dir);
		cr_assert_eq(system(cmd), 0);
		found++;
	}
	if (!found) {
		cr_log_warn("skipped: no CUDA toolkit under %s (set CUDA_HOME)", home);
		return;
	}
	const char *src = write_source("tk.cu",
		"#include <cuda_runtime.h>\n#include <cooperative_groups.h>\n#include <cuda_fp16.h>\n"
		"#if __has_include(<cuda_occupancy.h>)\n#include <cuda_occupancy.h>\n"
		"int blocks(void)\n{\n\tcudaDeviceProp p;\n\tcudaGetDeviceProperties(&p, 0);\n"
		"\tcudaOccDeviceProp prop = p;\n\tcudaOccFuncAttributes attr;\n\tcudaOccDeviceState state;\n"
		"\tcudaOccResult r;\n\tcudaOccMaxActiveBlocksPerMultiprocessor(&r, &prop, &attr, &state, 256, 0);\n"
		"\treturn r.activeBlocksPerMultiprocessor;\n}\n#endif\n"
		"#if __has_include(<math_constants.h>)\n#include <math_constants.h>\n"
		"__global__ void k(float *p) { p[0] = CUDART_PI_F; }\n#endif\n");
	snprintf(cmd, sizeof cmd, "%s/cuemu-cc -I%s/tk -c %s -o %s.o", CUEMU_BUILD_DIR, dir, src, src);
	cr_expect_eq(run_command(cmd, &out), 0, "%s", out);
	free(out);
}

/* nvcc's two passes: device code sees __CUDA_ARCH__ (sm_90's, or -arch's),
 * host code does not, and a __host__ __device__ function runs the branch
 * of the code that calls it. */
Test(nvcc_compat, cuda_arch_is_defined_in_device_code_only)
{
	char *out;
	const char *src = write_source("arch.cu",
		"#include <cstdio>\n"
		"__host__ __device__ int w()\n{\n#ifdef __CUDA_ARCH__\n\treturn 1;\n#else\n\treturn 0;\n#endif\n}\n"
		"__global__ void k(int *p)\n{\n#ifdef __CUDA_ARCH__\n\tp[0] = __CUDA_ARCH__;\n#endif\n"
		"\tp[1] = w();\n}\n"
		"int main()\n{\n\tint *d, h[2] = { 0, 0 };\n\tcudaMalloc(&d, sizeof h);\n\tk<<<1, 1>>>(d);\n"
		"\tcudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n"
		"\tprintf(\"arch %d kernel %d host %d\\n\", h[0], h[1], w());\n\treturn 0;\n}\n");
	cr_assert_eq(cuemu_build_run("", src, &out), 0, "%s", out);
	cr_expect(strstr(out, "arch 900 kernel 1 host 0") != NULL, "%s", out);
	free(out);
	cr_assert_eq(cuemu_build_run("-arch=sm_80", src, &out), 0, "%s", out);
	cr_expect(strstr(out, "arch 800 kernel 1 host 0") != NULL, "%s", out);
	free(out);
}

/* Inline PTX runs, and its loads, stores and shuffles are the emulator's
 * own: a strided transpose-like copy written with ld.global.nc and
 * st.global.cs is traced with the sectors of its plain C++ form. */
Test(nvcc_compat, inline_ptx_accesses_are_traced_like_plain_ones)
{
	char *out;
	const char *src = write_source("ptx.cu",
		"#include <cstdio>\n#include <cstring>\n#include <cstdlib>\n#include <cuemu.h>\n"
		"__global__ void plain(const float *in, float *out)\n{\n"
		"\tunsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n\tout[i * 33 % 1024] = in[i] + 1.0f;\n}\n"
		"__global__ void ptx(const float *in, float *out)\n{\n"
		"\tunsigned i = blockIdx.x * blockDim.x + threadIdx.x, lane;\n\tfloat x;\n"
		"\tasm volatile(\"ld.global.nc.f32 %0, [%1];\" : \"=f\"(x) : \"l\"(in + i));\n"
		"\tasm(\"mov.u32 %0, %%laneid;\" : \"=r\"(lane));\n"
		"\tif (lane != (threadIdx.x & 31)) x = -1000.0f;\n"
		"\tasm volatile(\"st.global.cs.f32 [%0], %1;\" :: \"l\"(out + i * 33 % 1024), \"f\"(x + 1.0f));\n}\n"
		"static long total(const char *key)\n{\n\tchar *j = cuemu_metrics_json(), *p = strstr(strstr(j, \"\\\"totals\\\"\"), key);\n"
		"\tlong v = p ? atol(p + strlen(key) + 1) : -1;\n\tfree(j);\n\treturn v;\n}\n"
		"int main()\n{\n\tfloat *in, *out, h[1024];\n\tcudaMalloc(&in, 4096);\n\tcudaMalloc(&out, 4096);\n"
		"\tcudaMemset(in, 0, 4096);\n\tcuemu_set_tracing(1);\n\tcuemu_set_traced_blocks(-1);\n"
		"\tfor (int v = 0; v < 2; v++) {\n\t\tcuemu_metrics_reset();\n"
		"\t\tif (v) ptx<<<8, 128>>>(in, out); else plain<<<8, 128>>>(in, out);\n"
		"\t\tcudaMemcpy(h, out, 4096, cudaMemcpyDeviceToHost);\n"
		"\t\tprintf(\"%s %ld %ld %g\\n\", v ? \"ptx\" : \"plain\", total(\"\\\"global_load_sectors\\\"\"),\n"
		"\t\t       total(\"\\\"global_store_sectors\\\"\"), h[33]);\n\t}\n\treturn 0;\n}\n");
	cr_assert_eq(cuemu_build_run("", src, &out), 0, "%s", out);
	long pl, ps, xl, xs;
	double pv, xv;
	const char *p = strstr(out, "plain "), *x = strstr(out, "ptx ");
	cr_assert(p && x, "%s", out);
	cr_log_info("%s", out);
	cr_assert_eq(sscanf(p, "plain %ld %ld %lf", &pl, &ps, &pv), 3, "%s", out);
	cr_assert_eq(sscanf(x, "ptx %ld %ld %lf", &xl, &xs, &xv), 3, "%s", out);
	cr_expect(pl == 128 && ps == 1024, "the plain form's figures: %s", out);
	cr_expect_eq(xl, pl, "loads: %s", out);
	cr_expect_eq(xs, ps, "stores: %s", out);
	cr_expect(pv == 1.0 && xv == 1.0, "%s", out);
	free(out);
}

/* What the emulator cannot run is refused at compile time, naming the
 * instruction; asm that is no PTX (x86, made by token pasting) too. */
Test(nvcc_compat, unsupported_ptx_is_refused_by_name)
{
	static const char *const cases[][2] = {
		{ "__global__ void k(float *p)\n{\n\tfloat r;\n"
		  "\tasm(\"tex.1d.v4.f32.s32 {%0, %0, %0, %0}, [t, {%1}];\" : \"=f\"(r) : \"r\"(0));\n\tp[0] = r;\n}\n",
		  "the PTX instruction 'tex.1d.v4.f32.s32" },
		{ "#define CAT(a, b) a##b\n__device__ void f(float *p, float v)\n{\n"
		  "\tCAT(__as, m__) volatile(\"movl %1, %0\" : \"=m\"(*p) : \"r\"(v));\n}\n",
		  "constraint \"m\"" },
		{ "__global__ void k(unsigned *p)\n{\n\tunsigned r;\n"
		  "\tasm(\"mov.u32 %0, %%clock;\" : \"=r\"(r));\n\tp[0] = r;\n}\n", "%clock" },
		{ "__global__ void k(unsigned *p)\n{\n\tasm(\"{ .reg .pred q; setp.eq.u32 q, 1, 1; }\");\n}\n",
		  "the PTX instruction 'setp.eq.u32' cannot run" },
		{ "int x asm(\"cuemu_threadIdx\");\n", "inline assembly (asm) cannot run" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char cmd[1024], *out;
		const char *src = write_source("bad.cu", cases[i][0]);
		snprintf(cmd, sizeof cmd, "%s/cuemu-cc -c %s -o %s.o", CUEMU_BUILD_DIR, src, src);
		cr_expect_neq(run_command(cmd, &out), 0, "case %zu compiled", i);
		cr_expect(strstr(out, cases[i][1]) != NULL && strstr(out, "bad.cu:") != NULL,
			  "case %zu: no '%s' in:\n%s", i, cases[i][1], out);
		free(out);
	}
}

/* Where nvcc is installed, a file sees its version in both builds. */
Test(nvcc_compat, the_version_macros_are_the_installed_nvccs)
{
	const char *home = getenv("CUDA_HOME") ? getenv("CUDA_HOME") : "/usr/local/cuda";
	char cmd[1024], want[64], *out;
	int major, minor;
	snprintf(cmd, sizeof cmd, "%s/bin/nvcc --version", home);
	if (run_command(cmd, &out) != 0 || !strstr(out, "release ") ||
	    sscanf(strstr(out, "release ") + 8, "%d.%d", &major, &minor) != 2) {
		free(out);
		cr_log_warn("skipped: no nvcc under %s (set CUDA_HOME)", home);
		return;
	}
	free(out);
	const char *src = write_source("v.cu", "int x;\n");
	snprintf(cmd, sizeof cmd, "%s/cuemu-cc -E -dM %s", CUEMU_BUILD_DIR, src);
	cr_assert_eq(run_command(cmd, &out), 0, "%s", out);
	snprintf(want, sizeof want, "#define __CUDACC_VER_MAJOR__ %d\n", major);
	cr_expect(strstr(out, want) != NULL, "no %s", want);
	snprintf(want, sizeof want, "#define CUDART_VERSION %d\n", major * 1000 + minor * 10);
	cr_expect(strstr(out, want) != NULL, "no %s", want);
	free(out);
}

/* A kernel launched through a variable is named after the kernel it runs
 * (as a GPU's launch log names it); one launched by name keeps the name
 * as written. */
Test(nvcc_compat, launches_through_variables_are_named_after_their_kernel)
{
	char *out;
	const char *src = write_source("names.cu",
		"#include <cstdio>\n#include <cstring>\n#include <cuemu.h>\n"
		"namespace ns { __global__ void inner(int *p) { p[0] = 1; } }\n"
		"template <bool B> __global__ void kt(int *p) { p[0] = B; }\n"
		"template <class T> __global__ void deduced(T *p) { p[0] = 3; }\n"
		"int main(int argc, char **argv)\n{\n\tint *d;\n\tcudaMalloc(&d, 4);\n\tcuemu_set_tracing(1);\n"
		"\tauto f = argc > 5 ? kt<true> : kt<false>;\n\tvoid (*g)(int *) = ns::inner;\n"
		"\tf<<<1, 1>>>(d);\n\tg<<<1, 1>>>(d);\n\tns::inner<<<1, 1>>>(d);\n\tdeduced<<<1, 1>>>(d);\n"
		"\tcudaDeviceSynchronize();\n\tchar *j = cuemu_metrics_json();\n"
		"\tfor (char *p = strstr(j, \"\\\"kernel\\\":\\\"\"); p; p = strstr(p + 1, \"\\\"kernel\\\":\\\"\"))\n"
		"\t\tprintf(\"[%.*s]\", (int)strcspn(p + 10, \"\\\"\"), p + 10);\n\tprintf(\"\\n\");\n\treturn 0;\n}\n");
	cr_assert_eq(cuemu_build_run("", src, &out), 0, "%s", out);
	cr_expect(strstr(out, "[kt][ns::inner][ns::inner][deduced]") != NULL, "%s", out);
	free(out);
}
