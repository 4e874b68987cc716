/*
 * The class's pace, and what binds it. Each worker writes beside its
 * student's reports what it waited for on the GPU and how long it held it
 * (gpu-waits.txt): a timed child's time alone (wait_alone_s, held_alone_s)
 * is what its harness measured around its timed launches and reported,
 * information only (common/gpu_lock.h); its whole life counts as one
 * shared run. The batch's last line sums them: the GPUs bind when
 * their time held alone nears the wall clock times their number, the CPUs
 * when the workers' CPU time nears it times the cores, and the CUDA driver
 * when the children's contexts, each costing what the device probe's
 * process cost alone, near the wall clock: a host makes its contexts one
 * at a time, for all its GPUs together (32 at once took 8.3 s on one H200
 * and 7.8 s spread over two, docs/results/gpu-2026-11-27-contexts).
 */
#include "batch/batch.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sys/atomic_file.h"

#define WAITS_FILE "gpu-waits.txt"
/* Busier than this, a resource is what binds the class. */
#define BUSY 0.6

void batch_write_gpu_waits(const char *student_dir, const char *gpu, double wall_s,
			   int correctness_processes, const struct gpu_account *start)
{
	struct gpu_account a;
	char text[512], path[PATH_MAX + 32], err[256];
	batch_gpu_account(&a);
	a.wait_shared_s -= start->wait_shared_s;
	a.held_shared_s -= start->held_shared_s;
	a.wait_alone_s -= start->wait_alone_s;
	a.held_alone_s -= start->held_alone_s;
	a.shared_runs -= start->shared_runs;
	a.timed_runs -= start->timed_runs;
	a.pinned_runs -= start->pinned_runs;
	int n = snprintf(text, sizeof(text),
			 "gpu=%s worker_s=%.2f wait_shared_s=%.2f held_shared_s=%.2f wait_alone_s=%.2f "
			 "held_alone_s=%.2f shared_runs=%d timed_runs=%d correctness_processes=%d "
			 "pinned_runs=%d\n",
			 gpu && *gpu ? gpu : "-", wall_s, a.wait_shared_s, a.held_shared_s, a.wait_alone_s,
			 a.held_alone_s, a.shared_runs, a.timed_runs, correctness_processes, a.pinned_runs);
	snprintf(path, sizeof(path), "%s/" WAITS_FILE, student_dir);
	if (n > 0 && atomic_write(path, text, (size_t)n, err, sizeof(err)) < 0)
		fprintf(stderr, "grade: %s\n", err);
}

/* A student's account, when it was written by this run (not a resumed one). */
static int read_waits(const struct batch *b, const char *name, time_t since, struct gpu_account *a,
		      double *worker_s, int *processes)
{
	char dir[PATH_MAX], path[PATH_MAX + 32];
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
			   "held_alone_s=%lf shared_runs=%d timed_runs=%d correctness_processes=%d", gpu,
			worker_s, &a->wait_shared_s, &a->held_shared_s, &a->wait_alone_s, &a->held_alone_s,
			&a->shared_runs, &a->timed_runs, processes) == 9;
	fclose(f);
	return ok;
}

/* What the pace line says binds the class, from each resource's share of
 * the wall clock. */
static const char *binds(double cpu_busy, double gpu_busy, double driver_busy)
{
	if (cpu_busy < BUSY && gpu_busy < BUSY && driver_busy < BUSY)
		return "nothing binds: the workers wait on their own steps (more --jobs, or fewer "
		       "students each waiting out a limit)";
	if (driver_busy >= cpu_busy && driver_busy >= gpu_busy)
		return "the CUDA driver binds: the host makes one context at a time, whatever its GPUs "
		       "(fewer processes a student, or more hosts, would help; more GPUs would not)";
	if (gpu_busy > cpu_busy)
		return "the GPUs bind (more GPUs would help)";
	return "the CPUs bind (more cores would help)";
}

void batch_pace_line(const struct batch *b, double wall_s, FILE *out)
{
	struct gpu_account sum = { 0 }, a;
	double worker_s = 0, w;
	int students = 0, processes = 0, p;
	time_t since = time(NULL) - (time_t)wall_s - 1;
	for (int i = 0; i < b->roster.n; i++)
		if (b->rows[i].student[0] && read_waits(b, b->rows[i].student, since, &a, &w, &p)) {
			students++;
			processes += p;
			worker_s += w;
			sum.wait_shared_s += a.wait_shared_s;
			sum.wait_alone_s += a.wait_alone_s;
			sum.held_alone_s += a.held_alone_s;
			sum.shared_runs += a.shared_runs;
		}
	/* Only where this process ran the workers (not a Slurm merge). */
	if (students == 0 || wall_s <= 0 || b->graded == 0)
		return;
	struct rusage ru;
	double cpu_s = 0;
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
		cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
			ru.ru_stime.tv_usec / 1e6;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int gpus = b->c.n_gpus;
	double cpu_busy = cores > 0 ? cpu_s / (wall_s * (double)cores) : 0;
	double gpu_busy = gpus > 0 ? sum.held_alone_s / (wall_s * gpus) : 0;
	/* Every GPU child makes a context (each counts as a shared run). */
	double context_s = gpus > 0 ? b->c.gpus[0].dev.probe_s : 0;
	double driver_busy = sum.shared_runs * context_s / wall_s;
	fprintf(out, "pace: %d students in %.1f s = %.0f an hour; ", students, wall_s,
		students * 3600.0 / wall_s);
	if (gpus > 0)
		fprintf(out, "the GPU%s held alone %.0f%% of the time, %d CUDA contexts of about %.2f s "
			"each made (the driver busy %.0f%%), ", gpus == 1 ? "" : "s", 100 * gpu_busy,
			sum.shared_runs, context_s, 100 * driver_busy);
	fprintf(out, "the %ld CPU cores busy %.0f%%; each student waited on average %.1f s for a "
		"timed turn and %.1f s for a shared one, of %.1f s, and started %.2f correctness "
		"processes: %s\n", cores, 100 * cpu_busy, sum.wait_alone_s / students,
		sum.wait_shared_s / students, worker_s / students, (double)processes / students,
		binds(cpu_busy, gpu_busy, driver_busy));
}
