/*
 * The runtime calls of multi-GPU and 3-D code, as NVIDIA declares them
 * (driver_types.h, driver_functions.h, cuda_runtime_api.h): peer access,
 * pointer attributes, pitched 3-D allocations and copies. Part of
 * cuda_runtime_api.h, inside its extern "C"; plain C.
 */
#pragma once

#define cudaCpuDeviceId ((int)-1)
#define cudaInvalidDeviceId ((int)-2)

/* Unified memory hints: one memory, nothing to move or advise. CUDA 13
 * names the place with a cudaMemLocation (the C++ overloads in
 * cuda_runtime_api.h); before, with a device number. */
enum cudaMemLocationType {
	cudaMemLocationTypeInvalid = 0,
	cudaMemLocationTypeNone = 0,
	cudaMemLocationTypeDevice = 1,
	cudaMemLocationTypeHost = 2,
	cudaMemLocationTypeHostNuma = 3,
	cudaMemLocationTypeHostNumaCurrent = 4
};
struct cudaMemLocation {
	enum cudaMemLocationType type;
	int id;
};
enum cudaMemoryAdvise {
	cudaMemAdviseSetReadMostly = 1,
	cudaMemAdviseUnsetReadMostly = 2,
	cudaMemAdviseSetPreferredLocation = 3,
	cudaMemAdviseUnsetPreferredLocation = 4,
	cudaMemAdviseSetAccessedBy = 5,
	cudaMemAdviseUnsetAccessedBy = 6
};
cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice, int device);

/* Peer access: the emulated device is the only one, so no device is its
 * peer; a program that loops over cudaGetDeviceCount's devices runs. */
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peerDevice);
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count);
cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
				cudaStream_t stream);

enum cudaMemoryType {
	cudaMemoryTypeUnregistered = 0,
	cudaMemoryTypeHost = 1,
	cudaMemoryTypeDevice = 2,
	cudaMemoryTypeManaged = 3
};
struct cudaPointerAttributes {
	enum cudaMemoryType type;
	int device;
	void *devicePointer;
	void *hostPointer;
};
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr);

/* Pitched 3-D memory. Arrays (cudaArray_t) are texture memory, refused by
 * the rewriter; the fields are there so that NVIDIA's layout compiles. */
typedef struct cudaArray *cudaArray_t;
struct cudaPitchedPtr {
	void *ptr;
	size_t pitch;
	size_t xsize;
	size_t ysize;
};
struct cudaExtent {
	size_t width;
	size_t height;
	size_t depth;
};
struct cudaPos {
	size_t x;
	size_t y;
	size_t z;
};
struct cudaMemcpy3DParms {
	cudaArray_t srcArray;
	struct cudaPos srcPos;
	struct cudaPitchedPtr srcPtr;
	cudaArray_t dstArray;
	struct cudaPos dstPos;
	struct cudaPitchedPtr dstPtr;
	struct cudaExtent extent;
	enum cudaMemcpyKind kind;
};
static inline struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz)
{
	struct cudaPitchedPtr s = { d, p, xsz, ysz };
	return s;
}
static inline struct cudaPos make_cudaPos(size_t x, size_t y, size_t z)
{
	struct cudaPos p = { x, y, z };
	return p;
}
static inline struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
	struct cudaExtent e = { w, h, d };
	return e;
}
cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent);
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream CUEMU_DV(0));
cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value, struct cudaExtent extent);
