/* One student's row of the gradebook, on disk; and the resume key (see batch.h). */
#include "batch/batch.h"

#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/atomic_file.h"
#include "sys/sha256.h"

/* A field of the hash: its length first, so that no two different lists
 * of fields hash alike ("ab" + "c" is not "a" + "bc"). */
static void hash_field(struct sha256 *c, const void *data, size_t len)
{
	uint8_t n[8];
	for (int i = 0; i < 8; i++)
		n[i] = (uint8_t)((uint64_t)len >> (8 * i));
	sha256_update(c, n, 8);
	sha256_update(c, data, len);
}

static int hash_file(struct sha256 *c, const char *path)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	char *buf = malloc(BATCH_MAX_SOURCE + 1);
	size_t len = 0;
	ssize_t n = 0;
	while (buf && len <= BATCH_MAX_SOURCE &&
	       (n = read(fd, buf + len, BATCH_MAX_SOURCE + 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (!buf || n < 0) {
		free(buf);
		return -1;
	}
	hash_field(c, buf, len);
	free(buf);
	return 0;
}

int batch_hash(const char *lab_id, const char *rubric_path, const char *salt, const char *target,
	       const char *source, char out[65])
{
	struct sha256 c;
	uint8_t d[SHA256_BYTES];
	sha256_init(&c);
	hash_field(&c, "cuda-lab-kit batch v1", 21);
	hash_field(&c, lab_id, strlen(lab_id));
	if (hash_file(&c, rubric_path) < 0)
		return -1;
	hash_field(&c, salt ? salt : "", salt ? strlen(salt) : 0);
	hash_field(&c, target, strlen(target));
	if (hash_file(&c, source) < 0)
		return -1;
	sha256_final(&c, d);
	sha256_hex(d, out);
	return 0;
}

void batch_fingerprint(const char *const *paths, int n, char out[65])
{
	struct sha256 c;
	uint8_t d[SHA256_BYTES];
	sha256_init(&c);
	for (int i = 0; i < n; i++) {
		int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		hash_field(&c, paths[i], strlen(paths[i]));
		char buf[65536];
		ssize_t r;
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			sha256_update(&c, buf, (size_t)r);
		close(fd);
	}
	sha256_final(&c, d);
	sha256_hex(d, out);
}

static int group_index(enum test_group g)
{
	for (int i = 0; i < GROUP_COUNT; i++)
		if (group_order[i] == g)
			return i;
	return -1;
}

void summary_from_grade(const struct grade *g, const char *student, const char *hash,
			double wall_s, struct summary *s)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->student, sizeof(s->student), "%s", student);
	snprintf(s->hash, sizeof(s->hash), "%s", hash);
	s->complete = !g->internal_error;
	s->score = grade_score(g);
	s->max_score = grade_max_score(g);
	for (int i = 0; i < g->n_tests; i++) {
		int k = group_index(g->tests[i].group);
		if (k >= 0) {
			s->has_group[k] = 1;
			s->group_points[k] += g->tests[i].points;
		}
	}
	for (int k = 0; k < GROUP_COUNT; k++)
		s->group_points[k] = points_round(s->group_points[k]);
	s->percent_of_copy = g->perf.measured ? g->perf.percent_of_copy : -1;
	batch_verdict(g, s->verdict, sizeof(s->verdict));
	s->exit_status = grade_exit_status(g);
	s->seed = g->seed;
	snprintf(s->backend, sizeof(s->backend), "%s", backend_name(g->backend));
	snprintf(s->device, sizeof(s->device), "%s", g->device);
	snprintf(s->isolation, sizeof(s->isolation), "%s", g->isolation_note);
	snprintf(s->gpu, sizeof(s->gpu), "%s", g->backend == BACKEND_CUDA ? g->gpu : "");
	s->wall_s = wall_s;
}

void summary_problem(const char *student, const char *hash, const char *verdict, double max_score,
		     struct summary *s)
{
	memset(s, 0, sizeof(*s));
	s->max_score = max_score;
	snprintf(s->student, sizeof(s->student), "%s", student);
	snprintf(s->hash, sizeof(s->hash), "%s", hash ? hash : "");
	snprintf(s->verdict, sizeof(s->verdict), "%s", verdict);
	s->percent_of_copy = -1;
	s->exit_status = 4;
}

static json_t *groups_json(const struct summary *s)
{
	json_t *o = json_object();
	for (int i = 0; i < GROUP_COUNT; i++)
		if (s->has_group[i])
			json_object_set_new(o, group_name(group_order[i]), json_real(s->group_points[i]));
	return o;
}

int summary_write(const char *path, const struct summary *s, char *err, size_t errlen)
{
	char seed[24];
	struct summary c = *s;	/* jansson takes only UTF-8; names and verdicts may not be */
	batch_clean_text(c.student);
	batch_clean_text(c.verdict);
	batch_clean_text(c.device);
	batch_clean_text(c.isolation);
	s = &c;
	snprintf(seed, sizeof(seed), "%" PRIu64, s->seed);
	json_t *j = json_pack("{s:s, s:s, s:b, s:f, s:f, s:o, s:o, s:s, s:i, s:s, s:s, s:s, s:s, s:s, s:f}",
			      "student", s->student, "hash", s->hash, "complete", s->complete,
			      "score", s->score, "max_score", s->max_score, "groups", groups_json(s),
			      "percent_of_copy", s->percent_of_copy >= 0 ? json_real(s->percent_of_copy)
									 : json_null(),
			      "verdict", s->verdict, "exit_status", s->exit_status, "seed", seed,
			      "backend", s->backend, "device", s->device, "isolation", s->isolation,
			      "gpu", s->gpu, "wall_s", s->wall_s);
	if (!j) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	char *text = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(j);
	if (!text) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	size_t len = strlen(text);
	text[len] = '\n';	/* json_dumps leaves room: the NUL becomes the newline */
	int rc = atomic_write(path, text, len + 1, err, errlen);
	free(text);
	return rc;
}

static void copy_string(json_t *o, const char *key, char *dst, size_t len)
{
	const char *v = json_string_value(json_object_get(o, key));
	snprintf(dst, len, "%s", v ? v : "");
}

int summary_read(const char *path, struct summary *s)
{
	memset(s, 0, sizeof(*s));
	json_t *j = json_load_file(path, 0, NULL);
	if (!json_is_object(j)) {
		json_decref(j);
		return -1;
	}
	copy_string(j, "student", s->student, sizeof(s->student));
	copy_string(j, "hash", s->hash, sizeof(s->hash));
	copy_string(j, "verdict", s->verdict, sizeof(s->verdict));
	copy_string(j, "backend", s->backend, sizeof(s->backend));
	copy_string(j, "device", s->device, sizeof(s->device));
	copy_string(j, "isolation", s->isolation, sizeof(s->isolation));
	copy_string(j, "gpu", s->gpu, sizeof(s->gpu));
	s->complete = json_is_true(json_object_get(j, "complete"));
	s->score = json_number_value(json_object_get(j, "score"));
	s->max_score = json_number_value(json_object_get(j, "max_score"));
	s->exit_status = (int)json_integer_value(json_object_get(j, "exit_status"));
	s->wall_s = json_number_value(json_object_get(j, "wall_s"));
	const char *seed = json_string_value(json_object_get(j, "seed"));
	s->seed = seed ? strtoull(seed, NULL, 10) : 0;
	json_t *pct = json_object_get(j, "percent_of_copy");
	s->percent_of_copy = json_is_number(pct) ? json_number_value(pct) : -1;
	json_t *groups = json_object_get(j, "groups");
	for (int i = 0; i < GROUP_COUNT; i++) {
		json_t *v = json_object_get(groups, group_name(group_order[i]));
		s->has_group[i] = json_is_number(v);
		s->group_points[i] = json_number_value(v);
	}
	json_decref(j);
	return 0;
}
