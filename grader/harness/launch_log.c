/* The student's kernel launches, recorded on their way to the runtime (see launch_log.h). */
#include "launch_log.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

#define MAX_CONFIGS 32
#define MAX_HANDLES 256

struct launch {
	const void *fn;		/* the kernel's host stub: what the occupancy API takes */
	unsigned grid, threads;
	size_t shared;
	long count;
};

static struct launch launches[MAX_CONFIGS];
static int n_launches, overflow;
static int depth;		/* a runtime launch calling another is one launch */

/* Since CUDA 13, <<<>>> launches through a kernel handle from
 * __cudaGetKernel; the occupancy API wants the host stub, so remember which
 * is which. */
static struct {
	const void *handle, *fn;
} handles[MAX_HANDLES];
static int n_handles;

static const void *stub_of(const void *kernel)
{
	for (int i = 0; i < n_handles; i++)
		if (handles[i].handle == kernel)
			return handles[i].fn;
	return kernel;
}

static void record(const void *kernel, dim3 grid, dim3 block, size_t shared)
{
	const void *fn = stub_of(kernel);
	unsigned g = grid.x * grid.y * grid.z, t = block.x * block.y * block.z;
	for (int i = 0; i < n_launches; i++)
		if (launches[i].fn == fn && launches[i].grid == g && launches[i].threads == t &&
		    launches[i].shared == shared) {
			launches[i].count++;
			return;
		}
	if (n_launches == MAX_CONFIGS) {
		overflow = 1;
		return;
	}
	launches[n_launches++] = (struct launch){ fn, g, t, shared, 1 };
}

void launch_log_reset(void)
{
	n_launches = 0;
	overflow = 0;
}

#define WRAP_LAUNCH(name)                                                                           \
	cudaError_t __real_##name(const void *kernel, dim3 grid, dim3 block, void **args, size_t shared, \
				  cudaStream_t stream);                                             \
	cudaError_t __wrap_##name(const void *kernel, dim3 grid, dim3 block, void **args, size_t shared, \
				  cudaStream_t stream);                                             \
	cudaError_t __wrap_##name(const void *kernel, dim3 grid, dim3 block, void **args, size_t shared, \
				  cudaStream_t stream)                                              \
	{                                                                                           \
		if (depth == 0)                                                                     \
			record(kernel, grid, block, shared);                                        \
		depth++;                                                                            \
		cudaError_t e = __real_##name(kernel, grid, block, args, shared, stream);           \
		depth--;                                                                            \
		return e;                                                                           \
	}

WRAP_LAUNCH(cudaLaunchKernel)
WRAP_LAUNCH(cudaLaunchKernel_ptsz)

#if CUDART_VERSION >= 13000
WRAP_LAUNCH(__cudaLaunchKernel)
WRAP_LAUNCH(__cudaLaunchKernel_ptsz)

cudaError_t __real___cudaGetKernel(const void **handle, const void *fn);
cudaError_t __wrap___cudaGetKernel(const void **handle, const void *fn);
cudaError_t __wrap___cudaGetKernel(const void **handle, const void *fn)
{
	cudaError_t e = __real___cudaGetKernel(handle, fn);
	if (e == cudaSuccess && handle && n_handles < MAX_HANDLES) {
		handles[n_handles].handle = *handle;
		handles[n_handles].fn = fn;
		n_handles++;
	}
	return e;
}
#endif

/* Kernel names are the compiler's (mangled C++), made safe for a JSON string. */
static void json_name(const char *s, char *out, size_t len)
{
	size_t o = 0;
	for (; s && *s && o + 1 < len; s++)
		out[o++] = (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20) ? '?' : *s;
	out[o] = '\0';
}

size_t launch_log_json(char *buf, size_t len, size_t at)
{
	int max_warps = 64;
	struct cudaDeviceProp p;
	if (cudaGetDeviceProperties(&p, 0) == cudaSuccess && p.warpSize > 0)
		max_warps = p.maxThreadsPerMultiProcessor / p.warpSize;
	at += (size_t)snprintf(buf + at, at < len ? len - at : 0, ",\"launches_overflow\":%s,\"launches\":[",
			       overflow ? "true" : "false");
	for (int i = 0; i < n_launches && at < len; i++) {
		const struct launch *l = &launches[i];
		struct cudaFuncAttributes a;
		const char *raw = NULL;
		char name[160];
		int blocks = -1, regs = -1, static_shared = -1;
		if (cudaFuncGetAttributes(&a, l->fn) == cudaSuccess) {
			regs = a.numRegs;
			static_shared = (int)a.sharedSizeBytes;
		}
		if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, l->fn, (int)l->threads, l->shared) !=
		    cudaSuccess)
			blocks = -1;
#if CUDART_VERSION >= 12030
		if (cudaFuncGetName(&raw, l->fn) != cudaSuccess)
			raw = NULL;
#endif
		cudaGetLastError();
		json_name(raw ? raw : "?", name, sizeof(name));
		int warps = blocks < 0 ? -1 : blocks * (int)((l->threads + 31) / 32);
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0,
				       "%s{\"kernel\":\"%s\",\"grid\":%u,\"threads\":%u,\"dynamic_shared\":%zu,"
				       "\"static_shared\":%d,\"registers\":%d,\"blocks_per_sm\":%d,"
				       "\"warps_per_sm\":%d,\"occupancy\":%.6f,\"count\":%ld}",
				       i ? "," : "", name, l->grid, l->threads, l->shared, static_shared, regs,
				       blocks, warps, warps < 0 ? -1.0 : (double)warps / max_warps, l->count);
	}
	at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "]");
	return at;
}
