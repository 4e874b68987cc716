/*
 * The CUDA runtime API of the CPU emulator: the subset the kit's labs and
 * harness use, with the real CUDA names, types, enum values and signatures,
 * so that the same source compiles against this header or NVIDIA's.
 *
 * Plain C (the harness is C11); C++ additions (dim3 constructors, the
 * template cudaMalloc) are under __cplusplus. Never mix with the real
 * headers: emulated builds must not see /usr/local/cuda/include.
 */
#pragma once

#include <stddef.h>

/* cuemu-cc defines it as the installed toolkit's, where there is one. */
#ifndef CUDART_VERSION
#define CUDART_VERSION 12000
#endif

#ifdef __cplusplus
#define CUEMU_DV(v) = v
extern "C" {
#else
#define CUEMU_DV(v)
#endif

/* Values as in NVIDIA's driver_types.h: programs print and compare them. */
enum cudaError {
	cudaSuccess = 0,
	cudaErrorInvalidValue = 1,
	cudaErrorMemoryAllocation = 2,
	cudaErrorInitializationError = 3,
	cudaErrorCudartUnloading = 4,
	cudaErrorInvalidConfiguration = 9,
	cudaErrorInvalidPitchValue = 12,
	cudaErrorInvalidSymbol = 13,
	cudaErrorInvalidHostPointer = 16,
	cudaErrorInvalidDevicePointer = 17,
	cudaErrorInvalidTexture = 18,
	cudaErrorInvalidMemcpyDirection = 21,
	cudaErrorMissingConfiguration = 52,
	cudaErrorInvalidDeviceFunction = 98,
	cudaErrorNoDevice = 100,
	cudaErrorInvalidDevice = 101,
	cudaErrorInvalidResourceHandle = 400,
	cudaErrorNotReady = 600,
	cudaErrorIllegalAddress = 700,
	cudaErrorLaunchOutOfResources = 701,
	cudaErrorLaunchTimeout = 702,
	cudaErrorAssert = 710,
	cudaErrorHardwareStackError = 714,
	cudaErrorIllegalInstruction = 715,
	cudaErrorMisalignedAddress = 716,
	cudaErrorLaunchFailure = 719,
	cudaErrorNotSupported = 801,
	cudaErrorUnknown = 999
};
typedef enum cudaError cudaError_t;

enum cudaMemcpyKind {
	cudaMemcpyHostToHost = 0,
	cudaMemcpyHostToDevice = 1,
	cudaMemcpyDeviceToHost = 2,
	cudaMemcpyDeviceToDevice = 3,
	cudaMemcpyDefault = 4
};

enum cudaDeviceAttr {
	cudaDevAttrMaxThreadsPerBlock = 1,
	cudaDevAttrMaxBlockDimX = 2,
	cudaDevAttrMaxBlockDimY = 3,
	cudaDevAttrMaxBlockDimZ = 4,
	cudaDevAttrMaxGridDimX = 5,
	cudaDevAttrMaxGridDimY = 6,
	cudaDevAttrMaxGridDimZ = 7,
	cudaDevAttrMaxSharedMemoryPerBlock = 8,
	cudaDevAttrTotalConstantMemory = 9,
	cudaDevAttrWarpSize = 10,
	cudaDevAttrMaxPitch = 11,
	cudaDevAttrMaxRegistersPerBlock = 12,
	cudaDevAttrClockRate = 13,
	cudaDevAttrTextureAlignment = 14,
	cudaDevAttrMultiProcessorCount = 16,
	cudaDevAttrConcurrentKernels = 31,
	cudaDevAttrMemoryClockRate = 36,
	cudaDevAttrGlobalMemoryBusWidth = 37,
	cudaDevAttrL2CacheSize = 38,
	cudaDevAttrMaxThreadsPerMultiProcessor = 39,
	cudaDevAttrUnifiedAddressing = 41,
	cudaDevAttrComputeCapabilityMajor = 75,
	cudaDevAttrComputeCapabilityMinor = 76,
	cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
	cudaDevAttrMaxRegistersPerMultiprocessor = 82,
	cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
	cudaDevAttrMaxBlocksPerMultiprocessor = 106
};

enum cudaFuncAttribute {
	cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
	cudaFuncAttributePreferredSharedMemoryCarveout = 9
};

/* Kernel attributes and preferences (cudaFuncGetAttributes, cache config). */
enum cudaFuncCache {
	cudaFuncCachePreferNone = 0,
	cudaFuncCachePreferShared = 1,
	cudaFuncCachePreferL1 = 2,
	cudaFuncCachePreferEqual = 3
};
enum cudaSharedMemConfig {
	cudaSharedMemBankSizeDefault = 0,
	cudaSharedMemBankSizeFourByte = 1,
	cudaSharedMemBankSizeEightByte = 2
};
enum cudaLimit {
	cudaLimitStackSize = 0,
	cudaLimitPrintfFifoSize = 1,
	cudaLimitMallocHeapSize = 2
};
struct cudaFuncAttributes {
	size_t sharedSizeBytes;
	size_t constSizeBytes;
	size_t localSizeBytes;
	int maxThreadsPerBlock;
	int numRegs;
	int ptxVersion;
	int binaryVersion;
	int cacheModeCA;
	int maxDynamicSharedSizeBytes;
	int preferredShmemCarveout;
};

#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaOccupancyDefault 0x00
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceMapHost 0x08
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaMemAttachGlobal 0x01

struct uint3 {
	unsigned int x, y, z;
};
typedef struct uint3 uint3;

struct dim3 {
	unsigned int x, y, z;
#ifdef __cplusplus
	constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
		: x(vx), y(vy), z(vz) {}
	constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
	constexpr operator uint3() const { return uint3{x, y, z}; }
#endif
};
typedef struct dim3 dim3;

#include "cuemu_device_prop.h"

typedef struct CUevent_st *cudaEvent_t;
typedef struct CUstream_st *cudaStream_t;

const char *cudaGetErrorString(cudaError_t error);
const char *cudaGetErrorName(cudaError_t error);
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaRuntimeGetVersion(int *version);
cudaError_t cudaDriverGetVersion(int *version);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);

cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags CUEMU_DV(cudaMemAttachGlobal));
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
			    cudaStream_t stream CUEMU_DV(0));
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
			 size_t height, enum cudaMemcpyKind kind);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream CUEMU_DV(0));

cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);

cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream CUEMU_DV(0));
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);

/* emu/runtime/compat.c: what samples and course templates call besides. */
cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t stream);
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream);
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice, cudaStream_t stream CUEMU_DV(0));
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
			      size_t height, enum cudaMemcpyKind kind, cudaStream_t stream CUEMU_DV(0));
cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaThreadSynchronize(void);
cudaError_t cudaThreadExit(void);
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int *flags);
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit);
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config);
cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags CUEMU_DV(0));
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority);
cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream CUEMU_DV(0),
				     unsigned int flags CUEMU_DV(0));
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
/* Mapped (zero-copy) host memory: the device sees it at its host address. */
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop);
#ifndef CUDART_CB
#define CUDART_CB
#endif
typedef void (CUDART_CB *cudaHostFn_t)(void *userData);
typedef void (CUDART_CB *cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
				  unsigned int flags);

/* emu/runtime/kernel_attrs.c: kernels' attributes and the occupancy API,
 * for the emulated device (no registers: blocks are limited by threads,
 * blocks per multiprocessor and shared memory). */
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config);
cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
							   size_t dynamicSMemSize);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
								    int blockSize, size_t dynamicSMemSize,
								    unsigned int flags);
/* The block size with the most resident threads; smem_of(block size, ctx)
 * gives the dynamic shared memory a block of that size needs (NULL: fixed). */
cudaError_t cuemu_occupancy_best_block(int *minGridSize, int *blockSize, size_t (*smem_of)(int, void *),
				       void *ctx, size_t dynamicSMemSize, int blockSizeLimit);

#include "cuemu_runtime_more.h"

#ifdef __cplusplus
}

/* CUDA 13's forms of the unified memory hints, with a cudaMemLocation. */
static inline cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
					       unsigned int flags, cudaStream_t stream = 0)
{
	(void)flags;
	return ::cudaMemPrefetchAsync(devPtr, count, location.type == cudaMemLocationTypeDevice ? location.id
											: cudaCpuDeviceId, stream);
}
static inline cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
					struct cudaMemLocation location)
{
	return ::cudaMemAdvise(devPtr, count, advice,
			       location.type == cudaMemLocationTypeDevice ? location.id : cudaCpuDeviceId);
}

/* As in NVIDIA's cuda_runtime.h: no cast needed for typed pointers. Not
 * inlined, and it hands on its caller's address, so that a buffer's
 * messages name the student's cudaMalloc line, not this one. */
extern "C" cudaError_t cuemu_malloc_at(void **devPtr, size_t size, void *site);
template <class T> static __attribute__((noinline)) cudaError_t cudaMalloc(T **devPtr, size_t size)
{
	return cuemu_malloc_at((void **)(void *)devPtr, size, __builtin_return_address(0));
}
/* NVIDIA's cuda_runtime.h adds these C++ overloads: the flags forms of
 * cudaEventCreate and cudaMallocHost, and typed pointers for host memory. */
static inline cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags)
{
	return ::cudaEventCreateWithFlags(event, flags);
}
static inline cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags)
{
	return ::cudaHostAlloc(ptr, size, flags);
}
template <class T> static inline cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0)
{
	return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
template <class T> static inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags)
{
	return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}
template <class T> static inline cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags)
{
	return ::cudaHostGetDevicePointer((void **)(void *)pDevice, pHost, flags);
}
template <class T> static inline cudaError_t cudaMallocManaged(T **ptr, size_t size,
							       unsigned int flags = cudaMemAttachGlobal)
{
	return ::cudaMallocManaged((void **)(void *)ptr, size, flags);
}
template <class T> static inline cudaError_t cudaFuncSetAttribute(T *func, enum cudaFuncAttribute attr,
								  int value)
{
	return ::cudaFuncSetAttribute((const void *)func, attr, value);
}
template <class T> static inline cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width,
							     size_t height)
{
	return ::cudaMallocPitch((void **)(void *)devPtr, pitch, width, height);
}
template <class T> static inline cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream)
{
	return ::cudaMallocAsync((void **)(void *)devPtr, size, stream);
}
template <class T> static inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *func)
{
	return ::cudaFuncGetAttributes(attr, (const void *)func);
}
template <class T> static inline cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache config)
{
	return ::cudaFuncSetCacheConfig((const void *)func, config);
}
template <class T> static inline cudaError_t cudaFuncSetSharedMemConfig(T *func, enum cudaSharedMemConfig c)
{
	return ::cudaFuncSetSharedMemConfig((const void *)func, c);
}
template <class T> static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(
	int *numBlocks, T func, int blockSize, size_t dynamicSMemSize)
{
	return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, (const void *)func, blockSize,
							       dynamicSMemSize);
}
template <class T> static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
	int *numBlocks, T func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
	return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, (const void *)func,
									blockSize, dynamicSMemSize, flags);
}
template <class T> static inline cudaError_t cudaOccupancyMaxPotentialBlockSize(
	int *minGridSize, int *blockSize, T func, size_t dynamicSMemSize = 0, int blockSizeLimit = 0)
{
	(void)func;
	return cuemu_occupancy_best_block(minGridSize, blockSize, NULL, NULL, dynamicSMemSize,
					  blockSizeLimit);
}
template <class F> static size_t cuemu_smem_of_(int block, void *ctx)
{
	return (size_t)(*static_cast<F *>(ctx))(block);
}
template <class U, class T> static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(
	int *minGridSize, int *blockSize, T func, U blockSizeToDynamicSMemSize, int blockSizeLimit = 0)
{
	(void)func;
	return cuemu_occupancy_best_block(minGridSize, blockSize, &cuemu_smem_of_<U>,
					  &blockSizeToDynamicSMemSize, 0, blockSizeLimit);
}
template <class T> static inline cudaError_t cudaMemcpyToSymbol(T &symbol, const void *src, size_t count,
								size_t offset = 0,
								cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
	(void)kind;
	return ::cudaMemcpy((char *)&symbol + offset, src, count, cudaMemcpyHostToHost);
}
template <class T> static inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
								  size_t offset = 0,
								  cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
	(void)kind;
	return ::cudaMemcpy(dst, (const char *)&symbol + offset, count, cudaMemcpyHostToHost);
}
/* Every stream runs in order, at once: the Async forms are the plain ones. */
template <class T> static inline cudaError_t cudaMemcpyToSymbolAsync(
	T &symbol, const void *src, size_t count, size_t offset = 0,
	cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0)
{
	(void)stream;
	return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
template <class T> static inline cudaError_t cudaMemcpyFromSymbolAsync(
	void *dst, const T &symbol, size_t count, size_t offset = 0,
	cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0)
{
	(void)stream;
	return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
/* A __device__ variable lives in the emulator's (host) memory: its address is the device address. */
template <class T> static inline cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol)
{
	*devPtr = (void *)&symbol;
	return cudaSuccess;
}
template <class T> static inline cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol)
{
	(void)symbol;
	*size = sizeof(T);
	return cudaSuccess;
}
#endif

#undef CUEMU_DV
