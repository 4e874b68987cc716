/*
 * Faults become reports: the CUDA way (an error code and one line from
 * cuemu_last_fault() naming the kernel, thread and FILE:LINE) when the
 * program can go on, "cuemu: ..." and exit status 86 when it cannot.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_test.h"

static char where[64];

static const char *at(const char *marker)
{
	snprintf(where, sizeof where, "faults.cu:%d", marker_line("faults.cu", marker));
	return where;
}

static void expect_fault(const char *marker, const char *words)
{
	const char *f = cuemu_last_fault();
	cr_assert_not_null(f, "no fault recorded");
	cr_expect(strstr(f, at(marker)) != NULL, "fault does not name %s: %s", where, f);
	cr_expect(strstr(f, words) != NULL, "fault does not say '%s': %s", words, f);
}

Test(faults, out_of_bounds_store_is_an_illegal_address)
{
	cr_assert_eq(fk_out_of_bounds(), cudaErrorIllegalAddress);
	expect_fault("@oob", "element 100 of a cudaMalloc buffer of 100 4-byte elements (allocated at faults.cu:");
	expect_fault("@oob", "1 past its last element");
	expect_fault("@oob", "kernel off_by_one, block (0,0,0), thread (100,0,0)");
	/* Sticky, as on a GPU, until the device is reset. */
	int *p;
	cr_expect_eq(cudaMalloc((void **)&p, 4), cudaErrorIllegalAddress);
	cr_expect_eq(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
	cr_expect_eq(cudaGetLastError(), cudaErrorIllegalAddress);
	cr_expect_eq(cudaDeviceReset(), cudaSuccess);
	cr_expect_null(cuemu_last_fault());
	cr_expect_eq(cudaMalloc((void **)&p, 4), cudaSuccess);
}

Test(faults, out_of_bounds_is_caught_while_tracing_too)
{
	cuemu_set_tracing(1);
	cr_assert_eq(fk_out_of_bounds(), cudaErrorIllegalAddress);
	expect_fault("@oob", "thread (100,0,0)");
}

Test(faults, host_pointer_in_a_kernel)
{
	cr_assert_eq(fk_host_pointer(), cudaErrorIllegalAddress);
	expect_fault("@host_ptr", "not device memory");
}

Test(faults, null_pointer_in_a_kernel)
{
	cr_assert_eq(fk_null(), cudaErrorIllegalAddress);
	expect_fault("@host_ptr", "NULL");
}

Test(faults, freed_buffer_in_a_kernel)
{
	cr_assert_eq(fk_use_after_free(), cudaErrorIllegalAddress);
	expect_fault("@host_ptr", "already freed with cudaFree");
}

/* As on sm_70 and later GPUs: threads that returned no longer count at a
 * barrier, the others go on, and the launch succeeds; the pattern is an
 * analysis warning naming the barrier's line. */
Test(faults, threads_that_returned_do_not_count_at_a_barrier)
{
	cuemu_metrics_reset();
	cr_assert_eq(fk_barrier_divergence(), cudaSuccess);
	json_t *m = metrics_now(), *found = warning_of(m, "exited_before_barrier");
	cr_assert_not_null(found, "no exited_before_barrier warning");
	cr_expect_eq(json_integer_value(json_object_get(found, "line")), marker_line("faults.cu", "@divergent"));
	const char *msg = json_string_value(json_object_get(found, "message"));
	cr_expect(strstr(msg, "16 of the block's 64 threads had already returned") != NULL, "%s", msg);
	json_decref(m);
	cuemu_metrics_reset();
	cr_expect_eq(json_array_size(json_object_get(m = metrics_now(), "warnings")), 0, "reset keeps warnings");
	json_decref(m);
}

Test(faults, dynamic_shared_memory_past_the_launch_size)
{
	cr_assert_eq(fk_dynamic_shared(64 * sizeof(int)), cudaSuccess);
	cr_assert_eq(fk_dynamic_shared(32 * sizeof(int)), cudaErrorIllegalAddress);
	expect_fault("@dyn", "the launch gave 128 bytes");
}

Test(faults, shuffle_naming_lanes_that_returned)
{
	cr_assert_eq(fk_shuffle_exited(), cudaErrorLaunchFailure);
	expect_fault("@shfl", "has already returned");
}

Test(faults, launch_configuration_is_checked_and_not_sticky)
{
	cr_assert_eq(fk_bad_config(), cudaErrorInvalidValue);	/* as CUDA 13 says */
	cr_expect(strstr(cuemu_last_fault(), "2048 threads per block") != NULL, "%s", cuemu_last_fault());
	cr_expect_eq(cudaGetLastError(), cudaSuccess);
	cr_expect_eq(fk_out_of_bounds(), cudaErrorIllegalAddress);
}

Test(faults, memcpy_in_the_wrong_direction)
{
	cr_assert_eq(fk_memcpy_direction(), cudaErrorInvalidValue);
	expect_fault("@memcpy", "is a host pointer, but the copy kind says it is a device pointer");
	cr_expect_eq(cudaGetLastError(), cudaErrorInvalidValue);
	cr_expect_eq(cudaGetLastError(), cudaSuccess);
}

Test(faults, memcpy_past_the_buffer)
{
	cr_assert_eq(fk_memcpy_overrun(), cudaErrorInvalidValue);
	cr_expect(strstr(cuemu_last_fault(), "do not fit in one cudaMalloc buffer") != NULL, "%s",
		  cuemu_last_fault());
}

/* ---- faults the program cannot return from --------------------------------------- */

static void expect_fatal(void (*fn)(void), const char *marker, const char *words)
{
	char *err;
	int status = run_child(fn, &err);
	cr_expect_eq(status, CUEMU_FATAL_EXIT, "exit status %d, stderr:\n%s", status, err);
	cr_expect(strncmp(err, "cuemu: ", 7) == 0, "stderr: %s", err);
	cr_expect(strstr(err, words) != NULL, "no '%s' in: %s", words, err);
	if (marker)
		cr_expect(strstr(err, at(marker)) != NULL, "no %s in: %s", where, err);
	free(err);
}

Test(faults, stack_overflow_is_reported)
{
	/* Stack-clash probes fault in the kernel's prologue: its first lines. */
	expect_fatal(fk_stack_overflow, NULL, "stack overflow in kernel big_frame");
	expect_fatal(fk_stack_overflow, NULL, "at faults.cu:");
}

Test(faults, stack_overflow_names_the_lane_on_a_stack_it_took_over)
{
	expect_fatal(xk_lane_stack_overflow, NULL, "stack overflow in kernel one_lane_overflows, "
		     "block (0,0,0), thread (5,0,0)");
}

Test(faults, host_dereferencing_a_device_pointer)
{
	expect_fatal(fk_host_deref, "@host_deref", "the host dereferenced device pointer");
}

/* The same from C code that is not instrumented: the page protection. */
static void deref_from_c(void)
{
	int *d;
	cudaMalloc((void **)&d, sizeof(int));
	*(volatile int *)d = 1;
}

Test(faults, host_dereference_from_plain_c)
{
	expect_fatal(deref_from_c, NULL, "the host dereferenced device pointer");
}

static void spin_briefly(void)
{
	setenv("CUEMU_KERNEL_TIMEOUT", "1", 1);
	fk_spin();
}

Test(faults, kernel_that_never_ends, .timeout = 30)
{
	expect_fatal(spin_briefly, "@spin", "kernel spin has run for 1 s of CPU time and is still going");
}
