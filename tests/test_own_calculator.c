/*
 * Lab 4's calculator is the student's own (grader/steps/own_calculator.h):
 * the toolkit's cuda_occupancy.h is refused in lab 4, however its names are
 * written, on both backends, and the skeleton and the solution are not; the
 * kit's names no longer clash with the toolkit's, so a file of another lab
 * may include both headers.
 */
#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "labs/lab.h"
#include "steps/own_calculator.h"
#include "sys/kit_paths.h"
#include "test_support.h"

static int found(const char *text, char *name, size_t len)
{
	return own_calculator_find(text, strlen(text), name, len);
}

Test(own_calculator, finds_the_headers_names_not_the_runtimes)
{
	char name[96];
	cr_expect_eq(found("cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, k, 256, 0)", name, sizeof name), 0);
	cr_expect_eq(found("int occupancy(const struct occ_device *d); KIT_OCC_LIMIT_WARPS", name, sizeof name), 0);
	cr_expect_eq(found("x = cudaOccResult();", name, sizeof name), 1);
	cr_expect_str_eq(name, "cudaOccResult");
	cr_expect_eq(found("\x01_ZN21cudaOccFuncAttributesC2Ev\x00", name, sizeof name), 1);
	cr_expect_str_eq(name, "cudaOccFuncAttributes", "a mangled name is cut at its length");
	cr_expect_eq(found("return __occMin(a, b);", name, sizeof name), 1);
	cr_expect_eq(found("if (e != CUDA_OCC_SUCCESS)", name, sizeof name), 1);
	cr_expect_eq(found("# 1 \"/usr/local/cuda/include/cuda_occupancy.h\" 1 3", name, sizeof name), 1);
	cr_expect_str_eq(name, "cuda_occupancy.h");
}

static char obj[128], dir[64];

static void setup(void)
{
	test_temp_dir(dir, sizeof(dir), "test-own-calc");
	snprintf(obj, sizeof obj, "%s/student.o", dir);
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

/* Compiles FILE (relative to the kit) for backend into obj; 0 when it built. */
static int compile(enum backend backend, const char *file)
{
	char cmd[4 * PATH_MAX], src[PATH_MAX], common[PATH_MAX], cc[PATH_MAX];
	kit_path(src, sizeof src, file);
	kit_path(common, sizeof common, "common");
	if (backend == BACKEND_CUDA)
		snprintf(cmd, sizeof cmd, "nvcc -O3 -arch=sm_90 -std=c++17 -I'%s' -c '%s' -o '%s' 2>&1", common,
			 src, obj);
	else
		snprintf(cmd, sizeof cmd, "'%s' -I'%s' -c '%s' -o '%s' 2>&1",
			 kit_path(cc, sizeof cc, "build/emu/cuemu-cc"), common, src, obj);
	return system(cmd);
}

static int have(enum backend backend)
{
	char cc[PATH_MAX];
	return backend == BACKEND_CUDA ? system("nvcc --version >/dev/null 2>&1") == 0 :
					 access(kit_path(cc, sizeof cc, "build/emu/cuemu-cc"), X_OK) == 0;
}

/* The check of lab 4 on file's build for backend: 1 when it may run; the
 * verdict in msg. */
static int lab4_verdict(enum backend backend, const char *file, char *msg, size_t len)
{
	char src[PATH_MAX];
	struct test_result t;
	memset(&t, 0, sizeof t);
	struct device_info dev = { .present = 1, .major = 9, .minor = 0 };
	cr_assert_eq(compile(backend, file), 0, "%s did not build", file);
	int ok = own_calculator_check(lab_find("lab4"), backend, kit_path(src, sizeof src, file), obj, dir,
				      &dev, NULL, 120, &t);
	snprintf(msg, len, "%s", t.message);
	return ok;
}

static void lab4_case(enum backend backend)
{
	static const char *refused[] = { "tests/fixtures/lab4/toolkit_calculator.cu",
					 "tests/fixtures/lab4/toolkit_calculator_pasted.cu" };
	static const char *allowed[] = { "labs/lab4-occupancy/occupancy.cu", "solutions/lab4-occupancy/occupancy.cu",
					 "tests/fixtures/lab4/ilp4.cu" };
	char msg[2048];
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		cr_expect_eq(lab4_verdict(backend, refused[i], msg, sizeof msg), 0, "%s was not refused", refused[i]);
		cr_expect(strstr(msg, "write occupancy() yourself"), "%s: %s", refused[i], msg);
	}
	for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
		cr_expect_eq(lab4_verdict(backend, allowed[i], msg, sizeof msg), 1, "%s was refused: %s", allowed[i],
			     msg);
}

Test(own_calculator, lab4_refuses_the_toolkits_calculator_in_the_emulator, .init = setup, .fini = teardown,
     .timeout = 300)
{
	if (!have(BACKEND_EMU))
		cr_skip_test("the emulator is not built: run make");
	if (!toolkit_header_present("cuda_occupancy.h"))
		cr_skip_test("no CUDA toolkit here: its cuda_occupancy.h, which these files include, is not "
			     "installed");
	lab4_case(BACKEND_EMU);
}

Test(own_calculator, lab4_refuses_the_toolkits_calculator_with_nvcc, .init = setup, .fini = teardown,
     .timeout = 300)
{
	if (!have(BACKEND_CUDA))
		cr_skip_test("no nvcc here: the CUDA backend's preprocessing cannot run");
	lab4_case(BACKEND_CUDA);
}

/* Other labs: the toolkit's calculator beside the kit's lab 4 header builds on
 * both backends (the names clashed before the kit's took their prefix), and
 * the lab has no calculator to guard. */
Test(own_calculator, other_labs_may_include_the_toolkits_calculator, .init = setup, .fini = teardown,
     .timeout = 300)
{
	static const char *files[] = { "tests/fixtures/lab1/with_cuda_occupancy.cu",
				       "tests/fixtures/lab2/with_cuda_occupancy.cu",
				       "tests/fixtures/lab3/with_cuda_occupancy.cu" };
	static const char *labs[] = { "lab1", "lab2", "lab3" };
	struct device_info dev = { .present = 1, .major = 9, .minor = 0 };
	if (!toolkit_header_present("cuda_occupancy.h"))
		cr_skip_test("no CUDA toolkit here: its cuda_occupancy.h, which these files include, is not "
			     "installed");
	for (enum backend b = BACKEND_CUDA; b <= BACKEND_EMU; b++) {
		if (!have(b))
			continue;
		for (int i = 0; i < 3; i++) {
			struct test_result t;
			memset(&t, 0, sizeof t);
			cr_expect_eq(compile(b, files[i]), 0, "%s did not build for %s", files[i], backend_name(b));
			cr_expect_eq(own_calculator_check(lab_find(labs[i]), b, files[i], obj, dir, &dev, NULL, 120, &t), 1);
		}
	}
}
