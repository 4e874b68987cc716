/*
 * OUT/.slurm/: what the submitting process hands its array tasks, in a
 * folder only the grader's user may enter (0700). Under bubblewrap the
 * students' code does not see OUT at all; without it, code run as a leased
 * uid cannot enter the folder. The salt has a file of its own, read by each
 * task: it never travels on a command line, in the job script, or in the
 * job's environment, where `scontrol show job` would show it.
 *
 *   salt         the --salt text (0600)
 *   roster.json  {"tasks": T, "students": [{"name", "source"}, ...]}
 *   job.json     {"job": "123", "tasks": T, "students": N, "backend": "cuda"}
 *   task-J_I.log what task I of job J printed
 */
#include "slurm/slurm.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "batch/batch.h"
#include "sys/atomic_file.h"
#include "sys/kit_paths.h"

int slurm_state_dir(const char *out_dir, char *buf, size_t len, char *err, size_t errlen)
{
	snprintf(buf, len, "%.3000s/%s", out_dir, SLURM_STATE_DIR);
	struct stat st;
	if ((mkdir(buf, 0700) < 0 && errno != EEXIST) || lstat(buf, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    chmod(buf, 0700) < 0) {
		snprintf(err, errlen, "cannot create %.3000s (a folder of its own): %s", buf,
			 strerror(errno ? errno : ENOTDIR));
		return -1;
	}
	return 0;
}

static int write_private(const char *path, const char *text, size_t n, char *err, size_t len)
{
	if (atomic_write(path, text, n, err, len) < 0)
		return -1;
	if (chmod(path, 0600) < 0) {
		snprintf(err, len, "cannot make %.3000s private: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int write_json(const char *path, json_t *j, char *err, size_t len)
{
	char *text = j ? json_dumps(j, JSON_INDENT(1)) : NULL;
	json_decref(j);
	if (!text) {
		snprintf(err, len, "%.3000s: out of memory", path);
		return -1;
	}
	int rc = write_private(path, text, strlen(text), err, len);
	free(text);
	return rc;
}

int slurm_salt_write(const char *state, const char *salt, char *err, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%.3000s/salt", state);
	return write_private(path, salt, strlen(salt), err, len);
}

int slurm_salt_read(const char *state, char *salt, size_t saltlen, char *err, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%.3000s/salt", state);
	FILE *f = fopen(path, "re");
	if (!f) {
		snprintf(err, len, "cannot read %.3000s: %s", path, strerror(errno));
		return -1;
	}
	size_t n = fread(salt, 1, saltlen - 1, f);
	salt[n] = '\0';
	fclose(f);
	return 0;
}

int slurm_roster_write(const char *state, const struct batch *b, const int *todo, int n_todo,
		       int tasks, char *err, size_t len)
{
	char path[PATH_MAX];
	json_t *list = json_array();
	for (int i = 0; i < n_todo; i++) {
		const struct student *s = &b->roster.students[todo[i]];
		/* Names are bytes; jansson takes UTF-8 only: a name that is not
		 * stays ungraded with its reason, never silently dropped. */
		json_array_append_new(list, json_pack("{s:s, s:s}", "name", s->name, "source", s->source));
	}
	if (json_array_size(list) != (size_t)n_todo) {
		json_decref(list);
		snprintf(err, len, "a student's name or path is not UTF-8: it cannot go to the cluster");
		return -1;
	}
	snprintf(path, sizeof(path), "%.3000s/roster.json", state);
	return write_json(path, json_pack("{s:i, s:o}", "tasks", tasks, "students", list), err, len);
}

int slurm_roster_read(const char *state, struct batch *b, int *tasks, char *err, size_t len)
{
	char path[PATH_MAX];
	json_error_t je;
	snprintf(path, sizeof(path), "%.3000s/roster.json", state);
	json_t *j = json_load_file(path, 0, &je);
	json_t *list = json_object_get(j, "students");
	*tasks = (int)json_integer_value(json_object_get(j, "tasks"));
	if (!json_is_array(list) || *tasks < 1) {
		snprintf(err, len, "%.3000s: not a roster (%s)", path, j ? "fields missing" : je.text);
		json_decref(j);
		return -1;
	}
	size_t n = json_array_size(list);
	b->roster.students = calloc(n + 1, sizeof(*b->roster.students));
	for (size_t i = 0; b->roster.students && i < n; i++) {
		json_t *e = json_array_get(list, i);
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *source = json_string_value(json_object_get(e, "source"));
		if (!name || !source)
			continue;
		struct student *s = &b->roster.students[b->roster.n++];
		snprintf(s->name, sizeof(s->name), "%s", name);
		snprintf(s->source, sizeof(s->source), "%s", source);
	}
	json_decref(j);
	if (!b->roster.students) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	return 0;
}

int slurm_job_write(const char *state, const char *job, int tasks, int students,
		    enum backend backend, char *err, size_t len)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%.3000s/job.json", state);
	return write_json(path, json_pack("{s:s, s:i, s:i, s:s}", "job", job, "tasks", tasks,
					  "students", students, "backend", backend_name(backend)),
			  err, len);
}

int slurm_job_read(const char *state, char *job, size_t joblen, int *tasks, int *students,
		   enum backend *backend)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%.3000s/job.json", state);
	json_t *j = json_load_file(path, 0, NULL);
	const char *id = json_string_value(json_object_get(j, "job"));
	*tasks = (int)json_integer_value(json_object_get(j, "tasks"));
	*students = (int)json_integer_value(json_object_get(j, "students"));
	const char *b = json_string_value(json_object_get(j, "backend"));
	*backend = b && strcmp(b, "emu") == 0 ? BACKEND_EMU : BACKEND_CUDA;
	int ok = id && *tasks > 0;
	if (ok)
		snprintf(job, joblen, "%s", id);
	json_decref(j);
	return ok ? 0 : -1;
}
