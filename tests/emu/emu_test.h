/*
 * Shared by the emulator's tests: the host functions of the test kernels
 * (the .cu files of kernels/, built by cuemu-cc) and a few helpers (helpers.c).
 */
#ifndef TESTS_EMU_TEST_H
#define TESTS_EMU_TEST_H

#include <cuda_runtime_api.h>
#include <cuemu.h>
#include <jansson.h>
#include <stddef.h>

/* kernels/transpose.cu: 0 naive, 1 padded tile, 2 unpadded, 3 no barrier */
long tk_transpose(int variant, int rows, int cols);
/* kernels/scan.cu: 0 Hillis-Steele, 1 racy single buffer, 2 Blelloch */
long sk_scan(int variant);
/* kernels/faults.cu */
cudaError_t fk_out_of_bounds(void);
cudaError_t fk_host_pointer(void);
cudaError_t fk_null(void);
cudaError_t fk_use_after_free(void);
void fk_host_deref(void);
void fk_stack_overflow(void);
cudaError_t fk_barrier_divergence(void);
void fk_spin(void);
cudaError_t fk_dynamic_shared(int bytes);
cudaError_t fk_shuffle_exited(void);
cudaError_t fk_bad_config(void);
cudaError_t fk_memcpy_direction(void);
cudaError_t fk_memcpy_overrun(void);
/* kernels/stacks.cu: the wrong results of threads with 8 KiB local arrays,
 * without a barrier (0) or keeping them across one while every third lane
 * has ended (1); lane 5 of a block overflowing its stack */
long xk_local_arrays(int across_barrier);
void xk_lane_stack_overflow(void);
/* kernels/features.cu */
long fx_atomics(void);
long fx_warps(void);
long fx_dynamic_shared_template(void);
long fx_grids(void);
long fx_host_api(void);
long fx_wide_shift(void);
long fx_tile_votes(void);
long fx_runtime_extras(void);
long fx_symbols_and_host_functions(void);
long fx_more_intrinsics(void);

/* kernels/accepted.cu: what nvcc accepts and the emulator once refused */
long ax_mapped_host_memory(void);
long ax_rounding_and_vectors(void);
long ax_peer_and_3d(void);
long ax_math_api(void);
long ax_spaces_and_half_atomics(void);
void ax_trap(void);
long ax_unified_memory_hints(void);
long ax_launch_kernel_api(void);
long ax_device_query_fields(void);

/* kernels/simd.cu: SIMD and DPX intrinsics (simd_ops.h), cuComplex.h, fma's roundings, __fns */
long sx_simd(const unsigned *a, const unsigned *b, const unsigned *c, int n, unsigned *out, int rows);
long sx_complex(const float *f, const double *g, int n, float *fo, double *go);
long sx_fma_modes(const float *f, const double *g, int n, float *fo, double *go);
long sx_fns(const unsigned *in, int n, unsigned *out);

/* kernels/model.cu */
long mk_which_blocks(int grid, unsigned int *seen);
long mk_copy4(int ilp4);
long mk_add_sum(int blocks);
long mk_uneven_copy(void);

/* fn run untraced, then traced: each time it must say 0 wrong and leave
 * no fault (what: the idiom, for the messages). */
void both_modes(long (*fn)(void), const char *what);

/* The metrics since the last reset, parsed (the test fails if they do
 * not parse). */
json_t *metrics_now(void);
/* The first launch of kernel name, or NULL. */
json_t *launch_of(json_t *metrics, const char *kernel);
/* The "lines" row of (line, space, kind) in a launch, or NULL. */
json_t *line_row(json_t *launch, int line, const char *space, const char *kind);
/* The warning of kind in the metrics ("exited_before_barrier"), or NULL. */
json_t *warning_of(json_t *metrics, const char *kind);
/* The line of tests/emu/kernels/file that holds marker ("@naive"). */
int marker_line(const char *file, const char *marker);
/* Warps at line in the intervals of a launch, summed (the per-line rule,
 * for a line that runs in one interval only). */
long interval_warps(json_t *launch, int line);

/* Runs fn in a child process; returns its exit status (or 128 + signal)
 * and what it wrote on stderr (malloc'd, in *err). */
int run_child(void (*fn)(void), char **err);

/* Runs a shell command; returns its exit status and its output (stdout
 * and stderr, malloc'd, in *out). */
int run_command(const char *cmd, char **out);

/* Writes text to dir/name; returns the path (static, until the next call). */
const char *scratch_source(const char *dir, const char *name, const char *text);

/* Builds src with cuemu-cc and flags into a program and runs it; returns
 * the status and what it printed (malloc'd, in *out). */
int cuemu_build_run(const char *flags, const char *src, char **out);

/* A scratch folder from the mkdtemp template tmpl (made in place), and its
 * removal with everything in it. */
void scratch_dir_make(char *tmpl);
void scratch_dir_remove(const char *dir);

#endif
