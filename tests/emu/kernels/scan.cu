/*
 * Block scans of 1024 elements written the textbook way: Hillis-Steele
 * (double-buffered, and the racy single-buffer version) and Blelloch (GPU
 * Gems 3, ch. 39, with the root step of lab 2: the up-sweep stops at the
 * root's two children, one thread sets them, the down-sweep starts below).
 * The @markers name the lines the tests look up.
 */
#include <cuda_runtime.h>
#include <stdlib.h>

#define N 1024

__global__ void hillis_steele(const unsigned int *in, unsigned int *out)
{
	__shared__ unsigned int buf[2][N];
	int tid = threadIdx.x, cur = 0;
	buf[0][tid] = in[tid];
	__syncthreads();
	for (int off = 1; off < N; off *= 2) {
		if (tid >= off)
			buf[1 - cur][tid] = buf[cur][tid] + buf[cur][tid - off]; /* @hs_add */
		else
			buf[1 - cur][tid] = buf[cur][tid];
		cur = 1 - cur;
		__syncthreads();
	}
	out[tid] = buf[cur][tid];
}

/* Reads s[tid - off] in the same step in which thread tid - off writes it. */
__global__ void hillis_steele_racy(const unsigned int *in, unsigned int *out)
{
	__shared__ unsigned int s[N];
	int tid = threadIdx.x;
	s[tid] = in[tid];
	__syncthreads();
	for (int off = 1; off < N; off *= 2) {
		if (tid >= off)
			s[tid] += s[tid - off]; /* @racy */
		__syncthreads();
	}
	out[tid] = s[tid];
}

/* Exclusive scan of N elements with N / 2 threads. */
__global__ void blelloch(const unsigned int *in, unsigned int *out)
{
	__shared__ unsigned int temp[N];
	int tid = threadIdx.x, offset = 1;
	temp[2 * tid] = in[2 * tid];
	temp[2 * tid + 1] = in[2 * tid + 1];
	for (int d = N >> 1; d > 1; d >>= 1) {
		__syncthreads();
		if (tid < d) {
			int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
			temp[bi] += temp[ai]; /* @up */
		}
		offset *= 2;
	}
	__syncthreads();
	if (tid == 0) {
		unsigned int left = temp[N / 2 - 1]; temp[N / 2 - 1] = 0; temp[N - 1] = left; /* @root */
	}
	for (int d = 2; d < N; d *= 2) {
		offset >>= 1;
		__syncthreads();
		if (tid < d) {
			int ai = offset * (2 * tid + 1) - 1, bi = offset * (2 * tid + 2) - 1;
			unsigned int t = temp[ai]; temp[ai] = temp[bi]; temp[bi] += t; /* @down */
		}
	}
	__syncthreads();
	out[2 * tid] = temp[2 * tid];
	out[2 * tid + 1] = temp[2 * tid + 1];
}

/* Runs one scan of N elements (0 Hillis-Steele, 1 racy, 2 Blelloch);
 * returns the wrong elements, or -1 on a CUDA error. */
extern "C" long sk_scan(int variant)
{
	unsigned int h_in[N], h_out[N], *d_in, *d_out, sum = 0;
	for (int i = 0; i < N; i++)
		h_in[i] = (unsigned int)(i * 2654435761u) >> 8;
	cudaMalloc(&d_in, sizeof h_in);
	cudaMalloc(&d_out, sizeof h_out);
	cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
	if (variant == 0)
		hillis_steele<<<1, N>>>(d_in, d_out);
	else if (variant == 1)
		hillis_steele_racy<<<1, N>>>(d_in, d_out);
	else
		blelloch<<<1, N / 2>>>(d_in, d_out);
	long bad = -1;
	if (cudaGetLastError() == cudaSuccess &&
	    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost) == cudaSuccess) {
		bad = 0;
		for (int i = 0; i < N; i++) {
			if (variant == 2)
				bad += h_out[i] != sum;
			sum += h_in[i];
			if (variant != 2)
				bad += h_out[i] != sum;
		}
	}
	cudaFree(d_in);
	cudaFree(d_out);
	return bad;
}
