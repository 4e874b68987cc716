/*
 * Conformance fixture, lab 2 (exclusive scan). Idioms: a template kernel
 * with a type and a block size as parameters, Blelloch's up-sweep and
 * down-sweep in dynamic extern __shared__ memory with a bank-conflict
 * padding macro, two elements per thread, uint2 loads where the pair is
 * whole, block sums scanned by the same template.
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cuda_runtime.h>

#define LOG_NUM_BANKS 5
#define PAD(i) ((i) + ((i) >> LOG_NUM_BANKS))

template <typename T, int THREADS>
__global__ void blelloch(const T *in, T *out, T *sums, size_t n)
{
	extern __shared__ unsigned char smem[];
	T *s = reinterpret_cast<T *>(smem);
	const int per_block = 2 * THREADS;
	size_t base = blockIdx.x * (size_t)per_block;
	int a = threadIdx.x, b = threadIdx.x + THREADS;
	s[PAD(a)] = base + a < n ? in[base + a] : T(0);
	s[PAD(b)] = base + b < n ? in[base + b] : T(0);
	int off = 1;
	for (int d = THREADS; d > 0; d >>= 1) {
		__syncthreads();
		if ((int)threadIdx.x < d) {
			int ai = off * (2 * threadIdx.x + 1) - 1, bi = off * (2 * threadIdx.x + 2) - 1;
			s[PAD(bi)] += s[PAD(ai)];
		}
		off <<= 1;
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		sums[blockIdx.x] = s[PAD(per_block - 1)];
		s[PAD(per_block - 1)] = T(0);
	}
	for (int d = 1; d < per_block; d <<= 1) {
		off >>= 1;
		__syncthreads();
		if ((int)threadIdx.x < d) {
			int ai = off * (2 * threadIdx.x + 1) - 1, bi = off * (2 * threadIdx.x + 2) - 1;
			T t = s[PAD(ai)];
			s[PAD(ai)] = s[PAD(bi)];
			s[PAD(bi)] += t;
		}
	}
	__syncthreads();
	if (base + a < n)
		out[base + a] = s[PAD(a)];
	if (base + b < n)
		out[base + b] = s[PAD(b)];
}

template <typename T, int THREADS>
__global__ void add_sums(T *out, const T *scanned_sums, size_t n)
{
	size_t base = blockIdx.x * (size_t)(2 * THREADS), i = base + 2 * threadIdx.x;
	if (i + 1 < n && n % 2 == 0) {
		uint2 pair = reinterpret_cast<uint2 *>(out)[i / 2];
		pair.x += scanned_sums[blockIdx.x];
		pair.y += scanned_sums[blockIdx.x];
		reinterpret_cast<uint2 *>(out)[i / 2] = pair;
		return;
	}
	for (size_t k = i; k < i + 2 && k < n; k++)
		out[k] += scanned_sums[blockIdx.x];
}

template <typename T, int THREADS> void exclusive(const T *d_in, T *d_out, size_t n)
{
	const size_t per_block = 2 * THREADS, blocks = (n + per_block - 1) / per_block;
	const size_t smem = (per_block + per_block / 32 + 1) * sizeof(T);
	T *sums;
	cudaMalloc(&sums, blocks * sizeof(T));
	blelloch<T, THREADS><<<(unsigned int)blocks, THREADS, smem>>>(d_in, d_out, sums, n);
	if (blocks > 1) {
		T *scanned;
		cudaMalloc(&scanned, blocks * sizeof(T));
		exclusive<T, THREADS>(sums, scanned, blocks);
		add_sums<T, THREADS><<<(unsigned int)blocks, THREADS>>>(d_out, scanned, n);
		cudaFree(scanned);
	}
	cudaFree(sums);
}

extern "C" void scan_exclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	exclusive<unsigned int, 256>(d_in, d_out, n);
}
