/*
 * A process's first kernel launch, timed, against its context's making.
 * With lazy module loading (CUDA 12.2's default) the first launch of a
 * kernel loads its module then, through the host's driver, which makes
 * other processes' contexts one at a time: many processes starting at once
 * (a batch's children) may each wait there. With CUDA_MODULE_LOADING=EAGER
 * the modules load while the context is made instead. Then two 16 MiB
 * pinned buffers, as the harness makes for a size's output, timed: the
 * driver pins them, and may queue that behind other processes' contexts.
 * Run many at once (first_launch.sh). Prints one line: context_ms
 * first_launch_ms second_launch_ms pinned_ms.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <time.h>

#include "staging_pair.h"
#include "wall_clock.h"

/* Kernels of the size of a lab's: a tile through shared memory. */
__global__ void tile_copy(const float *in, float *out, int n)
{
	__shared__ float tile[32][33];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	tile[threadIdx.x % 32][threadIdx.x / 32] = i < n ? in[i] : 0.0f;
	__syncthreads();
	if (i < n)
		out[i] = tile[threadIdx.x / 32][threadIdx.x % 32];
}

__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= a;
}

int main(void)
{
	float *d;
	double t0 = now_ms();
	if (cudaFree(0) != cudaSuccess || cudaMalloc(&d, 2 * 1024 * sizeof(float)) != cudaSuccess)
		return 1;
	double t1 = now_ms();
	tile_copy<<<1, 1024>>>(d, d + 1024, 1024);
	if (cudaDeviceSynchronize() != cudaSuccess)
		return 1;
	double t2 = now_ms();
	scale<<<1, 1024>>>(d, 2.0f, 1024);
	if (cudaDeviceSynchronize() != cudaSuccess)
		return 1;
	double t3 = now_ms();
	void *h[2];
	if (pin_staging_pair(h) < 0)
		return 1;
	double t4 = now_ms();
	printf("%.1f %.1f %.1f %.1f\n", t1 - t0, t2 - t1, t3 - t2, t4 - t3);
	return 0;
}
