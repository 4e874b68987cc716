/*
 * The CUDA runtime API on the host side: errors, the device, memory.
 * Everything is synchronous: a launch has finished when <<< >>> returns
 * (streams.c: streams and events; compat.c and kernel_attrs.c: the rest).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* ---- errors ------------------------------------------------------------------ */

static const struct {
	cudaError_t e;
	const char *name, *text;
} errors[] = {
	{ cudaSuccess, "cudaSuccess", "no error" },
	{ cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument" },
	{ cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory" },
	{ cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error" },
	{ cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "driver shutting down" },
	{ cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid configuration argument" },
	{ cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument" },
	{ cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol" },
	{ cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer" },
	{ cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer" },
	{ cudaErrorInvalidTexture, "cudaErrorInvalidTexture", "invalid texture reference" },
	{ cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy" },
	{ cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration", "__global__ function call is not configured" },
	{ cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function" },
	{ cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected" },
	{ cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal" },
	{ cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle" },
	{ cudaErrorNotReady, "cudaErrorNotReady", "device not ready" },
	{ cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered" },
	{ cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch" },
	{ cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out and was terminated" },
	{ cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered" },
	{ cudaErrorHardwareStackError, "cudaErrorHardwareStackError", "hardware stack error" },
	{ cudaErrorIllegalInstruction, "cudaErrorIllegalInstruction", "an illegal instruction was encountered" },
	{ cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address" },
	{ cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure" },
	{ cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported" },
	{ cudaErrorUnknown, "cudaErrorUnknown", "unknown error" },
};

const char *cudaGetErrorName(cudaError_t error)
{
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (errors[i].e == error)
			return errors[i].name;
	return "cudaErrorUnknown";
}

const char *cudaGetErrorString(cudaError_t error)
{
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (errors[i].e == error)
			return errors[i].text;
	return "unrecognized error code";
}

cudaError_t cudaGetLastError(void)
{
	rt_init();
	cudaError_t e = rt.last_error;
	rt.last_error = rt.sticky_error;
	return e;
}

cudaError_t cudaPeekAtLastError(void)
{
	rt_init();
	return rt.last_error;
}

/* ---- the device ----------------------------------------------------------------- */

cudaError_t cudaGetDeviceCount(int *count)
{
	rt_init();
	if (!count)
		return rt_error(cudaErrorInvalidValue);
	*count = 1;
	return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
	rt_init();
	return device == 0 ? cudaSuccess : rt_error(cudaErrorInvalidDevice);
}

cudaError_t cudaGetDevice(int *device)
{
	rt_init();
	if (!device)
		return rt_error(cudaErrorInvalidValue);
	*device = 0;
	return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
	rt_init();
	if (!p)
		return rt_error(cudaErrorInvalidValue);
	if (device != 0)
		return rt_error(cudaErrorInvalidDevice);
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "CPU emulator");
	p->totalGlobalMem = heap_total();
	p->sharedMemPerBlock = DEFAULT_SMEM_LIMIT;
	p->regsPerBlock = 65536;
	p->warpSize = WARP;
	p->memPitch = (size_t)1 << 31;
	p->maxThreadsPerBlock = MAX_THREADS;
	p->maxThreadsDim[0] = 1024;
	p->maxThreadsDim[1] = 1024;
	p->maxThreadsDim[2] = 64;
	p->maxGridSize[0] = 0x7fffffff;
	p->maxGridSize[1] = 65535;
	p->maxGridSize[2] = 65535;
	p->totalConstMem = 65536;
	p->major = 8;
	p->minor = 0;
	p->textureAlignment = 512;
	p->multiProcessorCount = rt.device_sms;
	p->canMapHostMemory = 1;
	p->unifiedAddressing = 1;
	p->memoryBusWidth = 64;
	p->l2CacheSize = 1 << 20;
	p->maxThreadsPerMultiProcessor = 2048;
	p->sharedMemPerMultiprocessor = DYN_SMEM_MAX;
	p->regsPerMultiprocessor = 65536;
	p->managedMemory = 1;
	p->sharedMemPerBlockOptin = DYN_SMEM_MAX;
	p->maxBlocksPerMultiProcessor = 32;
	/* What the emulator does (stream priorities, caches of a kind, managed
	 * and registered memory, memory pools); the rest, 0, it does not. */
	p->streamPrioritiesSupported = 1;
	p->globalL1CacheSupported = 1;
	p->localL1CacheSupported = 1;
	p->concurrentManagedAccess = 1;
	p->directManagedMemAccessFromHost = 1;
	p->canUseHostPointerForRegisteredMem = 1;
	p->hostRegisterSupported = 1;
	p->memoryPoolsSupported = 1;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
	struct cudaDeviceProp p;
	if (!value)
		return rt_error(cudaErrorInvalidValue);
	cudaError_t e = cudaGetDeviceProperties(&p, device);
	if (e != cudaSuccess)
		return e;
	switch (attr) {
	case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
	case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
	case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
	case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
	case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
	case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
	case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
	case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int)p.sharedMemPerBlock; break;
	case cudaDevAttrTotalConstantMemory: *value = (int)p.totalConstMem; break;
	case cudaDevAttrWarpSize: *value = p.warpSize; break;
	case cudaDevAttrMaxPitch: *value = 0x7fffffff; break;
	case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
	case cudaDevAttrClockRate: *value = 1000000; break;
	case cudaDevAttrTextureAlignment: *value = (int)p.textureAlignment; break;
	case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
	case cudaDevAttrConcurrentKernels: *value = 0; break;
	case cudaDevAttrMemoryClockRate: *value = 1000000; break;
	case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
	case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
	case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
	case cudaDevAttrUnifiedAddressing: *value = 1; break;
	case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
	case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
	case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int)p.sharedMemPerMultiprocessor; break;
	case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
	case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)p.sharedMemPerBlockOptin; break;
	case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
	default: return rt_error(cudaErrorInvalidValue);
	}
	return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
	return rt_gate();
}

cudaError_t cudaDeviceReset(void)
{
	rt_init();
	heap_reset();
	race_reset();
	rt.last_error = rt.sticky_error = cudaSuccess;
	rt.have_fault = 0;
	rt.fault[0] = 0;
	rt.fault_bounds_site = 0;
	return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *version)
{
	if (!version)
		return rt_error(cudaErrorInvalidValue);
	*version = CUDART_VERSION;
	return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *version)
{
	return cudaRuntimeGetVersion(version);
}

cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
	rt_init();
	if (free_bytes)
		*free_bytes = heap_free_bytes();
	if (total_bytes)
		*total_bytes = heap_total();
	return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
	(void)func;
	rt_init();
	if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
		if (value < 0 || (size_t)value > DYN_SMEM_MAX)
			return rt_error(cudaErrorInvalidValue);
		sched_raise_smem_limit((size_t)value);
	}
	return cudaSuccess;
}

/* ---- memory ------------------------------------------------------------------------ */

cudaError_t cuemu_malloc_at(void **devPtr, size_t size, void *where);

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
	return cuemu_malloc_at(devPtr, size, __builtin_return_address(0));
}

cudaError_t cuemu_malloc_at(void **devPtr, size_t size, void *where)
{
	uintptr_t site = (uintptr_t)where;
	char at[256];
	if (rt_gate() != cudaSuccess)
		return rt.sticky_error;
	if (!devPtr)
		return rt_error(cudaErrorInvalidValue);
	*devPtr = NULL;
	if (size == 0)
		return cudaSuccess;
	*devPtr = heap_alloc(size, site);
	if (*devPtr)
		return cudaSuccess;
	fault_report(cudaErrorMemoryAllocation, "cudaMalloc of %zu bytes at %s: the emulated device has "
		     "%zu MiB, %zu MiB free (set CUEMU_MEMORY_MB for more)", size,
		     site_text(site, at, sizeof at), heap_total() >> 20, heap_free_bytes() >> 20);
	return cudaErrorMemoryAllocation;
}

cudaError_t cudaFree(void *devPtr)
{
	return api_free_at(devPtr, RA());
}

cudaError_t api_free_at(void *devPtr, uintptr_t site)
{
	char at[256], what[256];
	if (rt_gate() != cudaSuccess)
		return rt.sticky_error;
	if (!devPtr || heap_free(devPtr, site) == 0)
		return cudaSuccess;
	if (host_map_is_managed(devPtr)) {	/* managed memory is host memory here */
		host_map_remove(devPtr);
		free(devPtr);
		return cudaSuccess;
	}
	if (heap_is_device((uintptr_t)devPtr))
		heap_describe((uintptr_t)devPtr, 1, what, sizeof what);
	else
		snprintf(what, sizeof what, "not a device pointer");
	fault_report(cudaErrorInvalidValue, "cudaFree(%p) at %s: not the start of a live cudaMalloc "
		     "buffer (%s)", devPtr, site_text(site, at, sizeof at), what);
	return cudaErrorInvalidValue;
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
	rt_init();
	if (!ptr)
		return rt_error(cudaErrorInvalidValue);
	*ptr = malloc(size ? size : 1);
	if (!*ptr || host_map_add(*ptr, size) < 0) {
		free(*ptr);
		*ptr = NULL;
		return rt_error(cudaErrorMemoryAllocation);
	}
	return cudaSuccess;
}

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
	(void)flags;
	return cudaMallocHost(ptr, size);
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
	(void)flags;
	cudaError_t e = cudaMallocHost(devPtr, size);
	if (e == cudaSuccess)
		host_map_mark_managed(*devPtr);
	return e;
}

cudaError_t cudaFreeHost(void *ptr)
{
	rt_init();
	if (ptr && host_map_remove(ptr) < 0)
		return rt_error(cudaErrorInvalidValue);
	free(ptr);
	return cudaSuccess;
}

static const char *kind_text(enum cudaMemcpyKind kind)
{
	static const char *names[] = { "cudaMemcpyHostToHost", "cudaMemcpyHostToDevice",
				       "cudaMemcpyDeviceToHost", "cudaMemcpyDeviceToDevice",
				       "cudaMemcpyDefault" };
	return (unsigned)kind <= 4 ? names[kind] : "an invalid cudaMemcpyKind";
}

/* Checks one side of a copy; returns 0 or reports and returns -1. */
static int check_side(const char *call, const char *side, uintptr_t p, size_t count, int want_device,
		      uintptr_t site)
{
	char at[256], what[256];
	int dev = heap_is_device(p);
	if (!p) {
		fault_report(cudaErrorInvalidValue, "%s at %s: the %s pointer is NULL", call,
			     site_text(site, at, sizeof at), side);
		return -1;
	}
	if (want_device >= 0 && dev != want_device) {
		fault_report(cudaErrorInvalidValue, "%s at %s: the %s pointer %p is a %s pointer, but "
			     "the copy kind says it is a %s pointer", call, site_text(site, at, sizeof at),
			     side, (void *)p, dev ? "device" : "host", want_device ? "device" : "host");
		return -1;
	}
	if (dev && !heap_range_ok(p, count)) {
		heap_describe(p, count, what, sizeof what);
		fault_report(cudaErrorInvalidValue, "%s at %s: %zu bytes at the %s %p do not fit in "
			     "one cudaMalloc buffer: %s", call, site_text(site, at, sizeof at), count,
			     side, (void *)p, what);
		return -1;
	}
	return 0;
}

static cudaError_t copy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
			uintptr_t site, const char *call)
{
	static const signed char want[5][2] = { { 0, 0 }, { 1, 0 }, { 0, 1 }, { 1, 1 }, { -1, -1 } };
	char at[256];
	if (rt_gate() != cudaSuccess)
		return rt.sticky_error;
	if ((unsigned)kind > 4) {
		fault_report(cudaErrorInvalidMemcpyDirection, "%s at %s: %s", call,
			     site_text(site, at, sizeof at), kind_text(kind));
		return cudaErrorInvalidMemcpyDirection;
	}
	if (count == 0)
		return cudaSuccess;
	if (check_side(call, "destination", (uintptr_t)dst, count, want[kind][0], site) < 0 ||
	    check_side(call, "source", (uintptr_t)src, count, want[kind][1], site) < 0)
		return cudaErrorInvalidValue;
	if (rt.skip_untraced && kind == cudaMemcpyDeviceToDevice)
		return cudaSuccess;	/* a prediction run computes no result */
	heap_open((uintptr_t)dst, count);
	heap_open((uintptr_t)src, count);
	memmove(dst, src, count);
	heap_close((uintptr_t)dst, count);
	heap_close((uintptr_t)src, count);
	return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
	return copy(dst, src, count, kind, RA(), "cudaMemcpy");
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
			    cudaStream_t stream)
{
	(void)stream;
	return copy(dst, src, count, kind, RA(), "cudaMemcpyAsync");
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
			 size_t height, enum cudaMemcpyKind kind)
{
	return api_memcpy2d(dst, dpitch, src, spitch, width, height, kind, RA());
}

cudaError_t api_memcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
			 size_t height, enum cudaMemcpyKind kind, uintptr_t site)
{
	if (width > dpitch || width > spitch)
		return rt_error(cudaErrorInvalidPitchValue);
	for (size_t r = 0; r < height; r++) {
		cudaError_t e = copy((char *)dst + r * dpitch, (const char *)src + r * spitch, width, kind,
				     site, "cudaMemcpy2D");	/* or cudaMemcpy2DAsync */
		if (e != cudaSuccess)
			return e;
	}
	return cudaSuccess;
}

static cudaError_t set(void *p, int value, size_t count, uintptr_t site, const char *call)
{
	if (rt_gate() != cudaSuccess)
		return rt.sticky_error;
	if (count == 0)
		return cudaSuccess;
	if (check_side(call, "destination", (uintptr_t)p, count, host_mapped((uintptr_t)p, count) ? 0 : 1,
		       site) < 0)
		return cudaErrorInvalidValue;
	if (rt.skip_untraced)
		return cudaSuccess;	/* a prediction run computes no result */
	heap_open((uintptr_t)p, count);
	memset(p, value, count);
	heap_close((uintptr_t)p, count);
	return cudaSuccess;
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
	return set(devPtr, value, count, RA(), "cudaMemset");
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
	(void)stream;
	return set(devPtr, value, count, RA(), "cudaMemsetAsync");
}

