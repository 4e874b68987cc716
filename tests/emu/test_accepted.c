/*
 * Code that nvcc accepts compiles and runs in the emulator: the idioms the
 * acceptance measurement found refused (docs/results/emu-acceptance-2026-11-29.md),
 * each in tests/emu/kernels/accepted.cu.
 */
#include <criterion/criterion.h>

#include "emu_test.h"

static void both_modes(long (*fn)(void), const char *what)
{
	for (int mode = 0; mode < 2; mode++) {
		cuemu_set_tracing(mode);
		long bad = fn();
		cr_expect_eq(bad, 0, "%s in mode %d: %ld wrong%s", what, mode, bad,
			     bad < 0 ? " (a CUDA error)" : "");
		cr_expect_null(cuemu_last_fault(), "%s: %s", what, cuemu_last_fault());
	}
}

Test(accepted, mapped_host_memory_and_the_flags_overloads)
{
	both_modes(ax_mapped_host_memory, "mapped host memory");
}

Test(accepted, rounding_intrinsics_double_halves_dp2a_and_vector_types)
{
	both_modes(ax_rounding_and_vectors, "rounding intrinsics and vector types");
}
