/*
 * Conformance fixture, lab 3 (transpose). C++ on both sides of a launch:
 * the standard library's headers that write __attribute__((__noinline__))
 * (<memory>, <functional>), CUDA's __noinline__ qualifier on device
 * helpers (alone, after static, and beside __device__), GCC's own
 * spelling of it, std::unique_ptr with a cudaFree deleter, std::function
 * and a lambda around the launch, std::vector and std::min on the host;
 * the toolkit's smaller headers included by name (vector_types.h,
 * driver_types.h, cuda_fp16.h with a half that holds 1 exactly) and the
 * profiler's markers around the launch.
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <algorithm>
#include <functional>
#include <memory>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <driver_types.h>
#include <vector_types.h>

#define TILE 32
#define ROWS 8

struct DeviceFree {
	void operator()(float *p) const { cudaFree(p); }
};

__device__ __noinline__ float load_at(const float *in, int r, int c, int cols)
{
	return in[(size_t)r * cols + c];
}

static __noinline__ __device__ void store_at(float *out, int r, int c, int cols, float v)
{
	out[(size_t)r * cols + c] = v;
}

__device__ __attribute__((__noinline__)) int tile_origin(int block)
{
	return block * TILE;
}

__global__ void tiled(const float *in, float *out, int rows, int cols)
{
	__shared__ float tile[TILE][TILE + 1];
	int x = tile_origin(blockIdx.x) + threadIdx.x;
	for (int j = threadIdx.y; j < TILE; j += ROWS) {
		int y = tile_origin(blockIdx.y) + j;
		if (x < cols && y < rows)
			tile[j][threadIdx.x] = load_at(in, y, x, cols);
	}
	__syncthreads();
	x = tile_origin(blockIdx.y) + threadIdx.x;
	for (int j = threadIdx.y; j < TILE; j += ROWS) {
		int y = tile_origin(blockIdx.x) + j;
		if (x < rows && y < cols)
			store_at(out, y, x, rows, tile[threadIdx.x][j] * __half2float(__float2half(1.0f)));
	}
}

extern "C" void transpose(const float *d_in, float *d_out, int rows, int cols)
{
	/* A scratch buffer the smart pointer gives back, whatever happens. */
	float *raw = nullptr;
	cudaMalloc(&raw, sizeof(float) * std::max(1, std::min(rows, 64)));
	std::unique_ptr<float, DeviceFree> scratch(raw);
	std::vector<int> dims{ rows, cols };
	dim3 block(TILE, ROWS), grid((dims[1] + TILE - 1) / TILE, (dims[0] + TILE - 1) / TILE);
	std::function<void(cudaStream_t)> launch = [&](cudaStream_t s) {
		tiled<<<grid, block, 0, s>>>(d_in, d_out, rows, cols);
	};
	cudaProfilerStart();
	launch(0);
	cudaDeviceSynchronize();
	cudaProfilerStop();
}
