/*
 * The class's pace, and what binds it. Each worker writes beside its
 * student's reports what it waited for on the GPU and how long it held it
 * (gpu-waits.txt): a timed child's time alone (wait_alone_s, held_alone_s)
 * is what its harness measured around its timed launches and reported,
 * information only (common/gpu_lock.h); its whole life counts as one
 * shared run. Below that first line, one line for each CUDA context its
 * children said they made: when each began, on the host's monotonic
 * clock, and how long it took (grader/harness/gpu_share.c), information
 * only as well, with when the child's end began (its last report) and how
 * long that end took to its reaping: the context's teardown, which the
 * driver does one at a time as it makes them (a process that skips the
 * release and leaves it to its _exit costs the host as long:
 * docs/results/gpu-2026-11-28-driver/, call 60). The batch's last line sums them: the GPUs bind when their
 * turns are taken most of the wall clock times their number -- held
 * alone, or held by a timed run waiting for the shared holds that were
 * running to end (drain_s: no one else may start then) -- the CPUs when
 * the workers' CPU time nears it times the cores, and the CUDA driver
 * when some child was making or ending its context most of the wall
 * clock (the union of those spans): a host makes its contexts one at a time, for
 * all its GPUs together (16 made at once take about as long spread over
 * two GPUs as on one: docs/results/gpu-2026-11-27-contexts, calls 8 and
 * 19), so while any child makes one the driver is busy and those beside
 * it wait on it.
 */
#include "batch/batch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/atomic_file.h"
#include "sys/clock.h"

#define WAITS_FILE "gpu-waits.txt"
/* A context's line's room: four numbers of the monotonic clock's seconds. */
#define CONTEXT_LINE 160
/* Busier than this, a resource is what binds the class. */
#define BUSY 0.6
/* The driver only when nearly always making a context: the children's
 * spans overlap the rest of their students' work. At 58-63% on two GPUs
 * a class that made 38% fewer contexts went no faster
 * (docs/results/gpu-2026-11-27-shared-seed/, calls 31 and 32). */
#define DRIVER_BUSY 0.9
/* Below BUSY, but busy enough that two such resources together hold the
 * workers in their queues: on two H200s the GPUs' turns (53%), the driver
 * (59-63%) and the cores (49-50%) were each that busy with 16 workers, and
 * 24 or 32 workers graded the class no faster
 * (docs/results/gpu-2026-11-28-workers/). */
#define SHARED_BUSY 0.45

void batch_write_gpu_waits(const char *student_dir, const char *gpu, double wall_s,
			   int correctness_processes, const struct gpu_account *start)
{
	struct gpu_account a;
	char line[512], path[PATH_MAX + 32], err[256];
	batch_gpu_account(&a);
	a.wait_shared_s -= start->wait_shared_s;
	a.held_shared_s -= start->held_shared_s;
	a.wait_alone_s -= start->wait_alone_s;
	a.held_alone_s -= start->held_alone_s;
	a.drain_s -= start->drain_s;
	a.shared_runs -= start->shared_runs;
	a.timed_runs -= start->timed_runs;
	a.pinned_runs -= start->pinned_runs;
	int n = snprintf(line, sizeof(line),
			 "gpu=%s worker_s=%.2f wait_shared_s=%.2f held_shared_s=%.2f wait_alone_s=%.2f "
			 "held_alone_s=%.2f drain_s=%.2f shared_runs=%d timed_runs=%d correctness_processes=%d "
			 "pinned_runs=%d\n",
			 gpu && *gpu ? gpu : "-", wall_s, a.wait_shared_s, a.held_shared_s, a.wait_alone_s,
			 a.held_alone_s, a.drain_s, a.shared_runs, a.timed_runs, correctness_processes,
			 a.pinned_runs);
	if (n <= 0 || (size_t)n >= sizeof(line))
		return;
	/* The contexts' lines too, where there is memory for them (information only). */
	const struct child_context *spans = batch_gpu_contexts();
	int first = start->contexts, spans_n = a.contexts - first;
	size_t len = (size_t)n, room = len + (spans_n > 0 ? (size_t)spans_n * CONTEXT_LINE : 0);
	char *text = malloc(room + 1);
	if (!text)
		spans_n = 0;
	else
		memcpy(text, line, len);
	for (int i = 0; i < spans_n; i++) {
		const struct child_context *c = &spans[first + i];
		int k = c->end.s >= 0 ? snprintf(text + len, room + 1 - len,
						 "context_at_s=%.4f context_s=%.4f end_at_s=%.4f end_s=%.4f\n",
						 c->making.at_s, c->making.s, c->end.at_s, c->end.s)
				      : snprintf(text + len, room + 1 - len, "context_at_s=%.4f context_s=%.4f\n",
						 c->making.at_s, c->making.s);
		if (k > 0 && (size_t)k <= room - len)
			len += (size_t)k;
	}
	snprintf(path, sizeof(path), "%s/" WAITS_FILE, student_dir);
	if (atomic_write(path, text ? text : line, len, err, sizeof(err)) < 0)
		fprintf(stderr, "grade: %s\n", err);
	free(text);
}

/* The driver's work the class's students' children said they caused:
 * each context's making and, where known, its end, as spans of their own
 * (v[0..n)), of `contexts` contexts. */
struct spans {
	struct context_span *v;
	int n, room, contexts;
};

static int add_span(struct spans *spans, double at_s, double s)
{
	if (spans->n == spans->room) {
		int room = spans->room ? 2 * spans->room : 256;
		struct context_span *more = realloc(spans->v, sizeof(*more) * (size_t)room);
		if (!more)
			return -1;
		spans->v = more;
		spans->room = room;
	}
	spans->v[spans->n++] = (struct context_span){ at_s, s };
	return 0;
}

/* A context's line of a student's file, into spans where it is one and
 * believable (a child's word: its span is clipped to the batch's wall
 * clock later); a line that is not, or no memory, counts nothing. An end
 * that is not believable leaves the making alone. */
static void read_context(const char *line, struct spans *spans)
{
	struct child_context c;
	int got = sscanf(line, "context_at_s=%lf context_s=%lf end_at_s=%lf end_s=%lf", &c.making.at_s,
			 &c.making.s, &c.end.at_s, &c.end.s);
	if (got < 2 || !isfinite(c.making.at_s) || !(c.making.s >= 0 && c.making.s < 1e6) ||
	    add_span(spans, c.making.at_s, c.making.s) < 0)
		return;
	spans->contexts++;
	if (got == 4 && isfinite(c.end.at_s) && c.end.s >= 0 && c.end.s < 1e6)
		add_span(spans, c.end.at_s, c.end.s);
}

/* A student's account and its contexts, when it was written by this run
 * (not a resumed one). */
static int read_waits(const struct batch *b, const char *name, time_t since, struct gpu_account *a,
		      double *worker_s, int *processes, struct spans *spans)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], line[256];
	struct stat st;
	batch_student_dir(&b->c, name, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/" WAITS_FILE, dir);
	if (stat(path, &st) < 0 || st.st_mtime < since)
		return 0;
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	char gpu[64];
	int ok = fscanf(f, "gpu=%63s worker_s=%lf wait_shared_s=%lf held_shared_s=%lf wait_alone_s=%lf "
			   "held_alone_s=%lf drain_s=%lf shared_runs=%d timed_runs=%d correctness_processes=%d",
			gpu, worker_s, &a->wait_shared_s, &a->held_shared_s, &a->wait_alone_s, &a->held_alone_s,
			&a->drain_s, &a->shared_runs, &a->timed_runs, processes) == 10;
	/* The first line's rest, then the contexts'. */
	while (ok && fgets(line, sizeof(line), f))
		read_context(line, spans);
	fclose(f);
	return ok;
}

static int earlier(const void *a, const void *b)
{
	double x = ((const struct context_span *)a)->at_s, y = ((const struct context_span *)b)->at_s;
	return (x > y) - (x < y);
}

double batch_spans_union(struct context_span *spans, int n, double from, double to)
{
	double sum = 0, run_from = 0, run_to = 0;
	int running = 0;
	qsort(spans, (size_t)n, sizeof(*spans), earlier);
	for (int i = 0; i < n; i++) {
		double a = spans[i].at_s > from ? spans[i].at_s : from;
		double z = spans[i].at_s + spans[i].s < to ? spans[i].at_s + spans[i].s : to;
		if (z <= a)
			continue;
		if (running && a <= run_to) {
			run_to = z > run_to ? z : run_to;
			continue;
		}
		sum += running ? run_to - run_from : 0;
		run_from = a;
		run_to = z;
		running = 1;
	}
	return sum + (running ? run_to - run_from : 0);
}

/* What the pace line says binds the class, from each resource's share of
 * the wall clock. */
static const char *binds(double cpu_busy, double gpu_busy, double driver_busy)
{
	int half_busy = (cpu_busy >= SHARED_BUSY) + (gpu_busy >= SHARED_BUSY) + (driver_busy >= SHARED_BUSY);
	if (driver_busy >= DRIVER_BUSY && driver_busy >= cpu_busy && driver_busy >= gpu_busy)
		return "the CUDA driver binds: the host makes one context at a time, whatever its GPUs "
		       "(fewer processes a student, or more hosts, would help; more GPUs would not)";
	if (cpu_busy < BUSY && gpu_busy < BUSY && half_busy >= 2)
		return "no one part binds, but two or more are busy half the time or more, and the "
		       "workers queue at each (more --jobs would lengthen every queue)";
	if (cpu_busy < BUSY && gpu_busy < BUSY)
		return "nothing binds: the workers wait on their own steps (more --jobs, or fewer "
		       "students each waiting out a limit)";
	if (gpu_busy > cpu_busy)
		return "the GPUs bind (more GPUs would help)";
	return "the CPUs bind (more cores would help)";
}

void batch_pace_line(const struct batch *b, double start_s, double end_s, FILE *out)
{
	struct gpu_account sum = { 0 }, a;
	struct spans spans = { 0 };
	double worker_s = 0, w, wall_s = end_s - start_s;
	int students = 0, processes = 0, p;
	time_t since = time(NULL) - (time_t)wall_s - 1;
	for (int i = 0; i < b->roster.n; i++)
		if (b->rows[i].student[0] &&
		    read_waits(b, b->rows[i].student, since, &a, &w, &p, &spans)) {
			students++;
			processes += p;
			worker_s += w;
			sum.wait_shared_s += a.wait_shared_s;
			sum.wait_alone_s += a.wait_alone_s;
			sum.held_alone_s += a.held_alone_s;
			sum.drain_s += a.drain_s;
		}
	/* Only where this process ran the workers (not a Slurm merge). */
	if (students == 0 || wall_s <= 0 || b->graded == 0)
		goto out;
	double cpu_s = cpu_seconds_used();	/* the workers', reaped, and this process's */
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int gpus = b->c.n_gpus;
	double cpu_busy = cores > 0 ? cpu_s / (wall_s * (double)cores) : 0;
	double alone = gpus > 0 ? sum.held_alone_s / (wall_s * gpus) : 0;
	double draining = gpus > 0 ? sum.drain_s / (wall_s * gpus) : 0;
	/* A lower bound: the context of a child that said nothing is in no span. */
	double driver_busy = batch_spans_union(spans.v, spans.n, start_s, end_s) / wall_s;
	fprintf(out, "pace: %d students in %.1f s = %.0f an hour; ", students, wall_s,
		students * 3600.0 / wall_s);
	if (gpus > 0)
		fprintf(out, "the GPU%s held alone %.0f%% of the time and %.0f%% more by timed runs waiting for "
			"the shared holds to end, %d CUDA context%s made, the driver busy making and ending "
			"them %.0f%% of the time, ", gpus == 1 ? "" : "s", 100 * alone, 100 * draining, spans.contexts,
			spans.contexts == 1 ? "" : "s", 100 * driver_busy);
	fprintf(out, "the %ld CPU cores busy %.0f%% (%.1f CPU-seconds a student); each student waited "
		"on average %.1f s for a timed turn and %.1f s for a shared one, of %.1f s, and started "
		"%.2f correctness processes: %s\n", cores, 100 * cpu_busy, cpu_s / students,
		sum.wait_alone_s / students,
		sum.wait_shared_s / students, worker_s / students, (double)processes / students,
		binds(cpu_busy, alone + draining, driver_busy));
out:
	free(spans.v);
}
