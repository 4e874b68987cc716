/*
 * Code that nvcc accepts compiles and runs in the emulator: the idioms the
 * acceptance measurement found refused (docs/results/emu-acceptance-2026-11-29.md),
 * each in tests/emu/kernels/accepted.cu.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_test.h"

Test(accepted, mapped_host_memory_and_the_flags_overloads)
{
	both_modes(ax_mapped_host_memory, "mapped host memory");
}

Test(accepted, rounding_intrinsics_double_halves_dp2a_and_vector_types)
{
	both_modes(ax_rounding_and_vectors, "rounding intrinsics and vector types");
}

Test(accepted, address_spaces_conversions_and_half_atomics)
{
	both_modes(ax_spaces_and_half_atomics, "address spaces and half atomics");
}

Test(accepted, trap_stops_the_program_as_a_failed_assert_does)
{
	char *err;
	int status = run_child(ax_trap, &err);
	cr_expect_eq(status, CUEMU_FATAL_EXIT, "exit status %d, stderr:\n%s", status, err);
	cr_expect(strstr(err, "trap_on_the_fifth") != NULL, "no kernel name in: %s", err);
	free(err);
}

Test(accepted, unified_memory_hints_of_both_generations)
{
	both_modes(ax_unified_memory_hints, "unified memory hints");
}

Test(accepted, every_device_property_of_cuda_13)
{
	cr_expect_eq(ax_device_query_fields(), 0);
}

static char dir[] = "/tmp/cuemu-accepted-XXXXXX";

static void make_dir(void)
{
	scratch_dir_make(dir);
}

static void remove_dir(void)
{
	scratch_dir_remove(dir);
}

/* What the emulator does not run by design is refused with a line that
 * says so, and names the student's line: a library's or a texture's header
 * is not taken from a toolkit installed on the compiler's path (where it
 * failed with pages of redefinitions) nor "not found". */
Test(accepted, headers_of_what_the_emulator_does_not_run_are_refused_by_name, .init = make_dir,
     .fini = remove_dir)
{
	static const char *const cases[][2] = {
		{ "cublas_v2.h", "NVIDIA libraries" },
		{ "curand_kernel.h", "NVIDIA libraries" },
		{ "mma.h", "warp matrix functions" },
		{ "cuda_pipeline.h", "asynchronous copies" },
		{ "texture_types.h", "textures and surfaces" },
		{ "cuda_gl_interop.h", "graphics interoperability" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char text[256], cmd[1024], *out;
		snprintf(text, sizeof text, "#include <cstdio>\n#include <%s>\nint main() { return 0; }\n",
			 cases[i][0]);
		const char *src = scratch_source(dir, "lib.cu", text);
		snprintf(cmd, sizeof cmd, "%s/cuemu-cc -c %s -o %s.o", CUEMU_BUILD_DIR, src, src);
		cr_expect_neq(run_command(cmd, &out), 0, "<%s> compiled", cases[i][0]);
		cr_expect(strstr(out, cases[i][1]) != NULL && strstr(out, "not supported by the CPU emulator") &&
				  strstr(out, "lib.cu:2") != NULL,
			  "<%s>: no '%s' on line 2 in:\n%s", cases[i][0], cases[i][1], out);
		cr_expect(strstr(out, "redefinition") == NULL, "<%s>: %s", cases[i][0], out);
		free(out);
	}
}

Test(accepted, peer_access_pointer_attributes_and_pitched_3d_memory)
{
	both_modes(ax_peer_and_3d, "peer access and 3-D memory");
}

Test(accepted, cuda_math_api_beyond_libm_and_isnan_without_std)
{
	both_modes(ax_math_api, "the math API");
}
