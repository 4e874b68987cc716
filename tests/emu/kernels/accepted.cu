/*
 * What nvcc accepts and the emulator once refused, found by compiling
 * course and book code nobody on the project wrote
 * (docs/results/emu-acceptance-2026-11-29.md): each idiom written anew,
 * small, and checked by its result. Each ax_ function returns the number
 * of wrong results (0 is right), or -1 on a CUDA error.
 */
#include <cuda_runtime.h>
#include <stdlib.h>

#define CHECK(call)                                   \
	do {                                          \
		if ((call) != cudaSuccess)            \
			return -1;                    \
	} while (0)

__global__ void add_one(float *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] += 1.0f;
}

/* Zero-copy host memory: typed cudaHostAlloc with cudaHostAllocMapped, the
 * typed cudaHostGetDevicePointer, cudaHostRegister'd memory a kernel
 * writes, cudaMallocHost's and cudaEventCreate's flags overloads. */
extern "C" long ax_mapped_host_memory(void)
{
	const int n = 1000;
	float *h, *d, *reg = (float *)calloc(n, sizeof *reg), *d_reg, *pinned;
	long bad = 0;
	cudaEvent_t e;
	CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
	CHECK(cudaHostAlloc(&h, n * sizeof *h, cudaHostAllocMapped | cudaHostAllocPortable));
	for (int i = 0; i < n; i++)
		h[i] = (float)i;
	CHECK(cudaHostGetDevicePointer(&d, h, 0));
	add_one<<<(n + 127) / 128, 128>>>(d, n);
	CHECK(cudaHostRegister(reg, n * sizeof *reg, cudaHostRegisterMapped));
	CHECK(cudaHostGetDevicePointer((void **)&d_reg, reg, 0));
	add_one<<<(n + 127) / 128, 128>>>(d_reg, n);
	CHECK(cudaDeviceSynchronize());
	for (int i = 0; i < n; i++)
		bad += h[i] != (float)i + 1.0f || reg[i] != 1.0f;
	/* A pointer the runtime never saw has no device address. */
	bad += cudaHostGetDevicePointer(&d, &bad, 0) != cudaErrorInvalidValue;
	(void)cudaGetLastError();
	CHECK(cudaHostUnregister(reg));
	CHECK(cudaFreeHost(h));
	CHECK(cudaMallocHost(&pinned, 64, cudaHostAllocDefault));
	CHECK(cudaFreeHost(pinned));
	CHECK(cudaMallocHost((void **)&pinned, 64, cudaHostAllocWriteCombined));
	CHECK(cudaFreeHost(pinned));
	CHECK(cudaEventCreate(&e, cudaEventDisableTiming));
	CHECK(cudaEventRecord(e));
	CHECK(cudaEventSynchronize(e));
	CHECK(cudaEventDestroy(e));
	free(reg);
	return bad;
}
