/*
 * A launch's blocks on several cores at once, in forked worker processes.
 *
 * Processes, because one process cannot run two blocks at once: static
 * __shared__ arrays are references into one fixed arena (shared_arena.c),
 * and threadIdx/blockIdx, rt.cur and the scheduler's counters are globals.
 * A forked worker has its own copy of all of them; what blocks share on a
 * GPU, device memory, is a MAP_SHARED mapping (heap.c).
 *
 * The result must be the serial run's, message for message:
 * - workers take blocks in increasing order from a counter in a shared page,
 *   so a block that waits for an earlier one (a chained scan's flags) waits
 *   for one that is running or done;
 * - an atomic waits until every earlier block has ended (par_atomic_wait),
 *   so atomics happen in the serial order: the same returned values, the
 *   same float sums;
 * - a fault is written to the page with its block, and the launch reports
 *   the one of the lowest block: the serial run would have met it first,
 *   since every earlier block runs to its end here too;
 * - device printf goes to a file per worker, noted per block, and is
 *   written in block order;
 * - the watchdog counts the CPU time each block spends as the lowest
 *   running (a later one may spin on its flags, which the serial run never
 *   does), and stops the lowest block still running, where the serial run
 *   would be;
 * - warnings are taken back from each worker in block order.
 * Where that cannot hold, the launch runs serially (eligible()).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blocks_parallel.h"


struct par_page *par_page;
int par_me;

int par_workers_default(void)
{
	const char *env = getenv("CUEMU_WORKERS");
	cpu_set_t set;
	int n = 1;
	if (env && *env)
		n = atoi(env);
	else if (sched_getaffinity(0, sizeof set, &set) == 0)
		n = CPU_COUNT(&set) < PAR_DEFAULT_MAX ? CPU_COUNT(&set) : PAR_DEFAULT_MAX;
	return n < 1 ? 1 : n > PAR_MAX ? PAR_MAX : n;
}


/* Untraced launches only (no metrics, no coverage, nothing per block that
 * the parent would have to gather), of blocks enough to pay for the
 * forks; the .cu objects' variables and host-mapped memory are private to
 * each process, so a program with either runs serially. */
static int eligible(const struct launch *L)
{
	uint64_t blocks = grid_blocks(L);
	return rt.workers > 1 && !rt.par_worker && !rt.mode && !L->rec && blocks >= 2 &&
	       blocks * (uint64_t)L->nthreads >= PAR_MIN_THREADS && !host_mapped_any() &&
	       gvars_only_shared_slots();
}

/* ---- in the launch ----------------------------------------------------------------------------- */

struct crew {
	int n;
	pid_t pid[PAR_MAX];
	int out[PAR_MAX], idx[PAR_MAX];
	int gone[PAR_MAX], killed[PAR_MAX];
	int crashed;		/* a worker ended without saying why */
	int wake[2];
};

static int lowest_running(void)
{
	uint64_t low = NONE;
	int w = -1;
	for (int i = 0; i < rt.workers; i++) {
		uint64_t c = __atomic_load_n(&par_page->w[i].cur, __ATOMIC_SEQ_CST);
		if (c == TAKING)
			return -1;	/* look again in a moment */
		if (c && c / 2 - 1 < low) {
			low = c / 2 - 1;
			w = i;
		}
	}
	return w;
}

/* Whether a worker runs (or may be taking) a block before stop. */
static int runs_before(uint64_t stop)
{
	for (int i = 0; i < rt.workers; i++) {
		uint64_t c = __atomic_load_n(&par_page->w[i].cur, __ATOMIC_SEQ_CST);
		if (c == TAKING || (c && c / 2 - 1 < stop))
			return 1;
	}
	return 0;
}

static void reap(struct crew *c, int i, int status)
{
	c->gone[i] = 1;
	if (!c->killed[i] && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		c->crashed = 1;
}

/* Waits for every worker: the ones still running blocks after the first
 * fault are ended once no earlier block runs (they may wait for a block
 * that never ends), and the watchdog's stop goes to the lowest block. */
static void supervise(struct crew *c)
{
	int alive = c->n;
	while (alive > 0) {
		struct pollfd p = { c->wake[0], POLLIN, 0 };
		char buf[64];
		if (poll(&p, 1, 5) > 0 && read(c->wake[0], buf, sizeof buf) < 0 && errno != EAGAIN)
			break;
		for (int i = 0; i < c->n; i++) {
			int st;
			if (!c->gone[i] && waitpid(c->pid[i], &st, WNOHANG) == c->pid[i]) {
				reap(c, i, st);
				alive--;
			}
		}
		if (par_page->timed_out && par_page->timeout_worker < 0) {
			int w = lowest_running();
			if (w >= 0) {
				par_page->timeout_worker = w;
				kill(c->pid[w], SIGVTALRM);
			}
		}
		uint64_t stop = __atomic_load_n(&par_page->stop, __ATOMIC_SEQ_CST);
		if (c->crashed || (stop != NONE && !runs_before(stop)))
			for (int i = 0; i < c->n; i++)
				if (!c->gone[i] && !c->killed[i]) {
					c->killed[i] = 1;
					kill(c->pid[i], SIGKILL);
				}
	}
	for (int i = 0; i < c->n; i++) {
		int st;
		if (!c->gone[i] && waitpid(c->pid[i], &st, 0) == c->pid[i])
			reap(c, i, st);
	}
}

static int by_block(const void *a, const void *b)
{
	const struct out_rec *x = a, *y = b;
	return x->block < y->block ? -1 : x->block > y->block;
}

/* The workers' printf output, in block order, into this process's stdout
 * (where the serial run's printf would have put it). */
static void gather_output(struct crew *c, uint64_t limit)
{
	size_t n = 0, cap = 0;
	struct out_rec *all = NULL;
	for (int i = 0; i < c->n; i++) {
		off_t size = lseek(c->idx[i], 0, SEEK_END);
		size_t k = size > 0 ? (size_t)size / sizeof *all : 0;
		if (!k)
			continue;
		if (n + k > cap) {
			cap = 2 * (n + k);
			struct out_rec *m = realloc(all, cap * sizeof *all);
			if (!m)
				goto out;
			all = m;
		}
		if (pread(c->idx[i], all + n, k * sizeof *all, 0) != (ssize_t)(k * sizeof *all))
			goto out;
		for (size_t j = n; j < n + k; j++)
			all[j].lo = all[j].lo * PAR_MAX + i;	/* remember the worker */
		n += k;
	}
	qsort(all, n, sizeof *all, by_block);
	for (size_t j = 0; j < n && all[j].block <= limit; j++) {
		int w = (int)(all[j].lo % PAR_MAX);
		off_t lo = all[j].lo / PAR_MAX;
		char buf[8192];
		while (lo < all[j].hi) {
			size_t want = all[j].hi - lo < (off_t)sizeof buf ? (size_t)(all[j].hi - lo) : sizeof buf;
			ssize_t got = pread(c->out[w], buf, want, lo);
			if (got <= 0)
				break;
			fwrite(buf, 1, (size_t)got, stdout);
			lo += got;
		}
	}
out:
	free(all);
}

static int by_first_block(const void *a, const void *b)
{
	const struct warn_export *x = *(const struct warn_export *const *)a;
	const struct warn_export *y = *(const struct warn_export *const *)b;
	return x->block < y->block ? -1 : x->block > y->block;
}

/* A block that saw threads exit before a barrier says so once a launch:
 * only the first such block counts, as in the serial run. */
static void gather_warnings(void)
{
	static const struct warn_export *all[PAR_MAX * WARN_MAX];
	int n = 0, diverged = 0;
	for (int i = 0; i < rt.workers; i++)
		for (int j = 0; j < par_page->w[i].n_warn && j < WARN_MAX; j++)
			all[n++] = &par_page->w[i].warn[j];
	qsort(all, (size_t)n, sizeof *all, by_first_block);
	for (int i = 0; i < n; i++) {
		int once = strcmp(all[i]->kind, "exited_before_barrier") == 0;
		if (once && diverged++)
			continue;
		warn_import(all[i]);
	}
}

/* As the serial run reports them: the first fault of the blocks it would
 * have run (up to the one that ended the launch), then that end. */
static void report_faults(struct crew *c)
{
	uint64_t stop = par_page->stop;
	const struct par_fault *first = NULL, *end = NULL;
	for (int i = 0; i < c->n; i++) {
		const struct par_fault *f = &par_page->w[i].first, *e = &par_page->w[i].end;
		if (f->block != NONE && f->block <= stop && (!first || f->block < first->block))
			first = f;
		if (e->block != NONE && e->block == stop)
			end = e;
	}
	if (first) {
		rt.next_bounds_site = first->bounds_site;
		fault_report(first->error, "%s", first->text);
	}
	if (end && end->fatal)
		fault_stop(end->kind, end->where[0] ? end->where : NULL, "%s", end->text);
	if (end) {
		rt.next_bounds_site = end->bounds_site;
		fault_report(end->error, "%s", end->text);
		rt.aborted = 1;
	} else if (c->crashed) {
		fault_stop("kernel_crash", NULL, "kernel %s: a worker process of the emulator ended "
			   "without a word (killed from outside?)", rt.launch->name);
	}
}

static int page_ready(void)
{
	size_t size = sizeof *par_page + (size_t)rt.workers * sizeof par_page->w[0];
	if (!par_page) {
		void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 0;
		par_page = p;
	}
	par_page->next = 0;
	par_page->stop = NONE;
	par_page->cpu_us = 0;
	par_page->timed_out = 0;
	par_page->timeout_worker = -1;
	for (int i = 0; i < rt.workers; i++) {
		par_page->w[i].cur = 0;
		par_page->w[i].pid = 0;
		par_page->w[i].lowest_block = NONE;
		par_page->w[i].first.block = NONE;
		par_page->w[i].end.block = NONE;
		par_page->w[i].n_warn = 0;
	}
	return 1;
}

int par_launch(struct launch *L)
{
	struct crew c = { .wake = { -1, -1 } };
	int done = 0;
	pid_t parent = getpid();
	for (int i = 0; i < PAR_MAX; i++)
		c.out[i] = c.idx[i] = -1;	/* 0 is a descriptor memfd_create can return */
	if (!eligible(L) || !page_ready() || pipe2(c.wake, O_CLOEXEC | O_NONBLOCK) != 0)
		goto out;
	fflush(stderr);
	/* Held across the forks: a thread of the program that printed at that
	 * moment would leave a worker's stdout locked for ever. */
	flockfile(stdout);
	rt.par_worker = 1;	/* for heap.c's fork handler: a worker shares device memory */
	for (c.n = 0; c.n < rt.workers; c.n++) {
		int i = c.n;
		c.out[i] = memfd_create("cuemu-printf", MFD_CLOEXEC);
		c.idx[i] = memfd_create("cuemu-printf-index", MFD_CLOEXEC);
		if (c.out[i] < 0 || c.idx[i] < 0)
			break;
		par_me = i;
		par_page->w[i].cur = 0;
		c.pid[i] = fork();	/* heap.c's fork handler leaves a worker's memory shared */
		if (c.pid[i] == 0) {
			funlockfile(stdout);
			close(c.wake[0]);
			par_worker_main(L, c.out[i], c.idx[i], c.wake[1], parent);
		}
		if (c.pid[i] < 0)
			break;	/* a process limit: the workers there are take every block */
	}
	rt.par_worker = 0;
	funlockfile(stdout);
	close(c.wake[1]);
	c.wake[1] = -1;
	for (int i = c.n; i < rt.workers; i++)
		par_page->w[i].cur = 0;
	if (c.n == 0)
		goto out;	/* nothing ran: the serial path runs it all */
	done = 1;
	supervise(&c);
	gather_output(&c, par_page->stop);
	gather_warnings();
	report_faults(&c);
out:
	for (int i = 0; i <= c.n && i < rt.workers; i++) {
		if (c.out[i] >= 0)
			close(c.out[i]);
		if (c.idx[i] >= 0)
			close(c.idx[i]);
	}
	if (c.wake[0] >= 0)
		close(c.wake[0]);
	if (c.wake[1] >= 0)
		close(c.wake[1]);
	return done;
}

