/*
 * What one grading child asks of the CUDA driver besides kernels, timed:
 * the driver's start (cuInit), its context (the primary context retained,
 * then the runtime's first call), two 16 MiB pinned staging buffers, and
 * four rounds of a 1 GiB allocation, its memset and its free, and the
 * context's release. Run many at once (driver_contention.sh), on one GPU or
 * spread over several, to see whether these calls share something
 * host-wide that a second GPU does not double. Prints one line:
 * init_ms context_ms pinned_ms malloc_ms release_ms total_ms.
 * With the argument "exit", no release: the process ends with _exit()
 * after its line, its context left to the driver's own teardown of a
 * process (release_ms 0), to see whether that costs the host less.
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "staging_pair.h"
#include "wall_clock.h"
#include <unistd.h>

int main(int argc, char **argv)
{
	double t0 = now_ms();
	CUdevice dev;
	CUcontext ctx;
	if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&dev, 0) != CUDA_SUCCESS)
		return 1;
	double ti = now_ms();
	if (cuDevicePrimaryCtxRetain(&ctx, dev) != CUDA_SUCCESS || cudaFree(0) != cudaSuccess)
		return 1;
	double t1 = now_ms();
	void *h[2];
	if (pin_staging_pair(h) < 0)
		return 1;
	for (int i = 0; i < 2; i++)
		cudaFreeHost(h[i]);
	double t2 = now_ms();
	for (int r = 0; r < 4; r++) {
		void *d;
		if (cudaMalloc(&d, (size_t)1 << 30) != cudaSuccess)
			return 1;
		cudaMemset(d, 0, (size_t)1 << 30);
		cudaDeviceSynchronize();
		cudaFree(d);
	}
	double t3 = now_ms();
	if (argc > 1 && strcmp(argv[1], "exit") == 0) {
		printf("%.1f %.1f %.1f %.1f 0 %.1f\n", ti - t0, t1 - ti, t2 - t1, t3 - t2, t3 - t0);
		fflush(stdout);
		_exit(0);
	}
	cudaDeviceReset();
	cuDevicePrimaryCtxRelease(dev);
	double t4 = now_ms();
	printf("%.1f %.1f %.1f %.1f %.1f %.1f\n", ti - t0, t1 - ti, t2 - t1, t3 - t2, t4 - t3, t4 - t0);
	return 0;
}
