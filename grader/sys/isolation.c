/* Isolation of untrusted children (see isolation.h). */
#include "sys/isolation.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/bwrap.h"
#include "sys/kit_paths.h"
#include "sys/memory_cgroup.h"
#include "sys/private_kit.h"
#include "sys/seccomp_filter.h"
#include "sys/strvec.h"
#include "sys/uid_lease.h"

extern char **environ;

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

#define GPU_VAR "CUDA_VISIBLE_DEVICES="

/*
 * A CUDA context sets up one hardware work queue a connection (8 unless
 * told), and the host's driver makes and tears down contexts one at a time
 * for all its GPUs, so a batch's children queue for it. With one
 * connection a context costs the driver less than half as much, alone and
 * when many are made at once, and the lab 3 class graded faster with the
 * same grades (docs/results/gpu-2026-11-27-contexts/, calls 19 and 21,
 * measured both ways). The labs time the default stream's kernels, where one queue
 * changes nothing; a student's several streams share it, in the order
 * issued. A value in the grader's own environment is kept.
 */
#define CONNECTIONS_NAME "CUDA_DEVICE_MAX_CONNECTIONS"

#define WORKERS_VAR "CUEMU_WORKERS="

/* The child's environment: the grader's (clean: only what env_allowed
 * lets through, and a HOME and TMPDIR of its own), with lim->gpu, when not
 * NULL, as its CUDA_VISIBLE_DEVICES, the emulator on one core where
 * lim->emulator_serial says so, and one work queue a CUDA context unless
 * the grader's environment names a number. */
static void build_env(struct strvec *e, int clean, const char *home, const struct sandbox_limits *lim)
{
	char buf[PATH_MAX + 8];
	const char *gpu = lim->gpu;
	for (char **p = environ; *p; p++)
		if ((!clean || env_allowed(*p)) && !(gpu && strncmp(*p, GPU_VAR, strlen(GPU_VAR)) == 0) &&
		    !(lim->emulator_serial && strncmp(*p, WORKERS_VAR, strlen(WORKERS_VAR)) == 0))
			strvec_push(e, *p);
	if (lim->emulator_serial)
		strvec_push(e, WORKERS_VAR "1");
	if (gpu) {
		snprintf(buf, sizeof(buf), GPU_VAR "%.200s", gpu);
		strvec_push(e, buf);
	}
	if (!getenv(CONNECTIONS_NAME))
		strvec_push(e, CONNECTIONS_NAME "=1");
	if (!clean)
		return;
	snprintf(buf, sizeof(buf), "HOME=%s", home);
	strvec_push(e, buf);
	strvec_push(e, "TMPDIR=/tmp");
	if (!getenv("PATH"))
		strvec_push(e, "PATH=/usr/local/bin:/usr/bin:/bin");
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
	absolute_path(dir, work, PATH_MAX);
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

const struct isolation_policy *isolation_for_tools(const struct isolation_policy *p)
{
	return p && p->force ? p : NULL;
}

/* Processes whose real uid is uid now, from /proc. */
static int processes_of(uid_t uid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d))) {
		struct stat st;
		char path[300];
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s", e->d_name);
		n += stat(path, &st) == 0 && st.st_uid == uid;
	}
	if (d)
		closedir(d);
	return n;
}

/* The user the child runs as: a leased uid when we are root (refused when
 * none is free: never root), else ours. Its process limit: as a uid of its
 * own, nproc; as ours, nproc more than we run now (RLIMIT_NPROC counts
 * every process of the user). */
static int choose_user(const struct isolation_policy *p, struct isolation_plan *plan, char *err,
		       size_t errlen)
{
	int nproc = p->nproc > 0 ? p->nproc : ISOLATION_DEFAULT_NPROC;
	if (geteuid() != 0) {
		plan->uid = -1;
		plan->nproc = processes_of(geteuid()) + nproc;
		return 0;
	}
	plan->uid = uid_lease();
	plan->nproc = nproc;
	if (plan->uid < 0) {
		snprintf(err, errlen, "no free sandbox uid: every lock file %s/cuda-lab-kit-uid-*.lock "
			 "(uids %d to %d) is held by another process, and untrusted code never runs as "
			 "root: wait for the other grades to end, or find what holds them (fuser)",
			 uid_lease_dir(), UID_LEASE_BASE, UID_LEASE_BASE + UID_LEASE_COUNT - 1);
		return -1;
	}
	return 0;
}

/* Whether uid can reach the kit's build, through the view a child makes of
 * a kit in a private folder (private_kit.h) where the kernel allows it. */
static int uid_can_read_kit(long uid)
{
	char lib[PATH_MAX], cc[PATH_MAX];
	kit_path(lib, sizeof(lib), "build/libkit.a");
	kit_path(cc, sizeof(cc), "build/emu/cuemu-cc");
	int need_cc = access(cc, F_OK) == 0;
	pid_t pid = fork();
	if (pid == 0) {
		char why[256];
		if (private_kit_expose(uid, why, sizeof(why)) < 0 || setgroups(0, NULL) < 0 ||
		    setgid((gid_t)uid) < 0 || setuid((uid_t)uid) < 0)
			_exit(1);
		_exit(access(lib, R_OK) == 0 && (!need_cc || access(cc, X_OK) == 0) ? 0 : 1);
	}
	int status = 1;
	if (pid > 0)
		waitpid(pid, &status, 0);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int isolation_ready(const struct isolation_policy *p, const char *work, char *err, size_t errlen)
{
	struct isolation_plan plan = { .uid = -1 };
	if (!p || geteuid() != 0)
		return 0;
	if (choose_user(p, &plan, err, errlen) < 0)
		return -1;
	if (!uid_can_read_kit(plan.uid)) {
		snprintf(err, errlen, "the sandbox user (uid %ld) cannot read the kit at %s: a folder "
			 "above it is private, and no mount namespace could open a way past it. Move the kit, or chmod o+rx the folders above it, or run "
			 "with --no-isolation (untrusted code then runs as root).", plan.uid, kit_root());
		return -1;
	}
	if (work && (chown(work, (uid_t)plan.uid, (gid_t)plan.uid) < 0 || chmod(work, 0700) < 0)) {
		snprintf(err, errlen, "cannot hand %.300s to uid %ld: %s", work, plan.uid, strerror(errno));
		return -1;
	}
	return 0;
}

int isolation_prepare(char *const argv[], const struct sandbox_limits *lim,
		      struct isolation_plan *plan, char *err, size_t errlen)
{
	const struct isolation_policy *p = lim->isolation;
	struct strvec e = { 0 }, a = { 0 };
	memset(plan, 0, sizeof(*plan));
	plan->argv = (char **)argv;
	plan->envp = environ;
	plan->uid = -1;
	plan->status[0] = plan->status[1] = plan->seccomp = -1;
	plan->keep[0] = plan->keep[1] = -1;
	if (!p) {
		build_env(&e, 0, NULL, lim);
		if (e.failed) {
			strvec_free(e.v);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		plan->owned = 1;
		plan->envp = e.v;
		return 0;
	}
	plan->isolated = 1;
	if (choose_user(p, plan, err, errlen) < 0)
		return -1;
	const char *writable = lim->writable_dir ? lim->writable_dir : p->writable;
	char work[PATH_MAX] = "", scratch[PATH_MAX] = "";
	if (writable && prepare_writable(writable, plan->uid, work, scratch, err, errlen) < 0)
		return -1;
	/* The child starts in its own folder when it was sent to the shared one. */
	if (scratch[0] && (!lim->cwd || strcmp(scratch, work) != 0))
		snprintf(plan->cwd, sizeof(plan->cwd), "%s", scratch);
	else if (lim->cwd)
		absolute_path(lim->cwd, plan->cwd, sizeof(plan->cwd));

	plan->bwrap = !p->no_bwrap && bwrap_available();
	int private_tmp = plan->bwrap && lim->disk_cap > 0;
	build_env(&e, 1, private_tmp ? "/tmp" : plan->cwd[0] ? plan->cwd : "/tmp", lim);
	if (plan->bwrap) {
		if (pipe2(plan->status, O_CLOEXEC) < 0) {
			strvec_free(e.v);
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			return -1;
		}
		plan->seccomp = seccomp_filter_fd();
		plan->keep[0] = plan->status[1];
		plan->keep[1] = plan->seccomp;
		struct bwrap_view view = { .work = work, .scratch = scratch, .cwd = plan->cwd,
					   .tmp_bytes = lim->disk_cap, .shown = p->shown, .hide = p->hide, .n_hide = p->n_hide,
					   .status_fd = ISOLATION_STATUS_FD,
					   .seccomp_fd = plan->seccomp >= 0 ? ISOLATION_SECCOMP_FD : -1 };
		bwrap_argv(&a, argv, &view);
	}
	if (e.failed || a.failed) {
		strvec_free(e.v);
		strvec_free(a.v);
		isolation_finish(plan);
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
	if (plan->nproc > 0) {
		struct rlimit rl = { (rlim_t)plan->nproc, (rlim_t)plan->nproc };
		setrlimit(RLIMIT_NPROC, &rl);
	}
	if (plan->uid >= 0) {
		char why[512];
		if (private_kit_expose(plan->uid, why, sizeof(why)) < 0)
			die(why);
		if (setgroups(0, NULL) < 0 || setgid((gid_t)plan->uid) < 0 || setuid((uid_t)plan->uid) < 0)
			die("setuid");
	}
	if (plan->isolated) {
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

int isolation_check_start(struct isolation_plan *plan, const struct child_result *res, char *err,
			  size_t errlen)
{
	if (!plan->bwrap || plan->status[0] < 0)
		return 0;
	/* "started" comes from inside the sandbox, just before the program
	 * runs (bwrap.h); without it, bwrap failed on its own. */
	char buf[4096];
	int flags = fcntl(plan->status[0], F_GETFL);
	fcntl(plan->status[0], F_SETFL, flags | O_NONBLOCK);
	ssize_t n = read(plan->status[0], buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	if (strncmp(buf, "started", 7) == 0)
		return 0;
	const char *said = child_output_tail(res, 3);
	snprintf(err, errlen, "the sandbox (bubblewrap) could not be made: %.400s",
		 said[0] ? said : "it said nothing");
	return -1;
}

void isolation_finish(struct isolation_plan *plan)
{
	for (int i = 0; i < 2; i++)
		if (plan->status[i] >= 0)
			close(plan->status[i]);
	if (plan->seccomp >= 0)
		close(plan->seccomp);
	if (plan->uid >= 0) {
		uid_kill_all(plan->uid);
		uid_reap_orphans();
	}
	if (plan->owned) {
		if (plan->bwrap)
			strvec_free(plan->argv);
		strvec_free(plan->envp);
	}
	memset(plan, 0, sizeof(*plan));
	plan->uid = -1;
	plan->status[0] = plan->status[1] = plan->seccomp = -1;
	plan->keep[0] = plan->keep[1] = -1;
}

void isolation_describe(const struct isolation_policy *p, char *buf, size_t len)
{
	if (!p) {
		snprintf(buf, len, "not isolated (--no-isolation): ran as the grader's user, with time "
			 "and output limits only");
		return;
	}
	char who[64] = "as the grader's user";
	long uid = uid_lease();
	if (uid >= 0)
		snprintf(who, sizeof(who), "as uid %ld", uid);
	else if (geteuid() == 0)
		snprintf(who, sizeof(who), "nowhere: no free sandbox uid (refused)");
	char limits[320];
	const char *no_cgroup = memory_cgroup_why_not();
	snprintf(limits, sizeof(limits), "at most %d processes, file size limited, memory %s%s%s",
		 p->nproc > 0 ? p->nproc : ISOLATION_DEFAULT_NPROC,
		 no_cgroup ? "capped per process, not per run (RLIMIT_DATA: " : "capped per run by a cgroup",
		 no_cgroup ? no_cgroup : "", no_cgroup ? ")" : "");
	if (p->no_bwrap)
		snprintf(buf, len, "no bubblewrap (turned off); ran %s, %s", who, limits);
	else if (bwrap_available())
		snprintf(buf, len, "bubblewrap: no network, only the system, the compilers and this run's "
			 "files visible; ran %s, %s", who, limits);
	else
		snprintf(buf, len, "no bubblewrap (%s); ran %s, %s", bwrap_unavailable_reason(), who,
			 limits);
}
