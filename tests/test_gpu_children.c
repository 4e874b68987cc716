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

#include "batch/batch.h"
#include "steps/harness_door.h"
#include "steps/rubric.h"
#include "sys/clock.h"
#include "sys/kit_paths.h"
#include "test_support.h"

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
	struct bench_order one = { &s, 1, 0 };
	cr_assert_eq(harness_bench(&ctx, harness, &one, &rep, err, sizeof(err)), 0, "%s", err);
	harness_report_free(&rep);
	cr_assert_eq(harness_analysis(&ctx, harness, &s, 0, &rep, err, sizeof(err)), 0, "%s", err);
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

/* The kit's real harness, built for the emulator, runs the solution's
 * correctness at one size under ctx's backend, lent a batch's lock in a
 * folder of its own; its done frame in rep, the worker's account in a. */
static void lent_correctness(enum backend backend, struct harness_report *rep, struct gpu_account *a)
{
	struct rubric r;
	char work[] = "/tmp/test-gpu-children-XXXXXX", err[256];
	struct build_result b;
	emu_lab3_build("solutions/lab3-transpose/transpose.cu", &r, work, &b);
	struct gpu_slot slot;
	memset(&slot, 0, sizeof(slot));
	snprintf(slot.lock_path, sizeof(slot.lock_path), "%s/gpu.lock", work);
	snprintf(slot.turn_path, sizeof(slot.turn_path), "%s/gpu.turn", work);
	slot.lock_fd = slot.turn_fd = -1;
	struct run_context ctx = { .lab = &lab3_transpose, .rubric = &r, .harness = b.harness,
				   .backend = backend, .work_dir = work, .seed = 1,
				   .share = { .phase = batch_gpu_phase, .lend = batch_gpu_lend, .arg = &slot } };
	struct shape s = { 2, { 32, 32 } };
	cr_assert_eq(harness_correct(&ctx, &s, 1, 0, NULL, rep, err, sizeof(err)), 0, "%s", err);
	cr_assert_not_null(rep->done, "%s", rep->child.output);
	batch_gpu_account(a);
	emu_lab3_done(&r, work);
}

/* A child lent the lock times its CUDA context's making (here the
 * emulator's cudaFree(0), standing in for the driver's) on the host's
 * monotonic clock, the grader's own, and says when it made its last
 * report: the worker notes when and how long each, the end lasting to the
 * child's reaping. */
Test(gpu_children, a_lent_childs_context_reaches_the_account, .timeout = 120)
{
	struct harness_report rep;
	struct gpu_account a;
	double before = now_s();
	lent_correctness(BACKEND_CUDA, &rep, &a);
	double after = now_s();
	cr_expect(json_is_number(json_object_get(rep.done, "context_ms")));
	cr_assert_eq(a.contexts, 1);
	const struct child_context *c = batch_gpu_contexts();
	const struct context_span *made = &c[0].making, *end = &c[0].end;
	cr_expect(made->at_s >= before && made->at_s + made->s <= after, "[%.3f, +%.3f] not in [%.3f, %.3f]",
		  made->at_s, made->s, before, after);
	cr_expect(made->s >= 0 && made->s < 60, "%.3f s", made->s);
	cr_expect(end->s >= 0 && end->at_s >= made->at_s + made->s && end->at_s + end->s <= after,
		  "its end [%.3f, +%.3f], its context [%.3f, +%.3f], the call to %.3f", end->at_s, end->s,
		  made->at_s, made->s, after);
	harness_report_free(&rep);
}

/* The emulator's children are lent no lock: the harness makes no
 * context for a batch and says none. */
Test(gpu_children, an_emulator_child_says_no_context, .timeout = 120)
{
	struct harness_report rep;
	struct gpu_account a;
	lent_correctness(BACKEND_EMU, &rep, &a);
	cr_expect(json_object_get(rep.done, "shared_wait_ms"), "the hold's fields are there");
	cr_expect_null(json_object_get(rep.done, "context_ms"));
	cr_expect_null(json_object_get(rep.done, "context_at_ms"));
	cr_expect_eq(a.contexts, 0);
	harness_report_free(&rep);
}
