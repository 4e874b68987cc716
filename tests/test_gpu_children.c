/*
 * A batch shares a GPU child by child (run_context.h): the harness door
 * takes the batch's lock around each child that runs on the GPU -- shared
 * for a correctness child, alone for a timed one -- and not around the
 * emulator's children, nor around the grader's own work between children.
 *
 * The harness here is a stand-in that exits at once (the door does not
 * care what it reports): what is checked is the order of lock calls seen
 * by a recording gpu_share.phase.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "steps/harness_door.h"
#include "steps/rubric.h"

extern const struct lab lab3_transpose;

static char calls[64];

/* Writes one letter per call: S/s shared begin/end, A/a alone begin/end. */
static void record(void *arg, int timed, int begin)
{
	(void)arg;
	size_t n = strlen(calls);
	if (n + 1 < sizeof(calls))
		calls[n] = timed ? (begin ? 'A' : 'a') : (begin ? 'S' : 's');
}

static void run_verbs(const char *harness, enum backend backend, int with_lock)
{
	struct rubric r;
	memset(&r, 0, sizeof(r));
	r.test_timeout_s = r.bench_timeout_s = r.analysis_timeout_s = 10;
	r.runs = 1;
	r.memory_mb = 512;
	r.disk_mb = 64;
	r.output_limit_bytes = 4096;
	r.perf_shape = (struct shape){ 2, { 32, 32 } };
	struct run_context ctx = { .lab = &lab3_transpose, .rubric = &r, .harness = harness,
				   .backend = backend, .work_dir = "/tmp", .seed = 1,
				   .share = { .phase = with_lock ? record : NULL } };
	struct shape s = { 2, { 32, 32 } };
	struct harness_report rep;
	char err[256];
	calls[0] = '\0';
	cr_assert_eq(harness_correct(&ctx, &s, 1, 0, NULL, &rep, err, sizeof(err)), 0, "%s", err);
	harness_report_free(&rep);
	cr_assert_eq(harness_bench(&ctx, harness, &s, 1, 0, &rep, err, sizeof(err)), 0, "%s", err);
	harness_report_free(&rep);
	cr_assert_eq(harness_analysis(&ctx, harness, &s, &rep, err, sizeof(err)), 0, "%s", err);
	harness_report_free(&rep);
}

/* A stand-in harness named NAME in a fresh folder (the door tells the
 * emulator's by the context's backend, not by its name); returns its path
 * in buf. */
static const char *stand_in(const char *name, char *buf, size_t len)
{
	char dir[] = "/tmp/test-gpu-children-XXXXXX";
	cr_assert_not_null(mkdtemp(dir));
	snprintf(buf, len, "%s/%s", dir, name);
	cr_assert_eq(symlink("/bin/true", buf), 0);
	return buf;
}

static void remove_stand_in(char *path)
{
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

Test(gpu_children, each_gpu_child_takes_the_lock_and_gives_it_back)
{
	char harness[128];
	run_verbs(stand_in("harness-cuda", harness, sizeof(harness)), BACKEND_CUDA, 1);
	/* correctness shared, timing alone, the analysis (a CUDA build's
	 * harness here) shares nothing: each begin closed before the next. */
	cr_expect_str_eq(calls, "SsAa");
	run_verbs(harness, BACKEND_CUDA, 0);
	cr_expect_str_eq(calls, "", "locks taken outside a batch");
	remove_stand_in(harness);
}

Test(gpu_children, the_emulators_children_take_no_lock)
{
	char harness[128];
	/* Named as a CUDA build: the name decides nothing. */
	run_verbs(stand_in("harness-cuda", harness, sizeof(harness)), BACKEND_EMU, 1);
	cr_expect_str_eq(calls, "");
	remove_stand_in(harness);
}
