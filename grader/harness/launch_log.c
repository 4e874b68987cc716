/* The student's kernel launches, as launch_wrap.c hands them over (see launch_log.h). */
#include "launch_log.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONFIGS 32
#define MAX_HANDLES 256

struct launch {
	const void *fn;		/* the kernel's host stub: what the occupancy API takes */
	unsigned grid[3], block[3];
	size_t shared;
	long count;
};

static struct launch launches[MAX_CONFIGS];
static int n_launches, overflow, paused;

/* Since CUDA 13, <<<>>> launches through a kernel handle from
 * __cudaGetKernel; the occupancy API wants the host stub, so remember which
 * is which. */
static struct {
	const void *handle, *fn;
} handles[MAX_HANDLES];
static int n_handles;

void launch_log_handle(const void *handle, const void *fn)
{
	if (n_handles < MAX_HANDLES) {
		handles[n_handles].handle = handle;
		handles[n_handles].fn = fn;
		n_handles++;
	}
}

static const void *stub_of(const void *kernel)
{
	for (int i = 0; i < n_handles; i++)
		if (handles[i].handle == kernel)
			return handles[i].fn;
	return kernel;
}

void launch_log_pause(int on)
{
	paused = on;
}

void launch_log_record(const void *kernel, const unsigned grid[3], const unsigned block[3], size_t shared)
{
	if (paused)
		return;
	const void *fn = stub_of(kernel);
	for (int i = 0; i < n_launches; i++)
		if (launches[i].fn == fn && memcmp(launches[i].grid, grid, sizeof launches[i].grid) == 0 &&
		    memcmp(launches[i].block, block, sizeof launches[i].block) == 0 && launches[i].shared == shared) {
			launches[i].count++;
			return;
		}
	if (n_launches == MAX_CONFIGS) {
		overflow = 1;
		return;
	}
	struct launch *l = &launches[n_launches++];
	l->fn = fn;
	memcpy(l->grid, grid, sizeof l->grid);
	memcpy(l->block, block, sizeof l->block);
	l->shared = shared;
	l->count = 1;
}

void launch_log_reset(void)
{
	n_launches = 0;
	overflow = 0;
}

/* The C++ runtime's demangler (the harness is linked by nvcc, with it). */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

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
	int dev = 0, warp = 32, threads_per_sm = 2048;
	cudaGetDevice(&dev);
	cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev);
	cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
	int max_warps = warp > 0 ? threads_per_sm / warp : 64;
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
		if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, l->fn,
								  (int)(l->block[0] * l->block[1] * l->block[2]),
								  l->shared) !=
		    cudaSuccess)
			blocks = -1;
#if CUDART_VERSION >= 12030
		if (cudaFuncGetName(&raw, l->fn) != cudaSuccess)
			raw = NULL;
#endif
		cudaGetLastError();
		json_name(raw ? raw : "?", name, sizeof(name));
		/* An extern "C" kernel's name is no mangled name: it stays as it is. */
		int status = -1;
		char *plain = raw ? __cxa_demangle(raw, NULL, NULL, &status) : NULL;
		char demangled[256];
		json_name(status == 0 && plain ? plain : raw ? raw : "?", demangled, sizeof(demangled));
		free(plain);
		unsigned grid = l->grid[0] * l->grid[1] * l->grid[2];
		unsigned threads = l->block[0] * l->block[1] * l->block[2];
		int warps = blocks < 0 || warp <= 0 ? -1 : blocks * (int)((threads + warp - 1) / warp);
		at += (size_t)snprintf(buf + at, at < len ? len - at : 0,
				       "%s{\"kernel\":\"%s\",\"name\":\"%s\",\"grid\":%u,\"threads\":%u,"
				       "\"grid_dims\":[%u,%u,%u],\"block_dims\":[%u,%u,%u],\"dynamic_shared\":%zu,"
				       "\"static_shared\":%d,\"registers\":%d,\"blocks_per_sm\":%d,"
				       "\"warps_per_sm\":%d,\"occupancy\":%.6f,\"count\":%ld}",
				       i ? "," : "", name, demangled, grid, threads, l->grid[0], l->grid[1],
				       l->grid[2], l->block[0], l->block[1], l->block[2], l->shared, static_shared,
				       regs, blocks, warps, warps < 0 ? -1.0 : (double)warps / max_warps, l->count);
	}
	at += (size_t)snprintf(buf + at, at < len ? len - at : 0, "]");
	return at;
}
