/*
 * Every memory access of the student's code, through ThreadSanitizer's
 * instrumentation hooks (the student's file is compiled with
 * -fsanitize=thread and linked without TSan's runtime: these functions are
 * the runtime). The call's return address identifies the instruction.
 *
 * In a kernel, an access is classified by address:
 *   the thread's own stack, the launch's argument block, the rest of the
 *   program image (literals, libraries' data): not traced
 *   the device heap: global; it must lie inside a live cudaMalloc buffer
 *   the writable data of the .cu objects (__device__, __constant__ and
 *   __managed__ variables; cuemu-cc gives it sections of its own): global
 *   the shared arena, the cuemu_shared section, the dynamic buffer: shared;
 *   in the arena, a byte of no __shared__ array (a red zone) is a fault
 *   cudaMallocHost / managed memory: global
 *   anything else is host memory a kernel cannot see on a GPU: a fault.
 * In a traced block the thread then parks, so that the warp issues the
 * access as one request (sched.c, trace.c).
 *
 * On the host (no kernel running) only one thing is checked: that the
 * student's host code does not dereference a device pointer.
 */
#include "internal.h"

static const char *kind_name(int kind)
{
	return kind == AK_LOAD ? "load" : kind == AK_STORE ? "store" : "atomic";
}

/* In neither of the last two buffers (a kernel reads one and writes
 * another): the buffer table, which replaces one of them. */
static __attribute__((noinline)) void global_miss(struct thr *t, uintptr_t a, uint32_t n, int kind,
						  uintptr_t site)
{
	uintptr_t lo, hi;
	if (!heap_lookup(a, n, &lo, &hi)) {
		char what[256];
		if (heap_describe(a, n, what, sizeof what))
			rt.next_bounds_site = site;	/* just outside a buffer: as fault_bounds marks it */
		fault_kernel(t, site, "out-of-bounds global %s of %u bytes at %p: %s", kind_name(kind), n,
			     (void *)a, what);
	}
	rt.hit_lo[rt.hit_next] = lo;
	rt.hit_hi[rt.hit_next] = hi;
	rt.hit_next ^= 1;
}

/* Neither stack, heap nor shared memory. Returns the space to trace, or
 * SP_LOCAL for an access that is fine but not traced. */
static __attribute__((noinline)) int other_space(struct thr *t, uintptr_t a, uint32_t n, int kind, uintptr_t site)
{
	if (a >= rt.args_lo && a + n <= rt.args_hi)
		return SP_LOCAL;
	if (a - rt.gdata_lo < rt.gdata_span || a - rt.gbss_lo < rt.gbss_span)
		return SP_GLOBAL;
	if (a >= rt.image_lo && a + n <= rt.image_hi)
		return SP_LOCAL;
	if (host_mapped(a, n))
		return SP_GLOBAL;
	if (a < 65536)
		fault_kernel(t, site, "%s of %u bytes at address %p: a NULL (or nearly NULL) pointer",
			     kind_name(kind), n, (void *)a);
	fault_kernel(t, site, "%s of %u bytes at %p, which is not device memory: either a host "
		     "pointer (kernels can only use pointers from cudaMalloc: copy the data there with "
		     "cudaMemcpy first) or an index far outside its array", kind_name(kind), n,
		     (void *)a);
}

/* The memory space of an address, as __isGlobal, __isShared and __isLocal
 * ask it (cuemu_math.h): 1 global (device buffers, __device__ and
 * __constant__ variables, mapped host memory), 2 shared, 3 a thread's own
 * stack, 0 anything else. */
int cuemu_space_of_(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	if (a - rt.heap_lo < rt.heap_span || a - rt.gdata_lo < rt.gdata_span ||
	    a - rt.gbss_lo < rt.gbss_span || host_mapped(a, 1))
		return 1;
	if (a - rt.shared_lo < ARENA_SPAN || a - rt.section_lo < rt.section_span || a - rt.dyn_lo < DYN_SMEM_MAX)
		return 2;
	return a - rt.stack_lo < rt.stack_span ? 3 : 0;
}

/* The hot path: every access of every thread comes here. */
static inline __attribute__((always_inline)) void cuemu_access(uintptr_t a, uint32_t n, int kind,
								  uintptr_t site)
{
	struct thr *t = rt.cur;
	int space;
	t->last_site = site;
	if (a - rt.stack_lo < rt.stack_span)
		return;
	if (a - rt.heap_lo < rt.heap_span) {
		if (unlikely(a < rt.hit_lo[0] || a + n > rt.hit_hi[0]) &&
		    unlikely(a < rt.hit_lo[1] || a + n > rt.hit_hi[1]))
			global_miss(t, a, n, kind, site);
		space = SP_GLOBAL;
	} else if (a - rt.shared_lo < ARENA_SPAN) {
		if (unlikely(shared_red(a, n)))
			shared_check(t, a, n, kind, site);
		space = SP_SHARED;
	} else if (a - rt.section_lo < rt.section_span) {
		space = SP_SHARED;
	} else if (a - rt.dyn_lo < DYN_SMEM_MAX) {
		if (unlikely(a + n > rt.dyn_lo + rt.dyn_bytes))
			shared_dyn_fault(t, a, n, kind, site);
		space = SP_SHARED;
	} else {
		space = other_space(t, a, n, kind, site);
		if (space == SP_LOCAL)
			return;
	}
	if (space == SP_GLOBAL)
		rt.launch_global_bytes[kind] += n;
	coverage_note(site);
	if (!rt.tracing_block)
		return;
	t->addr = a;
	t->size = n;
	t->kind = (uint8_t)kind;
	t->space = (uint8_t)space;
	t->site = site;
	sched_park(t);
}

void cuemu_access_checked(uintptr_t a, uint32_t n, int kind, uintptr_t site)
{
	cuemu_access(a, n, kind, site);
}

static __attribute__((noinline)) void host_access(uintptr_t a, uintptr_t site)
{
	char where[256], what[256];
	if (a - rt.heap_lo >= rt.heap_span || !heap_is_device(a))
		return;
	heap_describe(a, 1, what, sizeof what);
	fault_fatal("the host dereferenced device pointer %p at %s (%s): device memory is for "
		    "kernels and cudaMemcpy only; copy the data to a host buffer first",
		    (void *)a, site_text(site, where, sizeof where), what);
}

void access_at(uintptr_t a, uint32_t n, int kind, uintptr_t site)
{
	if (likely(rt.in_kernel))
		cuemu_access(a, n, kind, site);
	else
		host_access(a, site);
}

#define ACCESS(a, n, kind)                                                          \
	do {                                                                        \
		if (likely(rt.in_kernel))                                           \
			cuemu_access((uintptr_t)(a), (n), (kind), RA());            \
		else                                                                \
			host_access((uintptr_t)(a), RA());                          \
	} while (0)

#define HOOKS(n)                                                                         \
	void __tsan_read##n(void *a) { ACCESS(a, n, AK_LOAD); }                           \
	void __tsan_write##n(void *a) { ACCESS(a, n, AK_STORE); }                         \
	void __tsan_unaligned_read##n(void *a) { ACCESS(a, n, AK_LOAD); }                 \
	void __tsan_unaligned_write##n(void *a) { ACCESS(a, n, AK_STORE); }               \
	void __tsan_volatile_read##n(void *a) { ACCESS(a, n, AK_LOAD); }                  \
	void __tsan_volatile_write##n(void *a) { ACCESS(a, n, AK_STORE); }                \
	void __tsan_unaligned_volatile_read##n(void *a) { ACCESS(a, n, AK_LOAD); }        \
	void __tsan_unaligned_volatile_write##n(void *a) { ACCESS(a, n, AK_STORE); }      \
	void __tsan_read##n##_pc(void *a, void *pc) { (void)pc; ACCESS(a, n, AK_LOAD); }  \
	void __tsan_write##n##_pc(void *a, void *pc) { (void)pc; ACCESS(a, n, AK_STORE); }

/* Declared here: no header declares TSan's interface for us. */
#define DECLARE(n)                                                                        \
	void __tsan_read##n(void *a);                                                     \
	void __tsan_write##n(void *a);                                                    \
	void __tsan_unaligned_read##n(void *a);                                           \
	void __tsan_unaligned_write##n(void *a);                                          \
	void __tsan_volatile_read##n(void *a);                                            \
	void __tsan_volatile_write##n(void *a);                                           \
	void __tsan_unaligned_volatile_read##n(void *a);                                  \
	void __tsan_unaligned_volatile_write##n(void *a);                                 \
	void __tsan_read##n##_pc(void *a, void *pc);                                      \
	void __tsan_write##n##_pc(void *a, void *pc);
DECLARE(1)
DECLARE(2)
DECLARE(4)
DECLARE(8)
DECLARE(16)
HOOKS(1)
HOOKS(2)
HOOKS(4)
HOOKS(8)
HOOKS(16)

/* Struct and array copies the compiler expands inline: traced piece by
 * piece, as the GPU copies them (mem_ops.c). */
void __tsan_read_range(void *a, unsigned long n);
void __tsan_write_range(void *a, unsigned long n);
void __tsan_read_range(void *a, unsigned long n)
{
	mem_range((uintptr_t)a, n, AK_LOAD, RA());
}
void __tsan_write_range(void *a, unsigned long n)
{
	mem_range((uintptr_t)a, n, AK_STORE, RA());
}

/* Calls the instrumented code makes that need no work here. */
void __tsan_init(void);
void __tsan_func_entry(void *pc);
void __tsan_func_exit(void);
void __tsan_vptr_update(void **vptr, void *val);
void __tsan_vptr_read(void **vptr);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
void __tsan_init(void) {}
void __tsan_func_entry(void *pc) { (void)pc; }
void __tsan_func_exit(void) {}
void __tsan_vptr_update(void **vptr, void *val) { (void)vptr; (void)val; }
void __tsan_vptr_read(void **vptr) { (void)vptr; }
void __tsan_ignore_thread_begin(void) {}
void __tsan_ignore_thread_end(void) {}

/* clang turns memcpy and friends into these (g++'s calls are renamed by
 * cuemu-cc to mem_ops.c's functions instead). */
void *__tsan_memcpy(void *d, const void *s, size_t n);
void *__tsan_memmove(void *d, const void *s, size_t n);
void *__tsan_memset(void *d, int c, size_t n);
void *__tsan_memcpy(void *d, const void *s, size_t n)
{
	mem_copy(d, s, n, RA());
	return d;
}
void *__tsan_memmove(void *d, const void *s, size_t n)
{
	mem_copy(d, s, n, RA());
	return d;
}
void *__tsan_memset(void *d, int c, size_t n)
{
	mem_fill(d, c, n, RA());
	return d;
}

/* std::atomic and __atomic builtins in student code: atomic accesses. One
 * OS thread runs a process's CUDA threads, but the workers of a parallel
 * launch share device memory (blocks_parallel.c): the operation is a real
 * atomic, made after every earlier block has ended. */
#define SC __ATOMIC_SEQ_CST
#define ATOMIC_OPS(bits, T)                                                                       \
	T __tsan_atomic##bits##_load(const volatile T *a, int mo);                                \
	void __tsan_atomic##bits##_store(volatile T *a, T v, int mo);                             \
	T __tsan_atomic##bits##_exchange(volatile T *a, T v, int mo);                             \
	T __tsan_atomic##bits##_fetch_add(volatile T *a, T v, int mo);                            \
	T __tsan_atomic##bits##_fetch_sub(volatile T *a, T v, int mo);                            \
	T __tsan_atomic##bits##_fetch_and(volatile T *a, T v, int mo);                            \
	T __tsan_atomic##bits##_fetch_or(volatile T *a, T v, int mo);                             \
	T __tsan_atomic##bits##_fetch_xor(volatile T *a, T v, int mo);                            \
	T __tsan_atomic##bits##_fetch_nand(volatile T *a, T v, int mo);                           \
	int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int f); \
	int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int f);   \
	T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int f);       \
	T __tsan_atomic##bits##_load(const volatile T *a, int mo)                                 \
	{                                                                                         \
		(void)mo;                                                                         \
		ACCESS(a, sizeof(T), AK_ATOMIC);                                                  \
		par_atomic_turn();                                                                \
		return __atomic_load_n(a, SC);                                                    \
	}                                                                                         \
	void __tsan_atomic##bits##_store(volatile T *a, T v, int mo)                              \
	{                                                                                         \
		(void)mo;                                                                         \
		ACCESS(a, sizeof(T), AK_ATOMIC);                                                  \
		par_atomic_turn();                                                                \
		__atomic_store_n(a, v, SC);                                                       \
	}                                                                                         \
	T __tsan_atomic##bits##_exchange(volatile T *a, T v, int mo)                              \
	{                                                                                         \
		(void)mo;                                                                         \
		ACCESS(a, sizeof(T), AK_ATOMIC);                                                  \
		par_atomic_turn();                                                                \
		return __atomic_exchange_n(a, v, SC);                                             \
	}                                                                                         \
	ATOMIC_RMW(bits, T, fetch_add)                                                            \
	ATOMIC_RMW(bits, T, fetch_sub)                                                            \
	ATOMIC_RMW(bits, T, fetch_and)                                                            \
	ATOMIC_RMW(bits, T, fetch_or)                                                             \
	ATOMIC_RMW(bits, T, fetch_xor)                                                            \
	ATOMIC_RMW(bits, T, fetch_nand)                                                           \
	int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, int f) \
	{                                                                                         \
		(void)mo;                                                                         \
		(void)f;                                                                          \
		ACCESS(a, sizeof(T), AK_ATOMIC);                                                  \
		par_atomic_turn();                                                                \
		return __atomic_compare_exchange_n(a, c, v, 0, SC, SC);                           \
	}                                                                                         \
	int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo, int f)  \
	{                                                                                         \
		return __tsan_atomic##bits##_compare_exchange_strong(a, c, v, mo, f);             \
	}                                                                                         \
	T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo, int f)      \
	{                                                                                         \
		(void)mo;                                                                         \
		(void)f;                                                                          \
		ACCESS(a, sizeof(T), AK_ATOMIC);                                                  \
		par_atomic_turn();                                                                \
		__atomic_compare_exchange_n(a, &c, v, 0, SC, SC);                                 \
		return c;                                                                         \
	}

#define ATOMIC_RMW(bits, T, name)                                      \
	T __tsan_atomic##bits##_##name(volatile T *a, T v, int mo)     \
	{                                                              \
		(void)mo;                                              \
		ACCESS(a, sizeof(T), AK_ATOMIC);                       \
		par_atomic_turn();                                     \
		return __atomic_##name(a, v, SC);                      \
	}

ATOMIC_OPS(8, unsigned char)
ATOMIC_OPS(16, unsigned short)
ATOMIC_OPS(32, unsigned int)
ATOMIC_OPS(64, unsigned long long)

void __tsan_atomic_thread_fence(int mo);
void __tsan_atomic_signal_fence(int mo);
void __tsan_atomic_thread_fence(int mo) { (void)mo; }
void __tsan_atomic_signal_fence(int mo) { (void)mo; }
