/*
 * The folder dependencies docs/architecture.md states ("Which folder
 * calls which") are the ones the #include lines of each folder of grader
 * show: every include is stated, and every stated dependency is used. A bare
 * "name.h" is the including folder's own header when it has one, else
 * common/'s (the grader builds with -Icommon -Igrader).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/kit_paths.h"

#define MAX_FOLDERS 16
#define MAX_DEPS 16

struct folder {
	char name[32];
	char deps[MAX_DEPS][32];
	int n;
};

static void add_dep(struct folder *f, const char *dep)
{
	for (int i = 0; i < f->n; i++)
		if (strcmp(f->deps[i], dep) == 0)
			return;
	cr_assert_lt(f->n, MAX_DEPS);
	snprintf(f->deps[f->n++], sizeof(f->deps[0]), "%s", dep);
}

static int has_dep(const struct folder *f, const char *dep)
{
	for (int i = 0; i < f->n; i++)
		if (strcmp(f->deps[i], dep) == 0)
			return 1;
	return 0;
}

static int exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* The folder an include of a file in grader/self/ names, into dep ("" for
 * its own): "x.h" is its own or common/'s, "../../common/x.h" and
 * "../labs/x.h" are relative to it, "steps/x.h" is under grader/ (-Igrader). */
static void include_target(const char *self, const char *inc, char *dep, size_t len)
{
	char path[PATH_MAX], rel[PATH_MAX];
	dep[0] = '\0';
	if (!strchr(inc, '/')) {
		snprintf(rel, sizeof(rel), "grader/%s/%s", self, inc);
		if (!exists(kit_path(path, sizeof(path), rel)))
			snprintf(dep, len, "common");
		return;
	}
	int up = 0;
	while (strncmp(inc, "../", 3) == 0) {
		inc += 3;
		up++;
	}
	int first = (int)strcspn(inc, "/");
	if (up >= 2)		/* the kit's root: common/, emu/ */
		snprintf(dep, len, "%.*s", first, inc);
	else if ((size_t)first != strlen(self) || strncmp(inc, self, (size_t)first) != 0)
		snprintf(dep, len, "%.*s", first, inc);	/* grader/FIRST/ */
}

static void scan_file(struct folder *f, const char *path)
{
	FILE *in = fopen(path, "r");
	char line[1024], inc[512], dep[64];
	cr_assert_not_null(in, "%s", path);
	while (fgets(line, sizeof(line), in))
		if (sscanf(line, "#include \"%511[^\"]\"", inc) == 1) {
			include_target(f->name, inc, dep, sizeof(dep));
			if (dep[0])
				add_dep(f, dep);
		}
	fclose(in);
}

/* What grader/NAME/'s files include, by folder. */
static void actual(const char *name, struct folder *f)
{
	char dir[PATH_MAX], rel[64], path[PATH_MAX + 256];
	memset(f, 0, sizeof(*f));
	snprintf(f->name, sizeof(f->name), "%.31s", name);
	snprintf(rel, sizeof(rel), "grader/%.31s", name);
	DIR *d = opendir(kit_path(dir, sizeof(dir), rel));
	cr_assert_not_null(d, "%s", dir);
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if ((n > 2 && (strcmp(e->d_name + n - 2, ".c") == 0 || strcmp(e->d_name + n - 2, ".h") == 0)) ||
		    (n > 3 && strcmp(e->d_name + n - 3, ".cu") == 0)) {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			scan_file(f, path);
		}
	}
	closedir(d);
}

/* The doc's table: "| `grader/X/` | `a/`, `b/` |" (or "nothing"). */
static int stated(struct folder *out, int max)
{
	char path[PATH_MAX], line[1024];
	FILE *in = fopen(kit_path(path, sizeof(path), "docs/architecture.md"), "r");
	cr_assert_not_null(in);
	int n = 0;
	while (fgets(line, sizeof(line), in) && n < max) {
		char name[32];
		if (sscanf(line, "| `grader/%31[^/]/` |", name) != 1)
			continue;
		struct folder *f = &out[n++];
		memset(f, 0, sizeof(*f));
		snprintf(f->name, sizeof(f->name), "%s", name);
		char *calls = strchr(line + 2, '|');
		for (char *p = calls ? strchr(calls, '`') : NULL; p; p = strchr(p, '`')) {
			char dep[32];
			if (sscanf(p, "`%31[^/`]", dep) == 1)
				add_dep(f, dep);
			p = strchr(p + 1, '`');
			if (p)
				p++;
		}
	}
	fclose(in);
	return n;
}

Test(layering, the_doc_states_the_folders_includes)
{
	struct folder doc[MAX_FOLDERS];
	int n = stated(doc, MAX_FOLDERS);
	char dir[PATH_MAX];
	DIR *d = opendir(kit_path(dir, sizeof(dir), "grader"));
	cr_assert_not_null(d);
	struct dirent *e;
	int folders = 0;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_type != DT_DIR)
			continue;
		folders++;
		const struct folder *want = NULL;
		for (int i = 0; i < n; i++)
			if (strcmp(doc[i].name, e->d_name) == 0)
				want = &doc[i];
		cr_expect_not_null(want, "docs/architecture.md does not say what grader/%s/ calls", e->d_name);
		if (!want)
			continue;
		struct folder got;
		actual(e->d_name, &got);
		for (int i = 0; i < got.n; i++)
			cr_expect(has_dep(want, got.deps[i]), "grader/%s/ includes %s/, which the doc does not state",
				  e->d_name, got.deps[i]);
		for (int i = 0; i < want->n; i++)
			cr_expect(has_dep(&got, want->deps[i]), "the doc says grader/%s/ calls %s/, and no "
				  "#include does", e->d_name, want->deps[i]);
	}
	closedir(d);
	cr_expect_eq(folders, n, "the doc's table has %d folders, grader/ %d", n, folders);
}
