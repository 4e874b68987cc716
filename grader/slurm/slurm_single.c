/*
 * ./grade LAB --slurm: the same grade, on a node of the cluster, through
 * srun. A student on a login node gets GPU timing without learning Slurm.
 * srun is started directly (posix_spawn, argv in hand) rather than through
 * the process runner, which keeps a child's output until it ends: here
 * the grade's messages, srun's "waiting for resources" and the report go
 * straight to the terminal, as a grade run here would print them.
 */
#include "slurm/slurm.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sys/kit_paths.h"

extern char **environ;

int slurm_single(const struct options *o)
{
	char srun[PATH_MAX], self[PATH_MAX], script[PATH_MAX], err[512];
	if (slurm_find("srun", srun, sizeof(srun), err, sizeof(err)) < 0) {
		fprintf(stderr, "grade: %s\n", err);
		return 4;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	struct strvec a = { 0 };
	strvec_push(&a, srun);
	strvec_push(&a, "--ntasks=1");
	slurm_resource_options(o, o->backend == BACKEND_EMU, &a);
	strvec_push(&a, kit_path(script, sizeof(script), "grader/slurm/task.sh"));
	strvec_push(&a, self);
	strvec_push(&a, o->lab_id);
	slurm_grade_options(o, &a);
	if (a.failed) {
		strvec_free(a.v);
		fprintf(stderr, "grade: out of memory\n");
		return 4;
	}
	/* While srun runs, Ctrl-C is srun's to handle (it cancels the step). */
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old_int;
	sigaction(SIGINT, &ignore, &old_int);
	posix_spawnattr_t attr;
	sigset_t defaults;
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGINT);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigdefault(&attr, &defaults);	/* not our SIG_IGN */
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
	pid_t pid;
	int rc = posix_spawn(&pid, srun, NULL, &attr, a.v, environ), status = 0;
	posix_spawnattr_destroy(&attr);
	strvec_free(a.v);
	if (rc == 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	sigaction(SIGINT, &old_int, NULL);
	if (rc != 0) {
		fprintf(stderr, "grade: cannot run %s: %s\n", srun, strerror(rc));
		return 4;
	}
	/* srun exits with the grade's status; a step that could not run at
	 * all is the grader's failure to run (4), not a verdict. */
	if (WIFEXITED(status) && WEXITSTATUS(status) <= 4)
		return WEXITSTATUS(status);
	fprintf(stderr, "grade: srun %s %d: the grade did not run to its end on the cluster\n",
		WIFEXITED(status) ? "exited with status" : "was killed by signal",
		WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 4;
}
