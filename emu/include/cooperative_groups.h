#error "cooperative groups are not supported by the CPU emulator (cuemu): use __syncthreads() and the __shfl_*_sync / __ballot_sync intrinsics"
