/*
 * Runtime calls of multi-GPU, unified memory and 3-D code
 * (cuemu_runtime_more.h): peer access between devices, advice on managed
 * memory, pointer attributes, pitched 3-D allocations, copies and fills. The emulated device is the only device: peer calls
 * check their device numbers as CUDA does and find no peer; 3-D copies
 * are row copies, each checked and traced as cudaMemcpy2D's are.
 */
#include "internal.h"

#define PITCH_ALIGN 512	/* as cudaMallocPitch (compat.c) */

cudaError_t cuemu_malloc_at(void **devPtr, size_t size, void *where);

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
	rt_init();
	if (!canAccessPeer)
		return rt_error(cudaErrorInvalidValue);
	if (device != 0 || peerDevice != 0)
		return rt_error(cudaErrorInvalidDevice);
	*canAccessPeer = 0;	/* a device is not its own peer */
	return cudaSuccess;
}

/* Device 0 cannot be its own peer, and there is no other. */
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
	rt_init();
	if (flags != 0)
		return rt_error(cudaErrorInvalidValue);
	(void)peerDevice;
	return rt_error(cudaErrorInvalidDevice);
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
	(void)peerDevice;
	rt_init();
	return rt_error(cudaErrorInvalidDevice);
}

/* Between device 0 and itself: a device-to-device copy. */
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
	rt_init();
	if (dstDevice != 0 || srcDevice != 0)
		return rt_error(cudaErrorInvalidDevice);
	return api_memcpy2d(dst, count, src, count, count, 1, cudaMemcpyDeviceToDevice, RA());
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
				cudaStream_t stream)
{
	(void)stream;
	rt_init();
	if (dstDevice != 0 || srcDevice != 0)
		return rt_error(cudaErrorInvalidDevice);
	return api_memcpy2d(dst, count, src, count, count, 1, cudaMemcpyDeviceToDevice, RA());
}

/* Advice on unified memory: one memory here, so nothing to do once the
 * arguments are checked as CUDA checks them. */
cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice, int device)
{
	rt_init();
	if (!devPtr || !count || advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
		return rt_error(cudaErrorInvalidValue);
	if (device != 0 && device != cudaCpuDeviceId)
		return rt_error(cudaErrorInvalidDevice);
	return rt_gate();
}

/* Device memory, host memory the runtime allocated or registered, or
 * memory it never saw (cudaMemoryTypeUnregistered, as since CUDA 11). */
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *ptr)
{
	rt_init();
	if (!a)
		return rt_error(cudaErrorInvalidValue);
	uintptr_t p = (uintptr_t)ptr;
	a->device = 0;
	if (heap_is_device(p)) {
		a->type = cudaMemoryTypeDevice;
		a->devicePointer = (void *)ptr;
		a->hostPointer = NULL;
	} else if (host_mapped(p, 1)) {
		a->type = cudaMemoryTypeHost;
		a->devicePointer = a->hostPointer = (void *)ptr;
	} else {
		a->type = cudaMemoryTypeUnregistered;
		a->device = cudaInvalidDeviceId;
		a->devicePointer = a->hostPointer = NULL;
	}
	return cudaSuccess;
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *p, struct cudaExtent e)
{
	rt_init();
	if (!p)
		return rt_error(cudaErrorInvalidValue);
	size_t row = (e.width + PITCH_ALIGN - 1) / PITCH_ALIGN * PITCH_ALIGN;
	size_t rows = e.height * (e.depth ? e.depth : 1);
	if (e.height && rows / e.height != (e.depth ? e.depth : 1))
		return rt_error(cudaErrorMemoryAllocation);
	if (rows && row > (size_t)-1 / rows)
		return rt_error(cudaErrorMemoryAllocation);
	*p = (struct cudaPitchedPtr){ NULL, row, e.width, e.height };
	return cuemu_malloc_at(&p->ptr, row * rows, __builtin_return_address(0));
}

/* Slice z of a pitched pointer at a position: its first byte. */
static char *at(struct cudaPitchedPtr p, struct cudaPos pos, size_t z)
{
	return (char *)p.ptr + ((pos.z + z) * p.ysize + pos.y) * p.pitch + pos.x;
}

static cudaError_t copy3d(const struct cudaMemcpy3DParms *p, uintptr_t site)
{
	rt_init();
	if (!p || p->srcArray || p->dstArray)	/* arrays are texture memory */
		return rt_error(cudaErrorInvalidValue);
	for (size_t z = 0; z < p->extent.depth; z++) {
		cudaError_t e = api_memcpy2d(at(p->dstPtr, p->dstPos, z), p->dstPtr.pitch,
					     at(p->srcPtr, p->srcPos, z), p->srcPtr.pitch, p->extent.width,
					     p->extent.height, p->kind, site);
		if (e != cudaSuccess)
			return e;
	}
	return cudaSuccess;
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p)
{
	return copy3d(p, RA());
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
	(void)stream;
	return copy3d(p, RA());
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr p, int value, struct cudaExtent e)
{
	rt_init();
	if (e.width > p.pitch)
		return rt_error(cudaErrorInvalidValue);
	for (size_t z = 0; z < e.depth; z++) {
		cudaError_t r = cudaMemset2D((char *)p.ptr + z * p.ysize * p.pitch, p.pitch, value, e.width,
					     e.height);
		if (r != cudaSuccess)
			return r;
	}
	return cudaSuccess;
}
