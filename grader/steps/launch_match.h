/*
 * One program on both machines. On a GPU the emulator's build of the file is
 * analysed and nvcc's build is timed; a file can make them two programs
 * (a macro or a property only one of them has). So the launches the
 * emulator analysed are compared with those the GPU made at the same shape
 * (the harness's launch log, launch_log.h): kernel names, grid, block,
 * dynamic shared memory and how many times each. Where they differ the
 * analysis is not believed, and the first difference says why.
 */
#ifndef GRADER_LAUNCH_MATCH_H
#define GRADER_LAUNCH_MATCH_H

#include <jansson.h>
#include <stddef.h>

#include "steps/grade.h"
#include "steps/harness_door.h"
#include "steps/run_context.h"

#define LAUNCH_MATCH_MAX 64

/* One launch configuration, and how many launches had it. */
struct launch_entry {
	char name[96];		/* the kernel's own name: no namespace, template arguments or parameters */
	unsigned grid[3], block[3];
	size_t dynamic_shared;
	long count;
};

struct launch_list {
	struct launch_entry e[LAUNCH_MATCH_MAX];
	int n;
	int overflow;		/* more configurations than fit: no comparison can be believed */
};

/* The kernel's own name from a demangled C++ name ("void ns::k<true>(unsigned
 * int*)"), a launch site's ("ns::k<T, 4>", "::k") or a plain one ("k"). */
void launch_base_name(const char *in, char *out, size_t len);

/* Adds one launch (count of them) to l, merged with an equal configuration. */
void launch_list_add(struct launch_list *l, const char *name, const unsigned grid[3],
		     const unsigned block[3], size_t dynamic_shared, long count);

/* The emulator's metrics (docs/emu-metrics.md: "launches", one per launch)
 * and the GPU's launch log (launch_log.h: "launches", one per configuration
 * with its "count"). Return 0, or -1 when the JSON is not of that form. */
int launch_list_from_metrics(const json_t *metrics, struct launch_list *l);
int launch_list_from_log(const json_t *launches, int overflow, struct launch_list *l);

/* 0 when the two lists hold the same launches (in any order), as many
 * times each; else 1, with the first difference in why, in the student's
 * terms (each list named as given: "the emulator", "a later call"). */
int launch_lists_other(const struct launch_list *a, const char *a_name, const struct launch_list *b,
		       const char *b_name, char *why, size_t len);

/* launch_lists_other of the emulator's list and the GPU's. */
int launch_lists_differ(const struct launch_list *emu, const struct launch_list *gpu, char *why,
			size_t len);

/* Whether every launch configuration of emu is among gpu's, at least as
 * many times: the emulator's run, ended early by a fault, was of the
 * program the GPU ran whole. 0 when emu has none, or either overflowed. */
int launch_list_within(const struct launch_list *emu, const struct launch_list *gpu);

/* What a GPU run at the analysis shape showed: whether its output was
 * right (if not, how it failed, and the judge's words), and the launches
 * it logged. */
struct gpu_launches {
	int have;			/* a run was read */
	int right;
	struct failure failure;
	char why[TEST_MESSAGE_LEN / 2];	/* the judge's words, when not right */
	int logged;			/* it sent a launch log */
	int unreadable;			/* ... that could not be read */
	struct launch_list list;
};

/* Reads rep, the GPU's run at the analysis shape with the analysis seed
 * (gpu: the nvcc build's context, whose rubric and seed choose both).
 * first: the run was the first of its process (else a large output came
 * back as its digest). */
void gpu_launches_read(const struct run_context *gpu, const struct harness_report *rep, int first,
		       struct gpu_launches *out);

/* On a GPU, once the emulator's analysis is in g (g->analysis): the GPU
 * build's launches at the analysis shape, its output checked too. in_sizes
 * is the run the correctness process made there after its sizes
 * (correctness.h), or NULL: where it launched what the emulator launched,
 * with the output right, that settles it; else a process of its own runs
 * the shape first, as the emulator's analysis did. Where the launches
 * differ every analysis test fails, "not believed", with the first
 * difference, and the gates on them stay closed; the verdict is in
 * g->launch_match. It runs where an analysis test passed or g->race or
 * g->bounds holds a finding (findings.h), and says in
 * g->launch_match.same_launches whether the launches alone were the same:
 * a racy kernel's output there is wrong by chance, its analysis still of
 * the program the GPU ran. */
void launch_match_apply(const struct run_context *gpu, const struct gpu_launches *in_sizes, struct grade *g);

/*
 * The analysis run is the first call of its process, on both backends; the
 * correctness runs are later calls of theirs. A file that runs other
 * kernels at its first call shows the analysis a decoy, and one that runs
 * more there (a good kernel many times beside the graded one) dilutes its
 * figures. So a later call at the analysis shape must launch what the
 * analysed call launched, as many times each. Where it launched otherwise,
 * the analysis runs again on the second call of its process
 * (harness_analysis's after_a_call; a first call may differ, such as a
 * warm-up), and that second call is the one compared and graded.
 *
 * later is a later call's launches: in the emulator, the trace of the
 * correctness run at the analysis shape where it was not first in its
 * process (traced_sizes.h); on a GPU, the run after the correctness sizes.
 * launch_match_later_differs says whether they differ from g->analysis's,
 * so that the caller runs the analysis again.
 */
int launch_match_later_differs(const struct launch_list *later, const struct grade *g);

/*
 * In the emulator, once the analysis is final: a later call that launched
 * otherwise than the analysed call was not analysed, and every analysis
 * test fails, "not believed", naming the first difference (the gates on
 * them stay closed). On a GPU, launch_match_apply checks the run after the
 * correctness sizes the same way, where a run first in its own process
 * settled the comparison.
 */
void launch_match_later_call(const struct run_context *ctx, const struct launch_list *later, struct grade *g);

#endif
