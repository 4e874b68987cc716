/*
 * What nvcc accepts and the emulator once refused, found by compiling
 * course and book code nobody on the project wrote
 * (docs/results/emu-acceptance-2026-11-29.md): each idiom written anew,
 * small, and checked by its result. Each ax_ function returns the number
 * of wrong results (0 is right), or -1 on a CUDA error.
 */
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdlib.h>

#define CHECK(call)                                   \
	do {                                          \
		if ((call) != cudaSuccess)            \
			return -1;                    \
	} while (0)

__global__ void add_one(float *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] += 1.0f;
}

/* Zero-copy host memory: typed cudaHostAlloc with cudaHostAllocMapped, the
 * typed cudaHostGetDevicePointer, cudaHostRegister'd memory a kernel
 * writes, cudaMallocHost's and cudaEventCreate's flags overloads. */
extern "C" long ax_mapped_host_memory(void)
{
	const int n = 1000;
	float *h, *d, *reg = (float *)calloc(n, sizeof *reg), *d_reg, *pinned;
	long bad = 0;
	cudaEvent_t e;
	CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
	CHECK(cudaHostAlloc(&h, n * sizeof *h, cudaHostAllocMapped | cudaHostAllocPortable));
	for (int i = 0; i < n; i++)
		h[i] = (float)i;
	CHECK(cudaHostGetDevicePointer(&d, h, 0));
	add_one<<<(n + 127) / 128, 128>>>(d, n);
	CHECK(cudaHostRegister(reg, n * sizeof *reg, cudaHostRegisterMapped));
	CHECK(cudaHostGetDevicePointer((void **)&d_reg, reg, 0));
	add_one<<<(n + 127) / 128, 128>>>(d_reg, n);
	CHECK(cudaDeviceSynchronize());
	for (int i = 0; i < n; i++)
		bad += h[i] != (float)i + 1.0f || reg[i] != 1.0f;
	/* A pointer the runtime never saw has no device address. */
	bad += cudaHostGetDevicePointer(&d, &bad, 0) != cudaErrorInvalidValue;
	(void)cudaGetLastError();
	CHECK(cudaHostUnregister(reg));
	CHECK(cudaFreeHost(h));
	CHECK(cudaMallocHost(&pinned, 64, cudaHostAllocDefault));
	CHECK(cudaFreeHost(pinned));
	CHECK(cudaMallocHost((void **)&pinned, 64, cudaHostAllocWriteCombined));
	CHECK(cudaFreeHost(pinned));
	CHECK(cudaEventCreate(&e, cudaEventDisableTiming));
	CHECK(cudaEventRecord(e));
	CHECK(cudaEventSynchronize(e));
	CHECK(cudaEventDestroy(e));
	free(reg);
	return bad;
}

/* The intrinsics with a rounding mode in their name, the halves of a
 * double, __dp2a, CUDA's one- and three-element and long vector types, and
 * half pairs to float2: each against a value worked out by hand. */
__global__ void rounding_and_vectors(double *o)
{
	uchar3 c = make_uchar3(1, 2, 3);
	int1 i1 = make_int1(4);
	long2 l2 = make_long2(5, 6);
	ulonglong3 u3 = make_ulonglong3(7, 8, 9);
	o[0] = c.x + c.z + i1.x + l2.y + u3.z;				/* 23 */
	o[1] = __fadd_rd(1.0f, 1e-10f);					/* 1 */
	o[2] = __fadd_ru(1.0f, 1e-10f);					/* 1 + 2^-23 */
	o[3] = __fdiv_rz(1.0f, 3.0f) < __fdiv_ru(1.0f, 3.0f);		/* one step apart */
	o[4] = (double)__int2float_rd(16777217) + __int2float_ru(16777217); /* 2^24 + 2^24 + 2 */
	o[5] = __ll2float_rz(-16777217LL);				/* -2^24 */
	o[6] = __hiloint2double(__double2hiint(2.5), __double2loint(2.5));
	o[7] = __dp2a_lo(0x00020003, 0x0504, 1) + __dp2a_hi(0x00020003u, 0x05040000u, 1u); /* 23 + 23 */
	float2 f = __half22float2(__floats2half2_rn(1.5f, 2.5f));
	o[8] = f.x + f.y;						/* 4 */
	o[9] = __dsqrt_ru(2.0) - __dsqrt_rd(2.0);			/* 2^-52 */
	o[10] = __float2ll_rd(-2.5f) + __float2ull_ru(2.5f);		/* -3 + 3 */
	o[11] = __dmul_rz(-1.0 / 3.0, 3.0);	/* -(1 - 2^-54) exactly: -1 to nearest, -1 + 2^-53 toward 0 */
}

extern "C" long ax_rounding_and_vectors(void)
{
	static const double want[12] = { 23, 1, 1 + 0x1p-23, 1, 0x1p25 + 2, -0x1p24, 2.5, 46, 4,
					 0x1p-52, 0, -1 + 0x1p-53 };
	double *d, h[12];
	long bad = 0;
	CHECK(cudaMalloc(&d, sizeof h));
	rounding_and_vectors<<<1, 1>>>(d);
	CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(d));
	for (int i = 0; i < 12; i++)
		bad += h[i] != want[i];
	return bad;
}

/* One added to every element of a pitched 3-D volume of nx x ny x nz floats. */
__global__ void add_one_3d(cudaPitchedPtr v, int nx, int ny, int nz)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
	if (x < nx && y < ny && z < nz)
		((float *)((char *)v.ptr + ((size_t)z * v.ysize + y) * v.pitch))[x] += 1.0f;
}

/* Multi-GPU code on the one emulated device (no peer, copies to itself),
 * pointer attributes, and a pitched volume: cudaMalloc3D, cudaMemset3D,
 * cudaMemcpy3D in, and a sub-box of it out with positions on both sides. */
extern "C" long ax_peer_and_3d(void)
{
	enum { NX = 37, NY = 5, NZ = 3 };
	float h[NZ][NY][NX], box[2][2][4], *d1, *d2, *pinned;
	int count = 0, can = 7;
	long bad = 0;
	cudaPointerAttributes a;
	CHECK(cudaGetDeviceCount(&count));
	for (int dev = 0; dev < count; dev++) {
		CHECK(cudaSetDevice(dev));
		CHECK(cudaDeviceCanAccessPeer(&can, dev, 0));
		bad += can != 0;
	}
	bad += cudaDeviceEnablePeerAccess(1, 0) != cudaErrorInvalidDevice;
	(void)cudaGetLastError();
	CHECK(cudaMalloc(&d1, 64));
	CHECK(cudaMalloc(&d2, 64));
	CHECK(cudaMemset(d1, 0, 64));
	CHECK(cudaMemcpyPeer(d2, 0, d1, 0, 64));
	CHECK(cudaPointerGetAttributes(&a, d2));
	bad += a.type != cudaMemoryTypeDevice || a.devicePointer != d2;
	CHECK(cudaMallocHost(&pinned, 64));
	CHECK(cudaPointerGetAttributes(&a, pinned));
	bad += a.type != cudaMemoryTypeHost || a.hostPointer != pinned;
	CHECK(cudaPointerGetAttributes(&a, &count));
	bad += a.type != cudaMemoryTypeUnregistered;
	CHECK(cudaFreeHost(pinned));
	CHECK(cudaFree(d1));
	CHECK(cudaFree(d2));

	cudaExtent ext = make_cudaExtent(NX * sizeof(float), NY, NZ);
	cudaPitchedPtr v;
	CHECK(cudaMalloc3D(&v, ext));
	bad += v.pitch < NX * sizeof(float) || v.xsize != NX * sizeof(float) || v.ysize != NY;
	CHECK(cudaMemset3D(v, 0, ext));
	for (int z = 0; z < NZ; z++)
		for (int y = 0; y < NY; y++)
			for (int x = 0; x < NX; x++)
				h[z][y][x] = (float)(z * 10000 + y * 100 + x);
	cudaMemcpy3DParms in = {};
	in.srcPtr = make_cudaPitchedPtr(h, NX * sizeof(float), NX, NY);
	in.dstPtr = v;
	in.extent = ext;
	in.kind = cudaMemcpyHostToDevice;
	CHECK(cudaMemcpy3D(&in));
	add_one_3d<<<dim3(1, NY, NZ), 64>>>(v, NX, NY, NZ);
	cudaMemcpy3DParms out = {};
	out.srcPtr = v;
	out.srcPos = make_cudaPos(3 * sizeof(float), 2, 1);	/* x in bytes */
	out.dstPtr = make_cudaPitchedPtr(box, 4 * sizeof(float), 4, 2);
	out.extent = make_cudaExtent(4 * sizeof(float), 2, 2);
	out.kind = cudaMemcpyDeviceToHost;
	CHECK(cudaMemcpy3DAsync(&out, 0));
	CHECK(cudaDeviceSynchronize());
	for (int z = 0; z < 2; z++)
		for (int y = 0; y < 2; y++)
			for (int x = 0; x < 4; x++)
				bad += box[z][y][x] != h[z + 1][y + 2][x + 3] + 1.0f;
	CHECK(cudaFree(v.ptr));
	return bad;
}

/* CUDA's math API beyond the C library's, and isnan and friends called
 * without std:: as nvcc's headers allow: against published values. */
__global__ void math_api(double *o, const float *in)
{
	o[0] = erfinv(0.5);
	o[1] = erfcinv(1e-10);
	o[2] = normcdfinv(0.975);
	o[3] = normcdf(1.96);
	o[4] = erfcx(1.0);
	o[5] = cyl_bessel_i0(1.0);
	o[6] = cyl_bessel_i1f(1.0f);
	o[7] = sinpi(1.0) + cospi(0.5) + sinpif(0.5f);
	o[8] = rcbrtf(8.0f) + rhypot(3.0, 4.0) + norm3d(2.0, 3.0, 6.0) + rnorm4df(1, 1, 1, 1);
	o[9] = isnan(in[0]) + 2 * isinf(in[1]) + 4 * !isfinite(in[2]) + 8 * signbit(in[3]);
}

extern "C" long ax_math_api(void)
{
	static const double want[10] = { 0.4769362762044699, 4.572824967389486, 1.959963984540054,
					 0.9750021048517795, 0.4275835761558070, 1.2660658777520082,
					 0.5651591039924851, 1, 0.5 + 0.2 + 7 + 0.5, 1 + 2 + 4 + 8 };
	const float h_in[4] = { __builtin_nanf(""), __builtin_inff(), -__builtin_inff(), -0.0f };
	double *d, h[10];
	float *in;
	long bad = 0;
	CHECK(cudaMalloc(&d, sizeof h));
	CHECK(cudaMalloc(&in, sizeof h_in));
	CHECK(cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
	math_api<<<1, 1>>>(d, in);
	CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(d));
	CHECK(cudaFree(in));
	for (int i = 0; i < 10; i++)	/* float results (6, 8) to float's precision */
		bad += !(fabs(h[i] - want[i]) <= (i == 6 || i == 8 ? 1e-6 : 1e-14) * fabs(want[i]));
	return bad;
}

/* __isGlobal and friends on each kind of address, the address conversions,
 * half-precision atomic additions from every thread of two blocks. */
__global__ void spaces_and_half_atomics(const float *buf, unsigned *flags, __half *h, __half2 *h2)
{
	__shared__ float tile[64];
	extern __shared__ float dyn[];
	float local = buf[0];
	unsigned f = __isGlobal(buf) | __isShared(tile) << 1 | __isShared(dyn) << 2 | __isLocal(&local) << 3 |
		     !__isGlobal(&local) << 4 | !__isShared(buf) << 5 |
		     (__cvta_shared_to_generic(__cvta_generic_to_shared(tile)) == (void *)tile) << 6 |
		     !__isConstant(buf) << 7;
	tile[threadIdx.x] = local;
	if (threadIdx.x == 0)
		flags[blockIdx.x] = f;
	atomicAdd(h, __float2half(1.0f));
	atomicAdd(h2, __floats2half2_rn(1.0f, 2.0f));
}

extern "C" long ax_spaces_and_half_atomics(void)
{
	float *buf;
	unsigned *flags, hf[2];
	__half *h, hh;
	__half2 *h2, hh2;
	CHECK(cudaMalloc(&buf, 64 * sizeof *buf));
	CHECK(cudaMalloc(&flags, sizeof hf));
	CHECK(cudaMalloc(&h, sizeof *h));
	CHECK(cudaMalloc(&h2, sizeof *h2));
	CHECK(cudaMemset(buf, 0, 64 * sizeof *buf));
	CHECK(cudaMemset(h, 0, sizeof *h));
	CHECK(cudaMemset(h2, 0, sizeof *h2));
	spaces_and_half_atomics<<<2, 64, 64 * sizeof(float)>>>(buf, flags, h, h2);
	CHECK(cudaMemcpy(hf, flags, sizeof hf, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&hh, h, sizeof hh, cudaMemcpyDeviceToHost));
	CHECK(cudaMemcpy(&hh2, h2, sizeof hh2, cudaMemcpyDeviceToHost));
	CHECK(cudaFree(buf));
	CHECK(cudaFree(flags));
	CHECK(cudaFree(h));
	CHECK(cudaFree(h2));
	return (hf[0] != 0xff) + (hf[1] != 0xff) + (__half2float(hh) != 128.0f) +
	       (__low2float(hh2) != 128.0f) + (__high2float(hh2) != 256.0f);
}

__global__ void trap_on_the_fifth(void)
{
	if (threadIdx.x == 5)
		__trap();
}

/* __trap ends the kernel as a failed assert does: the process stops. */
extern "C" void ax_trap(void)
{
	trap_on_the_fifth<<<1, 32>>>();
	cudaDeviceSynchronize();
}

/* Unified memory hints in both generations: a device number (before CUDA
 * 13) and a cudaMemLocation (CUDA 13), and the CPU as the place; managed
 * memory is freed with cudaFree, as every unified memory tutorial does. */
extern "C" long ax_unified_memory_hints(void)
{
	float *m;
	long bad = 0;
	CHECK(cudaMallocManaged(&m, 4096));
	CHECK(cudaMemAdvise(m, 4096, cudaMemAdviseSetReadMostly, 0));
	CHECK(cudaMemAdvise(m, 4096, cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId));
	cudaMemLocation dev = { cudaMemLocationTypeDevice, 0 }, host = { cudaMemLocationTypeHost, 0 };
	CHECK(cudaMemAdvise(m, 4096, cudaMemAdviseSetAccessedBy, dev));
	CHECK(cudaMemPrefetchAsync(m, 4096, dev, 0));
	CHECK(cudaMemPrefetchAsync(m, 4096, host, 0, 0));
	CHECK(cudaMemPrefetchAsync(m, 4096, 0));
	bad += cudaMemAdvise(m, 4096, cudaMemAdviseSetReadMostly, 3) != cudaErrorInvalidDevice;
	(void)cudaGetLastError();
	CHECK(cudaDeviceSynchronize());
	CHECK(cudaFree(m));
	return bad;
}

/* A device query's fields beyond the common ones (CUDA 13's struct). */
extern "C" long ax_device_query_fields(void)
{
	cudaDeviceProp p;
	CHECK(cudaGetDeviceProperties(&p, 0));
	return (p.streamPrioritiesSupported != 1) + (p.tccDriver != 0) + (p.maxTexture2D[1] != 0) +
	       (p.concurrentManagedAccess != 1) + (p.surfaceAlignment != 0) + (p.hostNumaId != 0) +
	       (p.warpSize != 32);
}

template <int K> __global__ void add_k(int *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] += K;
}

__global__ void scale_into(int *out, const int *in, int n, float by)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = (int)(in[i] * by);
}

/* Launches through the runtime's API: cudaLaunchKernel with the kernel cast
 * to a void pointer in its usual spellings, a template's instance, the
 * arguments as an array of pointers (parameters of four types), the shared
 * size and stream left out. The launcher is the one of <<< >>>. */
extern "C" long ax_launch_kernel_api(void)
{
	const int n = 1000;
	int *in, *out, h[1000];
	float by = 3.0f;
	long bad = 0;
	CHECK(cudaMalloc(&in, n * sizeof *in));
	CHECK(cudaMalloc(&out, n * sizeof *out));
	for (int i = 0; i < n; i++)
		h[i] = i;
	CHECK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
	void *scale_args[] = { &out, &in, (void *)&n, &by };
	CHECK(cudaLaunchKernel((void *)scale_into, dim3((n + 255) / 256), dim3(256), scale_args, 0, 0));
	void *add_args[] = { &out, (void *)&n };
	CHECK(cudaLaunchKernel((const void *)&add_k<2>, (n + 127) / 128, 128, add_args));
	CHECK(cudaLaunchKernel(reinterpret_cast<void *>(add_k<5>), dim3(4), dim3(256), add_args, 0, 0));
	CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++)
		bad += h[i] != 3 * i + 7;
	CHECK(cudaFree(in));
	CHECK(cudaFree(out));
	return bad;
}
