/*
 * grader/slurm/ without a cluster: the command lines made for a node, OUT/.slurm's files, and how Slurm's answers are read,
 * with stand-ins for squeue, sacct and scontrol first on PATH. (make
 * test-slurm runs the whole thing against a real Slurm.)
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch/batch.h"
#include "cli/options.h"
#include "slurm/slurm.h"
#include "sys/kit_paths.h"
#include "test_support.h"

static int has(char **v, const char *s)
{
	for (; v && *v; v++)
		if (strcmp(*v, s) == 0)
			return 1;
	return 0;
}

static int has_prefix(char **v, const char *s)
{
	for (; v && *v; v++)
		if (strncmp(*v, s, strlen(s)) == 0)
			return 1;
	return 0;
}

/* What options_parse makes of "lab3 --slurm --submission 'a b.cu' ...". */
static void grade_options(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->lab_id = "lab3";
	o->backend = BACKEND_AUTO;
	o->plot = PLOT_PNG;
	o->slurm.on = 1;
}

Test(slurm, a_node_gets_the_grade_without_slurm_or_salt)
{
	struct options o;
	grade_options(&o);
	o.submission = "a b.cu";
	o.seed = 5;
	o.seed_given = 1;
	o.no_analysis = 1;
	o.json_path = "-";
	struct strvec a = { 0 };
	slurm_grade_options(&o, &a);
	cr_assert(!a.failed);
	cr_expect(!has_prefix(a.v, "--slurm"), "the node would submit again");
	cr_expect(has(a.v, "cuda"), "auto on a login node means the GPU of the node");
	cr_expect(has(a.v, "a b.cu") && has(a.v, "5") && has(a.v, "--no-analysis") && has(a.v, "-"));
	strvec_free(a.v);

	struct strvec r = { 0 };
	slurm_resource_options(&o, 0, &r);
	cr_expect(has(r.v, "--gres=gpu:1"), "the GPU backend asks for a GPU");
	cr_expect(has(r.v, "--job-name=grade-lab3"));
	strvec_free(r.v);

	grade_options(&o);
	o.batch_dir = "d";
	o.salt = "s3";
	o.slurm.gres = "none";
	o.slurm.account = "c1";
	struct strvec b = { 0 }, rb = { 0 };
	slurm_grade_options(&o, &b);
	slurm_resource_options(&o, 0, &rb);
	cr_expect(!has(b.v, "s3") && !has(b.v, "--salt"), "the salt stays off the command line");
	cr_expect(!has_prefix(rb.v, "--gres"), "--gres none asks for no GPU");
	cr_expect(has(rb.v, "--account=c1"));
	strvec_free(b.v);
	strvec_free(rb.v);
	o.slurm.gres = NULL;
	o.backend = BACKEND_EMU;
	struct strvec e = { 0 };
	slurm_resource_options(&o, 1, &e);
	cr_expect(!has_prefix(e.v, "--gres"), "the emulator needs no GPU");
	strvec_free(e.v);
}

static char tmp[64];

static void make_tmp(void)
{
	test_temp_dir(tmp, sizeof(tmp), "test-slurm");
}

static void remove_tmp(void)
{
	remove_tree(tmp);
}

Test(slurm, the_state_folder_is_private, .init = make_tmp, .fini = remove_tmp)
{
	char state[256], err[256], salt[64], job[32];
	struct stat st;
	cr_assert_eq(slurm_state_dir(tmp, state, sizeof(state), err, sizeof(err)), 0, "%s", err);
	chmod(state, 0755);	/* made private again on the next run */
	cr_assert_eq(slurm_state_dir(tmp, state, sizeof(state), err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(stat(state, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0700);
	cr_assert_eq(slurm_salt_write(state, "pepper", err, sizeof(err)), 0, "%s", err);
	char path[300];
	snprintf(path, sizeof(path), "%s/salt", state);
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 0777, 0600);
	cr_assert_eq(slurm_salt_read(state, salt, sizeof(salt), err, sizeof(err)), 0);
	cr_expect_str_eq(salt, "pepper");

	int tasks, students;
	enum backend backend;
	cr_expect_eq(slurm_job_read(state, job, sizeof(job), &tasks, &students, &backend), -1,
		     "no job yet");
	cr_assert_eq(slurm_job_write(state, "4711", 3, 9, BACKEND_EMU, err, sizeof(err)), 0);
	cr_assert_eq(slurm_job_read(state, job, sizeof(job), &tasks, &students, &backend), 0);
	cr_expect_str_eq(job, "4711");
	cr_expect(tasks == 3 && students == 9 && backend == BACKEND_EMU);
}

Test(slurm, the_roster_is_frozen_whole, .init = make_tmp, .fini = remove_tmp)
{
	char state[256], err[256];
	struct batch b, back;
	memset(&b, 0, sizeof(b));
	memset(&back, 0, sizeof(back));
	struct student s[3] = { { .name = "ana", .source = "/c/ana.cu" },
				{ .name = "it's $(x); `y`", .source = "/c/q.cu" },
				{ .name = "zoe", .source = "/c/zoe/transpose.cu" } };
	b.roster.students = s;
	b.roster.n = 3;
	int todo[] = { 2, 1 }, tasks = 0;
	cr_assert_eq(slurm_state_dir(tmp, state, sizeof(state), err, sizeof(err)), 0);
	cr_assert_eq(slurm_roster_write(state, &b, todo, 2, 2, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(slurm_roster_read(state, &back, &tasks, err, sizeof(err)), 0, "%s", err);
	cr_expect_eq(tasks, 2);
	cr_assert_eq(back.roster.n, 2);
	cr_expect_str_eq(back.roster.students[0].name, "zoe");
	cr_expect_str_eq(back.roster.students[1].name, "it's $(x); `y`");
	cr_expect_str_eq(back.roster.students[1].source, "/c/q.cu");
	roster_free(&back.roster);

	strcpy(s[0].name, "bad\xff");
	int all[] = { 0 };
	cr_expect_eq(slurm_roster_write(state, &b, all, 1, 1, err, sizeof(err)), -1,
		     "a name that is not UTF-8 is refused, not dropped");
}

/* A stand-in for a Slurm command: a script first on PATH. */
static void fake(const char *name, const char *body)
{
	char path[128];
	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	chmod(path, 0755);
}

static void fakes_first(void)
{
	make_tmp();
	char path[4096];
	snprintf(path, sizeof(path), "%s:%s", tmp, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", path, 1);	/* this test's process only */
}

Test(slurm, the_queue_is_counted, .init = fakes_first, .fini = remove_tmp)
{
	struct slurm_queue q;
	char err[256];
	fake("squeue", "printf 'PENDING\\nRUNNING\\nRUNNING\\nCOMPLETING\\nSUSPENDED\\n'");
	cr_assert_eq(slurm_queue("42", &q, err, sizeof(err)), 0, "%s", err);
	cr_expect(q.pending == 1 && q.running == 3 && q.other == 1, "%d %d %d", q.pending, q.running,
		  q.other);
	fake("squeue", "echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1");
	cr_assert_eq(slurm_queue("42", &q, err, sizeof(err)), 0, "a job gone from the queue: %s", err);
	cr_expect_eq(q.pending + q.running + q.other, 0);
	fake("squeue", "echo 'slurm_load_jobs error: Unable to contact slurm controller' >&2; exit 1");
	cr_expect_eq(slurm_queue("42", &q, err, sizeof(err)), -1, "a controller that does not answer");
	cr_expect(strstr(err, "Unable to contact"), "%s", err);
}

Test(slurm, outcomes_from_sacct, .init = fakes_first, .fini = remove_tmp)
{
	char states[3][32];
	fake("sacct", "printf '42_0|COMPLETED\\n42_1|CANCELLED by 0\\n42_1.batch|CANCELLED\\n"
		      "420_2|FAILED\\n42_2|TIMEOUT\\n'");
	cr_assert_str_eq(slurm_outcomes("42", 3, states), "sacct");
	cr_expect_str_eq(states[0], "COMPLETED");
	cr_expect_str_eq(states[1], "CANCELLED");
	cr_expect_str_eq(states[2], "TIMEOUT", "another job's line is not ours");
}

Test(slurm, outcomes_from_scontrol_without_accounting, .init = fakes_first, .fini = remove_tmp)
{
	char states[2][32];
	fake("sacct", "echo 'Slurm accounting storage is disabled' >&2; exit 1");
	fake("scontrol", "echo 'JobId=43 ArrayJobId=42 ArrayTaskId=1 JobName=g JobState=NODE_FAIL Reason=x'\n"
			 "echo 'JobId=42 ArrayJobId=42 ArrayTaskId=0 JobName=g JobState=COMPLETED Reason=None'");
	cr_assert_str_eq(slurm_outcomes("42", 2, states), "scontrol");
	cr_expect_str_eq(states[0], "COMPLETED");
	cr_expect_str_eq(states[1], "NODE_FAIL");
	fake("scontrol", "echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1");
	cr_expect_null(slurm_outcomes("42", 2, states), "neither knows: said so, not guessed");
}
