/*
 * Conformance fixture, lab 1 (inclusive scan). Idioms: one-instruction
 * inline PTX as single-pass and reduce-then-scan code writes it: %laneid,
 * %warpid and the lane masks, ld.global.nc and st.global.cs (scalar and
 * v4), prefetch.global.L2, shfl.sync.up and shfl.sync.idx, bar.sync 0,
 * activemask, popc, brev, bfe, bfi, prmt and lop3; and CUB's scan step, a
 * block with its own registers, a shuffle's predicate and a predicated add.
 * Expected: passes on every size, on the emulator and on the GPU.
 */
#include <cuda_runtime.h>

#define BLOCK 256
#define WARPS (BLOCK / 32)

__device__ __forceinline__ unsigned int lane_id(void)
{
	unsigned int lane;
	asm("mov.u32 %0, %%laneid;" : "=r"(lane));
	return lane;
}

__device__ __forceinline__ unsigned int load_nc(const unsigned int *p)
{
	unsigned int v;
	asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(p));
	return v;
}

__device__ __forceinline__ void store_cs(unsigned int *p, unsigned int v)
{
	asm volatile("st.global.cs.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

__device__ __forceinline__ unsigned int shfl_up(unsigned int v, unsigned int d)
{
	unsigned int r;
	asm volatile("shfl.sync.up.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(v), "r"(d), "r"(0), "r"(0xffffffffu));
	return r;
}

__device__ __forceinline__ unsigned int shfl_idx(unsigned int v, unsigned int lane)
{
	unsigned int r;
	asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(lane));
	return r;
}

/* One step of an inclusive warp scan as CUB writes it: a block with
 * registers of its own, a shuffle's predicate output, a predicated add. */
__device__ __forceinline__ unsigned int scan_step(unsigned int v, unsigned int d)
{
	unsigned int r;
	asm volatile("{"
		     "  .reg .u32 r0;"
		     "  .reg .pred p;"
		     "  shfl.sync.up.b32 r0|p, %1, %2, %3, %4;"
		     "  @p add.u32 r0, r0, %5;"
		     "  mov.u32 %0, r0;"
		     "}"
		     : "=r"(r)
		     : "r"(v), "r"(d), "r"(0), "r"(0xffffffffu), "r"(v));
	return r;
}

/* Identities written with the bit instructions: each returns v. */
__device__ unsigned int bit_identities(unsigned int v)
{
	unsigned int a, b, lo, hi, p, l;
	asm("brev.b32 %0, %1;" : "=r"(a) : "r"(v));
	asm("brev.b32 %0, %1;" : "=r"(b) : "r"(a));
	asm("bfe.u32 %0, %1, 0, 16;" : "=r"(lo) : "r"(b));
	asm("bfe.u32 %0, %1, 16, 16;" : "=r"(hi) : "r"(b));
	asm("bfi.b32 %0, %1, %2, 16, 16;" : "=r"(p) : "r"(hi), "r"(lo));
	asm("prmt.b32 %0, %1, %2, 0x3210;" : "=r"(l) : "r"(p), "r"(0u));
	asm("lop3.b32 %0, %1, %2, %3, 0xf0;" : "=r"(a) : "r"(l), "r"(0x12345678u), "r"(~0u));
	return a;
}

__global__ void block_scan(const unsigned int *in, unsigned int *out, unsigned int *sums, size_t n)
{
	__shared__ unsigned int warp_total[WARPS];
	size_t i = blockIdx.x * (size_t)BLOCK + threadIdx.x;
	unsigned int lane = lane_id(), warp, lt, active, below;
	asm("mov.u32 %0, %%warpid;" : "=r"(warp));
	warp = threadIdx.x >> 5;	/* %warpid is the hardware's slot: used for nothing but reading */
	asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
	asm volatile("activemask.b32 %0;" : "=r"(active));
	asm("popc.b32 %0, %1;" : "=r"(below) : "r"(active & lt));
	if (below != lane)
		return;	/* a wrong lane mask: the block's output stays unwritten */
	if (i == 0)
		asm volatile("prefetch.global.L2 [%0];" ::"l"(in));
	unsigned int v = i < n ? bit_identities(load_nc(&in[i])) : 0;
	for (unsigned int d = 1; d < 32; d <<= 1) {
		unsigned int up = shfl_up(v, d);
		if (lane >= d)
			v += up;
	}
	if (lane == 31)
		warp_total[warp] = v;
	asm volatile("bar.sync 0;" ::: "memory");
	if (warp == 0) {
		unsigned int t = lane < WARPS ? warp_total[lane] : 0;
		for (unsigned int d = 1; d < WARPS; d <<= 1)
			t = scan_step(t, d);
		if (lane < WARPS)
			warp_total[lane] = t;
	}
	asm volatile("bar.sync 0;" ::: "memory");
	if (warp > 0)
		v += warp_total[warp - 1];
	if (i < n)
		store_cs(&out[i], v);
	unsigned int block_total = shfl_idx(v, 31);
	if (threadIdx.x == BLOCK - 1)
		sums[blockIdx.x] = block_total;
}

/* Four elements a thread, through 16-byte loads and stores where the
 * block's part of out is whole and aligned. */
__global__ void add_offsets(unsigned int *out, const unsigned int *scanned_sums, size_t n)
{
	size_t base = blockIdx.x * (size_t)BLOCK;
	if (blockIdx.x == 0 || threadIdx.x >= BLOCK / 4)
		return;
	unsigned int off = scanned_sums[blockIdx.x - 1];
	size_t i = base + 4 * threadIdx.x;
	if (i + 4 <= n) {
		unsigned int a, b, c, d;
		asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
			     : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(out + i));
		asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(out + i), "r"(a + off), "r"(b + off),
			     "r"(c + off), "r"(d + off) : "memory");
	} else {
		for (; i < n; i++)
			out[i] += off;
	}
}

static void scan_levels(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	size_t blocks = (n + BLOCK - 1) / BLOCK;
	unsigned int *sums;
	cudaMalloc(&sums, blocks * sizeof(unsigned int));
	block_scan<<<(unsigned int)blocks, BLOCK>>>(d_in, d_out, sums, n);
	if (blocks > 1) {
		unsigned int *scanned;
		cudaMalloc(&scanned, blocks * sizeof(unsigned int));
		scan_levels(sums, scanned, blocks);
		add_offsets<<<(unsigned int)blocks, BLOCK>>>(d_out, scanned, n);
		cudaFree(scanned);
	}
	cudaFree(sums);
}

extern "C" void scan_inclusive(const unsigned int *d_in, unsigned int *d_out, size_t n)
{
	scan_levels(d_in, d_out, n);
}
