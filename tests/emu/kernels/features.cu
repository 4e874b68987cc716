/*
 * The CUDA C++ a lab may use, each feature checked by its result: atomics,
 * warp intrinsics, dynamic shared memory, templates, 3-D grids, barrier
 * reductions, __device__ variables, several launches in one statement.
 * Each fx_ function returns the number of wrong results (0 is right), or
 * -1 on a CUDA error.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                   \
	do {                                          \
		if ((call) != cudaSuccess)            \
			return -1;                    \
	} while (0)

__device__ unsigned int device_counter;

__global__ void count_atomics(unsigned int *sum, int *mx, unsigned long long *wide, float *f)
{
	unsigned int id = blockIdx.x * blockDim.x + threadIdx.x;
	atomicAdd(sum, 1u);
	atomicMax(mx, (int)id);
	atomicAdd(wide, 1ull << 33);
	atomicAdd(f, 0.5f);
	atomicAdd(&device_counter, 2u);
	unsigned int old, seen = *sum;
	do {			/* an atomicCAS loop that adds 0 */
		old = seen;
		seen = atomicCAS(sum, old, old);
	} while (seen != old);
}

extern "C" long fx_atomics(void)
{
	unsigned int *sum, h_sum, h_dev;
	int *mx, h_mx;
	unsigned long long *wide, h_wide;
	float *f, h_f;
	CHECK(cudaMalloc(&sum, 4));
	CHECK(cudaMalloc(&mx, 4));
	CHECK(cudaMalloc(&wide, 8));
	CHECK(cudaMalloc(&f, 4));
	cudaMemset(sum, 0, 4);
	cudaMemset(mx, 0, 4);
	cudaMemset(wide, 0, 8);
	cudaMemset(f, 0, 4);
	const unsigned int zero = 0;
	CHECK(cudaMemcpyToSymbol(device_counter, &zero, sizeof zero));
	count_atomics<<<10, 100>>>(sum, mx, wide, f);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(&h_sum, sum, 4, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&h_mx, mx, 4, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&h_wide, wide, 8, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&h_f, f, 4, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpyFromSymbol(&h_dev, device_counter, sizeof h_dev));
	return (h_sum != 1000) + (h_mx != 999) + (h_wide != 1000ull << 33) + (h_f != 500.0f) +
	       (h_dev != 2000);
}

/* Warp intrinsics: a reduction, a butterfly, an inclusive scan, votes. */
__global__ void warp_ops(const int *in, int *out)
{
	int lane = threadIdx.x % 32, v = in[threadIdx.x];
	int sum = v;
	for (int off = 16; off > 0; off /= 2)
		sum += __shfl_down_sync(0xffffffffu, sum, off);
	int all = v;
	for (int m = 1; m < 32; m *= 2)
		all += __shfl_xor_sync(0xffffffffu, all, m);
	int scan = v;
	for (int off = 1; off < 32; off *= 2) {
		int up = __shfl_up_sync(0xffffffffu, scan, off);
		if (lane >= off)
			scan += up;
	}
	unsigned odd = __ballot_sync(0xffffffffu, v & 1);
	int first = __shfl_sync(0xffffffffu, v, 0);
	int any = __any_sync(0xffffffffu, v == 7), every = __all_sync(0xffffffffu, v >= 0);
	int base = threadIdx.x * 8;
	out[base + 0] = lane == 0 ? sum : 0;
	out[base + 1] = all;
	out[base + 2] = scan;
	out[base + 3] = (int)odd;
	out[base + 4] = first;
	out[base + 5] = any;
	out[base + 6] = every;
	out[base + 7] = __reduce_add_sync(0xffffffffu, v);
}

extern "C" long fx_warps(void)
{
	enum { T = 64 };
	int h_in[T], h_out[T * 8], *in, *out;
	for (int i = 0; i < T; i++)
		h_in[i] = (i * 37) % 11;
	CHECK(cudaMalloc(&in, sizeof h_in));
	CHECK(cudaMalloc(&out, sizeof h_out));
	CHECK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
	warp_ops<<<1, T>>>(in, out);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(h_out, out, sizeof h_out, cudaMemcpyDeviceToHost));
	long bad = 0;
	for (int w = 0; w < T / 32; w++) {
		int total = 0, scan = 0, any = 0, every = 1;
		unsigned odd = 0;
		for (int l = 0; l < 32; l++) {
			int v = h_in[w * 32 + l];
			total += v;
			odd |= (unsigned)(v & 1) << l;
			any |= v == 7;
		}
		for (int l = 0; l < 32; l++) {
			int t = w * 32 + l, *o = &h_out[t * 8];
			scan += h_in[t];
			bad += o[0] != (l == 0 ? total : 0);
			bad += o[1] != total;
			bad += o[2] != scan;
			bad += (unsigned)o[3] != odd;
			bad += o[4] != h_in[w * 32];
			bad += o[5] != any;
			bad += o[6] != every;
			bad += o[7] != total;
		}
	}
	return bad;
}

/* Dynamic shared memory, a template kernel whose argument is deduced, and
 * a barrier reduction. */
template <typename T>
__global__ void reverse(T *data, int n, int *count)
{
	extern __shared__ T s[];
	int t = threadIdx.x;
	s[t] = data[t];
	__syncthreads();
	data[t] = s[n - 1 - t];
	int c = __syncthreads_count(data[t] > (T)(n / 2));
	if (t == 0)
		*count = c;
}

extern "C" long fx_dynamic_shared_template(void)
{
	enum { N = 200 };
	double h[N], *d;
	int h_count, *count;
	for (int i = 0; i < N; i++)
		h[i] = i;
	CHECK(cudaMalloc(&d, sizeof h));
	CHECK(cudaMalloc(&count, sizeof(int)));
	CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
	reverse<<<1, N, N * sizeof(double)>>>(d, N, count);
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&h_count, count, sizeof h_count, cudaMemcpyDeviceToHost));
	long bad = h_count != N / 2 - 1;
	for (int i = 0; i < N; i++)
		bad += h[i] != N - 1 - i;
	return bad;
}

/* Every thread of a 3-D grid of 3-D blocks writes its global index. */
__global__ void where_am_i(unsigned int *out)
{
	unsigned int bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
	unsigned int tx = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	unsigned int id = bx * (blockDim.x * blockDim.y * blockDim.z) + tx;
	out[id] = id;
}

__global__ void fill(unsigned int *out, unsigned int v)
{
	out[threadIdx.x] = v;
}

extern "C" long fx_grids(void)
{
	dim3 grid(3, 2, 2), block(4, 3, 2);
	const unsigned int n = 3 * 2 * 2 * 4 * 3 * 2;
	unsigned int h[n], *d, *a, *b, ha[4], hb[4];
	CHECK(cudaMalloc(&d, sizeof h));
	CHECK(cudaMalloc(&a, sizeof ha));
	CHECK(cudaMalloc(&b, sizeof hb));
	where_am_i<<<grid, block>>>(d);
	(fill<<<1, 4>>>(a, 7), fill<<<1, 4>>>(b, 9)); /* two launches, one statement */
	CHECK(cudaGetLastError());
	CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(ha, a, sizeof ha, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(hb, b, sizeof hb, cudaMemcpyDeviceToHost));
	long bad = 0;
	for (unsigned int i = 0; i < n; i++)
		bad += h[i] != i;
	for (int i = 0; i < 4; i++)
		bad += (ha[i] != 7) + (hb[i] != 9);
	return bad;
}

/* Events and device properties, as a student's host code uses them. */
extern "C" long fx_host_api(void)
{
	cudaEvent_t a, b;
	float ms = -1;
	struct cudaDeviceProp p;
	int count = 0;
	CHECK(cudaGetDeviceCount(&count));
	CHECK(cudaGetDeviceProperties(&p, 0));
	CHECK(cudaEventCreate(&a));
	CHECK(cudaEventCreate(&b));
	CHECK(cudaEventRecord(a));
	CHECK(cudaEventRecord(b));
	CHECK(cudaEventSynchronize(b));
	CHECK(cudaEventElapsedTime(&ms, a, b));
	cudaEventDestroy(a);
	cudaEventDestroy(b);
	return (count != 1) + (ms < 0) + (p.warpSize != 32) + (p.maxThreadsPerBlock != 1024);
}

/* Shifts by the type's width or more: x86 takes the count modulo 32, the
 * GPU clamps it. A device-code ">>" is made to give the GPU's value (and
 * noted); ">>=" keeps x86's and is reported by the shift check. */
__global__ void wide_shift(unsigned int *out, const unsigned int *count)
{
	out[threadIdx.x] = 0x80000000u >> count[threadIdx.x]; /* @shift */
	unsigned int v = 0x80000000u;
	v >>= count[threadIdx.x]; /* @shift_assign */
	out[2 + threadIdx.x] = v;
}

extern "C" long fx_wide_shift(void)
{
	unsigned int *out, *count, h[4] = { 4, 36 };
	CHECK(cudaMalloc(&out, sizeof h));
	CHECK(cudaMalloc(&count, sizeof h));
	CHECK(cudaMemcpy(count, h, sizeof h, cudaMemcpyHostToDevice));
	wide_shift<<<1, 2>>>(out, count);
	CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
	return (h[0] != 0x08000000u) + (h[1] != 0) + (h[2] != 0x08000000u);
}

/* Two tiles of one warp vote at one call site, each with its own mask. */
#include <cooperative_groups.h>
__global__ void tile_votes(unsigned int *out)
{
	namespace cg = cooperative_groups;
	cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
	unsigned int lane = threadIdx.x, half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
	out[lane] = __ballot_sync(half, lane % 3 == 0);
	out[32 + lane] = tile.ballot(lane % 3 == 0);
	out[64 + lane] = tile.all(lane < 16) + 2 * tile.any(lane == 20);
}

extern "C" long fx_tile_votes(void)
{
	unsigned int *d, h[96];
	CHECK(cudaMalloc(&d, sizeof h));
	tile_votes<<<1, 32>>>(d);
	CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
	unsigned int thirds = 0;
	for (int l = 0; l < 32; l++)
		thirds |= (l % 3 == 0 ? 1u : 0u) << l;
	long bad = 0;
	for (int l = 0; l < 32; l++) {
		unsigned int half = l < 16 ? 0x0000ffffu : 0xffff0000u;
		bad += h[l] != (thirds & half);
		bad += h[32 + l] != (thirds & half) >> (l < 16 ? 0 : 16);
		bad += h[64 + l] != (l < 16 ? 1u : 2u);
	}
	return bad;
}

/* The runtime calls of samples and older code besides the kit's own. */
extern "C" long fx_runtime_extras(void)
{
	float *pitched, *a;
	size_t pitch = 0;
	int min_grid = 0, block = 0, resident = 0;
	struct cudaFuncAttributes attr;
	cudaStream_t s;
	long bad = 0;
	CHECK(cudaMallocPitch(&pitched, &pitch, 100 * sizeof(float), 7));
	bad += pitch < 100 * sizeof(float) || pitch % 512 != 0;
	CHECK(cudaMemset2D(pitched, pitch, 0, 100 * sizeof(float), 7));
	bad += cudaMemset2D(pitched, pitch, 0, pitch + 4, 7) != cudaErrorInvalidPitchValue;
	CHECK(cudaFuncGetAttributes(&attr, wide_shift));
	bad += attr.maxThreadsPerBlock != 1024;
	CHECK(cudaFuncSetCacheConfig(wide_shift, cudaFuncCachePreferShared));
	CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, wide_shift, 0, 0));
	bad += block != 1024 || min_grid != 2;
	CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, wide_shift, 0, 200));
	bad += block != 128;	/* 16 blocks of 128 fill the 2048 threads; 9 of 200 do not */
	CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, wide_shift, 256, 0));
	bad += resident != 8;
	CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, wide_shift, 256, 100 * 1024));
	bad += resident != 0;	/* over the 48 KiB a block may have without opting in */
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaMallocAsync(&a, 64, s));
	CHECK(cudaFreeAsync(a, s));
	CHECK(cudaStreamWaitEvent(s, NULL) == cudaErrorInvalidResourceHandle ? cudaSuccess : cudaErrorUnknown);
	CHECK(cudaStreamQuery(s));
	CHECK(cudaStreamDestroy(s));
	CHECK(cudaThreadSynchronize());
	CHECK(cudaFree(pitched));
	return bad;
}

/* The symbol, host-function and registration calls of samples: a
 * __device__ variable reached through its address and the Async copies, a
 * host function and a callback run in stream order, a registered buffer. */
__device__ unsigned int symbol_value;
__global__ void set_symbol(unsigned int *at, unsigned int v)
{
	*at = v;
}

static void CUDART_CB bump(void *count)
{
	++*(int *)count;
}

static void CUDART_CB bump_ok(cudaStream_t, cudaError_t status, void *count)
{
	*(int *)count += status == cudaSuccess ? 10 : 1000;
}

extern "C" long fx_symbols_and_host_functions(void)
{
	void *at = NULL;
	size_t size = 0;
	unsigned int v = 0, zero = 0;
	int calls = 0, device = -1;
	long bad = 0;
	cudaStream_t s;
	cudaEvent_t e;
	struct cudaDeviceProp want = {};
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaMemcpyToSymbolAsync(symbol_value, &zero, sizeof(zero), 0, cudaMemcpyHostToDevice, s));
	CHECK(cudaGetSymbolAddress(&at, symbol_value));
	CHECK(cudaGetSymbolSize(&size, symbol_value));
	bad += size != sizeof(unsigned int);
	set_symbol<<<1, 1, 0, s>>>((unsigned int *)at, 42u);
	CHECK(cudaLaunchHostFunc(s, bump, &calls));
	CHECK(cudaStreamAddCallback(s, bump_ok, &calls, 0));
	CHECK(cudaMemcpyFromSymbolAsync(&v, symbol_value, sizeof(v), 0, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));
	bad += v != 42u;
	bad += calls != 11;
	bad += cudaLaunchHostFunc(s, NULL, NULL) != cudaErrorInvalidValue;
	(void)cudaGetLastError();
	unsigned int *host = (unsigned int *)malloc(4096);
	CHECK(cudaHostRegister(host, 4096, 0));
	CHECK(cudaHostUnregister(host));
	free(host);
	CHECK(cudaChooseDevice(&device, &want));
	bad += device != 0;
	CHECK(cudaEventCreate(&e));
	CHECK(cudaEventRecordWithFlags(e, s, 0));
	CHECK(cudaEventSynchronize(e));
	CHECK(cudaEventDestroy(e));
	CHECK(cudaStreamDestroy(s));
	return bad;
}

/* __match_all_sync on equal and unequal values, __dp4a on signed and
 * unsigned bytes, a double converted to float. */
__global__ void more_intrinsics(int *out)
{
	int lane = threadIdx.x, same = 0, mixed = 1;
	unsigned all = __match_all_sync(0xffffffffu, 7, &same);
	unsigned none = __match_all_sync(0xffffffffu, lane & 1, &mixed);
	out[lane] = all == 0xffffffffu && same == 1 && none == 0 && mixed == 0;
	if (lane == 0) {
		out[32] = __dp4a(0x01020304, 0x01010101, 5);
		out[33] = __dp4a((int)0xffffffffu, 0x01010101, 0);
		out[34] = (int)__dp4a(0xffffffffu, 0x01010101u, 0u);
		out[35] = __double2float_rn(0.1) == 0.1f;
	}
}

extern "C" long fx_more_intrinsics(void)
{
	int *d, h[36];
	long bad = 0;
	CHECK(cudaMalloc(&d, sizeof(h)));
	more_intrinsics<<<1, 32>>>(d);
	CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(d));
	for (int l = 0; l < 32; l++)
		bad += h[l] != 1;
	bad += h[32] != 15;
	bad += h[33] != -4;
	bad += h[34] != 1020;
	bad += h[35] != 1;
	return bad;
}

