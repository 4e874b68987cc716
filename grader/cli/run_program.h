/* ./grade LAB --run: the student's own program, main() and all. */
#ifndef GRADER_CLI_RUN_PROGRAM_H
#define GRADER_CLI_RUN_PROGRAM_H

#include "cli/options.h"
#include "labs/lab.h"
#include "steps/device.h"
#include "steps/rubric.h"
#include "sys/isolation.h"

/* Builds copy (the grader's copy of submission, in work) with its own
 * main() on the backend the grade would use, runs it in the sandbox with
 * the rubric's limits, and shows what it printed. Returns the program's
 * exit status (0-255), 3 when the file did not build, 4 when the tools
 * or the sandbox could not run. */
int run_program(const struct options *o, const struct lab *lab, const struct rubric *r,
		const struct device_info *dev, const char *submission, const char *copy, const char *work,
		const struct isolation_policy *isolation);

#endif
