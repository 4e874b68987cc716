/*
 * The kit's hash kernel (grader/harness/device_hash.cu) gives the bits of
 * bench_output_hash(), the C function the grader checks against: on seeded
 * random words of 0, 1, 31, 1023, 2^20+7 and 2^26 words, from an aligned
 * start and from one word in, and a changed word changes it. On a GPU the
 * check program also finds the kit's kernels' launches absent from the launch
 * log. tests/gpu/device_hash_check.cu does the checking; the Makefile
 * builds it for the GPU and for the emulator (make test-build).
 */
#include <criterion/criterion.h>

#include "grade_runner.h"
#include "test_support.h"

/* The same kernel, run by the emulator: its arithmetic, on any machine. */
Test(device_hash, emulator_equals_c, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	run_kit_kernel_check("build/tests/device-hash-check-emu", "hash");
}

Test(device_hash, gpu_equals_c, .timeout = 300)
{
	char why[512];
	if (!have_gpu(why, sizeof(why)))
		cr_skip_test("needs a CUDA GPU: %s", why);
	run_kit_kernel_check("build/tests/device-hash-check", "hash");
}
