// Kernels whose blocks may run in parallel worker processes (test_parallel.c):
// each mode prints what the serial run must print too.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <cuemu.h>
#include <unistd.h>

#define BLOCKS 512
#define THREADS 256
#define N (BLOCKS * THREADS)

__global__ void disjoint(unsigned *out)
{
	__shared__ unsigned s[THREADS];
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i * 2654435761u;
	__syncthreads();
	out[i] = s[THREADS - 1 - threadIdx.x] ^ blockIdx.x;
}

__global__ void count(unsigned *counter, float *fsum, unsigned *tickets)
{
	unsigned t = atomicAdd(counter, 1u);
	float v = 1.0f / (float)(blockIdx.x * blockDim.x + threadIdx.x + 1);
	atomicAdd(fsum, v);
	if (threadIdx.x == 0)
		tickets[blockIdx.x] = t;
}

__global__ void oob(unsigned *out, unsigned bad_block)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	// The first bad block faults last: a later block's fault is seen first.
	for (int k = 0; blockIdx.x == bad_block && k < 300; k++)
		__syncthreads();
	if (blockIdx.x >= bad_block && threadIdx.x == 7)
		i = N + 1 + blockIdx.x % 3;	// @oob: every block from bad_block on
	out[i] = i;
}

// A chained scan: block b waits for block b-1's flag, then publishes its own.
__global__ void chained(const unsigned *in, unsigned *out, volatile unsigned *flag,
			volatile unsigned *carry, int rounds)
{
	__shared__ unsigned s[THREADS];
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	for (int r = 0; r < rounds; r++) {	// more work a block: the same scan again
		s[threadIdx.x] = in[i];
		__syncthreads();
	}
	for (int d = 1; d < THREADS; d *= 2) {
		unsigned v = threadIdx.x >= (unsigned)d ? s[threadIdx.x - d] : 0;
		__syncthreads();
		s[threadIdx.x] += v;
		__syncthreads();
	}
	__shared__ unsigned before;
	if (threadIdx.x == 0) {
		if (blockIdx.x > 0)
			while (flag[blockIdx.x - 1] == 0)
				;
		before = blockIdx.x > 0 ? carry[blockIdx.x - 1] : 0;
		carry[blockIdx.x] = before + s[THREADS - 1];
		__threadfence();
		flag[blockIdx.x] = 1;
	}
	__syncthreads();
	out[i] = before + s[threadIdx.x];
}

__global__ void hang(unsigned *out, unsigned bad_block)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (blockIdx.x == bad_block && threadIdx.x == 3)
		while (((volatile unsigned *)out)[0] != 12345u)	// @hang
			;
	out[i] = i;
}

// From block bad_block on, lanes 20-31 return before a shuffle that names
// them: reported (cudaErrorLaunchFailure), and the launch goes on.
__global__ void mask(unsigned *out, unsigned bad_block)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	for (int k = 0; blockIdx.x == bad_block && k < 300; k++)
		__syncthreads();
	if (blockIdx.x >= bad_block && threadIdx.x % 32 >= 20)
		return;
	unsigned v = __shfl_down_sync(0xffffffffu, i, 1);
	out[i] = v;
}

// Which process ran each block (a CPU emulator's kernel may call getpid).
__global__ void who(unsigned *pids)
{
	__syncthreads();
	__syncthreads();
	if (threadIdx.x == 0)
		pids[blockIdx.x] = (unsigned)getpid();
}

__global__ void say(void)
{
	__syncthreads();	// enough work for both workers to take blocks
	__syncthreads();
	if (threadIdx.x == 0 && blockIdx.x % 37 == 0)
		printf("block %u says hello\n", blockIdx.x);
}

static unsigned long long hash(const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;
	unsigned long long h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "disjoint";
	unsigned *d, *d2, *h = (unsigned *)malloc(N * sizeof(unsigned));
	cudaMalloc(&d, N * sizeof(unsigned));
	cudaMalloc(&d2, N * sizeof(unsigned));
	cudaMemset(d, 0, N * sizeof(unsigned));
	cudaMemset(d2, 0, N * sizeof(unsigned));
	printf("mode %s\n", mode);
	if (!strcmp(mode, "disjoint")) {
		disjoint<<<BLOCKS, THREADS>>>(d);
		cudaMemcpy(h, d, N * sizeof(unsigned), cudaMemcpyDeviceToHost);
		printf("hash %llx\n", hash(h, N * sizeof(unsigned)));
	} else if (!strcmp(mode, "count")) {
		float *f;
		cudaMalloc(&f, sizeof(float));
		cudaMemset(f, 0, sizeof(float));
		count<<<BLOCKS, THREADS>>>(d, f, d2);
		unsigned total;
		float sum;
		cudaMemcpy(&total, d, sizeof total, cudaMemcpyDeviceToHost);
		cudaMemcpy(&sum, f, sizeof sum, cudaMemcpyDeviceToHost);
		cudaMemcpy(h, d2, BLOCKS * sizeof(unsigned), cudaMemcpyDeviceToHost);
		printf("total %u sum %a tickets %llx\n", total, sum, hash(h, BLOCKS * sizeof(unsigned)));
	} else if (!strcmp(mode, "oob")) {
		oob<<<BLOCKS, THREADS>>>(d, 300);
		cudaError_t e = cudaDeviceSynchronize();
		printf("error %s\nfault %s\n", cudaGetErrorName(e), cuemu_last_fault());
		return e == cudaSuccess ? 0 : 3;
	} else if (!strcmp(mode, "mask")) {
		mask<<<BLOCKS, THREADS>>>(d, 300);
		cudaError_t e = cudaDeviceSynchronize();
		printf("error %s\nfault %s\n", cudaGetErrorName(e), cuemu_last_fault());
		cudaMemcpy(h, d, N * sizeof(unsigned), cudaMemcpyDeviceToHost);
		return e == cudaSuccess ? 0 : 3;
	} else if (!strcmp(mode, "chained")) {
		unsigned *flag, *carry;
		cudaMalloc(&flag, BLOCKS * sizeof(unsigned));
		cudaMalloc(&carry, BLOCKS * sizeof(unsigned));
		cudaMemset(flag, 0, BLOCKS * sizeof(unsigned));
		for (unsigned i = 0; i < N; i++)
			h[i] = i % 13u;
		cudaMemcpy(d, h, N * sizeof(unsigned), cudaMemcpyHostToDevice);
		chained<<<BLOCKS, THREADS>>>(d, d2, flag, carry, argc > 2 ? atoi(argv[2]) : 1);
		cudaMemcpy(h, d2, N * sizeof(unsigned), cudaMemcpyDeviceToHost);
		unsigned long long want = 0;
		int ok = 1;
		for (unsigned i = 0; i < N; i++) {
			want += i % 13u;
			ok &= h[i] == (unsigned)want;
		}
		printf("scan %s %llx\n", ok ? "right" : "wrong", hash(h, N * sizeof(unsigned)));
	} else if (!strcmp(mode, "hang")) {
		hang<<<BLOCKS, THREADS>>>(d, 200);
		cudaDeviceSynchronize();
	} else if (!strcmp(mode, "who")) {
		who<<<BLOCKS, THREADS>>>(d);
		cudaMemcpy(h, d, BLOCKS * sizeof(unsigned), cudaMemcpyDeviceToHost);
		int distinct = 0;
		for (int b = 0; b < BLOCKS; b++) {
			int seen = 0;
			for (int c = 0; c < b; c++)
				seen |= h[c] == h[b];
			distinct += !seen;
		}
		int here = 0;
		for (int b = 0; b < BLOCKS; b++)
			here |= h[b] == (unsigned)getpid();
		printf("processes %d, this one among them %d\n", distinct, here);
	} else if (!strcmp(mode, "printf")) {
		say<<<BLOCKS, THREADS>>>();
		cudaDeviceSynchronize();
		printf("after\n");
	}
	return 0;
}
