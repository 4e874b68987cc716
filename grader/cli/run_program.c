/*
 * --run: a student who keeps a main() for their own tests runs it here as
 * the grader would build it, on the same backend, in the same sandbox, and
 * sees its output. Nothing is graded.
 */
#include "cli/run_program.h"

#include <stdio.h>
#include <string.h>

#include "steps/build.h"
#include "sys/sandbox.h"
#include "sys/text_replace.h"

#define RUN_OUTPUT_CAP (256 * 1024)

int run_program(const struct options *o, const struct lab *lab, const struct rubric *r,
		const struct device_info *dev, const char *submission, const char *copy, const char *work,
		const struct isolation_policy *isolation)
{
	enum backend backend;
	char why[512], log[8192], exe[1100], err[512];
	struct child_result res;
	(void)lab;
	if (backend_resolve(o->backend, dev, &backend, why, sizeof(why)) < 0) {
		fprintf(stderr, "grade: %s\n", why);
		return 4;
	}
	snprintf(exe, sizeof(exe), "%s/program", work);
	int rc = build_program(backend, copy, exe, dev, isolation, r->build_timeout_s, log, sizeof(log));
	text_replace_all(log, sizeof(log), copy, submission);
	fputs(log, stderr);
	if (rc != 0) {
		if (rc > 0 && strstr(log, "undefined reference to `main'"))
			fprintf(stderr, "%s has no main(): --run runs the program your file makes, so write "
				"one to test your code with (./grade never calls it)\n", submission);
		else
			fprintf(stderr, rc > 0 ? "%s did not build.\n" : "grade: the tools could not run: %s\n",
				submission);
		return rc > 0 ? 3 : 4;
	}
	fprintf(stderr, "Running %s's main() on the %s backend (at most %.0f s)...\n", submission,
		backend == BACKEND_CUDA ? "GPU" : "emulator", r->test_timeout_s);
	char *argv[] = { exe, NULL };
	struct sandbox_limits lim = { .wall_s = r->test_timeout_s, .cpu_s = r->cpu_time_s,
				      .output_cap = RUN_OUTPUT_CAP, .writable_dir = work,
				      .isolation = isolation };
	if (sandbox_run(argv, &lim, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, "grade: could not run the program: %s\n", err);
		return 4;
	}
	fwrite(res.output, 1, res.output_len, stdout);
	fflush(stdout);
	int status = res.exited ? res.exit_status : 4;
	if (res.timed_out)
		fprintf(stderr, "the program ran past %.0f s and was stopped\n", r->test_timeout_s);
	else if (!res.exited)
		fprintf(stderr, "the program was killed by signal %d\n", res.signal);
	else
		fprintf(stderr, "the program exited with status %d\n", res.exit_status);
	child_result_free(&res);
	return status;
}
