/*
 * Building a submission: compile the student's file with the backend's
 * compiler, then link it with the lab's harness. Compilers run in a child
 * with a time limit (a template bomb is still a build failure, not a hang).
 */
#ifndef GRADER_BUILD_H
#define GRADER_BUILD_H

#include <stddef.h>

#include "steps/device.h"
#include "steps/grade.h"

struct build_result {
	char student_obj[1024];	/* the student's object file, for the integrity check */
	char harness[1024];	/* the linked harness */
	enum backend backend;	/* what the harness runs on */
	/* When the build returned 1: FAILURE_BUILD, or the limit the compiler
	 * hit (FAILURE_BUILD_TIME_OUT, FAILURE_BUILD_OUT_OF_MEMORY). */
	enum failure_kind failure;
};

struct isolation_policy;

/*
 * Builds submission for backend into work_dir; the compilers and the linker
 * run under tools (isolation_for_tools; NULL: as the grader's user). Returns 0 on success; 1 when
 * the student's file did not compile or link (log holds the compiler's
 * words); -1 when the kit itself is broken (log says what is missing).
 */
int build_submission(const struct lab *lab, enum backend backend, const char *submission,
		     const char *work_dir, const struct device_info *dev,
		     const struct isolation_policy *tools, double timeout_s,
		     struct build_result *out, char *log, size_t loglen);

/* What a main() in the student's file is called in its object (build.c):
 * the harness has the program's main. */
#define STUDENT_MAIN_RENAMED "cuda_lab_kit_student_main"

/* The linked harness is WORK/harness-BACKEND (its backend is in struct
 * build_result, and travels in struct run_context). */
#define HARNESS_NAME "harness-"

/* The lab's reference solution, solutions/LAB/FILE, in buf; NULL when the
 * kit has none. */
const char *reference_solution(const struct lab *lab, char *buf, size_t len);

/* The one way the reference solution is built, for a single grade and for
 * a batch: reference_solution() for the GPU backend into work_dir (which
 * exists). Returns as build_submission; -1 also when there is no solution. */
int build_reference(const struct lab *lab, const char *work_dir, const struct device_info *dev,
		    const struct isolation_policy *tools, double timeout_s, struct build_result *out,
		    char *log, size_t loglen);

/* nvcc's preprocessing of submission, with the compile's flags, into out:
 * the device pass (host_pass 0) or the host pass as cudafe++ leaves it (1).
 * Returns as build_compile_only. */
int build_preprocess_cuda(const char *submission, int host_pass, const char *out,
			  const struct device_info *dev, const struct isolation_policy *tools,
			  double timeout_s, char *log, size_t loglen);

/* Only compiles (no harness), for `make labN`. Same return values. */
int build_compile_only(enum backend backend, const char *submission, const char *work_dir,
		       const struct device_info *dev, const struct isolation_policy *tools,
		       double timeout_s, char *log, size_t loglen);

/* The student's file built whole, with its own main(), into the program
 * exe (./grade LAB --run): nvcc on a GPU, the emulator's cuemu-cc else.
 * Returns 0, 1 when the file did not build (log: the compiler's words),
 * -1 when the tools could not run. */
int build_program(enum backend backend, const char *submission, const char *exe,
		  const struct device_info *dev, const struct isolation_policy *tools, double timeout_s,
		  char *log, size_t loglen);

#endif
