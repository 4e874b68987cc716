/*
 * Conformance fixture, lab 1 (inclusive scan). Idioms: the SIMD intrinsics
 * (__vaddus4, __vsubus4, __vminu4, __vmaxu4, __vcmpgtu4, __vcmpeq4,
 * __vcmpges4, __vaddss4, __vavgs2, __vcmpges2, __vneg2, __vabsss2,
 * __vnegss2, __vmaxs2, __vsadu4, __dp4a, __vimax3_u32, __viaddmin_u16x2),
 * __byte_perm, __fns, and cuComplex.h: each element passes through
 * identities (the saturating sum of a difference and a minimum, a byte swap
 * twice, the halfwords as a complex number through cuCaddf, cuCsubf,
 * cuCmulf, cuCdivf, cuCfmaf and back), and every check that is 0 when the
 * intrinsics compute right is added to it, so the scan is the lab's only
 * then. The complex values are small integers, so every product and
 * quotient is exact and fused or not the GPU gives the same bits.
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cuComplex.h>
#include <cuda_runtime.h>

#define BLOCK 256

/* 0 when the byte and halfword intrinsics agree with one another on v and k. */
__device__ unsigned int simd_checks(unsigned int v, unsigned int k)
{
	/* (v - k, saturated at 0) + min(v, k) is v in every byte */
	unsigned int c = __vaddus4(__vsubus4(v, k), __vminu4(v, k)) ^ v;
	/* a byte mask from a comparison picks the maximum */
	unsigned int gt = __vcmpgtu4(v, k);
	c |= ((v & gt) | (k & ~gt)) ^ __vmaxu4(v, k);
	/* a signed byte plus 127 saturates to 127 exactly where it is >= 0 */
	c |= __vcmpeq4(__vaddss4(v, 0x7f7f7f7fu), 0x7f7f7f7fu) ^ __vcmpges4(v, 0u);
	/* the average of a halfword and its neighbour rounds half away from zero */
	unsigned int ge = __vcmpges2(v, 0u);
	unsigned int want = ((v | 0x00010001u) & ge) | (v & ~0x00010001u & ~ge);
	c |= __vavgs2(v, v ^ 0x00010001u) ^ want;
	/* negation wraps, |x| saturates where -x does */
	c |= __vadd2(__vneg2(v), v);
	c |= __vabsss2(v) ^ __vmaxs2(v, __vnegss2(v));
	/* the sum of the bytes, twice */
	c |= __vsadu4(v, 0u) - __dp4a(v, 0x01010101u, 0u);
	/* the DPX three-way max and add-then-min */
	c |= __vimax3_u32(v, k, 0u) ^ (v > k ? v : k);
	c |= __viaddmin_u16x2(v, 0u, 0xffffffffu) ^ v;
	/* the highest set bit from bit 31 down, as __clz sees it */
	c |= v ? __fns(v, 31, -1) ^ (31u - (unsigned int)__clz((int)v)) : __fns(v, 0, 1) ^ 0xffffffffu;
	return c;
}

/* v through its two halfwords as a complex number and back. */
__device__ unsigned int through_complex(unsigned int v)
{
	cuFloatComplex z = make_cuFloatComplex((float)(v & 0xffffu), (float)(v >> 16));
	cuFloatComplex one_two = make_cuComplex(1.0f, 2.0f);
	z = cuCsubf(cuCaddf(z, one_two), one_two);
	z = cuCmulf(z, make_cuFloatComplex(2.0f, 0.0f));	/* 2z */
	z = cuCdivf(z, make_cuFloatComplex(0.0f, 4.0f));	/* 2z / 4i = -iz / 2 */
	z = cuCfmaf(z, make_cuFloatComplex(0.0f, 2.0f), make_cuFloatComplex(0.5f, 0.5f)); /* z + 0.5(1+i) */
	z = cuCsubf(z, make_cuFloatComplex(0.5f, 0.5f));
	cuDoubleComplex d = cuCadd(cuComplexFloatToDouble(z), make_cuDoubleComplex(0.0, 0.0));
	z = cuComplexDoubleToFloat(d);
	/* |(3 + 4i) m| = 5m exactly: 0 when cuCabsf scales right */
	float m = (float)(v & 0xffu);
	unsigned int c = cuCabsf(make_cuFloatComplex(3.0f * m, 4.0f * m)) == 5.0f * m ? 0u : 1u;
	/* where only the scaling keeps the result in range: (3e38 + 1e38i) /
	 * (1e38 + 1e38i) = 2 - i and |3e38 + 1e38i| = 3.1623e38 (near, not
	 * exact: fused or not, the last bit may differ) */
	cuFloatComplex big = make_cuFloatComplex(3e38f, 1e38f);
	cuFloatComplex q = cuCdivf(big, make_cuFloatComplex(1e38f, 1e38f));
	c += fabsf(q.x - 2.0f) < 1e-3f && fabsf(q.y + 1.0f) < 1e-3f ? 0u : 2u;
	c += fabsf(cuCabsf(big) / 3.1622777e38f - 1.0f) < 1e-6f ? 0u : 4u;
	return ((unsigned int)cuCimagf(z) << 16 | (unsigned int)cuCrealf(z)) + c;
}

/* Each element made again from its identities, then a block's inclusive
 * scan in shared memory (Hillis and Steele, two buffers); the block's total
 * to sums. */
__global__ void simd_block_scan(const unsigned int *in, unsigned int *out, unsigned int *sums, size_t n)
{
	__shared__ unsigned int buf[2][BLOCK];
	size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x;
	unsigned int v = 0;
	if (i < n) {
		unsigned int x = in[i], k = (unsigned int)i * 0x9e3779b9u;
		unsigned int swapped = __byte_perm(__byte_perm(x, 0u, 0x0123), 0u, 0x0123);
		v = through_complex(swapped) + simd_checks(x, k) + simd_checks(k, x);
	}
	int cur = 0;
	buf[cur][threadIdx.x] = v;
	__syncthreads();
	for (unsigned int d = 1; d < BLOCK; d <<= 1) {
		unsigned int s = buf[cur][threadIdx.x];
		if (threadIdx.x >= d)
			s += buf[cur][threadIdx.x - d];
		buf[cur ^ 1][threadIdx.x] = s;
		cur ^= 1;
		__syncthreads();
	}
	if (i < n)
		out[i] = buf[cur][threadIdx.x];
	if (threadIdx.x == BLOCK - 1)
		sums[blockIdx.x] = buf[cur][threadIdx.x];
}

__global__ void add_block_offsets(unsigned int *out, const unsigned int *scanned_sums, size_t n)
{
	size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x;
	if (i < n && blockIdx.x > 0)
		out[i] += scanned_sums[blockIdx.x - 1];
}

/* Block sums are scanned by the same kernel: their identities hold too. */
static void scan_levels(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	size_t blocks = (n + BLOCK - 1) / BLOCK;
	unsigned int *sums;
	cudaMalloc(&sums, blocks * sizeof(unsigned int));
	simd_block_scan<<<(unsigned int)blocks, BLOCK>>>(d_in, d_out, sums, n);
	if (blocks > 1) {
		unsigned int *scanned;
		cudaMalloc(&scanned, blocks * sizeof(unsigned int));
		scan_levels(sums, scanned, blocks);
		add_block_offsets<<<(unsigned int)blocks, BLOCK>>>(d_out, scanned, n);
		cudaFree(scanned);
	}
	cudaFree(sums);
}

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	scan_levels(d_in, d_out, n);
}
