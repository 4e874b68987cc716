/*
 * Which process runs which correctness sizes (steps/correctness_plan.h),
 * with a scripted runner in place of the harness's children: for each size,
 * what it comes to first in a fresh process and after another size. What
 * is checked is each size's verdict, the hangs counted, and how many
 * processes (on a GPU, CUDA contexts) the step started, against the rule
 * before (the opening shared run, then every size from the first failure
 * in a process of its own: 1 + n - first). One rule for both backends:
 * the runner does not know which it is.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "steps/correctness_plan.h"

/* OTHER_CRASH: a process ended another way than CRASH (another signal).
 * EXIT: an exit() the harness caught, which leaves the process running.
 * TAMPER_EXIT: a report of several sizes that cannot be cut (a GPU's
 * forged output before an exit()), an EXIT where the size runs alone. */
enum fate { PASS, WRONG, CRASH, OTHER_CRASH, HANG, TAMPER, EXIT, TAMPER_EXIT, UNSET };
#define N 10

struct script {
	enum fate fresh[N], later[N];	/* first in its process; after another size */
	enum fate verdict[N];
	int settled_times[N];		/* a verdict is written once */
	int order[N], settled_n;	/* the sizes in the order they were settled */
	int calls;
};

/* What a child of the harness does, and correctness.c's judging of it. */
static struct size_run scripted(void *arg, int first, int count)
{
	struct script *s = arg;
	struct size_run r = { .started = 1 };
	s->calls++;
	for (int i = first; i < first + count; i++) {
		enum fate f = i == first ? s->fresh[i] : s->later[i];
		if ((f == TAMPER || f == TAMPER_EXIT) && count > 1) {	/* nothing of the report is believed */
			r.settled = 0;
			r.uncut = 1;
			return r;
		}
		if (f == TAMPER_EXIT)
			f = EXIT;
		int stands = f == PASS || f == WRONG || f == EXIT;
		if (!stands && i != first) {
			r.hung = f == HANG;
			return r;
		}
		s->verdict[i] = f;
		s->settled_times[i]++;
		s->order[s->settled_n++] = i;
		r.settled++;
		if (!stands) {
			r.ended_at_first = 1;
			r.hung = f == HANG;
			r.ending = f == HANG ? 0 : 100 + (unsigned)f;
			return r;
		}
	}
	/* One size a process: the process ends with it, an exit() caught too. */
	if (count == 1 && r.settled == 1 && !r.ended_at_first) {
		r.ended_at_first = 1;
		r.ending = s->verdict[first] == EXIT ? 100 + (unsigned)EXIT : 0;
	}
	return r;
}

static void script_every(struct script *s, enum fate fresh, enum fate later)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < N; i++) {
		s->fresh[i] = fresh;
		s->later[i] = later;
		s->verdict[i] = UNSET;
	}
}

/* Runs the plan; returns how many sizes it gave up on (no verdict), each
 * other size settled exactly once. */
static int plan(struct script *s, struct correctness_plan *p)
{
	int not_run = 0;
	correctness_plan_run(N, 0, scripted, s, p);
	cr_expect_eq(p->processes, s->calls);
	for (int i = 0; i < N; i++) {
		not_run += s->verdict[i] == UNSET;
		if (s->verdict[i] != UNSET)
			cr_expect_eq(s->settled_times[i], 1, "size %d settled %d times", i, s->settled_times[i]);
	}
	cr_expect_eq(p->why != NOT_RUN_NONE, not_run > 0, "why %d, %d sizes not run", p->why, not_run);
	return not_run;
}

Test(correctness_plan, every_size_passing_costs_one_process)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, PASS, PASS);
	plan(&s, &p);
	cr_expect_eq(p.processes, 1);
	cr_expect_eq(p.why, NOT_RUN_NONE);
	for (int i = 0; i < N; i++)
		cr_expect_eq(s.verdict[i], PASS);
}

Test(correctness_plan, a_kernel_wrong_at_every_size_costs_one_process)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, WRONG, WRONG);
	plan(&s, &p);
	cr_expect_eq(p.processes, 1, "%d processes (before: 1 + %d)", p.processes, N);
	cr_expect_eq(p.why, NOT_RUN_NONE);
	for (int i = 0; i < N; i++)
		cr_expect_eq(s.verdict[i], WRONG, "size %d", i);
}

/* A crash at size 3 of N, on either backend: the shared run, size 3
 * first in a new one (its verdict), the rest resumed. */
Test(correctness_plan, a_crash_at_size_3_costs_three_processes)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, PASS, PASS);
	s.fresh[3] = s.later[3] = CRASH;
	plan(&s, &p);
	cr_expect_eq(p.processes, 3, "%d processes (before: 1 + %d on a GPU, %d in the emulator)",
		     p.processes, N - 3, N);
	cr_expect_eq(p.hangs, 0);
	for (int i = 0; i < N; i++)
		cr_expect_eq(s.verdict[i], i == 3 ? CRASH : PASS, "size %d", i);
}

Test(correctness_plan, wrong_sizes_among_passing_ones_stay_in_the_process)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, PASS, PASS);
	s.fresh[2] = s.later[2] = s.fresh[7] = s.later[7] = WRONG;
	plan(&s, &p);
	cr_expect_eq(p.processes, 1);
	for (int i = 0; i < N; i++)
		cr_expect_eq(s.verdict[i], i == 2 || i == 7 ? WRONG : PASS, "size %d", i);
}

Test(correctness_plan, a_hang_at_size_3_is_judged_again_alone_then_the_rest_is_not_run)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, PASS, PASS);
	s.fresh[3] = s.later[3] = HANG;
	int not_run = plan(&s, &p);
	/* As before: the shared run's hang is the first, size 3 alone the second. */
	cr_expect_eq(p.processes, 2);
	cr_expect_eq(p.hangs, HANGS_BEFORE_GIVING_UP);
	cr_expect_eq(p.why, NOT_RUN_HUNG);
	cr_expect_eq(not_run, N - 4);
	cr_expect_eq(s.verdict[3], HANG);
}

/* The opening run's first size ran as if alone: its hang is its verdict
 * and the first hang; the next size alone is the second. */
Test(correctness_plan, a_kernel_hanging_at_every_size_costs_two_limits)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, HANG, HANG);
	int not_run = plan(&s, &p);
	cr_expect_eq(p.processes, 2);
	cr_expect_eq(p.hangs, 2);
	cr_expect_eq(not_run, N - 2);
	cr_expect_eq(s.verdict[0], HANG);
	cr_expect_eq(s.verdict[1], HANG);
}

/* The opening run's first size stands where it ended the process, and
 * the next size's, alone: the same way twice brings the last size and a
 * middle one forward. They end it the same way: the rest are not run. */
Test(correctness_plan, a_process_ending_the_same_way_at_every_size_costs_four_processes)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, CRASH, CRASH);	/* an illegal address at every size, say */
	int not_run = plan(&s, &p);
	cr_expect_eq(p.processes, 4, "%d processes for %d sizes (before: %d)", p.processes, N, N);
	cr_expect_eq(p.why, NOT_RUN_SAME_ENDING);
	cr_expect_eq(not_run, N - 4);
	int order[] = { 0, 1, N - 1, 2 + (N - 1 - 2) / 2 };
	for (int i = 0; i < 4; i++) {
		cr_expect_eq(s.order[i], order[i], "run %d: size %d", i, s.order[i]);
		cr_expect_eq(p.same_at[i], order[i], "same_at[%d] = %d", i, p.same_at[i]);
		cr_expect_eq(s.verdict[order[i]], CRASH);
	}
}

/* A fault only at the small sizes (a grid of n / 1024 blocks is empty
 * below 1024): the last size, brought forward, passes, and every other
 * size runs as before, each with its own verdict. */
Test(correctness_plan, a_fault_only_at_small_sizes_costs_one_process_more_and_docks_nothing)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, PASS, PASS);
	for (int i = 0; i < 4; i++)
		s.fresh[i] = s.later[i] = CRASH;
	int not_run = plan(&s, &p);
	cr_expect_eq(not_run, 0);
	cr_expect_eq(p.why, NOT_RUN_NONE);
	for (int i = 0; i < N; i++)
		cr_expect_eq(s.verdict[i], i < 4 ? CRASH : PASS, "size %d", i);
	/* shared (0), 1, the last (passes), 2, 3, then 4 to 8 in one */
	cr_expect_eq(p.processes, 6, "%d processes (before: 5)", p.processes);
}

/* A fault at the small sizes and at the largest: the middle one passes,
 * and the sizes between run as before. */
Test(correctness_plan, a_fault_at_both_ends_runs_the_sizes_between)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, PASS, PASS);
	s.fresh[0] = s.later[0] = s.fresh[1] = s.later[1] = CRASH;
	s.fresh[N - 1] = s.later[N - 1] = CRASH;
	int not_run = plan(&s, &p);
	cr_expect_eq(not_run, 0);
	for (int i = 0; i < N; i++)
		cr_expect_eq(s.verdict[i], i < 2 || i == N - 1 ? CRASH : PASS, "size %d", i);
	/* shared (0), 1, the last, the middle (passes), 2 to 3, 5 to 8 */
	cr_expect_eq(p.processes, 6, "%d processes", p.processes);
}

/* Two endings in a row that are not the same (another signal) bring
 * nothing forward: a size a process, each with its own verdict. */
Test(correctness_plan, endings_that_differ_bring_nothing_forward)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, CRASH, CRASH);
	for (int i = 1; i < N; i += 2)
		s.fresh[i] = s.later[i] = OTHER_CRASH;
	int not_run = plan(&s, &p);
	cr_expect_eq(not_run, 0);
	cr_expect_eq(p.processes, N);
	for (int i = 0; i < N; i++)
		cr_expect_eq(s.order[i], i, "run %d: size %d", i, s.order[i]);
}

Test(correctness_plan, a_crash_then_a_later_hang_resume_as_the_sizes_alone_would_have)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, PASS, PASS);
	s.fresh[3] = s.later[3] = CRASH;
	s.fresh[7] = s.later[7] = HANG;
	plan(&s, &p);
	/* Before: sizes 3 to 9 alone, one hang counted (size 7's), 8 and 9 run. */
	cr_expect_eq(p.hangs, 1);
	cr_expect_eq(p.why, NOT_RUN_NONE);
	for (int i = 0; i < N; i++)
		cr_expect_eq(s.verdict[i], i == 3 ? CRASH : i == 7 ? HANG : PASS, "size %d", i);
	/* shared; 3 alone; resumed at 4 (hangs at 7); then alone: 7, 8, 9 */
	cr_expect_eq(p.processes, 6, "%d processes (before: 1 + 7)", p.processes);
}

Test(correctness_plan, a_kernel_that_hangs_only_after_another_size_costs_one_limit)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, PASS, HANG);
	plan(&s, &p);
	/* Every size passes alone, as before; after the shared run's hang the
	 * rest run alone, so no other process waits out a limit. */
	cr_expect_eq(p.hangs, 1);
	cr_expect_eq(p.processes, N);
	for (int i = 0; i < N; i++)
		cr_expect_eq(s.verdict[i], PASS, "size %d", i);
}

Test(correctness_plan, a_kernel_wrong_only_after_another_size_is_wrong_there)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, PASS, WRONG);	/* state kept between calls */
	plan(&s, &p);
	cr_expect_eq(p.processes, 1);
	cr_expect_eq(s.verdict[0], PASS);
	for (int i = 1; i < N; i++)
		cr_expect_eq(s.verdict[i], WRONG, "size %d", i);
}

Test(correctness_plan, a_report_that_cannot_be_cut_sends_the_rest_alone)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, TAMPER, TAMPER);
	for (int i = 1; i < N; i += 2)	/* it writes into the channel at every other size */
		s.fresh[i] = s.later[i] = PASS;
	int not_run = plan(&s, &p);
	cr_expect_eq(not_run, 0);
	cr_expect_eq(p.processes, 1 + N);
	for (int i = 0; i < N; i++)
		cr_expect_eq(s.verdict[i], i % 2 ? PASS : TAMPER, "size %d", i);
}

/* A report that cannot be cut at every size, then each size alone ending
 * the same way: the opening run, two sizes alone, then the last and a
 * middle one brought forward; the other sizes are not run. */
static void expect_five_processes(enum fate every)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, every, every);
	int not_run = plan(&s, &p);
	cr_expect_eq(p.processes, 5, "%d processes (before: %d)", p.processes, 1 + N);
	cr_expect_eq(p.why, NOT_RUN_SAME_ENDING);
	cr_expect_eq(not_run, N - 4);
}

Test(correctness_plan, a_channel_written_into_at_every_size_costs_five_processes)
{
	expect_five_processes(TAMPER);
}

/* The harness could not be started at all: no process, each size says so. */
static struct size_run not_started(void *arg, int first, int count)
{
	(void)count;
	int *verdicts = arg;
	verdicts[first]++;
	return (struct size_run){ .settled = 1 };
}

Test(correctness_plan, a_harness_that_cannot_start_costs_no_process)
{
	int verdicts[N] = { 0 };
	struct correctness_plan p;
	correctness_plan_run(N, 0, not_started, verdicts, &p);
	cr_expect_eq(p.processes, 0);
	cr_expect_eq(p.why, NOT_RUN_NONE);
	for (int i = 0; i < N; i++)
		cr_expect_eq(verdicts[i], 1, "size %d", i);
}

/* On a GPU, a file that forges its output before an exit() at every size
 * leaves a report that cannot be cut: the sizes run one a process, and
 * each is the exit() it was. Two in a row bring the last and a middle size
 * forward, as a crash's would. */
Test(correctness_plan, an_exit_at_every_size_run_alone_brings_the_last_forward)
{
	expect_five_processes(TAMPER_EXIT);
}

/* An exit() at every size, in one process: each size is judged there, and
 * nothing is brought forward. */
Test(correctness_plan, an_exit_caught_at_every_size_stays_one_process)
{
	struct script s;
	struct correctness_plan p;
	script_every(&s, EXIT, EXIT);
	cr_expect_eq(plan(&s, &p), 0);
	cr_expect_eq(p.processes, 1);
}
