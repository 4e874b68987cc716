/* Bubblewrap: is it usable here, and the command that runs a child in it (see bwrap.h). */
#include "sys/bwrap.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/kit_paths.h"
#include "sys/uid_lease.h"

static int probed, available, disable_userns;
static char reason[256];
static char bwrap[PATH_MAX] = "bwrap";

/* bwrap on PATH, else where the build unpacked it (mk/deps.sh, DEPS_PREFIX:
 * a machine that reaches no package registry). */
static void find_bwrap(void)
{
	const char *prefix = getenv("DEPS_PREFIX");
	char rel[PATH_MAX], path[PATH_MAX];
	const char *path_env = getenv("PATH");
	for (const char *p = path_env ? path_env : ""; *p;) {
		size_t n = strcspn(p, ":");
		snprintf(path, sizeof(path), "%.*s/bwrap", (int)n, p);
		if (n && access(path, X_OK) == 0)
			return;	/* "bwrap" is found on PATH */
		p += n + (p[n] == ':');
	}
	if (prefix && *prefix) {
		snprintf(rel, sizeof(rel), "%.3000s/usr/bin/bwrap", prefix);
		if (prefix[0] == '/')
			snprintf(path, sizeof(path), "%s", rel);
		else
			kit_path(path, sizeof(path), rel);	/* relative to the kit, as make has it */
		if (access(path, X_OK) == 0) {
			snprintf(bwrap, sizeof(bwrap), "%s", path);
			return;
		}
	}
	if (access(kit_path(path, sizeof(path), ".deps/usr/bin/bwrap"), X_OK) == 0)
		snprintf(bwrap, sizeof(bwrap), "%s", path);
}

/* Runs `bwrap FLAGS -- true` as the children's user; 1 if it worked. */
static int probe_bwrap(int with_disable_userns, char *why, size_t len)
{
	char *argv[] = { bwrap, "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc",
			 "--die-with-parent", "--new-session", "--ro-bind", "/", "/", "--proc", "/proc",
			 "--dev", "/dev", "--tmpfs", "/tmp",
			 with_disable_userns ? "--disable-userns" : "--unshare-uts", "--", "true", NULL };
	long uid = uid_lease();
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(why, len, "pipe: %s", strerror(errno));
		return 0;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		dup2(fds[1], 1);
		if (uid >= 0 && (setgroups(0, NULL) < 0 || setgid((gid_t)uid) < 0 || setuid((uid_t)uid) < 0))
			_exit(126);
		execvp(argv[0], argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(fds[1]);
	char out[512] = "";
	ssize_t n = pid > 0 ? read(fds[0], out, sizeof(out) - 1) : -1;
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	int status = -1;
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	char *nl = strchr(out, '\n');
	if (nl)
		*nl = '\0';
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		snprintf(why, len, "bubblewrap is not installed (apt-get install bubblewrap)");
	else
		snprintf(why, len, "bwrap cannot make a sandbox here: %.180s", out[0] ? out : "it failed");
	return 0;
}

static void probe(void)
{
	if (probed)
		return;
	probed = 1;
	find_bwrap();
	if (probe_bwrap(1, reason, sizeof(reason))) {
		available = disable_userns = 1;
	} else if (probe_bwrap(0, reason, sizeof(reason))) {
		available = 1;
	}
	if (available)
		reason[0] = '\0';
}

int bwrap_available(void)
{
	probe();
	return available;
}

const char *bwrap_unavailable_reason(void)
{
	probe();
	return reason;
}

/* ---- the command ------------------------------------------------------------ */

/* A bwrap option and its one or two arguments (y NULL: one). */
static void push_option(struct strvec *a, const char *flag, const char *x, const char *y)
{
	strvec_push(a, flag);
	strvec_push(a, x);
	if (y)
		strvec_push(a, y);
}

/* 1 when path is dir or inside it. */
static int under(const char *path, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0' || n == 1);
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Where a student could have left something, or could find something of
 * someone else's: not the system's own files. */
static const char *const private_dirs[] = { "/tmp", "/var/tmp", "/run", "/home", "/root", "/mnt",
					    "/media", "/srv", NULL };

static int under_private(const char *path)
{
	for (int i = 0; private_dirs[i]; i++)
		if (under(path, private_dirs[i]))
			return 1;
	return 0;
}

/* The kit's secrets and the caller's folders to hide, absolute. */
static int secret_dirs(char out[][PATH_MAX], int max, const char *const *hide, int n_hide)
{
	int n = 0;
	char rel[PATH_MAX];
	const char *mine[] = { "solutions", "build/work" };
	for (int i = 0; i < 2 && n < max; i++)
		absolute_path(kit_path(rel, sizeof(rel), mine[i]), out[n++], PATH_MAX);
	for (int i = 0; i < n_hide && n < max; i++)
		if (hide[i])
			absolute_path(hide[i], out[n++], PATH_MAX);
	return n;
}

/* 1 when bwrap, run as uid (-1: the grader's own user, who got there),
 * can reach path: every folder above it lets uid through. In a folder a
 * 0700 parent hides (a clone under /root), another user cannot, and bwrap
 * refuses the whole sandbox over a bind it cannot find; such a child could
 * not read the folder without bwrap either, so it is not bound. */
static int reachable_by(const char *path, long uid)
{
	if (uid < 0)
		return 1;
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *slash = strrchr(dir, '/'); slash; slash = strrchr(dir, '/')) {
		*slash = '\0';
		struct stat st;
		if (stat(dir[0] ? dir : "/", &st) < 0)
			return 0;
		mode_t need = st.st_uid == (uid_t)uid ? S_IXUSR : st.st_gid == (gid_t)uid ? S_IXGRP : S_IXOTH;
		if (!(st.st_mode & need))
			return 0;
	}
	return 1;
}

/* Re-exposes, read-only, what the children need from inside a private
 * folder: the kit itself and the CUDA toolkit. */
static void reexpose(struct strvec *a, long uid)
{
	const char *need[] = { kit_root(), getenv("CUDA_HOME"), getenv("CUDA_PATH") };
	for (int i = 0; i < 3; i++) {
		char abs[PATH_MAX];
		if (!need[i] || !*need[i])
			continue;
		absolute_path(need[i], abs, sizeof(abs));
		if (under_private(abs) && is_dir(abs) && reachable_by(abs, uid))
			push_option(a, "--ro-bind", abs, abs);
	}
}

void bwrap_argv(struct strvec *a, char *const argv[], const char *work, const char *scratch,
		const char *cwd, const char *const *hide, int n_hide, long uid)
{
	probe();
	strvec_push(a, bwrap);
	strvec_push(a, "--unshare-user");
	strvec_push(a, "--unshare-pid");
	strvec_push(a, "--unshare-net");
	strvec_push(a, "--unshare-ipc");
	strvec_push(a, "--unshare-uts");
	strvec_push(a, "--unshare-cgroup-try");
	if (disable_userns)
		strvec_push(a, "--disable-userns");
	strvec_push(a, "--die-with-parent");
	strvec_push(a, "--new-session");
	push_option(a, "--ro-bind", "/", "/");
	push_option(a, "--proc", "/proc", NULL);
	push_option(a, "--dev", "/dev", NULL);
	glob_t gl;
	if (glob("/dev/nvidia*", 0, NULL, &gl) == 0) {
		for (size_t i = 0; i < gl.gl_pathc; i++)
			push_option(a, "--dev-bind", gl.gl_pathv[i], gl.gl_pathv[i]);
		globfree(&gl);
	}
	for (int i = 0; private_dirs[i]; i++)
		if (is_dir(private_dirs[i]))
			push_option(a, "--tmpfs", private_dirs[i], NULL);
	reexpose(a, uid);
	char secret[BWRAP_MAX_HIDE + 2][PATH_MAX];
	int n = secret_dirs(secret, BWRAP_MAX_HIDE + 2, hide, n_hide), hidden_prog = 0;
	char prog[PATH_MAX];
	absolute_path(argv[0], prog, sizeof(prog));
	/* What uid cannot reach needs no hiding, and an empty folder over it
	 * would make its path inside the sandbox's writable /tmp. */
	for (int i = 0; i < n; i++) {
		if (is_dir(secret[i]) && reachable_by(secret[i], uid))
			push_option(a, "--tmpfs", secret[i], NULL);
		hidden_prog |= under(prog, secret[i]);
	}
	/* A program kept in a hidden folder (the batch's reference harness). */
	if (argv[0][0] == '/' && (hidden_prog || under_private(prog)) && access(prog, F_OK) == 0 &&
	    !(work[0] && under(prog, work)) && reachable_by(prog, uid))
		push_option(a, "--ro-bind", prog, prog);
	if (work[0] && strcmp(work, scratch) != 0)
		push_option(a, "--ro-bind", work, work);
	if (scratch[0])
		push_option(a, "--bind", scratch, scratch);
	/* The empty folders over what is hidden stay empty: a file written
	 * there would vanish anyway, but a probe could not tell it from an
	 * escape, and the child has no business writing there. */
	for (int i = 0; private_dirs[i]; i++)
		if (strcmp(private_dirs[i], "/tmp") != 0 && is_dir(private_dirs[i]))
			push_option(a, "--remount-ro", private_dirs[i], NULL);
	for (int i = 0; i < n; i++)
		if (is_dir(secret[i]) && reachable_by(secret[i], uid))
			push_option(a, "--remount-ro", secret[i], NULL);
	if (cwd[0])
		push_option(a, "--chdir", cwd, NULL);
	strvec_push(a, "--");
	for (int i = 0; argv[i]; i++)
		strvec_push(a, argv[i]);
}
