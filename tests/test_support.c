/* Test helpers (see test_support.h). */
#include "test_support.h"

#include <criterion/criterion.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/guard.h"
#include "steps/integrity.h"
#include "sys/kit_paths.h"

extern const struct lab lab3_transpose;

struct harness_report correct_report(const struct lab *lab, const struct shape *s, uint64_t seed,
				     uint32_t **span_out)
{
	size_t n_in = lab->in_count(s), n = lab->out_count(s);
	uint32_t *in = malloc(n_in * 4), *span = malloc((n + 2 * GUARD_WORDS) * 4);
	for (size_t i = 0; i < n + 2 * GUARD_WORDS; i++)
		span[i] = POISON_WORD;
	lab_fill_input(lab, in, s, seed);
	lab->reference(in, span + GUARD_WORDS, s);
	free(in);
	struct harness_report rep;
	memset(&rep, 0, sizeof(rep));
	rep.began = rep.ended = 1;
	rep.done = json_pack("{s:n, s:f, s:b}", "cuda_error", "elapsed_ms", 1.0, "input_changed", 0);
	rep.output = span;
	rep.output_words = n + 2 * GUARD_WORDS;
	rep.outputs = 1;
	*span_out = span;
	return rep;
}

void add_bench_point(struct grade *g, size_t rows, size_t cols, double student, double reference,
		     double copy)
{
	struct bench_point *b = &g->bench[g->n_bench++];
	b->shape.rank = 2;
	b->shape.dim[0] = rows;
	b->shape.dim[1] = cols;
	b->bytes = 8.0 * rows * cols;
	b->student_gbps = student;
	b->reference_gbps = reference;
	b->copy_gbps = copy;
}

int processes_named(const char *prefix)
{
	glob_t g;
	int n = 0;
	if (glob("/proc/[0-9]*/comm", 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char name[64] = "";
		FILE *f = fopen(g.gl_pathv[i], "r");
		if (f && fgets(name, sizeof(name), f) && strncmp(name, prefix, strlen(prefix)) == 0)
			n++;
		if (f)
			fclose(f);
	}
	globfree(&g);
	return n;
}

void compile_c_program(const char *dir, const char *name, const char *source, char *exe, size_t len)
{
	char src[4096], cmd[8400];
	snprintf(src, sizeof(src), "%.4000s/%.80s.c", dir, name);
	snprintf(exe, len, "%s/%s", dir, name);
	FILE *f = fopen(src, "w");
	cr_assert_not_null(f, "%s", src);
	fputs(source, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -o '%s' '%s'", exe, src);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

void emu_lab3_build(const char *file, struct rubric *r, char *work, struct build_result *b)
{
	char path[1024], err[512], log[8192], src[1024];
	kit_path(path, sizeof(path), "labs/lab3-transpose/lab.ini");
	cr_assert_eq(rubric_load(path, 2, r, err, sizeof(err)), 0, "%s", err);
	cr_assert(mkdtemp(work));
	struct device_info dev;
	memset(&dev, 0, sizeof(dev));
	cr_assert_eq(build_submission(&lab3_transpose, BACKEND_EMU, kit_path(src, sizeof(src), file), work,
				      &dev, NULL, 120, b, log, sizeof(log)), 0, "%s", log);
}

void emu_lab3_done(struct rubric *r, const char *work)
{
	rubric_free(r);
	remove_tree(work);
	cr_expect_neq(access(work, F_OK), 0, "%s left behind", work);
}

void add_graded_test(struct grade *g, const char *name, enum test_group group, enum test_status st,
		     double points, double max, const char *message)
{
	struct test_result *t = grade_add_test(g, name, group, max);
	t->status = st;
	t->points = points;
	snprintf(t->message, sizeof(t->message), "%s", message);
}

/* The folders test_temp_dir made in this process, removed when it exits.
 * Criterion runs each test in a process of its own and does not run the
 * suite's .fini after cr_skip_test, which exits; exit handlers do run. A
 * .fini that ran removed them already, which makes this a no-op. Only the
 * process that made them removes them: a child forked by the code under
 * test that calls exit() must not take a folder from the test. */
enum { TEMP_DIRS_MAX = 64 };
static char temp_dirs[TEMP_DIRS_MAX][PATH_MAX];
static int n_temp_dirs;
static pid_t temp_dirs_owner;

static void remove_temp_dirs(void)
{
	if (getpid() != temp_dirs_owner)
		return;
	for (int i = 0; i < n_temp_dirs; i++)
		remove_tree(temp_dirs[i]);
}

void test_temp_dir(char *out, size_t len, const char *name)
{
	snprintf(out, len, "/tmp/%s-XXXXXX", name);
	cr_assert_not_null(mkdtemp(out));
	if (temp_dirs_owner != getpid()) {
		temp_dirs_owner = getpid();
		n_temp_dirs = 0;
		cr_assert_eq(atexit(remove_temp_dirs), 0);
	}
	cr_assert_lt(n_temp_dirs, TEMP_DIRS_MAX, "more temporary folders than the list of those to remove holds");
	snprintf(temp_dirs[n_temp_dirs++], PATH_MAX, "%s", out);
}

void test_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	cr_assert_not_null(f, "%s", path);
	fputs(text, f);
	fclose(f);
}

void run_kit_kernel_check(const char *rel, const char *args)
{
	char exe[1024], cmd[1300], out[32768] = "";
	kit_path(exe, sizeof(exe), rel);
	cr_assert_eq(access(exe, X_OK), 0, "%s is not built: run make test-build", exe);
	snprintf(cmd, sizeof(cmd), "'%s' %s 2>&1", exe, args);
	FILE *p = popen(cmd, "r");
	cr_assert_not_null(p, "%s", cmd);
	size_t n = fread(out, 1, sizeof(out) - 1, p);
	out[n] = '\0';
	int status = pclose(p);
	cr_expect_eq(status, 0, "%s %s: exit status %d\n%s", rel, args, status, out);
	cr_expect(strstr(out, "kit kernels: all checks held") != NULL, "%s %s\n%s", rel, args, out);
}

void lab3_fast_rubric(const char *path, int correctness_s, int analysis_s)
{
	char src[4096], line[1024], section[64] = "";
	FILE *in = fopen(kit_path(src, sizeof(src), "labs/lab3-transpose/lab.ini"), "r");
	FILE *o = fopen(path, "w");
	cr_assert(in && o);
	while (fgets(line, sizeof(line), in)) {
		if (line[0] == '[')
			sscanf(line, "[%63[^]]", section);
		if (strncmp(line, "timeout_s", 9) == 0 && strcmp(section, "correctness") == 0)
			fprintf(o, "timeout_s = %d\n", correctness_s);
		else if (strncmp(line, "timeout_s", 9) == 0 && strcmp(section, "analysis") == 0 && analysis_s > 0)
			fprintf(o, "timeout_s = %d\n", analysis_s);
		else
			fputs(line, o);
	}
	fclose(in);
	fclose(o);
}

int integrity_of_c(const char *source, enum backend backend, struct grade *g)
{
	char dir[64], c[128], o[128], cmd[512], err[512];
	test_temp_dir(dir, sizeof(dir), "test-integrity-of-c");
	snprintf(c, sizeof(c), "%s/s.c", dir);
	snprintf(o, sizeof(o), "%s/s.o", dir);
	test_write_file(c, source);
	snprintf(cmd, sizeof(cmd), "cc -O0 -fno-builtin -c -o %s %s", o, c);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	struct rubric r;
	cr_assert_eq(rubric_load(kit_path(cmd, sizeof(cmd), "labs/lab3-transpose/lab.ini"), 2, &r, err,
				 sizeof(err)), 0, "%s", err);
	int ok = integrity_check(&r, backend, o, NULL, g);
	rubric_free(&r);
	remove_tree(dir);
	return ok;
}

int toolkit_header_present(const char *name)
{
	char path[2048];
	const char *home = getenv("CUDA_HOME");
	const char *dirs[] = { home && *home ? home : "/usr/local/cuda", "/usr/local/cuda" };
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(path, sizeof path, "%s/include/%s", dirs[i], name);
		if (access(path, R_OK) == 0)
			return 1;
	}
	const char *sys[] = { "/usr/local/include", "/usr/include" };
	for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", sys[i], name);
		if (access(path, R_OK) == 0)
			return 1;
	}
	FILE *p = popen("command -v nvcc 2>/dev/null", "r");
	char nvcc[1024] = "";
	if (p) {
		if (!fgets(nvcc, sizeof nvcc, p))
			nvcc[0] = '\0';
		pclose(p);
	}
	nvcc[strcspn(nvcc, "\n")] = '\0';
	char *slash = strrchr(nvcc, '/');
	if (slash) {
		*slash = '\0';
		snprintf(path, sizeof path, "%s/../include/%s", nvcc, name);
		if (access(path, R_OK) == 0)
			return 1;
	}
	return 0;
}
