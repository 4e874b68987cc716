/*
 * The SIMD and DPX intrinsics (every row of ../simd_ops.h) on words the
 * test chose, and cuComplex.h, the directed-rounding fma forms and __fns
 * on values where the scaling, the fusing or the rounding shows. The test
 * (test_simd.c) holds the references; these only run the intrinsics in
 * device code. Each returns 0, or -1 on a CUDA error.
 */
#include <cuComplex.h>
#include <cuda_runtime.h>

#include "../simd_ops.h"

#define CHECK(call)                                   \
	do {                                          \
		if ((call) != cudaSuccess)            \
			return -1;                    \
	} while (0)

#define SIMD_CALL_1(f) f(x)
#define SIMD_CALL_2(f) f(x, y)
#define SIMD_CALL_3(f) f(x, y, z)
#define SIMD_CALL_B(f) f(x, y, &lo)
#define SIMD_CALL_P(f) f(x, y, &hi, &lo)

/* Two words an input and a row: the result, then the predicates (bit 0 the
 * low halfword's or the only one, bit 1 the high halfword's). */
__global__ void simd_all(const unsigned *a, const unsigned *b, const unsigned *c, unsigned *out, int n,
			 int rows)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	unsigned x = a[i], y = b[i], z = c[i], *o = out + (size_t)i * rows * 2;
	bool hi, lo;
	(void)y;
	(void)z;
#define X(name, args, w, op, kind)                                 \
	hi = lo = false;                                           \
	o[0] = (unsigned)SIMD_CALL_##args(name);                   \
	o[1] = (unsigned)lo | (unsigned)hi << 1;                   \
	o += 2;
	SIMD_OPS(X)
#undef X
}

extern "C" long sx_simd(const unsigned *a, const unsigned *b, const unsigned *c, int n, unsigned *out,
			int rows)
{
	unsigned *d;
	size_t words = (size_t)n * 3, outs = (size_t)n * rows * 2;
	CHECK(cudaMalloc(&d, (words + outs) * sizeof *d));
	CHECK(cudaMemcpy(d, a, n * sizeof *d, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(d + n, b, n * sizeof *d, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(d + 2 * n, c, n * sizeof *d, cudaMemcpyHostToDevice));
	simd_all<<<(n + 63) / 64, 64>>>(d, d + n, d + 2 * n, d + words, n, rows);
	CHECK(cudaMemcpy(out, d + words, outs * sizeof *d, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(d));
	return 0;
}

/* Per pair (x[i], y[i], z[i]) of float complex values: add, sub, mul, div,
 * conj, fma, then |x| and the round trip through double; the same in
 * double: 16 floats and 16 doubles an input. */
__global__ void complex_all(const float *f, const double *g, float *fo, double *go, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	cuFloatComplex x = make_cuFloatComplex(f[6 * i], f[6 * i + 1]);
	cuComplex y = make_cuComplex(f[6 * i + 2], f[6 * i + 3]);
	cuFloatComplex z = make_cuFloatComplex(f[6 * i + 4], f[6 * i + 5]);
	cuFloatComplex r[7] = { cuCaddf(x, y), cuCsubf(x, y), cuCmulf(x, y), cuCdivf(x, y), cuConjf(x),
				cuCfmaf(x, y, z), cuComplexDoubleToFloat(cuComplexFloatToDouble(x)) };
	for (int k = 0; k < 7; k++) {
		fo[16 * i + 2 * k] = cuCrealf(r[k]);
		fo[16 * i + 2 * k + 1] = cuCimagf(r[k]);
	}
	fo[16 * i + 14] = cuCabsf(x);
	fo[16 * i + 15] = cuCabsf(y);
	cuDoubleComplex u = make_cuDoubleComplex(g[6 * i], g[6 * i + 1]);
	cuDoubleComplex v = make_cuDoubleComplex(g[6 * i + 2], g[6 * i + 3]);
	cuDoubleComplex w = make_cuDoubleComplex(g[6 * i + 4], g[6 * i + 5]);
	cuDoubleComplex s[7] = { cuCadd(u, v), cuCsub(u, v), cuCmul(u, v), cuCdiv(u, v), cuConj(u),
				 cuCfma(u, v, w), cuComplexFloatToDouble(cuComplexDoubleToFloat(u)) };
	for (int k = 0; k < 7; k++) {
		go[16 * i + 2 * k] = cuCreal(s[k]);
		go[16 * i + 2 * k + 1] = cuCimag(s[k]);
	}
	go[16 * i + 14] = cuCabs(u);
	go[16 * i + 15] = cuCabs(v);
}

extern "C" long sx_complex(const float *f, const double *g, int n, float *fo, double *go)
{
	float *df, *dfo;
	double *dg, *dgo;
	CHECK(cudaMalloc(&df, 6 * n * sizeof *df));
	CHECK(cudaMalloc(&dg, 6 * n * sizeof *dg));
	CHECK(cudaMalloc(&dfo, 16 * n * sizeof *dfo));
	CHECK(cudaMalloc(&dgo, 16 * n * sizeof *dgo));
	CHECK(cudaMemcpy(df, f, 6 * n * sizeof *df, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(dg, g, 6 * n * sizeof *dg, cudaMemcpyHostToDevice));
	complex_all<<<(n + 31) / 32, 32>>>(df, dg, dfo, dgo, n);
	CHECK(cudaMemcpy(fo, dfo, 16 * n * sizeof *fo, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(go, dgo, 16 * n * sizeof *go, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(df));
	CHECK(cudaFree(dg));
	CHECK(cudaFree(dfo));
	CHECK(cudaFree(dgo));
	return 0;
}

/* fma in the four roundings, for floats (a, b, c of f) and doubles (the
 * float2 pair forms are sm_100's: nvcc builds this file with -arch=sm_100):
 * rn, rz, rd, ru, then the _ieee forms and the float2 pair forms. */
__global__ void fma_modes(const float *f, const double *g, float *fo, double *go, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float a = f[3 * i], b = f[3 * i + 1], c = f[3 * i + 2];
	double p = g[3 * i], q = g[3 * i + 1], r = g[3 * i + 2];
	float2 two = __ffma2_ru(make_float2(a, a), make_float2(b, b), make_float2(c, c));
	float *o = fo + 10 * i;
	o[0] = __fmaf_rn(a, b, c);
	o[1] = __fmaf_rz(a, b, c);
	o[2] = __fmaf_rd(a, b, c);
	o[3] = __fmaf_ru(a, b, c);
	o[4] = __fmaf_ieee_rn(a, b, c);
	o[5] = __fmaf_ieee_rz(a, b, c);
	o[6] = __fmaf_ieee_rd(a, b, c);
	o[7] = __fmaf_ieee_ru(a, b, c);
	o[8] = two.x;
	o[9] = __fadd2_rd(make_float2(a, b), make_float2(c, c)).y;
	go[4 * i] = __fma_rn(p, q, r);
	go[4 * i + 1] = __fma_rz(p, q, r);
	go[4 * i + 2] = __fma_rd(p, q, r);
	go[4 * i + 3] = __fma_ru(p, q, r);
}

extern "C" long sx_fma_modes(const float *f, const double *g, int n, float *fo, double *go)
{
	float *df, *dfo;
	double *dg, *dgo;
	CHECK(cudaMalloc(&df, 3 * n * sizeof *df));
	CHECK(cudaMalloc(&dg, 3 * n * sizeof *dg));
	CHECK(cudaMalloc(&dfo, 10 * n * sizeof *dfo));
	CHECK(cudaMalloc(&dgo, 4 * n * sizeof *dgo));
	CHECK(cudaMemcpy(df, f, 3 * n * sizeof *df, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(dg, g, 3 * n * sizeof *dg, cudaMemcpyHostToDevice));
	fma_modes<<<1, n>>>(df, dg, dfo, dgo, n);
	CHECK(cudaMemcpy(fo, dfo, 10 * n * sizeof *fo, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(go, dgo, 4 * n * sizeof *go, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(df));
	CHECK(cudaFree(dg));
	CHECK(cudaFree(dfo));
	CHECK(cudaFree(dgo));
	return 0;
}

__global__ void fns_all(const unsigned *in, unsigned *out, int n)
{
	int i = threadIdx.x;
	if (i < n)
		out[i] = __fns(in[3 * i], in[3 * i + 1], (int)in[3 * i + 2]);
}

/* __fns(mask, base, offset) of each triple of in. */
extern "C" long sx_fns(const unsigned *in, int n, unsigned *out)
{
	unsigned *d;
	CHECK(cudaMalloc(&d, 4 * n * sizeof *d));
	CHECK(cudaMemcpy(d, in, 3 * n * sizeof *d, cudaMemcpyHostToDevice));
	fns_all<<<1, n>>>(d, d + 3 * n, n);
	CHECK(cudaMemcpy(out, d + 3 * n, n * sizeof *d, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(d));
	return 0;
}
