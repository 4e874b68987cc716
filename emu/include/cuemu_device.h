/*
 * The device side of CUDA C++ for the CPU emulator. cuemu-cc force-includes
 * this header (-include) into every .cu file it compiles as C++.
 *
 * How the pieces map:
 *   threadIdx, blockIdx, blockDim, gridDim  const globals the scheduler sets
 *       before it switches to a thread's fiber (a fiber never sees another
 *       value, so the compiler may keep them in registers across calls)
 *   __shared__  a slot of the runtime's shared arena (the rewriter declares
 *       a reference to it): one copy, used by one block at a time
 *   __syncthreads, warp intrinsics, atomics  calls into the runtime, which
 *       identifies the call site by its return address; the C++ wrappers
 *       are noinline so that address is in the student's code, and they
 *       are not instrumented so they are no traced accesses themselves
 *   k<<<g, b, smem, stream>>>(args)  the rewriter turns it into
 *       cuemu_launch_(__FILE__, __LINE__, "k", [=](auto&&...a){ k(a...); },
 *                     g, b, smem, stream)(args)
 *       whose call evaluates the arguments once and runs the grid.
 */
#pragma once

#ifndef __cplusplus
#error "cuemu_device.h is for .cu files compiled as C++ by cuemu-cc"
#endif

#include <cassert>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <tuple>
#include <type_traits>
#include <utility>
#include <type_traits>
#include <utility>

#include "cuda_runtime.h"

/* ---- the macros nvcc defines ----------------------------------------------- */
/* A file sees what nvcc would show it, and nothing of the emulator's own:
 * the headers use #pragma once, and the macros they need are undefined at
 * their end. The compiler's version is the runtime's (CUDART_VERSION):
 * cuemu-cc gives both the installed nvcc's where there is one, so that a
 * file cannot test the version to be another program than nvcc's. */
#define __NVCC__ 1
#define __CUDACC__ 1
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ 12
#define __CUDACC_VER_MINOR__ 0
#define __CUDACC_VER_BUILD__ 76
#endif
#define __CUDACC_DEVICE_ATOMIC_BUILTINS__ 1
#define __NVCC_DIAG_PRAGMA_SUPPORT__ 1
#define __CUDA_ARCH_LIST__ 900
#if __CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10 != CUDART_VERSION
#error "the compiler's version macros disagree with CUDART_VERSION"
#endif

/* ---- qualifiers ---------------------------------------------------------- */
/* Not while cuemu-cc preprocesses the file for the rewriter, which must see
 * __shared__ and __global__ themselves: the compile after the rewrite
 * force-includes cuemu_qualifiers.h. */

#if defined(__clang__)
#define CUEMU_SITE_FN static __attribute__((noinline, no_sanitize("thread")))
#else
#define CUEMU_SITE_FN static __attribute__((noinline, noipa, no_sanitize_thread))
#endif
#define CUEMU_PURE static inline __attribute__((always_inline, no_sanitize_thread))
#define CUEMU_RA() __builtin_return_address(0)

/* ---- the runtime's side ------------------------------------------------------ */
extern "C" {
/* Linked under cuemu_ names (asm labels), so that a student's object file
 * calls only names the grader's symbol check knows as the emulator's. */
extern const uint3 threadIdx __asm__("cuemu_threadIdx");
extern const uint3 blockIdx __asm__("cuemu_blockIdx");
extern const dim3 blockDim __asm__("cuemu_blockDim");
extern const dim3 gridDim __asm__("cuemu_gridDim");
extern char cuemu_dyn_smem[];
void *cuemu_shared_slot(size_t size, size_t align, const char *name);

void cuemu_launch_kernel(const char *file, int line, const char *name, dim3 grid, dim3 block,
			 size_t smem, cudaStream_t stream, void (*thunk)(void *), void *args,
			 size_t args_size);
void __syncthreads(void) __asm__("cuemu_syncthreads");
int __syncthreads_count(int predicate) __asm__("cuemu_syncthreads_count");
int __syncthreads_and(int predicate) __asm__("cuemu_syncthreads_and");
int __syncthreads_or(int predicate) __asm__("cuemu_syncthreads_or");
void __syncwarp(unsigned int mask = 0xffffffffu) __asm__("cuemu_syncwarp");
unsigned int __activemask(void) __asm__("cuemu_activemask");
unsigned int __ballot_sync(unsigned int mask, int predicate) __asm__("cuemu_ballot_sync");
int __any_sync(unsigned int mask, int predicate) __asm__("cuemu_any_sync");
int __all_sync(unsigned int mask, int predicate) __asm__("cuemu_all_sync");
void cuemu_warp_op(int op, unsigned int mask, const void *val, void *out, int size, int arg, int width,
		   void *site);
unsigned long long cuemu_atomic(int op, int type, void *p, unsigned long long v,
				unsigned long long cmp, void *site);
/* Whether a __host__ __device__ function runs as device code (rewrite/arch.c). */
int cuemu_in_device_code(void);
/* The name of the kernel at fn, for a launch through a pointer (kernel_name.c). */
const char *cuemu_kernel_name(const void *fn, const char *fallback);
}

static constexpr int warpSize = 32;

/* Operation and type codes shared with emu/runtime/warp.c and atomic.c. */
enum { CUEMU_W_SHFL_IDX, CUEMU_W_SHFL_UP, CUEMU_W_SHFL_DOWN, CUEMU_W_SHFL_XOR,
       CUEMU_W_REDUCE_ADD, CUEMU_W_REDUCE_MIN, CUEMU_W_REDUCE_MAX, CUEMU_W_REDUCE_AND,
       CUEMU_W_REDUCE_OR, CUEMU_W_REDUCE_XOR, CUEMU_W_MATCH_ANY };
enum { CUEMU_A_ADD, CUEMU_A_SUB, CUEMU_A_EXCH, CUEMU_A_MIN, CUEMU_A_MAX, CUEMU_A_INC,
       CUEMU_A_DEC, CUEMU_A_CAS, CUEMU_A_AND, CUEMU_A_OR, CUEMU_A_XOR };
enum { CUEMU_T_I32, CUEMU_T_U32, CUEMU_T_I64, CUEMU_T_U64, CUEMU_T_F32, CUEMU_T_F64, CUEMU_T_U16 };

/* ---- kernel launch ------------------------------------------------------------ */
namespace {
template <class F> struct cuemu_launcher_ {
	const char *file;
	int line;
	const char *name;
	const void *fn;	/* the kernel, where the expression is one function */
	F f;
	dim3 grid, block;
	size_t smem;
	cudaStream_t stream;

	/* The arguments are evaluated and copied once, as a launch does; every
	 * CUDA thread then calls the kernel with copies of them. */
	template <class... A> void operator()(A &&...a)
	{
		/* The lambda by value: what it captured (a kernel's function
		 * pointer) is copied onto each thread's stack with the arguments. */
		struct state {
			F f;
			std::tuple<typename std::decay<A>::type...> args;
		};
		state s{f, std::tuple<typename std::decay<A>::type...>(std::forward<A>(a)...)};
		cuemu_launch_kernel(file, line, fn ? cuemu_kernel_name(fn, name) : name, grid, block, smem, stream,
				    &cuemu_launcher_::run<state>, &s, sizeof s);
	}

	/* Each thread copies the arguments onto its own stack first: reading
	 * them there is a local access the runtime does not look at. */
	template <class S> __attribute__((no_sanitize_thread)) static void run(void *p)
	{
		S s = *static_cast<S *>(p);
		std::apply(s.f, s.args);
	}
};
}

/* A __shared__ variable, as the rewriter declares it: a reference to its
 * slot in the runtime's shared arena, taken the first time it runs. Not
 * inlined: the slot is a static of the student's object, whose data is
 * global memory to the trace, and reading it must stay uninstrumented. */
template <class R> CUEMU_SITE_FN R cuemu_shared_ref_(void *&slot, const char *name)
{
	typedef typename std::remove_reference<R>::type T;
	if (__builtin_expect(!slot, 0))
		slot = cuemu_shared_slot(sizeof(T), alignof(T), name);
	return *static_cast<T *>(slot);
}

/* A launch argument written as NULL or 0 (the rewriter's doing): converts
 * to whatever pointer or number the kernel's parameter is. In an unnamed
 * namespace, like the launcher: nothing of ours may be a global symbol of
 * the student's object (the grader's symbol check refuses those). */
namespace {
struct cuemu_null_ {
	template <class T> constexpr operator T *() const { return nullptr; }
	template <class T, class = typename std::enable_if<std::is_arithmetic<T>::value>::type>
	constexpr operator T() const
	{
		return T(0);
	}
};
}

/* The kernel a launch's expression names, where it is one function (a
 * kernel's name, a function pointer); NULL for a template whose arguments
 * the call deduces. l: [=](auto d) -> decltype(cuemu_kptr_(d, KERNEL)),
 * which cannot be called when KERNEL names no one function. */
namespace {
template <class D, class K> inline K *cuemu_kptr_(D, K *k)
{
	return k;
}
template <class L> inline const void *cuemu_kernel_ptr_(L l)
{
	if constexpr (std::is_invocable<L, int>::value)
		return reinterpret_cast<const void *>(l(0));
	else
		return nullptr;
}
}

template <class F>
static inline cuemu_launcher_<F> cuemu_launch_(const char *file, int line, const char *name, const void *fn,
					       F f, dim3 grid, dim3 block, size_t smem = 0,
					       cudaStream_t stream = 0)
{
	return cuemu_launcher_<F>{file, line, name, fn, f, grid, block, smem, stream};
}

/* cudaLaunchKernel(k, grid, block, args, smem, stream), as the rewriter
 * writes it (rewrite/launch_api.c: its cast to a void pointer dropped):
 * args[i] points at the kernel's i-th argument, read as the type of its
 * i-th parameter, as the GPU's runtime reads it. A kernel known only as a
 * void pointer names no parameter types: a compile-time error says so. */
namespace {
template <class... P, size_t... I>
inline void cuemu_launch_unpack_(const char *file, int line, const char *name, void (*k)(P...), dim3 grid,
				 dim3 block, void **args, size_t smem, cudaStream_t stream, std::index_sequence<I...>)
{
	cuemu_launch_(file, line, name, reinterpret_cast<const void *>(k), [=](auto &&...a) { k(a...); }, grid,
		      block, smem, stream)(*static_cast<typename std::remove_cv<P>::type *>(args[I])...);
}
template <class... P>
inline cudaError_t cuemu_launch_api_(const char *file, int line, const char *name, void (*k)(P...), dim3 grid,
				     dim3 block, void **args, size_t smem = 0, cudaStream_t stream = 0)
{
	if (!k || (sizeof...(P) > 0 && !args))
		return cudaErrorInvalidValue;
	cuemu_launch_unpack_(file, line, name, k, grid, block, args, smem, stream, std::index_sequence_for<P...>{});
	return cudaPeekAtLastError();
}
template <class T> struct cuemu_not_a_kernel_ : std::false_type {};
template <class T>
inline cudaError_t cuemu_launch_api_(const char *, int, const char *, T *, dim3, dim3, void **, size_t = 0,
				     cudaStream_t = 0)
{
	static_assert(cuemu_not_a_kernel_<T>::value,
		      "cudaLaunchKernel in the CPU emulator needs the kernel itself as its first argument "
		      "(cudaLaunchKernel((void *)kernel, ...)), not a pointer that has lost its type");
	return cudaErrorInvalidDeviceFunction;
}
}

/* ---- warp intrinsics ----------------------------------------------------------- */
template <class T> CUEMU_SITE_FN T cuemu_warp_(int op, unsigned mask, T v, int arg, int width, void *site)
{
	static_assert(sizeof(T) <= 8, "warp intrinsics move at most 8 bytes");
	T out;
	cuemu_warp_op(op, mask, &v, &out, (int)sizeof(T), arg, width, site);
	return out;
}
template <class T> CUEMU_SITE_FN T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32)
{
	return cuemu_warp_(CUEMU_W_SHFL_IDX, mask, var, srcLane, width, CUEMU_RA());
}
template <class T> CUEMU_SITE_FN T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32)
{
	return cuemu_warp_(CUEMU_W_SHFL_UP, mask, var, (int)delta, width, CUEMU_RA());
}
template <class T> CUEMU_SITE_FN T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32)
{
	return cuemu_warp_(CUEMU_W_SHFL_DOWN, mask, var, (int)delta, width, CUEMU_RA());
}
template <class T> CUEMU_SITE_FN T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32)
{
	return cuemu_warp_(CUEMU_W_SHFL_XOR, mask, var, laneMask, width, CUEMU_RA());
}
#define CUEMU_REDUCE(fn, op, T)                                                         \
	CUEMU_SITE_FN T fn(unsigned mask, T v)                                   \
	{                                                                               \
		return cuemu_warp_(op | (std::is_signed<T>::value ? 0x100 : 0), mask, v, 0, 32, \
				   CUEMU_RA());                                         \
	}
CUEMU_REDUCE(__reduce_add_sync, CUEMU_W_REDUCE_ADD, unsigned)
CUEMU_REDUCE(__reduce_add_sync, CUEMU_W_REDUCE_ADD, int)
CUEMU_REDUCE(__reduce_min_sync, CUEMU_W_REDUCE_MIN, unsigned)
CUEMU_REDUCE(__reduce_min_sync, CUEMU_W_REDUCE_MIN, int)
CUEMU_REDUCE(__reduce_max_sync, CUEMU_W_REDUCE_MAX, unsigned)
CUEMU_REDUCE(__reduce_max_sync, CUEMU_W_REDUCE_MAX, int)
CUEMU_REDUCE(__reduce_and_sync, CUEMU_W_REDUCE_AND, unsigned)
CUEMU_REDUCE(__reduce_or_sync, CUEMU_W_REDUCE_OR, unsigned)
CUEMU_REDUCE(__reduce_xor_sync, CUEMU_W_REDUCE_XOR, unsigned)
#undef CUEMU_REDUCE
template <class T> CUEMU_SITE_FN unsigned __match_any_sync(unsigned mask, T v)
{
	unsigned long long bits = 0;
	std::memcpy(&bits, &v, sizeof v);
	return (unsigned)cuemu_warp_(CUEMU_W_MATCH_ANY, mask, bits, 0, 32, CUEMU_RA());
}
/* All of mask hold the same value: mask (and *pred 1) when every lane's
 * matching set is the whole mask, else 0. */
template <class T> CUEMU_SITE_FN unsigned __match_all_sync(unsigned mask, T v, int *pred)
{
	unsigned long long bits = 0;
	std::memcpy(&bits, &v, sizeof v);
	unsigned same = (unsigned)cuemu_warp_(CUEMU_W_MATCH_ANY, mask, bits, 0, 32, CUEMU_RA());
	*pred = same == mask;
	return same == mask ? mask : 0;
}

/* ---- atomics --------------------------------------------------------------------- */
template <class T> CUEMU_PURE unsigned long long cuemu_bits_(T v)
{
	unsigned long long b = 0;
	std::memcpy(&b, &v, sizeof v);
	return b;
}
template <class T> CUEMU_PURE T cuemu_from_bits_(unsigned long long b)
{
	T v;
	std::memcpy(&v, &b, sizeof v);
	return v;
}
#define CUEMU_ATOMIC(fn, op, T, code)                                                        \
	CUEMU_SITE_FN T fn(T *p, T v)                                                 \
	{                                                                                    \
		return cuemu_from_bits_<T>(cuemu_atomic(op, code, p, cuemu_bits_(v), 0, CUEMU_RA())); \
	}
CUEMU_ATOMIC(atomicAdd, CUEMU_A_ADD, int, CUEMU_T_I32)
CUEMU_ATOMIC(atomicAdd, CUEMU_A_ADD, unsigned int, CUEMU_T_U32)
CUEMU_ATOMIC(atomicAdd, CUEMU_A_ADD, unsigned long long, CUEMU_T_U64)
CUEMU_ATOMIC(atomicAdd, CUEMU_A_ADD, float, CUEMU_T_F32)
CUEMU_ATOMIC(atomicAdd, CUEMU_A_ADD, double, CUEMU_T_F64)
CUEMU_ATOMIC(atomicSub, CUEMU_A_SUB, int, CUEMU_T_I32)
CUEMU_ATOMIC(atomicSub, CUEMU_A_SUB, unsigned int, CUEMU_T_U32)
CUEMU_ATOMIC(atomicExch, CUEMU_A_EXCH, int, CUEMU_T_I32)
CUEMU_ATOMIC(atomicExch, CUEMU_A_EXCH, unsigned int, CUEMU_T_U32)
CUEMU_ATOMIC(atomicExch, CUEMU_A_EXCH, unsigned long long, CUEMU_T_U64)
CUEMU_ATOMIC(atomicExch, CUEMU_A_EXCH, float, CUEMU_T_F32)
CUEMU_ATOMIC(atomicMin, CUEMU_A_MIN, int, CUEMU_T_I32)
CUEMU_ATOMIC(atomicMin, CUEMU_A_MIN, unsigned int, CUEMU_T_U32)
CUEMU_ATOMIC(atomicMin, CUEMU_A_MIN, long long, CUEMU_T_I64)
CUEMU_ATOMIC(atomicMin, CUEMU_A_MIN, unsigned long long, CUEMU_T_U64)
CUEMU_ATOMIC(atomicMax, CUEMU_A_MAX, int, CUEMU_T_I32)
CUEMU_ATOMIC(atomicMax, CUEMU_A_MAX, unsigned int, CUEMU_T_U32)
CUEMU_ATOMIC(atomicMax, CUEMU_A_MAX, long long, CUEMU_T_I64)
CUEMU_ATOMIC(atomicMax, CUEMU_A_MAX, unsigned long long, CUEMU_T_U64)
CUEMU_ATOMIC(atomicInc, CUEMU_A_INC, unsigned int, CUEMU_T_U32)
CUEMU_ATOMIC(atomicDec, CUEMU_A_DEC, unsigned int, CUEMU_T_U32)
CUEMU_ATOMIC(atomicAnd, CUEMU_A_AND, int, CUEMU_T_I32)
CUEMU_ATOMIC(atomicAnd, CUEMU_A_AND, unsigned int, CUEMU_T_U32)
CUEMU_ATOMIC(atomicAnd, CUEMU_A_AND, unsigned long long, CUEMU_T_U64)
CUEMU_ATOMIC(atomicOr, CUEMU_A_OR, int, CUEMU_T_I32)
CUEMU_ATOMIC(atomicOr, CUEMU_A_OR, unsigned int, CUEMU_T_U32)
CUEMU_ATOMIC(atomicOr, CUEMU_A_OR, unsigned long long, CUEMU_T_U64)
CUEMU_ATOMIC(atomicXor, CUEMU_A_XOR, int, CUEMU_T_I32)
CUEMU_ATOMIC(atomicXor, CUEMU_A_XOR, unsigned int, CUEMU_T_U32)
CUEMU_ATOMIC(atomicXor, CUEMU_A_XOR, unsigned long long, CUEMU_T_U64)
#undef CUEMU_ATOMIC
#define CUEMU_CAS(T, code)                                                                   \
	CUEMU_SITE_FN T atomicCAS(T *p, T compare, T v)                               \
	{                                                                                    \
		return cuemu_from_bits_<T>(cuemu_atomic(CUEMU_A_CAS, code, p, cuemu_bits_(v),  \
							cuemu_bits_(compare), CUEMU_RA()));    \
	}
CUEMU_CAS(int, CUEMU_T_I32)
CUEMU_CAS(unsigned int, CUEMU_T_U32)
CUEMU_CAS(unsigned long long, CUEMU_T_U64)
CUEMU_CAS(unsigned short, CUEMU_T_U16)
#undef CUEMU_CAS
/* Scoped variants: one block runs at a time, so every scope is the same. */

/* ---- right shifts as the GPU computes them (rewrite/shift.c) ------------------------ */
/* The rewriter turns a device-code "a >> b" into "a << cuemu_shr_(__FILE__,
 * __LINE__) << b": the same precedence and associativity. A count of the
 * width or more gives what the GPU's clamping shift gives, 0 (or -1 for a
 * negative value), not x86's count modulo the width, and is reported. */
extern "C" void cuemu_shift_clamped(const char *file, int line, int bits, long long count);
struct cuemu_shr_ {
	const char *file;
	int line;
	constexpr cuemu_shr_(const char *f, int l) : file(f), line(l) {}
};
template <class L> struct cuemu_shr_lhs_ {
	L l;
	const char *file;
	int line;
};
template <class L> CUEMU_PURE constexpr cuemu_shr_lhs_<L> operator<<(L l, cuemu_shr_ t)
{
	return cuemu_shr_lhs_<L>{l, t.file, t.line};
}
template <class L, class R> CUEMU_PURE constexpr auto operator<<(cuemu_shr_lhs_<L> p, R r) -> decltype(p.l >> r)
{
	typedef decltype(p.l >> r) T;
	if constexpr ((std::is_integral<L>::value || std::is_enum<L>::value) && std::is_integral<R>::value) {
		constexpr int bits = (int)sizeof(T) * 8;
		if ((unsigned long long)r >= (unsigned long long)bits) {
			cuemu_shift_clamped(p.file, p.line, bits, (long long)r);
			return std::is_signed<T>::value && p.l < 0 ? T(-1) : T(0);
		}
	}
	return p.l >> r;
}

/* ---- memory order, loads through caches ------------------------------------------ */
CUEMU_PURE void __threadfence(void) { __asm__ __volatile__("" ::: "memory"); }
CUEMU_PURE void __threadfence_block(void) { __asm__ __volatile__("" ::: "memory"); }
CUEMU_PURE void __threadfence_system(void) { __asm__ __volatile__("" ::: "memory"); }
CUEMU_PURE void __nanosleep(unsigned int ns) { (void)ns; }
/* __ldg and the other cached loads and stores: the rewriter renames them
 * (rewrite/rename.c), so that the access stays on the student's line. */
CUEMU_PURE float cuemu_exp10f_(float x) { return powf(10.0f, x); }
#if defined(__x86_64__) || defined(__i386__)
CUEMU_PURE long long clock64(void) { return (long long)__builtin_ia32_rdtsc(); }
#else
CUEMU_PURE long long clock64(void) { return (long long)std::clock(); }
#endif

/* ---- integer and float intrinsics, min and max, vector types --------------------- */
#include "cuemu_intrinsics.h"
#include "cuemu_rounding.h"
#include "cuemu_simd.h"
/* ---- the math API beyond the C library's ---------------------------------------- */
#include "cuemu_math.h"
/* ---- what inline PTX becomes (rewrite/ptx.c) ------------------------------------- */
#include "cuemu_ptx.h"

#undef CUEMU_SITE_FN
#undef CUEMU_PURE
#undef CUEMU_RA
