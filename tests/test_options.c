#include <criterion/criterion.h>

#include "cli/options.h"

static int parse(struct options *o, char *err, int argc, ...)
{
	char *argv[16] = { "grade" };
	va_list ap;
	va_start(ap, argc);
	for (int i = 1; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	return options_parse(argc, argv, o, err, 256);
}

Test(options, grade_with_options)
{
	struct options o;
	char err[256];
	cr_assert_eq(parse(&o, err, 8, "lab3", "--seed", "42", "--backend", "emu", "--plot", "term"), 0, "%s", err);
	cr_expect_str_eq(o.lab_id, "lab3");
	cr_expect(o.seed_given && o.seed == 42);
	cr_expect_eq(o.backend, BACKEND_EMU);
	cr_expect_eq(o.plot, PLOT_TERM);
}

Test(options, mistakes_are_explained)
{
	struct options o;
	char err[256];
	cr_expect_eq(parse(&o, err, 3, "lab3", "--backend"), -1);
	cr_expect(strstr(err, "needs a value"), "%s", err);
	cr_expect_eq(parse(&o, err, 4, "lab3", "--backend", "gpu"), -1);
	cr_expect(strstr(err, "not auto, cuda or emu"), "%s", err);
	cr_expect_eq(parse(&o, err, 4, "lab3", "--seed", "-1"), -1);
	cr_expect_eq(parse(&o, err, 2, "--seed"), -1);
	cr_expect_eq(parse(&o, err, 1), -1);
	cr_expect(strstr(err, "which lab"), "%s", err);
	cr_expect(strstr(err, "lab1, lab2, lab3, lab4"), "every lab is named: %s", err);
	cr_expect_eq(parse(&o, err, 5, "lab3", "--solution", "--submission", "x.cu"), -1);
	cr_expect_eq(parse(&o, err, 4, "lab3", "--salt", "x"), -1);
	cr_expect(strstr(err, "go with --batch"), "%s", err);
	cr_expect_eq(parse(&o, err, 3, "lab3", "--frobnicate"), -1);
	cr_expect(strstr(err, "unknown option --frobnicate"), "%s", err);
	cr_expect_eq(parse(&o, err, 3, "lab3", "lab2"), -1);
}

Test(options, salt_changes_everything_and_stays_secret)
{
	struct options a, b;
	char err[256];
	cr_assert_eq(parse(&a, err, 6, "lab3", "--batch", "d", "--salt", "s1"), 0, "%s", err);
	cr_assert_eq(parse(&b, err, 6, "lab3", "--batch", "d", "--salt", "s2"), 0, "%s", err);
	cr_expect_neq(options_salt(&a), options_salt(&b));
	cr_expect_neq(options_salt(&a), 0);
	cr_assert_eq(parse(&a, err, 2, "lab3"), 0);
	cr_expect_eq(options_salt(&a), 0);
}

Test(options, questions_that_need_no_lab)
{
	struct options o;
	char err[256];
	cr_assert_eq(parse(&o, err, 2, "--device"), 0, "%s", err);
	cr_expect(o.device);
	cr_assert_eq(parse(&o, err, 3, "--chart-from", "r.json"), 0, "%s", err);
	cr_expect_str_eq(o.chart_from, "r.json");
	cr_assert_eq(parse(&o, err, 2, "--list"), 0, "%s", err);
}

/* --slurm's options (grader/slurm/slurm_options.c) and what they go with. */
Test(options, slurm_options_go_together)
{
	struct options o;
	char err[256];
	cr_assert_eq(parse(&o, err, 10, "lab3", "--batch", "d", "--slurm", "--partition", "gpu",
			   "--max-tasks", "8", "--no-wait"), 0, "%s", err);
	cr_expect(o.slurm.on && o.slurm.no_wait);
	cr_expect_eq(o.slurm.max_tasks, 8);
	cr_expect_str_eq(o.slurm.partition, "gpu");
	cr_expect_eq(parse(&o, err, 5, "lab3", "--slurm", "--time", "0:10:00"), 0, "%s", err);
	cr_expect_eq(parse(&o, err, 5, "lab3", "--batch", "d", "--collect"), 0, "%s", err);

	cr_expect_eq(parse(&o, err, 4, "lab3", "--partition", "gpu"), -1);
	cr_expect(strstr(err, "go with --slurm"), "%s", err);
	cr_expect_eq(parse(&o, err, 4, "lab3", "--slurm", "--no-wait"), -1);
	cr_expect(strstr(err, "--batch DIR --slurm"), "%s", err);
	cr_expect_eq(parse(&o, err, 6, "lab3", "--batch", "d", "--collect", "--slurm"), -1);
	cr_expect_eq(parse(&o, err, 7, "lab3", "--batch", "d", "--slurm", "--max-tasks", "0"), -1);
	cr_expect(strstr(err, "from 1 to"), "%s", err);
	cr_expect_eq(parse(&o, err, 4, "lab3", "--slurm-task", "/x"), -1);
	cr_expect_eq(parse(&o, err, 4, "lab3", "--slurm", "--calibrate"), -1);
}
