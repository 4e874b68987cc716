/* Isolation of untrusted children (see isolation.h). */
#include "sys/isolation.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sys/kit_paths.h"

extern char **environ;

/* ---- the policy ---------------------------------------------------------- */

static struct {
	int force;
	char writable[PATH_MAX];
	char hide[ISOLATION_MAX_HIDE][PATH_MAX];
	int n_hide;
	int nproc;
	int no_bwrap;
	int own_user;
} policy;

/* path made absolute and free of symbolic links, as bwrap needs it; the
 * path itself (made absolute) when it does not exist yet. */
static void absolute(const char *path, char *out, size_t len)
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

void isolation_configure(const struct isolation_policy *p)
{
	memset(&policy, 0, sizeof(policy));
	if (!p)
		return;
	policy.force = p->force;
	policy.nproc = p->nproc;
	policy.no_bwrap = p->no_bwrap;
	policy.own_user = p->own_user;
	if (p->writable)
		absolute(p->writable, policy.writable, sizeof(policy.writable));
	for (int i = 0; i < p->n_hide && i < ISOLATION_MAX_HIDE; i++)
		if (p->hide[i])
			absolute(p->hide[i], policy.hide[policy.n_hide++], PATH_MAX);
}

int isolation_forced(void)
{
	return policy.force;
}

/* ---- our own uid (when root) --------------------------------------------- */

static long lease_uid = -1;
static pid_t lease_pid;
static int lease_fd = -1;

static const char *lock_dir(void)
{
	struct stat st;
	return stat("/run/lock", &st) == 0 && S_ISDIR(st.st_mode) ? "/run/lock" : "/tmp";
}

/* Kills every process running as uid. A helper becomes uid and sends
 * kill(-1): a process of that uid may signal exactly the processes of that
 * uid, wherever they are (another session, another pid namespace). */
static void sweep(long uid)
{
	pid_t pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) == 0 && setgid((gid_t)uid) == 0 && setuid((uid_t)uid) == 0)
			kill(-1, SIGKILL);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/* We are a subreaper (see isolation_uid): what the child left behind was
 * reparented to us, and its process count stays charged to the uid until
 * someone reaps it. Zombies only; a child still dying is reaped next time. */
static void reap_orphans(void)
{
	for (int round = 0; round < 2; round++) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		struct timespec ts = { 0, 5 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

/* Tries to lease uid: it has no account or group, and its lock file is ours. */
static int try_lease(long uid)
{
	char path[PATH_MAX];
	if (getpwuid((uid_t)uid) || getgrgid((gid_t)uid))
		return -1;
	snprintf(path, sizeof(path), "%s/cuda-lab-kit-uid-%ld.lock", lock_dir(), uid);
	int fd = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

long isolation_uid(void)
{
	if (geteuid() != 0)
		return -1;
	if (lease_uid >= 0 && lease_pid == getpid())
		return lease_uid;
	/* A forked process: the parent keeps its lease (closing our copy of the
	 * descriptor does not drop the parent's lock); we take our own. */
	if (lease_fd >= 0)
		close(lease_fd);
	lease_fd = -1;
	lease_uid = -1;
	for (long uid = ISOLATION_UID_BASE; uid < ISOLATION_UID_BASE + ISOLATION_UIDS; uid++) {
		int fd = try_lease(uid);
		if (fd < 0)
			continue;
		lease_fd = fd;
		lease_uid = uid;
		lease_pid = getpid();
		/* Orphans of our children come to us, not to an init that may
		 * never reap them (a container's). */
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
		sweep(uid);	/* whatever a holder that crashed left running */
		return uid;
	}
	return -1;
}

/* ---- is bubblewrap usable? ------------------------------------------------ */

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
	long uid = isolation_uid();
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

int isolation_available(void)
{
	probe();
	return available;
}

const char *isolation_unavailable_reason(void)
{
	probe();
	return reason;
}

/* ---- building the plan ---------------------------------------------------- */

struct vec {
	char **v;
	int n, cap;
	int failed;
};

static void push(struct vec *a, const char *s)
{
	if (a->failed)
		return;
	if (a->n + 2 > a->cap) {
		int cap = a->cap ? 2 * a->cap : 64;
		char **v = realloc(a->v, sizeof(char *) * (size_t)cap);
		if (!v) {
			a->failed = 1;
			return;
		}
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n] = strdup(s);
	if (!a->v[a->n]) {
		a->failed = 1;
		return;
	}
	a->v[++a->n] = NULL;
}

static void push3(struct vec *a, const char *flag, const char *x, const char *y)
{
	push(a, flag);
	push(a, x);
	if (y)
		push(a, y);
}

static void free_vec(char **v)
{
	for (int i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* What a compiler or the harness may need of the grader's environment:
 * nothing else is passed (an instructor's tokens, the terminal's variables). */
static int env_allowed(const char *kv)
{
	static const char *const names[] = { "PATH=", "LANG=", "LANGUAGE=", "TZ=", "LD_LIBRARY_PATH=",
					     "KIT_ROOT=", "TSAN_OPTIONS=", "CUDA_", "NVIDIA_", "NVCC_",
					     "CUEMU_", "LC_", NULL };
	for (int i = 0; names[i]; i++)
		if (strncmp(kv, names[i], strlen(names[i])) == 0)
			return 1;
	return 0;
}

static void build_env(struct vec *e, const char *home)
{
	char buf[PATH_MAX + 8];
	for (char **p = environ; *p; p++)
		if (env_allowed(*p))
			push(e, *p);
	snprintf(buf, sizeof(buf), "HOME=%s", home);
	push(e, buf);
	push(e, "TMPDIR=/tmp");
	if (!getenv("PATH"))
		push(e, "PATH=/usr/local/bin:/usr/bin:/bin");
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

/* The kit's secrets and the policy's folders, absolute. */
static int secret_dirs(char out[][PATH_MAX], int max)
{
	int n = 0;
	char rel[PATH_MAX];
	const char *mine[] = { "solutions", "build/work" };
	for (int i = 0; i < 2 && n < max; i++)
		absolute(kit_path(rel, sizeof(rel), mine[i]), out[n++], PATH_MAX);
	for (int i = 0; i < policy.n_hide && n < max; i++)
		snprintf(out[n++], PATH_MAX, "%s", policy.hide[i]);
	return n;
}

/* Re-exposes, read-only, what the children need from inside a private
 * folder: the kit itself and the CUDA toolkit. */
static void reexpose(struct vec *a)
{
	const char *need[] = { kit_root(), getenv("CUDA_HOME"), getenv("CUDA_PATH") };
	for (int i = 0; i < 3; i++) {
		char abs[PATH_MAX];
		if (!need[i] || !*need[i])
			continue;
		absolute(need[i], abs, sizeof(abs));
		if (under_private(abs) && is_dir(abs))
			push3(a, "--ro-bind", abs, abs);
	}
}

static void bwrap_argv(struct vec *a, char *const argv[], const char *work, const char *scratch,
		       const char *cwd)
{
	push(a, bwrap);
	push(a, "--unshare-user");
	push(a, "--unshare-pid");
	push(a, "--unshare-net");
	push(a, "--unshare-ipc");
	push(a, "--unshare-uts");
	push(a, "--unshare-cgroup-try");
	if (disable_userns)
		push(a, "--disable-userns");
	push(a, "--die-with-parent");
	push(a, "--new-session");
	push3(a, "--ro-bind", "/", "/");
	push3(a, "--proc", "/proc", NULL);
	push3(a, "--dev", "/dev", NULL);
	glob_t gl;
	if (glob("/dev/nvidia*", 0, NULL, &gl) == 0) {
		for (size_t i = 0; i < gl.gl_pathc; i++)
			push3(a, "--dev-bind", gl.gl_pathv[i], gl.gl_pathv[i]);
		globfree(&gl);
	}
	for (int i = 0; private_dirs[i]; i++)
		if (is_dir(private_dirs[i]))
			push3(a, "--tmpfs", private_dirs[i], NULL);
	reexpose(a);
	char secret[ISOLATION_MAX_HIDE + 2][PATH_MAX];
	int n = secret_dirs(secret, ISOLATION_MAX_HIDE + 2), hidden_prog = 0;
	char prog[PATH_MAX];
	absolute(argv[0], prog, sizeof(prog));
	for (int i = 0; i < n; i++) {
		if (is_dir(secret[i]))
			push3(a, "--tmpfs", secret[i], NULL);
		hidden_prog |= under(prog, secret[i]);
	}
	/* A program kept in a hidden folder (the batch's reference harness). */
	if (argv[0][0] == '/' && (hidden_prog || under_private(prog)) && access(prog, F_OK) == 0 &&
	    !(work[0] && under(prog, work)))
		push3(a, "--ro-bind", prog, prog);
	if (work[0] && strcmp(work, scratch) != 0)
		push3(a, "--ro-bind", work, work);
	if (scratch[0])
		push3(a, "--bind", scratch, scratch);
	/* The empty folders over what is hidden stay empty: a file written
	 * there would vanish anyway, but a probe could not tell it from an
	 * escape, and the child has no business writing there. */
	for (int i = 0; private_dirs[i]; i++)
		if (strcmp(private_dirs[i], "/tmp") != 0 && is_dir(private_dirs[i]))
			push3(a, "--remount-ro", private_dirs[i], NULL);
	for (int i = 0; i < n; i++)
		if (is_dir(secret[i]))
			push3(a, "--remount-ro", secret[i], NULL);
	if (cwd[0])
		push3(a, "--chdir", cwd, NULL);
	push(a, "--");
	for (int i = 0; argv[i]; i++)
		push(a, argv[i]);
}

/*
 * The folder the child may write. Ours already (a batch made it for this
 * uid, or we are not root): the child writes there. Root's (a single grade
 * as root): the child gets a folder of its own inside it, and the rest
 * stays root's, read-only to it; otherwise a program it left there could
 * be a trap for the root compilers that write there next (a symbolic link
 * where an output file is expected).
 */
static int prepare_writable(const char *dir, long uid, char *work, char *scratch, char *err,
			    size_t errlen)
{
	struct stat st;
	absolute(dir, work, PATH_MAX);
	if (stat(work, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a folder", work);
		return -1;
	}
	snprintf(scratch, PATH_MAX, "%s", work);
	if (uid < 0 || st.st_uid == (uid_t)uid)
		return 0;
	/* The child must reach its programs in here: traverse only. */
	if ((st.st_mode & 0011) != 0011 && chmod(work, (st.st_mode & 07777) | 0011) < 0) {
		snprintf(err, errlen, "chmod %s: %s", work, strerror(errno));
		return -1;
	}
	snprintf(scratch, PATH_MAX, "%.3000s/scratch-%ld", work, uid);
	if (mkdir(scratch, 0700) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "mkdir %s: %s", scratch, strerror(errno));
		return -1;
	}
	if (lstat(scratch, &st) < 0 || !S_ISDIR(st.st_mode) || lchown(scratch, (uid_t)uid, (gid_t)uid) < 0) {
		snprintf(err, errlen, "cannot prepare %s for uid %ld", scratch, uid);
		return -1;
	}
	return 0;
}

int isolation_prepare(char *const argv[], const struct sandbox_limits *lim,
		      struct isolation_plan *plan, char *err, size_t errlen)
{
	memset(plan, 0, sizeof(*plan));
	plan->argv = (char **)argv;
	plan->envp = environ;
	plan->uid = -1;
	if (!lim->isolate && !policy.force)
		return 0;
	plan->uid = policy.own_user ? -1 : isolation_uid();
	plan->nproc = policy.nproc > 0 ? policy.nproc : ISOLATION_DEFAULT_NPROC;
	const char *writable = lim->writable_dir ? lim->writable_dir : policy.writable[0] ? policy.writable : NULL;
	char work[PATH_MAX] = "", scratch[PATH_MAX] = "";
	if (writable && prepare_writable(writable, plan->uid, work, scratch, err, errlen) < 0)
		return -1;
	/* The child starts in its own folder when it was sent to the shared one. */
	if (scratch[0] && (!lim->cwd || strcmp(scratch, work) != 0))
		snprintf(plan->cwd, sizeof(plan->cwd), "%s", scratch);
	else if (lim->cwd)
		absolute(lim->cwd, plan->cwd, sizeof(plan->cwd));

	struct vec e = { 0 }, a = { 0 };
	build_env(&e, plan->cwd[0] ? plan->cwd : "/tmp");
	plan->bwrap = !policy.no_bwrap && isolation_available();
	if (plan->bwrap)
		bwrap_argv(&a, argv, work, scratch, plan->cwd);
	if (e.failed || a.failed) {
		free_vec(e.v);
		free_vec(a.v);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	plan->owned = 1;
	plan->envp = e.v;
	plan->argv = plan->bwrap ? a.v : (char **)argv;
	return 0;
}

/* ---- in the child, and after ---------------------------------------------- */

static void die(const char *what)
{
	const char *m = "grade: cannot isolate the child: ";
	(void)!write(2, m, strlen(m));
	(void)!write(2, what, strlen(what));
	(void)!write(2, "\n", 1);
	_exit(126);
}

void isolation_enter(const struct isolation_plan *plan)
{
	if (plan->uid >= 0) {
		struct rlimit rl = { (rlim_t)plan->nproc, (rlim_t)plan->nproc };
		setrlimit(RLIMIT_NPROC, &rl);
		if (setgroups(0, NULL) < 0 || setgid((gid_t)plan->uid) < 0 || setuid((uid_t)plan->uid) < 0)
			die("setuid");
	}
	if (plan->owned) {
		/* After the uid change, which clears it: the child dies with us. */
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	}
	/* Checked as the new user: a folder it cannot enter is an error now. */
	if (plan->cwd[0] && !plan->bwrap && chdir(plan->cwd) < 0)
		die("the kit's folders are not readable by the sandbox user (chmod o+rx the folders "
		    "above the kit, or use --no-isolation)");
}

void isolation_fix_status(const struct isolation_plan *plan, struct child_result *res)
{
	if (plan->bwrap && res->exited && res->exit_status > 128 && res->exit_status < 128 + 65) {
		res->exited = 0;
		res->signaled = 1;
		res->signal = res->exit_status - 128;
		res->exit_status = 0;
	}
}

void isolation_finish(struct isolation_plan *plan)
{
	if (plan->uid >= 0) {
		sweep(plan->uid);
		reap_orphans();
	}
	if (plan->owned) {
		if (plan->bwrap)
			free_vec(plan->argv);
		free_vec(plan->envp);
	}
	memset(plan, 0, sizeof(*plan));
	plan->uid = -1;
}

void isolation_describe(int isolate, char *buf, size_t len)
{
	if (!isolate && !policy.force) {
		snprintf(buf, len, "not isolated (--no-isolation): ran as the grader's user, with time "
			 "and output limits only");
		return;
	}
	char who[64] = "as the grader's user";
	long uid = policy.own_user ? -1 : isolation_uid();
	if (uid >= 0)
		snprintf(who, sizeof(who), "as uid %ld, at most %d processes", uid,
			 policy.nproc > 0 ? policy.nproc : ISOLATION_DEFAULT_NPROC);
	else if (geteuid() == 0 && !policy.own_user)
		snprintf(who, sizeof(who), "as root (no free sandbox uid)");
	else if (geteuid() == 0)
		snprintf(who, sizeof(who), "as root, the grader's user");
	if (policy.no_bwrap)
		snprintf(buf, len, "no bubblewrap (turned off); ran %s, with time and output limits", who);
	else if (isolation_available())
		snprintf(buf, len, "bubblewrap: no network, solutions and other submissions hidden; %s", who);
	else
		snprintf(buf, len, "no bubblewrap (%s); ran %s, with time and output limits",
			 isolation_unavailable_reason(), who);
}
