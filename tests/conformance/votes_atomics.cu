/*
 * Conformance fixture, lab 1 (inclusive scan). Idioms: __syncthreads_count,
 * __syncthreads_and, __syncthreads_or; atomics (atomicAdd for a block
 * ticket, atomicAdd(p, 0) and atomicExch for the flags of a chained scan),
 * __threadfence, volatile loads. Blocks take their place in the chain by ticket, so each waits
 * only for a block that has already started (safe on a GPU, and in the
 * emulator, which runs blocks in order).
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cuda_runtime.h>

#define BLOCK 256

__global__ void chained_scan(const unsigned int *in, unsigned int *out, size_t n, unsigned int *ticket,
			     unsigned int *flags, unsigned int *prefix)
{
	__shared__ unsigned int s[BLOCK];
	__shared__ unsigned int my_ticket, carry;
	if (threadIdx.x == 0)
		my_ticket = atomicAdd(ticket, 1u);
	__syncthreads();
	size_t i = my_ticket * (size_t)BLOCK + threadIdx.x;
	unsigned int v = i < n ? in[i] : 0;
	/* How many of the block's threads hold an element, and whether all or
	 * none of those are zero: a block of zeros needs no scan. */
	int valid = __syncthreads_count(i < n);
	int all_zero = __syncthreads_and(v == 0);
	int any_nonzero = __syncthreads_or(v != 0);
	s[threadIdx.x] = v;
	__syncthreads();
	if (!all_zero && any_nonzero)
		for (int off = 1; off < valid; off <<= 1) {
			unsigned int add = (int)threadIdx.x >= off ? s[threadIdx.x - off] : 0;
			__syncthreads();
			s[threadIdx.x] += add;
			__syncthreads();
		}
	if (threadIdx.x == 0) {
		unsigned int before = 0;
		if (my_ticket > 0) {
			while (atomicAdd(&flags[my_ticket - 1], 0u) == 0)
				;
			before = ((volatile unsigned int *)prefix)[my_ticket - 1];
		}
		carry = before;
		prefix[my_ticket] = before + (valid ? s[valid - 1] : 0);
		__threadfence();
		atomicExch(&flags[my_ticket], 1u);
	}
	__syncthreads();
	if (i < n)
		out[i] = s[threadIdx.x] + carry;
}

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	size_t blocks = (n + BLOCK - 1) / BLOCK;
	unsigned int *ticket, *flags, *prefix;
	cudaMalloc(&ticket, sizeof(unsigned int));
	cudaMalloc(&flags, blocks * sizeof(unsigned int));
	cudaMalloc(&prefix, blocks * sizeof(unsigned int));
	cudaMemset(ticket, 0, sizeof(unsigned int));
	cudaMemset(flags, 0, blocks * sizeof(unsigned int));
	chained_scan<<<(unsigned int)blocks, BLOCK>>>(d_in, d_out, n, ticket, flags, prefix);
	cudaFree(ticket);
	cudaFree(flags);
	cudaFree(prefix);
}
