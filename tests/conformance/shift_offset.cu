/*
 * Conformance fixture, lab 2 (exclusive scan). Idioms: a bank-offset macro
 * whose missing parentheses make it shift by 16 + n bits, as in a well-known
 * textbook scan: on the GPU a shift by 32 or more gives 0, so the offset is
 * always 0 and the scan is right; x86 would take the count modulo 32. The
 * emulator computes the GPU's value (and notes the line). Blelloch with a
 * static __shared__ array and a recursive scan of the block sums.
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cuda_runtime.h>

#define NUM_BANKS 16
#define LOG_NUM_BANKS 4
#define CONFLICT_FREE_OFFSET(n) ((n) >> NUM_BANKS + (n) >> (2 * LOG_NUM_BANKS))
#define THREADS 256	/* 512 elements a block: x86's wrapped shifts would map two onto one word */
#define PER_BLOCK (2 * THREADS)

__global__ void prescan(const unsigned int *in, unsigned int *out, unsigned int *sums, size_t n)
{
	__shared__ unsigned int temp[PER_BLOCK + PER_BLOCK / NUM_BANKS];
	int thid = threadIdx.x, offset = 1;
	size_t base = blockIdx.x * (size_t)PER_BLOCK;
	int ai = thid, bi = thid + THREADS;
	int bank_a = CONFLICT_FREE_OFFSET(ai), bank_b = CONFLICT_FREE_OFFSET(bi);
	temp[ai + bank_a] = base + ai < n ? in[base + ai] : 0;
	temp[bi + bank_b] = base + bi < n ? in[base + bi] : 0;
	for (int d = PER_BLOCK >> 1; d > 0; d >>= 1) {
		__syncthreads();
		if (thid < d) {
			int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
			a += CONFLICT_FREE_OFFSET(a);
			b += CONFLICT_FREE_OFFSET(b);
			temp[b] += temp[a];
		}
		offset *= 2;
	}
	if (thid == 0) {
		int last = 2 * blockDim.x - 1;
		last += CONFLICT_FREE_OFFSET(last);
		sums[blockIdx.x] = temp[last];
		temp[last] = 0;
	}
	for (int d = 1; d < PER_BLOCK; d *= 2) {
		offset >>= 1;
		__syncthreads();
		if (thid < d) {
			int a = offset * (2 * thid + 1) - 1, b = offset * (2 * thid + 2) - 1;
			a += CONFLICT_FREE_OFFSET(a);
			b += CONFLICT_FREE_OFFSET(b);
			unsigned int t = temp[a];
			temp[a] = temp[b];
			temp[b] += t;
		}
	}
	__syncthreads();
	if (base + ai < n)
		out[base + ai] = temp[ai + bank_a];
	if (base + bi < n)
		out[base + bi] = temp[bi + bank_b];
}

__global__ void add_block_sums(unsigned int *out, const unsigned int *scanned, size_t n)
{
	size_t i = blockIdx.x * (size_t)PER_BLOCK + threadIdx.x;
	if (i < n)
		out[i] += scanned[blockIdx.x];
	if (i + THREADS < n)
		out[i + THREADS] += scanned[blockIdx.x];
}

static void exclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	size_t blocks = (n + PER_BLOCK - 1) / PER_BLOCK;
	unsigned int *sums;
	cudaMalloc(&sums, blocks * sizeof(unsigned int));
	prescan<<<(unsigned int)blocks, THREADS>>>(d_in, d_out, sums, n);
	if (blocks > 1) {
		unsigned int *scanned;
		cudaMalloc(&scanned, blocks * sizeof(unsigned int));
		exclusive(sums, scanned, blocks);
		add_block_sums<<<(unsigned int)blocks, THREADS>>>(d_out, scanned, n);
		cudaFree(scanned);
	}
	cudaFree(sums);
}

extern "C" void scan_exclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	exclusive(d_in, d_out, n);
}
