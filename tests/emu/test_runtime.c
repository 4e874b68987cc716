/*
 * The CUDA C++ the labs may use runs right in the emulator, in both modes:
 * atomics, warp intrinsics, dynamic shared memory, templates, 3-D grids,
 * __device__ variables, events, device properties.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "emu_test.h"

Test(runtime, atomics)
{
	both_modes(fx_atomics, "atomics");
}

Test(runtime, warp_intrinsics)
{
	both_modes(fx_warps, "warp intrinsics");
}

Test(runtime, dynamic_shared_memory_and_template_kernels)
{
	both_modes(fx_dynamic_shared_template, "extern __shared__ in a template");
}

Test(runtime, three_dimensional_grids_and_two_launches_in_a_statement)
{
	both_modes(fx_grids, "3-D grids");
}

Test(runtime, events_and_properties)
{
	both_modes(fx_host_api, "events and properties");
}

static long local_arrays_without_a_barrier(void)
{
	return xk_local_arrays(0);
}

static long local_arrays_across_a_barrier(void)
{
	return xk_local_arrays(1);
}

/* Threads take over the stacks of threads that ended: each keeps its own. */
Test(runtime, local_arrays_on_shared_stacks)
{
	both_modes(local_arrays_without_a_barrier, "local arrays, no barrier");
	both_modes(local_arrays_across_a_barrier, "local arrays across a barrier");
}

Test(runtime, scans_are_right)
{
	for (int mode = 0; mode < 2; mode++) {
		cuemu_set_tracing(mode);
		cr_expect_eq(sk_scan(0), 0, "Hillis-Steele, mode %d", mode);
		cr_expect_eq(sk_scan(2), 0, "Blelloch, mode %d", mode);
	}
}

Test(runtime, the_device)
{
	struct cudaDeviceProp p;
	int v = 0;
	cr_assert_eq(cudaGetDeviceProperties(&p, 0), cudaSuccess);
	cr_expect_str_eq(p.name, "CPU emulator");
	cr_expect_eq(p.warpSize, 32);
	cr_expect_eq(p.sharedMemPerBlock, 48 * 1024);
	cr_expect_gt(p.totalGlobalMem, 0);
	cr_expect_gt(p.l2CacheSize, 0);
	cr_expect_eq(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 0), cudaSuccess);
	cr_expect_eq(v, 1024);
	cr_expect_eq(cudaGetDeviceProperties(&p, 1), cudaErrorInvalidDevice);
	cr_expect_eq(cudaSetDevice(1), cudaErrorInvalidDevice);
	cr_expect_eq(cudaGetLastError(), cudaErrorInvalidDevice);
	cr_expect_eq(cudaGetLastError(), cudaSuccess);
}

Test(runtime, error_names_and_strings)
{
	cr_expect_str_eq(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress");
	cr_expect_str_eq(cudaGetErrorString(cudaErrorIllegalAddress), "an illegal memory access was encountered");
	cr_expect_str_eq(cudaGetErrorName(cudaSuccess), "cudaSuccess");
	cr_expect_str_eq(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory");
}

Test(runtime, memory_from_c)
{
	unsigned int h[256], back[256], *d;
	for (int i = 0; i < 256; i++)
		h[i] = (unsigned)i * 3u;
	cr_assert_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
	cr_assert_eq(cudaMemset(d, 0xA5, sizeof h), cudaSuccess);
	cr_assert_eq(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost), cudaSuccess);
	cr_expect_eq(back[17], 0xA5A5A5A5u);
	cr_assert_eq(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice), cudaSuccess);
	cr_assert_eq(cudaMemcpy(back, d, sizeof back, cudaMemcpyDefault), cudaSuccess);
	cr_expect_eq(memcmp(h, back, sizeof h), 0);
	cr_expect_eq(cudaFree(d), cudaSuccess);
	cr_expect_eq(cudaFree(d), cudaErrorInvalidValue);
	cr_expect_eq(cudaFree(NULL), cudaSuccess);
	void *huge;
	cr_expect_eq(cudaMalloc(&huge, (size_t)1 << 46), cudaErrorMemoryAllocation);
	cr_expect_eq(cudaGetLastError(), cudaErrorMemoryAllocation);
}

/* A shift by 36 bits of a 32-bit value: ">>" gives the GPU's 0, and both
 * it and the ">>=" the rewriter leaves alone are warnings naming the line. */
Test(runtime, shifts_past_the_width_give_the_gpus_value_or_a_warning)
{
	cuemu_metrics_reset();
	cr_assert_eq(fx_wide_shift(), 0);
	json_t *m = metrics_now(), *clamped = warning_of(m, "shift_clamped");
	json_t *wrapped = warning_of(m, "shift_out_of_range");
	cr_assert_not_null(clamped, "no shift_clamped warning");
	cr_assert_not_null(wrapped, "no shift_out_of_range warning");
	cr_expect_eq(json_integer_value(json_object_get(clamped, "line")), marker_line("features.cu", "@shift"));
	cr_expect_eq(json_integer_value(json_object_get(wrapped, "line")),
		     marker_line("features.cu", "@shift_assign"));
	const char *msg = json_string_value(json_object_get(wrapped, "message"));
	cr_expect(strstr(msg, "shifts a 32-bit 'unsigned int' by 36 bits") != NULL, "%s", msg);
	msg = json_string_value(json_object_get(clamped, "message"));
	cr_expect(strstr(msg, "shifts a 32-bit value by 36 bits: the emulator gives what the GPU gives") != NULL,
		  "%s", msg);
	json_decref(m);
}

/* Tiles of 16 (cooperative groups) vote with their own masks. */
Test(runtime, two_tiles_of_a_warp_vote_apart)
{
	cr_expect_eq(fx_tile_votes(), 0);
	cuemu_set_tracing(1);
	cr_expect_eq(fx_tile_votes(), 0, "in lockstep");
	cuemu_set_tracing(0);
}

/* cudaMallocPitch, the occupancy API, kernel attributes, stream-ordered
 * allocation, cudaThreadSynchronize. */
Test(runtime, runtime_calls_of_samples_and_older_code)
{
	cr_expect_eq(fx_runtime_extras(), 0);
}

/* cudaGetSymbolAddress and the Async symbol copies, cudaLaunchHostFunc and
 * cudaStreamAddCallback in stream order, cudaHostRegister, cudaChooseDevice. */
Test(runtime, symbols_and_host_functions)
{
	cr_expect_eq(fx_symbols_and_host_functions(), 0);
}

Test(runtime, match_all_dp4a_and_double_conversions)
{
	cr_expect_eq(fx_more_intrinsics(), 0);
}
