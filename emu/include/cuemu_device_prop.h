/*
 * The device's properties (cudaGetDeviceProperties, runtime/api.c), with
 * NVIDIA's field names and types. Part of cuda_runtime_api.h; plain C.
 */
#pragma once

/* The fields most programs read, with NVIDIA's names and types (CUDA 13
 * dropped clockRate and memoryClockRate, and so do we). */
/* A device's UUID, as cudaGetDeviceProperties gives it (the emulator's: zeros). */
struct CUuuid_st {
	char bytes[16];
};
typedef struct CUuuid_st cudaUUID_t;

struct cudaDeviceProp {
	char name[256];
	cudaUUID_t uuid;
	size_t totalGlobalMem;
	size_t sharedMemPerBlock;
	int regsPerBlock;
	int warpSize;
	size_t memPitch;
	int maxThreadsPerBlock;
	int maxThreadsDim[3];
	int maxGridSize[3];
	size_t totalConstMem;
	int major;
	int minor;
	size_t textureAlignment;
	int multiProcessorCount;
	int integrated;
	int canMapHostMemory;
	int concurrentKernels;
	int ECCEnabled;
	int pciBusID;
	int pciDeviceID;
	int pciDomainID;
	int asyncEngineCount;
	int unifiedAddressing;
	int memoryBusWidth;
	int l2CacheSize;
	int persistingL2CacheMaxSize;
	int maxThreadsPerMultiProcessor;
	size_t sharedMemPerMultiprocessor;
	int regsPerMultiprocessor;
	int managedMemory;
	int cooperativeLaunch;
	size_t sharedMemPerBlockOptin;
	int maxBlocksPerMultiProcessor;
	size_t reservedSharedMemPerBlock;
	/* The rest of CUDA 13's fields, in its order: what a device query prints.
	 * The emulator has no textures, surfaces, NUMA nodes or peers (0). */
	char luid[8];
	unsigned int luidDeviceNodeMask;
	size_t texturePitchAlignment;
	int maxTexture1D;
	int maxTexture1DMipmap;
	int maxTexture2D[2];
	int maxTexture2DMipmap[2];
	int maxTexture2DLinear[3];
	int maxTexture2DGather[2];
	int maxTexture3D[3];
	int maxTexture3DAlt[3];
	int maxTextureCubemap;
	int maxTexture1DLayered[2];
	int maxTexture2DLayered[3];
	int maxTextureCubemapLayered[2];
	int maxSurface1D;
	int maxSurface2D[2];
	int maxSurface3D[3];
	int maxSurface1DLayered[2];
	int maxSurface2DLayered[3];
	int maxSurfaceCubemap;
	int maxSurfaceCubemapLayered[2];
	size_t surfaceAlignment;
	int tccDriver;
	int streamPrioritiesSupported;
	int globalL1CacheSupported;
	int localL1CacheSupported;
	int isMultiGpuBoard;
	int multiGpuBoardGroupID;
	int hostNativeAtomicSupported;
	int pageableMemoryAccess;
	int concurrentManagedAccess;
	int computePreemptionSupported;
	int canUseHostPointerForRegisteredMem;
	int pageableMemoryAccessUsesHostPageTables;
	int directManagedMemAccessFromHost;
	int accessPolicyMaxWindowSize;
	int hostRegisterSupported;
	int sparseCudaArraySupported;
	int hostRegisterReadOnlySupported;
	int timelineSemaphoreInteropSupported;
	int memoryPoolsSupported;
	int gpuDirectRDMASupported;
	unsigned int gpuDirectRDMAFlushWritesOptions;
	int gpuDirectRDMAWritesOrdering;
	unsigned int memoryPoolSupportedHandleTypes;
	int deferredMappingCudaArraySupported;
	int ipcEventSupported;
	int clusterLaunch;
	int unifiedFunctionPointers;
	int deviceNumaConfig;
	int deviceNumaId;
	int mpsEnabled;
	int hostNumaId;
	unsigned int gpuPciDeviceID;
	unsigned int gpuPciSubsystemID;
	int hostNumaMultinodeIpcSupported;
};
