/*
 * A worker process of a parallel launch (blocks_parallel.c says why and
 * how): it takes blocks in order, runs them as the serial run would, and
 * leaves on the shared page what the launch reports.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "blocks_parallel.h"

static int64_t counted_ns;	/* its CPU time counted by the watchdog, up to here */
static int wake_fd = -1;	/* tells the launch to look at the page */

static void poke(void)
{
	char c = 1;
	if (wake_fd >= 0 && write(wake_fd, &c, 1) < 0)
		return;		/* the launch looks at the page every few ms anyway */
}

void par_lower_stop(uint64_t b)
{
	uint64_t s = __atomic_load_n(&par_page->stop, __ATOMIC_SEQ_CST);
	while (b < s && !__atomic_compare_exchange_n(&par_page->stop, &s, b, 0, __ATOMIC_SEQ_CST,
						     __ATOMIC_SEQ_CST))
		;
}

/* ---- in a worker ---------------------------------------------------------------------------- */

static int earlier_running(uint64_t block)
{
	for (int i = 0; i < rt.workers; i++) {
		uint64_t c = __atomic_load_n(&par_page->w[i].cur, __ATOMIC_SEQ_CST);
		if (i != par_me && c != 0 && (c == TAKING || c / 2 - 1 < block))
			return 1;
	}
	return 0;
}

void par_atomic_wait(void)
{
	static uint64_t cleared = NONE;	/* the block known to have no earlier one running */
	uint64_t b = rt.launch->block_linear;
	struct timespec nap = { 0, 20000 };
	if (b == cleared)
		return;
	for (int spins = 0; earlier_running(b); spins++)
		if (spins > 100)
			nanosleep(&nap, NULL);
	cleared = b;
}

/* The CPU time of a worker (0: this one). */
static int64_t cpu_ns(pid_t pid)
{
	struct timespec ts = { 0, 0 };
	clockid_t id = CLOCK_PROCESS_CPUTIME_ID;
	if (pid && clock_getcpuclockid(pid, &id) != 0)
		return 0;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Block b of worker w has just become the lowest running: its CPU time
 * from now on is what the serial run would spend. */
static void mark_lowest(int w, uint64_t b)
{
	struct par_slot *W = &par_page->w[w];
	uint64_t had = __atomic_load_n(&W->lowest_block, __ATOMIC_SEQ_CST);
	if (had == b)
		return;
	W->lowest_ns = cpu_ns(w == par_me ? 0 : W->pid);
	__atomic_store_n(&W->lowest_block, b, __ATOMIC_SEQ_CST);
}

/* This worker has ended block b: the lowest block still running, if
 * another worker's, starts to count. */
static void pass_lowest(uint64_t b)
{
	uint64_t low = NONE;
	int w = -1;
	for (int i = 0; i < rt.workers; i++) {
		uint64_t c = __atomic_load_n(&par_page->w[i].cur, __ATOMIC_SEQ_CST);
		if (i == par_me || c <= TAKING)
			continue;
		if (c / 2 - 1 < low) {
			low = c / 2 - 1;
			w = i;
		}
	}
	if (w >= 0 && low > b)
		mark_lowest(w, low);
}

int par_watchdog_fires(void)
{
	if (__atomic_load_n(&par_page->timed_out, __ATOMIC_SEQ_CST))
		return par_page->timeout_worker == par_me;
	/* Only time spent as the lowest block counts: a later block may spin
	 * on an earlier one's flag, which the serial run never does (there
	 * the earlier block has ended), and its spin must not stop the launch. */
	struct par_slot *W = &par_page->w[par_me];
	uint64_t c = __atomic_load_n(&W->cur, __ATOMIC_SEQ_CST);
	if (c <= TAKING || earlier_running(c / 2 - 1))
		return 0;
	/* No earlier block runs, so this one is the lowest, even where no one
	 * marked it: the worker that ended the last earlier block may have
	 * looked while this one was still taking its block, and this one saw
	 * that earlier block still running. Unmarked, it never counted, and a
	 * hang there ran for ever. */
	mark_lowest(par_me, c / 2 - 1);
	int64_t now = cpu_ns(0), from = W->lowest_ns > counted_ns ? W->lowest_ns : counted_ns;
	counted_ns = now;
	uint64_t t = __atomic_add_fetch(&par_page->cpu_us, (uint64_t)(now - from) / 1000, __ATOMIC_SEQ_CST);
	/* The launch then picks the worker of the lowest block to stop. */
	if (t >= (uint64_t)(rt.kernel_timeout_s * 1e6) &&
	    !__atomic_exchange_n(&par_page->timed_out, 1, __ATOMIC_SEQ_CST))
		poke();
	return 0;
}

static void record(struct par_fault *f, uint64_t b, int fatal, cudaError_t e, const char *kind,
		   const char *where, const char *text)
{
	f->fatal = fatal;
	f->error = e;
	f->bounds_site = rt.fault_bounds_site;
	snprintf(f->kind, sizeof f->kind, "%s", kind ? kind : "");
	snprintf(f->where, sizeof f->where, "%s", where ? where : "");
	snprintf(f->text, sizeof f->text, "%s", text);
	__atomic_store_n(&f->block, b, __ATOMIC_SEQ_CST);
}

/* The fault that ends this worker's blocks: no later block starts. */
static void record_end(uint64_t b, int fatal, cudaError_t e, const char *kind, const char *where,
		       const char *text)
{
	record(&par_page->w[par_me].end, b, fatal, e, kind, where, text);
	par_lower_stop(b);
	poke();
}

void par_worker_stop(const char *kind, const char *where, const char *text)
{
	record_end(rt.launch ? rt.launch->block_linear : 0, 1, cudaSuccess, kind, where, text);
	_exit(0);
}

/* What block b printed: the worker's stdout is the file out, indexed in idx. */
static void note_output(uint64_t b, off_t *printed, int idx)
{
	fflush(stdout);
	off_t at = lseek(1, 0, SEEK_CUR);
	if (at > *printed) {
		struct out_rec r = { b, *printed, at };
		if (write(idx, &r, sizeof r) != (ssize_t)sizeof r)
			fault_fatal("cannot keep a kernel's printf output: %s", strerror(errno));
		*printed = at;
	}
}

void par_worker_main(struct launch *L, int out, int idx, int wake, pid_t parent)
{
	uint64_t n = grid_blocks(L);
	off_t printed = 0;
	struct par_slot *W = &par_page->w[par_me];
	wake_fd = wake;
	rt.quiet = 1;		/* the launch prints the fault it reports */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	__fpurge(stdout);	/* the parent's pending output is the parent's to write */
	if (dup2(out, 1) < 0)
		fault_fatal("cannot keep a kernel's printf output: %s", strerror(errno));
	warn_mark();
	rt.have_fault = 0;	/* a fault the launch made before is the launch's */
	rt.fault_bounds_site = 0;
	W->pid = getpid();
	counted_ns = cpu_ns(0);
	if (rt.kernel_timeout_s > 0) {
		struct itimerval it = { { 0, TICK_US }, { 0, TICK_US } };
		setitimer(ITIMER_VIRTUAL, &it, NULL);
	}
	for (;;) {
		__atomic_store_n(&W->cur, TAKING, __ATOMIC_SEQ_CST);
		uint64_t b = __atomic_fetch_add(&par_page->next, 1, __ATOMIC_SEQ_CST);
		if (b >= n || b >= __atomic_load_n(&par_page->stop, __ATOMIC_SEQ_CST))
			break;
		__atomic_store_n(&W->cur, 2 * (b + 1), __ATOMIC_SEQ_CST);
		if (!earlier_running(b))
			mark_lowest(par_me, b);
		sched_run_block_at(L, b);
		pass_lowest(b);
		note_output(b, &printed, idx);
		/* A warp intrinsic naming an exited lane is reported, and the
		 * launch goes on; an illegal address ends it. */
		if (rt.have_fault && W->first.block == NONE)
			record(&W->first, b, 0, rt.sticky_error, NULL, NULL, rt.fault);
		if (rt.aborted) {
			record_end(b, 0, rt.last_error, NULL, NULL, rt.fault);
			break;
		}
	}
	__atomic_store_n(&W->cur, 0, __ATOMIC_SEQ_CST);
	W->n_warn = warn_export(W->warn);
	_exit(0);
}

