/*
 * The kit's hash kernel (grader/harness/device_hash.cu) gives the bits of
 * bench_output_hash(), the C function the grader checks against: on seeded
 * random words of 0, 1, 31, 1023, 2^20+7 and 2^26 words, from an aligned
 * start and from one word in, and a changed word changes it. On a GPU the
 * check program also finds the kernel's launches absent from the launch
 * log. tests/gpu/device_hash_check.cu does the checking; the Makefile
 * builds it for the GPU and for the emulator (make test-build).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "grade_runner.h"
#include "sys/kit_paths.h"

/* Runs the check program at the kit's path rel; asserts it held. */
static void run_check(const char *rel)
{
	char exe[1024], cmd[1200], out[16384] = "";
	kit_path(exe, sizeof(exe), rel);
	cr_assert_eq(access(exe, X_OK), 0, "%s is not built: run make test-build", exe);
	snprintf(cmd, sizeof(cmd), "'%s' 2>&1", exe);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p, "%s", cmd);
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	int status = pclose(p);
	cr_expect_eq(status, 0, "%s: exit status %d\n%s", rel, status, out);
	cr_expect(strstr(out, "device hash: all checks held") != NULL, "%s\n%s", rel, out);
}

/* The same kernel, run by the emulator: its arithmetic, on any machine. */
Test(device_hash, emulator_equals_c, .timeout = 300)
{
	if (!have_emulator())
		cr_skip_test("the emulator is not built (build/emu/cuemu-cc): run make");
	run_check("build/tests/device-hash-check-emu");
}

Test(device_hash, gpu_equals_c, .timeout = 300)
{
	char why[512];
	if (!have_gpu(why, sizeof(why)))
		cr_skip_test("needs a CUDA GPU: %s", why);
	run_check("build/tests/device-hash-check");
}
