/* The grader's door to the harness (see harness_door.h). */
#include "steps/harness_door.h"

#include <stdio.h>
#include <string.h>

#include "channel.h"
#include "guard.h"
#include "harness_report.h"
#include "occupancy.h"
#include "steps/build.h"
#include "steps/grade.h"
#include "steps/harness_frames.h"

static int run(char *const argv[], const struct sandbox_limits *lim, struct harness_report *rep,
	       char *err, size_t errlen)
{
	memset(rep, 0, sizeof(*rep));
	if (sandbox_run(argv, lim, &rep->child, err, errlen) < 0)
		return -1;
	harness_read_frames(rep, rep->child.channel, rep->child.channel_len);
	harness_drop_unended(rep);
	return 0;
}

/* How a verb's child uses the GPU, for a batch's lock (run_context.h):
 * GPU_CHECKED_THEN_TIMED is a correctness run with a timing after its
 * sizes, shared where the child takes the lock itself, alone where the
 * grader holds it for the child. */
enum gpu_use { GPU_NONE, GPU_SHARED, GPU_ALONE, GPU_CHECKED_THEN_TIMED };

/* What a child says of its hold (harness_said_of_hold). */
struct said {
	json_t *timings, *last;
};

/* The sum of a field of the child's MSG_TIMING frames: what it says of
 * itself, for the batch's account only. */
static double reported_ms(const struct said *said, const char *field)
{
	double sum = 0;
	size_t i;
	json_t *t;
	json_array_foreach(said->timings, i, t) {
		double v = json_number_value(json_object_get(t, field));
		if (v > 0 && v < 1e9)
			sum += v;
	}
	return sum;
}

/* A running total the child reports in each frame: the last frame's. */
static double reported_total_ms(const struct said *said, const char *field)
{
	double v = json_number_value(json_object_get(said->last, field));
	return v > 0 && v < 1e9 ? v : 0;
}

/* When the child says it began making its CUDA context and how long that
 * took, and when it made its last report, which began its end (ended_at_s:
 * when it was reaped), into hold; context_s and end_s stay -1 where it
 * said none or nothing believable. The moments are on the host's
 * monotonic clock (its uptime, which passes 1e9 ms after 11.6 days):
 * bounded far above that. */
static void context_said(const struct said *said, double ended_at_s, struct gpu_hold *hold)
{
	json_t *at = json_object_get(said->last, "context_at_ms"), *ms = json_object_get(said->last, "context_ms");
	json_t *last = json_object_get(said->last, "at_ms");
	double at_ms = json_number_value(at), took_ms = json_number_value(ms), last_ms = json_number_value(last);
	hold->context_at_s = hold->end_at_s = 0;
	hold->context_s = hold->end_s = -1;
	if (json_is_number(at) && json_is_number(ms) && at_ms >= 0 && at_ms < 1e15 && took_ms >= 0 &&
	    took_ms < 1e9) {
		hold->context_at_s = at_ms / 1e3;
		hold->context_s = took_ms / 1e3;
	}
	if (json_is_number(last) && last_ms >= 0 && last_ms < 1e15 && ended_at_s - last_ms / 1e3 >= 0 &&
	    ended_at_s - last_ms / 1e3 < 1e3) {
		hold->end_at_s = last_ms / 1e3;
		hold->end_s = ended_at_s - hold->end_at_s;
	}
}

/* What a child lent the lock says it waited for and held. */
static struct gpu_hold child_said(const struct harness_report *rep, int ran, int timed)
{
	struct gpu_hold hold = { .timed = timed, .context_s = -1, .end_s = -1 };
	struct said said;
	if (!ran)
		return hold;
	harness_said_of_hold(&rep->child, &said.timings, &said.last);
	hold.pinned = json_is_true(json_object_get(said.last, "pinned"));
	hold.wait_shared_s = reported_total_ms(&said, "shared_wait_ms") / 1e3;
	hold.held_shared_s = reported_total_ms(&said, "shared_ms") / 1e3;
	hold.wait_alone_s = reported_ms(&said, "alone_wait_ms") / 1e3;
	hold.held_alone_s = reported_ms(&said, "alone_ms") / 1e3;
	hold.drain_s = reported_ms(&said, "alone_drain_ms") / 1e3;
	context_said(&said, rep->child.ended_at_s, &hold);
	json_decref(said.timings);
	json_decref(said.last);
	return hold;
}

/* A verb that runs student code: the rubric's limits, the run's folder. */
static int run_student(const struct run_context *ctx, enum backend backend, char *const argv[],
		       double wall_s, size_t channel_bytes, enum gpu_use gpu, struct channel_watch *watch,
		       struct harness_report *rep, char *err, size_t errlen)
{
	const struct rubric *r = ctx->rubric;
	struct sandbox_limits lim = {
		.wall_s = wall_s,
		.cpu_s = r->cpu_time_s,
		.output_cap = r->output_limit_bytes,
		.file_cap = channel_bytes + (1 << 20),
		/* RLIMIT_AS cannot hold a CUDA program (its driver maps far more
		 * than it uses); a memory cgroup, where there is one, holds both. */
		.memory_cap = backend == BACKEND_EMU ? (size_t)(r->memory_mb * 1048576.0) : 0,
		.resident_cap = (size_t)(r->memory_mb * 1048576.0),
		.disk_cap = (size_t)(r->disk_mb * 1048576.0),
		.with_channel = 1,
		/* A correctness child's report is its outputs, whose size is known now. */
		.channel_reserve = gpu == GPU_SHARED || gpu == GPU_CHECKED_THEN_TIMED ? channel_bytes : 0,
		.cwd = ctx->work_dir,
		.writable_dir = ctx->work_dir,
		.isolation = ctx->isolation,
		.gpu = ctx->gpu,
		.emulator_serial = ctx->emulator_serial,
		.watch = watch,
	};
	/* The emulator's children (the analysis on a GPU machine) use no GPU. */
	int gpu_child = gpu != GPU_NONE && backend != BACKEND_EMU;
	/* The child takes the GPU itself (common/gpu_lock.h). The sandbox
	 * takes the waits it sees off the child's clock, but it looks only
	 * every SANDBOX_GPU_CHECK_S: many short waits in a class's queue can
	 * pass unseen, and they are not the student's code. So the run's
	 * limit keeps room for them; each size's own, in watch, judges hangs. */
	int lent = gpu_child && ctx->share.lend && ctx->share.lend(ctx->share.arg, 1, lim.gpu_lock_fds, NULL) == 0;
	int lock = !lent && gpu_child && ctx->share.phase;
	if (lent) {
		lim.with_gpu_lock = 1;
		lim.wall_s += wall_s;
	}
	if (lock)
		ctx->share.phase(ctx->share.arg, gpu != GPU_SHARED, 1);
	int rc = run(argv, &lim, rep, err, errlen);
	if (lock)
		ctx->share.phase(ctx->share.arg, gpu != GPU_SHARED, 0);
	if (lent) {
		struct gpu_hold said = child_said(rep, rc == 0, gpu != GPU_SHARED);
		ctx->share.lend(ctx->share.arg, 0, lim.gpu_lock_fds, &said);
	}
	return rc;
}

int harness_device(const char *program, const char *gpu, struct harness_report *rep, char *err,
		   size_t errlen)
{
	/* Kit code only, but a broken driver can crash or hang it. */
	char *argv[] = { (char *)program, "device", NULL };
	struct sandbox_limits lim = { .wall_s = 60, .output_cap = 4096, .with_channel = 1, .gpu = gpu };
	return run(argv, &lim, rep, err, errlen);
}

int harness_correct(const struct run_context *ctx, const struct shape *s, uint64_t seed,
		    double kernel_timeout_s, struct channel_watch *watch, struct harness_report *rep,
		    char *err, size_t errlen)
{
	char shape[64], seed_text[32], limit[32];
	shape_format(s, shape, sizeof(shape));
	snprintf(seed_text, sizeof(seed_text), "%llu", (unsigned long long)seed);
	snprintf(limit, sizeof(limit), "%.3f", kernel_timeout_s);
	char *argv[] = { (char *)ctx->harness, "correct", (char *)ctx->lab->id, shape, seed_text, NULL, NULL,
			 NULL };
	if (kernel_timeout_s > 0 && ctx->backend == BACKEND_EMU) {
		char *limited[] = { (char *)ctx->harness, "correct", (char *)ctx->lab->id, "kernel_timeout",
				    limit, shape, seed_text, NULL };
		memcpy(argv, limited, sizeof(limited));
	}
	/* The output between its guards, and a few small JSON frames. */
	size_t words = GUARD_WORDS * 2 + ctx->lab->out_count(s);
	return run_student(ctx, ctx->backend, argv, ctx->rubric->test_timeout_s, words * 4 + 65536,
			   GPU_SHARED, watch, rep, err, errlen);
}

/* A timing's arguments, RUNS SEED SHAPE... [sweep RUNS SHAPE], into
 * argv from a on (the texts in t); returns the next free place. */
struct bench_text {
	char runs[16], seed[32], shapes[GRADE_MAX_BENCH][64], sweep_runs[16], sweep_shape[64];
};

/* The most arguments bench_args writes: runs, seed, the shapes, and
 * "sweep", its runs and its shape. */
#define BENCH_ARGS (2 + GRADE_MAX_BENCH + 3)

static int bench_args(const struct run_context *ctx, const struct bench_order *o, struct bench_text *t,
		      char **argv, int a)
{
	const struct rubric *r = ctx->rubric;
	snprintf(t->runs, sizeof(t->runs), "%d", r->runs);
	snprintf(t->seed, sizeof(t->seed), "%llu", (unsigned long long)ctx->seed);
	argv[a++] = t->runs;
	argv[a++] = t->seed;
	for (int i = 0; i < o->n && i < GRADE_MAX_BENCH; i++)
		argv[a++] = (char *)shape_format(&o->shapes[i], t->shapes[i], sizeof(t->shapes[i]));
	if (o->sweep) {
		snprintf(t->sweep_runs, sizeof(t->sweep_runs), "%d", r->sweep_runs);
		argv[a++] = "sweep";
		argv[a++] = t->sweep_runs;
		argv[a++] = (char *)shape_format(&r->perf_shape, t->sweep_shape, sizeof(t->sweep_shape));
	}
	return a;
}

int harness_correct_many(const struct run_context *ctx, const struct shape *shapes,
			 const uint64_t *seeds, int n, const struct bench_order *bench,
			 struct channel_watch *watch, struct harness_report *rep, char *err, size_t errlen)
{
	char texts[HARNESS_MAX_PARTS][2][64];
	struct bench_text t;
	char *argv[3 + 2 * HARNESS_MAX_PARTS + 1 + BENCH_ARGS + 1];	/* ... "bench" ... NULL */
	size_t bytes = 0;
	int a = 0;
	if (n > HARNESS_MAX_PARTS)
		n = HARNESS_MAX_PARTS;
	argv[a++] = (char *)ctx->harness;
	argv[a++] = "correct";
	argv[a++] = (char *)ctx->lab->id;
	for (int i = 0; i < n; i++) {
		argv[a++] = (char *)shape_format(&shapes[i], texts[i][0], sizeof(texts[i][0]));
		snprintf(texts[i][1], sizeof(texts[i][1]), "%llu", (unsigned long long)seeds[i]);
		argv[a++] = texts[i][1];
		/* Each output whole, or its digest (output_digest.h), and a few JSON frames. */
		size_t out = ctx->lab->out_count(&shapes[i]);
		int digest = output_sent_as_digest(out, i == 0, ctx->backend == BACKEND_EMU);
		bytes += (digest ? sizeof(struct output_digest) : (GUARD_WORDS * 2 + out) * 4) + 65536;
	}
	/* The rubric's limit for all of them, and a timing's besides; each
	 * size's own, and the timing's, in watch. */
	double wall_s = ctx->rubric->test_timeout_s;
	if (bench) {
		argv[a++] = "bench";
		a = bench_args(ctx, bench, &t, argv, a);
		bytes += 1 << 20;
		wall_s += ctx->rubric->bench_timeout_s;
	}
	argv[a] = NULL;
	return run_student(ctx, ctx->backend, argv, wall_s, bytes, bench ? GPU_CHECKED_THEN_TIMED : GPU_SHARED,
			   watch, rep, err, errlen);
}

int harness_correct_sizes(const struct run_context *ctx, const struct emu_size *sizes, int n,
			  struct channel_watch *watch, struct harness_report *rep, char *err, size_t errlen)
{
	char texts[HARNESS_MAX_PARTS][3][64];
	char *argv[3 + 4 * HARNESS_MAX_PARTS + 1];
	size_t bytes = 0;
	int a = 0;
	if (n > HARNESS_MAX_PARTS)
		n = HARNESS_MAX_PARTS;
	argv[a++] = (char *)ctx->harness;
	argv[a++] = "sizes";
	argv[a++] = (char *)ctx->lab->id;
	for (int i = 0; i < n; i++) {
		argv[a++] = (char *)shape_format(&sizes[i].shape, texts[i][0], sizeof(texts[i][0]));
		snprintf(texts[i][1], sizeof(texts[i][1]), "%llu", (unsigned long long)sizes[i].seed);
		snprintf(texts[i][2], sizeof(texts[i][2]), "%.3f", sizes[i].kernel_timeout_s);
		argv[a++] = texts[i][1];
		argv[a++] = texts[i][2];
		argv[a++] = sizes[i].traced ? "traced" : "untraced";
		/* The output between its guards, a few small JSON frames, and a
		 * traced size's trace (JSON, well under 64 MiB). */
		bytes += (GUARD_WORDS * 2 + ctx->lab->out_count(&sizes[i].shape)) * 4 + 65536 +
			 (sizes[i].traced ? (size_t)64 << 20 : 0);
	}
	argv[a] = NULL;
	/* Each size the rubric's limit it had in a process of its own; its
	 * own within it in watch. */
	return run_student(ctx, BACKEND_EMU, argv, ctx->rubric->test_timeout_s * n, bytes, GPU_NONE, watch, rep,
			   err, errlen);
}

int harness_bench(const struct run_context *ctx, const char *harness, const struct bench_order *o,
		  struct harness_report *rep, char *err, size_t errlen)
{
	struct bench_text t;
	char *argv[3 + BENCH_ARGS + 1];
	argv[0] = (char *)harness;
	argv[1] = "bench";
	argv[2] = (char *)ctx->lab->id;
	argv[bench_args(ctx, o, &t, argv, 3)] = NULL;
	/* One MSG_TIMING per shape and per point of the sweep: samples and a
	 * launch log, well under 1 MiB. */
	return run_student(ctx, ctx->backend, argv, ctx->rubric->bench_timeout_s, 1 << 20, GPU_ALONE, NULL,
			   rep, err, errlen);
}

int harness_analysis(const struct run_context *ctx, const char *harness, const struct shape *s,
		     int after_a_call, struct harness_report *rep, char *err, size_t errlen)
{
	const struct rubric *r = ctx->rubric;
	char shape[64], seed[32], sms[16];
	shape_format(s, shape, sizeof(shape));
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)ctx->seed);
	snprintf(sms, sizeof(sms), "%d", ctx->device_sms);
	char *argv[] = { (char *)harness, "analysis", (char *)ctx->lab->id, shape, seed, NULL, NULL, NULL };
	int a = 5;
	if (ctx->device_sms > 0)
		argv[a++] = sms;
	if (after_a_call)
		argv[a] = "after_a_call";
	/* The output between its guards, and the metrics (up to 64 MiB of JSON). */
	size_t words = 2 * GUARD_WORDS + ctx->lab->out_count(s);
	return run_student(ctx, BACKEND_EMU, argv, r->analysis_timeout_s, words * 4 + (64 << 20),
			   GPU_NONE, NULL, rep, err, errlen);
}

int harness_predict(const struct run_context *ctx, const char *harness, const struct shape *s,
		    uint64_t seed, struct harness_report *rep, char *err, size_t errlen)
{
	char text[64], seed_text[32];
	shape_format(s, text, sizeof(text));
	snprintf(seed_text, sizeof(seed_text), "%llu", (unsigned long long)seed);
	char *argv[] = { (char *)harness, "predict", (char *)ctx->lab->id, text, seed_text, NULL };
	/* The output between its guards, and the trace of the sampled blocks
	 * (JSON, well under 64 MiB). */
	size_t words = GUARD_WORDS * 2 + ctx->lab->out_count(s);
	return run_student(ctx, BACKEND_EMU, argv, ctx->rubric->test_timeout_s, words * 4 + (64 << 20),
			   GPU_NONE, NULL, rep, err, errlen);
}

int harness_occupancy(const struct run_context *ctx, const char *path, int n,
		      struct harness_report *rep, char *err, size_t errlen)
{
	char *argv[] = { (char *)ctx->harness, "occupancy", (char *)ctx->lab->id, (char *)path, NULL };
	/* One occ_result per question, and a few small JSON frames. */
	size_t want = (size_t)n * sizeof(struct occ_result);
	return run_student(ctx, ctx->backend, argv, ctx->rubric->occupancy_timeout_s, want + 65536,
			   GPU_NONE, NULL, rep, err, errlen);
}

void harness_part_free(struct harness_report *part)
{
	json_decref(part->device);
	json_decref(part->done);
	json_decref(part->error);
	json_decref(part->metrics);
	json_decref(part->stopped);
	json_decref(part->timings);
	memset(part, 0, sizeof(*part));
}

void harness_report_free(struct harness_report *rep)
{
	struct child_result child = rep->child;
	harness_part_free(rep);
	child_result_free(&child);
}

void early_bench_free(struct early_bench *e)
{
	if (e->have) {
		harness_part_free(&e->part);
		harness_report_free(&e->whole);
	}
	e->have = 0;
}
