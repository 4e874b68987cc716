/* The reference solution's time per correctness size (see reference_times.h).
 * The cache, one file per lab, backend and GPU model:
 *
 *   kit-reference-times 1
 *   K KEY                     what the times hold for (below)
 *   T SECONDS SECONDS ...     one per size, in the rubric's order
 */
#include "steps/reference_times.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rng.h"
#include "steps/build.h"
#include "steps/harness_door.h"
#include "sys/atomic_file.h"
#include "sys/channel_watch.h"
#include "sys/file_stamp.h"
#include "sys/isolation.h"
#include "sys/kit_paths.h"

#define CACHE_HEADER "kit-reference-times 1\n"
/* A stage is seen at the sandbox's polls (50 ms apart): no size is said
 * to take less than that. */
#define LEAST_MEASURED_S 0.05

const struct shape *reference_times_shapes(const struct rubric *r, enum backend backend, int *n)
{
	*n = backend == BACKEND_EMU ? r->n_emu_shapes : r->n_shapes;
	return backend == BACKEND_EMU ? r->emu_shapes : r->shapes;
}

struct time_rule reference_times_rule(const struct rubric *r)
{
	double floor_s = r->test_time_floor_s < r->test_timeout_s ? r->test_time_floor_s : r->test_timeout_s;
	return (struct time_rule){ r->test_time_factor, floor_s, r->test_timeout_s };
}

struct time_limit reference_times_limit(const struct rubric *r, const struct reference_times *t, int i)
{
	struct time_rule rule = reference_times_rule(r);
	return time_limit_derive(&rule, t->known && i < t->n ? t->size_s[i] : 0);
}

/* What the times hold for: the lab, the backend, the GPU model, the sizes,
 * and the grader, the harness and the solution as built now. */
static void cache_key(const struct lab *lab, enum backend backend, const struct device_info *dev,
		      const struct shape *shapes, int n, const char *solution, char *key, size_t len)
{
	char path[1024], text[64];
	const char *b = backend == BACKEND_EMU ? "emu" : "cuda";
	snprintf(key, len, "%s %s [%s]", lab->id, b, backend == BACKEND_EMU ? "emulator" : dev->name);
	for (int i = 0; i < n; i++) {
		size_t at = strlen(key);
		snprintf(key + at, len - at, " %s", shape_format(&shapes[i], text, sizeof(text)));
	}
	file_stamp_append(key, len, "/proc/self/exe");
	snprintf(text, sizeof(text), "build/harness/%s/harness_main.o", b);
	file_stamp_append(key, len, kit_path(path, sizeof(path), text));
	file_stamp_append(key, len, solution);
	for (char *p = key; *p; p++)
		if (*p == '\n')
			*p = ' ';
}

static void cache_path(const struct lab *lab, enum backend backend, const struct device_info *dev,
		       char *buf, size_t len)
{
	char rel[256];
	snprintf(rel, sizeof(rel), "build/reference-times/%s-%s-%s.txt", lab->id,
		 backend == BACKEND_EMU ? "emu" : "cuda", backend == BACKEND_EMU ? "emulator" : dev->name);
	for (char *p = rel + strlen("build/reference-times/"); *p; p++)
		if (!(*p == '-' || *p == '_' || *p == '.' || (*p >= '0' && *p <= '9') ||
		      (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			*p = '_';
	kit_path(buf, len, rel);
}

static int cache_read(const char *path, const char *key, int n, struct reference_times *t)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char line[8192];
	int ok = fgets(line, sizeof(line), f) && strcmp(line, CACHE_HEADER) == 0 &&
		 fgets(line, sizeof(line), f) && strncmp(line, "K ", 2) == 0 &&
		 strncmp(line + 2, key, strlen(key)) == 0 && strcmp(line + 2 + strlen(key), "\n") == 0 &&
		 fgets(line, sizeof(line), f) && line[0] == 'T';
	char *p = line + 1;
	for (int i = 0; ok && i < n; i++) {
		char *end;
		t->size_s[i] = strtod(p, &end);
		ok = end != p && t->size_s[i] > 0 && t->size_s[i] < 1e6;
		p = end;
	}
	fclose(f);
	ok = ok && strspn(p, " \n") == strlen(p);
	t->known = ok;
	t->n = ok ? n : 0;
	return ok ? 0 : -1;
}

static void cache_write(const char *path, const char *key, const struct reference_times *t)
{
	char dir[1024], err[256];
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	struct atomic_file af;
	if (make_dirs(dir) < 0 || atomic_open(&af, path, err, sizeof(err)) < 0)
		return;	/* a read-only kit measures each time */
	fprintf(af.f, "%sK %s\nT", CACHE_HEADER, key);
	for (int i = 0; i < t->n; i++)
		fprintf(af.f, " %.4f", t->size_s[i]);
	fputc('\n', af.f);
	atomic_commit(&af, err, sizeof(err));
}

/* The reference's correctness run, all sizes in one process: each size's
 * stage, from its MSG_BEGIN to the next (or the end). Passing is asked:
 * a reference that fails here says nothing about time. */
static int measure(const struct run_context *ctx, const char *harness, const struct shape *shapes,
		   int n, struct reference_times *t)
{
	struct run_context ref = *ctx;
	ref.harness = harness;
	/* The emulator's watchdog stops a student's kernel at the limit in
	 * the CPU time the kernel would take on one core, whatever the cores
	 * its blocks ran on (emu/runtime/blocks_worker.c): so the reference
	 * runs on one core, and its time is of the same kind. Measured on
	 * every core, a reference four times faster on an 8-core machine gave
	 * a limit a fourth as long there: lab 2's Hillis-Steele scan, 20 times
	 * slower than a fraction of its own, was stopped at 2^24 on a 16-core
	 * machine and not on a 2-core one. */
	ref.emulator_serial = ctx->backend == BACKEND_EMU;
	uint64_t seeds[RUBRIC_MAX_SHAPES];
	for (int i = 0; i < n; i++)
		seeds[i] = rng_test_seed(ctx->seed, ctx->salt, (unsigned)i);
	struct channel_watch *watch = calloc(1, sizeof(*watch));
	struct harness_report rep;
	char err[256];
	int ok = watch && harness_correct_many(&ref, shapes, seeds, n, NULL, watch, &rep, err, sizeof(err)) == 0;
	if (!ok) {
		free(watch);
		return -1;
	}
	ok = rep.child.exited && rep.child.exit_status == 0 && watch->stages == n;
	for (int i = 0; ok && i < n; i++) {
		double s = channel_watch_stage_s(watch, i + 1);
		t->size_s[i] = s > LEAST_MEASURED_S ? s : LEAST_MEASURED_S;
	}
	harness_report_free(&rep);
	free(watch);
	t->known = ok;
	t->n = ok ? n : 0;
	return ok ? 0 : -1;
}

/* The solution built for backend into ctx->work_dir/reference-times. */
static int build(const struct run_context *ctx, enum backend backend, const struct device_info *dev,
		 const char *solution, struct build_result *b, char *dir, size_t len)
{
	char log[8192];
	struct stat st;
	snprintf(dir, len, "%s/reference-times", ctx->work_dir);
	/* The compilers write there as the run's folder's owner (a sandbox uid
	 * when the grader is root). */
	if (make_dirs(dir) < 0 || stat(ctx->work_dir, &st) < 0 || chown(dir, st.st_uid, st.st_gid) < 0)
		return -1;
	return build_submission(ctx->lab, backend, solution, dir, dev, isolation_for_tools(ctx->isolation),
				ctx->rubric->build_timeout_s, b, log, sizeof(log)) == 0 ? 0 : -1;
}

void reference_times_get(const struct run_context *ctx, enum backend backend,
			 const struct device_info *dev, const char *ref_harness, int may_build,
			 struct reference_times *t)
{
	memset(t, 0, sizeof(*t));
	t->where = backend == BACKEND_EMU ? "in the emulator, on one core" : "on this GPU";
	int n;
	const struct shape *shapes = reference_times_shapes(ctx->rubric, backend, &n);
	char solution[1024], key[4096], path[1024];
	if (!reference_solution(ctx->lab, solution, sizeof(solution)))
		return;
	cache_key(ctx->lab, backend, dev, shapes, n, solution, key, sizeof(key));
	cache_path(ctx->lab, backend, dev, path, sizeof(path));
	if (cache_read(path, key, n, t) == 0)
		return;
	struct build_result b;
	char dir[1100] = "";
	if (!ref_harness && may_build && build(ctx, backend, dev, solution, &b, dir, sizeof(dir)) == 0)
		ref_harness = b.harness;
	struct run_context on = *ctx;
	on.backend = backend;	/* what the children run on, whoever built ctx */
	if (ref_harness && measure(&on, ref_harness, shapes, n, t) == 0)
		cache_write(path, key, t);
	if (dir[0])
		remove_tree(dir);	/* nothing of the solution's left for the children after */
}
