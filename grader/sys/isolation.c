/* Isolation of untrusted children (see isolation.h). */
#include "sys/isolation.h"

#include <errno.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/bwrap.h"
#include "sys/kit_paths.h"
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

/* The child's environment: the grader's (clean: only what env_allowed
 * lets through, and a HOME and TMPDIR of its own), with gpu, when not NULL,
 * as its CUDA_VISIBLE_DEVICES. */
static void build_env(struct strvec *e, int clean, const char *home, const char *gpu)
{
	char buf[PATH_MAX + 8];
	for (char **p = environ; *p; p++)
		if ((!clean || env_allowed(*p)) && !(gpu && strncmp(*p, GPU_VAR, strlen(GPU_VAR)) == 0))
			strvec_push(e, *p);
	if (gpu) {
		snprintf(buf, sizeof(buf), GPU_VAR "%.200s", gpu);
		strvec_push(e, buf);
	}
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

int isolation_prepare(char *const argv[], const struct sandbox_limits *lim,
		      struct isolation_plan *plan, char *err, size_t errlen)
{
	const struct isolation_policy *p = lim->isolation;
	struct strvec e = { 0 }, a = { 0 };
	memset(plan, 0, sizeof(*plan));
	plan->argv = (char **)argv;
	plan->envp = environ;
	plan->uid = -1;
	if (!p) {
		if (!lim->gpu)
			return 0;
		build_env(&e, 0, NULL, lim->gpu);
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
	plan->uid = p->own_user ? -1 : uid_lease();
	plan->nproc = p->nproc > 0 ? p->nproc : ISOLATION_DEFAULT_NPROC;
	const char *writable = lim->writable_dir ? lim->writable_dir : p->writable;
	char work[PATH_MAX] = "", scratch[PATH_MAX] = "";
	if (writable && prepare_writable(writable, plan->uid, work, scratch, err, errlen) < 0)
		return -1;
	/* The child starts in its own folder when it was sent to the shared one. */
	if (scratch[0] && (!lim->cwd || strcmp(scratch, work) != 0))
		snprintf(plan->cwd, sizeof(plan->cwd), "%s", scratch);
	else if (lim->cwd)
		absolute_path(lim->cwd, plan->cwd, sizeof(plan->cwd));

	build_env(&e, 1, plan->cwd[0] ? plan->cwd : "/tmp", lim->gpu);
	plan->bwrap = !p->no_bwrap && bwrap_available();
	if (plan->bwrap)
		bwrap_argv(&a, argv, work, scratch, plan->cwd, p->hide, p->n_hide, plan->uid);
	if (e.failed || a.failed) {
		strvec_free(e.v);
		strvec_free(a.v);
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

void isolation_finish(struct isolation_plan *plan)
{
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
}

void isolation_describe(const struct isolation_policy *p, char *buf, size_t len)
{
	if (!p) {
		snprintf(buf, len, "not isolated (--no-isolation): ran as the grader's user, with time "
			 "and output limits only");
		return;
	}
	char who[64] = "as the grader's user";
	long uid = p->own_user ? -1 : uid_lease();
	if (uid >= 0)
		snprintf(who, sizeof(who), "as uid %ld, at most %d processes", uid,
			 p->nproc > 0 ? p->nproc : ISOLATION_DEFAULT_NPROC);
	else if (geteuid() == 0 && !p->own_user)
		snprintf(who, sizeof(who), "as root (no free sandbox uid)");
	else if (geteuid() == 0)
		snprintf(who, sizeof(who), "as root, the grader's user");
	if (p->no_bwrap)
		snprintf(buf, len, "no bubblewrap (turned off); ran %s, with time and output limits", who);
	else if (bwrap_available())
		snprintf(buf, len, "bubblewrap: no network, solutions and other submissions hidden; %s", who);
	else
		snprintf(buf, len, "no bubblewrap (%s); ran %s, with time and output limits",
			 bwrap_unavailable_reason(), who);
}
