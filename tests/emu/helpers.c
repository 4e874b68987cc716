/* Helpers of the emulator's tests (see emu_test.h). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emu_test.h"

void both_modes(long (*fn)(void), const char *what)
{
	for (int mode = 0; mode < 2; mode++) {
		cuemu_set_tracing(mode);
		long bad = fn();
		cr_expect_eq(bad, 0, "%s in mode %d: %ld wrong%s", what, mode, bad,
			     bad < 0 ? " (a CUDA error)" : "");
		cr_expect_null(cuemu_last_fault(), "%s: %s", what, cuemu_last_fault());
	}
}

json_t *metrics_now(void)
{
	char *text = cuemu_metrics_json();
	cr_assert_not_null(text, "cuemu_metrics_json returned NULL");
	json_error_t err;
	json_t *m = json_loads(text, 0, &err);
	cr_assert_not_null(m, "metrics do not parse: %s at %d\n%.2000s", err.text, err.position, text);
	free(text);
	return m;
}

json_t *launch_of(json_t *metrics, const char *kernel)
{
	size_t i;
	json_t *l;
	json_array_foreach(json_object_get(metrics, "launches"), i, l)
		if (strcmp(json_string_value(json_object_get(l, "kernel")), kernel) == 0)
			return l;
	return NULL;
}

json_t *line_row(json_t *launch, int line, const char *space, const char *kind)
{
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(launch, "lines"), i, r)
		if (json_integer_value(json_object_get(r, "line")) == line &&
		    strcmp(json_string_value(json_object_get(r, "space")), space) == 0 &&
		    strcmp(json_string_value(json_object_get(r, "kind")), kind) == 0)
			return r;
	return NULL;
}

int marker_line(const char *file, const char *marker)
{
	char path[1024], buf[1024];
	snprintf(path, sizeof path, "%s/tests/emu/kernels/%s", CUEMU_SOURCE_DIR, file);
	FILE *f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	for (int line = 1; fgets(buf, sizeof buf, f); line++)
		if (strstr(buf, marker)) {
			fclose(f);
			return line;
		}
	fclose(f);
	cr_assert_fail("no %s in %s", marker, path);
	return -1;
}

long interval_warps(json_t *launch, int line)
{
	size_t i, j;
	json_t *iv, *l;
	long total = 0;
	json_array_foreach(json_object_get(launch, "intervals"), i, iv)
		json_array_foreach(json_object_get(iv, "lines"), j, l)
			if (json_integer_value(json_object_get(l, "line")) == line)
				total += json_integer_value(json_object_get(l, "warps"));
	return total;
}

static char *slurp(int fd)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	ssize_t got;
	while (buf && (got = read(fd, buf + n, cap - n - 1)) > 0) {
		n += (size_t)got;
		if (n + 1 == cap)
			buf = realloc(buf, cap *= 2);
	}
	if (buf)
		buf[n] = 0;
	return buf;
}

int run_child(void (*fn)(void), char **err)
{
	int p[2];
	cr_assert_eq(pipe(p), 0);
	fflush(NULL);
	pid_t pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], 2);
		fn();
		_exit(0);
	}
	close(p[1]);
	*err = slurp(p[0]);
	close(p[0]);
	int status;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run_command(const char *cmd, char **out)
{
	char full[4096];
	snprintf(full, sizeof full, "(%s) 2>&1", cmd);
	FILE *f = popen(full, "r");
	cr_assert_not_null(f, "popen %s", cmd);
	*out = slurp(fileno(f));
	int status = pclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

const char *scratch_source(const char *dir, const char *name, const char *text)
{
	static char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
	return path;
}

int cuemu_build_run(const char *flags, const char *src, char **out)
{
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "%s/cuemu-cc %s %s -o %s.exe && %s.exe", CUEMU_BUILD_DIR, flags, src, src,
		 src);
	return run_command(cmd, out);
}

json_t *warning_of(json_t *metrics, const char *kind)
{
	size_t i;
	json_t *w;
	json_array_foreach(json_object_get(metrics, "warnings"), i, w) {
		const char *k = json_string_value(json_object_get(w, "kind"));
		if (k && strcmp(k, kind) == 0)
			return w;
	}
	return NULL;
}

void scratch_dir_make(char *tmpl)
{
	cr_assert_not_null(mkdtemp(tmpl), "cannot make %s", tmpl);
}

void scratch_dir_remove(const char *dir)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", dir);
}
