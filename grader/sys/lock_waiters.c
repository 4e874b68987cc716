/* Holders and waiters of flock locks, from /proc/locks (see lock_waiters.h). */
#include "sys/lock_waiters.h"

#include <dirent.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* One line of /proc/locks, for flock locks only:
 *   "1: FLOCK  ADVISORY  WRITE 6406 fe:00:10953191 0 EOF"     a holder
 *   "1: -> FLOCK  ADVISORY  WRITE 6410 fe:00:10953191 0 EOF"  a waiter
 * The pid is the locker's in the reader's pid namespace, 0 where it has
 * none there. */
struct lock_line {
	pid_t pid;
	int waiting;
	unsigned maj, min;
	unsigned long ino;
};

static int parse_line(const char *s, struct lock_line *l)
{
	char kind[16], how[16], mode[16];
	int pid;
	const char *p = strchr(s, ':');
	if (!p)
		return 0;
	for (p++; *p == ' '; p++)
		;
	l->waiting = strncmp(p, "->", 2) == 0;
	if (l->waiting)
		p += 2;
	if (sscanf(p, "%15s %15s %15s %d %x:%x:%lu", kind, how, mode, &pid, &l->maj, &l->min, &l->ino) != 7 ||
	    strcmp(kind, "FLOCK") != 0)
		return 0;
	l->pid = pid;
	return 1;
}

/* Whether st is the file the line is about. */
static int same_file(const struct stat *st, const struct lock_line *l)
{
	return major(st->st_dev) == l->maj && minor(st->st_dev) == l->min && st->st_ino == l->ino;
}

/* Whether the line is about one of the n files, st[i] the stat of the
 * i-th (st_ino 0 where it could not be had). */
static int on_files(const struct lock_line *l, const struct stat *st, int n)
{
	for (int i = 0; i < n; i++)
		if (st[i].st_ino != 0 && same_file(&st[i], l))
			return 1;
	return 0;
}

/* The process's parent and state letter from /proc/PID/stat; -1 when it
 * is gone. The command may hold spaces and parentheses: the fields
 * follow its last ')'. */
static int proc_stat(pid_t pid, pid_t *parent, char *state)
{
	char path[64], line[512];
	int ppid = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *got = fgets(line, sizeof(line), f);
	fclose(f);
	char *close = got ? strrchr(line, ')') : NULL;
	if (!close || sscanf(close + 1, " %c %d", state, &ppid) != 2)
		return -1;
	*parent = ppid;
	return 0;
}

static int under(pid_t pid, pid_t root)
{
	char state;
	for (int depth = 0; depth < 64 && pid > 1; depth++) {
		if (pid == root)
			return 1;
		if (proc_stat(pid, &pid, &state) < 0)
			return 0;
	}
	return 0;
}

/* Calls see() for each flock line of the n files; -1 when /proc/locks
 * cannot be read. */
static int each_line(const int *fds, int n, void (*see)(const struct lock_line *, void *), void *arg)
{
	char line[256];
	struct lock_line l;
	struct stat st[LOCK_WAITERS_MAX_FILES];
	if (n > LOCK_WAITERS_MAX_FILES)
		n = LOCK_WAITERS_MAX_FILES;
	/* Once a scan: /proc/locks holds a line for every lock of the machine. */
	for (int i = 0; i < n; i++)
		if (fds[i] < 0 || fstat(fds[i], &st[i]) != 0)
			st[i].st_ino = 0;
	FILE *f = fopen("/proc/locks", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (parse_line(line, &l) && on_files(&l, st, n))
			see(&l, arg);
	fclose(f);
	return 0;
}

struct blocked_search {
	pid_t root;
	int found;
};

static void see_waiter(const struct lock_line *l, void *arg)
{
	struct blocked_search *s = arg;
	if (l->waiting && l->pid > 0 && !s->found && under(l->pid, s->root))
		s->found = 1;
}

int lock_tree_blocked(pid_t root, const int *fds, int n)
{
	struct blocked_search s = { root, 0 };
	return each_line(fds, n, see_waiter, &s) < 0 ? -1 : s.found;
}

struct holders {
	pid_t root;
	char *buf;
	size_t len;
	pid_t seen[16];
	int n_seen, stopped;
};

static const char *state_words(char state)
{
	switch (state) {
	case 'T': return ", stopped";
	case 't': return ", stopped by a debugger";
	default: return "";
	}
}

/* Whether the process has the line's file open. */
static int has_open(pid_t pid, const struct lock_line *l)
{
	char path[300];
	struct dirent *fd;
	struct stat st;
	int found = 0;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *fds = opendir(path);
	while (fds && !found && (fd = readdir(fds))) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%.32s", (int)pid, fd->d_name);
		found = fd->d_name[0] != '.' && stat(path, &st) == 0 && same_file(&st, l);
	}
	if (fds)
		closedir(fds);
	return found;
}

/* A process with the line's file open, a stopped one first, other than
 * the caller and those under root; 0 where none can be seen (another
 * user's descriptors are not). Every grade and worker on the machine has
 * the file open, and waits on it: the stopped one is the keeper. */
static pid_t opener(const struct lock_line *l, pid_t root)
{
	DIR *procs = opendir("/proc");
	struct dirent *p;
	pid_t found = 0, parent;
	char state;
	while (procs && (p = readdir(procs))) {
		pid_t pid = (pid_t)atoi(p->d_name);
		if (pid <= 0 || pid == getpid() || under(pid, root) || !has_open(pid, l) ||
		    proc_stat(pid, &parent, &state) < 0)
			continue;
		found = found ? found : pid;
		if (state == 'T' || state == 't') {
			found = pid;
			break;
		}
	}
	if (procs)
		closedir(procs);
	return found;
}

/*
 * Who keeps the line's lock. flock's lock belongs to the open file, and
 * /proc/locks names the process that took it: a grader's child takes the
 * lock on the grader's own open file, so once the child has ended --
 * its grader stopped (Ctrl-Z) before it reaped it -- the lock is the
 * grader's: the parent of a child not yet reaped, or whoever still has
 * the file open.
 */
static pid_t keeper(const struct lock_line *l, pid_t root)
{
	pid_t parent;
	char state;
	if (proc_stat(l->pid, &parent, &state) < 0)
		return opener(l, root);
	return state == 'Z' ? parent : l->pid;
}

static void see_holder(const struct lock_line *l, void *arg)
{
	struct holders *h = arg;
	char path[64], comm[64] = "?", state = '?';
	pid_t parent, pid;
	struct stat st;
	if (l->waiting || l->pid <= 0 || under(l->pid, h->root) || h->n_seen == 16)
		return;
	pid = keeper(l, h->root);
	if (pid <= 0 || under(pid, h->root) || proc_stat(pid, &parent, &state) < 0)
		return;
	for (int i = 0; i < h->n_seen; i++)
		if (h->seen[i] == pid)
			return;
	h->seen[h->n_seen++] = pid;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	FILE *f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	struct passwd *pw = stat(path, &st) == 0 ? getpwuid(st.st_uid) : NULL;
	h->stopped += state == 'T' || state == 't';
	char who[160];
	snprintf(who, sizeof(who), "pid %d (%s%s%s%s%s)", (int)pid, pw ? "user " : "", pw ? pw->pw_name : "",
		 pw ? ", " : "", comm, state_words(state));
	size_t used = strlen(h->buf);
	snprintf(h->buf + used, h->len - used, "%s%s", used ? "; " : "", who);
}

int lock_holders_describe(pid_t root, const int *fds, int n, char *buf, size_t len)
{
	struct holders h = { .root = root, .buf = buf, .len = len };
	if (len == 0)
		return 0;
	buf[0] = '\0';
	each_line(fds, n, see_holder, &h);
	return h.stopped;
}
