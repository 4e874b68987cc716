/*
 * Conformance fixture, lab 1 (inclusive scan). Idioms: launches that nvcc
 * accepts written in less usual ways: inside macros (the kernel as a
 * parenthesised macro parameter, the configuration from a macro, the whole
 * "<<<g, b>>>" from a macro, a launch whose whole statement is a macro's
 * expansion), and kernels launched through variables (a function pointer,
 * a launcher template's function pointer parameter, and auto bound to one
 * of two template instances by a condition).
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cuda_runtime.h>

#define BLOCK 256
#define LAUNCH(kern, grid, block, ...) (kern)<<<(grid), (block)>>>(__VA_ARGS__)
#define KERNEL_ARGS2(grid, block) <<<grid, block>>>
#define CONFIG(blocks) (unsigned int)(blocks), BLOCK
#define ADD_OFFSETS(out, sums, n, blocks)                                        \
	do {                                                                      \
		void (*add)(unsigned int *, const unsigned int *, size_t) = add_offsets; \
		add<<<(unsigned int)(blocks), BLOCK>>>(out, sums, n);             \
	} while (0)

/* Hillis-Steele within a block; the block's total goes to sums. Two
 * instances, both correct: one reads the input through a second buffer. */
template <bool DOUBLE_BUFFERED>
__global__ void block_scan(const unsigned int *in, unsigned int *out, unsigned int *sums, size_t n)
{
	__shared__ unsigned int buf[2][BLOCK];
	size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x;
	unsigned int t = threadIdx.x, src = 0;
	buf[0][t] = i < n ? in[i] : 0;
	__syncthreads();
	for (unsigned int d = 1; d < BLOCK; d <<= 1) {
		unsigned int v = buf[src][t] + (t >= d ? buf[src][t - d] : 0);
		if (DOUBLE_BUFFERED) {
			buf[src ^ 1][t] = v;
			src ^= 1;
		} else {
			__syncthreads();
			buf[src][t] = v;
		}
		__syncthreads();
	}
	if (i < n)
		out[i] = buf[src][t];
	if (t == BLOCK - 1)
		sums[blockIdx.x] = buf[src][t];
}

__global__ void add_offsets(unsigned int *out, const unsigned int *scanned_sums, size_t n)
{
	size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x;
	if (i < n && blockIdx.x > 0)
		out[i] += scanned_sums[blockIdx.x - 1];
}

/* A launcher of any kernel, as helpers in real code are written: the
 * kernel arrives as a function pointer parameter. */
template <class... Params, class... Args>
static void launch_checked(void (*kernel)(Params...), unsigned int blocks, Args... args)
{
	kernel<<<blocks, BLOCK>>>(args...);
	(void)cudaGetLastError();
}

static void scan_levels(const unsigned int *d_in, unsigned int *d_out, size_t n, int depth)
{
	size_t blocks = (n + BLOCK - 1) / BLOCK;
	unsigned int *sums;
	cudaMalloc(&sums, blocks * sizeof(unsigned int));
	auto scan = n % 2 ? block_scan<true> : block_scan<false>;
	switch ((depth + n) % 4) {	/* every shape, at one level or another, across the sizes */
	case 0:
		scan<<<CONFIG(blocks)>>>(d_in, d_out, sums, n);
		break;
	case 1:
		launch_checked(block_scan<true>, (unsigned int)blocks, d_in, d_out, sums, n);
		break;
	case 2:
		LAUNCH(block_scan<true>, (unsigned int)blocks, BLOCK, d_in, d_out, sums, n);
		break;
	default:
		block_scan<false> KERNEL_ARGS2((unsigned int)blocks, BLOCK)(d_in, d_out, sums, n);
	}
	if (blocks > 1) {
		unsigned int *scanned;
		cudaMalloc(&scanned, blocks * sizeof(unsigned int));
		scan_levels(sums, scanned, blocks, depth + 1);
		ADD_OFFSETS(d_out, scanned, n, blocks);
		cudaFree(scanned);
	}
	cudaFree(sums);
}

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	scan_levels(d_in, d_out, n, 0);
}
