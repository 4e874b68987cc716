#include <criterion/criterion.h>

#include "integrity.h"

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
}
