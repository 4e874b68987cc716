/*
 * CUDA's qualifiers for the CPU emulator. cuemu-cc force-includes this into
 * the compile of the rewritten file only: the preprocessing before the
 * rewrite must leave __shared__ and __global__ as written, and whatever is
 * defined here is no macro a student's #if could test.
 */
#pragma once

#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
/* The rewriter turns __shared__ declarations into arena slots; this is for
 * one in a header it leaves alone (under /usr): a static in a section the
 * runtime knows, which works outside templates. */
#define __shared__ static __attribute__((section("cuemu_shared"), used, aligned(16)))
#define __forceinline__ inline __attribute__((always_inline))
/* Not in the compile of cuemu-rewrite's output, whose system headers write
 * __attribute__((__noinline__)): the rewriter spelled the student's own
 * __noinline__ out already (emu/rewrite/noinline.c). */
#ifndef CUEMU_REWRITTEN
#define __noinline__ __attribute__((noinline))
#endif
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __device_builtin__
#define CUDART_CB
/* __ldg and the cached loads and stores, renamed by the rewriter
 * (rewrite/rename.c): macros, so that the access stays on the student's line. */
#define cuemu_ld_(p) (*(p))
#define cuemu_st_(p, v) ((void)(*(p) = (v)))
