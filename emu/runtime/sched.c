/*
 * A launch: its blocks one after the other, each block's threads as fibers,
 * resumed warp by warp.
 *
 * A fiber runs until it parks: at a barrier (T_BARRIER), at its end
 * (T_EXITED), or at a warp collective or, in a traced block, a memory
 * access (T_PARKED, with its call site). When every lane of a warp has
 * parked, the warp issues: the lanes parked at the lowest call site form
 * one instruction (a request), are served together and run on. Lowest
 * first is what makes divergent lanes reconverge: the lanes of the if
 * branch run before those of the else, a loop's lanes before the lanes
 * that have left it, and both meet at the code after. When every warp waits
 * at the barrier or has ended, the barrier opens.
 *
 * Blocks run in order: a block that spins waiting for an earlier block
 * works, one waiting for a later block never ends (fault.c's watchdog).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int bar_count, bar_any, bar_all;

/* Kept as the threads change state, so that no loop has to count them, nor
 * read every thread's record to find the runnable ones. */
static uint32_t to_run[MAX_WARPS];	/* by warp: lanes to resume */
static uint32_t ended[MAX_WARPS];	/* by warp: lanes that have ended */
static int warp_lo;		/* the first thread of the running warp */
static uint32_t chain;		/* its lanes that were runnable when the scheduler resumed it */
static int parked;		/* lanes of the running warp waiting to issue */
static int waiting, exited;	/* threads of the block at the barrier, ended */
static int pred_sum;		/* __syncthreads_count's predicates, summed */

/* The lane of t's warp that runs after t, or NULL after the last: the
 * order is the scheduler's own. */
static struct thr *next_lane(const struct thr *t)
{
	int lane = t->id - warp_lo;
	uint32_t rest = lane == WARP - 1 ? 0 : chain >> (lane + 1) << (lane + 1);
	return rest ? &rt.threads[warp_lo + __builtin_ctz(rest)] : NULL;
}

/* Hands control from t, which has just parked, to the next runnable lane
 * of its warp, or back to the scheduler after the last: one switch per lane
 * and step instead of two. */
static void pass_on(struct thr *t)
{
	struct thr *next = next_lane(t);
	if (next)
		fiber_switch(t, next);
	else
		fiber_yield(t);
}

/* Runs threads until one ends and the next lane has run already: the
 * lanes that had not run yet run here, on the stack of the one before. */
static void thread_main(void)
{
	struct thr *t = rt.cur;
	for (;;) {
		rt.launch->thunk(rt.launch->args);
		t->state = T_EXITED;
		exited++;
		ended[t->id / WARP] |= 1u << t->id % WARP;
		struct thr *next = next_lane(t);
		if (!next || !fiber_adopt(t, next))
			break;
		t = next;
	}
	fiber_end(t);
	pass_on(t);
	abort();		/* an exited fiber is never resumed */
}

void sched_park(struct thr *t)
{
	t->state = T_PARKED;
	parked++;
	pass_on(t);
}

void sched_abort(void)
{
	struct thr *t = rt.cur;
	rt.aborted = 1;
	t->state = T_EXITED;
	fiber_yield(t);
	abort();
}

/* ---- barriers ---------------------------------------------------------------- */

static int barrier_wait(int pred, uintptr_t site)
{
	struct thr *t = rt.cur;
	if (!rt.in_kernel || !t)
		return pred;	/* called on the host: nothing to wait for */
	pred_sum += pred != 0;
	waiting++;
	t->site = site;
	t->state = T_BARRIER;
	pass_on(t);
	return bar_count;
}

void cuemu_syncthreads(void)
{
	barrier_wait(0, RA());
}

int cuemu_syncthreads_count(int predicate)
{
	return barrier_wait(predicate, RA());
}

int cuemu_syncthreads_and(int predicate)
{
	barrier_wait(predicate, RA());
	return bar_all;
}

int cuemu_syncthreads_or(int predicate)
{
	barrier_wait(predicate, RA());
	return bar_any;
}

/* Threads that returned while others wait at a barrier: undefined in the
 * CUDA guide, but since Volta (sm_70) exited threads no longer count at a
 * barrier and the others go on, which is what the emulator does too. The
 * pattern becomes an analysis warning with its line (warn.c), once per
 * launch, not a failed launch. */
static void barrier_divergence(struct launch *L, int exited, uintptr_t site)
{
	L->divergence_seen = 1;
	warn_exited_before_barrier(L->name, exited, L->nthreads, site);
}

/* The lanes of warp w, all of them but in a block's last, short warp. */
static uint32_t warp_lanes(const struct launch *L, int w)
{
	int lanes = L->nthreads - w * WARP;
	return lanes >= WARP ? ~0u : (1u << lanes) - 1;
}

/* Every thread is at a barrier or has ended: the ones that have not ended
 * run on. They stay T_BARRIER until they run, which they all do before
 * anything reads their state again. Returns 0 when all ended. */
static int barrier_release(struct launch *L)
{
	if (waiting == 0)
		return 0;
	int last = 0;		/* the last thread at the barrier */
	for (int w = 0; w * WARP < L->nthreads; w++) {
		to_run[w] = warp_lanes(L, w) & ~ended[w];
		if (to_run[w])
			last = w * WARP + 31 - __builtin_clz(to_run[w]);
	}
	if (exited && !L->divergence_seen)
		barrier_divergence(L, exited, rt.threads[last].site);
	bar_count = pred_sum;
	bar_any = pred_sum > 0;
	bar_all = pred_sum == waiting;
	waiting = pred_sum = 0;
	return 1;
}

/* ---- warps --------------------------------------------------------------------- */

/* The lanes parked at the lowest call site, or 0 when none is parked. */
static int lowest_group(struct thr *T, int lo, int hi, struct thr **group)
{
	uintptr_t min = UINTPTR_MAX;
	int n = 0;
	for (int i = lo; i < hi; i++) {
		if (T[i].state != T_PARKED || T[i].site > min)
			continue;
		if (T[i].site < min) {
			min = T[i].site;
			n = 0;
		}
		group[n++] = &T[i];
	}
	return n;
}

/* Runs warp [lo, hi) until every lane waits at a barrier or has ended. */
static void run_warp(int lo, int hi)
{
	struct thr *T = rt.threads, *group[WARP];
	warp_lo = lo;
	for (;;) {
		/* Resume the first runnable lane: each passes on to the next. */
		chain = to_run[lo / WARP];
		to_run[lo / WARP] = 0;
		if (chain) {
			fiber_resume(&T[lo + __builtin_ctz(chain)]);
			if (unlikely(rt.aborted))
				return;
		}
		if (!parked)
			return;	/* all at the barrier or ended: the common case */
		int n = lowest_group(T, lo, hi, group);
		parked -= n;
		if (group[0]->space == SP_WARP)
			warp_issue(group, n, lo, hi);
		else
			trace_request(group, n);
		for (int i = 0; i < n; i++) {
			group[i]->state = T_RUNNABLE;
			to_run[lo / WARP] |= 1u << (group[i]->id - lo);
		}
	}
}

/* ---- blocks -------------------------------------------------------------------- */

static void block_threads(struct launch *L)
{
	uint3 tid = { 0, 0, 0 };
	for (int i = 0; i < L->nthreads; i++) {
		struct thr *t = &rt.threads[i];
		t->id = i;
		t->tid = tid;
		t->state = T_RUNNABLE;
		t->last_site = 0;
		work_thread_reset(t);
		if (++tid.x == L->block.x) {
			tid.x = 0;
			if (++tid.y == L->block.y) {
				tid.y = 0;
				tid.z++;
			}
		}
	}
	for (int w = 0; w * WARP < L->nthreads; w++) {
		to_run[w] = warp_lanes(L, w);
		ended[w] = 0;
	}
	fiber_block_begin(L->nthreads, thread_main);
}

/* A GPU block starts with shared memory of no particular content; here it
 * is what the last block left. Poison it, so that a kernel that reads
 * before it writes gets an obviously wrong value (0xffffffff, a NaN) and
 * not, by luck, the right one. */
static void poison_shared(struct launch *L)
{
	if (rt.shared_span)
		memset((void *)rt.shared_lo, 0xff, rt.shared_span);
	if (rt.section_span)
		memset((void *)rt.section_lo, 0xff, rt.section_span);
	if (L->smem)
		memset(cuemu_dyn_smem, 0xff, L->smem);
}


static void run_block(struct launch *L)
{
	int traced = sample_block_traced(L);
	if (!traced && rt.skip_untraced && L->rec)
		return;
	rt.tracing_block = traced;
	coverage_block(L, traced);
	rt.first_traced = traced && L->traced_blocks == 0;
	if (traced) {
		L->traced_blocks++;
		rt.block_serial++;
	}
	poison_shared(L);
	block_threads(L);
	parked = waiting = exited = pred_sum = 0;
	for (;;) {
		rt.interval++;
		for (int lo = 0; lo < L->nthreads; lo += WARP) {
			run_warp(lo, lo + WARP < L->nthreads ? lo + WARP : L->nthreads);
			if (unlikely(rt.aborted))
				return;
		}
		if (traced)
			trace_interval_end();
		if (!barrier_release(L))
			break;
	}
}

/* ---- the launch ------------------------------------------------------------------ */

static size_t smem_limit = DEFAULT_SMEM_LIMIT;

size_t sched_smem_limit(void)
{
	return smem_limit;
}

void sched_raise_smem_limit(size_t bytes)
{
	if (bytes > smem_limit)
		smem_limit = bytes < DYN_SMEM_MAX ? bytes : DYN_SMEM_MAX;
}

/* Returns 0, or reports what is wrong with the launch's configuration. */
static int check_config(struct launch *L)
{
	dim3 g = L->grid, b = L->block;
	unsigned long long threads = (unsigned long long)b.x * b.y * b.z;
	char why[160] = "";
	cudaError_t e = cudaErrorInvalidConfiguration;
	if (threads == 0 || g.x == 0 || g.y == 0 || g.z == 0)
		snprintf(why, sizeof why, "a grid or block dimension is 0");
	else if (threads > MAX_THREADS) {
		/* CUDA 13 reports this one as an invalid value (older runtimes: configuration). */
		snprintf(why, sizeof why, "%llu threads per block (at most %d)", threads, MAX_THREADS);
		e = cudaErrorInvalidValue;
	}
	else if (b.x > 1024 || b.y > 1024 || b.z > 64)
		snprintf(why, sizeof why, "a block dimension over its limit (1024, 1024, 64)");
	else if (g.x > 0x7fffffffu || g.y > 65535 || g.z > 65535)
		snprintf(why, sizeof why, "a grid dimension over its limit (2^31-1, 65535, 65535)");
	else if (L->smem > smem_limit) {
		snprintf(why, sizeof why, "%zu bytes of dynamic shared memory (at most %zu; more needs "
			 "cudaFuncSetAttribute)", L->smem, smem_limit);
		e = cudaErrorInvalidValue;
	}
	if (!why[0])
		return 0;
	fault_report(e, "launch of %s at %s:%d: %s", L->name, L->file, L->line, why);
	return -1;
}

static void run_grid(struct launch *L)
{
	for (unsigned z = 0; z < L->grid.z; z++)
		for (unsigned y = 0; y < L->grid.y; y++)
			for (unsigned x = 0; x < L->grid.x; x++) {
				cuemu_blockIdx.x = x;
				cuemu_blockIdx.y = y;
				cuemu_blockIdx.z = z;
				L->block_linear = x + (uint64_t)L->grid.x * (y + (uint64_t)L->grid.y * z);
				run_block(L);
				if (rt.aborted)
					return;
			}
}

void sched_run_block_at(struct launch *L, uint64_t b)
{
	uint64_t gx = L->grid.x, gy = L->grid.y;
	cuemu_blockIdx.x = (unsigned)(b % gx);
	cuemu_blockIdx.y = (unsigned)(b / gx % gy);
	cuemu_blockIdx.z = (unsigned)(b / (gx * gy));
	L->block_linear = b;
	run_block(L);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

void cuemu_launch_kernel(const char *file, int line, const char *name, dim3 grid, dim3 block,
			 size_t smem, cudaStream_t stream, void (*thunk)(void *), void *args,
			 size_t args_size)
{
	(void)stream;		/* one stream: everything is in order anyway */
	if (rt_gate() != cudaSuccess)
		return;
	struct launch L = {
		.file = base_name(file), .line = line, .name = name, .grid = grid, .block = block,
		.smem = smem, .thunk = thunk, .args = args, .args_size = args_size,
	};
	if (rt.in_kernel) {
		fault_report(cudaErrorNotSupported, "%s:%d: a kernel launched from a kernel (dynamic "
			     "parallelism) cannot run in the CPU emulator", L.file, line);
		return;
	}
	if (check_config(&L) < 0)
		return;
	L.nthreads = (int)(block.x * block.y * block.z);
	fiber_pool_reserve(L.nthreads);
	lines_init();		/* now, so that the signal handlers need not allocate */
	rt.launch = &L;
	rt.args_lo = (uintptr_t)args;
	rt.args_hi = (uintptr_t)args + args_size;
	rt.dyn_bytes = smem;
	cuemu_blockDim = block;
	cuemu_gridDim = grid;
	L.rec = rt.mode ? metrics_launch_begin(&L) : NULL;
	rt.aborted = 0;
	heap_kernel_begin();
	rt.in_kernel = 1;
	if (!par_launch(&L)) {
		watchdog_arm();
		run_grid(&L);
		watchdog_disarm();
	}
	rt.in_kernel = 0;
	rt.cur = NULL;
	rt.tracing_block = 0;
	rt.cov = NULL;
	heap_kernel_end();
	if (L.rec)
		metrics_launch_end(&L);
	rt.launch = NULL;
}
