// How long the bench's buffers take to make and free on this GPU (call 53).
#include <cstdio>
#include <ctime>
#include <cuda_runtime.h>
static double ms() { timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
int main() {
	cudaFree(0);
	size_t gib = (size_t)1 << 30, flush = (size_t)4 * 60 << 20;
	for (int r = 0; r < 6; r++) {
		void *a, *b, *c; cudaEvent_t e1, e2;
		double t0 = ms();
		cudaMalloc(&a, gib); cudaMalloc(&b, gib + (1 << 20)); cudaMalloc(&c, flush);
		cudaEventCreate(&e1); cudaEventCreate(&e2);
		double t1 = ms();
		cudaMemset(a, 1, gib); cudaMemset(b, 2, gib); cudaMemset(c, 0, flush); cudaDeviceSynchronize();
		double t2 = ms();
		cudaEventDestroy(e1); cudaEventDestroy(e2);
		cudaFree(a); cudaFree(b); cudaFree(c);
		double t3 = ms();
		printf("round %d: malloc %.2f ms, first touch %.2f ms, free %.2f ms\n", r, t1 - t0, t2 - t1, t3 - t2);
	}
	return 0;
}
