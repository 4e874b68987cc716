/*
 * Runtime calls that samples, textbooks and course templates make besides
 * the kit's own: pitched and stream-ordered memory, the pre-CUDA 4 thread
 * calls, device flags and limits, host registration and host functions in a
 * stream. Nothing to configure on the CPU: each is checked and kept
 * as far as a program can read it back.
 */
#include "internal.h"

#define PITCH_ALIGN 512	/* what cudaMallocPitch rounds a row to on current GPUs */

cudaError_t cuemu_malloc_at(void **devPtr, size_t size, void *where);

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
	if (!devPtr || !pitch)
		return rt_error(cudaErrorInvalidValue);
	size_t row = (width + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
	if (width && height && row > (size_t)-1 / height)
		return rt_error(cudaErrorMemoryAllocation);
	*pitch = row;
	return cuemu_malloc_at(devPtr, row * height, __builtin_return_address(0));
}

/* Stream-ordered allocation (CUDA 11.2): every stream is in order already. */
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream)
{
	(void)stream;
	return cuemu_malloc_at(devPtr, size, __builtin_return_address(0));
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream)
{
	(void)stream;
	return api_free_at(devPtr, RA());
}

cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream)
{
	(void)devPtr;
	(void)count;
	(void)dstDevice;
	(void)stream;
	return rt_gate();
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
			      size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
	(void)stream;
	return api_memcpy2d(dst, dpitch, src, spitch, width, height, kind, RA());
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
	if (width > pitch)
		return rt_error(cudaErrorInvalidPitchValue);
	for (size_t r = 0; r < height; r++) {
		cudaError_t e = cudaMemset((char *)devPtr + r * pitch, value, width);
		if (e != cudaSuccess)
			return e;
	}
	return cudaSuccess;
}

/* The names CUDA 4 replaced with cudaDevice*: still in the runtime. */
cudaError_t cudaThreadSynchronize(void)
{
	return cudaDeviceSynchronize();
}

cudaError_t cudaThreadExit(void)
{
	return cudaDeviceReset();
}

static unsigned device_flags;

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
	rt_init();
	if (flags & ~0x1fu)
		return rt_error(cudaErrorInvalidValue);
	device_flags = flags;
	return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
	if (!flags)
		return rt_error(cudaErrorInvalidValue);
	*flags = device_flags;
	return cudaSuccess;
}

static size_t limits[3] = { 1024, 1 << 20, 8 << 20 };	/* stack, printf FIFO, malloc heap */

cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
	rt_init();
	if ((unsigned)limit >= sizeof limits / sizeof limits[0])
		return rt_error(cudaErrorInvalidValue);
	limits[limit] = value;
	return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit)
{
	if (!value || (unsigned)limit >= sizeof limits / sizeof limits[0])
		return rt_error(cudaErrorInvalidValue);
	*value = limits[limit];
	return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config)
{
	return (unsigned)config <= cudaFuncCachePreferEqual ? cudaSuccess : rt_error(cudaErrorInvalidValue);
}

cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
	return (unsigned)config <= cudaSharedMemBankSizeEightByte ? cudaSuccess
								: rt_error(cudaErrorInvalidValue);
}

/* Page-locking a host buffer speeds a GPU's copies; here there is nothing
 * to lock, but the buffer becomes memory a kernel may touch (as registered
 * memory is under unified addressing), as cudaMallocHost's is. */
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
	rt_init();
	if (!ptr || !size || (flags & ~0xfu))
		return rt_error(cudaErrorInvalidValue);
	if (host_map_add(ptr, size) < 0)
		return rt_error(cudaErrorMemoryAllocation);
	return rt_gate();
}

cudaError_t cudaHostUnregister(void *ptr)
{
	rt_init();
	if (!ptr || host_map_remove(ptr) < 0)
		return rt_error(cudaErrorInvalidValue);	/* as CUDA: not registered */
	return rt_gate();
}

/* Zero-copy memory (cudaHostAllocMapped, cudaHostRegisterMapped): with one
 * address space the device pointer is the host pointer. A pointer the
 * runtime did not allocate or register is refused, as on a GPU. */
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
	rt_init();
	if (!pDevice || flags != 0 || !host_mapped((uintptr_t)pHost, 1))
		return rt_error(cudaErrorInvalidValue);
	*pDevice = pHost;
	return cudaSuccess;
}

cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
	if (!device || !prop)
		return rt_error(cudaErrorInvalidValue);
	*device = 0;	/* the only one */
	return rt_gate();
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
	(void)flags;
	return cudaEventRecord(event, stream);
}

/* The stream's work before the call is done already (every stream runs in
 * order, at once), so the host function runs now, as it would run then. */
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
	(void)stream;
	if (!fn)
		return rt_error(cudaErrorInvalidValue);
	cudaError_t e = rt_gate();
	if (e == cudaSuccess)
		fn(userData);
	return e;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
				  unsigned int flags)
{
	if (!callback || flags != 0)
		return rt_error(cudaErrorInvalidValue);
	callback(stream, rt_gate(), userData);
	return rt_gate();
}
