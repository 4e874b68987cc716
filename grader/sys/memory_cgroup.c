/*
 * Memory cgroups for sandboxed children (memory_cgroup.h). Each child gets
 * a cgroup of its own under the grader's, named after the grader's pid, so
 * that children of concurrent graders and batch workers never share one.
 */
#include "sys/memory_cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#define CGROUP_V1_MAGIC 0x27e0eb
#define CGROUP_V2_MAGIC 0x63677270
#define CGROUP_PREFIX "cuda-lab-kit-"	/* then the grader's pid and a count */

static int mounted_as(const char *dir, long magic)
{
	struct statfs fs;
	return statfs(dir, &fs) == 0 && (long)fs.f_type == magic;
}

/* Our cgroup's path in the hierarchy that has `controller` (v1), or in the
 * unified one (controller NULL), from /proc/self/cgroup. */
static int own_path(const char *controller, char *path, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	if (!f)
		return -1;
	char line[PATH_MAX + 256];
	int found = -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		char *names = strchr(line, ':'), *p = names ? strchr(names + 1, ':') : NULL;
		if (!p)
			continue;
		*p++ = '\0';
		names++;
		p[strcspn(p, "\n")] = '\0';
		int match = 0;
		if (!controller)
			match = names[0] == '\0';
		else
			for (char *save, *n = strtok_r(names, ",", &save); n; n = strtok_r(NULL, ",", &save))
				match |= strcmp(n, controller) == 0;
		if (match && snprintf(path, len, "%s", p) < (int)len)
			found = 0;
	}
	fclose(f);
	return found;
}

static int write_file(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	int saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The folder our children's cgroups go in, and its cgroup version. */
static int parent_dir(char *dir, size_t len, int *version)
{
	char path[PATH_MAX - 128];
	if (mounted_as("/sys/fs/cgroup", CGROUP_V2_MAGIC) && own_path(NULL, path, sizeof(path)) == 0) {
		snprintf(dir, len, "/sys/fs/cgroup%s", strcmp(path, "/") == 0 ? "" : path);
		char control[PATH_MAX + 32], have[256] = "";
		snprintf(control, sizeof(control), "%s/cgroup.subtree_control", dir);
		FILE *f = fopen(control, "re");
		if (f) {
			if (!fgets(have, sizeof(have), f))
				have[0] = '\0';
			fclose(f);
		}
		/* Handed down already, or ours to hand down (only where our own
		 * cgroup holds no process: the kernel refuses it otherwise). */
		if (!strstr(have, "memory") && write_file(dir, "cgroup.subtree_control", "+memory") < 0)
			return -1;
		*version = 2;
		return 0;
	}
	if (mounted_as("/sys/fs/cgroup/memory", CGROUP_V1_MAGIC) &&
	    own_path("memory", path, sizeof(path)) == 0) {
		snprintf(dir, len, "/sys/fs/cgroup/memory%s", strcmp(path, "/") == 0 ? "" : path);
		*version = 1;
		return 0;
	}
	return -1;
}

/* The empty cgroups of graders that were killed before they could remove
 * them (a batch killed outright takes its workers along mid-run). */
static void remove_stale(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		long pid;
		unsigned n;
		char path[PATH_MAX];
		if (sscanf(e->d_name, CGROUP_PREFIX "%ld-%u", &pid, &n) == 2 && pid > 0 &&
		    kill((pid_t)pid, 0) < 0 && errno == ESRCH &&
		    snprintf(path, sizeof(path), "%s/%s", parent, e->d_name) < (int)sizeof(path))
			rmdir(path);	/* fails, harmlessly, if something is still in it */
	}
	if (d)
		closedir(d);
}

int memory_cgroup_make(size_t bytes, struct memory_cgroup *cg)
{
	static unsigned made;
	char parent[PATH_MAX - 64], limit[32];
	memset(cg, 0, sizeof(*cg));
	cg->procs_fd = -1;
	if (geteuid() != 0 || parent_dir(parent, sizeof(parent), &cg->version) < 0)
		return -1;
	static pid_t swept;	/* once per process: a batch's workers are forks */
	if (swept != getpid()) {
		remove_stale(parent);
		swept = getpid();
	}
	snprintf(cg->dir, sizeof(cg->dir), "%s/" CGROUP_PREFIX "%ld-%u", parent, (long)getpid(), made++);
	if (mkdir(cg->dir, 0700) < 0) {
		cg->dir[0] = '\0';
		return -1;
	}
	snprintf(limit, sizeof(limit), "%zu", bytes);
	/* Swap is capped with memory where the kernel accounts it; elsewhere
	 * a child can swap, which is slow, not a way past the cap. */
	int ok = cg->version == 2
			 ? write_file(cg->dir, "memory.max", limit) == 0 &&
				   (write_file(cg->dir, "memory.swap.max", "0") == 0 || errno == ENOENT)
			 : write_file(cg->dir, "memory.limit_in_bytes", limit) == 0 &&
				   (write_file(cg->dir, "memory.memsw.limit_in_bytes", limit) == 0 ||
				    errno == ENOENT);
	char procs[PATH_MAX + 16];
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg->dir);
	if (ok)
		cg->procs_fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (cg->procs_fd < 0) {
		memory_cgroup_remove(cg);
		return -1;
	}
	return 0;
}

int memory_cgroup_join(const struct memory_cgroup *cg)
{
	char digits[24], *p = digits + sizeof(digits);
	long pid = (long)getpid();
	do
		*--p = (char)('0' + pid % 10);
	while ((pid /= 10) > 0);
	size_t n = (size_t)(digits + sizeof(digits) - p);
	return write(cg->procs_fd, p, n) == (ssize_t)n ? 0 : -1;
}

long memory_cgroup_oom_kills(const struct memory_cgroup *cg)
{
	char path[PATH_MAX + 32], line[128];
	snprintf(path, sizeof(path), "%s/%s", cg->dir,
		 cg->version == 2 ? "memory.events" : "memory.oom_control");
	FILE *f = fopen(path, "re");
	long kills = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "oom_kill ", 9) == 0)
			kills = atol(line + 9);
	fclose(f);
	return kills;
}

/* Sends SIGKILL to every process in it; how many there were. */
static int kill_members(const char *dir)
{
	char path[PATH_MAX + 16], line[32];
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	FILE *f = fopen(path, "re");
	int n = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (atol(line) > 0 && kill((pid_t)atol(line), SIGKILL) == 0)
			n++;
	fclose(f);
	return n;
}

void memory_cgroup_remove(struct memory_cgroup *cg)
{
	if (cg->procs_fd >= 0)
		close(cg->procs_fd);
	cg->procs_fd = -1;
	/* A member still dying keeps it busy for a moment: up to 2 s. */
	for (int i = 0; cg->dir[0] && i < 200; i++) {
		kill_members(cg->dir);
		if (rmdir(cg->dir) == 0 || errno != EBUSY)
			break;
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	cg->dir[0] = '\0';
}

const char *memory_cgroup_why_not(void)
{
	static int known;
	static const char *why;
	if (!known) {
		struct memory_cgroup cg;
		if (geteuid() != 0)
			why = "the grader is not root";
		else if (memory_cgroup_make((size_t)1 << 30, &cg) < 0)
			why = "no writable memory cgroup here";
		else
			memory_cgroup_remove(&cg);
		known = 1;
	}
	return why;
}
