// A __device__ variable that kernels write: private to a worker process after
// a fork, so its launches must run serially (test_parallel.c).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <unistd.h>

#define BLOCKS 512
#define THREADS 256
#define N (BLOCKS * THREADS)

__device__ unsigned dev_total;

__global__ void device_var(const unsigned *in, unsigned *pids)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (in[i] % 3 == 0)
		dev_total += 1;	// no atomic needed where blocks run one at a time
	if (threadIdx.x == 0)
		pids[blockIdx.x] = (unsigned)getpid();
}

int main(void)
{
	unsigned *d, *p, *h = (unsigned *)malloc(N * sizeof(unsigned));
	cudaMalloc(&d, N * sizeof(unsigned));
	cudaMalloc(&p, BLOCKS * sizeof(unsigned));
	for (unsigned i = 0; i < N; i++)
		h[i] = i * 7u;
	cudaMemcpy(d, h, N * sizeof(unsigned), cudaMemcpyHostToDevice);
	device_var<<<BLOCKS, THREADS>>>(d, p);
	unsigned total;
	cudaMemcpyFromSymbol(&total, dev_total, sizeof total);
	cudaMemcpy(h, p, BLOCKS * sizeof(unsigned), cudaMemcpyDeviceToHost);
	int same = 1;
	for (int b = 0; b < BLOCKS; b++)
		same &= h[b] == (unsigned)getpid();
	printf("total %u in this process %d\n", total, same);
	return 0;
}
