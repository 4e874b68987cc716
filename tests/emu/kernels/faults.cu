/*
 * Kernels and host code that go wrong, one way each, for the fault tests.
 * Each fk_ function returns the error the CUDA way (or never returns: the
 * fatal faults end the process with status 86).
 */
#include <cuda_runtime.h>
#include <stdlib.h>

__global__ void off_by_one(unsigned int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i <= n)
		out[i] = 1; /* @oob */
}

extern "C" cudaError_t fk_out_of_bounds(void)
{
	unsigned int *d;
	cudaMalloc(&d, 100 * sizeof(unsigned int));
	off_by_one<<<1, 128>>>(d, 100);
	return cudaGetLastError();
}

__global__ void read_first(const int *p, int *out)
{
	out[threadIdx.x] = p[threadIdx.x]; /* @host_ptr */
}

extern "C" cudaError_t fk_host_pointer(void)
{
	int *host = (int *)calloc(32, sizeof(int)), *d_out;
	cudaMalloc(&d_out, 32 * sizeof(int));
	read_first<<<1, 32>>>(host, d_out);
	cudaError_t e = cudaDeviceSynchronize();
	free(host);
	return e;
}

extern "C" cudaError_t fk_null(void)
{
	int *d_out;
	cudaMalloc(&d_out, 32 * sizeof(int));
	read_first<<<1, 32>>>(NULL, d_out);
	return cudaDeviceSynchronize();
}

extern "C" cudaError_t fk_use_after_free(void)
{
	int *a, *out;
	cudaMalloc(&a, 32 * sizeof(int));
	cudaMalloc(&out, 32 * sizeof(int));
	cudaFree(a);
	read_first<<<1, 32>>>(a, out);
	return cudaDeviceSynchronize();
}

extern "C" void fk_host_deref(void)
{
	int *d;
	cudaMalloc(&d, sizeof(int));
	*d = 42; /* @host_deref */
}

__global__ void big_frame(float *out)
{
	volatile float local[24 * 1024];	/* 96 KiB: more than a thread's stack */
	for (int i = 0; i < 24 * 1024; i++)
		local[i] = (float)i;
	out[threadIdx.x] = local[threadIdx.x * 7];
}

extern "C" void fk_stack_overflow(void)
{
	float *d;
	cudaMalloc(&d, 32 * sizeof(float));
	big_frame<<<1, 32>>>(d);
	cudaDeviceSynchronize();
}

__global__ void early_return(float *out)
{
	__shared__ float s[64];
	if (threadIdx.x >= 48)
		return;
	s[threadIdx.x] = 1.0f;
	__syncthreads(); /* @divergent */
	out[threadIdx.x] = s[63 - threadIdx.x % 48];
}

extern "C" cudaError_t fk_barrier_divergence(void)
{
	float *d;
	cudaMalloc(&d, 64 * sizeof(float));
	early_return<<<1, 64>>>(d);
	return cudaDeviceSynchronize();
}

__global__ void spin(volatile int *flag)
{
	while (flag[0] == 0) /* @spin */
		;
}

extern "C" void fk_spin(void)
{
	int *d;
	cudaMalloc(&d, sizeof(int));
	cudaMemset(d, 0, sizeof(int));
	spin<<<1, 1>>>(d);
	cudaDeviceSynchronize();
}

__global__ void reverse_dynamic(int *out, int n)
{
	extern __shared__ int s[];
	s[threadIdx.x] = threadIdx.x; /* @dyn */
	__syncthreads();
	out[threadIdx.x] = s[n - 1 - threadIdx.x];
}

extern "C" cudaError_t fk_dynamic_shared(int bytes)
{
	int *d;
	cudaMalloc(&d, 64 * sizeof(int));
	reverse_dynamic<<<1, 64, bytes>>>(d, 64);
	return cudaDeviceSynchronize();
}

__global__ void warp_sum_early_exit(const int *in, int *out, int n)
{
	int i = threadIdx.x;
	if (i >= n)
		return;
	int v = in[i];
	for (int off = 16; off > 0; off /= 2)
		v += __shfl_down_sync(0xffffffffu, v, off); /* @shfl */
	if (i == 0)
		*out = v;
}

extern "C" cudaError_t fk_shuffle_exited(void)
{
	int *in, *out;
	cudaMalloc(&in, 32 * sizeof(int));
	cudaMalloc(&out, sizeof(int));
	cudaMemset(in, 0, 32 * sizeof(int));
	warp_sum_early_exit<<<1, 32>>>(in, out, 20);
	return cudaDeviceSynchronize();
}

extern "C" cudaError_t fk_bad_config(void)
{
	int *out;
	cudaMalloc(&out, 32 * sizeof(int));
	read_first<<<1, 2048>>>(out, out);
	return cudaGetLastError();
}

extern "C" cudaError_t fk_memcpy_direction(void)
{
	int host[4] = { 0 }, *d;
	cudaMalloc(&d, sizeof host);
	return cudaMemcpy(host, d, sizeof host, cudaMemcpyHostToDevice); /* @memcpy */
}

extern "C" cudaError_t fk_memcpy_overrun(void)
{
	int host[64] = { 0 }, *d;
	cudaMalloc(&d, 16 * sizeof(int));
	return cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice);
}
