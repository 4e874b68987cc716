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

#include "sys/cuda_toolkit.h"
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

/* What the sandbox shows, read-only: the allowlist, and the kit's folders
 * that must stay dark even where a shown folder holds them. */
struct view {
	struct strvec *a;
	char shown[64][PATH_MAX];
	int n;
};

static int is_shown(const struct view *v, const char *path)
{
	for (int i = 0; i < v->n; i++)
		if (under(path, v->shown[i]))
			return 1;
	return 0;
}

/* Shows path read-only (a link as the same link), unless it is shown
 * already or does not exist. */
static void show(struct view *v, const char *path)
{
	char abs[PATH_MAX], target[PATH_MAX];
	struct stat st;
	if (!path || path[0] != '/' || lstat(path, &st) < 0 || is_shown(v, path) || v->n == 64)
		return;
	ssize_t n = S_ISLNK(st.st_mode) ? readlink(path, target, sizeof(target) - 1) : -1;
	if (n > 0 && !strchr(path + 1, '/')) {
		/* /bin -> usr/bin on a merged /usr: the same link inside. */
		target[n] = '\0';
		push_option(v->a, "--symlink", target, path);
	} else {
		absolute_path(path, abs, sizeof(abs));
		if (is_shown(v, abs) || stat(abs, &st) < 0)
			return;
		push_option(v->a, "--ro-bind", abs, abs);
		snprintf(v->shown[v->n++], PATH_MAX, "%s", abs);
		if (strcmp(abs, path) == 0)
			return;
	}
	snprintf(v->shown[v->n++], PATH_MAX, "%s", path);
}

/* The system's programs and libraries: what a compiler, nm and the
 * harness load. Of /etc only what the loader and the C library read; the
 * rest of it (shadow, keys, other services' settings) stays out. */
static void show_system(struct view *v)
{
	static const char *const sys[] = { "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
					   "/sys", "/etc/ld.so.cache", "/etc/ld.so.conf",
					   "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime",
					   "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", NULL };
	for (int i = 0; sys[i]; i++)
		show(v, sys[i]);
	char toolkit[PATH_MAX];
	const char *env[] = { cuda_toolkit_root(toolkit, sizeof(toolkit)), getenv("DEPS_PREFIX") };
	char abs[PATH_MAX];
	for (int i = 0; i < 2; i++)
		if (env[i] && *env[i]) {
			absolute_path(env[i], abs, sizeof(abs));
			show(v, abs);
		}
}

/* The kit's build products the tools need: the emulator's folder (its
 * wrapper finds its headers and runtime beside itself) and the unpacked
 * packages of a machine without a registry. Never the kit's root: not its
 * .git, solutions/, tests/, nor batches kept there. */
static void show_kit(struct view *v)
{
	char path[PATH_MAX];
	show(v, kit_path(path, sizeof(path), "build/emu"));
	show(v, kit_path(path, sizeof(path), ".deps"));
}

/* Files and folders the command names (the program, its inputs, -I
 * folders): the kit passes them, the student does not. */
static void show_arguments(struct view *v, char *const argv[])
{
	for (int i = 0; argv[i]; i++) {
		const char *p = argv[i];
		if (strncmp(p, "-I", 2) == 0)
			p += 2;
		if (p[0] == '/')
			show(v, p);
	}
	/* A toolkit's compiler (CUDA_HOME/bin/nvcc): the whole toolkit. */
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", argv[0]);
	char *slash = strrchr(dir, '/');
	if (slash && slash > dir && slash - dir >= 4 && strncmp(slash - 4, "/bin", 4) == 0) {
		slash[-4] = '\0';
		if (dir[0] == '/' && dir[1])
			show(v, dir);
	}
}

void bwrap_argv(struct strvec *a, char *const argv[], const struct bwrap_view *w)
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
	char seccomp[16];
	if (w->seccomp_fd >= 0) {
		snprintf(seccomp, sizeof(seccomp), "%d", w->seccomp_fd);
		push_option(a, "--seccomp", seccomp, NULL);
	}
	push_option(a, "--proc", "/proc", NULL);
	push_option(a, "--dev", "/dev", NULL);
	glob_t gl;
	if (glob("/dev/nvidia*", 0, NULL, &gl) == 0) {
		for (size_t i = 0; i < gl.gl_pathc; i++)
			push_option(a, "--dev-bind", gl.gl_pathv[i], gl.gl_pathv[i]);
		globfree(&gl);
	}
	char tmp_size[32];
	snprintf(tmp_size, sizeof(tmp_size), "%zu", w->tmp_bytes ? w->tmp_bytes : BWRAP_TMP_BYTES);
	push_option(a, "--size", tmp_size, NULL);
	push_option(a, "--tmpfs", "/tmp", NULL);

	struct view *v = calloc(1, sizeof(*v));
	if (!v) {
		a->failed = 1;
		return;
	}
	v->a = a;
	/* The run's folder first: the one place it may write (or, with
	 * tmp_bytes, only read), and its own part of it. */
	if (w->work[0] && strcmp(w->work, w->scratch) != 0)
		show(v, w->work);
	if (w->scratch[0] && !w->tmp_bytes)
		push_option(a, "--bind", w->scratch, w->scratch);
	else if (w->scratch[0])
		show(v, w->scratch);
	show(v, w->shown);
	show_system(v);
	show_kit(v);
	show_arguments(v, argv);
	/* Dark even where a shown folder holds them. */
	char path[PATH_MAX];
	const char *dark[2 + BWRAP_MAX_HIDE] = { kit_path(path, sizeof(path), "solutions") };
	int n_dark = 1;
	for (int i = 0; i < w->n_hide && n_dark < 1 + BWRAP_MAX_HIDE; i++)
		dark[n_dark++] = w->hide[i];
	for (int i = 0; i < n_dark; i++) {
		char abs[PATH_MAX];
		struct stat st;
		absolute_path(dark[i], abs, sizeof(abs));
		if (is_shown(v, abs) && stat(abs, &st) == 0 && S_ISDIR(st.st_mode) && !under(w->scratch, abs))
			push_option(a, "--tmpfs", abs, NULL);
	}
	free(v);
	/* The root bwrap builds the view on is a tmpfs of its own: read-only,
	 * so that the folders it made on the way to each shown path take no
	 * writes (they would take memory without bound). */
	push_option(a, "--remount-ro", "/", NULL);
	if (w->cwd[0])
		push_option(a, "--chdir", w->tmp_bytes ? "/tmp" : w->cwd, NULL);
	strvec_push(a, "--");
	/* Inside, a shell says "started" on status_fd, closes it and becomes
	 * the program: a run without the word failed in bwrap itself (bwrap's
	 * own status reports a child even when its set-up then fails). */
	char started[96];
	if (w->status_fd >= 0) {
		snprintf(started, sizeof(started), "printf started >&%d && exec %d>&- && exec \"$@\"",
			 w->status_fd, w->status_fd);
		strvec_push(a, "/bin/sh");
		strvec_push(a, "-c");
		strvec_push(a, started);
		strvec_push(a, "sh");
	}
	for (int i = 0; argv[i]; i++)
		strvec_push(a, argv[i]);
}
