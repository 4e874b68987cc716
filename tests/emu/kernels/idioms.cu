/*
 * The same kernels written with other idioms of memory access: memcpy and
 * its family (run-time and constant sizes, the explicit builtins, the
 * _FORTIFY_SOURCE form), struct copies, __device__ variables, atomics on
 * them. Each must be traced like its plain form. And two kernels whose
 * blocks do not all run the same code, for the sampling check.
 * The @markers name the lines the tests look up.
 */
#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define TILE 32
#define ROWS 8
#define SIDE 256
#define N 1024

struct boxed {
	float v;
};
struct wide {
	float v[4];
};

__device__ float stage[SIDE * SIDE];
__device__ unsigned int counter;
/* In a section of the file's own choosing: global memory all the same. */
__device__ float own_section[256] __attribute__((section("my_data")));

/* The naive transpose with its copy written nine ways; width is
 * sizeof(float), known only at run time. */
__global__ void transpose_idiom(const float *in, float *out, int variant, size_t width)
{
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	for (int j = 0; j < TILE; j += ROWS) {
		float *d = &out[x * SIDE + y + j];
		const float *s = &in[(y + j) * SIDE + x];
		switch (variant) {
		case 0: *d = *s; break; /* @plain */
		case 1: memcpy(d, s, width); break; /* @rt_memcpy */
		case 2: memcpy(d, s, sizeof(float)); break; /* @const_memcpy */
		case 3: __builtin_memcpy(d, s, sizeof(float)); break; /* @builtin */
		case 4: memmove(d, s, width); break; /* @memmove */
		case 5: *(boxed *)d = *(const boxed *)s; break; /* @struct */
		case 6: __builtin___memcpy_chk(d, s, width, __builtin_object_size(d, 0)); break; /* @chk */
		case 7: stage[x * SIDE + y + j] = *s; break; /* @stage */
		case 8: wmemcpy((wchar_t *)d, (const wchar_t *)s, width / sizeof(wchar_t)); break; /* @wmemcpy */
		}
	}
}

/* Variant 7's second pass: the staged transpose copied out, coalesced. */
__global__ void copy_out(float *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	out[i] = stage[i]; /* @copy_out */
}

/* A struct copy of 16 bytes a lane, 4-byte aligned elements: four 4-byte
 * pieces, each coalesced like a plain float copy. */
__global__ void copy_wide(const wide *in, wide *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	out[i] = in[i]; /* @wide */
}

/* A float4 read field by field and written with make_float4: g++ makes
 * each a 4-byte access a field, the GPU one 16-byte access a lane. Then
 * the same bytes read as two floats a lane on two lines: two requests. */
__global__ void float4_fields(const float4 *in, float4 *out, float *pairs)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	const float4 v = in[i]; /* @f4_load */
	out[i] = make_float4(v.w, v.z, v.y, v.x); /* @f4_store */
	const float *f = (const float *)in;
	float a = f[2 * i]; /* @pair_first */
	float b = f[2 * i + 1]; /* @pair_second */
	pairs[i] = a + b;
}

/* A thread's items in shared memory, read and written in a loop: ptxas
 * merges 4 adjacent aligned words into one LDS.128 (STS.128), served by
 * quarter warps, where word by word each is a 4-way conflict (8 items: two
 * of them, each a 2-way conflict in its quarters). A pair that starts one
 * word into its 16 bytes is no aligned vector: word by word. */
__global__ void shared_items(const unsigned int *in, unsigned int *out)
{
	__shared__ unsigned int s[8 * 128];
	const int t = threadIdx.x;
	for (int k = 0; k < 8; k++)
		s[k * 128 + t] = in[(blockIdx.x * 8 + k) * 128 % N + t % 128];
	__syncthreads();
	unsigned int sum = 0, eight = 0;
	for (int k = 0; k < 4; k++)
		sum += s[t * 4 + k]; /* @items4 */
	for (int k = 0; k < 8; k++)
		eight += s[t * 8 + k]; /* @items8 */
	const unsigned int pair = s[4 * t + 1] + s[4 * t + 2]; /* @offset_pair */
	__syncthreads();
	for (int k = 0; k < 4; k++)
		s[t * 4 + k] = sum + k; /* @items4_store */
	__syncthreads();
	out[blockIdx.x * 128 + t] = s[t] + eight + pair;
}

__global__ void fill_idiom(float *out, size_t width)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	memset(&out[i], 0, width); /* @memset */
	own_section[(i * 32) % 256] = 1; /* @own_section */
}

__global__ void count_idiom(unsigned int *out)
{
	atomicAdd(&counter, 1u); /* @atomic */
	__atomic_fetch_add(&counter, 1u, __ATOMIC_RELAXED); /* @gcc_atomic */
	out[blockIdx.x * blockDim.x + threadIdx.x] = 1; /* @mark */
}

/* Hillis-Steele, double-buffered, its step's store a memcpy of run-time
 * width (variant 1) or plain (variant 0). */
__global__ void scan_idiom(const unsigned int *in, unsigned int *out, int variant, size_t width)
{
	__shared__ unsigned int buf[2][N];
	int tid = threadIdx.x, cur = 0;
	buf[0][tid] = in[tid];
	__syncthreads();
	for (int off = 1; off < N; off *= 2) {
		unsigned int v = buf[cur][tid];
		if (tid >= off)
			v += buf[cur][tid - off];
		if (variant) memcpy(&buf[1 - cur][tid], &v, width); else buf[1 - cur][tid] = v; /* @step */
		cur = 1 - cur;
		__syncthreads();
	}
	out[tid] = buf[cur][tid];
}

/* Each lane stores, then reads its neighbour's word, with no barrier: in
 * warp lockstep every store is issued before the loads and each lane sees
 * its neighbour's value; run lane after lane, a lane reads before its
 * neighbour has stored. So the lanes of a traced block take one branch,
 * most lanes of an untraced block the other: a file could run a different
 * path where it is traced. */
__global__ void lockstep_probe(float *seen, float *unseen)
{
	__shared__ unsigned int s[64];
	unsigned int t = threadIdx.x, next = (t & ~31u) | ((t + 1) & 31u);
	int i = blockIdx.x * blockDim.x + t;
	s[t] = t + 1;
	if (s[next] == next + 1)
		seen[i] = 1; /* @seen */
	else
		unseen[i] = 2; /* @unseen */
}

/* Honest: only the grid's last block writes the total. */
__global__ void last_block_extra(float *out, float *total)
{
	out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
	if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0)
		*total = 1; /* @last */
}

/* Runs transpose_idiom's variant on a SIDE x SIDE matrix; returns the wrong
 * elements, or -1 on a CUDA error. */
extern "C" long ik_transpose(int variant)
{
	size_t n = SIDE * SIDE;
	float *h = (float *)malloc(n * sizeof(float)), *d_in, *d_out;
	for (size_t i = 0; i < n; i++)
		h[i] = (float)i;
	cudaMalloc(&d_in, n * sizeof(float));
	cudaMalloc(&d_out, n * sizeof(float));
	cudaMemcpy(d_in, h, n * sizeof(float), cudaMemcpyHostToDevice);
	transpose_idiom<<<dim3(SIDE / TILE, SIDE / TILE), dim3(TILE, ROWS)>>>(d_in, d_out, variant,
									       sizeof(float));
	if (variant == 7)
		copy_out<<<n / 256, 256>>>(d_out);
	long bad = -1;
	if (cudaGetLastError() == cudaSuccess &&
	    cudaMemcpy(h, d_out, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaSuccess) {
		bad = 0;
		for (size_t r = 0; r < SIDE; r++)
			for (size_t c = 0; c < SIDE; c++)
				bad += h[c * SIDE + r] != (float)(r * SIDE + c);
	}
	cudaFree(d_in);
	cudaFree(d_out);
	free(h);
	return bad;
}

/* The other kernels, one after the other; returns the wrong results, or -1. */
extern "C" long ik_others(void)
{
	unsigned int h_in[N], h_out[N], *d_in, *d_out, sum = 0, count = 0;
	wide *w_in, *w_out;
	float *f, total;
	long bad = 0;
	for (int i = 0; i < N; i++)
		h_in[i] = (unsigned int)(i * 2654435761u) >> 8;
	cudaMalloc(&d_in, sizeof h_in);
	cudaMalloc(&d_out, sizeof h_out);
	cudaMalloc(&w_in, N * sizeof(wide));
	cudaMalloc(&w_out, N * sizeof(wide));
	cudaMalloc(&f, (N + 1) * sizeof(float));
	cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
	for (int variant = 0; variant < 2; variant++) {
		scan_idiom<<<1, N>>>(d_in, d_out, variant, sizeof(unsigned int));
		cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
		sum = 0;
		for (int i = 0; i < N; i++)
			bad += h_out[i] != (sum += h_in[i]);
	}
	copy_wide<<<N / 128, 128>>>(w_in, w_out);
	float4_fields<<<N / 128, 128>>>((const float4 *)w_in, (float4 *)w_out, f);
	shared_items<<<N / 128, 128>>>(d_in, d_out);
	fill_idiom<<<N / 128, 128>>>(f, sizeof(float));
	count_idiom<<<N / 128, 128>>>(d_out);
	cudaMemcpyFromSymbol(&count, counter, sizeof count);
	bad += count != 2 * N;
	lockstep_probe<<<16, 64>>>(f, f);
	last_block_extra<<<16, 64>>>(f, f + N);
	cudaMemcpy(&total, f + N, sizeof total, cudaMemcpyDeviceToHost);
	bad += total != 1;
	if (cudaGetLastError() != cudaSuccess)
		bad = -1;
	cudaFree(d_in);
	cudaFree(d_out);
	cudaFree(w_in);
	cudaFree(w_out);
	cudaFree(f);
	return bad;
}

__global__ void copy_past_end(float *out, const float *in, size_t width)
{
	memcpy(&out[63], in, width); /* @overrun */
}

/* A memcpy whose last bytes fall past its buffer of 64 floats. */
extern "C" cudaError_t ik_memcpy_overrun(void)
{
	float *d;
	cudaMalloc(&d, 64 * sizeof(float));
	copy_past_end<<<1, 1>>>(d, d, 2 * sizeof(float));
	return cudaDeviceSynchronize();
}
