/* Finding the kit's files (see kit_paths.h). */
#include "sys/kit_paths.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *kit_root(void)
{
	static char root[PATH_MAX];
	if (root[0])
		return root;
	const char *env = getenv("KIT_ROOT");
	if (env && *env) {
		snprintf(root, sizeof(root), "%s", env);
		return root;
	}
	/* The grader is ROOT/build/grade (./grade is a link to it). */
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(root, sizeof(root), ".");
		return root;
	}
	exe[n] = '\0';
	char *build = dirname(exe);
	snprintf(root, sizeof(root), "%s", dirname(build));
	return root;
}

const char *kit_path(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s/%s", kit_root(), rel);
	return buf;
}

int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int make_dirs(const char *path)
{
	char buf[PATH_MAX];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

static int is_program(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int find_program(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH");
	if (strchr(name, '/')) {
		snprintf(buf, len, "%s", name);
		return is_program(buf);
	}
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *end = strchrnul(p, ':');
		int n = (int)(end - p);
		snprintf(buf, len, "%.*s/%s", n, n ? p : ".", name);
		if (is_program(buf))
			return 1;
		if (!*end)
			return 0;
		p = end;
	}
}

/* path made absolute and free of symbolic links, as bwrap needs it; the
 * path itself (made absolute) when it does not exist yet. */
void absolute_path(const char *path, char *out, size_t len)
{
	char buf[PATH_MAX], cwd[PATH_MAX];
	if (realpath(path, buf)) {
		snprintf(out, len, "%s", buf);
	} else if (path[0] == '/' || !getcwd(cwd, sizeof(cwd))) {
		snprintf(out, len, "%s", path);
	} else {
		snprintf(out, len, "%.2000s/%.2000s", cwd, path);
	}
}
