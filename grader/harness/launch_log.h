/*
 * Every kernel launch the student's code makes, seen on its way to the CUDA
 * runtime (CUDA harness only).
 *
 * A harness that holds student code is linked with launch_wrap.c and `--wrap`
 * for the runtime's launch functions, so a launch written as
 * kernel<<<grid, block, shared>>>, or as cudaLaunchKernel(), is recorded here
 * before it reaches the runtime. The grader then asks the CUDA occupancy API about each kernel
 * actually launched: lab 4's occupancy is measured, not declared. Other ways
 * to launch (cudaLaunchKernelEx, graphs, the driver API) are refused by the
 * lab's integrity rules.
 */
#ifndef HARNESS_LAUNCH_LOG_H
#define HARNESS_LAUNCH_LOG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {	/* device_hash.cu and device_fill.cu, nvcc's C++, call launch_log_pause */
#endif

/* The linker flags that route launches through the log. */
#define LAUNCH_LOG_WRAP_FLAGS                                                                  \
	"-Xlinker", "--wrap=__cudaLaunchKernel", "-Xlinker", "--wrap=__cudaLaunchKernel_ptsz",   \
		"-Xlinker", "--wrap=cudaLaunchKernel", "-Xlinker", "--wrap=cudaLaunchKernel_ptsz", \
		"-Xlinker", "--wrap=__cudaGetKernel"

/* From launch_wrap.c: one launch (the handle or host stub it names, the
 * grid's and the block's x, y, z, dynamic shared bytes), and which host
 * stub a CUDA 13 kernel handle stands for. */
void launch_log_record(const void *kernel, const unsigned grid[3], const unsigned block[3], size_t shared);
void launch_log_handle(const void *handle, const void *fn);

void launch_log_reset(void);

/* paused != 0: launches are not recorded until launch_log_pause(0). The
 * kit's own kernels (device_hash.cu, device_fill.cu) are launched paused:
 * they are no launches of the student's, and lab 4 grades occupancy from
 * this log. A student's file cannot call this: the lab's integrity rules
 * refuse calls into the kit (grader/steps/integrity.c). */
void launch_log_pause(int paused);

/* Appends ,"launches":[{...}] to the JSON object being built in buf (at
 * offset at), one entry per distinct launch configuration since the last
 * reset: kernel name (the compiler's, and demangled as "name"), grid and
 * block size (blocks and threads, and "grid_dims" and "block_dims", each
 * [x, y, z], which the grader compares with the emulator's launches,
 * grader/steps/launch_match.h), dynamic and static shared memory,
 * registers, resident blocks per SM and occupancy from the CUDA occupancy
 * API, and how many times it was launched. Returns the new offset. */
size_t launch_log_json(char *buf, size_t len, size_t at);

#ifdef __cplusplus
}
#endif

#endif
