// What a fresh process pays before it can run a kernel: the CUDA runtime's
// first call (driver load, context creation), then a large allocation and
// its first touch; then what moving one gigabyte between host and device
// costs, step by step, as a correctness child moves the largest size (host
// pages touched for the first time, pageable and pinned copies, the write
// into the grader's memory file). tests/gpu/breakdown.sh runs it in a fresh
// process as the grader runs each harness child. Prints "STEP<TAB>SECONDS".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sys/mman.h>
#include <unistd.h>
#include <cuda_runtime.h>

#include "wall_clock.h"

static double now_s()
{
	return now_ms() / 1e3;
}

/* One gigabyte through the host, as run_correct() moves it. */
static int gigabyte(size_t bytes)
{
	void *d = nullptr, *pinned = nullptr;
	if (cudaMalloc(&d, bytes) != cudaSuccess)
		return 1;
	double t0 = now_s();
	char *h = (char *)malloc(bytes);
	if (!h)
		return 1;
	memset(h, 1, bytes);
	double t1 = now_s();
	cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
	double t2 = now_s();
	char *back = (char *)malloc(bytes);
	if (!back)
		return 1;
	cudaMemcpy(back, d, bytes, cudaMemcpyDeviceToHost);
	double t3 = now_s();
	cudaMemcpy(back, d, bytes, cudaMemcpyDeviceToHost);
	double t4 = now_s();
	int same = memcmp(h, back, bytes) == 0;
	double t5 = now_s();
	int fd = memfd_create("breakdown", 0);
	size_t done = 0;
	while (fd >= 0 && done < bytes) {
		ssize_t w = write(fd, back + done, bytes - done);
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	double t6 = now_s();
	if (fd >= 0)
		close(fd);
	cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault);
	double t7 = now_s();
	if (pinned) {
		memset(pinned, 2, bytes);
		cudaMemcpy(d, pinned, bytes, cudaMemcpyHostToDevice);
	}
	double t8 = now_s();
	if (pinned)
		cudaMemcpy(pinned, d, bytes, cudaMemcpyDeviceToHost);
	double t9 = now_s();
	printf("1 GiB: malloc and first touch (memset)\t%.4f\n", t1 - t0);
	printf("1 GiB: H2D from pageable memory\t%.4f\n", t2 - t1);
	printf("1 GiB: D2H to pageable memory, first touch\t%.4f\n", t3 - t2);
	printf("1 GiB: D2H to pageable memory, touched\t%.4f\n", t4 - t3);
	printf("1 GiB: memcmp (%s)\t%.4f\n", same ? "equal" : "differ", t5 - t4);
	printf("1 GiB: write into a memfd (%zu bytes)\t%.4f\n", done, t6 - t5);
	printf("1 GiB: cudaHostAlloc (pinned)\t%.4f\n", t7 - t6);
	printf("1 GiB: first touch, then H2D from pinned memory\t%.4f\n", t8 - t7);
	printf("1 GiB: D2H to pinned memory\t%.4f\n", t9 - t8);
	free(h);
	free(back);
	cudaFreeHost(pinned);
	cudaFree(d);
	return 0;
}

int main()
{
	double t0 = now_s();
	int count = 0;
	if (cudaGetDeviceCount(&count) != cudaSuccess || count < 1) {
		fprintf(stderr, "no CUDA device\n");
		return 1;
	}
	double t1 = now_s();
	cudaFree(0);	// creates the primary context
	double t2 = now_s();
	void *p = nullptr;
	size_t bytes = (size_t)1 << 30;
	if (cudaMalloc(&p, bytes) != cudaSuccess)
		return 1;
	double t3 = now_s();
	cudaMemset(p, 0, bytes);
	cudaDeviceSynchronize();
	double t4 = now_s();
	cudaFree(p);
	double t5 = now_s();
	printf("cudaGetDeviceCount (driver load)\t%.4f\n", t1 - t0);
	printf("cudaFree(0) (context creation)\t%.4f\n", t2 - t1);
	printf("cudaMalloc 1 GiB\t%.4f\n", t3 - t2);
	printf("cudaMemset 1 GiB (first touch)\t%.4f\n", t4 - t3);
	printf("cudaFree 1 GiB\t%.4f\n", t5 - t4);
	return gigabyte(bytes);
}
