/*
 * The runtime's one state record, its start-up, and CUDA's two kinds of
 * error: the last error (cleared by cudaGetLastError) and the sticky error
 * of a kernel that faulted, which every later call returns until
 * cudaDeviceReset(), as on a GPU.
 */
#include <stdlib.h>
#include <string.h>

#include "cuemu.h"
#include "internal.h"

struct rt rt;

/* What a kernel sees as threadIdx and friends (under their linker names): the scheduler writes them
 * before it resumes a fiber; the device header declares them const. */
uint3 cuemu_threadIdx, cuemu_blockIdx;
dim3 cuemu_blockDim, cuemu_gridDim;

/* Dynamic shared memory (extern __shared__) lives at this fixed address, so
 * that the rewritten declaration is a plain cast. 4096-aligned: a page of
 * its own, whatever a kernel does with it. */
char cuemu_dyn_smem[DYN_SMEM_MAX] __attribute__((aligned(4096)));

/* Anchors the static shared section, so __start_/__stop_cuemu_shared exist
 * even in a program whose kernels declare no __shared__ array. */
static char shared_anchor[16] __attribute__((section("cuemu_shared"), used, aligned(16)));
extern char __start_cuemu_shared[] __attribute__((weak));
extern char __stop_cuemu_shared[] __attribute__((weak));
/* The writable data of the .cu objects (cuemu-cc renames their sections):
 * __device__, __constant__ and __managed__ variables, which kernels see as
 * global memory. */
extern char __start_cuemu_gdata[] __attribute__((weak));
extern char __stop_cuemu_gdata[] __attribute__((weak));
extern char __start_cuemu_gbss[] __attribute__((weak));
extern char __stop_cuemu_gbss[] __attribute__((weak));
extern char __executable_start[] __attribute__((weak));
extern char _end[] __attribute__((weak));

static long env_long(const char *name, long fallback)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return fallback;
	if (strcmp(v, "all") == 0)
		return -1;
	return strtol(v, NULL, 10);
}

void rt_init(void)
{
	if (rt.initialised)
		return;
	rt.initialised = 1;
	(void)shared_anchor;
	rt.mode = (int)env_long("CUEMU_TRACE", 0) ? 1 : 0;
	rt.trace_blocks = env_long("CUEMU_TRACE_BLOCKS", 4);
	rt.sample_seed = (uint64_t)env_long("CUEMU_SAMPLE_SEED", 1);
	rt.device_sms = 1;
	rt.stack_size = (size_t)env_long("CUEMU_STACK_KB", 64) * 1024;
	if (rt.stack_size < 16 * 1024)
		rt.stack_size = 16 * 1024;
	rt.kernel_timeout_s = (double)env_long("CUEMU_KERNEL_TIMEOUT", 10);
	rt.quiet = (int)env_long("CUEMU_QUIET", 0);
	rt.workers = par_workers_default();
	shared_arena_init();
	rt.section_lo = (uintptr_t)__start_cuemu_shared;
	rt.section_span = (uintptr_t)__stop_cuemu_shared - rt.section_lo;
	rt.dyn_lo = (uintptr_t)cuemu_dyn_smem;
	rt.image_lo = (uintptr_t)__executable_start;
	rt.image_hi = (uintptr_t)_end;
	rt.gdata_lo = (uintptr_t)__start_cuemu_gdata;
	rt.gdata_span = (uintptr_t)__stop_cuemu_gdata - rt.gdata_lo;
	rt.gbss_lo = (uintptr_t)__start_cuemu_gbss;
	rt.gbss_span = (uintptr_t)__stop_cuemu_gbss - rt.gbss_lo;
	heap_init();
	lines_init();
	fault_signals_install();
}

cudaError_t rt_error(cudaError_t e)
{
	if (e != cudaSuccess)
		rt.last_error = e;
	return e;
}

cudaError_t rt_gate(void)
{
	rt_init();
	if (rt.sticky_error != cudaSuccess)
		rt.last_error = rt.sticky_error;
	return rt.sticky_error;
}

void cuemu_set_tracing(int mode)
{
	rt_init();
	rt.mode = mode ? 1 : 0;
}

int cuemu_tracing(void)
{
	rt_init();
	return rt.mode;
}

void cuemu_set_traced_blocks(int n)
{
	rt_init();
	rt.trace_blocks = n;
}

void cuemu_set_sample_seed(unsigned long long seed)
{
	rt_init();
	rt.sample_seed = seed;
}

void cuemu_set_skip_untraced(int on)
{
	rt_init();
	rt.skip_untraced = on != 0;
}

void cuemu_set_device_sms(int sms)
{
	rt_init();
	rt.device_sms = sms > 0 ? sms : 1;
}

void cuemu_set_kernel_timeout(double seconds)
{
	rt_init();
	if (seconds > 0)
		rt.kernel_timeout_s = seconds;
}

void cuemu_set_stop_hook(cuemu_stop_hook hook)
{
	rt_init();
	rt.stop_hook = hook;
}

const char *cuemu_last_fault(void)
{
	return rt.have_fault ? rt.fault : NULL;
}

int cuemu_last_fault_bounds(const char **file, unsigned *line)
{
	uintptr_t site = rt.have_fault ? rt.fault_bounds_site : 0;
	lines_init();
	return site && lines_lookup(site - 1, file, line);
}
