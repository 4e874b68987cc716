/*
 * The batch's own files in OUT (see batch.h): gradebook.csv from every
 * finished student, skipped.txt, batch.json and batch-times.txt.
 */
#include "batch/batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/atomic_file.h"
#include "sys/bwrap.h"
#include "sys/isolation.h"
#include "sys/kit_paths.h"

void batch_write_skipped(const struct batch *b)
{
	char path[PATH_MAX + 16], err[512];
	snprintf(path, sizeof(path), "%s/skipped.txt", b->c.out_dir);
	if (b->roster.n_skipped == 0) {
		unlink(path);
		return;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	for (int i = 0; f && i < b->roster.n_skipped; i++)
		fprintf(f, "%s: %s\n", b->roster.skipped[i].name, b->roster.skipped[i].why);
	if (f)
		fclose(f);
	if (text && atomic_write(path, text, len, err, sizeof(err)) < 0)
		fprintf(stderr, "grade: %s\n", err);
	free(text);
	fprintf(stderr, "%d entr%s of %s skipped (not a student folder or .cu file): see %s\n",
		b->roster.n_skipped, b->roster.n_skipped == 1 ? "y" : "ies", b->c.in_dir, path);
}

/* What the grades were made with: the backend, the GPU, the kit's own
 * build (grader, harness, emulator), so that a fixed grader regrades, and
 * every option that changes a grade (the rubric's and the salt's bytes are
 * hashed beside it). */
void batch_target(const struct batch_config *c, char *buf, size_t len)
{
	char p[9][PATH_MAX], rel[256], kit[65];
	const char *paths[10] = { "/proc/self/exe" }, *harness = c->backend == BACKEND_CUDA ? "cuda" : "emu";
	int n = 1;
	snprintf(rel, sizeof(rel), "build/harness/%s/harness_main.o", harness);
	paths[n++] = kit_path(p[0], sizeof(p[0]), rel);
	snprintf(rel, sizeof(rel), "build/harness/%s/bench.o", harness);
	paths[n++] = kit_path(p[1], sizeof(p[1]), rel);
	snprintf(rel, sizeof(rel), "build/harness/labs/%s_entry.o", c->lab->id);
	paths[n++] = kit_path(p[2], sizeof(p[2]), rel);
	paths[n++] = kit_path(p[3], sizeof(p[3]), "build/libkit.a");
	paths[n++] = kit_path(p[4], sizeof(p[4]), "build/emu/libcuemu.a");
	paths[n++] = kit_path(p[5], sizeof(p[5]), "build/emu/cuemu-cc");
	paths[n++] = kit_path(p[6], sizeof(p[6]), "build/harness/harness/student_exit.o");
	if (c->backend == BACKEND_CUDA) {	/* the inputs it fills and the checks it hashes on the GPU */
		paths[n++] = kit_path(p[7], sizeof(p[7]), "build/harness/cuda/device_hash.o");
		paths[n++] = kit_path(p[8], sizeof(p[8]), "build/harness/cuda/device_fill.o");
	}
	batch_fingerprint(paths, n, kit);	/* a GPU batch runs the emulator too, for the analysis */
	char device[128], seed[32] = "fresh";
	batch_target_device(c, device, sizeof(device));
	if (c->o->seed_given)
		snprintf(seed, sizeof(seed), "%llu", (unsigned long long)c->o->seed);
	snprintf(buf, len, "%s %s kit %s analysis %s seed %s isolation %s", backend_name(c->backend),
		 device, kit, c->o->no_analysis ? "off" : "on", seed, c->isolate ? "on" : "off");
}

void batch_target_device(const struct batch_config *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s", c->backend == BACKEND_CUDA && c->n_gpus ? c->gpus[0].dev.name : "");
}

/* Rows of the students finished so far, in the roster's order. */
void batch_write_gradebook(const struct batch *b)
{
	char path[PATH_MAX + 16], err[512];
	if (b->shard)
		return;
	struct summary *done = malloc(sizeof(*done) * (size_t)(b->roster.n + 1));
	int n = 0;
	for (int i = 0; done && i < b->roster.n; i++)
		if (b->rows[i].student[0])
			done[n++] = b->rows[i];
	snprintf(path, sizeof(path), "%s/gradebook.csv", b->c.out_dir);
	if (!done || gradebook_write(path, done, n, err, sizeof(err)) < 0)
		fprintf(stderr, "grade: %s\n", done ? err : "out of memory for the gradebook");
	free(done);
}

/* How a worker isolates its children (batch_student.c), as the summary tells it. */
static const struct isolation_policy batch_isolation = { .force = 1 };

void batch_write_json(const struct batch *b, int jobs, double wall_s)
{
	char path[PATH_MAX + 16], err[512], target[256], note[512];
	batch_target(&b->c, target, sizeof(target));
	isolation_describe(b->c.isolate ? &batch_isolation : NULL, note, sizeof(note));
	json_t *j = json_pack("{s:s, s:s, s:s, s:b, s:i, s:i, s:i, s:i, s:i, s:i, s:f}", "lab",
			      b->c.lab->id, "target", target, "rubric", b->c.r->path, "isolated",
			      b->c.isolate && bwrap_available(), "jobs", jobs, "students",
			      b->roster.n, "graded", b->graded, "resumed", b->resumed, "skipped",
			      b->roster.n_skipped, "errors", b->errors, "wall_s", wall_s);
	char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;
	snprintf(path, sizeof(path), "%s/batch.json", b->c.out_dir);
	if (!text || atomic_write(path, text, strlen(text), err, sizeof(err)) < 0)
		fprintf(stderr, "grade: cannot write %s\n", path);
	free(text);
	json_decref(j);
}

/* batch-times.txt: each graded student's seconds, for the record. */
void batch_write_times(const struct batch *b, double wall_s)
{
	char path[PATH_MAX + 16], err[512], name[BATCH_NAME_LEN];
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	if (!f)
		return;
	fprintf(f, "# seconds per student (the worker's time: builds, runs, results), and its GPU\n");
	for (int i = 0; i < b->roster.n; i++)
		if (b->rows[i].backend[0]) {
			snprintf(name, sizeof(name), "%s", b->rows[i].student);
			batch_clean_text(name);
			fprintf(f, "%8.1f  %-24s %s%s\n", b->rows[i].wall_s, name,
				b->rows[i].gpu[0] ? "gpu " : "", b->rows[i].gpu);
		}
	fprintf(f, "%8.1f  (this run, wall clock)\n", wall_s);
	fclose(f);
	snprintf(path, sizeof(path), "%s/batch-times.txt", b->c.out_dir);
	if (atomic_write(path, text, len, err, sizeof(err)) < 0)
		fprintf(stderr, "grade: %s\n", err);
	free(text);
}
