/*
 * Threads and the fibers' stacks: a thread gets a stack when it first runs,
 * the one a thread that ended freed, and a lane that starts after its
 * neighbour ended runs on that neighbour's stack (emu/runtime/fiber.c).
 * Each thread's local array must still hold its own values, and a stack
 * overflow must still name the thread that overflowed.
 */
#include <cuda_runtime.h>

#define CHECK(call)                                   \
	do {                                          \
		if ((call) != cudaSuccess)            \
			return -1;                    \
	} while (0)

#define LOCAL_WORDS 2048	/* 8 KiB of a thread's stack */
#define BLOCKS 4
#define THREADS 256

__device__ __host__ unsigned int word_of(unsigned int thread, unsigned int i)
{
	return thread * 2654435761u + i;
}

/* What a thread's array sums to, read back in another order. */
__device__ __host__ unsigned int expected_sum(unsigned int thread)
{
	unsigned int sum = 0;
	for (unsigned int i = 0; i < LOCAL_WORDS; i++)
		sum += word_of(thread, i) ^ (i * 7u);
	return sum;
}

__device__ __noinline__ void fill_local(volatile unsigned int *local, unsigned int thread)
{
	for (unsigned int i = 0; i < LOCAL_WORDS; i++)
		local[i] = word_of(thread, i);
}

__device__ __noinline__ unsigned int sum_local(volatile unsigned int *local)
{
	unsigned int sum = 0;
	for (int i = LOCAL_WORDS - 1; i >= 0; i--)
		sum += local[i] ^ ((unsigned int)i * 7u);
	return sum;
}

/* No barrier: every lane runs on the stack of the lane before it. */
__global__ void local_arrays(unsigned int *out)
{
	unsigned int id = blockIdx.x * blockDim.x + threadIdx.x;
	volatile unsigned int local[LOCAL_WORDS];
	fill_local(local, id);
	out[id] = sum_local(local);
}

/* Every third lane ends at once; the lane after it starts on its stack and
 * keeps its array there across the barrier, while the lanes after that
 * start on other stacks. */
__global__ void local_arrays_across_a_barrier(unsigned int *out)
{
	unsigned int id = blockIdx.x * blockDim.x + threadIdx.x;
	if (threadIdx.x % 3 == 0) {
		out[id] = id;
		return;
	}
	volatile unsigned int local[LOCAL_WORDS];
	fill_local(local, id);
	__syncthreads();
	out[id] = sum_local(local);
}

static long count_wrong(const unsigned int *got, int across_barrier)
{
	long wrong = 0;
	for (unsigned int id = 0; id < BLOCKS * THREADS; id++) {
		int ended = across_barrier && id % THREADS % 3 == 0;
		wrong += got[id] != (ended ? id : expected_sum(id));
	}
	return wrong;
}

extern "C" long xk_local_arrays(int across_barrier)
{
	static unsigned int got[BLOCKS * THREADS];
	unsigned int *out;
	CHECK(cudaMalloc(&out, sizeof got));
	if (across_barrier)
		local_arrays_across_a_barrier<<<BLOCKS, THREADS>>>(out);
	else
		local_arrays<<<BLOCKS, THREADS>>>(out);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(out));
	return count_wrong(got, across_barrier);
}

__device__ __noinline__ float deep_frame(int i)
{
	volatile float local[24 * 1024];	/* 96 KiB: more than a thread's stack */
	for (int k = 0; k < 24 * 1024; k++)
		local[k] = (float)k;
	return local[i];
}

/* Lane 5 overflows, on the stack lanes 0 to 4 ran on before it. */
__global__ void one_lane_overflows(float *out)
{
	out[threadIdx.x] = threadIdx.x == 5 ? deep_frame(threadIdx.x) : 0.0f;
}

extern "C" void xk_lane_stack_overflow(void)
{
	float *d;
	cudaMalloc(&d, 32 * sizeof(float));
	one_lane_overflows<<<1, 32>>>(d);
	cudaDeviceSynchronize();
}
