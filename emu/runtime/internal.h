/*
 * The emulator runtime's shared state and the interfaces between its files.
 *
 * One OS thread runs everything. A launch runs its blocks one at a time;
 * each CUDA thread of the running block is a fiber (fiber.c) with its own
 * stack. The scheduler (sched.c) resumes the fibers warp by warp; a fiber
 * gives control back when it parks: at a barrier, at a warp collective, at
 * its end, and, in a traced block, at every global or shared access
 * (access.c), so that the warp's lanes issue that access together as one
 * request (trace.c).
 */
#ifndef CUEMU_INTERNAL_H
#define CUEMU_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "cuda_runtime_api.h"

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define RA() ((uintptr_t)__builtin_return_address(0))

#define WARP 32
#define MAX_THREADS 1024
#define MAX_WARPS (MAX_THREADS / WARP)
#define DYN_SMEM_MAX (228u * 1024u)	/* the largest opt-in shared memory of a block */
#define DEFAULT_SMEM_LIMIT (48u * 1024u)
#define ARENA_BYTES (1024u * 1024u)	/* every kernel's static shared memory, together */
#define SHARED_REDZONE 1024u	/* at least this gap after each __shared__ array (shared_arena.c) */
#define ARENA_SPAN (2u * ARENA_BYTES)	/* the arrays and their red zones */
#define WORK_LOADED 8		/* the words a thread loaded that work.c remembers */

enum space { SP_LOCAL, SP_GLOBAL, SP_SHARED, SP_WARP };
enum akind { AK_LOAD, AK_STORE, AK_ATOMIC };
enum tstate { T_RUNNABLE, T_PARKED, T_BARRIER, T_EXITED };

/* Warp collectives beyond the header's shuffle and reduce codes. */
enum { W_BALLOT = 32, W_ANY, W_ALL, W_ACTIVEMASK, W_SYNCWARP };

/* One cache line holds the fields every switch reads or writes (sp to
 * last_site): a record that straddled two lines cost a block of 1024
 * threads twice the lines each barrier interval. */
struct __attribute__((aligned(64))) thr {
	void *sp;		/* saved stack pointer while switched out, NULL before it starts (fiber.c) */
	uint3 tid;
	int id;			/* linear index in the block */
	int state;
	uintptr_t site;		/* where it is parked, or waits at a barrier */
	uintptr_t last_site;	/* the last traced access: "it was spinning here" */
	/* the access it is parked at */
	uintptr_t addr;
	uint32_t size;
	uint8_t kind;
	uint8_t space;
	/* the collective it is parked at */
	int op, arg, width, vsize;
	unsigned mask;
	uint64_t val, out;
	/* work.c: the last words it loaded, and its store whose value is not read yet */
	uint32_t loaded[WORK_LOADED];
	uint8_t n_loaded, next_loaded;
	uintptr_t pending_addr;
	uint32_t pending_size;
	uintptr_t pending_site;
	uintptr_t copy_lo, copy_hi;	/* the destination an inline copy announced (mem_ops.c) */
};

struct launch {
	const char *file;
	int line;
	const char *name;
	dim3 grid, block;
	size_t smem;
	void (*thunk)(void *);
	void *args;
	size_t args_size;
	int nthreads;
	uint64_t block_linear;
	struct launch_rec *rec;	/* metrics, or NULL when not tracing */
	int traced_blocks;
	int divergence_seen;
	uint64_t combines;	/* work.c: combining thread-operations in traced blocks */
};

struct rt {
	int initialised;
	int in_kernel;
	int mode;		/* cuemu_set_tracing */
	long trace_blocks;	/* < 0: all */
	uint64_t sample_seed;	/* which blocks are traced (sample.c) */
	int skip_untraced;	/* blocks that are not traced do not run (prediction runs) */
	int device_sms;		/* the SM count the device properties report */
	int tracing_block;	/* the running block is in lockstep */
	/* The global bytes every block of the running launch has accessed, by
	 * akind, traced or not (perf.c: the grid's work beside the sample's). */
	uint64_t launch_global_bytes[3];
	int workers;		/* processes a launch may run its blocks in (blocks_parallel.c) */
	int par_worker;		/* this process is a launch's worker */
	int aborted;		/* a fault ended the running launch */
	struct thr *cur;
	struct thr *threads;
	struct launch *launch;
	uint64_t interval;	/* stamp of the running barrier interval (race shadow) */
	uint32_t block_serial;	/* stamp of the running traced block (uninit shadow) */
	int first_traced;	/* the running block is the launch's first traced one */

	/* address ranges, for classifying an access */
	uintptr_t stack_lo, stack_span;
	uintptr_t heap_lo, heap_span;
	uintptr_t hit_lo[2], hit_hi[2];	/* the buffers of the last global accesses */
	int hit_next;			/* the entry a miss replaces */
	uintptr_t shared_lo, shared_span;	/* the arena of __shared__ slots (used part, red zones too) */
	uintptr_t section_lo, section_span;	/* __shared__ made by macros: a section */
	uintptr_t dyn_lo;
	size_t dyn_bytes;
	uintptr_t args_lo, args_hi;
	uintptr_t image_lo, image_hi;
	uintptr_t gdata_lo, gdata_span, gbss_lo, gbss_span;	/* the .cu objects' variables */
	struct coverage *cov;	/* the running launch's call sites (coverage.c), or NULL */
	uint32_t cov_stamp;	/* of the running block, in cov_cache */

	size_t stack_size;
	double kernel_timeout_s;
	int quiet;
	void (*stop_hook)(const char *kind, const char *kernel, const char *where,
			  const char *message);	/* cuemu_set_stop_hook */

	/* errors */
	cudaError_t last_error;
	cudaError_t sticky_error;
	char fault[1024];
	int have_fault;
	/* Where the recorded fault accessed memory just outside a buffer
	 * (fault_bounds), or 0; the next one's, until fault_report takes it. */
	uintptr_t fault_bounds_site, next_bounds_site;
};

extern struct rt rt;
extern uint3 cuemu_threadIdx, cuemu_blockIdx;
extern dim3 cuemu_blockDim, cuemu_gridDim;
extern char cuemu_dyn_smem[];

/* state.c */
void rt_init(void);
cudaError_t rt_error(cudaError_t e);	/* records e as the last error, returns it */
cudaError_t rt_gate(void);		/* the sticky error, or cudaSuccess */

/* fiber.c */
void fiber_pool_reserve(int nthreads);
/* A block starts: none of its threads has run; each starts at `start` when
 * first resumed or switched to. */
void fiber_block_begin(int nthreads, void (*start)(void));
void fiber_resume(struct thr *t);	/* scheduler -> t, returns when t yields */
void fiber_yield(struct thr *t);	/* t -> scheduler */
void fiber_switch(struct thr *from, struct thr *to);	/* one fiber to another */
void fiber_end(struct thr *t);		/* t has ended: its stack is free once it switches away */
/* from has ended; if to has not run yet, to takes over from's stack and
 * becomes the running thread (returns 1): the caller runs it in place. */
int fiber_adopt(struct thr *from, struct thr *to);
int fiber_guard_hit(uintptr_t addr, int *thread);
void fiber_stack(int id, uintptr_t *lo, uintptr_t *hi);

/* sched.c */
void sched_run_block_at(struct launch *L, uint64_t b);	/* block b (linear) of L */
void sched_park(struct thr *t);		/* parks the running thread, returns when issued */
void sched_abort(void) __attribute__((noreturn));	/* from a fiber: end the launch */
void sched_raise_smem_limit(size_t bytes);	/* cudaFuncSetAttribute */
size_t sched_smem_limit(void);			/* a launch's dynamic shared memory, at most */

/* api.c: cudaMemcpy2D for a call at site (cudaMemcpy2DAsync's too) */
cudaError_t api_memcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
			 size_t height, enum cudaMemcpyKind kind, uintptr_t site);

/* api.c: cudaFree for a call at site (cudaFreeAsync's too) */
cudaError_t api_free_at(void *devPtr, uintptr_t site);

/* heap.c */
void heap_init(void);
void *heap_alloc(size_t size, uintptr_t site);
int heap_free(void *p, uintptr_t site);
size_t heap_total(void);
size_t heap_free_bytes(void);
int host_map_add(void *p, size_t size);
int host_map_remove(void *p);
void host_map_mark_managed(void *p);	/* cudaMallocManaged's: cudaFree frees it */
int host_map_is_managed(const void *p);
int heap_lookup(uintptr_t a, size_t n, uintptr_t *lo, uintptr_t *hi);
/* Describes a in buf; returns whether it is just outside a buffer (past
 * its end or before its start, within the gap the heap leaves between
 * buffers) or inside a freed one. */
int heap_describe(uintptr_t a, size_t n, char *buf, size_t len);
int heap_is_device(uintptr_t a);
int heap_range_ok(uintptr_t a, size_t n);
void heap_open(uintptr_t a, size_t n);
void heap_close(uintptr_t a, size_t n);
void heap_kernel_begin(void);
void heap_kernel_end(void);
int host_mapped(uintptr_t a, size_t n);	/* cudaMallocHost / managed memory */
int host_mapped_any(void);
void heap_reset(void);

/* blocks_parallel.c: a launch's blocks in forked workers, or 0 (run it serially) */
int par_launch(struct launch *L);
int par_workers_default(void);
void par_worker_stop(const char *kind, const char *where, const char *text)
	__attribute__((noreturn));	/* fault.c's stop, in a worker */
int par_watchdog_fires(void);		/* a worker's CPU tick: 1 when it must stop */
/* An atomic of a worker waits until every earlier block has ended, so that
 * atomics happen in the serial run's order. */
void par_atomic_wait(void);
static inline void par_atomic_turn(void)
{
	if (unlikely(rt.par_worker))
		par_atomic_wait();
}

/* kernel_name.c: whether the .cu objects' writable data holds nothing but
 * the pointers to __shared__ slots (which only the runtime's header writes) */
int gvars_only_shared_slots(void);

/* access.c */
void cuemu_access_checked(uintptr_t a, uint32_t n, int kind, uintptr_t site);
int cuemu_space_of_(const void *p);	/* __isGlobal and friends: 1 global, 2 shared, 3 local */
void access_at(uintptr_t a, uint32_t n, int kind, uintptr_t site);	/* kernel or host */

/* shared_arena.c: static __shared__ arrays, a red zone after each. An
 * access whose first or last byte has a nonzero shadow byte, or a range
 * longer than a granule, goes to shared_check, which faults unless every
 * byte is an array's. */
extern uint8_t arena_shadow[];
void shared_arena_init(void);
void shared_check(struct thr *t, uintptr_t a, uint32_t n, int kind, uintptr_t site);
void shared_dyn_fault(struct thr *t, uintptr_t a, uint32_t n, int kind, uintptr_t site)
	__attribute__((noreturn));	/* past the launch's dynamic shared memory */
uintptr_t shared_compact(uintptr_t a);	/* where a would be with no red zones */
static inline int shared_red(uintptr_t a, uint32_t n)
{
	uintptr_t o = a - rt.shared_lo;	/* below ARENA_SPAN */
	return n > 16 || (arena_shadow[o >> 4] | arena_shadow[(o + n - 1) >> 4]);	/* a range: all of it */
}

/* mem_ops.c: ranges traced as the GPU issues them, in pieces of up to 16 bytes */
void mem_range(uintptr_t a, size_t n, int kind, uintptr_t site);
void mem_copy(void *d, const void *s, size_t n, uintptr_t site);
void mem_fill(void *d, int v, size_t n, uintptr_t site);

/* coverage.c: the call sites traced and untraced blocks execute. The
 * cache holds the sites the running block has noted already. */
#define COV_CACHE 256
#define COV_SLOT(site) (((site) >> 1) & (COV_CACHE - 1))
struct cov_site_cache {
	uintptr_t site;
	uint32_t stamp;
};
extern struct cov_site_cache cov_cache[COV_CACHE];
struct coverage;
struct coverage *coverage_begin(void);
void coverage_free(struct coverage *c);
void coverage_block(const struct launch *L, int traced);	/* a block starts */
void coverage_add(uintptr_t site);
static inline void coverage_note(uintptr_t site)
{
	const struct cov_site_cache *k = &cov_cache[COV_SLOT(site)];
	if (rt.cov && (k->site != site || k->stamp != rt.cov_stamp))
		coverage_add(site);
}
struct sb;
void coverage_json(struct sb *s, const struct coverage *c);

/* warp.c */
void warp_issue(struct thr **lanes, int n, int lo, int hi);

/* trace.c: the requests of traced blocks */
void trace_request(struct thr **lanes, int n);
void trace_interval_end(void);

/* work.c: the combining operations of traced blocks (in struct launch) */
void work_request(struct thr **lanes, int n);	/* a request of one space */
void work_collective(int n);			/* n lanes shuffle or reduce */
void work_interval_end(void);
void work_thread_reset(struct thr *t);

/* race.c */
void race_reset(void);
int race_check(struct thr *t, uintptr_t a, uint32_t n, int kind, int space, uintptr_t site);

/* metrics.c */
struct launch_rec *metrics_launch_begin(struct launch *L);
void metrics_launch_end(struct launch *L);
uint64_t metrics_request(struct launch_rec *r, uintptr_t site, int kind, int space, uint64_t units,
			 struct thr **lanes, int n, uint32_t warp_bit);
void metrics_widen(struct launch_rec *r, uintptr_t site, int kind, uint64_t seq, uint32_t from,
		   uint32_t to, const uintptr_t *lane_lo);
void metrics_shared_widen(struct launch_rec *r, uintptr_t site, int kind, int64_t wavefronts);
void metrics_race(struct launch_rec *r, int kind, int intra, int space, uintptr_t first,
		  uintptr_t second);
void metrics_uninit(struct launch_rec *r, uintptr_t site);
void metrics_interval_end(struct launch_rec *r);
struct perf_rec *metrics_perf(struct launch_rec *r);	/* NULL for NULL */

/* perf.c: the performance model's figures of a launch */
struct sb;
struct perf_rec *perf_begin(void);
void perf_global(struct perf_rec *p, int kind, int warp, const uintptr_t *sector, int n, uint64_t bytes);
void perf_shared(struct perf_rec *p, int64_t wavefronts, uintptr_t lo, uintptr_t hi);
void perf_interval_end(struct perf_rec *p);
void perf_grid_bytes(struct perf_rec *p, const uint64_t bytes[3]);	/* every block's, by akind */
void perf_json(struct sb *s, struct perf_rec *p);
uint64_t perf_requests(const struct perf_rec *p);	/* all traced requests so far */
void perf_free(struct perf_rec *p);

/* sample.c: which blocks of a launch run traced */
int sample_block_traced(const struct launch *L);

/* warn.c: analysis warnings (no fault), in the metrics JSON */
struct sb;
void warn_exited_before_barrier(const char *kernel, int exited, int nthreads, uintptr_t site);
void warn_reset(void);
/* A worker's warnings, taken back by the launch (blocks_parallel.c). */
#define WARN_MAX 64
struct warn_export {
	const char *kind;	/* the same string in every process: one image */
	char file[256];
	unsigned line;
	unsigned long long count;	/* added since warn_mark */
	uint64_t block;		/* the first block that added to it */
	char message[320];
};
void warn_mark(void);
int warn_export(struct warn_export *out);	/* returns how many, at most WARN_MAX */
void warn_import(const struct warn_export *e);
void warn_json(struct sb *s);

/* lines.c */
void lines_init(void);
int lines_lookup(uintptr_t pc, const char **file, unsigned *line);
const char *site_text(uintptr_t site, char *buf, size_t len);	/* "scan.cu:42" */

/* fault.c */
void fault_kernel(struct thr *t, uintptr_t site, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
/* A kernel fault that accessed memory just outside a buffer: past the end
 * or before the start of a cudaMalloc buffer or a __shared__ array, or
 * inside a freed buffer. A GPU seldom faults there: it reads or overwrites
 * whatever lies there (cuemu_last_fault_bounds). */
void fault_bounds(struct thr *t, uintptr_t site, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
void fault_report(cudaError_t e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fault_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* fault_fatal with the kind and the line for the stop hook (cuemu.h). */
void fault_stop(const char *kind, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
void fault_signals_install(void);
void watchdog_arm(void);
void watchdog_disarm(void);
const char *thread_text(const struct thr *t, char *buf, size_t len);

#endif
