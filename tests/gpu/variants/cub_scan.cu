// The outside anchor for lab 2: CUB's single-pass scan (decoupled look-back),
// timed the kit's way, against a device-to-device copy of the same bytes in
// the same process. Not a submission (the labs refuse CUB): a bench of its own.
//
//   cub-scan [LOG2_N] [RUNS]     (defaults 28 and 30)
//
// Checks CUB's output against a CPU scan, then prints one line:
// "cub n=... median_ms=... copy_ms=... gbps=... copy_gbps=... pct_of_copy=...".
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cub/device/device_scan.cuh>

#define CHECK(x)                                                                          \
	do {                                                                              \
		cudaError_t e_ = (x);                                                     \
		if (e_ != cudaSuccess) {                                                  \
			fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));          \
			exit(1);                                                          \
		}                                                                         \
	} while (0)

static float median(std::vector<float> v)
{
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

int main(int argc, char **argv)
{
	const int log2n = argc > 1 ? atoi(argv[1]) : 28;
	const int runs = argc > 2 ? atoi(argv[2]) : 30;
	const size_t n = (size_t)1 << log2n, bytes = n * sizeof(unsigned int);

	std::vector<unsigned int> h(n), got(n);
	unsigned long long x = 88172645463325252ull;
	for (size_t i = 0; i < n; i++) {	// xorshift: full-range words
		x ^= x << 13; x ^= x >> 7; x ^= x << 17;
		h[i] = (unsigned int)x;
	}
	unsigned int *d_in, *d_out;
	void *d_temp = nullptr, *d_flush;
	size_t temp_bytes = 0;
	cudaDeviceProp p;
	CHECK(cudaGetDeviceProperties(&p, 0));
	const size_t flush_bytes = 4 * (size_t)p.l2CacheSize;
	CHECK(cudaMalloc(&d_in, bytes));
	CHECK(cudaMalloc(&d_out, bytes));
	CHECK(cudaMalloc(&d_flush, flush_bytes));
	CHECK(cudaMemcpy(d_in, h.data(), bytes, cudaMemcpyHostToDevice));
	CHECK(cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, n));
	CHECK(cudaMalloc(&d_temp, temp_bytes));

	CHECK(cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, n));
	CHECK(cudaMemcpy(got.data(), d_out, bytes, cudaMemcpyDeviceToHost));
	unsigned int sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (got[i] != sum) {
			fprintf(stderr, "cub: wrong at %zu\n", i);
			return 1;
		}
		sum += h[i];
	}

	cudaEvent_t a, b;
	CHECK(cudaEventCreate(&a));
	CHECK(cudaEventCreate(&b));
	std::vector<float> scan_ms, copy_ms;
	for (int i = 0; i < 3 + runs; i++) {	// 3 warm-ups, then the timed runs
		float ms;
		CHECK(cudaMemset(d_flush, 0, flush_bytes));
		CHECK(cudaEventRecord(a));
		CHECK(cub::DeviceScan::ExclusiveSum(d_temp, temp_bytes, d_in, d_out, n));
		CHECK(cudaEventRecord(b));
		CHECK(cudaEventSynchronize(b));
		CHECK(cudaEventElapsedTime(&ms, a, b));
		if (i >= 3)
			scan_ms.push_back(ms);
		CHECK(cudaMemset(d_flush, 0, flush_bytes));
		CHECK(cudaEventRecord(a));
		CHECK(cudaMemcpy(d_out, d_in, bytes, cudaMemcpyDeviceToDevice));
		CHECK(cudaEventRecord(b));
		CHECK(cudaEventSynchronize(b));
		CHECK(cudaEventElapsedTime(&ms, a, b));
		if (i >= 3)
			copy_ms.push_back(ms);
	}
	const float s = median(scan_ms), c = median(copy_ms);
	const double moved = 2.0 * (double)bytes;
	printf("cub n=2^%d runs=%d median_ms=%.4f copy_ms=%.4f gbps=%.0f copy_gbps=%.0f pct_of_copy=%.1f\n",
	       log2n, runs, s, c, moved / (s * 1e-3) / 1e9, moved / (c * 1e-3) / 1e9, 100.0 * c / s);
	return 0;
}
