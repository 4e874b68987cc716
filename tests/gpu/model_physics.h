/*
 * What model_physics.cu's sections share: error checks, the timing of one
 * case (median of RUNS after a warm-up) and the sections kept in their own
 * files.
 */
#ifndef TESTS_GPU_MODEL_PHYSICS_H
#define TESTS_GPU_MODEL_PHYSICS_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
	exit(1); } } while (0)

typedef void (*action)(void *);

/* The median time of f(ctx) in ms over the runs after a warm-up; flush: the
 * L2 emptied before each run (a DRAM figure). */
float time_ms(action f, void *ctx, int flush);

/* A tile's barrier: each thread's K words through shared memory (K words a
 * thread of the block, conflict-free), a barrier between, each thread taking
 * back another's (the block reversed). */
template <int K>
__device__ __forceinline__ void pass_through_shared(unsigned *stage, unsigned (&v)[K])
{
#pragma unroll
	for (int k = 0; k < K; k++)
		stage[k * blockDim.x + threadIdx.x] = v[k];
	__syncthreads();
#pragma unroll
	for (int k = 0; k < K; k++)
		v[k] = stage[k * blockDim.x + (blockDim.x - 1 - threadIdx.x)];
}

/* model_physics_rows.cu: contiguous runs scattered over rows, and the tiled
 * transposes they stand for; copy_gbps: this run's cudaMemcpy. */
void rows_sweep(double copy_gbps);
void transpose_sweep(double copy_gbps);

/* model_physics_path.cu: the tiled transposes' blocks taken apart. */
void tile_path_sweep(double copy_gbps);

#endif
