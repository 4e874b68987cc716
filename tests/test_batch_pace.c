/*
 * The batch's account of its GPU and its last line (batch_pace.c): what
 * each student's gpu-waits.txt holds -- its worker's waits and holds, its
 * correctness processes, the CUDA contexts its children said they made --
 * and what the pace line says binds the class. The driver's busy share is
 * the union of the contexts' spans over the wall clock, not their sum: a
 * host makes its contexts one at a time, so contexts asked for at the
 * same moment wait on each other.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch/batch.h"
#include "grade_runner.h"
#include "steps/run_context.h"
#include "sys/clock.h"
#include "sys/kit_paths.h"
#include "sys/sandbox.h"
#include "test_support.h"

/* The gpu-waits.txt a worker writes into dir (since start), as text. */
static void waits_text(const char *dir, double wall_s, int processes, const struct gpu_account *start,
		       char *text, size_t len)
{
	char path[128];
	batch_write_gpu_waits(dir, "0", wall_s, processes, start);
	snprintf(path, sizeof(path), "%s/gpu-waits.txt", dir);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f);
	size_t n = fread(text, 1, len - 1, f);
	text[n] = '\0';
	fclose(f);
}

/* A student's gpu-waits.txt says how many processes its correctness
 * started (on a GPU, CUDA contexts): the GPU run's before and after. */
Test(batch_pace, gpu_waits_count_the_correctness_processes)
{
	char dir[] = "/tmp/batch-pace-XXXXXX", text[512] = "";
	cr_assert_not_null(mkdtemp(dir));
	struct gpu_account start;
	batch_gpu_account(&start);
	waits_text(dir, 1.5, 7, &start, text, sizeof(text));
	cr_expect(strstr(text, "gpu=0 worker_s=1.50 ") == text, "%s", text);
	cr_expect(strstr(text, " correctness_processes=7 pinned_runs=0\n"), "%s", text);
	cr_expect(!strstr(text, "context"), "no child said a context: %s", text);
	remove_tree(dir);
}

static void slot_in(const char *dir, struct gpu_slot *slot)
{
	memset(slot, 0, sizeof(*slot));
	snprintf(slot->lock_path, sizeof(slot->lock_path), "%s/gpu.lock", dir);
	snprintf(slot->turn_path, sizeof(slot->turn_path), "%s/gpu.turn", dir);
	slot->lock_fd = slot->turn_fd = -1;
}

/* A worker is forked from the batch, whose reference timing held the GPU
 * alone: a student's gpu-waits.txt counts only what its own grade did. */
Test(batch_pace, a_students_account_holds_only_its_own_grade)
{
	char dir[] = "/tmp/batch-pace-XXXXXX", text[512] = "";
	cr_assert_not_null(mkdtemp(dir));
	struct gpu_slot slot;
	slot_in(dir, &slot);
	struct timespec nap = { 0, 50 * 1000000L };
	batch_gpu_phase(&slot, 1, 1);	/* the batch's reference, timed */
	nanosleep(&nap, NULL);
	batch_gpu_phase(&slot, 1, 0);
	struct gpu_account start;
	batch_gpu_account(&start);
	batch_gpu_phase(&slot, 0, 1);	/* the student's correctness run */
	nanosleep(&nap, NULL);
	batch_gpu_phase(&slot, 0, 0);
	waits_text(dir, 1.0, 1, &start, text, sizeof(text));
	cr_expect(strstr(text, " held_alone_s=0.00 drain_s=0.00 shared_runs=1 timed_runs=0 "), "%s", text);
	double held_shared = 0;
	cr_expect(sscanf(strstr(text, "held_shared_s="), "held_shared_s=%lf", &held_shared) == 1);
	cr_expect_geq(held_shared, 0.04, "%s", text);
	remove_tree(dir);
}

/* Each child lent the GPU that said when it made its context gets a line
 * below the account, the worker's student's own only, with its end where
 * that is known; one that said nothing believable (context_s < 0) gets
 * none. */
Test(batch_pace, gpu_waits_list_the_students_contexts)
{
	char dir[] = "/tmp/batch-pace-XXXXXX", text[1024] = "";
	cr_assert_not_null(mkdtemp(dir));
	struct gpu_slot slot;
	slot_in(dir, &slot);
	int fds[2];
	struct gpu_hold before = { .context_at_s = 500, .context_s = 0.3, .end_s = -1 };
	cr_assert_eq(batch_gpu_lend(&slot, 0, fds, &before), 0);	/* an earlier student's */
	struct gpu_account start;
	batch_gpu_account(&start);
	struct gpu_hold said[] = { { .context_at_s = 1000.25, .context_s = 0.271, .end_at_s = 1002.5, .end_s = 0.0625 },
				   { .timed = 1, .context_at_s = 1003.5, .context_s = 0.125, .end_s = -1 },
				   { .context_at_s = 1004, .context_s = -1, .end_s = -1 } };
	for (int i = 0; i < 3; i++)
		cr_assert_eq(batch_gpu_lend(&slot, 0, fds, &said[i]), 0);
	waits_text(dir, 5.0, 2, &start, text, sizeof(text));
	cr_expect(strstr(text, " correctness_processes=2 pinned_runs=0\n"
			       "context_at_s=1000.2500 context_s=0.2710 end_at_s=1002.5000 end_s=0.0625\n"
			       "context_at_s=1003.5000 context_s=0.1250\n"), "%s", text);
	cr_expect(!strstr(text, "context_at_s=500"), "an earlier student's context: %s", text);
	cr_expect(!strstr(text, "context_at_s=1004"), "a context said as none: %s", text);
	remove_tree(dir);
}

/* ---- the union of the contexts' spans ------------------------------------------------ */

Test(batch_pace, the_union_counts_each_moment_once)
{
	struct context_span none[1];
	cr_expect_float_eq(batch_spans_union(none, 0, 0, 10), 0, 1e-9);
	/* Apart, out of order: their sum. */
	struct context_span apart[] = { { 5, 1 }, { 1, 2 } };
	cr_expect_float_eq(batch_spans_union(apart, 2, 0, 10), 3, 1e-9);
	/* One inside another, one overlapping, one touching: [1, 6]. */
	struct context_span piled[] = { { 2, 1 }, { 1, 3 }, { 3.5, 1.5 }, { 5, 1 } };
	cr_expect_float_eq(batch_spans_union(piled, 4, 0, 10), 5, 1e-9);
	/* Clipped to the wall clock [2, 8]: before it, across each end, after it. */
	struct context_span edges[] = { { 0, 1 }, { 1, 2 }, { 7, 3 }, { 9, 1 } };
	cr_expect_float_eq(batch_spans_union(edges, 4, 2, 8), 2, 1e-9);
	/* One span that covers the whole wall clock. */
	struct context_span all[] = { { -100, 1000 }, { 3, 1 } };
	cr_expect_float_eq(batch_spans_union(all, 2, 2, 8), 6, 1e-9);
	/* Zero-length spans add nothing. */
	struct context_span empty[] = { { 3, 0 }, { 4, 0 } };
	cr_expect_float_eq(batch_spans_union(empty, 2, 0, 10), 0, 1e-9);
}

/* ---- the pace line --------------------------------------------------------------------- */

#define WALL_FROM 1000.0	/* the batch's start on the monotonic clock, in these tests */

/* Each student's time held alone and draining, in the next pace_of. */
static double alone_each_s = 0.01, drain_each_s;

/* The pace line of a class of two students, over a wall clock of wall_s
 * from WALL_FROM, whose gpu-waits.txt hold their account's line and then
 * contexts[i] (lines of text, as written or as damaged). */
static void pace_of(const char *const contexts[2], double wall_s, char *line, size_t len)
{
	static struct summary rows[2];
	struct batch b;
	memset(&b, 0, sizeof(b));
	char dir[] = "/tmp/batch-pace-XXXXXX", students[64], sdir[128];
	cr_assert_not_null(mkdtemp(dir));
	snprintf(b.c.out_dir, sizeof(b.c.out_dir), "%s", dir);
	snprintf(students, sizeof(students), "%s/students", dir);
	mkdir(students, 0700);
	b.roster.n = 2;
	b.rows = rows;
	b.graded = 2;
	b.c.n_gpus = 1;
	for (int i = 0; i < 2; i++) {
		char text[256];
		snprintf(rows[i].student, sizeof(rows[i].student), "s%d", i);
		snprintf(sdir, sizeof(sdir), "%s/s%d", students, i);
		mkdir(sdir, 0700);
		snprintf(text, sizeof(text), "%s/gpu-waits.txt", sdir);
		FILE *f = fopen(text, "w");
		cr_assert_not_null(f);
		fprintf(f, "gpu=0 worker_s=1.00 wait_shared_s=0.00 held_shared_s=0.10 wait_alone_s=%.2f "
			"held_alone_s=%.2f drain_s=%.2f shared_runs=1 timed_runs=1 correctness_processes=1 "
			"pinned_runs=0\n%s", drain_each_s, alone_each_s, drain_each_s, contexts[i]);
		fclose(f);
	}
	FILE *out = fmemopen(line, len, "w");
	cr_assert_not_null(out);
	batch_pace_line(&b, WALL_FROM, WALL_FROM + wall_s, out);
	fclose(out);
	remove_tree(dir);
}

/* The pace line of two students whose children made these contexts in a
 * 10 s class: it says the driver's share, and what it says binds. */
static void expect_driver(const char *const contexts[2], const char *share, const char *binds)
{
	char line[1024] = "";
	pace_of(contexts, 10, line, sizeof(line));
	cr_expect(strstr(line, share), "%s", line);
	cr_expect(strstr(line, binds), "%s", line);
}

/* Contexts that overlap and together cover most of the wall clock: some
 * child was making one 95% of the time, and the driver binds. */
Test(batch_pace, contexts_that_cover_the_wall_clock_say_the_driver_binds)
{
	const char *const contexts[2] = {
		"context_at_s=1000.0000 context_s=4.0000\ncontext_at_s=1003.0000 context_s=3.0000\n",
		"context_at_s=1005.5000 context_s=3.5000\ncontext_at_s=1008.0000 context_s=1.5000\n",
	};
	expect_driver(contexts, "4 CUDA contexts made, the driver busy making and ending them 95% of the time",
		      "the CUDA driver binds");
}

/* A context's end is the driver's work as much as its making: contexts
 * made half the time and ended most of the rest keep the driver busy 95%
 * of it, and it binds. An end that is not believable leaves its making
 * counted. */
Test(batch_pace, contexts_ended_count_as_the_drivers_time)
{
	const char *const contexts[2] = {
		"context_at_s=1000.0000 context_s=2.0000 end_at_s=1002.0000 end_s=2.5000\n",
		"context_at_s=1004.5000 context_s=2.0000 end_at_s=1006.5000 end_s=3.0000\n"
		"context_at_s=1009.6000 context_s=0.1000 end_at_s=1009.7000 end_s=-2\n",
	};
	expect_driver(contexts, "3 CUDA contexts made, the driver busy making and ending them 96% of the time",
		      "the CUDA driver binds");
}

/* Contexts made 70% of the time, the rest idle: the driver is busy, but a
 * class that made fewer contexts at that share went no faster, so it is
 * not named as what binds. */
Test(batch_pace, contexts_made_most_of_the_time_do_not_bind)
{
	const char *const contexts[2] = {
		"context_at_s=1000.0000 context_s=3.0000\ncontext_at_s=1004.0000 context_s=1.0000\n",
		"context_at_s=1002.0000 context_s=2.0000\ncontext_at_s=1005.0000 context_s=2.0000\n",
	};
	expect_driver(contexts, "4 CUDA contexts made, the driver busy making and ending them 70% of the time",
		      "nothing binds");
}

/* A timed run that holds the GPU's turn while the shared holds end takes
 * the GPU from everyone as much as one that holds it alone: two students
 * each alone 1.5 s and draining 2 s in 10 s have the GPU 70% of the time,
 * and the line says the GPUs bind, though it was held alone only 30%. */
Test(batch_pace, a_turn_held_while_shared_holds_end_counts_as_the_gpus_time)
{
	char line[1024] = "";
	const char *const contexts[2] = { "", "" };
	alone_each_s = 1.5;
	drain_each_s = 2;
	pace_of(contexts, 10, line, sizeof(line));
	alone_each_s = 0.01;
	drain_each_s = 0;
	cr_expect(strstr(line, "the GPU held alone 30% of the time and 40% more by timed runs waiting for the "
			       "shared holds to end"), "%s", line);
	cr_expect(strstr(line, "the GPUs bind"), "%s", line);
}

/* The GPUs' turns taken half the time and the driver busy 60%: neither
 * binds alone, but the workers queue at both, and more of them would not
 * help (two H200s with 16, 24 and 32 workers: docs/results/
 * gpu-2026-11-28-workers/). The line does not advise more --jobs. */
Test(batch_pace, two_parts_half_busy_do_not_ask_for_more_workers)
{
	char line[1024] = "";
	const char *const contexts[2] = { "context_at_s=1000.0000 context_s=3.0000\n",
					  "context_at_s=1005.0000 context_s=3.0000\n" };
	alone_each_s = 1;
	drain_each_s = 1.5;
	pace_of(contexts, 10, line, sizeof(line));
	alone_each_s = 0.01;
	drain_each_s = 0;
	cr_expect(strstr(line, "the GPU held alone 20% of the time and 30% more"), "%s", line);
	cr_expect(strstr(line, "the driver busy making and ending them 60% of the time"), "%s", line);
	cr_expect(strstr(line, "no one part binds, but two or more are busy half the time or more"), "%s",
		  line);
	cr_expect(!strstr(line, "more --jobs,"), "%s", line);
}

/* The line says what a student cost the host's cores: the CPU seconds
 * the batch's process and its reaped workers used, over the students. */
Test(batch_pace, the_line_says_the_cpu_seconds_a_student)
{
	char line[1024] = "";
	const char *const contexts[2] = { "context_at_s=1000.0000 context_s=0.1000\n",
					  "context_at_s=1001.0000 context_s=0.1000\n" };
	double before = cpu_seconds_used();
	pace_of(contexts, 10, line, sizeof(line));
	double after = cpu_seconds_used(), said = -1;
	const char *at = strstr(line, "% (");
	cr_assert(at && sscanf(at + 3, "%lf CPU-seconds a student)", &said) == 1, "%s", line);
	cr_expect(said >= before / 2 - 0.05 && said <= after / 2 + 0.05, "said %.2f, used %.2f-%.2f over 2: %s",
		  said, before, after, line);
}

/* Forty contexts of 0.3 s each asked for in the same moment: 12 s of
 * them in a wall clock of 10 s, but the driver was busy with them 0.69 s
 * of it. A sum would say the driver binds; the union does not. */
Test(batch_pace, contexts_piled_in_one_moment_do_not_say_the_driver_binds)
{
	static char each[2][2048];
	char line[1024] = "";
	for (int s = 0; s < 2; s++) {
		size_t at = 0;
		for (int i = 0; i < 20; i++)
			at += (size_t)snprintf(each[s] + at, sizeof(each[s]) - at,
					       "context_at_s=%.4f context_s=0.3000\n", 1002 + (2 * i + s) * 0.01);
	}
	const char *const contexts[2] = { each[0], each[1] };
	pace_of(contexts, 10, line, sizeof(line));
	cr_expect(strstr(line, "40 CUDA contexts made, the driver busy making and ending them 7% of the time"), "%s",
		  line);
	cr_expect(!strstr(line, "the CUDA driver binds"), "%s", line);
}

/* A student's file whose context lines are damaged or absurd -- not
 * numbers, NaN, a negative or endless span, a line cut short -- still
 * gives a pace line, and counts nothing for them; the other student's
 * has none at all. */
Test(batch_pace, damaged_context_lines_count_nothing)
{
	char line[1024] = "";
	const char *const contexts[2] = {
		"context_at_s=abc context_s=0.5\n"
		"context_at_s=nan context_s=0.5\n"
		"context_at_s=1001 context_s=nan\n"
		"context_at_s=1001 context_s=-3\n"
		"context_at_s=1001 context_s=1e300\n"
		"context_at_s=1001\n"
		"garbage\n"
		"context_at_s=1002.0000 context_s=1.0000\n"
		"context_at_s=10",
		"",
	};
	pace_of(contexts, 10, line, sizeof(line));
	cr_expect(strstr(line, "pace: 2 students in 10.0 s"), "%s", line);
	cr_expect(strstr(line, "1 CUDA context made, the driver busy making and ending them 10% of the time"), "%s",
		  line);
	cr_expect(!strstr(line, "the CUDA driver binds"), "%s", line);
}

/* ---- on a GPU ----------------------------------------------------------------------------- */

/* A class of three graded on this machine's GPU: each student's
 * gpu-waits.txt holds a line for each context its children made (at least
 * its correctness run's), each of a believable length and within the
 * batch's own time on the host's monotonic clock (bubblewrap makes no time
 * namespace), and the pace line counts them. */
Test(batch_pace_gpu, a_class_measures_its_contexts, .timeout = 900)
{
	static const char *const names[] = { "solution", "naive", "padded" };
	static const char *const files[] = { "solutions/lab3-transpose/transpose.cu",
					     "tests/fixtures/lab3/naive.cu", "tests/fixtures/lab3/padded.cu" };
	char why[512], tmp[64], in[128], out[128], path[256], grade[PATH_MAX], err[256];
	if (!have_gpu(why, sizeof(why)))
		cr_skip_test("needs a CUDA GPU: %s", why);
	test_temp_dir(tmp, sizeof(tmp), "batch-pace-gpu");
	snprintf(in, sizeof(in), "%s/class", tmp);
	snprintf(out, sizeof(out), "%s/graded", tmp);
	cr_assert_eq(mkdir(in, 0755), 0);
	for (int i = 0; i < 3; i++) {
		char *text = kit_file_text(files[i]);
		cr_assert_not_null(text, "%s", files[i]);
		snprintf(path, sizeof(path), "%s/%s.cu", in, names[i]);
		test_write_file(path, text);
		free(text);
	}
	kit_path(grade, sizeof(grade), "build/grade");
	char *argv[] = { grade, "lab3", "--batch", in, "--out", out, "--backend", "cuda", "--plot", "none",
			 "--jobs", "3", NULL };
	struct sandbox_limits lim = { .wall_s = 900, .output_cap = 1 << 20 };
	struct child_result res;
	double from = now_s();
	cr_assert_eq(sandbox_run(argv, &lim, &res, err, sizeof(err)), 0, "%s", err);
	double to = now_s();
	char log[16384];
	snprintf(log, sizeof(log), "%s", child_output_tail(&res, 60));
	child_result_free(&res);
	if (strstr(log, "cannot read the kit"))
		cr_skip_test("the sandbox's uid cannot read the kit here: %s", log);
	int total = 0, ended = 0;
	for (int i = 0; i < 3; i++) {
		char line[256];
		int contexts = 0;
		snprintf(path, sizeof(path), "%s/students/%s/gpu-waits.txt", out, names[i]);
		FILE *f = fopen(path, "r");
		cr_assert_not_null(f, "%s: no gpu-waits.txt\n%s", names[i], log);
		while (fgets(line, sizeof(line), f)) {
			double at, s, end_at, end_s;
			int got = sscanf(line, "context_at_s=%lf context_s=%lf end_at_s=%lf end_s=%lf", &at, &s,
					 &end_at, &end_s);
			if (got < 2)
				continue;
			contexts++;
			ended += got == 4;
			cr_expect(s > 0 && s < 60, "%s: a context of %.4f s", names[i], s);
			cr_expect(at >= from && at + s <= to, "%s: a context at %.3f, the batch from %.3f to %.3f",
				  names[i], at, from, to);
			cr_expect(got != 4 || (end_at >= at + s && end_s >= 0 && end_at + end_s <= to),
				  "%s: an end at %.3f for %.4f s, its context at %.3f for %.4f, the batch to %.3f",
				  names[i], end_at, end_s, at, s, to);
		}
		fclose(f);
		cr_expect_geq(contexts, 1, "%s: no context said\n%s", names[i], log);
		total += contexts;
	}
	cr_expect_eq(ended, total, "every child that said its context said its end");
	char want[96];
	snprintf(want, sizeof(want), "%d CUDA context%s made, the driver busy making and ending them ", total,
		 total == 1 ? "" : "s");
	cr_expect(strstr(log, want), "the pace line does not say '%s':\n%s", want, log);
	remove_tree(tmp);
}

/* A host makes its CUDA contexts one at a time for all its GPUs: the
 * workers on GPUs stop at 16 for the host, however many GPUs it has. */
Test(batch_pace, the_workers_on_gpus_stop_at_16_for_the_host)
{
	cr_expect_eq(batch_default_jobs(0, 32, BACKEND_CUDA, 1), 16);
	cr_expect_eq(batch_default_jobs(0, 32, BACKEND_CUDA, 2), 16, "two GPUs: 16, not 32");
	cr_expect_eq(batch_default_jobs(0, 128, BACKEND_CUDA, 8), 16);
	cr_expect_eq(batch_default_jobs(0, 8, BACKEND_CUDA, 2), 8, "one a core below that");
	cr_expect_eq(batch_default_jobs(0, 32, BACKEND_EMU, 0), 32, "the emulator: one a core");
	cr_expect_eq(batch_default_jobs(40, 32, BACKEND_CUDA, 2), 40, "--jobs wins");
	cr_expect_eq(batch_default_jobs(0, -1, BACKEND_EMU, 0), 1, "no core count: one");
}
