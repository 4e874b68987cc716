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

Test(accepted, launches_through_cuda_launch_kernel)
{
	both_modes(ax_launch_kernel_api, "cudaLaunchKernel");
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

/* Thrust, CUB and libcu++ have too many header names for one #error each:
 * the wrapper turns g++'s "No such file or directory" for them, or one
 * found in an installed toolkit's folder (CUDA 12's layout), into one line
 * on the student's #include. */
Test(accepted, thrust_cub_and_libcuxx_are_refused_on_the_include_line, .init = make_dir, .fini = remove_dir)
{
	static const char *const headers[] = { "thrust/sort.h", "thrust/device_vector.h", "cub/cub.cuh",
					       "cuda/std/atomic", "cuda/atomic" };
	char cmd[2048], *out;
	/* A toolkit of CUDA 12's layout, whose Thrust would fail if it were read. */
	snprintf(cmd, sizeof cmd, "mkdir -p %s/tk/include/thrust && touch %s/tk/include/cuda_occupancy.h", dir, dir);
	cr_assert_eq(run_command(cmd, &out), 0, "%s", out);
	free(out);
	scratch_source(dir, "tk/include/thrust/sort.h", "#error \"the toolkit's Thrust was read\"\n");
	for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++)
		for (int toolkit = 0; toolkit < 2; toolkit++) {
			char text[256];
			snprintf(text, sizeof text, "#include <cstdio>\n#include <%s>\nint main() { return 0; }\n",
				 headers[i]);
			const char *src = scratch_source(dir, "lib.cu", text);
			snprintf(cmd, sizeof cmd, "%s%s%s %s/cuemu-cc -c %s -o %s.o", toolkit ? "CUDA_HOME=" : "",
				 toolkit ? dir : "", toolkit ? "/tk" : "", CUEMU_BUILD_DIR, src, src);
			cr_expect_neq(run_command(cmd, &out), 0, "<%s> compiled", headers[i]);
			char want[128];
			snprintf(want, sizeof want, "lib.cu:2: error: <%s>: Thrust, CUB and libcu++", headers[i]);
			cr_expect(strstr(out, want) && strstr(out, "not supported by the CPU emulator"),
				  "<%s> (toolkit %d): no '%s' in:\n%s", headers[i], toolkit, want, out);
			cr_expect(!strstr(out, "No such file") && !strstr(out, "was read"), "<%s> (toolkit %d): %s",
				  headers[i], toolkit, out);
			free(out);
		}
}

/* A program's own header named cuda/... (or thrust/...) in its own folder
 * is found there and used, with or without a toolkit on the path. */
Test(accepted, a_programs_own_cuda_folder_is_not_libcuxx, .init = make_dir, .fini = remove_dir)
{
	char cmd[2048], *out;
	snprintf(cmd, sizeof cmd, "mkdir -p %s/src/cuda %s/src/thrust %s/tk/include/cuda && touch %s/tk/include/cuda_occupancy.h",
		 dir, dir, dir, dir);
	cr_assert_eq(run_command(cmd, &out), 0, "%s", out);
	free(out);
	/* a toolkit whose cuda/ holds a header of the same name */
	scratch_source(dir, "tk/include/cuda/helpers.h", "#error \"the toolkit's header was read\"\n");
	scratch_source(dir, "src/cuda/helpers.h", "#define OWN_CUDA 40\n");
	scratch_source(dir, "src/thrust/mine.h", "#define OWN_THRUST 2\n");
	const char *src = scratch_source(dir, "src/own.cu",
					 "#include <cstdio>\n#include \"cuda/helpers.h\"\n#include \"thrust/mine.h\"\n"
					 "int main() { printf(\"%d\\n\", OWN_CUDA + OWN_THRUST); return 0; }\n");
	for (int toolkit = 0; toolkit < 2; toolkit++) {
		snprintf(cmd, sizeof cmd, "%s%s%s %s/cuemu-cc %s -o %s.exe && %s.exe", toolkit ? "CUDA_HOME=" : "",
			 toolkit ? dir : "", toolkit ? "/tk" : "", CUEMU_BUILD_DIR, src, src, src);
		cr_expect_eq(run_command(cmd, &out), 0, "%s", out);
		cr_expect(strstr(out, "42") != NULL, "toolkit %d: %s", toolkit, out);
		free(out);
	}
}
